import type { GraphQLResolveInfo } from 'graphql';
import { listConnection, mapNodes, type ConnectionArgs } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { compositeKey, decodeKnownGlobalId, platformKey, splitKey } from '../kit/ids.js';
import { selectsOnlyKeys } from '../kit/links.js';
import type { Site, SiteType, SiteVisibility } from '../../upstream/contract/types.js';
import { getSite, getSiteStructure, listSites as listSitesUpstream } from '../../upstream/sites.js';
import { follow, ownedTarget } from '../kit/live.js';
import { builder } from '../kit/builder.js';
import { linkTo, organizationNode, primeInOrganization, type InOrganization } from '../kit/loaders.js';
import { DefaultContentType, OrganizationNode } from '../organizations.js';
import { DefaultLevelEnum, restEnum } from '../kit/enums.js';
import { permissionsType } from '../kit/permissions.js';
import { SpaceNode } from '../spaces.js';

/**
 * Docs sites: a site publishes spaces of its organization, arranged in its structure (see
 * `structure.ts`). A site's global ID carries its organization, whose REST paths hold it.
 */

/** A site as the gateway holds it: the REST site plus its organization. */
export type SiteHeld = InOrganization<Site>;

export const SiteRef = organizationNode<Site>('Site', (organizationId, siteId, ctx) =>
  getSite(ctx.api, { organizationId, siteId }),
);

/** The loader key (and global ID payload) of a site. */
export const siteKey = (organizationId: string, siteId: string) => compositeKey(organizationId, siteId);

/** Puts sites of `organizationId` that arrived in a list or a write answer into the loader; returns them as held. */
export function primeSites(ctx: GatewayContext, organizationId: string, sites: Iterable<Site>): SiteHeld[] {
  return primeInOrganization(SiteRef, ctx, organizationId, sites);
}

/** Fields of a site that need nothing of it but its address (its organization and id). */
const ADDRESS_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'platformId',
  '__typename',
  'organization',
  'structure',
  'siteSpaces',
  'sections',
  'sectionGroups',
]);

/**
 * A link to a site that exists (it holds what links to it): a stub when only its keys, its
 * organization or what is read under its address (its structure and lists) are asked, else its
 * key, which the loader reads.
 */
export function siteLink(organizationId: string, siteId: string, info: GraphQLResolveInfo): SiteHeld | string {
  const stub = () => ({ id: siteId, organizationId }) as SiteHeld;
  return selectsOnlyKeys(info, ADDRESS_FIELDS) ? stub() : linkTo(SiteRef, siteKey(organizationId, siteId), info, stub);
}

/** The node types of sites and their structure, whose global IDs carry the site's parents. */
export const SITE_TYPENAMES = ['Site', 'SiteSpace', 'SiteSection', 'SiteSectionGroup', 'SiteExternalLink'] as const;
export type SiteTypename = (typeof SITE_TYPENAMES)[number];

/**
 * A site, or an item of a site's structure, named by a client: its own platform id, and the
 * organization and site (and type) its global ID carries; a platform id carries none of them.
 */
export class SiteRefValue {
  constructor(
    readonly id: string,
    readonly typename?: SiteTypename,
    readonly organizationId?: string,
    readonly siteId?: string,
  ) {}
}

/**
 * Reads an id given by a client for one of `typenames`: a global ID of one of them (with its
 * parents) or a platform id. The global ID of another type is BAD_USER_INPUT.
 */
export function readSiteRef(value: string, typenames: SiteTypename | readonly SiteTypename[]): SiteRefValue {
  const trimmed = value.trim();
  const key = platformKey(trimmed, typenames);
  const global = decodeKnownGlobalId(trimmed);
  if (key === trimmed || !global) return new SiteRefValue(trimmed);
  const typename = global.typename as SiteTypename;
  if (typename === 'Site') {
    const [organizationId, id] = splitKey(key, 2, typename) as [string, string];
    return new SiteRefValue(id, typename, organizationId, id);
  }
  const [organizationId, siteId, id] = splitKey(key, 3, typename) as [string, string, string];
  return new SiteRefValue(id, typename, organizationId, siteId);
}

/**
 * The site that the arguments of a root field name: an organization and a site, each a platform id
 * or a global ID (a Site's must be of that organization; `siteArg` names its argument).
 */
export function siteArgs(
  organizationArg: string | number,
  siteArg: string | number,
  siteArgName: string,
): { organizationId: string; siteId: string } {
  const organizationId = platformKey(String(organizationArg), 'Organization');
  const ref = readSiteRef(String(siteArg), 'Site');
  if (ref.organizationId !== undefined && ref.organizationId !== organizationId) {
    throw new BadUserInputError(`${JSON.stringify(String(siteArg).slice(0, 100))} is a site of another organization`, [
      siteArgName,
    ]);
  }
  return { organizationId, siteId: ref.id };
}

export const SiteVisibilityEnum = restEnum('SiteVisibility', 'Who can read a published site.', {
  public: 'Anyone; indexed by search engines.',
  unlisted: 'Anyone with the address; not indexed by search engines.',
  'share-link': 'Anyone with a share link holding a secret key.',
  'visitor-auth': 'Visitors authenticated with a JWT from your own backend.',
} satisfies Record<SiteVisibility, string>);

export const SiteTypeEnum = restEnum('SiteType', 'The plan of a site, which decides the features it has.', {
  basic: 'Basic site.',
  premium: 'Premium site.',
  ultimate: 'Ultimate site.',
  sponsored: 'Sponsored site (community organizations).',
  'legacy-basic': 'Basic site of a former plan.',
  'legacy-premium': 'Premium site of a former plan.',
} satisfies Record<SiteType, string>);

const SitePermissions = permissionsType<Site['permissions']>('SitePermissions', 'What you may do with a site.', {
  view: 'Can read the site.',
  access: 'Can open the site in the app.',
  edit: 'Can edit its content and create drafts.',
  create: 'Can change its structure: site spaces, sections, section groups and their order.',
  admin: 'Can change its settings, publish, unpublish and delete it.',
  installIntegration: 'Can install integrations on it.',
  viewAdaptiveSchema: 'Can read its adaptive content schema.',
  editAdaptiveSchema: 'Can change its adaptive content schema.',
});

const SiteUrls = builder.objectRef<Site['urls']>('SiteUrls').implement({
  description: 'Addresses of a site.',
  fields: (t) => ({
    published: t.string({
      nullable: true,
      description:
        'Address of the published site (its custom hostname, its proxy or the organization address); null while unpublished.',
      resolve: (u) => u.published ?? null,
    }),
    app: t.string({ nullable: true, description: 'URL of the site in the web app.', resolve: (u) => u.app ?? null }),
    location: t.string({
      nullable: true,
      description: 'URL of the site in the REST API.',
      resolve: (u) => u.location ?? null,
    }),
    preview: t.string({
      nullable: true,
      description: 'URL of the preview of the site, published or not.',
      resolve: (u) => u.preview ?? null,
    }),
    login: t.string({
      nullable: true,
      description: 'Where visitors of a VISITOR_AUTH site sign in; null otherwise.',
      resolve: (u) => u.login ?? null,
    }),
    logout: t.string({
      nullable: true,
      description: 'Where visitors of a VISITOR_AUTH site sign out; null otherwise.',
      resolve: (u) => u.logout ?? null,
    }),
  }),
});

const SiteProxy = builder.objectRef<NonNullable<Site['proxy']>>('SiteProxy').implement({
  description: 'A site served under an address of your own, through your proxy.',
  fields: (t) => ({
    origin: t.exposeString('origin', {
      description: 'The public address, a host and a path (for example `example.com/docs`).',
    }),
    target: t.exposeString('target', { description: 'Where your proxy forwards the requests at `origin`.' }),
  }),
});

const SiteAdaptiveContent = builder.objectRef<NonNullable<Site['adaptiveContent']>>('SiteAdaptiveContent').implement({
  description: 'Adaptive content: what readers see depends on claims about them.',
  fields: (t) => ({
    enabled: t.exposeBoolean('enabled', { description: 'True when the site adapts its content to its visitors.' }),
  }),
});

SiteRef.implement({
  description:
    'A docs site: spaces of an organization published together, as site spaces at its root or in sections, with its own visibility, address and plan.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the site on the platform.' }),
    title: t.exposeString('title', { description: 'Title of the site, 2 to 128 characters.' }),
    type: t.field({ type: SiteTypeEnum, description: 'Its plan.', resolve: (s) => s.type }),
    appliedType: t.field({
      type: SiteTypeEnum,
      nullable: true,
      description: 'The plan it works under now (a frozen site works as BASIC whatever its plan).',
      resolve: (s) => s.appliedType ?? null,
    }),
    visibility: t.field({
      type: SiteVisibilityEnum,
      description: 'Who can read it once published.',
      resolve: (s) => s.visibility,
    }),
    isPublished: t.exposeBoolean('published', {
      description:
        'True when it is live for the audience its visibility names (REST `published`; `published(shareKey:)` is what its readers get).',
    }),
    hostname: t.string({
      nullable: true,
      description: 'Its custom hostname; null when it has none.',
      resolve: (s) => s.hostname ?? null,
    }),
    basename: t.string({
      nullable: true,
      description: 'Its path under the organization address, unique in the organization.',
      resolve: (s) => s.basename ?? null,
    }),
    proxy: t.field({
      type: SiteProxy,
      nullable: true,
      description: 'Its proxy; null when it has none.',
      resolve: (s) => s.proxy ?? null,
    }),
    defaultLevel: t.field({
      type: DefaultLevelEnum,
      nullable: true,
      description: 'Level of access every member of the organization gets on it; null: guest access.',
      resolve: (s) => s.defaultLevel ?? null,
    }),
    adaptiveContent: t.field({
      type: SiteAdaptiveContent,
      nullable: true,
      description: 'Its adaptive content setting.',
      resolve: (s) => s.adaptiveContent ?? null,
    }),
    permissions: t.field({
      type: SitePermissions,
      description: 'What you may do with it.',
      resolve: (s) => s.permissions,
    }),
    siteSpaceCount: t.exposeInt('siteSpaces', {
      description: 'Number of its site spaces (those of deleted spaces left out).',
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (s) => s.createdAt }),
    urls: t.field({ type: SiteUrls, description: 'Its addresses.', resolve: (s) => s.urls }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(OrganizationNode, s.organizationId, info),
    }),
  }),
});

export const SiteEdge = builder.edgeObject({
  type: SiteRef,
  name: 'SiteEdge',
  description: 'A docs site of a list, with its cursor.',
});

/** One connection type for every list of sites. */
export const SiteConnection = builder.connectionObject(
  { type: SiteRef, name: 'SiteConnection', description: 'A page of docs sites, with the size of the whole list.' },
  SiteEdge,
);

interface SiteFilters {
  space?: string | undefined;
  title?: string | null | undefined;
  published?: boolean | null | undefined;
}

/** A page of the sites of `organizationId`, filtered as REST filters them; they are kept for links. */
async function listSites(ctx: GatewayContext, organizationId: string, args: ConnectionArgs, filters: SiteFilters) {
  const connection = await listConnection(
    args,
    listSitesUpstream(ctx.api, organizationId, {
      space: filters.space,
      title: filters.title ?? undefined,
      published: filters.published ?? undefined,
    }),
  );
  return mapNodes(connection, (sites) => primeSites(ctx, organizationId, sites));
}

builder.objectFields(OrganizationNode, (t) => ({
  sites: t.connection(
    {
      type: SiteRef,
      nullable: true,
      description:
        'Docs sites of the organization, in the order the platform lists them; null with NOT_FOUND when you are not a member.',
      args: {
        spaceId: t.arg.id({ description: 'Only the sites that publish this space (platform id or global ID).' }),
        title: t.arg.string({ description: 'Only the sites whose title contains this text (case-insensitive).' }),
        published: t.arg.boolean({ description: 'Only the published sites (true) or the unpublished ones (false).' }),
      },
      resolve: (org, args, ctx) =>
        listSites(ctx, org.id, args, {
          space: args.spaceId == null ? undefined : platformKey(String(args.spaceId), 'Space'),
          title: args.title,
          published: args.published,
        }),
    },
    SiteConnection,
  ),
}));

builder.objectFields(SpaceNode, (t) => ({
  sites: t.connection(
    {
      type: SiteRef,
      nullable: true,
      description:
        'Docs sites of its organization that publish this space; null with NOT_FOUND for readers who are not members of the organization.',
      args: {
        title: t.arg.string({ description: 'Only the sites whose title contains this text (case-insensitive).' }),
        published: t.arg.boolean({ description: 'Only the published sites (true) or the unpublished ones (false).' }),
      },
      resolve: (space, args, ctx) =>
        listSites(ctx, space.organization, args, { space: space.id, title: args.title, published: args.published }),
    },
    SiteConnection,
  ),
}));

builder.objectFields(DefaultContentType, (t) => ({
  site: t.field({
    type: SiteRef,
    nullable: true,
    description: 'The docs site shown on the organization hostname.',
    extensions: upstream.link,
    resolve: (content, _args, _ctx, info) =>
      content.site ? siteLink(content.organizationId, content.site, info) : null,
  }),
}));

builder.queryFields((t) => ({
  site: t.field({
    type: SiteRef,
    nullable: true,
    description: 'A docs site of an organization; null with NOT_FOUND when there is none or you are not a member.',
    args: {
      organizationId: t.arg.id({ required: true, description: 'Platform id or global ID of the organization.' }),
      id: t.arg.id({ required: true, description: 'Platform id or global ID of the site.' }),
    },
    resolve: (_root, args) => {
      const at = siteArgs(args.organizationId, args.id, 'id');
      return siteKey(at.organizationId, at.siteId);
    },
  }),
}));

builder.subscriptionField('siteUpdated', (t) =>
  t.field({
    type: SiteRef,
    description:
      'A docs site: first as it is, then after each change of its settings, its publishing state or its structure (site spaces, sections, their order). Ends with NOT_FOUND when it is deleted or no longer visible to you.',
    args: {
      organizationId: t.arg.id({
        description: 'Platform id or global ID of the organization; required when `siteId` is not a global ID.',
      }),
      siteId: t.arg.id({
        required: true,
        description: 'The site: its global ID, or its platform id with `organizationId`.',
      }),
    },
    extensions: upstream.follow(2),
    subscribe: (_root, args, ctx) => {
      const at = ownedTarget(String(args.siteId), 'Site', 'siteId', args.organizationId);
      const address = { organizationId: at.organizationId, siteId: at.id };
      return follow(ctx, `site ${at.organizationId} ${at.id}`, async (api) => {
        // The structure is an answer of its own: a new site space changes it, not the site.
        const [site, structure] = await Promise.all([getSite(api, address), getSiteStructure(api, address)]);
        return { site: { ...site, organizationId: at.organizationId }, structure };
      });
    },
    resolve: ({ site }, _args, ctx) => {
      primeInOrganization(SiteRef, ctx, site.organizationId, [site]);
      return site;
    },
  }),
);
