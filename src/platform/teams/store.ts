import { findMember } from '../access.js';
import type { PageWindow } from '../http.js';
import type { MemberRow, TeamRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';

export type TeamRole = 'owner' | 'member';

/** A member of a team: their role in it and their membership of the organization. */
export interface TeamMembership {
  teamRole: string;
  member: MemberRow;
  user: UserRow;
}

export interface TeamFilter {
  /** Part of the title, any case. */
  title?: string | undefined;
  /** Keep the teams this member can manage: all of them for an organization admin. */
  owner?: string | undefined;
}

/** Finds a user by id or, failing that, by e-mail (case-insensitive). */
export function findUser(db: Db, ref: string): UserRow | undefined {
  return (db.prepare('SELECT * FROM users WHERE id = ?').get(ref) ??
    db.prepare('SELECT * FROM users WHERE email = ?').get(ref)) as UserRow | undefined;
}

export function userExists(db: Db, userId: string): boolean {
  return db.prepare('SELECT 1 FROM users WHERE id = ?').get(userId) !== undefined;
}

export function findTeam(db: Db, orgId: string, teamId: string): TeamRow | undefined {
  return db.prepare('SELECT * FROM teams WHERE id = ? AND org_id = ?').get(teamId, orgId) as TeamRow | undefined;
}

/** How many members a team has, and how many live spaces it was granted. */
export function teamCounts(db: Db, teamId: string): { members: number; spaces: number } {
  const members = db.prepare('SELECT COUNT(*) AS n FROM team_members WHERE team_id = ?').get(teamId) as { n: number };
  const spaces = db
    .prepare(
      `SELECT COUNT(*) AS n FROM content_permissions cp JOIN spaces s ON s.id = cp.content_id
       WHERE cp.content_type = 'space' AND cp.principal_type = 'team' AND cp.principal_id = ? AND s.deleted_at IS NULL`,
    )
    .get(teamId) as { n: number };
  return { members: members.n, spaces: spaces.n };
}

/** One page of an organization's teams, by title, and their count. */
export function listTeams(
  db: Db,
  orgId: string,
  filter: TeamFilter,
  window: PageWindow,
): { rows: TeamRow[]; count: number } {
  const conditions = ['t.org_id = ?'];
  const args: unknown[] = [orgId];
  if (filter.title) {
    conditions.push('instr(lower(t.title), lower(?)) > 0');
    args.push(filter.title);
  }
  if (filter.owner !== undefined) {
    const owner = findMember(db, orgId, filter.owner);
    if (!owner || owner.disabled) {
      conditions.push('0');
    } else if (owner.role !== 'admin') {
      conditions.push(
        "EXISTS (SELECT 1 FROM team_members o WHERE o.team_id = t.id AND o.user_id = ? AND o.role = 'owner')",
      );
      args.push(owner.user_id);
    }
  }
  const where = `FROM teams t WHERE ${conditions.join(' AND ')}`;
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${where}`).get(...args) as { n: number };
  const rows = db
    .prepare(`SELECT t.* ${where} ORDER BY t.title COLLATE NOCASE, t.id LIMIT ? OFFSET ?`)
    .all(...args, window.limit, window.offset) as TeamRow[];
  return { rows, count: n };
}

/** Creates a team with these members (ids of members of its organization). */
export function insertTeam(db: Db, team: TeamRow, memberIds: string[]): void {
  const insertMember = db.prepare(
    "INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, 'member', ?)",
  );
  db.transaction(() => {
    db.prepare('INSERT INTO teams (id, org_id, title, created_at) VALUES (?, ?, ?, ?)').run(
      team.id,
      team.org_id,
      team.title,
      team.created_at,
    );
    for (const userId of memberIds) insertMember.run(team.id, userId, team.created_at);
  })();
}

export function renameTeam(db: Db, teamId: string, title: string): void {
  db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(title, teamId);
}

/** Deletes a team and the permissions it was granted. */
export function deleteTeam(db: Db, teamId: string): void {
  db.transaction(() => {
    db.prepare("DELETE FROM content_permissions WHERE principal_type = 'team' AND principal_id = ?").run(teamId);
    db.prepare('DELETE FROM teams WHERE id = ?').run(teamId);
  })();
}

/** One page of a team's members, by display name, and their count. */
export function listTeamMembers(
  db: Db,
  orgId: string,
  teamId: string,
  window: PageWindow,
): { rows: TeamMembership[]; count: number } {
  const from = `FROM team_members tm JOIN members m ON m.org_id = ? AND m.user_id = tm.user_id
      JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ?`;
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(orgId, teamId) as { n: number };
  const rows = db
    .prepare(
      `SELECT tm.role AS team_role, u.id AS user_id ${from}
         ORDER BY u.display_name COLLATE NOCASE, u.id LIMIT ? OFFSET ?`,
    )
    .all(orgId, teamId, window.limit, window.offset) as Array<{ team_role: string; user_id: string }>;
  const getMember = db.prepare('SELECT * FROM members WHERE org_id = ? AND user_id = ?');
  const getUser = db.prepare('SELECT * FROM users WHERE id = ?');
  return {
    rows: rows.map((row) => ({
      teamRole: row.team_role,
      member: getMember.get(orgId, row.user_id) as MemberRow,
      user: getUser.get(row.user_id) as UserRow,
    })),
    count: n,
  };
}

/**
 * Puts a user in a team with `role`. Without a role a newcomer joins as a member and someone
 * already in the team keeps their role: adding an owner again must not demote them.
 */
export function putTeamMember(db: Db, teamId: string, userId: string, role: TeamRole | undefined, at: string): void {
  if (role === undefined) {
    db.prepare(
      "INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, 'member', ?) ON CONFLICT DO NOTHING",
    ).run(teamId, userId, at);
    return;
  }
  db.prepare(
    `INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role`,
  ).run(teamId, userId, role, at);
}

/** Removes a user from a team; whether they were in it. */
export function removeTeamMember(db: Db, teamId: string, userId: string): boolean {
  return db.prepare('DELETE FROM team_members WHERE team_id = ? AND user_id = ?').run(teamId, userId).changes > 0;
}

/** Applies additions, role changes and removals to a team at once; removals last, so they win. */
export function updateTeamMembers(
  db: Db,
  teamId: string,
  changes: { add: string[]; roles: Array<readonly [string, TeamRole]>; remove: string[] },
  at: string,
): void {
  db.transaction(() => {
    for (const userId of changes.add) putTeamMember(db, teamId, userId, undefined, at);
    for (const [userId, role] of changes.roles) putTeamMember(db, teamId, userId, role, at);
    for (const userId of changes.remove) removeTeamMember(db, teamId, userId);
  })();
}
