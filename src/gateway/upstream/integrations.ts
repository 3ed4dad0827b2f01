import type { RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendDelete, sendFor } from './operation.js';
import {
  eventWithTrace,
  installation,
  integration,
  integrationEvent,
  siteInstallation,
  spaceInstallation,
} from './shapes/integrations.js';

// --- Integrations ------------------------------------------------------------------------------

/** `GET /integrations/{integrationName}` */
export const getIntegration = (api: RequestApi, name: string) => api.get(route`/integrations/${name}`, integration);

/** The search filters of an integration list. */
export type IntegrationFilters = Filters<
  'search' | 'category' | 'blockDomain' | 'blocks' | 'contentSources' | 'owner' | 'scope' | 'target'
>;

/** `GET /integrations`: the integrations the caller can see. */
export const listIntegrations = (api: RequestApi, filters: IntegrationFilters) =>
  restPages(api, '/integrations', integration, filters);

/** `GET /orgs/{organizationId}/integrations`: the public ones, and those the organization owns or installed. */
export const listOrganizationIntegrations = (api: RequestApi, organizationId: string, filters: IntegrationFilters) =>
  restPages(api, route`/orgs/${organizationId}/integrations`, integration, filters);

/** `GET /spaces/{spaceId}/integrations`: those installed on the space (the description filters by `search` alone). */
export const listSpaceIntegrations = (api: RequestApi, spaceId: string, filters: Pick<IntegrationFilters, 'search'>) =>
  restPages(api, route`/spaces/${spaceId}/integrations`, integration, filters);

/** `POST /integrations/{integrationName}`: publishes the integration, or a new version of it. */
export const publishIntegration = (api: RequestApi, name: string, body: object) =>
  sendFor(api, 'POST', route`/integrations/${name}`, integration, { body });

/** `DELETE /integrations/{integrationName}`: with its installations and events. */
export const unpublishIntegration = (api: RequestApi, name: string) => sendDelete(api, route`/integrations/${name}`);

// --- Events ------------------------------------------------------------------------------------

/** `GET /integrations/{integrationName}/events/{eventId}`: the event with the log of its delivery. */
export const getIntegrationEvent = (api: RequestApi, name: string, eventId: string) =>
  api.get(route`/integrations/${name}/events/${eventId}`, eventWithTrace);

/** `GET /integrations/{integrationName}/events`, newest first. */
export const listIntegrationEvents = (api: RequestApi, name: string) =>
  restPages(api, route`/integrations/${name}/events`, integrationEvent);

// --- Installations -----------------------------------------------------------------------------

/** `GET /integrations/{integrationName}/installations/{installationId}` */
export const getInstallation = (api: RequestApi, name: string, installationId: string) =>
  api.get(route`/integrations/${name}/installations/${installationId}`, installation);

/** `GET /integrations/{integrationName}/installations` */
export const listInstallations = (api: RequestApi, name: string, filters: Filters<'externalId'>) =>
  restPages(api, route`/integrations/${name}/installations`, installation, filters);

/** `POST /integrations/{integrationName}/installations`: installs it on an organization. */
export const installIntegration = (api: RequestApi, name: string, organizationId: string) =>
  sendFor(api, 'POST', route`/integrations/${name}/installations`, installation, {
    body: { organization: organizationId },
  });

/** `PATCH /integrations/{integrationName}/installations/{installationId}` */
export const updateInstallation = (api: RequestApi, name: string, installationId: string, body: object) =>
  sendFor(api, 'PATCH', route`/integrations/${name}/installations/${installationId}`, installation, { body });

/** `DELETE /integrations/{integrationName}/installations/{installationId}` */
export const uninstallIntegration = (api: RequestApi, name: string, installationId: string) =>
  sendDelete(api, route`/integrations/${name}/installations/${installationId}`);

// --- Installations on spaces and sites (read `extended`: the space or site comes with each) ----

/** `GET /integrations/{integrationName}/spaces`: across the installations the caller can see. */
export const listIntegrationSpaces = (api: RequestApi, name: string, externalId: string | undefined) =>
  restPages(api, route`/integrations/${name}/spaces`, spaceInstallation, { extended: true, externalId });

/** `GET /integrations/{integrationName}/sites`: across the installations the caller can see. */
export const listIntegrationSites = (api: RequestApi, name: string, externalId: string | undefined) =>
  restPages(api, route`/integrations/${name}/sites`, siteInstallation, { extended: true, externalId });

/** `GET /integrations/{integrationName}/installations/{installationId}/spaces` */
export const listInstallationSpaces = (api: RequestApi, name: string, installationId: string) =>
  restPages(api, route`/integrations/${name}/installations/${installationId}/spaces`, spaceInstallation, {
    extended: true,
  });

/** `GET /integrations/{integrationName}/installations/{installationId}/sites` */
export const listInstallationSites = (api: RequestApi, name: string, installationId: string) =>
  restPages(api, route`/integrations/${name}/installations/${installationId}/sites`, siteInstallation, {
    extended: true,
  });

/** `GET /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` */
export const getSpaceInstallation = (api: RequestApi, name: string, installationId: string, spaceId: string) =>
  api.get(route`/integrations/${name}/installations/${installationId}/spaces/${spaceId}`, spaceInstallation, {
    extended: true,
  });

/** `GET /integrations/{integrationName}/installations/{installationId}/sites/{siteId}` */
export const getSiteInstallation = (api: RequestApi, name: string, installationId: string, siteId: string) =>
  api.get(route`/integrations/${name}/installations/${installationId}/sites/${siteId}`, siteInstallation, {
    extended: true,
  });

/** What an installation is enabled on, besides its organization. */
export type InstallationTarget = 'space' | 'site';

const targetShapes = { space: spaceInstallation, site: siteInstallation };

/** `POST /integrations/{integrationName}/installations/{installationId}/spaces` or `/sites`: enables it there. */
export const enableInstallation = (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  body: object,
) =>
  sendFor(api, 'POST', route`/integrations/${name}/installations/${installationId}/${target}s`, targetShapes[target], {
    body,
    query: { extended: true },
  });

/** `PATCH /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` (or `/sites/{siteId}`) */
export const updateTargetInstallation = (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  targetId: string,
  body: object,
) =>
  sendFor(
    api,
    'PATCH',
    route`/integrations/${name}/installations/${installationId}/${target}s/${targetId}`,
    targetShapes[target],
    { body, query: { extended: true } },
  );

/** `DELETE /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` (or `/sites/{siteId}`) */
export const disableInstallation = (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  targetId: string,
) => sendDelete(api, route`/integrations/${name}/installations/${installationId}/${target}s/${targetId}`);
