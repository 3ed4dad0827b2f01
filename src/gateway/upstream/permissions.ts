import { z } from 'zod';
import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { MemberRole, MemberRoleOrGuest, OrganizationTeam, UserContentPermission } from './contract/types.js';
import { readingAnswer } from './answers.js';
import { type Filters, listOf, deleteOf, type RestPages } from './operation.js';
import { S } from './contract/schemas.js';

/** A space or a collection, whose permissions the same operations of each kind read and write. */
export type Grantable = { kind: 'space'; id: string } | { kind: 'collection'; id: string };

/**
 * Where a user's role on a space or collection comes from, as the embedded platform explains it
 * on each item of the aggregate (`sources`, strongest first).
 */
export interface AccessSource {
  type: 'organization' | 'default-level' | 'direct' | 'team' | 'collection';
  role: MemberRole;
  team?: string | null | undefined;
  collection?: string | null | undefined;
}

/** An item of an aggregate: the user, their effective role and, where the platform says, its sources. */
export type UserAccess = UserContentPermission & { sources?: AccessSource[] | null | undefined };

/** A team granted a role directly on a space or collection. */
export interface TeamPermission {
  permission: MemberRole;
  team: OrganizationTeam;
}

const accessSource = z.object({
  type: z.enum(['organization', 'default-level', 'direct', 'team', 'collection']),
  role: S.MemberRole as z.ZodType<MemberRole>,
  team: z.string().nullish(),
  collection: z.string().nullish(),
});

/**
 * The aggregates read with each item's `sources`, a field the embedded platform adds: neither the
 * description nor the API documentation has it, so the contract does not. A platform that does not
 * send it (or sends a kind of source the gateway does not know) leaves it null.
 */
const withSources = (recorded: z.ZodType) =>
  z.intersection(
    recorded,
    z.object({ items: z.array(z.object({ sources: z.array(accessSource).nullish().catch(null) })) }),
  ) as z.ZodType as z.ZodType<{ count: number; items: UserAccess[] }>;

const spaceAggregate = readingAnswer(op.listPermissionsAggregateInSpace, 200, withSources);
const collectionAggregate = readingAnswer(op.listPermissionsAggregateInCollection, 200, withSources);

/** `GET /{spaces|collections}/{id}/permissions/users`: users granted a role directly on it. */
export const listUserPermissions = (api: RequestApi, at: Grantable): RestPages<UserContentPermission> =>
  at.kind === 'space'
    ? listOf(api, op.listUserPermissionsInSpace, { spaceId: at.id })
    : listOf(api, op.listUserPermissionsInCollection, { collectionId: at.id });

/** `GET /{spaces|collections}/{id}/permissions/teams`: teams granted a role directly on it. */
export const listTeamPermissions = (api: RequestApi, at: Grantable): RestPages<TeamPermission> =>
  at.kind === 'space'
    ? listOf(api, op.listTeamPermissionsInSpace, { spaceId: at.id })
    : listOf(api, op.listTeamPermissionsInCollection, { collectionId: at.id });

/** `GET /{spaces|collections}/{id}/permissions/aggregate`: every member who can access it, and through what. */
export const listAccess = (api: RequestApi, at: Grantable, filters: Filters<'role'>): RestPages<UserAccess> =>
  (at.kind === 'space'
    ? listOf(api, spaceAggregate, { spaceId: at.id }, filters)
    : listOf(api, collectionAggregate, { collectionId: at.id }, filters)) as RestPages<UserAccess>;

/** Users and teams to grant a role directly; a null role removes their direct grants. */
export interface Invite {
  role: MemberRoleOrGuest;
  users?: string[];
  teams?: string[];
}

/** `POST /{spaces|collections}/{id}/permissions` (no body answered): grants users and teams a role. */
export const invite = (api: RequestApi, at: Grantable, body: Invite) =>
  at.kind === 'space'
    ? api.write(op.inviteToSpace, { spaceId: at.id }, { body })
    : api.write(op.inviteToCollection, { collectionId: at.id }, { body });

/** `PATCH /{spaces|collections}/{id}/permissions/users/{userId}` (no body answered); a null role removes the grant. */
export const updateUserPermission = (api: RequestApi, at: Grantable, userId: string, role: MemberRoleOrGuest) =>
  at.kind === 'space'
    ? api.write(op.updateUserPermissionInSpace, { spaceId: at.id, userId }, { body: { role } })
    : api.write(op.updateUserPermissionInCollection, { collectionId: at.id, userId }, { body: { role } });

/** `PATCH /{spaces|collections}/{id}/permissions/teams/{teamId}` (no body answered); a null role removes the grant. */
export const updateTeamPermission = (api: RequestApi, at: Grantable, teamId: string, role: MemberRoleOrGuest) =>
  at.kind === 'space'
    ? api.write(op.updateTeamPermissionInSpace, { spaceId: at.id, teamId }, { body: { role } })
    : api.write(op.updateTeamPermissionInCollection, { collectionId: at.id, teamId }, { body: { role } });

/** `DELETE /{spaces|collections}/{id}/permissions/users/{userId}` */
export const removeUser = (api: RequestApi, at: Grantable, userId: string) =>
  at.kind === 'space'
    ? deleteOf(api, op.removeUserFromSpace, { spaceId: at.id, userId })
    : deleteOf(api, op.removeUserFromCollection, { collectionId: at.id, userId });

/** `DELETE /{spaces|collections}/{id}/permissions/teams/{teamId}` */
export const removeTeam = (api: RequestApi, at: Grantable, teamId: string) =>
  at.kind === 'space'
    ? deleteOf(api, op.removeTeamFromSpace, { spaceId: at.id, teamId })
    : deleteOf(api, op.removeTeamFromCollection, { collectionId: at.id, teamId });
