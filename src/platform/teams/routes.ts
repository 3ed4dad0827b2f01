import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Access } from '../access.js';
import { isOrgMember } from '../access.js';
import type { RequestContext } from '../context.js';
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
import { memberJson } from '../members/json.js';
import { requireMember, teamsOfMember } from '../members/store.js';
import type { TeamRow } from '../rows.js';
import { teamRoleSchema } from '../schemas.js';
import type { Db } from '../store/db.js';
import { teamJson } from './json.js';
import {
  deleteTeam,
  findTeam,
  findUser,
  insertTeam,
  listTeamMembers,
  listTeams,
  putTeamMember,
  removeTeamMember,
  renameTeam,
  updateTeamMembers,
  userExists,
} from './store.js';

const userTeamsQuery = z.object({ ...pageParams, title: z.string().optional() });

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
type TeamParams = Params & { teamId: string };
type MemberParams = Params & { userId: string };

function requireTeam(db: Db, orgId: string, teamId: string): TeamRow {
  const team = findTeam(db, orgId, teamId);
  if (!team) throw notFound('Team');
  return team;
}

function requireManage(access: Access, team: TeamRow): void {
  if (!access.canManageTeam(team)) throw forbidden('Managing this team needs the admin role or team ownership');
}

/** Loads a team of an organization the caller belongs to (else 404) and can manage (else 403). */
function requireManagedTeam(ctx: RequestContext, params: TeamParams): TeamRow {
  const org = ctx.access.requireOrgMember(params.organizationId);
  const team = requireTeam(ctx.db, org.id, params.teamId);
  requireManage(ctx.access, team);
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

/** Teams group: list, create, get, rename, delete teams and manage their members; a member's teams. */
export function teamRoutes(app: FastifyInstance): void {
  app.get<{ Params: Params }>('/orgs/:organizationId/teams', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(listTeamsQuery, request.query);
    const window = pageWindow(query);
    // The spec's `owner` filter keeps the teams that member can manage.
    const { rows, count } = listTeams(db, org.id, { title: query.title, owner: query.owner }, window);
    return pageOf(
      rows.map((team) => teamJson(db, team, access.canManageTeam(team))),
      count,
      window,
    );
  });

  app.put<{ Params: Params }>('/orgs/:organizationId/teams', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(createTeamBody, request.body);
    (body.members ?? []).forEach((userId, i) => {
      if (!userExists(db, userId)) throw notFoundInBody('User', `members.${i}`, userId);
      if (!isOrgMember(db, org.id, userId)) {
        throw badRequest(`Invalid body field "members.${i}": user ${userId} is not a member of the organization`);
      }
    });
    const team: TeamRow = { id: newId(), org_id: org.id, title: body.title, created_at: now() };
    insertTeam(db, team, [...new Set(body.members ?? [])]);
    return reply.code(201).send(teamJson(db, team, true));
  });

  app.get<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const team = requireTeam(db, org.id, request.params.teamId);
    return teamJson(db, team, access.canManageTeam(team));
  });

  app.delete<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const team = findTeam(db, org.id, request.params.teamId);
    if (!team) return sendDeleted(reply, false);
    requireManage(access, team);
    deleteTeam(db, team.id);
    return sendDeleted(reply, true);
  });

  app.patch<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId', async (request) => {
    const { db } = request.ctx;
    const team = requireManagedTeam(request.ctx, request.params);
    const body = parseBody(renameTeamBody, request.body);
    renameTeam(db, team.id, body.title);
    return teamJson(db, { ...team, title: body.title }, true);
  });

  app.get<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId/members', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const team = requireTeam(db, org.id, request.params.teamId);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const { rows, count } = listTeamMembers(db, org.id, team.id, window);
    return pageOf(
      rows.map((row) => ({
        organization: memberJson(db, row.member, row.user, links),
        team: { role: row.teamRole },
        permissions: { view: true },
      })),
      count,
      window,
    );
  });

  app.put<{ Params: TeamParams }>('/orgs/:organizationId/teams/:teamId/members', async (request, reply) => {
    const { db } = request.ctx;
    const team = requireManagedTeam(request.ctx, request.params);
    const body = parseBody(updateMembersBody, request.body);
    const add = (body.add ?? []).map((ref, i) => resolveMember(db, team.org_id, ref, `add.${i}`));
    const roles = Object.entries(body.memberships ?? {}).map(
      ([ref, { role }]) => [resolveMember(db, team.org_id, ref, `memberships.${ref}`), role] as const,
    );
    const remove = (body.remove ?? []).map((ref, i) => resolveMember(db, team.org_id, ref, `remove.${i}`));
    // A user listed in both add and remove ends up removed.
    updateTeamMembers(db, team.id, { add, roles, remove }, now());
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
      return sendDeleted(reply, user ? removeTeamMember(db, team.id, user.id) : false);
    },
  );

  app.get<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId/teams', async (request) => {
    const { db, access } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(userTeamsQuery, request.query);
    const window = pageWindow(query);
    const member = requireMember(db, org.id, request.params.userId);
    const { rows, count } = teamsOfMember(db, org.id, member.user_id, query.title, window);
    return pageOf(
      rows.map(({ team, role }) => ({ team: teamJson(db, team, access.canManageTeam(team)), member: { role } })),
      count,
      window,
    );
  });
}
