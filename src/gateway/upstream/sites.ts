import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendDelete, sendFor } from './operation.js';
import {
  publishResult,
  site,
  siteSection,
  siteSectionGroup,
  siteSpace,
  siteStructure,
  sortedItem,
  type Site,
} from './shapes/sites.js';

/** A site as REST paths name it: its organization and its own id. */
export interface SiteAddress {
  organizationId: string;
  siteId: string;
}

/** The REST path of a site, or of something under it (`suffix`, starting with `/`). */
export const sitePath = (at: SiteAddress, suffix = '') => route`/orgs/${at.organizationId}/sites/${at.siteId}` + suffix;

/** The organization a site of an answer belongs to: its API location names it (`…/orgs/{org}/sites/{id}`). */
export function organizationOfSite(site: Site): string | undefined {
  const match = /\/orgs\/([^/]+)\/sites\/[^/]+$/.exec(site.urls.location ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

// --- Sites -------------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}` */
export const getSite = (api: ReadApi, at: SiteAddress) => api.get(sitePath(at), site);

/** `GET /orgs/{organizationId}/sites`: `space` keeps the sites publishing it. */
export const listSites = (api: RequestApi, organizationId: string, filters: Filters<'space' | 'title' | 'published'>) =>
  restPages(api, route`/orgs/${organizationId}/sites`, site, filters);

/** `POST /orgs/{organizationId}/sites`: a new site, unpublished. */
export const createSite = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/sites`, site, { body });

/** `PATCH /orgs/{organizationId}/sites/{siteId}` */
export const updateSite = (api: RequestApi, at: SiteAddress, body: object) =>
  sendFor(api, 'PATCH', sitePath(at), site, { body });

/** `DELETE /orgs/{organizationId}/sites/{siteId}` */
export const deleteSite = (api: RequestApi, at: SiteAddress) => sendDelete(api, sitePath(at));

/** `POST /orgs/{organizationId}/sites/{siteId}/publish`: the site, or a checkout session when the plan must change first. */
export const publishSite = (api: RequestApi, at: SiteAddress) =>
  sendFor(api, 'POST', sitePath(at, '/publish'), publishResult);

/** `POST /orgs/{organizationId}/sites/{siteId}/unpublish` */
export const unpublishSite = (api: RequestApi, at: SiteAddress) =>
  sendFor(api, 'POST', sitePath(at, '/unpublish'), site);

// --- Structure ---------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}/structure`: its sections and groups, or its site spaces. */
export const getSiteStructure = (api: ReadApi, at: SiteAddress) => api.get(sitePath(at, '/structure'), siteStructure);

/** `PATCH /orgs/{organizationId}/sites/{siteId}/structure/sort`: moves one item of the structure. */
export const sortSiteStructure = (api: RequestApi, at: SiteAddress, body: { item: object; position: object }) =>
  sendFor(api, 'PATCH', sitePath(at, '/structure/sort'), sortedItem, { body });

/** `GET /orgs/{organizationId}/sites/{siteId}/site-spaces` */
export const listSiteSpaces = (api: RequestApi, at: SiteAddress, filters: Filters<'default'>) =>
  restPages(api, sitePath(at, '/site-spaces'), siteSpace, filters);

/** `POST /orgs/{organizationId}/sites/{siteId}/site-spaces` */
export const addSiteSpace = (api: RequestApi, at: SiteAddress, body: object) =>
  sendFor(api, 'POST', sitePath(at, '/site-spaces'), siteSpace, { body });

/** `PATCH /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export const updateSiteSpace = (api: RequestApi, at: SiteAddress, siteSpaceId: string, body: object) =>
  sendFor(api, 'PATCH', sitePath(at, route`/site-spaces/${siteSpaceId}`), siteSpace, { body });

/** `DELETE /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export const deleteSiteSpace = (api: RequestApi, at: SiteAddress, siteSpaceId: string) =>
  sendDelete(api, sitePath(at, route`/site-spaces/${siteSpaceId}`));

/** `POST /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move` */
export const moveSiteSpace = (api: RequestApi, at: SiteAddress, siteSpaceId: string, body: { position: object }) =>
  sendFor(api, 'POST', sitePath(at, route`/site-spaces/${siteSpaceId}/move`), siteSpace, { body });

/** `GET /orgs/{organizationId}/sites/{siteId}/sections`, groups entered, in display order. */
export const listSiteSections = (api: RequestApi, at: SiteAddress) =>
  restPages(api, sitePath(at, '/sections'), siteSection);

/** `POST /orgs/{organizationId}/sites/{siteId}/sections` */
export const createSiteSection = (api: RequestApi, at: SiteAddress, body: object) =>
  sendFor(api, 'POST', sitePath(at, '/sections'), siteSection, { body });

/** `PATCH /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}` */
export const updateSiteSection = (api: RequestApi, at: SiteAddress, sectionId: string, body: object) =>
  sendFor(api, 'PATCH', sitePath(at, route`/sections/${sectionId}`), siteSection, { body });

/** `DELETE /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}` */
export const deleteSiteSection = (api: RequestApi, at: SiteAddress, sectionId: string) =>
  sendDelete(api, sitePath(at, route`/sections/${sectionId}`));

/** `POST /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}/move` */
export const moveSiteSection = (api: RequestApi, at: SiteAddress, sectionId: string, body: { position: object }) =>
  sendFor(api, 'POST', sitePath(at, route`/sections/${sectionId}/move`), siteSection, { body });

/** `GET /orgs/{organizationId}/sites/{siteId}/section-groups`, depth first in display order. */
export const listSiteSectionGroups = (api: RequestApi, at: SiteAddress) =>
  restPages(api, sitePath(at, '/section-groups'), siteSectionGroup);

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups` */
export const createSiteSectionGroup = (api: RequestApi, at: SiteAddress, body: object) =>
  sendFor(api, 'POST', sitePath(at, '/section-groups'), siteSectionGroup, { body });

/** `PATCH /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}` */
export const updateSiteSectionGroup = (api: RequestApi, at: SiteAddress, groupId: string, body: object) =>
  sendFor(api, 'PATCH', sitePath(at, route`/section-groups/${groupId}`), siteSectionGroup, { body });

/** `DELETE /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}` */
export const deleteSiteSectionGroup = (api: RequestApi, at: SiteAddress, groupId: string) =>
  sendDelete(api, sitePath(at, route`/section-groups/${groupId}`));

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}/move` */
export const moveSiteSectionGroup = (api: RequestApi, at: SiteAddress, groupId: string, body: { position: object }) =>
  sendFor(api, 'POST', sitePath(at, route`/section-groups/${groupId}/move`), siteSectionGroup, { body });
