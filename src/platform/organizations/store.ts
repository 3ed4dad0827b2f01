import type { Role } from '../access.js';
import { now, type PageWindow } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';

/** An organization with the role its reader holds in it (`null`: guest). */
export type OrganizationWithRole = OrganizationRow & { member_role: Role | null };

export interface AgentInstructionsRow {
  instructions: string;
  updated_at: string;
  updated_by: string | null;
}

export function findOrganization(db: Db, orgId: string): OrganizationRow | undefined {
  return db.prepare('SELECT * FROM organizations WHERE id = ?').get(orgId) as OrganizationRow | undefined;
}

/** One page of the organizations a user is an enabled member of, oldest first, and their count. */
export function organizationsOfUser(
  db: Db,
  userId: string,
  window: PageWindow,
): { rows: OrganizationWithRole[]; count: number } {
  const where = 'FROM organizations o JOIN members m ON m.org_id = o.id WHERE m.user_id = ? AND m.disabled = 0';
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${where}`).get(userId) as { n: number };
  const rows = db
    .prepare(`SELECT o.*, m.role AS member_role ${where} ORDER BY o.created_at, o.id LIMIT ? OFFSET ?`)
    .all(userId, window.limit, window.offset) as OrganizationWithRole[];
  return { rows, count: n };
}

/** Organizations that let users of an e-mail domain (lowercase) join, oldest first. */
export function organizationsOfEmailDomain(db: Db, domain: string): OrganizationRow[] {
  return db
    .prepare(
      'SELECT o.* FROM organizations o, json_each(o.email_domains) d WHERE lower(d.value) = ? ORDER BY o.created_at, o.id',
    )
    .all(domain) as OrganizationRow[];
}

export function siteInOrganization(db: Db, orgId: string, siteId: string): boolean {
  return db.prepare('SELECT 1 FROM sites WHERE id = ? AND org_id = ?').get(siteId, orgId) !== undefined;
}

/** Whether another organization than `orgId` already has the hostname. */
export function hostnameTaken(db: Db, hostname: string, orgId: string): boolean {
  return db.prepare('SELECT 1 FROM organizations WHERE hostname = ? AND id != ?').get(hostname, orgId) !== undefined;
}

/** Enabled members who are not guests: the seats an organization pays for. */
export function countPaidMembers(db: Db, orgId: string): number {
  const { n } = db
    .prepare('SELECT COUNT(*) AS n FROM members WHERE org_id = ? AND role IS NOT NULL AND disabled = 0')
    .get(orgId) as { n: number };
  return n;
}

/** Makes a user a member of the organization with `role`, or gives a guest that role. */
export function joinOrganization(db: Db, org: OrganizationRow, userId: string, alreadyGuest: boolean): void {
  if (alreadyGuest) {
    db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(org.default_role, org.id, userId);
  } else {
    db.prepare('INSERT INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run(
      org.id,
      userId,
      org.default_role,
      now(),
    );
  }
}

export function findAgentInstructions(db: Db, orgId: string): AgentInstructionsRow | undefined {
  return db.prepare('SELECT * FROM agent_instructions WHERE org_id = ?').get(orgId) as AgentInstructionsRow | undefined;
}

export function saveAgentInstructions(db: Db, orgId: string, instructions: unknown, userId: string): void {
  db.prepare(
    `INSERT INTO agent_instructions (org_id, instructions, updated_at, updated_by) VALUES (?, ?, ?, ?)
     ON CONFLICT (org_id) DO UPDATE SET instructions = excluded.instructions, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
  ).run(orgId, JSON.stringify(instructions), now(), userId);
}

/** An organization by id or, failing that, by hostname. */
export function findOrganizationByIdOrHostname(db: Db, ref: string): OrganizationRow | undefined {
  return db
    .prepare('SELECT * FROM organizations WHERE id = ? OR hostname = ? ORDER BY id = ? DESC LIMIT 1')
    .get(ref, ref, ref) as OrganizationRow | undefined;
}
