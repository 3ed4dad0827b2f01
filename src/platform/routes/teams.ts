import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findMember, isOrgMember } from '../access.js';
import type { RequestContext } from '../app.js';
import {
  badRequest,
  forbidden,
  newId,
  notFound,
  notFoundInBody,
  now,
  pageOf,
  pageParams,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { MemberRow, TeamRow, UserRow } from '../rows.js';
import { memberJson, teamJson } from '../serialize.js';
import type { Db } from '../store/db.js';
import { teamRoleSchema } from './schemas.js';

const teamTitle = z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters');

const createTeamBody = z.strictObject({
  title: teamTitle,
  members: z
    .array(z.string().min(1, 'must not contain empty ids'))
    .max(1000, 'must list at most 1000 members')
    .optional(),
});

const userRefs = z.array(z.string().min(1, 'must not contain empty entries')).max(1000, 'must list at most 1000 users');

const updateMembersBody = z
  .strictObject({
    add: userRefs.optional(),
    remove: userRefs.optional(),
    memberships: z.record(z.string().min(1), z.strictObject({ role: teamRoleSchema })).optional(),
  })
  .refine(
    (body) => (body.add?.length ?? 0) + (body.remove?.length ?? 0) + Object.keys(body.memberships ?? {}).length > 0,
    'must set at least one of add, remove or memberships',
  );

const renameTeamBody = z.strictObject({ title: teamTitle });
const teamMemberBody = z.strictObject({ role: teamRoleSchema.optional() });
const listTeamsQuery = z.object({ ...pageParams, owner: z.string().min(1).optional(), title: z.string().optional() });

type Params = { organizationId: string };
type TeamRole = z.infer<typeof teamRoleSchema>;
type TeamParams = Params & { teamId: string };

/**
 * Finds a user by id or, failing that, by e-mail (case-insensitive).
 */
export function findUser(db: Db, ref: string): UserRow | undefined {
  return (db.prepare('SELECT * FROM users WHERE id = ?').get(ref) ??
    db.prepare('SELECT * FROM users WHERE email = ?').get(ref)) as UserRow | undefined;
}

/** Can the caller rename, delete and manage members of the team: organization admin or team owner. */
export function canManageTeam(ctx: RequestContext, team: TeamRow): boolean {
  if (ctx.access.orgRole(team.org_id) === 'admin') return true;
  const row = ctx.db
    .prepare("SELECT 1 FROM team_members WHERE team_id = ? AND user_id = ? AND role = 'owner'")
    .get(team.id, ctx.user.id);
  return row !== undefined;
}

function requireTeam(db: Db, orgId: string, teamId: string): TeamRow {
  const team = db.prepare('SELECT * FROM teams WHERE id = ? AND org_id = ?').get(teamId, orgId) as TeamRow | undefined;
  if (!team) throw notFound('Team');
  return team;
}

function requireManage(ctx: RequestContext, team: TeamRow): void {
  if (!canManageTeam(ctx, team)) throw forbidden('Managing this team needs the admin role or team ownership');
}

/**
 * Puts a user in a team with `role`. Without a role a newcomer joins as a member and someone
 * already in the team keeps their role: adding an owner again must not demote them.
 */
function putTeamMember(db: Db, teamId: string, userId: string, role: TeamRole | undefined, at: string): void {
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

/** Loads a team of an organization the caller belongs to (else 404) and can manage (else 403). */
function requireManagedTeam(ctx: RequestContext, params: TeamParams): TeamRow {
  const org = ctx.access.requireOrgMember(params.organizationId);
  const team = requireTeam(ctx.db, org.id, params.teamId);
  requireManage(ctx, team);
  return team;
}

/**
 * Resolves the body entry at `field` (user id or e-mail) to a member of the organization: an
 * unknown user is a 404, a user outside the organization a 400, both naming the entry.
 */
function resolveMember(db: Db, orgId: string, ref: string, field: string): string {
  const user = findUser(db, ref);
  if (!user) throw notFoundInBody('User', field, ref);
  if (!isOrgMember(db, orgId, user.id)) {
    throw badRequest(`Invalid body field "${field}": ${ref} is not a member of the organization`);
  }
  return user.id;
}

/** Teams group: list, create, get, rename, delete teams and manage their members. */
export function teamRoutes(app: FastifyInstance): void {
  app.get<{ Params: Params }>('/orgs/:organizationId/teams', async (request) => {
    const ctx = request.ctx;
    const { db, access } = ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(listTeamsQuery, request.query);
    const window = pageWindow(query);
    const conditions = ['t.org_id = ?'];
    const args: unknown[] = [org.id];
    if (query.title) {
      conditions.push('instr(lower(t.title), lower(?)) > 0');
      args.push(query.title);
    }
    if (query.owner !== undefined) {
      // The spec's `owner` filter keeps the teams that member can manage: all of them for an organization admin.
      const owner = findMember(db, org.id, query.owner);
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
    return pageOf(
      rows.map((team) => teamJson(db, team, canManageTeam(ctx, team))),
      n,
      window,
    );
  });

  app.put<{ Params: Params }>('/orgs/:organizationId/teams', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(createTeamBody, request.body);
    const memberIds = [...new Set(body.members ?? [])];
    const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?');
    (body.members ?? []).forEach((userId, i) => {
      if (!userExists.get(userId)) throw notFoundInBody('User', `members.${i}`, userId);
      if (!isOrgMember(db, org.id, userId)) {
        throw badRequest(`Invalid body field "members.${i}": user ${userId} is not a member of the organization`);
      }
    });
    const team: TeamRow = { id: newId(), org_id: org.id, title: body.title, created_at: now() };
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
    return reply.code(201).send(teamJson(db, team, true));
  });

  app.get<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request) => {
    const ctx = request.ctx;
    const org = ctx.access.requireOrgMember(request.params.organizationId);
    const team = requireTeam(ctx.db, org.id, request.params.teamId);
    return teamJson(ctx.db, team, canManageTeam(ctx, team));
  });

  app.delete<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request, reply) => {
    const ctx = request.ctx;
    const { db } = ctx;
    const org = ctx.access.requireOrgMember(request.params.organizationId);
    const team = db.prepare('SELECT * FROM teams WHERE id = ? AND org_id = ?').get(request.params.teamId, org.id) as
      | TeamRow
      | undefined;
    if (!team) return sendDeleted(reply, false);
    requireManage(ctx, team);
    db.transaction(() => {
      db.prepare("DELETE FROM content_permissions WHERE principal_type = 'team' AND principal_id = ?").run(team.id);
      db.prepare('DELETE FROM teams WHERE id = ?').run(team.id);
    })();
    return sendDeleted(reply, true);
  });

  app.patch<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request) => {
    const { db } = request.ctx;
    const team = requireManagedTeam(request.ctx, request.params);
    const body = parseBody(renameTeamBody, request.body);
    db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(body.title, team.id);
    return teamJson(db, { ...team, title: body.title }, true);
  });

  app.get<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId/members', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const team = requireTeam(db, org.id, request.params.teamId);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const from = `FROM team_members tm JOIN members m ON m.org_id = ? AND m.user_id = tm.user_id
      JOIN users u ON u.id = tm.user_id WHERE tm.team_id = ?`;
    const { n } = db.prepare(`SELECT COUNT(*) AS n ${from}`).get(org.id, team.id) as { n: number };
    const rows = db
      .prepare(
        `SELECT tm.role AS team_role, u.id AS user_id ${from}
         ORDER BY u.display_name COLLATE NOCASE, u.id LIMIT ? OFFSET ?`,
      )
      .all(org.id, team.id, window.limit, window.offset) as Array<{ team_role: string; user_id: string }>;
    const getMember = db.prepare('SELECT * FROM members WHERE org_id = ? AND user_id = ?');
    const getUser = db.prepare('SELECT * FROM users WHERE id = ?');
    return pageOf(
      rows.map((row) => ({
        organization: memberJson(
          db,
          getMember.get(org.id, row.user_id) as MemberRow,
          getUser.get(row.user_id) as UserRow,
          links,
        ),
        team: { role: row.team_role },
        permissions: { view: true },
      })),
      n,
      window,
    );
  });

  app.put<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId/members', async (request, reply) => {
    const { db } = request.ctx;
    const team = requireManagedTeam(request.ctx, request.params);
    const body = parseBody(updateMembersBody, request.body);
    const add = (body.add ?? []).map((ref, i) => resolveMember(db, team.org_id, ref, `add.${i}`));
    const memberships = Object.entries(body.memberships ?? {}).map(
      ([ref, { role }]) => [resolveMember(db, team.org_id, ref, `memberships.${ref}`), role] as const,
    );
    const remove = (body.remove ?? []).map((ref, i) => resolveMember(db, team.org_id, ref, `remove.${i}`));
    const at = now();
    const del = db.prepare('DELETE FROM team_members WHERE team_id = ? AND user_id = ?');
    // Removals run last, so a user listed in both add and remove ends up removed.
    db.transaction(() => {
      for (const userId of add) putTeamMember(db, team.id, userId, undefined, at);
      for (const [userId, role] of memberships) putTeamMember(db, team.id, userId, role, at);
      for (const userId of remove) del.run(team.id, userId);
    })();
    return reply.code(204).send();
  });

  app.put<{ Params: TeamParams & { userId: string } }>(
    '/orgs/:organizationId/teams/:teamId/members/:userId',
    async (request, reply) => {
      const { db } = request.ctx;
      const team = requireManagedTeam(request.ctx, request.params);
      const body = parseBody(teamMemberBody, request.body);
      const user = findUser(db, request.params.userId);
      if (!user) throw notFound('User');
      if (!isOrgMember(db, team.org_id, user.id)) {
        throw badRequest(`User ${request.params.userId} is not a member of the organization`);
      }
      putTeamMember(db, team.id, user.id, body.role, now());
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: TeamParams & { userId: string } }>(
    '/orgs/:organizationId/teams/:teamId/members/:userId',
    async (request, reply) => {
      const { db } = request.ctx;
      const team = requireManagedTeam(request.ctx, request.params);
      const user = findUser(db, request.params.userId);
      const result = user
        ? db.prepare('DELETE FROM team_members WHERE team_id = ? AND user_id = ?').run(team.id, user.id)
        : { changes: 0 };
      return sendDeleted(reply, result.changes > 0);
    },
  );
}
