import type { Role } from '../access.js';
import { laterThan, now } from '../http.js';
import type { CollectionRow, SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { collectionSubtree, endPosition } from '../tree/positions.js';
import { settleTransferredContent } from '../tree/transfer.js';

export function loadCollection(db: Db, id: string): CollectionRow | undefined {
  return db.prepare('SELECT * FROM collections WHERE id = ?').get(id) as CollectionRow | undefined;
}

export function userExists(db: Db, userId: string): boolean {
  return db.prepare('SELECT 1 FROM users WHERE id = ?').get(userId) !== undefined;
}

export function teamInOrganization(db: Db, orgId: string, teamId: string): boolean {
  return db.prepare('SELECT 1 FROM teams WHERE id = ? AND org_id = ?').get(teamId, orgId) !== undefined;
}

/** Creates a collection at the end of its parent (the organization's root without one); returns it. */
export function insertCollection(
  db: Db,
  collection: { id: string; orgId: string; parentId: string | null; title: string },
): CollectionRow {
  const at = now();
  db.prepare(
    `INSERT INTO collections (id, org_id, parent_id, title, description, default_level, position, created_at, updated_at)
       VALUES (?, ?, ?, ?, NULL, 'inherit', ?, ?, ?)`,
  ).run(
    collection.id,
    collection.orgId,
    collection.parentId,
    collection.title,
    endPosition(db, collection.orgId, collection.parentId),
    at,
    at,
  );
  return loadCollection(db, collection.id)!;
}

/** The live spaces directly in a collection, in display order. */
export function spacesInCollection(db: Db, collectionId: string): SpaceRow[] {
  return db
    .prepare('SELECT * FROM spaces WHERE parent_id = ? AND deleted_at IS NULL ORDER BY position, created_at, id')
    .all(collectionId) as SpaceRow[];
}

/**
 * Moves a collection, with everything nested in it, to the end of the root of organization
 * `orgId`, and settles the grants of what moved.
 */
export function transferCollection(db: Db, collection: CollectionRow, orgId: string): void {
  db.transaction(() => {
    const ids = collectionSubtree(db, collection.id);
    const marks = ids.map(() => '?').join(',');
    const spaceIds = (
      db.prepare(`SELECT id FROM spaces WHERE parent_id IN (${marks})`).all(...ids) as Array<{ id: string }>
    ).map((row) => row.id);
    const position = endPosition(db, orgId, null);
    db.prepare(`UPDATE collections SET org_id = ? WHERE id IN (${marks})`).run(orgId, ...ids);
    db.prepare('UPDATE collections SET parent_id = NULL, position = ?, updated_at = ? WHERE id = ?').run(
      position,
      laterThan(collection.updated_at),
      collection.id,
    );
    if (spaceIds.length) {
      db.prepare(`UPDATE spaces SET org_id = ? WHERE id IN (${spaceIds.map(() => '?').join(',')})`).run(
        orgId,
        ...spaceIds,
      );
    }
    settleTransferredContent(db, orgId, { collections: ids, spaces: spaceIds });
  })();
}

/** The users granted a role directly on a collection, by display name. */
export function collectionUserGrants(db: Db, collectionId: string): Array<{ user: UserRow; role: Role }> {
  const rows = db
    .prepare(
      `SELECT u.*, cp.role AS grant_role FROM content_permissions cp JOIN users u ON u.id = cp.principal_id
         WHERE cp.content_type = 'collection' AND cp.content_id = ? AND cp.principal_type = 'user'
         ORDER BY u.display_name COLLATE NOCASE, u.id`,
    )
    .all(collectionId) as Array<UserRow & { grant_role: Role }>;
  return rows.map(({ grant_role, ...user }) => ({ user, role: grant_role }));
}

/** The users of every member of an organization, by display name. */
export function organizationUsers(db: Db, orgId: string): UserRow[] {
  return db
    .prepare(
      `SELECT u.* FROM members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ?
         ORDER BY u.display_name COLLATE NOCASE, u.id`,
    )
    .all(orgId) as UserRow[];
}

/** Removes one direct grant on a collection; whether there was one. */
export function removeGrant(
  db: Db,
  collectionId: string,
  principalType: 'user' | 'team',
  principalId: string,
): boolean {
  const result = db
    .prepare(
      `DELETE FROM content_permissions WHERE content_type = 'collection' AND content_id = ? AND principal_type = ? AND principal_id = ?`,
    )
    .run(collectionId, principalType, principalId);
  return result.changes > 0;
}

/**
 * Writes (or with `null` removes) one direct grant on a collection. A granted user who is not
 * in the organization joins it as a guest, so that the grant takes effect.
 */
export function setGrant(
  db: Db,
  collection: CollectionRow,
  principalType: 'user' | 'team',
  principalId: string,
  role: Role | null,
): void {
  if (role === null) {
    removeGrant(db, collection.id, principalType, principalId);
    return;
  }
  db.prepare(
    `INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at)
     VALUES ('collection', ?, ?, ?, ?, ?)
     ON CONFLICT (content_type, content_id, principal_type, principal_id) DO UPDATE SET role = excluded.role`,
  ).run(collection.id, principalType, principalId, role, now());
  if (principalType === 'user') {
    db.prepare('INSERT OR IGNORE INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, NULL, ?)').run(
      collection.org_id,
      principalId,
      now(),
    );
  }
}

/** Writes the same grant for several users and teams at once. */
export function setGrants(
  db: Db,
  collection: CollectionRow,
  principals: { users: string[]; teams: string[] },
  role: Role | null,
): void {
  db.transaction(() => {
    for (const userId of principals.users) setGrant(db, collection, 'user', userId, role);
    for (const teamId of principals.teams) setGrant(db, collection, 'team', teamId, role);
  })();
}

/**
 * Deletes a collection and every collection nested in it; the spaces inside are soft-deleted
 * (restorable for the usual window) and the grants on the removed collections go with them.
 */
export function deleteCollectionTree(db: Db, collection: CollectionRow): void {
  db.transaction(() => {
    const ids = collectionSubtree(db, collection.id);
    const marks = ids.map(() => '?').join(',');
    const at = now();
    db.prepare(`UPDATE spaces SET deleted_at = ? WHERE parent_id IN (${marks}) AND deleted_at IS NULL`).run(at, ...ids);
    // Their collection is gone: a restored space comes back at the end of the organization root.
    const spaces = db
      .prepare(`SELECT id FROM spaces WHERE parent_id IN (${marks}) ORDER BY position, created_at, id`)
      .all(...ids) as Array<{ id: string }>;
    let position = endPosition(db, collection.org_id, null);
    const toRoot = db.prepare('UPDATE spaces SET parent_id = NULL, position = ? WHERE id = ?');
    for (const space of spaces) toRoot.run(position++, space.id);
    db.prepare(`DELETE FROM content_permissions WHERE content_type = 'collection' AND content_id IN (${marks})`).run(
      ...ids,
    );
    // Nested collections go through the parent_id cascade.
    db.prepare('DELETE FROM collections WHERE id = ?').run(collection.id);
  })();
}

export function findCollectionOfOrganization(db: Db, orgId: string, collectionId: string): CollectionRow | undefined {
  return db.prepare('SELECT * FROM collections WHERE id = ? AND org_id = ?').get(collectionId, orgId) as
    | CollectionRow
    | undefined;
}
