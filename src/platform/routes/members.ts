import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Access, ROLES, findMember, isExpired } from '../access.js';
import type { RequestContext } from '../app.js';
import {
  conflict,
  forbidden,
  notFound,
  now,
  pageFromArray,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { MemberRow, SpaceRow, TeamRow, UserRow } from '../rows.js';
import { memberJson, spaceJson, teamJson } from '../serialize.js';
import type { Db } from '../store/db.js';
import { removeReviewer } from './merge-rules.js';
import { roleOrGuestSchema } from './schemas.js';
import { canManageTeam } from './teams.js';
import { activeProvider } from '../sso/saml.js';

const orderParam = z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).default('desc');
const memberRoleBody = z.strictObject({ role: roleOrGuestSchema });
const userSpacesQuery = z.object({ ...pageParams, order: orderParam });
const userTeamsQuery = z.object({ ...pageParams, title: z.string().optional() });

const listMembersQuery = z.object({
  ...pageParams,
  order: orderParam,
  role: z.enum([...ROLES, 'guest'] as const, { message: `must be guest or one of ${ROLES.join(', ')}` }).optional(),
  search: z.string().max(512, 'must be at most 512 characters').optional(),
  sort: z
    .enum(['joinedAt', 'lastSeenAt', 'name'], { message: 'must be joinedAt, lastSeenAt or name' })
    .default('joinedAt'),
});

const SORT_COLUMNS = { joinedAt: 'm.joined_at', lastSeenAt: 'm.last_seen_at', name: 'u.display_name COLLATE NOCASE' };

type Params = { organizationId: string };
type MemberParams = Params & { userId: string };

function userRow(db: Db, userId: string): UserRow {
  return db.prepare('SELECT * FROM users WHERE id = ?').get(userId) as UserRow;
}

function requireMember(db: Db, orgId: string, userId: string): MemberRow {
  const member = findMember(db, orgId, userId);
  if (!member) throw notFound('Member');
  return member;
}

function memberAnswer(ctx: RequestContext, member: MemberRow) {
  return memberJson(ctx.db, member, userRow(ctx.db, member.user_id), ctx.links);
}

/** Is the member an admin with no other (enabled) admin in the organization? */
function isLastAdmin(db: Db, member: MemberRow): boolean {
  if (member.role !== 'admin') return false;
  const other = db
    .prepare("SELECT 1 FROM members WHERE org_id = ? AND role = 'admin' AND disabled = 0 AND user_id != ? LIMIT 1")
    .get(member.org_id, member.user_id);
  return other === undefined;
}

/** Organization members group: list, get, remove, change role, ping, SSO membership, a member's spaces and teams. */
export function memberRoutes(app: FastifyInstance): void {
  app.get<{ Params: Params }>('/orgs/:organizationId/members', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(listMembersQuery, request.query);
    const window = pageWindow(query);
    const conditions = ['m.org_id = ?'];
    const args: unknown[] = [org.id];
    if (query.role === 'guest') conditions.push('m.role IS NULL');
    else if (query.role) {
      conditions.push('m.role = ?');
      args.push(query.role);
    }
    if (query.search) {
      conditions.push('(instr(lower(u.display_name), lower(?)) > 0 OR instr(lower(u.email), lower(?)) > 0)');
      args.push(query.search, query.search);
    }
    if (query.sort === 'lastSeenAt') conditions.push('m.last_seen_at IS NOT NULL');
    const from = `FROM members m JOIN users u ON u.id = m.user_id WHERE ${conditions.join(' AND ')}`;
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(...args) as { n: number };
    const rows = db
      .prepare(
        `SELECT m.*, u.display_name AS u_display_name, u.email AS u_email, u.photo_url AS u_photo_url,
           u.created_at AS u_created_at ${from}
         ORDER BY ${SORT_COLUMNS[query.sort]} ${direction}, m.user_id ${direction} LIMIT ? OFFSET ?`,
      )
      .all(...args, window.limit, window.offset) as Array<
      MemberRow & { u_display_name: string; u_email: string; u_photo_url: string | null; u_created_at: string }
    >;
    return pageOf(
      rows.map((row) =>
        memberJson(
          db,
          row,
          {
            id: row.user_id,
            display_name: row.u_display_name,
            email: row.u_email,
            photo_url: row.u_photo_url,
            created_at: row.u_created_at,
          },
          links,
        ),
      ),
      n,
      window,
    );
  });

  app.get<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId', async (request) => {
    const ctx = request.ctx;
    const org = ctx.access.requireOrg(request.params.organizationId);
    return memberAnswer(ctx, requireMember(ctx.db, org.id, request.params.userId));
  });

  app.delete<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId', async (request, reply) => {
    const { db, access, user } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    const targetId = request.params.userId;
    if (targetId !== user.id && access.orgRole(org.id) !== 'admin') {
      throw forbidden('Removing another member needs the admin role');
    }
    const member = findMember(db, org.id, targetId);
    if (!member) return sendDeleted(reply, false);
    if (isLastAdmin(db, member)) throw conflict('The last admin of an organization cannot be removed');
    db.transaction(() => {
      db.prepare(
        'DELETE FROM team_members WHERE user_id = ? AND team_id IN (SELECT id FROM teams WHERE org_id = ?)',
      ).run(targetId, org.id);
      // Direct grants would otherwise come back to life if the user rejoined.
      db.prepare(
        `DELETE FROM content_permissions WHERE principal_type = 'user' AND principal_id = ? AND (
           (content_type = 'space' AND content_id IN (SELECT id FROM spaces WHERE org_id = ?))
           OR (content_type = 'collection' AND content_id IN (SELECT id FROM collections WHERE org_id = ?)))`,
      ).run(targetId, org.id, org.id);
      removeReviewer(db, org.id, targetId);
      db.prepare('DELETE FROM members WHERE org_id = ? AND user_id = ?').run(org.id, targetId);
    })();
    return sendDeleted(reply, true);
  });

  app.patch<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId', async (request) => {
    const ctx = request.ctx;
    const { db, access } = ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(memberRoleBody, request.body);
    const member = requireMember(db, org.id, request.params.userId);
    if (body.role !== 'admin' && isLastAdmin(db, member)) {
      throw conflict('The last admin of an organization cannot be demoted');
    }
    db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(body.role, org.id, member.user_id);
    return memberAnswer(ctx, { ...member, role: body.role });
  });

  app.post<{ Params: Params }>('/orgs/:organizationId/ping', async (request) => {
    const { db, access, user } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    db.prepare('UPDATE members SET last_seen_at = ? WHERE org_id = ? AND user_id = ?').run(now(), org.id, user.id);
    return {};
  });

  app.post<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId/sso', async (request) => {
    const ctx = request.ctx;
    const { db, access } = ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const target = db.prepare('SELECT * FROM users WHERE id = ?').get(request.params.userId) as UserRow | undefined;
    if (!target) throw notFound('User');
    // A newcomer gets the role (and team) of the organization's active SAML provider, else its default role.
    const provider = activeProvider(db, org.id);
    const role = provider ? (provider.default_role === 'guest' ? null : provider.default_role) : org.default_role;
    db.transaction(() => {
      const { changes } = db
        .prepare(
          'INSERT INTO members (org_id, user_id, role, sso, joined_at) VALUES (?, ?, ?, 1, ?) ON CONFLICT (org_id, user_id) DO NOTHING',
        )
        .run(org.id, target.id, role, now());
      if (changes === 0)
        db.prepare('UPDATE members SET sso = 1 WHERE org_id = ? AND user_id = ?').run(org.id, target.id);
      else if (provider?.default_team) {
        db.prepare(
          "INSERT OR IGNORE INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, 'member', ?)",
        ).run(provider.default_team, target.id, now());
      }
    })();
    return memberJson(db, findMember(db, org.id, target.id)!, target, ctx.links);
  });

  app.get<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId/spaces', async (request) => {
    const { db, access, user, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    if (request.params.userId !== user.id && access.orgRole(org.id) !== 'admin') {
      throw forbidden("Listing another member's spaces needs the admin role");
    }
    const query = parseQuery(userSpacesQuery, request.query);
    const window = pageWindow(query);
    const member = requireMember(db, org.id, request.params.userId);
    const targetAccess = member.user_id === user.id ? access : new Access(db, userRow(db, member.user_id));
    const direction = query.order === 'asc' ? 'ASC' : 'DESC';
    const spaces = db
      .prepare(
        `SELECT * FROM spaces WHERE org_id = ? AND deleted_at IS NULL ORDER BY created_at ${direction}, id ${direction}`,
      )
      .all(org.id) as SpaceRow[];
    const items: Array<{ permission: string; space: ReturnType<typeof spaceJson> }> = [];
    for (const space of spaces) {
      if (isExpired(space)) continue;
      const permission = targetAccess.spaceRole(space);
      if (permission === null) continue;
      items.push({ permission, space: spaceJson(space, access.spaceRole(space), links) });
    }
    return pageFromArray(items, window);
  });

  app.get<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId/teams', async (request) => {
    const ctx = request.ctx;
    const { db, access } = ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(userTeamsQuery, request.query);
    const window = pageWindow(query);
    const member = requireMember(db, org.id, request.params.userId);
    const conditions = ['t.org_id = ?', 'tm.user_id = ?'];
    const args: unknown[] = [org.id, member.user_id];
    if (query.title) {
      conditions.push('instr(lower(t.title), lower(?)) > 0');
      args.push(query.title);
    }
    const from = `FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE ${conditions.join(' AND ')}`;
    const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(...args) as { n: number };
    const rows = db
      .prepare(`SELECT t.*, tm.role AS team_role ${from} ORDER BY t.title COLLATE NOCASE, t.id LIMIT ? OFFSET ?`)
      .all(...args, window.limit, window.offset) as Array<TeamRow & { team_role: string }>;
    return pageOf(
      rows.map(({ team_role, ...team }) => ({
        team: teamJson(db, team, canManageTeam(ctx, team)),
        member: { role: team_role },
      })),
      n,
      window,
    );
  });
}
