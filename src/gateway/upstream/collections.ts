import type { RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendDelete, sendFor } from './operation.js';
import { collection, userPermission } from './shapes/collections.js';
import type { Role } from './shapes/common.js';

/** `GET /collections/{collectionId}` */
export const getCollection = (api: RequestApi, collectionId: string) =>
  api.get(route`/collections/${collectionId}`, collection);

/** `GET /orgs/{organizationId}/collections`, in tree order; `nested: false` keeps the top level only. */
export const listCollections = (api: RequestApi, organizationId: string, filters: Filters<'nested'>) =>
  restPages(api, route`/orgs/${organizationId}/collections`, collection, filters);

/** `POST /orgs/{organizationId}/collections` */
export const createCollection = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/collections`, collection, { body });

/** `PATCH /collections/{collectionId}` */
export const updateCollection = (api: RequestApi, collectionId: string, body: object) =>
  sendFor(api, 'PATCH', route`/collections/${collectionId}`, collection, { body });

/** `DELETE /collections/{collectionId}` */
export const deleteCollection = (api: RequestApi, collectionId: string) =>
  sendDelete(api, route`/collections/${collectionId}`);

/** `POST /collections/{collectionId}/move` */
export const moveCollection = (api: RequestApi, collectionId: string, body: object) =>
  sendFor(api, 'POST', route`/collections/${collectionId}/move`, collection, { body });

/** `POST /collections/{collectionId}/transfer` */
export const transferCollection = (api: RequestApi, collectionId: string, body: { organization: string }) =>
  sendFor(api, 'POST', route`/collections/${collectionId}/transfer`, collection, { body });

/** `GET /collections/{collectionId}/permissions/users`: users granted a role directly on the collection. */
export const listCollectionUsers = (api: RequestApi, collectionId: string) =>
  restPages(api, route`/collections/${collectionId}/permissions/users`, userPermission);

/** `GET /collections/{collectionId}/permissions/aggregate`: every member who can access it, however. */
export const listCollectionAccess = (api: RequestApi, collectionId: string, filters: Filters<'role'>) =>
  restPages(api, route`/collections/${collectionId}/permissions/aggregate`, userPermission, filters);

/** Users and teams to grant a role directly on a collection; a null role removes their direct grants. */
export interface CollectionInvite {
  role: Role | null;
  users?: string[];
  teams?: string[];
}

/** `POST /collections/{collectionId}/permissions` (no body answered): grants users and teams a role. */
export const inviteToCollection = (api: RequestApi, collectionId: string, body: CollectionInvite) =>
  api.send('POST', route`/collections/${collectionId}/permissions`, { body });

/** `PATCH /collections/{collectionId}/permissions/users/{userId}` (no body answered) */
export const updateCollectionUserPermission = (
  api: RequestApi,
  collectionId: string,
  userId: string,
  body: { role: Role | null },
) => api.send('PATCH', route`/collections/${collectionId}/permissions/users/${userId}`, { body });

/** `DELETE /collections/{collectionId}/permissions/users/{userId}` */
export const removeCollectionUser = (api: RequestApi, collectionId: string, userId: string) =>
  sendDelete(api, route`/collections/${collectionId}/permissions/users/${userId}`);
