import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageFromArray, pageParams, pageWindow, parseQuery } from '../http.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { siteOf, type SiteParams } from '../sites/requests.js';
import { integrationJson } from './json.js';
import type { InstallationStatus } from './installations.js';
import { definitionOf, integrationLocation, installedIntegrations, type IntegrationRow } from './store.js';

/**
 * What integrations bring to a docs site: those installed on it (`GET …/sites/{id}/integrations`)
 * and the scripts they add to its published pages (`GET …/sites/{id}/integration-scripts`, also the
 * `scripts` of its published profile). An integration adds a script to a site when it has the
 * scope `site:script:inject`, can be installed on sites, and its installation covers the site and
 * is active there (neither paused nor pending a required setting); the script may use cookies when
 * the integration also has `site:script:cookies`, and it is loaded under the integration's
 * `contentSecurityPolicy`.
 */

/** A script an integration adds to a site's published pages (`SiteIntegrationScript`). */
export interface SiteScript {
  script: string;
  contentSecurityPolicy?: string;
  cookies: boolean;
}

/** A policy given as an object of directives, written as a header value (`script-src x; img-src y`). */
function policyText(policy: string | Record<string, string>): string {
  return typeof policy === 'string'
    ? policy
    : Object.entries(policy)
        .map(([directive, value]) => `${directive} ${value}`.trim())
        .join('; ');
}

type CoveringRow = IntegrationRow & { installation_id: string; installation_status: InstallationStatus };

/** The installations covering a site, with the status each has there, by integration name. */
function coveringInstallations(db: Db, site: { id: string; org_id: string }) {
  return db
    .prepare(
      `SELECT i.*, n.id AS installation_id, COALESCE(s.status, n.status) AS installation_status
       FROM integrations i
       JOIN integration_installations n ON n.integration_id = i.id AND n.org_id = ?
       LEFT JOIN integration_site_installations s ON s.installation_id = n.id AND s.site_id = ?
       WHERE i.target IN ('all', 'site') AND (n.site_selection = 'all' OR s.site_id IS NOT NULL)
       ORDER BY i.name`,
    )
    .all(site.org_id, site.id) as CoveringRow[];
}

/**
 * The scripts integrations add to a site's published pages, by integration name. Each is
 * addressed under its installation on the site and its integration's version, so a new version
 * changes the address (what browsers keep).
 */
export function siteScripts(db: Db, site: { id: string; org_id: string }, links: Pick<Links, 'api'>): SiteScript[] {
  return coveringInstallations(db, site).flatMap((row) => {
    if (row.installation_status !== 'active') return [];
    const definition = definitionOf(row);
    if (!definition.scopes.includes('site:script:inject')) return [];
    const script = `${integrationLocation(row, links)}/installations/${row.installation_id}/sites/${encodeURIComponent(site.id)}/script.js?version=${row.version}`;
    return [
      {
        script,
        ...(definition.contentSecurityPolicy !== undefined
          ? { contentSecurityPolicy: policyText(definition.contentSecurityPolicy) }
          : {}),
        cookies: definition.scopes.includes('site:script:cookies'),
      },
    ];
  });
}

const listQuery = z.object({ ...pageParams, search: z.string().max(512, 'must be at most 512 characters').optional() });

/** The integrations of a site and their scripts, for members of its organization. */
export function siteIntegrationRoutes(app: FastifyInstance): void {
  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/integrations', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { site } = siteOf(request, request.params);
    const { db, access, links } = request.ctx;
    return pageFromArray(installedIntegrations(db, { site }, { search: query.search }), pageWindow(query), (row) =>
      integrationJson(db, row, access, links),
    );
  });

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/integration-scripts', async (request) => {
    const { site } = siteOf(request, request.params);
    return siteScripts(request.ctx.db, site, request.ctx.links);
  });
}
