import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { StorageUploadKind } from './contract/types.js';
import { listOf, deleteOf } from './operation.js';

/** `GET /orgs/{organizationId}/fonts/{fontId}` */
export const getFont = (api: RequestApi, organizationId: string, fontId: string) =>
  api.read(op.getCustomFont, { organizationId, fontId });

/** `GET /orgs/{organizationId}/fonts`, oldest first. */
export const listFonts = (api: RequestApi, organizationId: string) =>
  listOf(api, op.listCustomFonts, { organizationId });

/** `PUT /orgs/{organizationId}/fonts` */
export const createFont = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(op.createCustomFont, { organizationId }, { body })).data;

/** `POST /orgs/{organizationId}/fonts/{fontId}`: renames a font, sets and removes its weights. */
export const updateFont = async (api: RequestApi, organizationId: string, fontId: string, body: object) =>
  (await api.write(op.updateCustomFont, { organizationId, fontId }, { body })).data;

/** `DELETE /orgs/{organizationId}/fonts/{fontId}` */
export const deleteFont = (api: RequestApi, organizationId: string, fontId: string) =>
  deleteOf(api, op.deleteCustomFont, { organizationId, fontId });

/** `POST /orgs/{organizationId}/storage/upload`: a signed URL to PUT one file to, and the key it is stored under. */
export const createStorageUpload = async (
  api: RequestApi,
  organizationId: string,
  body: { file: { name: string; type: string; size: number }; kind: StorageUploadKind },
) => (await api.write(op.generateStorageUploadURL, { organizationId }, { body })).data;
