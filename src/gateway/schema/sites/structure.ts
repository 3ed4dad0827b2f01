import type { GraphQLResolveInfo } from 'graphql';
import { listConnection, mapNodes } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { GatewayError } from '../../errors.js';
import { compositeKey, splitKey } from '../kit/ids.js';
import type {
  SiteExternalLink,
  SiteSection,
  SiteSectionGroup,
  SiteSpace,
  SiteStructure,
} from '../../upstream/contract/types.js';
import { getSiteStructure, listSiteSectionGroups, listSiteSections, listSiteSpaces } from '../../upstream/sites.js';
import { builder } from '../kit/builder.js';
import { PageInterface } from '../content/page.js';
import { lightRevision, treeIndex, type PageHeld } from '../content/revision.js';
import { linkTo, loadableNode, prime, type Loadable } from '../kit/loaders.js';
import { SpaceNode } from '../spaces.js';
import { SiteRef, siteLink, type SiteHeld } from './site.js';

/**
 * The structure of a docs site: site spaces at its root, or sections (each holding site spaces,
 * its variants) at its root and in section groups, which nest. Site spaces, sections and groups
 * are nodes whose global ID carries their organization and site: `node(id:)` reads the site's
 * structure (once per request, whatever asks for it) and picks the item. Everything the structure
 * holds is kept for links, so reading it answers its sections, site spaces and their spaces.
 */

/** Something of a site as the gateway holds it: the REST object plus its organization and site. */
export type InSite<T> = T & { organizationId: string; siteId: string };

export type SiteSpaceHeld = InSite<SiteSpace>;
export type SiteSectionHeld = InSite<Omit<SiteSection, 'siteSpaces'>> & { siteSpaces: SiteSpaceHeld[] };
// A group's `sections` are its sections among `children`, which is what is read.
export type SiteSectionGroupHeld = InSite<Omit<SiteSectionGroup, 'children' | 'sections'>> & {
  children: SectionLevelHeld[];
};
export type SiteExternalLinkHeld = InSite<SiteExternalLink>;
/** An item of a sections structure, at its root or in a group: a section, a group of them, or an external link. */
type SectionLevelItem = SiteSectionGroup['children'][number];
/** An item of a sections structure, at its root or in a group. */
export type SectionLevelHeld = SiteSectionHeld | SiteSectionGroupHeld | SiteExternalLinkHeld;

/** A site's structure as held, with every site space, section, group and external link by `object:id`. */
export type SiteStructureHeld = { organizationId: string; siteId: string; byKey: Map<string, StructureNodeHeld> } & (
  | { type: 'sections'; items: SectionLevelHeld[] }
  | { type: 'siteSpaces'; siteSpaces: SiteSpaceHeld[] }
);
type StructureNodeHeld = SiteSpaceHeld | SiteSectionHeld | SiteSectionGroupHeld | SiteExternalLinkHeld;

/** The loader key (and global ID payload) of a site space, section or group. */
export const siteItemKey = (item: { organizationId: string; siteId: string; id: string }) =>
  compositeKey(item.organizationId, item.siteId, item.id);

/**
 * A site space, section or group known by its keys only. Sound where a field selects nothing but
 * keys (`selectsOnlyKeys`): its id fields read these three and nothing else.
 */
export function siteItemStub<Shape extends InSite<{ id: string }>>(
  at: { organizationId: string; siteId: string },
  id: string,
) {
  return { organizationId: at.organizationId, siteId: at.siteId, id } as Shape;
}

/** True when `node` (from `byKey`) is a structure item of kind `object`. */
export function isStructureItem<Kind extends StructureNodeHeld['object']>(
  node: StructureNodeHeld | undefined,
  object: Kind,
): node is Extract<StructureNodeHeld, { object: Kind }> {
  return node?.object === object;
}

/** A node of a site's structure, loaded from the site's structure (read once per request). */
function structureNode<Shape extends InSite<{ id: string }>>(
  name: string,
  object: StructureNodeHeld['object'],
  what: string,
) {
  return loadableNode<Shape>(name, {
    key: siteItemKey,
    load: async (key, ctx) => {
      const [organizationId, siteId, id] = splitKey(key, 3, name) as [string, string, string];
      const found = (await readSiteStructure(ctx, organizationId, siteId)).byKey.get(`${object}:${id}`);
      if (!found) throw new GatewayError('NOT_FOUND', `No ${what} ${id} in the site`);
      return found as unknown as Shape;
    },
  });
}

export const SiteSpaceRef = structureNode<SiteSpaceHeld>('SiteSpace', 'site-space', 'site space');
export const SiteSectionRef = structureNode<SiteSectionHeld>('SiteSection', 'site-section', 'section');
export const SiteSectionGroupRef = structureNode<SiteSectionGroupHeld>(
  'SiteSectionGroup',
  'site-section-group',
  'section group',
);
export const SiteExternalLinkRef = structureNode<SiteExternalLinkHeld>(
  'SiteExternalLink',
  'site-external-link',
  'external link',
);

// --- Holding what the platform answers ---------------------------------------------------------

export const placeSiteSpace = (raw: SiteSpace, organizationId: string, siteId: string): SiteSpaceHeld => ({
  ...raw,
  organizationId,
  siteId,
});

export const placeSection = (raw: SiteSection, organizationId: string, siteId: string): SiteSectionHeld => ({
  ...raw,
  organizationId,
  siteId,
  siteSpaces: raw.siteSpaces.map((item) => placeSiteSpace(item, organizationId, siteId)),
});

export function placeSectionLevel(raw: SectionLevelItem, organizationId: string, siteId: string): SectionLevelHeld {
  switch (raw.object) {
    case 'site-section':
      return placeSection(raw, organizationId, siteId);
    case 'site-section-group':
      return placeGroup(raw, organizationId, siteId);
    default:
      return { ...raw, organizationId, siteId };
  }
}

export const placeGroup = (raw: SiteSectionGroup, organizationId: string, siteId: string): SiteSectionGroupHeld => ({
  ...raw,
  organizationId,
  siteId,
  children: raw.children.map((child) => placeSectionLevel(child, organizationId, siteId)),
});

/** Every site space, section, group and external link held in `items`, depth first. */
function* nodesOf(items: ReadonlyArray<SectionLevelHeld | SiteSpaceHeld>): Generator<StructureNodeHeld> {
  for (const item of items) {
    yield item;
    if (item.object === 'site-section') yield* item.siteSpaces;
    if (item.object === 'site-section-group') yield* nodesOf(item.children);
  }
}

/** The structure of a site as held (nothing is kept for links: see `primeSiteItems`). */
export function placeStructure(raw: SiteStructure, organizationId: string, siteId: string): SiteStructureHeld {
  const byKey = new Map<string, StructureNodeHeld>();
  const held: SiteStructureHeld =
    raw.type === 'sections'
      ? {
          type: 'sections',
          organizationId,
          siteId,
          byKey,
          items: raw.structure.map((item) => placeSectionLevel(item, organizationId, siteId)),
        }
      : {
          type: 'siteSpaces',
          organizationId,
          siteId,
          byKey,
          siteSpaces: raw.structure.map((item) => placeSiteSpace(item, organizationId, siteId)),
        };
  for (const node of nodesOf(held.type === 'sections' ? held.items : held.siteSpaces))
    byKey.set(`${node.object}:${node.id}`, node);
  return held;
}

/**
 * Keeps site spaces, sections and groups (and what they hold) that arrived in an answer for
 * links and `node(id:)`, with the spaces of the site spaces that you can read.
 */
export function primeSiteItems(ctx: GatewayContext, items: ReadonlyArray<SectionLevelHeld | SiteSpaceHeld>): void {
  const nodes = [...nodesOf(items)];
  const siteSpaces = nodes.filter((node): node is SiteSpaceHeld => node.object === 'site-space');
  prime(SiteSpaceRef, ctx, siteSpaces);
  prime(
    SiteSectionRef,
    ctx,
    nodes.filter((node): node is SiteSectionHeld => node.object === 'site-section'),
  );
  prime(
    SiteSectionGroupRef,
    ctx,
    nodes.filter((node): node is SiteSectionGroupHeld => node.object === 'site-section-group'),
  );
  prime(
    SiteExternalLinkRef,
    ctx,
    nodes.filter((node): node is SiteExternalLinkHeld => node.object === 'site-external-link'),
  );
  // A site lists spaces its readers may not read: those are not what `space(id:)` answers them.
  prime(
    SpaceNode,
    ctx,
    siteSpaces.map((item) => item.space).filter((space) => space.permissions.view),
  );
}

const held = new WeakMap<SiteStructure, SiteStructureHeld>();

/**
 * The structure of a site: one request per GraphQL request (until a write), whatever asks for it;
 * what it holds is kept for links and `node(id:)`.
 */
export async function readSiteStructure(
  ctx: GatewayContext,
  organizationId: string,
  siteId: string,
): Promise<SiteStructureHeld> {
  const raw = await getSiteStructure(ctx.api, { organizationId, siteId });
  let structure = held.get(raw);
  if (!structure) {
    structure = placeStructure(raw, organizationId, siteId);
    held.set(raw, structure);
    primeSiteItems(ctx, structure.type === 'sections' ? structure.items : structure.siteSpaces);
  }
  return structure;
}

/** A link to a site space, section or group of the site of `from`, by its platform id. */
function itemLink<Shape extends InSite<{ id: string }>>(
  ref: Loadable<Shape>,
  from: { organizationId: string; siteId: string },
  id: string | null | undefined,
  info: GraphQLResolveInfo,
): Shape | string | null {
  if (!id) return null;
  return linkTo(ref, siteItemKey({ organizationId: from.organizationId, siteId: from.siteId, id }), info, () =>
    siteItemStub<Shape>(from, id),
  );
}

// --- Types ---------------------------------------------------------------------------------------

const SiteItemUrls = builder.objectRef<NonNullable<SiteSpace['urls']>>('SiteItemUrls').implement({
  description: 'Addresses of a site space or a section.',
  fields: (t) => ({
    published: t.string({
      nullable: true,
      description: 'Its address on the published site; null while the site is unpublished.',
      resolve: (u) => u.published ?? null,
    }),
  }),
});

const siteField = (description: string) => ({
  type: SiteRef,
  description,
  extensions: upstream.link,
  resolve: (
    item: { organizationId: string; siteId: string },
    _args: object,
    _ctx: GatewayContext,
    info: GraphQLResolveInfo,
  ) => siteLink(item.organizationId, item.siteId, info),
});

SiteSpaceRef.implement({
  description:
    'A space as a site publishes it: at its root, or as a variant of a section (a language, a version), under its own path.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the site space on the platform.' }),
    path: t.exposeString('path', { description: 'Its path segment, unique among its siblings (whatever the case).' }),
    title: t.exposeString('title', { description: 'Its title: the title of its space.' }),
    localizedTitle: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its title in other languages, by language code (`{ "fr": "…" }`); null when it has none.',
      resolve: (s) => s.localizedTitle ?? null,
    }),
    default: t.boolean({
      description: 'True for the default site space of its section (or of the site’s root).',
      resolve: (s) => s.default ?? false,
    }),
    condition: t.string({
      nullable: true,
      description: 'The condition on visitor claims under which it is shown (adaptive content); null: always shown.',
      resolve: (s) => s.condition ?? null,
    }),
    hidden: t.boolean({
      description: 'True when it is left out of the site’s navigation (still reachable by its address).',
      resolve: (s) => s.hidden ?? false,
    }),
    draft: t.boolean({ description: 'True while it is a draft, not live.', resolve: (s) => s.draft ?? false }),
    pageId: t.string({
      nullable: true,
      description: 'Platform id of its custom home page; null: the first page of its space.',
      resolve: (s) => s.pageId ?? null,
    }),
    homePage: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page readers land on: its custom home page, else the first document page of its space. Reads the page tree of the space, once.',
      extensions: upstream.fetch(1),
      resolve: async (s, _args, ctx): Promise<PageHeld | null> => {
        const index = await treeIndex(ctx, lightRevision(s.space.id, s.space.revision, false));
        return (s.pageId ? index.byId.get(s.pageId) : index.landing) ?? null;
      },
    }),
    urls: t.field({ type: SiteItemUrls, description: 'Its addresses.', resolve: (s) => s.urls ?? {} }),
    space: t.field({
      type: SpaceNode,
      description: 'The space it publishes, as the site answers it (no request of its own).',
      resolve: (s) => s.space,
    }),
    section: t.field({
      type: SiteSectionRef,
      nullable: true,
      description: 'The section it is a variant of; null at the root of a site without sections.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => itemLink(SiteSectionRef, s, s.section, info),
    }),
    site: t.field(siteField('The site it belongs to.')),
  }),
});

SiteSectionRef.implement({
  description:
    'A section of a site: a part of its navigation holding one or more site spaces (its variants), one of them the default.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the section on the platform.' }),
    title: t.exposeString('title', { description: 'Its title, 2 to 128 characters.' }),
    localizedTitle: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its title in other languages, by language code (`{ "fr": "…" }`); null when it has none.',
      resolve: (s) => s.localizedTitle ?? null,
    }),
    description: t.string({
      nullable: true,
      description: 'Its description, at most 256 characters.',
      resolve: (s) => s.description ?? null,
    }),
    localizedDescription: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its description in other languages, by language code; null when it has none.',
      resolve: (s) => s.localizedDescription ?? null,
    }),
    path: t.exposeString('path', { description: 'Its path segment, unique in the site (whatever the case).' }),
    icon: t.string({
      nullable: true,
      description: 'Name of its icon (for example `rocket`).',
      resolve: (s) => s.icon ?? null,
    }),
    condition: t.string({
      nullable: true,
      description: 'The condition on visitor claims under which it is shown (adaptive content); null: always shown.',
      resolve: (s) => s.condition ?? null,
    }),
    default: t.boolean({
      description: 'True for the default section of the site (served at its root).',
      resolve: (s) => s.default ?? false,
    }),
    draft: t.boolean({ description: 'True while it is a draft, not live.', resolve: (s) => s.draft ?? false }),
    siteSpaces: t.field({
      type: [SiteSpaceRef],
      description: 'Its site spaces (variants), in order.',
      resolve: (s) => s.siteSpaces,
    }),
    defaultSiteSpace: t.field({
      type: SiteSpaceRef,
      nullable: true,
      description: 'Its default site space, served at its path.',
      resolve: (s) => s.siteSpaces.find((item) => item.default) ?? s.siteSpaces[0] ?? null,
    }),
    group: t.field({
      type: SiteSectionGroupRef,
      nullable: true,
      description: 'The section group it is in; null at the root of the site.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => itemLink(SiteSectionGroupRef, s, s.sectionGroup, info),
    }),
    urls: t.field({ type: SiteItemUrls, description: 'Its addresses.', resolve: (s) => s.urls ?? {} }),
    site: t.field(siteField('The site it belongs to.')),
  }),
});

SiteExternalLinkRef.implement({
  description:
    'A link to another address (http or https) among the sections and groups of a site, in their order: at the root or in a group. Drafts and links whose condition is false for a visitor are left out of what readers get.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the link on the platform.' }),
    title: t.exposeString('title', { description: 'Its title, 2 to 128 characters.' }),
    localizedTitle: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its title in other languages, by language code; null when it has none.',
      resolve: (l) => l.localizedTitle ?? null,
    }),
    description: t.string({
      nullable: true,
      description: 'Its description, at most 256 characters.',
      resolve: (l) => l.description ?? null,
    }),
    localizedDescription: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its description in other languages, by language code; null when it has none.',
      resolve: (l) => l.localizedDescription ?? null,
    }),
    url: t.exposeString('url', { description: 'The address it opens.' }),
    icon: t.string({ nullable: true, description: 'Name of its icon.', resolve: (l) => l.icon ?? null }),
    condition: t.string({
      nullable: true,
      description: 'The condition on visitor claims under which it is shown; null: always.',
      resolve: (l) => l.condition ?? null,
    }),
    draft: t.boolean({ description: 'True while it is a draft, not live.', resolve: (l) => l.draft ?? false }),
    group: t.field({
      type: SiteSectionGroupRef,
      nullable: true,
      description: 'The section group it is in; null at the root of the site.',
      extensions: upstream.link,
      resolve: (l, _args, _ctx, info) => itemLink(SiteSectionGroupRef, l, l.sectionGroup, info),
    }),
    site: t.field(siteField('The site it belongs to.')),
  }),
});

const SECTION_LEVEL_TYPENAMES = {
  'site-section': 'SiteSection',
  'site-section-group': 'SiteSectionGroup',
  'site-external-link': 'SiteExternalLink',
} as const satisfies Record<SectionLevelHeld['object'], string>;

export const SiteStructureItemUnion = builder.unionType('SiteStructureItem', {
  description: 'An item of the sections of a site: a section, a group of sections, or a link.',
  types: [SiteSectionRef, SiteSectionGroupRef, SiteExternalLinkRef],
  resolveType: (item) => SECTION_LEVEL_TYPENAMES[(item as SectionLevelHeld).object],
});

SiteSectionGroupRef.implement({
  description: 'A group of sections (and of other groups) in the navigation of a site.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the section group on the platform.' }),
    title: t.exposeString('title', { description: 'Its title, 1 to 100 characters.' }),
    localizedTitle: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Its title in other languages, by language code; null when it has none.',
      resolve: (g) => g.localizedTitle ?? null,
    }),
    icon: t.string({ nullable: true, description: 'Name of its icon.', resolve: (g) => g.icon ?? null }),
    draft: t.boolean({ description: 'True while it is a draft, not live.', resolve: (g) => g.draft ?? false }),
    children: t.field({
      type: [SiteStructureItemUnion],
      description: 'What it holds, in order: sections, groups and links.',
      resolve: (g) => g.children,
    }),
    parent: t.field({
      type: SiteSectionGroupRef,
      nullable: true,
      description: 'The group it is in; null at the root of the site.',
      extensions: upstream.link,
      resolve: (g, _args, _ctx, info) => itemLink(SiteSectionGroupRef, g, g.sectionGroup, info),
    }),
    site: t.field(siteField('The site it belongs to.')),
  }),
});

type SectionsStructure = Extract<SiteStructureHeld, { type: 'sections' }>;
type SiteSpacesStructure = Extract<SiteStructureHeld, { type: 'siteSpaces' }>;

const SiteSectionsStructure = builder.objectRef<SectionsStructure>('SiteSectionsStructure').implement({
  description:
    'The structure of a site organized in sections: sections and section groups at its root, each section holding its site spaces.',
  fields: (t) => ({
    items: t.field({
      type: [SiteStructureItemUnion],
      description: 'What its root holds, in order: sections, groups and links.',
      resolve: (s) => s.items,
    }),
    sections: t.field({
      type: [SiteSectionRef],
      description: 'Every section, groups entered, depth first in display order.',
      resolve: (s) => [...s.byKey.values()].filter((node): node is SiteSectionHeld => node.object === 'site-section'),
    }),
  }),
});

const SiteSpacesStructureType = builder.objectRef<SiteSpacesStructure>('SiteSpacesStructure').implement({
  description: 'The structure of a site without sections: its site spaces, at its root.',
  fields: (t) => ({
    siteSpaces: t.field({
      type: [SiteSpaceRef],
      description: 'Its site spaces, in order.',
      resolve: (s) => s.siteSpaces,
    }),
  }),
});

export const SiteStructureUnion = builder.unionType('SiteStructure', {
  description:
    'How a site is organized: in sections (SiteSectionsStructure) or as site spaces at its root (SiteSpacesStructure), never both.',
  types: [SiteSectionsStructure, SiteSpacesStructureType],
  resolveType: (structure) =>
    (structure as SiteStructureHeld).type === 'sections' ? 'SiteSectionsStructure' : 'SiteSpacesStructure',
});

export const SiteSpaceEdge = builder.edgeObject({
  type: SiteSpaceRef,
  name: 'SiteSpaceEdge',
  description: 'A site space of a list, with its cursor.',
});
export const SiteSectionEdge = builder.edgeObject({
  type: SiteSectionRef,
  name: 'SiteSectionEdge',
  description: 'A section of a list, with its cursor.',
});
export const SiteSectionGroupEdge = builder.edgeObject({
  type: SiteSectionGroupRef,
  name: 'SiteSectionGroupEdge',
  description: 'A section group of a list, with its cursor.',
});

const SiteSpaceConnection = builder.connectionObject(
  {
    type: SiteSpaceRef,
    name: 'SiteSpaceConnection',
    description: 'A page of site spaces, with the size of the whole list.',
  },
  SiteSpaceEdge,
);
const SiteSectionConnection = builder.connectionObject(
  {
    type: SiteSectionRef,
    name: 'SiteSectionConnection',
    description: 'A page of sections, with the size of the whole list.',
  },
  SiteSectionEdge,
);
const SiteSectionGroupConnection = builder.connectionObject(
  {
    type: SiteSectionGroupRef,
    name: 'SiteSectionGroupConnection',
    description: 'A page of section groups, with the size of the whole list.',
  },
  SiteSectionGroupEdge,
);

builder.objectFields(SiteRef, (t) => ({
  structure: t.field({
    type: SiteStructureUnion,
    description:
      'How the site is organized, with everything in it: sections, groups, site spaces and their spaces, in one request (shared with `node(id:)` of its items).',
    extensions: upstream.fetch(1),
    resolve: (site: SiteHeld, _args, ctx) => readSiteStructure(ctx, site.organizationId, site.id),
  }),
  siteSpaces: t.connection(
    {
      type: SiteSpaceRef,
      description: 'Its site spaces, section by section in display order.',
      args: {
        default: t.arg.boolean({
          description: 'Only the default site space of each section or of the root (true), or only the others (false).',
        }),
      },
      resolve: async (site: SiteHeld, args, ctx) => {
        const connection = await listConnection(
          args,
          listSiteSpaces(
            ctx.api,
            { organizationId: site.organizationId, siteId: site.id },
            {
              default: args.default ?? undefined,
            },
          ),
        );
        return mapNodes(connection, (items) => {
          const placed = items.map((item) => placeSiteSpace(item, site.organizationId, site.id));
          primeSiteItems(ctx, placed);
          return placed;
        });
      },
    },
    SiteSpaceConnection,
  ),
  sections: t.connection(
    {
      type: SiteSectionRef,
      description: 'Its sections, groups entered, in display order; empty for a site without sections.',
      resolve: async (site: SiteHeld, args, ctx) => {
        const connection = await listConnection(
          args,
          listSiteSections(ctx.api, { organizationId: site.organizationId, siteId: site.id }),
        );
        return mapNodes(connection, (items) => {
          const placed = items.map((item) => placeSection(item, site.organizationId, site.id));
          primeSiteItems(ctx, placed);
          return placed;
        });
      },
    },
    SiteSectionConnection,
  ),
  sectionGroups: t.connection(
    {
      type: SiteSectionGroupRef,
      description: 'Its section groups, depth first in display order (a group before the groups it holds).',
      resolve: async (site: SiteHeld, args, ctx) => {
        const connection = await listConnection(
          args,
          listSiteSectionGroups(ctx.api, { organizationId: site.organizationId, siteId: site.id }),
        );
        return mapNodes(connection, (items) => {
          const placed = items.map((item) => placeGroup(item, site.organizationId, site.id));
          primeSiteItems(ctx, placed);
          return placed;
        });
      },
    },
    SiteSectionGroupConnection,
  ),
}));
