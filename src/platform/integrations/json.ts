import type { Access } from '../access.js';
import { json } from '../http.js';
import type { Links } from '../links.js';
import { organizationJson } from '../organizations/json.js';
import { findOrganization } from '../organizations/store.js';
import { siteJson } from '../sites/json.js';
import { findSiteById } from '../sites/store.js';
import { spaceJson } from '../spaces/json.js';
import { loadSpace } from '../spaces/store.js';
import type { Db } from '../store/db.js';
import { userJson } from '../users/json.js';
import { findUserById } from '../users/store.js';
import type { EventRow, TraceLog } from './events.js';
import { type ContentKind, type CoveredTarget, coveredTargets, type InstallationRow, KINDS } from './installations.js';
import {
  assetUrl,
  definitionOf,
  hasAsset,
  type IntegrationRow,
  integrationLocation,
  originOf,
  publicEndpoint,
} from './store.js';

/** The JSON of an integration (`Integration`) for a caller (`access`), or for a delivery (no caller). */
export function integrationJson(db: Db, row: IntegrationRow, access: Access | undefined, links: Links) {
  const definition = definitionOf(row);
  const owner = findOrganization(db, row.owner_id)!;
  const role = access?.orgRole(row.owner_id);
  const hasIcon = hasAsset(db, row.id, 'icon');
  const endpoint = publicEndpoint(row, links);
  return {
    object: 'integration' as const,
    name: row.name,
    version: row.version,
    title: definition.title,
    description: definition.description,
    ...(definition.summary !== undefined ? { summary: definition.summary } : {}),
    previewImages: Array.from({ length: definition.previewImages }, (_, index) =>
      assetUrl(db, row, `preview-${index}`, links),
    ),
    target: row.target,
    verified: row.verified === 1,
    visibility: row.visibility,
    scopes: definition.scopes,
    categories: definition.categories,
    ...(definition.blocks ? { blocks: definition.blocks } : {}),
    ...(definition.contentSources ? { contentSources: definition.contentSources } : {}),
    ...(definition.configurations ? { configurations: definition.configurations } : {}),
    externalLinks: definition.externalLinks,
    owner: organizationJson(db, owner, role, links),
    urls: {
      location: integrationLocation(row, links),
      ...(hasIcon ? { icon: assetUrl(db, row, 'icon', links) } : {}),
      app: `${links.app}/integrations/${encodeURIComponent(row.name)}`,
      assets: `${originOf(links)}/integration-assets/${row.id}/${row.version}/`,
      publicEndpoint: endpoint,
      publicContentEndpoint: endpoint,
    },
    permissions: { admin: role === 'admin' },
    ...(definition.contentSecurityPolicy !== undefined
      ? { contentSecurityPolicy: definition.contentSecurityPolicy }
      : {}),
  };
}

function installationLocation(
  integration: Pick<IntegrationRow, 'name'>,
  installationId: string,
  links: Pick<Links, 'api'>,
): string {
  return `${links.api}/integrations/${encodeURIComponent(integration.name)}/installations/${installationId}`;
}

/** The JSON of an installation (`IntegrationInstallation`). */
export function installationJson(db: Db, integration: IntegrationRow, row: InstallationRow, links: Links) {
  const endpoint = publicEndpoint(integration, links);
  return {
    id: row.id,
    status: row.status,
    space_selection: row.space_selection,
    site_selection: row.site_selection,
    spaces: coveredTargets(db, row, 'space').length,
    configuration: json.parse<Record<string, unknown>>(row.configuration, {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    urls: {
      location: installationLocation(integration, row.id, links),
      app: `${links.app}/o/${row.org_id}/integrations/${encodeURIComponent(integration.name)}`,
      publicEndpoint: endpoint,
      publicContentEndpoint: endpoint,
    },
    externalIds: json.parse<string[]>(row.external_ids, []),
    target: { organization: row.org_id },
  };
}

/** The JSON of an installation on a space or site (`IntegrationSpaceInstallation`, `IntegrationSiteInstallation`). */
export function contentInstallationJson(
  db: Db,
  integration: IntegrationRow,
  installation: InstallationRow,
  kind: ContentKind,
  target: CoveredTarget,
  options: { extended: boolean; access?: Access | undefined; links: Links },
) {
  const { links } = options;
  const endpoint = publicEndpoint(integration, links);
  return {
    integration: integration.name,
    installation: installation.id,
    status: target.row?.status ?? installation.status,
    configuration: json.parse<Record<string, unknown>>(target.row?.configuration, {}),
    externalIds: json.parse<string[]>(target.row?.external_ids, []),
    urls: {
      location: `${installationLocation(integration, installation.id, links)}/${KINDS[kind].path}/${target.targetId}`,
      publicEndpoint: endpoint,
      publicContentEndpoint: endpoint,
    },
    [kind]: options.extended
      ? (extendedTarget(db, kind, target.targetId, options.access, links) ?? target.targetId)
      : target.targetId,
  };
}

/** The full space or site for the caller, or undefined when they may not read it (the id is answered instead). */
function extendedTarget(
  db: Db,
  kind: ContentKind,
  id: string,
  access: Access | undefined,
  links: Links,
): object | undefined {
  if (!access) return undefined;
  if (kind === 'space') {
    const space = loadSpace(db, id);
    if (!space) return undefined;
    const role = access.spaceRole(space);
    return access.canViewSpace(space, role) ? spaceJson(space, role, links) : undefined;
  }
  const site = findSiteById(db, id);
  if (!site) return undefined;
  const role = access.orgRole(site.org_id);
  if (role === undefined) return undefined;
  const org = findOrganization(db, site.org_id)!;
  return siteJson(db, site, org, role, links);
}

/** The payload as answered and delivered: `updatedBy` user ids become users. */
export function payloadJson(db: Db, row: Pick<EventRow, 'payload'>, links: Links): Record<string, unknown> {
  const payload = JSON.parse(row.payload) as Record<string, unknown>;
  if (Array.isArray(payload.updatedBy)) {
    payload.updatedBy = (payload.updatedBy as string[]).flatMap((id) => {
      const user = findUserById(db, id);
      return user ? [userJson(user, links)] : [];
    });
  }
  return payload;
}

/** An event (`IntegrationEvent`). */
export function eventJson(db: Db, row: EventRow, links: Links) {
  return {
    id: row.id,
    integrationId: row.integration_id,
    ...(row.installation_id ? { installationId: row.installation_id } : {}),
    createdAt: row.created_at,
    payload: payloadJson(db, row, links),
    status: row.status,
  };
}

/** The delivery trace of an event. */
export function traceJson(row: EventRow): { logs: TraceLog[] } {
  return { logs: JSON.parse(row.trace) as TraceLog[] };
}
