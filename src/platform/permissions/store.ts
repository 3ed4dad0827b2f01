import type { Role } from '../access.js';
import { now } from '../http.js';
import type { TeamRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';

/** What holds grants: a space or a collection. */
export type ContentKind = 'space' | 'collection';
/** Who is granted: a user or a team. */
export type PrincipalKind = 'user' | 'team';

/** A space or collection, as the grants on it read it. */
export interface Grantable {
  kind: ContentKind;
  id: string;
  org_id: string;
}

/** The users granted a role directly on a space or collection, by display name. */
export function userGrants(db: Db, item: Grantable): Array<{ user: UserRow; role: Role }> {
  const rows = db
    .prepare(
      `SELECT u.*, cp.role AS grant_role FROM content_permissions cp JOIN users u ON u.id = cp.principal_id
         WHERE cp.content_type = ? AND cp.content_id = ? AND cp.principal_type = 'user'
         ORDER BY u.display_name COLLATE NOCASE, u.id`,
    )
    .all(item.kind, item.id) as Array<UserRow & { grant_role: Role }>;
  return rows.map(({ grant_role, ...user }) => ({ user, role: grant_role }));
}

/** The teams granted a role directly on a space or collection, by title. */
export function teamGrants(db: Db, item: Grantable): Array<{ team: TeamRow; role: Role }> {
  const rows = db
    .prepare(
      `SELECT t.*, cp.role AS grant_role FROM content_permissions cp JOIN teams t ON t.id = cp.principal_id
         WHERE cp.content_type = ? AND cp.content_id = ? AND cp.principal_type = 'team'
         ORDER BY t.title COLLATE NOCASE, t.id`,
    )
    .all(item.kind, item.id) as Array<TeamRow & { grant_role: Role }>;
  return rows.map(({ grant_role, ...team }) => ({ team, role: grant_role }));
}

/** The users of every member of an organization, by display name, with when they were last seen. */
export function organizationUsers(db: Db, orgId: string): Array<UserRow & { last_seen_at: string | null }> {
  return db
    .prepare(
      `SELECT u.*, m.last_seen_at FROM members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ?
         ORDER BY u.display_name COLLATE NOCASE, u.id`,
    )
    .all(orgId) as Array<UserRow & { last_seen_at: string | null }>;
}

export function teamInOrganization(db: Db, orgId: string, teamId: string): boolean {
  return db.prepare('SELECT 1 FROM teams WHERE id = ? AND org_id = ?').get(teamId, orgId) !== undefined;
}

/** Removes one direct grant; whether there was one. */
export function removeGrant(db: Db, item: Grantable, principal: PrincipalKind, principalId: string): boolean {
  const result = db
    .prepare(
      'DELETE FROM content_permissions WHERE content_type = ? AND content_id = ? AND principal_type = ? AND principal_id = ?',
    )
    .run(item.kind, item.id, principal, principalId);
  return result.changes > 0;
}

/**
 * Writes (or with `null` removes) one direct grant. A granted user who is not in the
 * organization joins it as a guest, so that the grant takes effect.
 */
export function setGrant(
  db: Db,
  item: Grantable,
  principal: PrincipalKind,
  principalId: string,
  role: Role | null,
): void {
  if (role === null) {
    removeGrant(db, item, principal, principalId);
    return;
  }
  db.prepare(
    `INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at)
     VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (content_type, content_id, principal_type, principal_id) DO UPDATE SET role = excluded.role`,
  ).run(item.kind, item.id, principal, principalId, role, now());
  if (principal === 'user') {
    db.prepare('INSERT OR IGNORE INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, NULL, ?)').run(
      item.org_id,
      principalId,
      now(),
    );
  }
}

/** Writes the same grant for several users and teams at once. */
export function setGrants(
  db: Db,
  item: Grantable,
  principals: { users: string[]; teams: string[] },
  role: Role | null,
): void {
  db.transaction(() => {
    for (const userId of principals.users) setGrant(db, item, 'user', userId, role);
    for (const teamId of principals.teams) setGrant(db, item, 'team', teamId, role);
  })();
}
