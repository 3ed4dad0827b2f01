import { encodeGlobalID } from '@pothos/plugin-relay';
import type { ArgBuilder } from '@pothos/core';
import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { type ConnectionArgs, listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { compositeKey, decodeKnownGlobalId, platformKey, readingId, splitKey } from './kit/ids.js';
import {
  disableInstallation,
  enableInstallation,
  getInstallation,
  getIntegration,
  getIntegrationEvent,
  getSiteInstallation,
  getSpaceInstallation,
  installIntegration,
  listInstallations,
  listInstallationSites,
  listInstallationSpaces,
  listIntegrationEvents,
  type IntegrationEvent,
  type IntegrationFilters,
  listIntegrations,
  listIntegrationSites,
  listIntegrationSpaces,
  listOrganizationIntegrations,
  listSiteIntegrations,
  listSiteIntegrationScripts,
  listSpaceIntegrations,
  publishIntegration,
  uninstallIntegration,
  unpublishIntegration,
  updateInstallation,
  updateTargetInstallation,
} from '../upstream/integrations.js';
import type { RestPages } from '../upstream/operation.js';
import type {
  Event,
  IntegrationCategory,
  IntegrationEventLog,
  IntegrationInstallation as Installation,
  Integration,
  IntegrationScope,
  IntegrationSiteInstallation as SiteInstallation,
  IntegrationSpaceInstallation as SpaceInstallation,
  IntegrationTarget,
  IntegrationVisibility,
  IntegrationInstallationStatus,
  PublishIntegration,
} from '../upstream/contract/types.js';
import { S } from '../upstream/contract/schemas.js';
import { organizationOfSite } from '../upstream/sites.js';
import { builder, type SchemaTypesOf } from './kit/builder.js';
import { linkTo, loadableNode, loadOrThrow, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { deletedPayload, deletionOf, edgeField, objectPayload, payloadType } from './kit/payloads.js';
import { idInput, ownedIdInput } from './kit/ids.js';
import { restBody } from './kit/mutations.js';
import { restEnum } from './kit/enums.js';
import { primeSites, SiteRef, siteLink, type SiteHeld } from './sites/site.js';
import { SiteScript } from './sites/access.js';
import { SpaceNode } from './spaces.js';

/**
 * Integrations (found by name), their installations on organizations and on spaces and sites,
 * and the events they receive with the trace of their delivery. An installation's and an
 * event's global IDs carry the integration's name.
 */

type InstallationHeld = Installation & { integrationName: string };
type EventHeld = IntegrationEvent & {
  integrationName: string;
  trace?: IntegrationEventLog[];
};

export const IntegrationNode = loadableNode<Integration & { id: string }>('Integration', {
  key: (integration) => integration.name,
  load: async (name, ctx) => ({ ...(await getIntegration(ctx.api, name)), id: name }),
});

export const IntegrationInstallationNode = loadableNode<InstallationHeld>('IntegrationInstallation', {
  key: (held) => compositeKey(held.integrationName, held.id),
  load: async (key, ctx) => {
    const [integrationName, id] = splitKey(key, 2, 'IntegrationInstallation') as [string, string];
    return {
      ...(await getInstallation(ctx.api, integrationName, id)),
      integrationName,
    };
  },
});

export const IntegrationEventNode = loadableNode<EventHeld>('IntegrationEvent', {
  key: (held) => compositeKey(held.integrationName, held.id),
  load: async (key, ctx) => {
    const [integrationName, id] = splitKey(key, 2, 'IntegrationEvent') as [string, string];
    const answer = await getIntegrationEvent(ctx.api, integrationName, id);
    return { ...answer.event, integrationName, trace: answer.trace?.logs ?? [] };
  },
});

/**
 * A link to an integration by name. When the selection asks for its id alone, a stub stands in
 * for the integration: the id resolves from `name` (its key) and no other field of the stub is
 * read, so the cast of the partial object is sound.
 */
export const integrationLink = (name: string, info: GraphQLResolveInfo) =>
  linkTo(IntegrationNode, name, info, () => ({ id: name, name }) as Integration & { id: string });

/** Primes integrations, and their owners when the answer embeds them whole. */
export const primeIntegrations = (ctx: GatewayContext, items: Iterable<Integration>) => {
  const held = Array.from(items, (item) => ({ ...item, id: item.name }));
  prime(IntegrationNode, ctx, held);
  prime(
    OrganizationNode,
    ctx,
    // The owner is the organization its own domain reads, embedded whole.
    held.map((item) => item.owner as Exclude<typeof OrganizationNode.$inferType, string>),
  );
  return held;
};
export const primeInstallations = (ctx: GatewayContext, integrationName: string, items: Iterable<Installation>) => {
  const held = Array.from(items, (item) => ({ ...item, integrationName }));
  prime(IntegrationInstallationNode, ctx, held);
  return held;
};

const TargetEnum = restEnum('IntegrationTarget', 'What an integration can be installed on.', {
  all: 'Organizations, and their spaces and sites.',
  site: 'Sites.',
  space: 'Spaces.',
  organization: 'Organizations alone.',
} satisfies Record<IntegrationTarget, string>);

const VisibilityEnum = restEnum('IntegrationVisibility', 'Who can find and install an integration.', {
  public: 'Anyone, listed in the marketplace.',
  unlisted: 'Anyone who knows its name; not listed.',
  private: 'Members of the organization that publishes it.',
} satisfies Record<IntegrationVisibility, string>);

export const InstallationStatusEnum = restEnum('IntegrationInstallationStatus', 'Whether an installation works.', {
  active: 'Configured and working.',
  pending: 'Waiting for configuration the integration requires.',
  paused: 'Paused.',
} satisfies Record<IntegrationInstallationStatus, string>);

const SelectionEnum = restEnum('IntegrationContentSelection', 'Which spaces or sites an installation covers.', {
  all: 'Every one of the organization.',
  selected: 'Those it is enabled on.',
});

const EventStatusEnum = restEnum('IntegrationEventStatus', 'Where the delivery of an event stands.', {
  pending: 'Not delivered yet (waiting, or between two tries).',
  success: 'Delivered: the integration answered with a success status.',
  failed: 'Not delivered after every try (or the integration has no endpoint to deliver to).',
} satisfies Record<IntegrationEvent['status'], string>);

const SCOPES = {
  'space:content:read': 'Reads the content of spaces.',
  'space:content:write': 'Writes the content of spaces.',
  'space:metadata:read': 'Reads the settings of spaces.',
  'space:metadata:write': 'Changes the settings of spaces.',
  'space:git:sync': 'Synchronizes spaces with Git.',
  'page:feedback:read': 'Reads the feedback readers give on pages.',
  'site:metadata:read': 'Reads the settings of sites.',
  'site:views:read': 'Reads the page views of sites.',
  'site:script:inject': 'Adds a script to published sites.',
  'site:script:cookies': 'Lets its script on published sites use cookies.',
  'site:visitor:auth': 'Authenticates the visitors of sites.',
  'site:visitor:claims': 'Gives claims to the visitors of sites (adaptive content).',
  'site:adaptive:read': 'Reads the adaptive schema of sites.',
  'site:adaptive:write': 'Changes the adaptive schema of sites.',
  'conversations:ingest': 'Ingests support conversations.',
  'openapi:read': 'Reads OpenAPI specifications.',
  'openapi:write': 'Writes OpenAPI specifications.',
} satisfies Record<IntegrationScope, string>;
const ScopeEnum = restEnum('IntegrationScope', 'What an integration may access.', SCOPES);

const CATEGORIES = {
  analytics: 'Analytics.',
  collaboration: 'Collaboration.',
  content: 'Content.',
  marketing: 'Marketing.',
  'visitor-auth': 'Visitor authentication.',
  other: 'Anything else.',
} satisfies Record<IntegrationCategory, string>;
const CategoryEnum = restEnum('IntegrationCategory', 'A marketplace category of integrations.', CATEGORIES);

type Runtime = PublishIntegration['runtime'];
const RUNTIMES = {
  v1: 'The first runtime (the default).',
  v2: 'The second runtime.',
} satisfies Record<Runtime, string>;
const RuntimeEnum = restEnum('IntegrationRuntime', 'The runtime an integration’s script runs in.', RUNTIMES);

const LogLevelEnum = restEnum('IntegrationEventLogLevel', 'How much a line of an event’s trace matters.', {
  debug: 'Detail, for debugging.',
  info: 'Something that went as expected.',
  warn: 'Something to look at.',
  error: 'A failure.',
} satisfies Record<NonNullable<IntegrationEventLog['level']>, string>);

/** The event types the description names (`Event`): the tag of each kind of payload. */
const EVENT_TYPES = Object.keys({
  installation_setup: true,
  installation_deleted: true,
  space_installation_setup: true,
  space_installation_deleted: true,
  site_installation_setup: true,
  site_installation_deleted: true,
  site_view: true,
  space_content_updated: true,
  space_gitsync_completed: true,
  space_gitsync_started: true,
  space_visibility_updated: true,
  task: true,
  fetch: true,
  fetch_published_script: true,
  fetch_visitor_authentication: true,
  ui_render: true,
  content_compute_document: true,
  content_compute_revision: true,
  page_feedback: true,
} satisfies Record<Event['type'], true>) as Array<Event['type']>;

const EventTypeEnum = builder.enumType('IntegrationEventType', {
  description: 'What happened, as an event an integration receives.',
  values: Object.fromEntries(
    EVENT_TYPES.map((type) => [type.toUpperCase(), { value: type, description: `The \`${type}\` event.` }]),
  ) as Record<string, { value: Event['type']; description: string }>,
});

/** A block with the integration it belongs to: block ids are unique within one integration only. */
export type BlockHeld = NonNullable<Integration['blocks']>[number] & { integration: string };

export const IntegrationBlock = builder.objectRef<BlockHeld>('IntegrationBlock').implement({
  description: 'A block an integration adds to the editor.',
  fields: (t) => ({
    id: t.id({
      description:
        "Unique across every integration (its integration's name with the block's id), for normalized caches; no `node(id:)` reads it: reach a block through its integration.",
      resolve: (b) => encodeGlobalID('IntegrationBlock', compositeKey(b.integration, b.id)),
    }),
    blockId: t.string({ description: 'Id of the block within its integration.', resolve: (b) => b.id }),
    title: t.string({ description: 'Title shown in the editor.', resolve: (b) => b.title }),
    description: t.string({ nullable: true, description: 'What it does.', resolve: (b) => b.description ?? null }),
    icon: t.string({ nullable: true, description: 'Its icon.', resolve: (b) => b.icon ?? null }),
    urlUnfurl: t.field({
      type: ['String'],
      description: 'URL patterns it turns into the block when pasted.',
      resolve: (b) => b.urlUnfurl ?? [],
    }),
  }),
});

const ExternalLink = builder.objectRef<Integration['externalLinks'][number]>('IntegrationExternalLink').implement({
  description: 'A link about an integration (documentation, support).',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'Where it points.' }),
    label: t.exposeString('label', { description: 'Its text.' }),
  }),
});

const IntegrationInstallationEdge = builder.edgeObject({
  type: IntegrationInstallationNode,
  name: 'IntegrationInstallationEdge',
  description: 'An installation of a list, with its cursor.',
});

export const InstallationConnection = builder.connectionObject(
  {
    type: IntegrationInstallationNode,
    name: 'IntegrationInstallationConnection',
    description: 'A page of installations, with the size of the whole list.',
  },
  IntegrationInstallationEdge,
);
const EventConnection = builder.connectionObject(
  {
    type: IntegrationEventNode,
    name: 'IntegrationEventConnection',
    description: 'A page of events, newest first, with the size of the whole list.',
  },
  { name: 'IntegrationEventEdge', description: 'An event of a list, with its cursor.' },
);

type SpaceItem = SpaceInstallation & { organizationId?: string | undefined };
type SiteItem = SiteInstallation & { organizationId?: string | undefined };

/** The key of an installation on a space or a site in its lists: the space's or the site's id (see `restConnection`). */
const contentItemKey = (item: SpaceItem | SiteItem): string => {
  const target = 'space' in item ? item.space : item.site;
  return typeof target === 'string' ? target : target.id;
};

const SpaceInstallationType = builder.objectRef<SpaceItem>('IntegrationSpaceInstallation');
const SiteInstallationType = builder.objectRef<SiteItem>('IntegrationSiteInstallation');

const IntegrationSpaceInstallationEdge = builder.edgeObject({
  type: SpaceInstallationType,
  name: 'IntegrationSpaceInstallationEdge',
  description: 'An installation on a space, with its cursor.',
});

const SpaceInstallationConnection = builder.connectionObject(
  {
    type: SpaceInstallationType,
    name: 'IntegrationSpaceInstallationConnection',
    description: 'A page of installations on spaces, with the size of the whole list.',
  },
  IntegrationSpaceInstallationEdge,
);
const IntegrationSiteInstallationEdge = builder.edgeObject({
  type: SiteInstallationType,
  name: 'IntegrationSiteInstallationEdge',
  description: 'An installation on a site, with its cursor.',
});

const SiteInstallationConnection = builder.connectionObject(
  {
    type: SiteInstallationType,
    name: 'IntegrationSiteInstallationConnection',
    description: 'A page of installations on sites, with the size of the whole list.',
  },
  IntegrationSiteInstallationEdge,
);

/** Reads space installations (extended: the spaces come with them) and primes the spaces. */
async function listSpaceItems(ctx: GatewayContext, args: ConnectionArgs, pages: RestPages<SpaceInstallation>) {
  const connection = await listConnection(args, pages, contentItemKey);
  prime(
    SpaceNode,
    ctx,
    connection.edges.flatMap((edge) => (typeof edge.node.space === 'string' ? [] : [edge.node.space])),
  );
  return connection;
}

async function listSiteItems(
  ctx: GatewayContext,
  args: ConnectionArgs,
  pages: RestPages<SiteInstallation>,
  organizationId?: string,
) {
  const connection = await listConnection(args, pages, contentItemKey);
  for (const edge of connection.edges) {
    const site = edge.node.site;
    if (typeof site === 'string') continue;
    const org = organizationOfSite(site) ?? organizationId;
    if (org) primeSites(ctx, org, [site]);
  }
  return mapNodes(connection, (items) => items.map((item) => ({ ...item, organizationId })));
}

IntegrationNode.implement({
  description: 'An integration of the marketplace (or a private one of your organization), found by its name.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Its unique name (letters, digits, "-", "_", ".").' }),
    version: t.exposeInt('version', {
      description: 'Number of its current version: each publication makes a new one.',
    }),
    title: t.exposeString('title', { description: 'Its title.' }),
    description: t.string({ description: 'What it does, in a sentence.', resolve: (i) => i.description ?? '' }),
    summary: t.string({
      nullable: true,
      description: 'A longer presentation (markdown).',
      resolve: (i) => i.summary ?? null,
    }),
    iconUrl: t.string({
      nullable: true,
      description: 'Its icon (a signed URL).',
      resolve: (i) => i.urls.icon ?? null,
    }),
    previewImages: t.field({
      type: ['String'],
      description: 'URLs of its preview images (signed).',
      resolve: (i) => i.previewImages,
    }),
    target: t.field({ type: TargetEnum, description: 'What it can be installed on.', resolve: (i) => i.target }),
    visibility: t.field({
      type: VisibilityEnum,
      description: 'Who can find and install it.',
      resolve: (i) => i.visibility,
    }),
    verified: t.exposeBoolean('verified', { description: 'Whether the platform verified it.' }),
    scopes: t.field({ type: [ScopeEnum], description: 'What it may access.', resolve: (i) => i.scopes }),
    categories: t.field({
      type: [CategoryEnum],
      description: 'Its marketplace categories.',
      resolve: (i) => i.categories,
    }),
    blocks: t.field({
      type: [IntegrationBlock],
      description: 'Blocks it adds to the editor.',
      resolve: (i) => (i.blocks ?? []).map((block) => ({ ...block, integration: i.name })),
    }),
    contentSources: t.field({
      type: 'JSON',
      description: 'Content sources it provides (computed content).',
      resolve: (i) => i.contentSources ?? [],
    }),
    configurations: t.field({
      type: 'JSON',
      nullable: true,
      description: 'What its installations are configured with: `account`, `space` and `site` configurations.',
      resolve: (i) => i.configurations ?? null,
    }),
    externalLinks: t.field({ type: [ExternalLink], description: 'Links about it.', resolve: (i) => i.externalLinks }),
    appUrl: t.string({
      nullable: true,
      description: 'Its page in the app.',
      resolve: (i) => i.urls.app,
    }),
    canAdmin: t.boolean({
      description: 'Whether you may publish new versions, unpublish it and read its events (admins of its owner).',
      resolve: (i) => i.permissions.admin === true,
    }),
    owner: t.field({
      type: OrganizationNode,
      description: 'The organization that publishes it.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => linkTo(OrganizationNode, i.owner.id, info),
    }),
    installations: t.connection(
      {
        type: IntegrationInstallationNode,
        description:
          'Its installations you can see: every one for admins of its owner, those of your organizations otherwise.',
        args: { externalId: t.arg.string({ description: 'Only the installation with this external id.' }) },
        resolve: async (i, args, ctx) => {
          const connection = await listConnection(
            args,
            listInstallations(ctx.api, i.name, { externalId: args.externalId ?? undefined }),
          );
          return mapNodes(connection, (items) => primeInstallations(ctx, i.name, items));
        },
      },
      InstallationConnection,
    ),
    spaceInstallations: t.connection(
      {
        type: SpaceInstallationType,
        description: 'The spaces it is enabled on, across the installations you can see (the spaces come with them).',
        args: { externalId: t.arg.string({ description: 'Only the installation on a space with this external id.' }) },
        resolve: (i, args, ctx) =>
          listSpaceItems(ctx, args, listIntegrationSpaces(ctx.api, i.name, args.externalId ?? undefined)),
      },
      SpaceInstallationConnection,
    ),
    siteInstallations: t.connection(
      {
        type: SiteInstallationType,
        description: 'The sites it is enabled on, across the installations you can see (the sites come with them).',
        args: { externalId: t.arg.string({ description: 'Only the installation on a site with this external id.' }) },
        resolve: (i, args, ctx) =>
          listSiteItems(ctx, args, listIntegrationSites(ctx.api, i.name, args.externalId ?? undefined)),
      },
      SiteInstallationConnection,
    ),
    events: t.connection(
      {
        type: IntegrationEventNode,
        nullable: true,
        description: 'Events it received, newest first (admins of its owner; FORBIDDEN for others).',
        resolve: async (i, args, ctx) => {
          const connection = await listConnection(args, listIntegrationEvents(ctx.api, i.name));
          return mapNodes(connection, (items) => {
            const held = items.map((item) => ({ ...item, integrationName: i.name }));
            prime(IntegrationEventNode, ctx, held);
            return held;
          });
        },
      },
      EventConnection,
    ),
  }),
});

IntegrationInstallationNode.implement({
  description: 'An integration installed on an organization; it can then be enabled on its spaces and sites.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the installation on the platform.' }),
    status: t.field({ type: InstallationStatusEnum, description: 'Whether it works.', resolve: (i) => i.status }),
    spaceSelection: t.field({
      type: SelectionEnum,
      description: 'Which spaces it covers.',
      resolve: (i) => i.space_selection,
    }),
    siteSelection: t.field({
      type: SelectionEnum,
      description: 'Which sites it covers.',
      resolve: (i) => i.site_selection,
    }),
    spaceCount: t.exposeInt('spaces', { description: 'Number of spaces it covers.' }),
    configuration: t.field({
      type: 'JSON',
      description: 'Its account configuration.',
      resolve: (i) => i.configuration,
    }),
    externalIds: t.field({
      type: ['String'],
      description: 'Ids it has in the integration’s own service.',
      resolve: (i) => i.externalIds,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was installed.', resolve: (i) => i.createdAt }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last changed.',
      resolve: (i) => i.updatedAt ?? null,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it is installed on.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => linkTo(OrganizationNode, i.target.organization, info),
    }),
    integration: t.field({
      type: IntegrationNode,
      description: 'The integration installed.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => integrationLink(i.integrationName, info),
    }),
    spaceInstallations: t.connection(
      {
        type: SpaceInstallationType,
        description: 'The spaces it is enabled on (the spaces come with them).',
        resolve: (i, args, ctx) => listSpaceItems(ctx, args, listInstallationSpaces(ctx.api, i.integrationName, i.id)),
      },
      SpaceInstallationConnection,
    ),
    spaceInstallation: t.field({
      type: SpaceInstallationType,
      nullable: true,
      description: 'Its installation on one space; null with NOT_FOUND when it is not enabled there.',
      args: { spaceId: t.arg.id({ required: true, description: 'Platform id or global ID of the space.' }) },
      extensions: upstream.fetch(1),
      resolve: async (i, args, ctx) => {
        const spaceId = platformKey(String(args.spaceId), 'Space');
        const item = await getSpaceInstallation(ctx.api, i.integrationName, i.id, spaceId);
        if (typeof item.space !== 'string') prime(SpaceNode, ctx, [item.space]);
        return item;
      },
    }),
    siteInstallation: t.field({
      type: SiteInstallationType,
      nullable: true,
      description: 'Its installation on one site; null with NOT_FOUND when it is not enabled there.',
      args: { siteId: t.arg.id({ required: true, description: 'Platform id or global ID of the site.' }) },
      extensions: upstream.fetch(1),
      resolve: async (i, args, ctx) => {
        const key = platformKey(String(args.siteId), 'Site');
        const siteId = key.includes('/') ? (splitKey(key, 2, 'Site')[1] as string) : key;
        const item = await getSiteInstallation(ctx.api, i.integrationName, i.id, siteId);
        return { ...item, organizationId: i.target.organization };
      },
    }),
    siteInstallations: t.connection(
      {
        type: SiteInstallationType,
        description: 'The sites it is enabled on (the sites come with them).',
        resolve: (i, args, ctx) =>
          listSiteItems(ctx, args, listInstallationSites(ctx.api, i.integrationName, i.id), i.target.organization),
      },
      SiteInstallationConnection,
    ),
  }),
});

/** The fields installations on spaces and on sites share. */
function contentItemFields<T extends SpaceItem | SiteItem>(
  t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, T>,
  kind: 'space' | 'site',
) {
  return {
    status: t.field({
      type: InstallationStatusEnum,
      description: `Whether it works on the ${kind}.`,
      resolve: (i) => i.status,
    }),
    configuration: t.field({
      type: 'JSON',
      description: `Its configuration on the ${kind}.`,
      resolve: (i) => i.configuration,
    }),
    externalIds: t.field({
      type: ['String'],
      description: 'Ids it has in the integration’s own service.',
      resolve: (i) => i.externalIds,
    }),
    installation: t.field({
      type: IntegrationInstallationNode,
      description: 'The installation on the organization.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) =>
        linkTo(
          IntegrationInstallationNode,
          compositeKey(i.integration, i.installation),
          info,
          () => ({ id: i.installation, integrationName: i.integration }) as InstallationHeld,
        ),
    }),
    integration: t.field({
      type: IntegrationNode,
      description: 'The integration.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => integrationLink(i.integration, info),
    }),
  };
}

SpaceInstallationType.implement({
  description: 'An installation of an integration enabled on a space.',
  fields: (t) => ({
    ...contentItemFields(t, 'space'),
    spaceId: t.string({
      description: 'Platform id of the space.',
      resolve: (i) => (typeof i.space === 'string' ? i.space : i.space.id),
    }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space (comes with the installation when you may read it).',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => (typeof i.space === 'string' ? linkTo(SpaceNode, i.space, info) : i.space),
    }),
  }),
});

SiteInstallationType.implement({
  description: 'An installation of an integration enabled on a site.',
  fields: (t) => ({
    ...contentItemFields(t, 'site'),
    siteId: t.string({
      description: 'Platform id of the site.',
      resolve: (i) => (typeof i.site === 'string' ? i.site : i.site.id),
    }),
    site: t.field({
      type: SiteRef,
      nullable: true,
      description: 'The site (comes with the installation when you may read it).',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => {
        if (typeof i.site !== 'string') {
          const org = organizationOfSite(i.site) ?? i.organizationId;
          return org ? ({ ...i.site, organizationId: org } as SiteHeld) : null;
        }
        return i.organizationId ? siteLink(i.organizationId, i.site, info) : null;
      },
    }),
  }),
});

const TraceLog = builder.objectRef<NonNullable<EventHeld['trace']>[number]>('IntegrationEventLog').implement({
  description: 'A line of the trace of an event: an attempt to deliver it, say.',
  fields: (t) => ({
    message: t.string({
      description: 'What happened (a status and a duration, or an error).',
      resolve: (l) => l.message ?? '',
    }),
    level: t.field({
      type: LogLevelEnum,
      nullable: true,
      description: 'Its level.',
      resolve: (l) => l.level ?? null,
    }),
    timestamp: t.field({ type: 'DateTime', nullable: true, description: 'When.', resolve: (l) => l.timestamp ?? null }),
  }),
});

IntegrationEventNode.implement({
  description:
    'Something an integration was told about (an installation, content merged, a Git sync), with its delivery.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the event on the platform.' }),
    type: t.field({
      type: EventTypeEnum,
      nullable: true,
      description: 'What happened (the payload’s `type`); null for a type this gateway does not know.',
      resolve: (e) =>
        (EVENT_TYPES as readonly string[]).includes(e.payload.type) ? (e.payload.type as Event['type']) : null,
    }),
    status: t.field({
      type: EventStatusEnum,
      nullable: true,
      description: 'Where its delivery stands.',
      resolve: (e) => e.status ?? null,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it happened.', resolve: (e) => e.createdAt }),
    payload: t.field({ type: 'JSON', description: 'What the integration receives.', resolve: (e) => e.payload }),
    trace: t.field({
      type: [TraceLog],
      nullable: true,
      description:
        'The log of its delivery, an entry per attempt (read with the event: one request for an event of a list).',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) =>
        e.trace ?? (await getIntegrationEvent(ctx.api, e.integrationName, e.id)).trace?.logs ?? [],
    }),
    installation: t.field({
      type: IntegrationInstallationNode,
      nullable: true,
      description: 'The installation it concerns.',
      extensions: upstream.link,
      resolve: (e, _args, _ctx, info) =>
        e.installationId
          ? linkTo(
              IntegrationInstallationNode,
              compositeKey(e.integrationName, e.installationId),
              info,
              () => ({ id: e.installationId!, integrationName: e.integrationName }) as InstallationHeld,
            )
          : null,
    }),
    integration: t.field({
      type: IntegrationNode,
      description: 'The integration that received it.',
      extensions: upstream.link,
      resolve: (e, _args, _ctx, info) => integrationLink(e.integrationName, info),
    }),
  }),
});

const IntegrationConnection = builder.connectionObject(
  {
    type: IntegrationNode,
    name: 'IntegrationConnection',
    description: 'A page of integrations, with the size of the whole list.',
  },
  { name: 'IntegrationEdge', description: 'An integration of a list, with its cursor.' },
);

/** The search filters of an integration list, as arguments of its connection field. */
const filterArgs = (arg: ArgBuilder<SchemaTypesOf>) => ({
  search: arg.string({ description: 'Only those whose name or title contains this text (any case).' }),
  category: arg({ type: CategoryEnum, description: 'Only those of this category.' }),
  blockDomain: arg.string({ description: 'Only those with a block unfurling links of this domain.' }),
  blocks: arg.boolean({ description: 'Only those with blocks (true) or without (false).' }),
  contentSources: arg.boolean({ description: 'Only those with content sources (true) or without (false).' }),
  owner: arg.id({ description: 'Only those published by this organization (platform id or global ID).' }),
  scope: arg({ type: ScopeEnum, description: 'Only those with this scope.' }),
  target: arg({ type: TargetEnum, description: 'Only those that can be installed on this.' }),
});

/** The filter arguments as resolvers receive them. */
interface FilterArgs {
  search?: string | null | undefined;
  category?: string | null | undefined;
  blockDomain?: string | null | undefined;
  blocks?: boolean | null | undefined;
  contentSources?: boolean | null | undefined;
  owner?: string | number | null | undefined;
  scope?: string | null | undefined;
  target?: string | null | undefined;
}

/** The REST query of the filter arguments (those left out are not sent). */
const restFilters = (args: FilterArgs): IntegrationFilters => ({
  search: args.search ?? undefined,
  category: args.category ?? undefined,
  blockDomain: args.blockDomain ?? undefined,
  blocks: args.blocks ?? undefined,
  contentSources: args.contentSources ?? undefined,
  owner: args.owner ? platformKey(String(args.owner), 'Organization') : undefined,
  scope: args.scope ?? undefined,
  target: args.target ?? undefined,
});

/** Reads a page of integrations and primes them, with their owners. */
async function listIntegrationItems(ctx: GatewayContext, args: ConnectionArgs, pages: RestPages<Integration>) {
  const connection = await listConnection(args, pages);
  return mapNodes(connection, (items) => primeIntegrations(ctx, items));
}

builder.queryFields((t) => ({
  integrations: t.connection(
    {
      type: IntegrationNode,
      description: 'Integrations you can find: the public ones and those of your organizations.',
      args: filterArgs(t.arg),
      resolve: (_root, args, ctx) => listIntegrationItems(ctx, args, listIntegrations(ctx.api, restFilters(args))),
    },
    IntegrationConnection,
  ),
  integration: t.field({
    type: IntegrationNode,
    nullable: true,
    description: 'An integration by name; null with NOT_FOUND when there is none you can see.',
    args: { name: t.arg.string({ required: true, description: 'Its name (or its global ID).' }) },
    extensions: upstream.fetch(1),
    resolve: (_root, args, ctx) => loadOrThrow(IntegrationNode, ctx, platformKey(args.name, 'Integration')),
  }),
}));

builder.objectFields(OrganizationNode, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationNode,
      nullable: true,
      description:
        'Integrations available to the organization: every public one, and those it owns or installed. Null with NOT_FOUND when you are not a member, FORBIDDEN for a guest.',
      args: filterArgs(t.arg),
      resolve: (org, args, ctx) =>
        listIntegrationItems(ctx, args, listOrganizationIntegrations(ctx.api, org.id, restFilters(args))),
    },
    IntegrationConnection,
  ),
}));

builder.objectFields(SpaceNode, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationNode,
      description:
        'Integrations installed on the space: enabled on it, or installed on its organization for every space.',
      args: { search: filterArgs(t.arg).search },
      resolve: (space, args, ctx) =>
        listIntegrationItems(ctx, args, listSpaceIntegrations(ctx.api, space.id, { search: args.search ?? undefined })),
    },
    IntegrationConnection,
  ),
}));

/**
 * The integration a script's address names: `…/integrations/{name}/installations/…`, as the
 * embedded platform and the API's own integration service write them; undefined for another one.
 */
function integrationOfScript(url: string): string | undefined {
  const match = /\/integrations\/([^/]+)\/installations\//.exec(URL.parse(url)?.pathname ?? '');
  return match ? decodeURIComponent(match[1]!) : undefined;
}

builder.objectFields(SiteScript, (t) => ({
  integration: t.field({
    type: IntegrationNode,
    nullable: true,
    description:
      'The integration that adds it, read from its address (`…/integrations/{name}/installations/…`); null when the address names none. A private integration is NOT_FOUND to readers outside its organization.',
    extensions: upstream.link,
    resolve: (script, _args, _ctx, info) => {
      const name = integrationOfScript(script.script);
      return name ? integrationLink(name, info) : null;
    },
  }),
}));

builder.objectFields(SiteRef, (t) => ({
  integrations: t.connection(
    {
      type: IntegrationNode,
      nullable: true,
      description:
        'Integrations installed on the site: enabled on it, or installed on its organization for every site (members). Null with NOT_FOUND for others.',
      args: { search: filterArgs(t.arg).search },
      resolve: (site: SiteHeld, args, ctx) =>
        listIntegrationItems(
          ctx,
          args,
          listSiteIntegrations(
            ctx.api,
            { organizationId: site.organizationId, siteId: site.id },
            { search: args.search ?? undefined },
          ),
        ),
    },
    IntegrationConnection,
  ),
  integrationScripts: t.field({
    type: [SiteScript],
    nullable: true,
    description:
      'Scripts its integrations add to its published pages: those installed and active on it with the `SITE_SCRIPT_INJECT` scope (members). Null with NOT_FOUND for others.',
    extensions: upstream.fetch(1),
    resolve: (site: SiteHeld, _args, ctx) =>
      listSiteIntegrationScripts(ctx.api, { organizationId: site.organizationId, siteId: site.id }),
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

/** An integration named by a client: its name, or its global ID. */
export const integrationName = z
  .string()
  .trim()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .transform(readingId((value) => platformKey(value, 'Integration')))
  .refine((value) => /^[a-zA-Z0-9-_.]+$/.test(value), 'must be letters, digits, "-", "_" or "."');

const ConfigurationsInput = inputObject('IntegrationConfigurationsInput', {
  description:
    'What installations of an integration are configured with, at each level: a `{ properties, required }` schema or a `{ componentId }`.',
  fields: {
    account: inputField(
      'JSON',
      'Configuration of an installation on an organization.',
      z.record(z.string(), z.unknown()).nullish(),
    ),
    space: inputField('JSON', 'Configuration on a space.', z.record(z.string(), z.unknown()).nullish()),
    site: inputField('JSON', 'Configuration on a site.', z.record(z.string(), z.unknown()).nullish()),
  },
});

const ExternalLinkInput = inputObject('IntegrationExternalLinkInput', {
  description: 'A link about an integration.',
  fields: {
    url: inputField(
      'String',
      'Where it points (http or https).',
      z
        .string()
        .url('must be an absolute URL')
        .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL'),
    ),
    label: inputField(
      'String',
      'Its text, 1 to 100 characters.',
      z.string().min(1, 'must be 1 to 100 characters').max(100, 'must be 1 to 100 characters'),
    ),
  },
});

declareMutation('publishIntegration', {
  description:
    'Publishes an integration, or a new version of it (admins of the owner organization). Secrets are stored encrypted and never answered; left out on a new version, the stored ones stay.',
  input: 'The integration: its name, owner, presentation, script and what it may access.',
  fields: {
    name: inputField(
      'String',
      'Its unique name: letters, digits, "-", "_" or ".", at most 100 characters.',
      integrationName,
    ),
    organizationId: organizationIdField,
    title: inputField(
      'String',
      'Its title, 2 to 30 characters.',
      z.string().min(2, 'must be 2 to 30 characters').max(30, 'must be 2 to 30 characters'),
    ),
    description: inputField(
      'String',
      'What it does, at most 100 characters.',
      z.string().max(100, 'must be at most 100 characters'),
    ),
    summary: inputField(
      'String',
      'A longer presentation (markdown), at most 2048 characters.',
      z.string().max(2048, 'must be at most 2048 characters').nullish(),
    ),
    script: inputField(
      'String',
      'Its code (JavaScript), at most 5 MiB.',
      z
        .string()
        .min(1, 'must not be empty')
        .max(5 * 1024 * 1024, 'must be at most 5 MiB'),
    ),
    scopes: inputField([ScopeEnum], 'What it may access.', z.array(S.IntegrationScope).max(Object.keys(SCOPES).length)),
    categories: inputField(
      [CategoryEnum],
      'Its marketplace categories.',
      z.array(S.IntegrationCategory).max(Object.keys(CATEGORIES).length).nullish(),
    ),
    visibility: inputField(
      VisibilityEnum,
      'Who can find and install it (default PRIVATE).',
      S.IntegrationVisibility.nullish(),
    ),
    target: inputField(TargetEnum, 'What it can be installed on (default ALL).', S.IntegrationTarget.nullish()),
    runtime: inputField(
      RuntimeEnum,
      'Runtime of its script (default V1).',
      z.enum(Object.keys(RUNTIMES) as [Runtime]).nullish(),
    ),
    icon: inputField(
      'String',
      'Its icon: a base64 PNG, JPEG, GIF or WebP image, at most 250 KB.',
      z.string().max(400_000, 'must be at most 250 KB').nullish(),
    ),
    previewImages: inputField(
      ['String'],
      'Up to 3 preview images, base64 PNG, JPEG, GIF or WebP, at most 1 MB each.',
      z.array(z.string()).max(3, 'must have at most 3 images').nullish(),
    ),
    blocks: inputField(
      'JSON',
      'Blocks it adds to the editor: `[{ id, title, description, icon, urlUnfurl, markdown }]`.',
      z.array(z.record(z.string(), z.unknown())).max(50).nullish(),
    ),
    contentSources: inputField(
      'JSON',
      'Content sources it provides: `[{ id, title, description, configuration: { componentId } }]`.',
      z.array(z.record(z.string(), z.unknown())).max(50).nullish(),
    ),
    configurations: inputField(
      ConfigurationsInput.type,
      'What its installations are configured with.',
      ConfigurationsInput.schema.nullish(),
    ),
    externalLinks: inputField(
      [ExternalLinkInput.type],
      'Up to 5 links about it.',
      z.array(ExternalLinkInput.schema).max(5, 'must have at most 5 links').nullish(),
    ),
    secrets: inputField(
      'JSON',
      'Secrets its script reads, as a map of strings (at most 20; names of 1 to 100 letters, digits, "_", "." or "-"; values of at most 10000 characters); stored encrypted, never answered.',
      z
        .record(
          z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'names secrets with 1 to 100 letters, digits, "_", "." or "-"'),
          z.string().max(10_000, 'must be at most 10000 characters'),
        )
        .refine((s) => Object.keys(s).length <= 20, 'must have at most 20 secrets')
        .nullish(),
    ),
    contentSecurityPolicy: inputField(
      'JSON',
      'Content security policy of what it renders: a string or an object of directives.',
      z.union([z.string(), z.record(z.string(), z.string())]).nullish(),
    ),
    endpoint: inputField(
      'String',
      'Where its events are delivered: an https URL without credentials (the platform signs each delivery).',
      z
        .string()
        .max(2048, 'must be at most 2048 characters')
        .url('must be an absolute URL')
        .refine(
          (v) => /^https?:\/\//i.test(v) && !/^https?:\/\/[^/?#]*@/i.test(v),
          'must be an https URL without credentials',
        )
        .nullish(),
    ),
  },
  payload: (name) => objectPayload(name, 'integration', IntegrationNode, 'The integration as published.'),
  run: async (i, ctx) => {
    const { name, organizationId, configurations, ...rest } = i;
    const body = {
      ...restBody(rest),
      organization: organizationId,
      ...(configurations ? { configurations: restBody(configurations) } : {}),
      categories: rest.categories ?? [],
    };
    const integration = await publishIntegration(ctx.api, name, body);
    return { integration: primeIntegrations(ctx, [integration])[0]! };
  },
});

declareMutation('unpublishIntegration', {
  description: 'Unpublishes an integration (admins of its owner): it is deleted with its installations and events.',
  input: 'The integration to unpublish.',
  fields: { name: inputField('String', 'Its name (or Integration global ID).', integrationName) },
  payload: (name) => deletedPayload(name, 'True when it was unpublished, false when there was none.'),
  run: (i, ctx) => deletionOf('Integration', i.name, unpublishIntegration(ctx.api, i.name)),
});

const InstallationPayload = (name: string, description = 'The installation after the change.') =>
  objectPayload(name, 'installation', IntegrationInstallationNode, description);

declareMutation('installIntegration', {
  description:
    'Installs an integration on an organization (its admins); PENDING until it is given the configuration it requires. A second installation is CONFLICT.',
  input: 'The integration and the organization.',
  fields: {
    integrationName: inputField('String', 'Name of the integration (or Integration global ID).', integrationName),
    organizationId: organizationIdField,
  },
  payload: (name) =>
    objectPayload(name, 'installation', IntegrationInstallationNode, 'The new installation.', {
      type: IntegrationInstallationEdge,
      what: 'installation',
      lists: '`Integration.installations`',
    }),
  run: async (i, ctx) => {
    const installation = await installIntegration(ctx.api, i.integrationName, i.organizationId);
    return { installation: primeInstallations(ctx, i.integrationName, [installation])[0]! };
  },
});

/** The fields naming an installation: its global ID, or its platform id with `integrationName`. */
export const installationTarget = {
  integrationName: inputField(
    'String',
    'Name of the integration; required when `installationId` is a platform id.',
    z.string().trim().min(1).nullish(),
  ),
  installationId: inputField(
    'ID',
    'The installation: its global ID, or its platform id with `integrationName`.',
    z.string().trim().min(1, 'must be the id of an IntegrationInstallation'),
  ),
};

/** The integration and platform id of an installation named by `installationTarget`, or the issue of a bad one. */
export function resolveInstallation<T extends { integrationName?: string | null; installationId: string }>(
  value: T,
  ctx: z.RefinementCtx,
): Omit<T, 'integrationName' | 'installationId'> & { integrationName: string; installationId: string } {
  if (decodeKnownGlobalId(value.installationId)) {
    try {
      const [integrationName, installationId] = splitKey(
        platformKey(value.installationId, 'IntegrationInstallation'),
        2,
        'IntegrationInstallation',
      ) as [string, string];
      if (value.integrationName != null && value.integrationName !== integrationName) {
        ctx.addIssue({
          code: 'custom',
          path: ['integrationName'],
          message: 'is not the integration of the installation',
        });
        return z.NEVER;
      }
      return { ...value, integrationName, installationId };
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['installationId'], message: (error as Error).message });
      return z.NEVER;
    }
  }
  if (value.integrationName == null) {
    ctx.addIssue({
      code: 'custom',
      path: ['integrationName'],
      message: 'is required when installationId is not a global ID',
    });
    return z.NEVER;
  }
  return { ...value, integrationName: value.integrationName, installationId: value.installationId };
}

const externalIds = z.array(z.string().min(1).max(200)).max(5, 'must have at most 5 ids');

declareMutation('updateIntegrationInstallation', {
  description:
    'Changes an installation (admins of its organization): its configuration (checked against what the integration requires), external ids, and which spaces and sites it covers.',
  input: 'The installation and what to change; fields left out stay.',
  fields: {
    ...installationTarget,
    configuration: inputField(
      'JSON',
      'Its new account configuration (replaces the old one).',
      z.record(z.string(), z.unknown()).nullish(),
    ),
    externalIds: inputField(
      ['String'],
      'Ids it has in the integration’s own service (at most 5).',
      externalIds.nullish(),
    ),
    spaceSelection: inputField(SelectionEnum, 'Which spaces it covers.', z.enum(['all', 'selected']).nullish()),
    siteSelection: inputField(SelectionEnum, 'Which sites it covers.', z.enum(['all', 'selected']).nullish()),
  },
  check: (input) =>
    input.transform(resolveInstallation).superRefine((value, ctx) => {
      if (
        value.configuration == null &&
        value.externalIds == null &&
        value.spaceSelection == null &&
        value.siteSelection == null
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['configuration'],
          message: 'Give configuration, externalIds, spaceSelection or siteSelection to change',
        });
      }
    }),
  payload: InstallationPayload,
  run: async (i, ctx) => {
    const body = restBody({
      configuration: i.configuration,
      externalIds: i.externalIds,
      space_selection: i.spaceSelection,
      site_selection: i.siteSelection,
    });
    const installation = await updateInstallation(ctx.api, i.integrationName, i.installationId, body);
    return { installation: primeInstallations(ctx, i.integrationName, [installation])[0]! };
  },
});

declareMutation('uninstallIntegration', {
  description:
    'Uninstalls an integration from an organization (its admins), with its installations on spaces and sites.',
  input: 'The installation to remove.',
  fields: installationTarget,
  check: (input) => input.transform(resolveInstallation),
  payload: (name) => deletedPayload(name, 'True when it was uninstalled, false when there was no such installation.'),
  run: (i, ctx) =>
    deletionOf(
      'IntegrationInstallation',
      compositeKey(i.integrationName, i.installationId),
      uninstallIntegration(ctx.api, i.integrationName, i.installationId),
    ),
});

/** A site named by a client: its platform id, or a Site global ID (organization and site). */
const siteIdInput = ownedIdInput('Site');

// Installations on spaces and sites: enable, change and disable, the same way for both.
for (const kind of ['space', 'site'] as const) {
  const Kind = kind === 'space' ? 'Space' : 'Site';
  const idField = `${kind}Id` as const;
  const type = kind === 'space' ? SpaceInstallationType : SiteInstallationType;
  const targetId = inputField(
    'ID',
    `The ${kind}: platform id or global ID (a ${kind} of the installation’s organization).`,
    kind === 'space' ? idInput('Space') : siteIdInput,
  );
  // A computed key widens to an index signature: the type names the one field it adds.
  const target = { ...installationTarget, [idField]: targetId } as typeof installationTarget &
    Record<typeof idField, typeof targetId>;
  const payload = (name: string, description: string, made = false) =>
    payloadType<{ item: SpaceItem | SiteItem }>(name, (t) => ({
      [`${kind}Installation`]: t.field({
        type,
        nullable: true,
        description,
        resolve: (p) => p.item ?? null,
      }),
      ...(made
        ? {
            [`${kind}InstallationEdge`]: edgeField(
              t,
              {
                type: kind === 'space' ? IntegrationSpaceInstallationEdge : IntegrationSiteInstallationEdge,
                what: `installation on the ${kind}`,
                lists: `\`Integration.${kind}Installations\` and \`IntegrationInstallation.${kind}Installations\``,
                key: contentItemKey,
              },
              (p) => p.item,
            ),
          }
        : {}),
    }));
  const payloadOf = async (ctx: GatewayContext, written: Promise<SpaceInstallation | SiteInstallation>) => {
    const item: SpaceItem | SiteItem = await written;
    if ('space' in item && typeof item.space !== 'string') prime(SpaceNode, ctx, [item.space]);
    return { item };
  };

  declareMutation(`installIntegrationOn${Kind}`, {
    description: `Enables an installation on a ${kind} (${kind === 'space' ? 'admins of the space' : 'admins of the organization'}); PENDING until it has the ${kind} configuration the integration requires.`,
    input: `The installation and the ${kind}.`,
    fields: target,
    check: (input) => input.transform(resolveInstallation),
    payload: (name) => payload(name, `The installation on the ${kind}.`, true),
    run: (input, ctx) => {
      return payloadOf(
        ctx,
        enableInstallation(ctx.api, input.integrationName, input.installationId, kind, {
          [kind === 'space' ? 'space' : 'siteId']: input[idField],
        }),
      );
    },
  });

  declareMutation(`updateIntegration${Kind}Installation`, {
    description: `Changes the configuration or external ids of an installation on a ${kind}.`,
    input: `The installation, the ${kind}, and what to change.`,
    fields: {
      ...target,
      configuration: inputField(
        'JSON',
        `Its new configuration on the ${kind} (replaces the old one).`,
        z.record(z.string(), z.unknown()).nullish(),
      ),
      externalIds: inputField(
        ['String'],
        'Ids it has in the integration’s own service (at most 5).',
        externalIds.nullish(),
      ),
    },
    check: (input) =>
      input.transform(resolveInstallation).superRefine((value, ctx) => {
        if (value.configuration == null && value.externalIds == null)
          ctx.addIssue({
            code: 'custom',
            path: ['configuration'],
            message: 'Give configuration or externalIds to change',
          });
      }),
    payload: (name) => payload(name, `The installation on the ${kind} after the change.`),
    run: (input, ctx) => {
      return payloadOf(
        ctx,
        updateTargetInstallation(
          ctx.api,
          input.integrationName,
          input.installationId,
          kind,
          input[idField],
          restBody({ configuration: input.configuration, externalIds: input.externalIds }),
        ),
      );
    },
  });

  declareMutation(`uninstallIntegrationFrom${Kind}`, {
    description: `Disables an installation on a ${kind}.`,
    input: `The installation and the ${kind}.`,
    fields: target,
    check: (input) => input.transform(resolveInstallation),
    payload: (name) =>
      deletedPayload(name, `True when it was disabled on the ${kind}, false when it was not enabled there.`),
    run: (input, ctx) => {
      return disableInstallation(ctx.api, input.integrationName, input.installationId, kind, input[idField]);
    },
  });
}
