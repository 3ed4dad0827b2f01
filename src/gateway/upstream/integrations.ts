import { z } from 'zod';
import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { S } from './contract/schemas.js';
import type { Integration, IntegrationEvent as RecordedEvent } from './contract/types.js';
import { readingAnswer } from './answers.js';
import { type Filters, listOf, deleteOf } from './operation.js';
import type { AnswerOf, Operation } from './record.js';

/**
 * An integration event as the gateway reads it: its payload kept whole, whatever its type. The
 * description lists the event types there are (`Event`); a platform newer than it may send others,
 * which the graph shows with a null `type` (and their payload as it came) instead of failing the
 * list they are in.
 */
export type IntegrationEvent = Omit<RecordedEvent, 'payload'> & { payload: { type: string; [key: string]: unknown } };

const event = (): z.ZodType<IntegrationEvent> =>
  (S.IntegrationEvent as z.ZodType as z.ZodObject).extend({
    payload: z.looseObject({ type: z.string() }),
  }) as z.ZodType as z.ZodType<IntegrationEvent>;

type EventPage = Omit<AnswerOf<typeof op.listIntegrationEvents>, 'items'> & { items: IntegrationEvent[] };
type EventRead = Omit<AnswerOf<typeof op.getIntegrationEvent>, 'event'> & { event: IntegrationEvent };

const listEvents = readingAnswer(
  op.listIntegrationEvents,
  200,
  (page) => (page as z.ZodObject).extend({ items: z.array(event()) }) as z.ZodType as z.ZodType<EventPage>,
);
const getEvent = readingAnswer(
  op.getIntegrationEvent,
  200,
  (answer) => (answer as z.ZodObject).extend({ event: event() }) as z.ZodType as z.ZodType<EventRead>,
);

/**
 * An integration's icon URL kept whole. The platform signs it (`sig`), and a URL read as the
 * contract reads URLs loses its token-like parameters: the icon would no longer load. Those who
 * may read the integration may load its icon.
 */
const integration = (): z.ZodType<Integration> => {
  const recorded = S.Integration as z.ZodType as z.ZodObject;
  return recorded.extend({
    urls: (recorded.shape.urls as z.ZodObject).extend({ icon: z.string().nullish() }),
  }) as z.ZodType as z.ZodType<Integration>;
};
/** A page of integrations, each with its icon URL whole. */
type IntegrationPage = AnswerOf<typeof op.listIntegrations>;
const integrationPage = <P extends string, Q>(operation: Operation<P, Q, never, { 200: IntegrationPage }>) =>
  readingAnswer(
    operation,
    200,
    (page) =>
      (page as z.ZodObject).extend({ items: z.array(integration()) }) as z.ZodType as z.ZodType<IntegrationPage>,
  );

const readIntegration = readingAnswer(op.getIntegrationByName, 200, integration);
const writeIntegration = readingAnswer(op.publishIntegration, 200, integration);
const listAllIntegrations = integrationPage(op.listIntegrations);
const listIntegrationsOfOrganization = integrationPage(op.listOrganizationIntegrations);
const listIntegrationsOfSpace = integrationPage(op.listSpaceIntegrations);
const listIntegrationsOfSite = integrationPage(op.listSiteIntegrations);

// --- Integrations ------------------------------------------------------------------------------

/** `GET /integrations/{integrationName}` */
export const getIntegration = (api: RequestApi, name: string) => api.read(readIntegration, { integrationName: name });

/** The search filters of an integration list. */
export type IntegrationFilters = Filters<
  'search' | 'category' | 'blockDomain' | 'blocks' | 'contentSources' | 'owner' | 'scope' | 'target'
>;

/** `GET /integrations`: the integrations the caller can see. */
export const listIntegrations = (api: RequestApi, filters: IntegrationFilters) =>
  listOf(api, listAllIntegrations, {}, filters);

/** `GET /orgs/{organizationId}/integrations`: the public ones, and those the organization owns or installed. */
export const listOrganizationIntegrations = (api: RequestApi, organizationId: string, filters: IntegrationFilters) =>
  listOf(api, listIntegrationsOfOrganization, { organizationId }, filters);

/** `GET /spaces/{spaceId}/integrations`: those installed on the space (the description filters by `search` alone). */
export const listSpaceIntegrations = (api: RequestApi, spaceId: string, filters: Pick<IntegrationFilters, 'search'>) =>
  listOf(api, listIntegrationsOfSpace, { spaceId }, filters);

/** `GET /orgs/{organizationId}/sites/{siteId}/integrations`: those installed on the site (filtered by `search` alone). */
export const listSiteIntegrations = (
  api: RequestApi,
  at: { organizationId: string; siteId: string },
  filters: Pick<IntegrationFilters, 'search'>,
) => listOf(api, listIntegrationsOfSite, at, filters);

/** `GET /orgs/{organizationId}/sites/{siteId}/integration-scripts`: what they add to its published pages. */
export const listSiteIntegrationScripts = (api: RequestApi, at: { organizationId: string; siteId: string }) =>
  api.read(op.listSiteIntegrationScripts, at);

/** `POST /integrations/{integrationName}`: publishes the integration, or a new version of it. */
export const publishIntegration = async (api: RequestApi, name: string, body: object) =>
  (await api.write(writeIntegration, { integrationName: name }, { body })).data;

/** `DELETE /integrations/{integrationName}`: with its installations and events. */
export const unpublishIntegration = (api: RequestApi, name: string) =>
  deleteOf(api, op.unpublishIntegration, { integrationName: name });

// --- Events ------------------------------------------------------------------------------------

/** `GET /integrations/{integrationName}/events/{eventId}`: the event with the log of its delivery. */
export const getIntegrationEvent = (api: RequestApi, name: string, eventId: string) =>
  api.read(getEvent, { integrationName: name, eventId });

/** `GET /integrations/{integrationName}/events`, newest first. */
export const listIntegrationEvents = (api: RequestApi, name: string) =>
  listOf(api, listEvents, { integrationName: name });

// --- Installations -----------------------------------------------------------------------------

/** `GET /integrations/{integrationName}/installations/{installationId}` */
export const getInstallation = (api: RequestApi, name: string, installationId: string) =>
  api.read(op.getIntegrationInstallationById, { integrationName: name, installationId });

/** `GET /integrations/{integrationName}/installations` */
export const listInstallations = (api: RequestApi, name: string, filters: Filters<'externalId'>) =>
  listOf(api, op.listIntegrationInstallations, { integrationName: name }, filters);

/** `POST /integrations/{integrationName}/installations`: installs it on an organization. */
export const installIntegration = async (api: RequestApi, name: string, organizationId: string) =>
  (await api.write(op.installIntegration, { integrationName: name }, { body: { organization: organizationId } })).data;

/** `PATCH /integrations/{integrationName}/installations/{installationId}` */
export const updateInstallation = async (api: RequestApi, name: string, installationId: string, body: object) =>
  (await api.write(op.updateIntegrationInstallation, { integrationName: name, installationId }, { body })).data;

/** `DELETE /integrations/{integrationName}/installations/{installationId}` */
export const uninstallIntegration = (api: RequestApi, name: string, installationId: string) =>
  deleteOf(api, op.uninstallIntegration, { integrationName: name, installationId });

// --- Installations on spaces and sites (read `extended`: the space or site comes with each) ----

/** `GET /integrations/{integrationName}/spaces`: across the installations the caller can see. */
export const listIntegrationSpaces = (api: RequestApi, name: string, externalId: string | undefined) =>
  listOf(api, op.listIntegrationSpaceInstallations, { integrationName: name }, { extended: true, externalId });

/** `GET /integrations/{integrationName}/sites`: across the installations the caller can see. */
export const listIntegrationSites = (api: RequestApi, name: string, externalId: string | undefined) =>
  listOf(api, op.listIntegrationSiteInstallations, { integrationName: name }, { extended: true, externalId });

/** `GET /integrations/{integrationName}/installations/{installationId}/spaces` */
export const listInstallationSpaces = (api: RequestApi, name: string, installationId: string) =>
  listOf(api, op.listIntegrationInstallationSpaces, { integrationName: name, installationId }, { extended: true });

/** `GET /integrations/{integrationName}/installations/{installationId}/sites` */
export const listInstallationSites = (api: RequestApi, name: string, installationId: string) =>
  listOf(api, op.listIntegrationInstallationSites, { integrationName: name, installationId }, { extended: true });

/** `GET /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` */
export const getSpaceInstallation = (api: RequestApi, name: string, installationId: string, spaceId: string) =>
  api.read(op.getIntegrationSpaceInstallation, { integrationName: name, installationId, spaceId }, { extended: true });

/** `GET /integrations/{integrationName}/installations/{installationId}/sites/{siteId}` */
export const getSiteInstallation = (api: RequestApi, name: string, installationId: string, siteId: string) =>
  api.read(op.getIntegrationSiteInstallation, { integrationName: name, installationId, siteId }, { extended: true });

/** What an installation is enabled on, besides its organization. */
export type InstallationTarget = 'space' | 'site';

/** `POST /integrations/{integrationName}/installations/{installationId}/spaces` or `/sites`: enables it there. */
export const enableInstallation = async (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  body: object,
) => {
  const params = { integrationName: name, installationId };
  const query = { extended: true };
  return target === 'space'
    ? (await api.write(op.installIntegrationOnSpace, params, { body, query })).data
    : (await api.write(op.installIntegrationOnSite, params, { body, query })).data;
};

/** `PATCH /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` (or `/sites/{siteId}`) */
export const updateTargetInstallation = async (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  targetId: string,
  body: object,
) => {
  const at = { integrationName: name, installationId };
  const query = { extended: true };
  return target === 'space'
    ? (await api.write(op.updateIntegrationSpaceInstallation, { ...at, spaceId: targetId }, { body, query })).data
    : (await api.write(op.updateIntegrationSiteInstallation, { ...at, siteId: targetId }, { body, query })).data;
};

/** `DELETE /integrations/{integrationName}/installations/{installationId}/spaces/{spaceId}` (or `/sites/{siteId}`) */
export const disableInstallation = (
  api: RequestApi,
  name: string,
  installationId: string,
  target: InstallationTarget,
  targetId: string,
) => {
  const at = { integrationName: name, installationId };
  return target === 'space'
    ? deleteOf(api, op.uninstallIntegrationFromSpace, { ...at, spaceId: targetId })
    : deleteOf(api, op.uninstallIntegrationFromSite, { ...at, siteId: targetId });
};
