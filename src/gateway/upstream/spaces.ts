import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import { space } from './shapes/spaces.js';

/** `GET /spaces/{spaceId}`; a share key lets people outside a `share-link` space read it. */
export const getSpace = (api: ReadApi, spaceId: string, query?: { shareKey: string }) =>
  api.get(route`/spaces/${spaceId}`, space, query);

/** `GET /orgs/{organizationId}/spaces`, in tree order. */
export const listOrganizationSpaces = (api: RequestApi, organizationId: string) =>
  restPages(api, route`/orgs/${organizationId}/spaces`, space);

/** `GET /collections/{collectionId}/spaces`, in display order. */
export const listCollectionSpaces = (api: RequestApi, collectionId: string) =>
  restPages(api, route`/collections/${collectionId}/spaces`, space);

/** `POST /orgs/{organizationId}/spaces` */
export const createSpace = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/spaces`, space, { body });

/** `PATCH /spaces/{spaceId}` */
export const updateSpace = (api: RequestApi, spaceId: string, body: object) =>
  sendFor(api, 'PATCH', route`/spaces/${spaceId}`, space, { body });

/** `DELETE /spaces/{spaceId}`: restorable for 7 days. */
export const deleteSpace = (api: RequestApi, spaceId: string) => sendDelete(api, route`/spaces/${spaceId}`);

/** `POST /spaces/{spaceId}/restore` */
export const restoreSpace = (api: RequestApi, spaceId: string) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/restore`, space);

/** `POST /spaces/{spaceId}/duplicate`: answers the copy. */
export const duplicateSpace = (api: RequestApi, spaceId: string) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/duplicate`, space);

/** `POST /spaces/{spaceId}/move` */
export const moveSpace = (api: RequestApi, spaceId: string, body: object) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/move`, space, { body });

/** `POST /spaces/{spaceId}/transfer` */
export const transferSpace = (api: RequestApi, spaceId: string, body: object) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/transfer`, space, { body });
