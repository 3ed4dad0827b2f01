import type { RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import { customFont, storageUploadUrl } from './shapes/fonts.js';

/** `GET /orgs/{organizationId}/fonts/{fontId}` */
export const getFont = (api: RequestApi, organizationId: string, fontId: string) =>
  api.get(route`/orgs/${organizationId}/fonts/${fontId}`, customFont);

/** `GET /orgs/{organizationId}/fonts`, oldest first. */
export const listFonts = (api: RequestApi, organizationId: string) =>
  restPages(api, route`/orgs/${organizationId}/fonts`, customFont);

/** `PUT /orgs/{organizationId}/fonts` */
export const createFont = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'PUT', route`/orgs/${organizationId}/fonts`, customFont, { body });

/** `POST /orgs/{organizationId}/fonts/{fontId}`: renames a font, sets and removes its weights. */
export const updateFont = (api: RequestApi, organizationId: string, fontId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/fonts/${fontId}`, customFont, { body });

/** `DELETE /orgs/{organizationId}/fonts/{fontId}` */
export const deleteFont = (api: RequestApi, organizationId: string, fontId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/fonts/${fontId}`);

/** `POST /orgs/{organizationId}/storage/upload`: a signed URL to PUT one file to, and the key it is stored under. */
export const createStorageUpload = (
  api: RequestApi,
  organizationId: string,
  body: { file: { name: string; type: string; size: number }; kind: string },
) => sendFor(api, 'POST', route`/orgs/${organizationId}/storage/upload`, storageUploadUrl, { body });
