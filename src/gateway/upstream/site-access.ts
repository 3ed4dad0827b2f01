import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendDelete, sendFor } from './operation.js';
import { adaptiveSchema, publishedSite, publishingAuth, shareLink, templateConditions } from './shapes/site-access.js';
import { type SiteAddress, sitePath } from './sites.js';

/** A page of share links read whole (`limit` 1000), without its `count`. */
const shareLinkPage = z.object({ items: z.array(shareLink), next: z.object({ page: z.string() }).nullish() });

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links`: a list connection over them. */
export const listShareLinks = (api: RequestApi, at: SiteAddress, filters: Filters<'search'>) =>
  restPages(api, sitePath(at, '/share-links'), shareLink, filters);

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links`, 1000 at a time from `page`: to read them all. */
export const readShareLinkPage = (api: RequestApi, at: SiteAddress, page: string | undefined) =>
  api.get(sitePath(at, '/share-links'), shareLinkPage, { limit: 1000, page });

/** `POST /orgs/{organizationId}/sites/{siteId}/share-links` */
export const createShareLink = (api: RequestApi, at: SiteAddress, body: { name: string }) =>
  sendFor(api, 'POST', sitePath(at, '/share-links'), shareLink, { body });

/** `PATCH /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export const updateShareLink = (api: RequestApi, at: SiteAddress, shareLinkId: string, body: object) =>
  sendFor(api, 'PATCH', sitePath(at, route`/share-links/${shareLinkId}`), shareLink, { body });

/** `DELETE /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export const deleteShareLink = (api: RequestApi, at: SiteAddress, shareLinkId: string) =>
  sendDelete(api, sitePath(at, route`/share-links/${shareLinkId}`));

/** `GET /orgs/{organizationId}/sites/{siteId}/publishing/auth`: how visitors are authenticated (admins). */
export const getVisitorAuth = (api: RequestApi, at: SiteAddress) =>
  api.get(sitePath(at, '/publishing/auth'), publishingAuth);

/** `PATCH /orgs/{organizationId}/sites/{siteId}/publishing/auth` */
export const updateVisitorAuth = (api: RequestApi, at: SiteAddress, body: object) =>
  sendFor(api, 'PATCH', sitePath(at, '/publishing/auth'), publishingAuth, { body });

/** `POST /orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate`: a new signing key. */
export const regenerateVisitorAuthKey = (api: RequestApi, at: SiteAddress) =>
  sendFor(api, 'POST', sitePath(at, '/publishing/auth/regenerate'), publishingAuth);

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema`: 404 when the site has none. */
export const getAdaptiveSchema = (api: RequestApi, at: SiteAddress) =>
  api.get(sitePath(at, '/adaptive-schema'), adaptiveSchema);

/** `PUT /orgs/{organizationId}/sites/{siteId}/adaptive-schema` */
export const updateAdaptiveSchema = (api: RequestApi, at: SiteAddress, jsonSchema: Record<string, unknown>) =>
  sendFor(api, 'PUT', sitePath(at, '/adaptive-schema'), adaptiveSchema, { body: { jsonSchema } });

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions`: one per claim. */
export const listTemplateConditions = (api: RequestApi, at: SiteAddress) =>
  api.get(sitePath(at, '/adaptive-schema/template-conditions'), templateConditions);

/** `GET /orgs/{organizationId}/sites/{siteId}/published`: the site as its readers get it (a visitor's token may read it). */
export const getPublishedSite = (api: ReadApi, at: SiteAddress, query?: Filters<'shareKey'>) =>
  api.get(sitePath(at, '/published'), publishedSite, query);
