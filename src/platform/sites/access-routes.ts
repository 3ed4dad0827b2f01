import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  badRequest,
  notFound,
  now,
  pageFromArray,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import { AdaptiveSchemaError, checkAdaptiveSchema, templateConditions, type AdaptiveSchema } from './adaptive.js';
import { publishedCustomizations } from './customization.js';
import type { Db } from '../store/db.js';
import type { Links } from '../links.js';
import { findSite, reloadSite, touchSite, type SiteRow, updateSiteColumns } from './store.js';
import { requireSiteRole, siteRole } from './permissions.js';
import { authJson, shareLinkJson, siteJson, structureJson } from './json.js';
import { findOrganization } from '../organizations/store.js';
import { loadStructure, withoutDrafts } from './structure.js';
import { readerView } from './resolve.js';
import { OPEN_TO_VISITORS } from '../access.js';
import {
  createShareLink,
  deleteShareLink,
  findShareLink,
  publicKeyProblem,
  readableWithoutMembership,
  regenerateSigningKey,
  shareLinksOf,
  updateShareLink,
} from './visitors.js';

type SiteParams = { organizationId: string; siteId: string };
type ShareLinkParams = SiteParams & { shareLinkId: string };

const shareLinkName = z.string().max(50, 'must be at most 50 characters');
const createShareLinkBody = z.strictObject({ name: shareLinkName });
const updateShareLinkBody = z
  .strictObject({ name: shareLinkName.optional(), active: z.boolean().optional() })
  .refine((body) => body.name !== undefined || body.active !== undefined, 'must set name or active');
const shareLinksQuery = z.object({ ...pageParams, search: z.string().max(100).optional() });

const httpUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');
const updateAuthBody = z.strictObject({
  backend: z.enum(['custom', 'integration'], { message: 'must be custom or integration' }),
  fallbackURL: httpUrl.nullable().optional(),
  logoutURL: httpUrl.nullable().optional(),
  /** Beyond the description: an RSA public key (PEM) that RS256 visitor tokens verify with; null removes it. */
  publicKey: z.string().max(10_000, 'must be at most 10000 characters').nullable().optional(),
});

const adaptiveBody = z.strictObject({ jsonSchema: z.unknown().refine((value) => value !== undefined, 'is required') });
const publishedQuery = z.object({ shareKey: z.string().max(100).optional() });

/** What the published profile needs of domains above the sites'. */
export interface SiteAccessOptions {
  /**
   * The scripts integrations add to a site's published pages (the integrations domain's).
   * @default none
   */
  scripts?: (db: Db, site: SiteRow, links: Links) => unknown[];
}

/**
 * Who may read a published site and as whom: share links, the visitor-authentication settings
 * (admins only: they hold the signing key), the adaptive schema (editors read it, admins change
 * it), and the published profile of a site.
 */
export function siteAccessRoutes(app: FastifyInstance, options: SiteAccessOptions = {}): void {
  const scriptsOf = options.scripts ?? (() => []);
  const siteOf = (request: FastifyRequest, params: SiteParams, min: 'read' | 'edit' | 'admin') => {
    const { org, site } = requireSiteRole(request.ctx.access, params.organizationId, params.siteId, min);
    return { org, site };
  };

  // --- Share links -------------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/share-links', async (request) => {
    const query = parseQuery(shareLinksQuery, request.query);
    const { org, site } = siteOf(request, request.params, 'admin');
    const needle = query.search?.toLowerCase();
    const rows = shareLinksOf(request.ctx.db, site.id).filter(
      (row) => !needle || (row.name ?? '').toLowerCase().includes(needle) || row.key.toLowerCase() === needle,
    );
    return pageFromArray(rows, pageWindow(query), (row) => shareLinkJson(row, site, org, request.ctx.links));
  });

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/share-links', async (request, reply) => {
    const body = parseBody(createShareLinkBody, request.body);
    const { org, site } = siteOf(request, request.params, 'admin');
    const { db, links } = request.ctx;
    const row = db.transaction(() => {
      touchSite(db, site.id);
      return createShareLink(db, site.id, body.name);
    })();
    return reply
      .code(201)
      .header('location', `${links.api}/orgs/${org.id}/sites/${site.id}/share-links/${row.id}`)
      .send(shareLinkJson(row, site, org, links));
  });

  app.patch<{ Params: ShareLinkParams }>(
    '/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId',
    async (request) => {
      const body = parseBody(updateShareLinkBody, request.body);
      const { org, site } = siteOf(request, request.params, 'admin');
      const { db, links } = request.ctx;
      const row = findShareLink(db, site.id, request.params.shareLinkId);
      if (!row) throw notFound('Share link');
      const updated = updateShareLink(db, row, {
        name: body.name === undefined ? row.name : body.name,
        active: body.active === undefined ? row.active : Number(body.active),
      });
      return shareLinkJson(updated, site, org, links);
    },
  );

  app.delete<{ Params: ShareLinkParams }>(
    '/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId',
    async (request, reply) => {
      const { site } = siteOf(request, request.params, 'admin');
      return sendDeleted(reply, deleteShareLink(request.ctx.db, site.id, request.params.shareLinkId));
    },
  );

  // --- Visitor authentication --------------------------------------------------------------------

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/publishing/auth', async (request) => {
    const { site } = siteOf(request, request.params, 'admin');
    return authJson(request.ctx.db, site);
  });

  app.patch<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/publishing/auth', async (request) => {
    const body = parseBody(updateAuthBody, request.body);
    const { site } = siteOf(request, request.params, 'admin');
    if (body.publicKey) {
      const problem = await publicKeyProblem(body.publicKey);
      if (problem) throw badRequest(`Invalid body field "publicKey": ${problem}`);
    }
    const { db } = request.ctx;
    db.transaction(() => {
      updateSiteColumns(db, site.id, {
        auth_backend: body.backend,
        auth_fallback_url: body.fallbackURL === undefined ? site.auth_fallback_url : body.fallbackURL,
        auth_logout_url: body.logoutURL === undefined ? site.auth_logout_url : body.logoutURL,
        auth_public_key: body.publicKey === undefined ? site.auth_public_key : body.publicKey,
      });
      touchSite(db, site.id);
    })();
    return authJson(db, reloadSite(db, site.id));
  });

  app.post<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate',
    async (request) => {
      const { site } = siteOf(request, request.params, 'admin');
      const { db } = request.ctx;
      regenerateSigningKey(db, site);
      return authJson(db, reloadSite(db, site.id));
    },
  );

  // --- Adaptive schema ---------------------------------------------------------------------------

  const schemaOf = (site: SiteRow): AdaptiveSchema => {
    if (!site.adaptive_schema) throw notFound('Adaptive schema of the site');
    return JSON.parse(site.adaptive_schema) as AdaptiveSchema;
  };

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/adaptive-schema', async (request) => {
    const { site } = siteOf(request, request.params, 'edit');
    return {
      object: 'site-adaptive-schema' as const,
      jsonSchema: schemaOf(site),
      updatedAt: site.adaptive_schema_updated_at!,
    };
  });

  app.put<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/adaptive-schema', async (request) => {
    const body = parseBody(adaptiveBody, request.body);
    const { site } = siteOf(request, request.params, 'admin');
    let schema: AdaptiveSchema;
    try {
      schema = checkAdaptiveSchema(body.jsonSchema);
    } catch (error) {
      if (error instanceof AdaptiveSchemaError) throw badRequest(`Invalid body field "jsonSchema": ${error.message}`);
      throw error;
    }
    const { db } = request.ctx;
    db.transaction(() => {
      updateSiteColumns(db, site.id, { adaptive_schema: JSON.stringify(schema), adaptive_schema_updated_at: now() });
      touchSite(db, site.id);
    })();
    const updated = reloadSite(db, site.id);
    return {
      object: 'site-adaptive-schema' as const,
      jsonSchema: schemaOf(updated),
      updatedAt: updated.adaptive_schema_updated_at!,
    };
  });

  app.get<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions',
    async (request) => {
      const { site } = siteOf(request, request.params, 'edit');
      return { items: site.adaptive_schema ? templateConditions(schemaOf(site)) : [] };
    },
  );

  // --- Published profile -------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/published',
    OPEN_TO_VISITORS,
    async (request) => {
      const query = parseQuery(publishedQuery, request.query);
      const { db, access, links } = request.ctx;
      const site = findSite(db, request.params.organizationId, request.params.siteId);
      const role = site ? siteRole(access, site) : undefined;
      const member = role !== undefined && role !== null;
      // Members see their sites' profiles even unpublished; others only what they could visit.
      if (!site || (!member && !readableWithoutMembership(db, site, query.shareKey, request.ctx.visitor?.site)))
        throw notFound('Site');
      const org = findOrganization(db, site.org_id)!;
      // Members see every published item; other readers what their claims (none without a token) show.
      const s = member
        ? withoutDrafts(loadStructure(db, site))
        : readerView(loadStructure(db, site), request.ctx.visitor?.claims ?? {});
      return {
        object: 'published-content-site' as const,
        site: siteJson(db, site, org, member ? role : null, links),
        structure: structureJson(s, { access, org, links }),
        customizations: publishedCustomizations(db, links, s),
        scripts: scriptsOf(db, site, links),
      };
    },
  );
}
