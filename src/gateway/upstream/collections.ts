import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
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
