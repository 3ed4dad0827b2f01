import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { listOf, deleteOf } from './operation.js';

/** `GET /spaces/{spaceId}`; a share key lets people outside a `share-link` space read it. */
export const getSpace = (api: ReadApi, spaceId: string, query?: { shareKey: string }) =>
  api.read(op.getSpaceById, { spaceId }, query);

/** `GET /orgs/{organizationId}/spaces`, in tree order. */
export const listOrganizationSpaces = (api: RequestApi, organizationId: string) =>
  listOf(api, op.listSpacesInOrganizationById, { organizationId });

/** `GET /collections/{collectionId}/spaces`, in display order. */
export const listCollectionSpaces = (api: RequestApi, collectionId: string) =>
  listOf(api, op.listSpacesInCollectionById, { collectionId });

/** `POST /orgs/{organizationId}/spaces` */
export const createSpace = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(op.createSpace, { organizationId }, { body })).data;

/** `PATCH /spaces/{spaceId}` */
export const updateSpace = async (api: RequestApi, spaceId: string, body: object) =>
  (await api.write(op.updateSpaceById, { spaceId }, { body })).data;

/** `DELETE /spaces/{spaceId}`: restorable for 7 days. */
export const deleteSpace = (api: RequestApi, spaceId: string) => deleteOf(api, op.deleteSpaceById, { spaceId });

/** `POST /spaces/{spaceId}/restore` */
export const restoreSpace = async (api: RequestApi, spaceId: string) =>
  (await api.write(op.restoreSpace, { spaceId })).data;

/** `POST /spaces/{spaceId}/duplicate`: answers the copy. */
export const duplicateSpace = async (api: RequestApi, spaceId: string) =>
  (await api.write(op.duplicateSpace, { spaceId })).data;

/** `POST /spaces/{spaceId}/move` */
export const moveSpace = async (api: RequestApi, spaceId: string, body: object) =>
  (await api.write(op.moveSpace, { spaceId }, { body })).data;

/** `POST /spaces/{spaceId}/transfer` */
export const transferSpace = async (api: RequestApi, spaceId: string, body: object) =>
  (await api.write(op.transferSpace, { spaceId }, { body })).data;
