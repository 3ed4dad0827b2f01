import { findMember, type Role } from '../access.js';
import { removeReviewer } from '../organizations/merge-rules.js';
import { notFound, now, type PageWindow } from '../http.js';
import type { MemberRow, SpaceRow, TeamRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';

/** A member with their user. */
export interface MemberWithUser {
  member: MemberRow;
  user: UserRow;
}

export interface MemberFilter {
  /** A role, or `guest` for members without one. */
  role?: Role | 'guest' | undefined;
  /** Part of the display name or e-mail, any case. */
  search?: string | undefined;
  sort: 'joinedAt' | 'lastSeenAt' | 'name';
  order: 'asc' | 'desc';
}

const SORT_COLUMNS = { joinedAt: 'm.joined_at', lastSeenAt: 'm.last_seen_at', name: 'u.display_name COLLATE NOCASE' };

/** The live spaces, teams and (for members with a role) sites a member of an organization reaches. */
/** The membership row of a user in an organization (disabled members included); a 404 without one. */
export function requireMember(db: Db, orgId: string, userId: string): MemberRow {
  const member = findMember(db, orgId, userId);
  if (!member) throw notFound('Member');
  return member;
}

export function memberCounts(db: Db, member: MemberRow): { spaces: number; teams: number; sites: number } {
  const spaces = db
    .prepare(
      `SELECT COUNT(*) AS n FROM content_permissions cp JOIN spaces s ON s.id = cp.content_id
       WHERE cp.content_type = 'space' AND cp.principal_type = 'user' AND cp.principal_id = ?
       AND s.org_id = ? AND s.deleted_at IS NULL`,
    )
    .get(member.user_id, member.org_id) as { n: number };
  const teams = db
    .prepare(
      'SELECT COUNT(*) AS n FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE tm.user_id = ? AND t.org_id = ?',
    )
    .get(member.user_id, member.org_id) as { n: number };
  // Members (not guests) read every site of the organization.
  const sites =
    member.role === null
      ? 0
      : (db.prepare('SELECT COUNT(*) FROM sites WHERE org_id = ?').pluck(true).get(member.org_id) as number);
  return { spaces: spaces.n, teams: teams.n, sites };
}

/** One page of an organization's members with their users, and their count. */
export function listMembers(
  db: Db,
  orgId: string,
  filter: MemberFilter,
  window: PageWindow,
): { rows: MemberWithUser[]; count: number } {
  const conditions = ['m.org_id = ?'];
  const args: unknown[] = [orgId];
  if (filter.role === 'guest') conditions.push('m.role IS NULL');
  else if (filter.role) {
    conditions.push('m.role = ?');
    args.push(filter.role);
  }
  if (filter.search) {
    conditions.push('(instr(lower(u.display_name), lower(?)) > 0 OR instr(lower(u.email), lower(?)) > 0)');
    args.push(filter.search, filter.search);
  }
  if (filter.sort === 'lastSeenAt') conditions.push('m.last_seen_at IS NOT NULL');
  const from = `FROM members m JOIN users u ON u.id = m.user_id WHERE ${conditions.join(' AND ')}`;
  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(...args) as { n: number };
  const rows = db
    .prepare(
      `SELECT m.*, u.display_name AS u_display_name, u.email AS u_email, u.photo_url AS u_photo_url,
           u.created_at AS u_created_at ${from}
         ORDER BY ${SORT_COLUMNS[filter.sort]} ${direction}, m.user_id ${direction} LIMIT ? OFFSET ?`,
    )
    .all(...args, window.limit, window.offset) as Array<
    MemberRow & { u_display_name: string; u_email: string; u_photo_url: string | null; u_created_at: string }
  >;
  return {
    rows: rows.map(({ u_display_name, u_email, u_photo_url, u_created_at, ...member }) => ({
      member,
      user: {
        id: member.user_id,
        display_name: u_display_name,
        email: u_email,
        photo_url: u_photo_url,
        created_at: u_created_at,
      },
    })),
    count: n,
  };
}

/** Is the member an admin with no other (enabled) admin in the organization? */
export function isLastAdmin(db: Db, member: MemberRow): boolean {
  if (member.role !== 'admin') return false;
  const other = db
    .prepare("SELECT 1 FROM members WHERE org_id = ? AND role = 'admin' AND disabled = 0 AND user_id != ? LIMIT 1")
    .get(member.org_id, member.user_id);
  return other === undefined;
}

/**
 * Removes a member from an organization with their teams, direct grants and reviewer places:
 * grants would otherwise come back to life if the user rejoined.
 */
export function removeMember(db: Db, orgId: string, userId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM team_members WHERE user_id = ? AND team_id IN (SELECT id FROM teams WHERE org_id = ?)').run(
      userId,
      orgId,
    );
    db.prepare(
      `DELETE FROM content_permissions WHERE principal_type = 'user' AND principal_id = ? AND (
           (content_type = 'space' AND content_id IN (SELECT id FROM spaces WHERE org_id = ?))
           OR (content_type = 'collection' AND content_id IN (SELECT id FROM collections WHERE org_id = ?)))`,
    ).run(userId, orgId, orgId);
    db.prepare(
      'DELETE FROM site_permissions WHERE user_id = ? AND site_id IN (SELECT id FROM sites WHERE org_id = ?)',
    ).run(userId, orgId);
    removeReviewer(db, orgId, userId);
    db.prepare('DELETE FROM members WHERE org_id = ? AND user_id = ?').run(orgId, userId);
  })();
}

export function setMemberRole(db: Db, orgId: string, userId: string, role: Role | null): void {
  db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(role, orgId, userId);
}

export function touchMember(db: Db, orgId: string, userId: string): void {
  db.prepare('UPDATE members SET last_seen_at = ? WHERE org_id = ? AND user_id = ?').run(now(), orgId, userId);
}

/**
 * Marks a user as a member through SSO. A newcomer joins with `role` and, if given, `team`;
 * someone already a member keeps their role and is marked as SSO.
 */
export function joinThroughSso(
  db: Db,
  orgId: string,
  userId: string,
  role: string | null,
  team: string | null | undefined,
): void {
  db.transaction(() => {
    const { changes } = db
      .prepare(
        'INSERT INTO members (org_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT (org_id, user_id) DO NOTHING',
      )
      .run(orgId, userId, role, now());
    if (changes === 0) db.prepare('UPDATE members SET sso = 1 WHERE org_id = ? AND user_id = ?').run(orgId, userId);
    else if (team) {
      db.prepare(
        "INSERT OR IGNORE INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, 'member', ?)",
      ).run(team, userId, now());
    }
  })();
}

/** The live spaces of an organization by creation time. */
export function spacesOfOrganization(db: Db, orgId: string, order: 'asc' | 'desc'): SpaceRow[] {
  const direction = order === 'asc' ? 'ASC' : 'DESC';
  return db
    .prepare(
      `SELECT * FROM spaces WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at ${direction}, id ${direction}`,
    )
    .all(orgId) as SpaceRow[];
}

/** One page of the teams of an organization a user is in, by title, with their role in each, and their count. */
export function teamsOfMember(
  db: Db,
  orgId: string,
  userId: string,
  title: string | undefined,
  window: PageWindow,
): { rows: Array<{ team: TeamRow; role: string }>; count: number } {
  const conditions = ['t.org_id = ?', 'tm.user_id = ?'];
  const args: unknown[] = [orgId, userId];
  if (title) {
    conditions.push('instr(lower(t.title), lower(?)) > 0');
    args.push(title);
  }
  const from = `FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE ${conditions.join(' AND ')}`;
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(...args) as { n: number };
  const rows = db
    .prepare(`SELECT t.*, tm.role AS team_role ${from} ORDER BY t.title COLLATE NOCASE, t.id LIMIT ? OFFSET ?`)
    .all(...args, window.limit, window.offset) as Array<TeamRow & { team_role: string }>;
  return { rows: rows.map(({ team_role, ...team }) => ({ team, role: team_role })), count: n };
}
