import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { MemberRoleOrGuest } from './contract/types.js';
import { type Filters, listOf, deleteOf } from './operation.js';

/** `GET /collections/{collectionId}` */
export const getCollection = (api: RequestApi, collectionId: string) =>
  api.read(op.getCollectionById, { collectionId });

/** `GET /orgs/{organizationId}/collections`, in tree order; `nested: false` keeps the top level only. */
export const listCollections = (api: RequestApi, organizationId: string, filters: Filters<'nested'>) =>
  listOf(api, op.listCollectionsInOrganizationById, { organizationId }, filters);

/** `POST /orgs/{organizationId}/collections` */
export const createCollection = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(op.createCollection, { organizationId }, { body })).data;

/** `PATCH /collections/{collectionId}` */
export const updateCollection = async (api: RequestApi, collectionId: string, body: object) =>
  (await api.write(op.updateCollectionById, { collectionId }, { body })).data;

/** `DELETE /collections/{collectionId}` */
export const deleteCollection = (api: RequestApi, collectionId: string) =>
  deleteOf(api, op.deleteCollectionById, { collectionId });

/** `POST /collections/{collectionId}/move` */
export const moveCollection = async (api: RequestApi, collectionId: string, body: object) =>
  (await api.write(op.moveCollection, { collectionId }, { body })).data;

/** `POST /collections/{collectionId}/transfer` */
export const transferCollection = async (api: RequestApi, collectionId: string, body: { organization: string }) =>
  (await api.write(op.transferCollection, { collectionId }, { body })).data;

/** `GET /collections/{collectionId}/permissions/users`: users granted a role directly on the collection. */
export const listCollectionUsers = (api: RequestApi, collectionId: string) =>
  listOf(api, op.listUserPermissionsInCollection, { collectionId });

/** `GET /collections/{collectionId}/permissions/aggregate`: every member who can access it, however. */
export const listCollectionAccess = (api: RequestApi, collectionId: string, filters: Filters<'role'>) =>
  listOf(api, op.listPermissionsAggregateInCollection, { collectionId }, filters);

/** Users and teams to grant a role directly on a collection; a null role removes their direct grants. */
export interface CollectionInvite {
  role: MemberRoleOrGuest;
  users?: string[];
  teams?: string[];
}

/** `POST /collections/{collectionId}/permissions` (no body answered): grants users and teams a role. */
export const inviteToCollection = (api: RequestApi, collectionId: string, body: CollectionInvite) =>
  api.write(op.inviteToCollection, { collectionId }, { body });

/** `PATCH /collections/{collectionId}/permissions/users/{userId}` (no body answered) */
export const updateCollectionUserPermission = (
  api: RequestApi,
  collectionId: string,
  userId: string,
  body: { role: MemberRoleOrGuest },
) => api.write(op.updateUserPermissionInCollection, { collectionId, userId }, { body });

/** `DELETE /collections/{collectionId}/permissions/users/{userId}` */
export const removeCollectionUser = (api: RequestApi, collectionId: string, userId: string) =>
  deleteOf(api, op.removeUserFromCollection, { collectionId, userId });
