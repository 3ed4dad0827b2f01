import type { UserRow } from '../rows.js';
import type { Db } from '../store/db.js';

/** A user another user may see: one sharing an organization with them. */
export function findVisibleUser(db: Db, userId: string, viewerId: string): UserRow | undefined {
  return db
    .prepare(
      `SELECT u.* FROM users u WHERE u.id = ? AND EXISTS (
         SELECT 1 FROM members a JOIN members b ON a.org_id = b.org_id
         WHERE a.user_id = u.id AND b.user_id = ?)`,
    )
    .get(userId, viewerId) as UserRow | undefined;
}

export function findUserById(db: Db, userId: string): UserRow | undefined {
  return db.prepare('SELECT * FROM users WHERE id = ?').get(userId) as UserRow | undefined;
}
