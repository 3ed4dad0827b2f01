import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import { translation } from './shapes/translations.js';

/** `GET /orgs/{organizationId}/translations/{translationId}` */
export const getTranslation = (api: ReadApi, organizationId: string, translationId: string) =>
  api.get(route`/orgs/${organizationId}/translations/${translationId}`, translation);

/** `GET /orgs/{organizationId}/translations`, oldest first (admins). */
export const listTranslations = (api: RequestApi, organizationId: string) =>
  restPages(api, route`/orgs/${organizationId}/translations`, translation);

/** `POST /orgs/{organizationId}/translations` */
export const createTranslation = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/translations`, translation, { body });

/** `PUT /orgs/{organizationId}/translations/{translationId}`: replaces its instructions. */
export const updateTranslation = (api: RequestApi, organizationId: string, translationId: string, body: object) =>
  sendFor(api, 'PUT', route`/orgs/${organizationId}/translations/${translationId}`, translation, { body });

/** `POST /orgs/{organizationId}/translations/{translationId}/run` (no body answered): starts a run. */
export const runTranslation = (api: RequestApi, organizationId: string, translationId: string) =>
  api.send('POST', route`/orgs/${organizationId}/translations/${translationId}/run`);

/** `DELETE /orgs/{organizationId}/translations/{translationId}` */
export const deleteTranslation = (api: RequestApi, organizationId: string, translationId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/translations/${translationId}`);
