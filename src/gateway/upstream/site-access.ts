import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { SitePublishingAuth } from './contract/types.js';
import { type Filters, listOf, deleteOf } from './operation.js';
import type { Operation } from './record.js';
import { readingAnswer } from './answers.js';
import type { SiteAddress } from './sites.js';

/** How visitors of a site are authenticated, with the embedded platform's `publicKey` when it sends one. */
export type VisitorAuth = SitePublishingAuth & { publicKey?: string | null | undefined };

/**
 * The visitor authentication's operations, their answer read with `publicKey` too: the RSA public
 * key (PEM) RS256 visitor tokens verify with, a field the embedded platform adds. Neither the
 * description nor the API documentation has it, so the contract does not: the gateway keeps it
 * where a platform sends it (null elsewhere).
 */
const withPublicKey = <P extends string, B>(operation: Operation<P, never, B, { 200: SitePublishingAuth }>) =>
  readingAnswer(
    operation,
    200,
    (recorded) =>
      z.intersection(recorded, z.object({ publicKey: z.string().nullish() })) as z.ZodType as z.ZodType<VisitorAuth>,
  );

const getPublishingAuth = withPublicKey(op.getSitePublishingAuthById);
const updatePublishingAuth = withPublicKey(op.updateSitePublishingAuthById);
const regeneratePublishingAuth = withPublicKey(op.regenerateSitePublishingAuthById);

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links`: a list connection over them. */
export const listShareLinks = (api: RequestApi, at: SiteAddress, filters: Filters<'search'>) =>
  listOf(api, op.listSiteShareLinks, at, filters);

/** `GET /orgs/{organizationId}/sites/{siteId}/share-links`, 1000 at a time from `page`: to read them all. */
export const readShareLinkPage = (api: RequestApi, at: SiteAddress, page: string | undefined) =>
  api.read(op.listSiteShareLinks, at, { limit: 1000, page });

/** `POST /orgs/{organizationId}/sites/{siteId}/share-links` */
export const createShareLink = async (api: RequestApi, at: SiteAddress, body: { name: string }) =>
  (await api.write(op.createSiteShareLink, at, { body })).data;

/** `PATCH /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export const updateShareLink = async (api: RequestApi, at: SiteAddress, shareLinkId: string, body: object) =>
  (await api.write(op.updateSiteShareLinkById, { ...at, shareLinkId }, { body })).data;

/** `DELETE /orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}` */
export const deleteShareLink = (api: RequestApi, at: SiteAddress, shareLinkId: string) =>
  deleteOf(api, op.deleteSiteShareLinkById, { ...at, shareLinkId });

/** `GET /orgs/{organizationId}/sites/{siteId}/publishing/auth`: how visitors are authenticated (admins). */
export const getVisitorAuth = (api: RequestApi, at: SiteAddress) => api.read(getPublishingAuth, at);

/** `PATCH /orgs/{organizationId}/sites/{siteId}/publishing/auth` */
export const updateVisitorAuth = async (api: RequestApi, at: SiteAddress, body: object) =>
  (await api.write(updatePublishingAuth, at, { body })).data;

/** `POST /orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate`: a new signing key. */
export const regenerateVisitorAuthKey = async (api: RequestApi, at: SiteAddress) =>
  (await api.write(regeneratePublishingAuth, at)).data;

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema`: 404 when the site has none. */
export const getAdaptiveSchema = (api: RequestApi, at: SiteAddress) => api.read(op.getSiteAdaptiveSchema, at);

/** `PUT /orgs/{organizationId}/sites/{siteId}/adaptive-schema` */
export const updateAdaptiveSchema = async (api: RequestApi, at: SiteAddress, jsonSchema: Record<string, unknown>) =>
  (await api.write(op.updateSiteAdaptiveSchema, at, { body: { jsonSchema } })).data;

/** `GET /orgs/{organizationId}/sites/{siteId}/adaptive-schema/template-conditions`: one per claim. */
export const listTemplateConditions = (api: RequestApi, at: SiteAddress) =>
  api.read(op.listSiteAdaptiveTemplateConditions, at);

/** `GET /orgs/{organizationId}/sites/{siteId}/published`: the site as its readers get it (a visitor's token may read it). */
export const getPublishedSite = (api: ReadApi, at: SiteAddress, query?: { shareKey?: string | undefined }) =>
  api.read(op.getPublishedContentSite, at, query);
