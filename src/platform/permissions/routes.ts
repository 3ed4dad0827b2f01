import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { Access, type AccessFields, demand, type Role } from '../access.js';
import {
  forbidden,
  notFound,
  pageFromArray,
  pageParams,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { UserRow } from '../rows.js';
import { roleOrGuestSchema, roleSchema } from '../schemas.js';
import { teamJson } from '../teams/json.js';
import { userJson } from '../users/json.js';
import { checkInvitees, parseInvite } from './invite.js';
import { accessExplainer } from './sources.js';
import {
  type ContentKind,
  type Grantable,
  organizationUsers,
  removeGrant,
  setGrant,
  setGrants,
  teamGrants,
  teamInOrganization,
  userGrants,
} from './store.js';
import { userExists } from '../teams/store.js';

const updatePermissionBody = z.strictObject({ role: roleOrGuestSchema });

const aggregateQuery = z.object({ ...pageParams, role: roleSchema.optional() });

/** How each kind of item is named in its paths and messages, and loaded for the caller. */
const KINDS: Record<
  ContentKind,
  {
    path: string;
    param: string;
    noun: string;
    load: (access: Access, id: string) => { item: AccessFields; role: Role | null };
  }
> = {
  space: {
    path: '/spaces/:spaceId',
    param: 'spaceId',
    noun: 'space',
    load: (access, id) => {
      const { space, role } = access.requireSpace(id);
      return { item: space, role };
    },
  },
  collection: {
    path: '/collections/:collectionId',
    param: 'collectionId',
    noun: 'collection',
    load: (access, id) => {
      const { collection, role } = access.requireCollection(id);
      return { item: collection, role };
    },
  },
};

type Params = { Params: Record<string, string> };

/**
 * The permissions of spaces and collections, one set of routes for both: invite users and teams,
 * list, update and remove the direct grants of users and of teams, and the aggregate of who has
 * access and through what. Only the item's admins write its grants; members with a role on it
 * (not guests) read them. A write takes effect at once: every `Access` reads the grants afresh.
 */
export function permissionRoutes(app: FastifyInstance): void {
  for (const kind of ['space', 'collection'] as const) contentPermissionRoutes(app, kind);
}

function contentPermissionRoutes(app: FastifyInstance, kind: ContentKind): void {
  const { path, param, noun, load } = KINDS[kind];
  const managing = `Managing ${noun} permissions`;

  /** The item, for a caller who may manage its permissions. */
  const forWriting = (access: Access, id: string): Grantable => {
    const { item, role } = load(access, id);
    demand(role, 'admin', managing);
    return { kind, id: item.id, org_id: item.org_id };
  };
  /** The item, for a caller who may see who has access to it: a role on it, and not a guest. */
  const forReading = (access: Access, id: string) => {
    const { item, role } = load(access, id);
    const refusal = `Guests cannot list who has access to a ${noun}`;
    access.requireNotGuest(item.org_id, refusal);
    if (role === null) throw forbidden(`Listing who has access to a ${noun} needs a role on it`);
    return { item, grantable: { kind, id: item.id, org_id: item.org_id } satisfies Grantable };
  };

  /**
   * Invites users and teams with a role. A `null` role removes the direct grants of the listed
   * users and teams (they keep what they inherit); it does not add anyone to the organization.
   */
  app.post<Params>(`${path}/permissions`, async (request, reply) => {
    const { db, access } = request.ctx;
    const body = parseInvite(request.body);
    const item = forWriting(access, request.params[param]!);
    checkInvitees(db, item.org_id, body, 'any');
    setGrants(db, item, { users: [...new Set(body.users)], teams: [...new Set(body.teams)] }, body.role);
    return reply.code(204).send();
  });

  app.get<Params>(`${path}/permissions/users`, async (request) => {
    const { db, access, links } = request.ctx;
    const { grantable } = forReading(access, request.params[param]!);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    return pageFromArray(userGrants(db, grantable), window, ({ user, role }) => ({
      permission: role,
      user: userJson(user, links),
    }));
  });

  /** Sets a user's direct grant; a `null` role removes it. */
  app.patch<Params>(`${path}/permissions/users/:userId`, async (request, reply) => {
    const { db, access } = request.ctx;
    const item = forWriting(access, request.params[param]!);
    const body = parseBody(updatePermissionBody, request.body);
    if (!userExists(db, request.params.userId!)) throw notFound('User');
    setGrant(db, item, 'user', request.params.userId!, body.role);
    return reply.code(204).send();
  });

  app.delete<Params>(`${path}/permissions/users/:userId`, async (request, reply) => {
    const { db, access } = request.ctx;
    const item = forWriting(access, request.params[param]!);
    return sendDeleted(reply, removeGrant(db, item, 'user', request.params.userId!));
  });

  app.get<Params>(`${path}/permissions/teams`, async (request) => {
    const { db, access } = request.ctx;
    const { grantable } = forReading(access, request.params[param]!);
    const window = pageWindow(parseQuery(pageQuery, request.query));
    return pageFromArray(teamGrants(db, grantable), window, ({ team, role }) => ({
      permission: role,
      team: teamJson(db, team, access.canManageTeam(team)),
    }));
  });

  /** Sets a team's direct grant; a `null` role removes it. */
  app.patch<Params>(`${path}/permissions/teams/:teamId`, async (request, reply) => {
    const { db, access } = request.ctx;
    const item = forWriting(access, request.params[param]!);
    const body = parseBody(updatePermissionBody, request.body);
    if (!teamInOrganization(db, item.org_id, request.params.teamId!)) throw notFound('Team');
    setGrant(db, item, 'team', request.params.teamId!, body.role);
    return reply.code(204).send();
  });

  app.delete<Params>(`${path}/permissions/teams/:teamId`, async (request, reply) => {
    const { db, access } = request.ctx;
    const item = forWriting(access, request.params[param]!);
    return sendDeleted(reply, removeGrant(db, item, 'team', request.params.teamId!));
  });

  /**
   * Every member who can access the item, with their effective role, `sources`: where it comes
   * from (organization role, default level, direct grant, team, collection), the strongest first,
   * and `lastSeenAt` (as a site's aggregate has it).
   */
  app.get<Params>(`${path}/permissions/aggregate`, async (request) => {
    const { db, access, links } = request.ctx;
    const { item } = forReading(access, request.params[param]!);
    const query = parseQuery(aggregateQuery, request.query);
    const window = pageWindow(query);
    const explain = accessExplainer(db, kind, item);
    const entries = organizationUsers(db, item.org_id)
      .map(({ last_seen_at, ...member }) => {
        const memberAccess = new Access(db, member);
        const permission = kind === 'space' ? memberAccess.spaceRole(item) : memberAccess.collectionRole(item);
        return { member, permission, lastSeenAt: last_seen_at };
      })
      .filter(
        (entry): entry is { member: UserRow; permission: Role; lastSeenAt: string | null } => entry.permission !== null,
      )
      .filter((entry) => !query.role || entry.permission === query.role);
    return pageFromArray(entries, window, ({ member, permission, lastSeenAt }) => ({
      permission,
      user: userJson(member, links),
      sources: explain(member.id),
      ...(lastSeenAt ? { lastSeenAt } : {}),
    }));
  });
}
