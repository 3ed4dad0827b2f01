import { laterThan, now } from '../http.js';
import type { CollectionRow, SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { collectionSubtree, endPosition } from '../tree/positions.js';
import { settleTransferredContent } from '../tree/transfer.js';

export function loadCollection(db: Db, id: string): CollectionRow | undefined {
  return db.prepare('SELECT * FROM collections WHERE id = ?').get(id) as CollectionRow | undefined;
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
