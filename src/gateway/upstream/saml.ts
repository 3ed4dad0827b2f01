import type { RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import { samlProvider, ssoLogins } from './shapes/saml.js';

/** `GET /orgs/{organizationId}/saml/{providerId}` */
export const getSamlProvider = (api: RequestApi, organizationId: string, providerId: string) =>
  api.get(route`/orgs/${organizationId}/saml/${providerId}`, samlProvider);

/** `GET /orgs/{organizationId}/saml`, oldest first (admins). */
export const listSamlProviders = (api: RequestApi, organizationId: string) =>
  restPages(api, route`/orgs/${organizationId}/saml`, samlProvider);

/** `POST /orgs/{organizationId}/saml` */
export const createSamlProvider = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/saml`, samlProvider, { body });

/** `PATCH /orgs/{organizationId}/saml/{providerId}` */
export const updateSamlProvider = (api: RequestApi, organizationId: string, providerId: string, body: object) =>
  sendFor(api, 'PATCH', route`/orgs/${organizationId}/saml/${providerId}`, samlProvider, { body });

/** `DELETE /orgs/{organizationId}/saml/{providerId}` */
export const deleteSamlProvider = (api: RequestApi, organizationId: string, providerId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/saml/${providerId}`);

/** `GET /orgs/{organizationId}/sso`: the active providers to sign in with, for a login page. */
export const listSsoLogins = (api: RequestApi, organizationId: string) =>
  api.get(route`/orgs/${organizationId}/sso`, ssoLogins);
