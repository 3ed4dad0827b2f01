import { z } from 'zod';
import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type {
  MemberRole,
  MemberRoleOrGuest,
  OrganizationTeam,
  UserContentPermission,
  UserSitePermission,
} from './contract/types.js';
import { readingAnswer } from './answers.js';
import { type Filters, listOf, deleteOf, type RestPages } from './operation.js';
import { S } from './contract/schemas.js';

/**
 * A space, a collection or a site (which its organization addresses), whose permissions the same
 * operations of each kind read (and, for spaces and collections, write).
 */
export type Grantable =
  | { kind: 'space'; id: string }
  | { kind: 'collection'; id: string }
  | { kind: 'site'; id: string; organizationId: string };

/** The kinds of source, the one list of the three aggregates (a site knows organization, direct and team). */
const SOURCE_TYPES = ['organization', 'default-level', 'direct', 'team', 'collection'] as const;

/**
 * Where a user's role on a space, a collection or a site comes from, as the embedded platform
 * explains it on each item of the aggregate (`sources`, strongest first).
 */
export interface AccessSource {
  type: (typeof SOURCE_TYPES)[number];
  role: MemberRole;
  team?: string | null | undefined;
  collection?: string | null | undefined;
}

/**
 * An item of an aggregate: the user, their effective role, where the platform says, its sources,
 * and when they were last seen. A site's item also has the description's `origin`.
 */
export type UserAccess = {
  permission: MemberRoleOrGuest;
  user: UserContentPermission['user'];
  sources?: AccessSource[] | null | undefined;
  lastSeenAt?: string | null | undefined;
  origin?: UserSitePermission['origin'];
};

/** A team granted a role directly on a space, a collection or a site. */
export interface TeamPermission {
  permission: MemberRoleOrGuest;
  team: OrganizationTeam;
}

const accessSource = z.object({
  type: z.enum(SOURCE_TYPES),
  role: S.MemberRole as z.ZodType<MemberRole>,
  team: z.string().nullish(),
  collection: z.string().nullish(),
});

/**
 * The aggregates read with each item's `sources` (and, for spaces and collections, `lastSeenAt`),
 * fields the embedded platform adds: neither the description nor the API documentation has them
 * there, so the contract does not. A platform that does not send them (or sends a kind of source
 * the gateway does not know) leaves them null; a site's `origin` then gives its one source.
 */
const withSources = (recorded: z.ZodType) =>
  z.intersection(
    recorded,
    z.object({
      items: z.array(
        z.object({
          sources: z.array(accessSource).nullish().catch(null),
          lastSeenAt: z.string().nullish().catch(null),
        }),
      ),
    }),
  ) as z.ZodType as z.ZodType<{ count: number; items: UserAccess[] }>;

const spaceAggregate = readingAnswer(op.listPermissionsAggregateInSpace, 200, withSources);
const collectionAggregate = readingAnswer(op.listPermissionsAggregateInCollection, 200, withSources);
const siteAggregate = readingAnswer(op.listPermissionsAggregateInSite, 200, withSources);

/** The one source a site's `origin` names, for a platform that does not send `sources` (none for a space's). */
export function sourcesOf(item: UserAccess): AccessSource[] | null {
  if (item.sources) return item.sources;
  const origin = item.origin as { type?: string; reason?: string; team?: string } | undefined;
  if (!origin || item.permission === null) return null;
  if (origin.type === 'organization') return [{ type: 'organization', role: item.permission }];
  if (origin.type === 'site' && origin.reason === 'member') return [{ type: 'direct', role: item.permission }];
  if (origin.type === 'site' && origin.reason === 'team') {
    return [{ type: 'team', role: item.permission, team: origin.team ?? null }];
  }
  return null;
}

const siteParams = (at: { id: string; organizationId: string }) => ({
  organizationId: at.organizationId,
  siteId: at.id,
});

/** `GET …/permissions/users` of a space, collection or site: users granted a role directly on it. */
export const listUserPermissions = (api: RequestApi, at: Grantable): RestPages<UserContentPermission> =>
  at.kind === 'space'
    ? listOf(api, op.listUserPermissionsInSpace, { spaceId: at.id })
    : at.kind === 'collection'
      ? listOf(api, op.listUserPermissionsInCollection, { collectionId: at.id })
      : (listOf(api, op.listUserPermissionsInSite, siteParams(at)) as RestPages<UserContentPermission>);

/** `GET …/permissions/teams` of a space, collection or site: teams granted a role directly on it. */
export const listTeamPermissions = (api: RequestApi, at: Grantable): RestPages<TeamPermission> =>
  at.kind === 'space'
    ? listOf(api, op.listTeamPermissionsInSpace, { spaceId: at.id })
    : at.kind === 'collection'
      ? listOf(api, op.listTeamPermissionsInCollection, { collectionId: at.id })
      : listOf(api, op.listTeamPermissionsInSite, siteParams(at));

/** The filters of the aggregates: `role` on all three; a site's also `search`, `team`, `sort` and `order`. */
export type AccessFilters = Filters<'role' | 'search' | 'team' | 'sort' | 'order'>;

/** `GET …/permissions/aggregate` of a space, collection or site: every member who can access it, and through what. */
export const listAccess = (api: RequestApi, at: Grantable, filters: AccessFilters = {}): RestPages<UserAccess> =>
  (at.kind === 'space'
    ? listOf(api, spaceAggregate, { spaceId: at.id }, { role: filters.role })
    : at.kind === 'collection'
      ? listOf(api, collectionAggregate, { collectionId: at.id }, { role: filters.role })
      : listOf(api, siteAggregate, siteParams(at), filters)) as RestPages<UserAccess>;

/** A space or a collection: the writes of a site are the site's own (`schema/sites/permissions.ts`). */
export type ContentItem = Extract<Grantable, { kind: 'space' | 'collection' }>;

/** Users and teams to grant a role directly; a null role removes their direct grants. */
export interface Invite {
  role: MemberRoleOrGuest;
  users?: string[];
  teams?: string[];
}

/** `POST /{spaces|collections}/{id}/permissions` (no body answered): grants users and teams a role. */
export const invite = (api: RequestApi, at: ContentItem, body: Invite) =>
  at.kind === 'space'
    ? api.write(op.inviteToSpace, { spaceId: at.id }, { body })
    : api.write(op.inviteToCollection, { collectionId: at.id }, { body });

/** `PATCH /{spaces|collections}/{id}/permissions/users/{userId}` (no body answered); a null role removes the grant. */
export const updateUserPermission = (api: RequestApi, at: ContentItem, userId: string, role: MemberRoleOrGuest) =>
  at.kind === 'space'
    ? api.write(op.updateUserPermissionInSpace, { spaceId: at.id, userId }, { body: { role } })
    : api.write(op.updateUserPermissionInCollection, { collectionId: at.id, userId }, { body: { role } });

/** `PATCH /{spaces|collections}/{id}/permissions/teams/{teamId}` (no body answered); a null role removes the grant. */
export const updateTeamPermission = (api: RequestApi, at: ContentItem, teamId: string, role: MemberRoleOrGuest) =>
  at.kind === 'space'
    ? api.write(op.updateTeamPermissionInSpace, { spaceId: at.id, teamId }, { body: { role } })
    : api.write(op.updateTeamPermissionInCollection, { collectionId: at.id, teamId }, { body: { role } });

/** `DELETE /{spaces|collections}/{id}/permissions/users/{userId}` */
export const removeUser = (api: RequestApi, at: ContentItem, userId: string) =>
  at.kind === 'space'
    ? deleteOf(api, op.removeUserFromSpace, { spaceId: at.id, userId })
    : deleteOf(api, op.removeUserFromCollection, { collectionId: at.id, userId });

/** `DELETE /{spaces|collections}/{id}/permissions/teams/{teamId}` */
export const removeTeam = (api: RequestApi, at: ContentItem, teamId: string) =>
  at.kind === 'space'
    ? deleteOf(api, op.removeTeamFromSpace, { spaceId: at.id, teamId })
    : deleteOf(api, op.removeTeamFromCollection, { collectionId: at.id, teamId });
