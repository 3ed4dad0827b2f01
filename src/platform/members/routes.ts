import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Access, ROLES, findMember, isExpired } from '../access.js';
import type { RequestContext } from '../context.js';
import {
  conflict,
  forbidden,
  pageFromArray,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { MemberRow } from '../rows.js';
import { roleOrGuestSchema } from '../schemas.js';
import { spaceJson } from '../spaces/json.js';
import { findUserById } from '../users/store.js';
import { memberJson } from './json.js';
import {
  isLastAdmin,
  listMembers,
  removeMember,
  requireMember,
  setMemberRole,
  spacesOfOrganization,
  touchMember,
} from './store.js';

const orderParam = z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).default('desc');
const memberRoleBody = z.strictObject({ role: roleOrGuestSchema });
const userSpacesQuery = z.object({ ...pageParams, order: orderParam });

const listMembersQuery = z.object({
  ...pageParams,
  order: orderParam,
  role: z.enum([...ROLES, 'guest'] as const, { message: `must be guest or one of ${ROLES.join(', ')}` }).optional(),
  search: z.string().max(512, 'must be at most 512 characters').optional(),
  sort: z
    .enum(['joinedAt', 'lastSeenAt', 'name'], { message: 'must be joinedAt, lastSeenAt or name' })
    .default('joinedAt'),
});

type Params = { organizationId: string };
type MemberParams = Params & { userId: string };

function memberAnswer(ctx: RequestContext, member: MemberRow) {
  return memberJson(ctx.db, member, findUserById(ctx.db, member.user_id)!, ctx.links);
}

/** Organization members group: list, get, remove, change role, ping, a member's spaces. */
export function memberRoutes(app: FastifyInstance): void {
  app.get<{ Params: Params }>('/orgs/:organizationId/members', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    const query = parseQuery(listMembersQuery, request.query);
    const window = pageWindow(query);
    const { rows, count } = listMembers(db, org.id, query, window);
    return pageOf(
      rows.map(({ member, user }) => memberJson(db, member, user, links)),
      count,
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
    removeMember(db, org.id, targetId);
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
    setMemberRole(db, org.id, member.user_id, body.role);
    return memberAnswer(ctx, { ...member, role: body.role });
  });

  app.post<{ Params: Params }>('/orgs/:organizationId/ping', async (request) => {
    const { db, access, user } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    touchMember(db, org.id, user.id);
    return {};
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
    const targetAccess = member.user_id === user.id ? access : new Access(db, findUserById(db, member.user_id)!);
    const items: Array<{ permission: string; space: ReturnType<typeof spaceJson> }> = [];
    for (const space of spacesOfOrganization(db, org.id, query.order)) {
      if (isExpired(space)) continue;
      const permission = targetAccess.spaceRole(space);
      if (permission === null) continue;
      items.push({ permission, space: spaceJson(space, access.spaceRole(space), links) });
    }
    return pageFromArray(items, window);
  });
}
