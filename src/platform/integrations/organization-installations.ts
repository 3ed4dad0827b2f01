import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Access } from '../access.js';
import { badRequest, notFound, pageFromArray, pageParams, pageWindow, parseQuery } from '../http.js';
import type { Db } from '../store/db.js';
import { findLiveSpace } from '../spaces/store.js';
import { findSiteById } from '../sites/store.js';
import { coveredTargets, type InstallationRow, type InstallationStatus } from './installations.js';
import { installationJson, integrationJson } from './json.js';
import { definitionOf, requireIntegration, type IntegrationRow } from './store.js';

/**
 * What an organization has installed: its installations with their integrations (admins of the
 * organization, who see the configurations), and their statuses (members): on the organization, or
 * on each space or site an installation covers (only the spaces the caller may read). An integration
 * that is not installed has no status: a 404.
 */

type Installed = { installation: InstallationRow; integration: IntegrationRow };
type InstalledTarget =
  | { type: 'organization'; organizationId: string }
  | { type: 'space'; spaceId: string }
  | { type: 'site'; siteId: string };

/** The installations on an organization with their integrations, by integration name. */
function installedOn(db: Db, orgId: string): Installed[] {
  const rows = db
    .prepare(
      `SELECT n.id AS installation_id, i.* FROM integration_installations n JOIN integrations i ON i.id = n.integration_id
       WHERE n.org_id = ? ORDER BY i.name, n.id`,
    )
    .all(orgId) as Array<IntegrationRow & { installation_id: string }>;
  const installation = db.prepare('SELECT * FROM integration_installations WHERE id = ?');
  return rows.map(({ installation_id, ...integration }) => ({
    installation: installation.get(installation_id) as InstallationRow,
    integration,
  }));
}

const searchParam = z.string().max(100, 'must be at most 100 characters').optional();
const installationsQuery = z.object({ ...pageParams, search: searchParam });
const statusesQuery = z.object({
  ...pageParams,
  target: z.enum(['organization', 'space', 'site']).default('organization'),
  space: z.string().min(1).max(100).optional(),
  site: z.string().min(1).max(100).optional(),
});

/** Whether an integration's name or title holds `search` (any case). */
function matchesSearch(integration: IntegrationRow, search: string | undefined): boolean {
  const wanted = search?.trim().toLowerCase();
  if (!wanted) return true;
  return (
    integration.name.toLowerCase().includes(wanted) || definitionOf(integration).title.toLowerCase().includes(wanted)
  );
}

/** The statuses of what is installed on `orgId` for one kind of target, as the caller may see them. */
function statusesOf(
  db: Db,
  access: Access,
  orgId: string,
  query: z.infer<typeof statusesQuery>,
): Array<{ status: InstallationStatus; integration: IntegrationRow; target: InstalledTarget }> {
  const installed = installedOn(db, orgId);
  if (query.target === 'organization') {
    return installed.map(({ installation, integration }) => ({
      status: installation.status,
      integration,
      target: { type: 'organization', organizationId: orgId },
    }));
  }
  const kind = query.target;
  const only = kind === 'space' ? query.space : query.site;
  // A named space or site must be one the caller may read in this organization.
  if (only !== undefined) {
    const found = kind === 'space' ? findLiveSpace(db, only) : findSiteById(db, only);
    if (!found || found.org_id !== orgId) throw notFound(kind === 'space' ? 'Space' : 'Site');
  }
  const readable = new Map<string, boolean>();
  const canRead = (spaceId: string) => {
    let known = readable.get(spaceId);
    if (known === undefined) {
      const space = findLiveSpace(db, spaceId);
      known = space !== undefined && access.canViewSpace(space, access.spaceRole(space));
      readable.set(spaceId, known);
    }
    return known;
  };
  if (kind === 'space' && only !== undefined && !canRead(only)) throw notFound('Space');
  return installed.flatMap(({ installation, integration }) => {
    if (integration.target !== 'all' && integration.target !== kind) return [];
    return coveredTargets(db, installation, kind)
      .filter(
        (target) => (only === undefined || target.targetId === only) && (kind === 'site' || canRead(target.targetId)),
      )
      .map((target) => ({
        status: target.row?.status ?? installation.status,
        integration,
        target:
          kind === 'space'
            ? ({ type: 'space', spaceId: target.targetId } as const)
            : ({ type: 'site', siteId: target.targetId } as const),
      }));
  });
}

type OrgParams = { organizationId: string };

/**
 * `GET /orgs/{id}/installations` (admins), `GET /orgs/{id}/integrations/installations-status` and
 * `GET /orgs/{id}/integrations/{name}/installation_status` (members).
 */
export function organizationInstallationRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/installations', async (request) => {
    const query = parseQuery(installationsQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const items = installedOn(db, org.id).filter(({ integration }) => matchesSearch(integration, query.search));
    return pageFromArray(items, pageWindow(query), ({ installation, integration }) => ({
      installation: installationJson(db, integration, installation, links),
      integration: integrationJson(db, integration, access, links),
    }));
  });

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/integrations/installations-status', async (request) => {
    const query = parseQuery(statusesQuery, request.query);
    if (query.space !== undefined && query.target !== 'space')
      throw badRequest('Invalid query parameter "space": only with target=space');
    if (query.site !== undefined && query.target !== 'site')
      throw badRequest('Invalid query parameter "site": only with target=site');
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    return pageFromArray(statusesOf(db, access, org.id, query), pageWindow(query), (item) => ({
      status: item.status,
      integration: integrationJson(db, item.integration, access, links),
      target: item.target,
    }));
  });

  app.get<{ Params: OrgParams & { integrationName: string } }>(
    '/orgs/:organizationId/integrations/:integrationName/installation_status',
    async (request) => {
      const { db, access } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'read');
      const integration = requireIntegration(db, access, request.params.integrationName);
      const status = db
        .prepare('SELECT status FROM integration_installations WHERE integration_id = ? AND org_id = ?')
        .pluck(true)
        .get(integration.id, org.id) as InstallationStatus | undefined;
      if (!status) throw notFound('Integration installation');
      return { status };
    },
  );
}
