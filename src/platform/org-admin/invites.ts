import { findOrganization } from '../organizations/store.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { atLeast, findMember, higher, type Role } from '../access.js';
import {
  badRequest,
  newId,
  notFound,
  now,
  overLimit,
  pageOf,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  preconditionFailed,
  sendDeleted,
  type PageWindow,
} from '../http.js';
import type { MemberRow, OrganizationRow, UserRow } from '../rows.js';
import { roleOrGuestSchema } from '../schemas.js';
import { declareTables, type Db } from '../store/db.js';

/**
 * Invitations into an organization: invite links (anyone holding one joins with its role, until it
 * expires, is used up or is revoked) and invitations by e-mail address (the people named become
 * members at once, with an account made for an address the platform does not know).
 */

// The core made `link_invites` (id, org, role, creation); a link's life is kept beside it. A revoked
// link stays as a row with `revoked_at`, so that joining with it says it was revoked.
declareTables('organization-invites', [
  `
  ALTER TABLE link_invites ADD COLUMN expires_at TEXT;
  ALTER TABLE link_invites ADD COLUMN max_uses INTEGER;
  ALTER TABLE link_invites ADD COLUMN uses INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE link_invites ADD COLUMN revoked_at TEXT;
  ALTER TABLE link_invites ADD COLUMN created_by TEXT;
  CREATE INDEX IF NOT EXISTS link_invites_by_org ON link_invites(org_id, created_at);
  `,
]);

/** Days an invite link is valid when its creator gives no `expiresAt`. */
export const DEFAULT_INVITE_DAYS = 30;
/** The latest an invite link may expire, in days after its creation. */
export const MAX_INVITE_DAYS = 365;
/** Joins one invite link admits at most. */
export const MAX_INVITE_USES = 10_000;
/** Addresses one invitation by e-mail names at most. */
export const MAX_INVITED_EMAILS = 100;

export interface LinkInviteRow {
  id: string;
  org_id: string;
  role: string | null;
  created_at: string;
  expires_at: string | null;
  max_uses: number | null;
  uses: number;
  revoked_at: string | null;
  created_by: string | null;
}

/** Why a link cannot be joined with now, or undefined when it can. */
export function inviteRefusal(invite: LinkInviteRow, at = new Date()): string | undefined {
  if (invite.revoked_at) return 'This invite link was revoked';
  if (invite.expires_at && Date.parse(invite.expires_at) <= at.getTime())
    return `This invite link expired at ${invite.expires_at}`;
  if (invite.max_uses !== null && invite.uses >= invite.max_uses)
    return `This invite link was used its ${invite.max_uses} time(s) already`;
  return undefined;
}

/**
 * An invite link as the description shapes it (`InviteLinkToOrganization`), with its life beside:
 * `redundant` when the reader already holds its role or better.
 */
export function inviteJson(invite: LinkInviteRow, readerRole: Role | null | undefined) {
  const role = invite.role as Role | null;
  const redundant = readerRole !== undefined && (role === null || atLeast(readerRole, role));
  return {
    object: 'invite' as const,
    id: invite.id,
    role,
    redundant,
    createdAt: invite.created_at,
    ...(invite.expires_at ? { expiresAt: invite.expires_at } : {}),
    ...(invite.max_uses !== null ? { maxUses: invite.max_uses } : {}),
    uses: invite.uses,
  };
}

const findInvite = (db: Db, orgId: string, inviteId: string) =>
  db.prepare('SELECT * FROM link_invites WHERE org_id = ? AND id = ?').get(orgId, inviteId) as
    | LinkInviteRow
    | undefined;

/** One page of the live (unrevoked) invite links of an organization, newest first, and their count. */
export function listInvites(db: Db, orgId: string, window: PageWindow): { rows: LinkInviteRow[]; count: number } {
  const where = 'FROM link_invites WHERE org_id = ? AND revoked_at IS NULL';
  const { n } = db.prepare(`SELECT COUNT(*) AS n ${where}`).get(orgId) as { n: number };
  const rows = db
    .prepare(`SELECT * ${where} ORDER BY created_at DESC, id LIMIT ? OFFSET ?`)
    .all(orgId, window.limit, window.offset) as LinkInviteRow[];
  return { rows, count: n };
}

/** Stores a new invite link; `expiresAt` defaults to `DEFAULT_INVITE_DAYS` from now. */
export function createInvite(
  db: Db,
  orgId: string,
  fields: { role: Role | null; expiresAt?: string | undefined; maxUses?: number | undefined; createdBy: string },
): LinkInviteRow {
  const created = now();
  const row: LinkInviteRow = {
    id: newId(),
    org_id: orgId,
    role: fields.role,
    created_at: created,
    expires_at: fields.expiresAt ?? new Date(Date.parse(created) + DEFAULT_INVITE_DAYS * 86_400_000).toISOString(),
    max_uses: fields.maxUses ?? null,
    uses: 0,
    revoked_at: null,
    created_by: fields.createdBy,
  };
  db.prepare(
    `INSERT INTO link_invites (id, org_id, role, created_at, expires_at, max_uses, uses, revoked_at, created_by)
     VALUES (@id, @org_id, @role, @created_at, @expires_at, @max_uses, @uses, @revoked_at, @created_by)`,
  ).run(row);
  return row;
}

/** Revokes an invite link: whether a live one was revoked. */
export function revokeInvite(db: Db, orgId: string, inviteId: string): boolean {
  return (
    db
      .prepare('UPDATE link_invites SET revoked_at = ? WHERE id = ? AND org_id = ? AND revoked_at IS NULL')
      .run(now(), inviteId, orgId).changes > 0
  );
}

/**
 * Joins `user` to the organization of a live invite link, in one transaction: a newcomer becomes a
 * member with the link's role, a guest gets that role, a member keeps a better role (the link gives
 * its role and nothing more, never less than one held). A disabled member stays disabled. A use is
 * counted only when the link changed something.
 */
export function joinWithInvite(db: Db, org: OrganizationRow, inviteId: string, user: UserRow): void {
  db.transaction(() => {
    const invite = findInvite(db, org.id, inviteId);
    if (!invite) throw notFound('Invite');
    if (org.invite_links !== 1) throw preconditionFailed('Invite links are turned off in this organization');
    const refusal = inviteRefusal(invite);
    if (refusal) throw preconditionFailed(refusal);
    const member: MemberRow | undefined = findMember(db, org.id, user.id);
    if (member?.disabled) throw preconditionFailed('Your membership of this organization is disabled');
    const role = invite.role as Role | null;
    if (!member) {
      db.prepare('INSERT INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run(
        org.id,
        user.id,
        role,
        now(),
      );
    } else {
      const kept = higher(member.role as Role | null, role);
      if (kept === member.role) return;
      db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(kept, org.id, user.id);
    }
    db.prepare('UPDATE link_invites SET uses = uses + 1 WHERE id = ?').run(invite.id);
  })();
}

/** The account of an e-mail address, made (named after its local part) when the platform has none. */
function userOfEmail(db: Db, email: string): UserRow {
  const found = db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow | undefined;
  if (found) return found;
  const row: UserRow = {
    id: newId(),
    display_name: email.split('@')[0]!.slice(0, 64),
    email,
    photo_url: null,
    created_at: now(),
  };
  db.prepare(
    'INSERT INTO users (id, display_name, email, photo_url, created_at) VALUES (@id, @display_name, @email, @photo_url, @created_at)',
  ).run(row);
  return row;
}

/**
 * Makes the people of `emails` members of the organization with their role (or `role`): existing
 * members and guests get the role if it is better than theirs. With `sso`, members become SSO
 * members, except those already SSO members of another organization (`failedSSOEmails`).
 */
export function inviteByEmail(
  db: Db,
  orgId: string,
  invitees: Array<{ email: string; role: Role | null }>,
  sso: boolean,
): { users: string[]; invited: number; failedSSOEmails: string[] } {
  return db.transaction(() => {
    const users: string[] = [];
    const failedSSOEmails: string[] = [];
    for (const { email, role } of invitees) {
      const user = userOfEmail(db, email);
      const member = findMember(db, orgId, user.id);
      const ssoElsewhere =
        sso &&
        db.prepare('SELECT 1 FROM members WHERE user_id = ? AND org_id != ? AND sso = 1').get(user.id, orgId) !==
          undefined;
      if (ssoElsewhere) failedSSOEmails.push(email);
      const asSso = Number(sso && !ssoElsewhere);
      if (!member) {
        db.prepare('INSERT INTO members (org_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, ?, ?)').run(
          orgId,
          user.id,
          role,
          asSso,
          now(),
        );
        users.push(user.id);
      } else if (!member.disabled) {
        const kept = higher(member.role as Role | null, role);
        if (kept !== member.role)
          db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(kept, orgId, user.id);
      }
    }
    return { users, invited: users.length, failedSSOEmails };
  })();
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

type OrgParams = { organizationId: string };
type InviteParams = OrgParams & { inviteId: string };

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .email('must be an e-mail address');
const inviteUsersBody = z.strictObject({
  emails: z
    .array(z.union([email, z.strictObject({ email, role: roleOrGuestSchema })]))
    .min(1, 'must name at least one address'),
  role: roleOrGuestSchema.optional(),
  sso: z.boolean().optional(),
});
const expiresAt = z.iso.datetime({ offset: true, message: 'must be a date-time (ISO 8601)' });
const maxUses = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(MAX_INVITE_USES, `must be at most ${MAX_INVITE_USES}`);
const createBody = z.strictObject({
  role: roleOrGuestSchema,
  expiresAt: expiresAt.optional(),
  maxUses: maxUses.optional(),
});
const updateBody = z.strictObject({ role: roleOrGuestSchema });

/** Checks a requested expiry: in the future, at most `MAX_INVITE_DAYS` away. */
function checkExpiry(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const at = Date.parse(value);
  if (at <= Date.now()) throw badRequest('Invalid body field "expiresAt": must be in the future');
  if (at > Date.now() + MAX_INVITE_DAYS * 86_400_000)
    throw badRequest(`Invalid body field "expiresAt": must be at most ${MAX_INVITE_DAYS} days from now`);
  return new Date(at).toISOString();
}

/** Invite links (admins list, create, read, change them; anyone signed in joins with one) and invitations by e-mail. */
export function organizationInviteRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/link-invites', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const { rows, count } = listInvites(db, org.id, window);
    return pageOf(
      rows.map((row) => inviteJson(row, 'admin')),
      count,
      window,
    );
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/link-invites', async (request, reply) => {
    const { db, access, user } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(createBody, request.body);
    if (org.invite_links !== 1) throw preconditionFailed('Invite links are turned off in this organization');
    const row = createInvite(db, org.id, {
      role: body.role as Role | null,
      expiresAt: checkExpiry(body.expiresAt),
      maxUses: body.maxUses,
      createdBy: user.id,
    });
    return reply.code(201).send(inviteJson(row, 'admin'));
  });

  app.get<{ Params: InviteParams }>('/orgs/:organizationId/link-invites/:inviteId', async (request) => {
    const { db, access } = request.ctx;
    const orgId = request.params.organizationId;
    // Anyone holding the link reads it (to see what joining gives); revoked links are gone.
    const org = db.prepare('SELECT id FROM organizations WHERE id = ?').get(orgId) as { id: string } | undefined;
    const row = org && findInvite(db, org.id, request.params.inviteId);
    if (!row || row.revoked_at) throw notFound('Invite');
    return inviteJson(row, access.orgRole(orgId));
  });

  app.patch<{ Params: InviteParams }>('/orgs/:organizationId/link-invites/:inviteId', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(updateBody, request.body);
    const row = findInvite(db, org.id, request.params.inviteId);
    if (!row || row.revoked_at) throw notFound('Invite');
    db.prepare('UPDATE link_invites SET role = ? WHERE id = ?').run(body.role, row.id);
    return inviteJson({ ...row, role: body.role }, 'admin');
  });

  // Revoking keeps the row: joining with the link then says it was revoked rather than unknown.
  app.delete<{ Params: InviteParams }>('/orgs/:organizationId/link-invites/:inviteId', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return sendDeleted(reply, revokeInvite(db, org.id, request.params.inviteId));
  });

  app.post<{ Params: InviteParams }>('/orgs/:organizationId/invites/:inviteId', async (request) => {
    const { db, user } = request.ctx;
    const org = findOrganization(db, request.params.organizationId);
    if (!org) throw notFound('Organization');
    joinWithInvite(db, org, request.params.inviteId, user);
    return {};
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/invites', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const raw = request.body as { emails?: unknown } | undefined;
    if (Array.isArray(raw?.emails) && raw.emails.length > MAX_INVITED_EMAILS)
      throw overLimit(
        `Invalid body field "emails": at most ${MAX_INVITED_EMAILS} addresses`,
        { limit: 'invitedEmails', value: raw.emails.length, max: MAX_INVITED_EMAILS },
        400,
      );
    const body = parseBody(inviteUsersBody, request.body);
    const fallback = body.role === undefined ? (org.default_role as Role | null) : (body.role as Role | null);
    const invitees = body.emails.map((item) =>
      typeof item === 'string'
        ? { email: item, role: fallback }
        : { email: item.email, role: item.role as Role | null },
    );
    return inviteByEmail(db, org.id, invitees, body.sso ?? false);
  });
}
