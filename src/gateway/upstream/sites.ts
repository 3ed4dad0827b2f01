import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { Site } from './contract/types.js';
import { writtenObject } from './answers.js';
import { type Filters, listOf, deleteOf } from './operation.js';

/** A site as REST paths name it: its organization and its own id. */
export interface SiteAddress {
  organizationId: string;
  siteId: string;
}

/** The organization a site of an answer belongs to: its API location names it (`…/orgs/{org}/sites/{id}`). */
export function organizationOfSite(site: Site): string | undefined {
  const match = /\/orgs\/([^/]+)\/sites\/[^/]+$/.exec(site.urls.location ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

// --- Sites -------------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}` */
export const getSite = (api: ReadApi, at: SiteAddress) => api.read(op.getSiteById, at);

/** `GET /orgs/{organizationId}/sites`: `space` keeps the sites publishing it. */
export const listSites = (api: RequestApi, organizationId: string, filters: Filters<'space' | 'title' | 'published'>) =>
  listOf(api, op.listSites, { organizationId }, filters);

/** `POST /orgs/{organizationId}/sites`: a new site, unpublished. */
export const createSite = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(op.createSite, { organizationId }, { body })).data;

/** `PATCH /orgs/{organizationId}/sites/{siteId}` */
export const updateSite = async (api: RequestApi, at: SiteAddress, body: object) =>
  (await api.write(op.updateSiteById, at, { body })).data;

/** `DELETE /orgs/{organizationId}/sites/{siteId}` */
export const deleteSite = (api: RequestApi, at: SiteAddress) => deleteOf(api, op.deleteSiteById, at);

/** `POST /orgs/{organizationId}/sites/{siteId}/publish`: the site, or a checkout session when the plan must change first. */
export const publishSite = async (api: RequestApi, at: SiteAddress) => (await api.write(op.publishSite, at)).data;

/** `POST /orgs/{organizationId}/sites/{siteId}/unpublish` */
export const unpublishSite = async (api: RequestApi, at: SiteAddress) => (await api.write(op.unpublishSite, at)).data;

// --- Structure ---------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/sites/{siteId}/structure`: its sections and groups, or its site spaces. */
export const getSiteStructure = (api: ReadApi, at: SiteAddress) => api.read(op.getSiteStructure, at);

/** `PATCH /orgs/{organizationId}/sites/{siteId}/structure/sort`: moves one item of the structure. */
export const sortSiteStructure = (api: RequestApi, at: SiteAddress, body: { item: object; position: object }) =>
  writtenObject(api.write(op.sortSiteStructure, at, { body }));

/** `GET /orgs/{organizationId}/sites/{siteId}/site-spaces` */
export const listSiteSpaces = (api: RequestApi, at: SiteAddress, filters: Filters<'default'>) =>
  listOf(api, op.listSiteSpaces, at, filters);

/** `POST /orgs/{organizationId}/sites/{siteId}/site-spaces` */
export const addSiteSpace = (api: RequestApi, at: SiteAddress, body: object) =>
  writtenObject(api.write(op.addSpaceToSite, at, { body }));

/** `PATCH /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export const updateSiteSpace = (api: RequestApi, at: SiteAddress, siteSpaceId: string, body: object) =>
  writtenObject(api.write(op.updateSiteSpaceById, { ...at, siteSpaceId }, { body }));

/** `DELETE /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}` */
export const deleteSiteSpace = (api: RequestApi, at: SiteAddress, siteSpaceId: string) =>
  deleteOf(api, op.deleteSiteSpaceById, { ...at, siteSpaceId });

/** `POST /orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move` */
export const moveSiteSpace = async (
  api: RequestApi,
  at: SiteAddress,
  siteSpaceId: string,
  body: { position: object },
) => (await api.write(op.moveSiteSpace, { ...at, siteSpaceId }, { body })).data;

/** `GET /orgs/{organizationId}/sites/{siteId}/sections`, groups entered, in display order. */
export const listSiteSections = (api: RequestApi, at: SiteAddress) => listOf(api, op.listSiteSections, at);

/** `POST /orgs/{organizationId}/sites/{siteId}/sections` */
export const createSiteSection = async (api: RequestApi, at: SiteAddress, body: object) =>
  (await api.write(op.addSectionToSite, at, { body })).data;

/** `PATCH /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}` */
export const updateSiteSection = (api: RequestApi, at: SiteAddress, sectionId: string, body: object) =>
  writtenObject(api.write(op.updateSiteSectionById, { ...at, siteSectionId: sectionId }, { body }));

/** `DELETE /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}` */
export const deleteSiteSection = (api: RequestApi, at: SiteAddress, sectionId: string) =>
  deleteOf(api, op.deleteSiteSectionById, { ...at, siteSectionId: sectionId });

/** `POST /orgs/{organizationId}/sites/{siteId}/sections/{sectionId}/move` */
export const moveSiteSection = async (
  api: RequestApi,
  at: SiteAddress,
  sectionId: string,
  body: { position: object },
) => (await api.write(op.moveSiteSection, { ...at, siteSectionId: sectionId }, { body })).data;

/** `GET /orgs/{organizationId}/sites/{siteId}/section-groups`, depth first in display order. */
export const listSiteSectionGroups = (api: RequestApi, at: SiteAddress) => listOf(api, op.listSiteSectionGroups, at);

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups` */
export const createSiteSectionGroup = async (api: RequestApi, at: SiteAddress, body: object) =>
  (await api.write(op.addSectionGroupToSite, at, { body })).data;

/** `PATCH /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}` */
export const updateSiteSectionGroup = (api: RequestApi, at: SiteAddress, groupId: string, body: object) =>
  writtenObject(api.write(op.updateSiteSectionGroupById, { ...at, siteSectionGroupId: groupId }, { body }));

/** `DELETE /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}` */
export const deleteSiteSectionGroup = (api: RequestApi, at: SiteAddress, groupId: string) =>
  deleteOf(api, op.deleteSiteSectionGroupById, { ...at, siteSectionGroupId: groupId });

/** `POST /orgs/{organizationId}/sites/{siteId}/section-groups/{groupId}/move` */
export const moveSiteSectionGroup = async (
  api: RequestApi,
  at: SiteAddress,
  groupId: string,
  body: { position: object },
) => (await api.write(op.moveSiteSectionGroup, { ...at, siteSectionGroupId: groupId }, { body })).data;
