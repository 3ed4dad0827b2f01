import { restConnection, type ConnectionArgs, type ConnectionResult } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { compositeKey } from '../kit/ids.js';
import { getPageMetaLinks, readBacklinks, readLinkReport, type ContentAddress } from '../../upstream/content.js';
import type {
  ContentLinkStats as LinkStats,
  ContentLinkStatus,
  ContentLocation,
  ContentRef,
  ContentReferenceUsage,
  RevisionPageMetaLinks as PageMetaLinksAnswer,
  Space,
} from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { brandAs, linkTo, prime } from '../kit/loaders.js';
import { restEnum } from '../kit/enums.js';
import { SpaceNode } from '../spaces.js';
import { FileNode } from './file.js';
import { ComputedPageNode, DocumentPageNode, GroupPageNode, LinkPageNode, PageInterface, refPage } from './page.js';
import {
  detachedPage,
  indexOf,
  keepRevision,
  placeFile,
  readOnce,
  RevisionNode,
  revisionStub,
  type FileHeld,
  type PageHeld,
} from './revision.js';
import type { RevisionHeld } from './revision.js';

/**
 * Link reports (every target the content links to, with its status and the pages holding the
 * links), backlinks (the pages linking to a page or a file) and meta links. Every location in
 * these answers carries the whole revision it is in: the gateway keeps it, so the pages and files
 * they name resolve from its tree without another request.
 */

export const LinkStatusEnum = restEnum('LinkStatus', 'Health of a link target.', {
  ok: 'The target exists.',
  broken: 'The target does not exist in the revision (or in the space it names).',
  'in-app': 'A URL into the app itself, which should be a content reference instead.',
} satisfies Record<ContentLinkStatus, string>);

const LinkRelationEnum = builder.enumType('LinkRelation', {
  description: 'How the content depends on a link target.',
  values: {
    REFERENCE: { value: 'reference', description: 'A soft reference: a link, a mention.' },
    DEPENDS_ON: {
      value: 'dependsOn',
      description: 'The content is built from the target (for example reusable content).',
    },
  },
});

/** A URL a link points at. */
interface UrlTarget {
  url: string;
}

const UrlLinkTarget = builder.objectRef<UrlTarget>('UrlLinkTarget').implement({
  description: 'A link target outside the content: a URL.',
  fields: (t) => ({ url: t.exposeString('url', { description: 'The URL.' }) }),
});

type Target = PageHeld | FileHeld | Space | UrlTarget;

const LinkTargetUnion = builder.unionType('LinkTarget', {
  description: 'What a link points at: a page, a file, a space or a URL.',
  types: [DocumentPageNode, GroupPageNode, LinkPageNode, ComputedPageNode, FileNode, SpaceNode, UrlLinkTarget],
});

/** The locations of an answer resolved against the revisions they carry. */
interface Resolver {
  location(location: ContentLocation | undefined | null): Promise<Target | null>;
  page(location: ContentLocation): Promise<PageHeld | null>;
}

/** The space a location is in and the revision it names (a change request's, for one in a change request). */
function placeOf(location: ContentLocation): { space: Space; revision: { id: string } | undefined } | undefined {
  if (!('space' in location)) return undefined;
  const context = 'versionContext' in location ? location.versionContext : undefined;
  const revision =
    context?.type === 'revision'
      ? context.revision
      : context?.type === 'changeRequest'
        ? { id: context.changeRequest.revision }
        : undefined;
  return { space: location.space, revision };
}

/**
 * Keeps the revisions and spaces that `locations` carry (each revision is parsed once per
 * request), and resolves each location to what it names.
 */
function resolveLocations(ctx: GatewayContext, locations: ReadonlyArray<ContentLocation | undefined | null>): Resolver {
  const kept = new Set<string>();
  for (const location of locations) {
    const place = location && placeOf(location);
    if (!place) continue;
    const { space, revision } = place;
    if (revision && keepRevision(ctx, space.id, revision)) kept.add(compositeKey(space.id, revision.id));
    prime(SpaceNode, ctx, [space]);
  }
  const indexFor = (place: { space: Space; revision: { id: string } | undefined }) => {
    const revisionId = place.revision?.id;
    if (!revisionId || !kept.has(compositeKey(place.space.id, revisionId))) return undefined;
    return indexOf(ctx, place.space.id, revisionId);
  };
  // Outside a revision the request holds: the revision the location names (else the space's current one).
  const revisionIdOf = (place: { space: Space; revision: { id: string } | undefined }) =>
    place.revision?.id ?? place.space.revision;
  const page = async (location: ContentLocation): Promise<PageHeld | null> => {
    const place = placeOf(location);
    if (location.kind !== 'page' || !place) return null;
    const index = await indexFor(place);
    const known = index?.byId.get(location.page.id);
    if (known) return known;
    const held = detachedPage(location.page, place.space.id, revisionIdOf(place));
    held.childrenUnknown = true;
    return held;
  };
  return {
    page,
    async location(location) {
      if (!location) return null;
      switch (location.kind) {
        case 'page':
          return page(location);
        case 'file': {
          const place = placeOf(location)!;
          const index = await indexFor(place);
          const known = index?.files.get(location.file.id);
          if (known) return known;
          return placeFile(location.file, place.space.id, revisionIdOf(place), undefined);
        }
        case 'space': {
          const space = { ...location.space };
          brandAs(space, 'Space');
          return space;
        }
        case 'url': {
          const target = { url: location.url };
          brandAs(target, 'UrlLinkTarget');
          return target;
        }
        default:
          return null;
      }
    },
  };
}

/** A link target of a report, with the pages holding links to it. */
interface ContentLinkHeld {
  status: ContentReferenceUsage['status'];
  relation: ContentReferenceUsage['relation'];
  target: Target | null;
  locations: PageHeld[];
}

const ContentLink = builder.objectRef<ContentLinkHeld>('ContentLink').implement({
  description: 'A target the content links to, with its health and the pages holding the links.',
  fields: (t) => ({
    status: t.field({ type: LinkStatusEnum, description: 'Health of the target.', resolve: (l) => l.status }),
    relation: t.field({
      type: LinkRelationEnum,
      description: 'How the content depends on the target.',
      resolve: (l) => l.relation,
    }),
    target: t.field({
      type: LinkTargetUnion,
      nullable: true,
      description: 'What the links point at; null for a broken link (its target does not exist).',
      resolve: (l) => l.target,
    }),
    pages: t.field({
      type: [PageInterface],
      description: 'The pages holding links to the target.',
      resolve: (l) => l.locations,
    }),
  }),
});

const LinkStatsType = builder.objectRef<LinkStats>('LinkStats').implement({
  description: 'Numbers of links of a whole report (every page of it, whatever the status filter).',
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'Links, counted once per page holding them.' }),
    broken: t.int({ description: 'Broken links, counted once per page holding them.', resolve: (s) => s.broken.total }),
  }),
});

type LinkReportHeld = ConnectionResult<ContentLinkHeld> & { stats: LinkStats };

const LinkReport = builder.connectionObject(
  {
    type: ContentLink,
    name: 'LinkReport',
    description: 'The link targets of some content, a page of them at a time, with the stats of the whole report.',
    fields: (t) => ({
      stats: t.field({
        type: LinkStatsType,
        description: 'Numbers of links and of broken links in the whole report.',
        resolve: (report) => (report as unknown as LinkReportHeld).stats,
      }),
    }),
  },
  { name: 'LinkReportEdge', description: 'A link target of a report, with its cursor.' },
);

/** The link report of a space, or of a page in some content. */
async function linkReport(
  ctx: GatewayContext,
  args: ConnectionArgs & { status?: string | null | undefined },
  at: ContentAddress,
  subject: { space: true } | { pageId: string },
): Promise<LinkReportHeld> {
  let stats: LinkStats | undefined;
  const connection = await restConnection(args, async (page, limit) => {
    const answer = await readLinkReport(ctx.api, at, subject, { status: args.status ?? undefined, page, limit });
    stats ??= answer.stats;
    return answer;
  });
  const usages = connection.edges.map((edge) => edge.node);
  const resolver = resolveLocations(
    ctx,
    usages.flatMap((usage) => [usage.targetReference, ...usage.locationReferences]),
  );
  const edges = await Promise.all(
    connection.edges.map(async ({ cursor, node }) => ({
      cursor,
      node: {
        status: node.status,
        relation: node.relation,
        target: node.status === 'broken' ? null : await resolver.location(node.targetReference),
        locations: (await Promise.all(node.locationReferences.map((location) => resolver.page(location)))).filter(
          (page): page is PageHeld => page !== null,
        ),
      },
    })),
  );
  return { ...connection, edges, stats: stats ?? { total: 0, broken: { total: 0 } } };
}

/** A page linking to a page or a file. */
interface BacklinkHeld {
  page: PageHeld;
}

const Backlink = builder.objectRef<BacklinkHeld>('Backlink').implement({
  description: 'A page holding a link to a page or a file.',
  fields: (t) => ({
    page: t.field({ type: PageInterface, description: 'The page holding the link.', resolve: (b) => b.page }),
    revision: t.field({
      type: RevisionNode,
      description: 'The revision the page is in.',
      extensions: upstream.link,
      resolve: (b, _args, _ctx, info) =>
        b.page.revision ??
        linkTo(
          RevisionNode,
          compositeKey(b.page.spaceId, b.page.revisionId),
          info,
          revisionStub(b.page.spaceId, b.page.revisionId),
        ),
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space the page is in.',
      extensions: upstream.link,
      resolve: (b, _args, _ctx, info) => linkTo(SpaceNode, b.page.spaceId, info),
    }),
  }),
});

const BacklinkConnection = builder.connectionObject(
  { type: Backlink, name: 'BacklinkConnection', description: 'A page of backlinks, with the size of the whole list.' },
  { name: 'BacklinkEdge', description: 'A backlink of a list, with its cursor.' },
);

/** The pages linking to a page or a file in some content. */
async function backlinkList(
  ctx: GatewayContext,
  args: ConnectionArgs,
  at: ContentAddress,
  subject: { pageId: string } | { fileId: string },
): Promise<ConnectionResult<BacklinkHeld>> {
  const connection = await restConnection(args, (page, limit) => readBacklinks(ctx.api, at, subject, { page, limit }));
  const resolver = resolveLocations(
    ctx,
    connection.edges.map((edge) => edge.node),
  );
  const pages = await Promise.all(connection.edges.map((edge) => resolver.page(edge.node)));
  return {
    ...connection,
    edges: connection.edges.flatMap((edge, index) =>
      pages[index] ? [{ cursor: edge.cursor, node: { page: pages[index] } }] : [],
    ),
  };
}

builder.objectFields(SpaceNode, (t) => ({
  links: t.connection(
    {
      type: ContentLink,
      nullable: true,
      description:
        'The link report of the current content: every link target with its health and the pages holding links to it.',
      args: { status: t.arg({ type: LinkStatusEnum, description: 'Only the targets of this health.' }) },
      resolve: (space, args, ctx) => linkReport(ctx, args, { spaceId: space.id }, { space: true }),
    },
    LinkReport,
  ),
}));

/** Meta links of a page: where its canonical version and its alternates live. */
interface MetaLinkHeld {
  from: PageHeld;
  ref: ContentRef;
}

const MetaLink = builder.objectRef<MetaLinkHeld>('MetaLink').implement({
  description: 'A meta link of a page: a page of the content or a URL.',
  fields: (t) => ({
    reference: t.field({
      type: 'JSON',
      description: 'The content reference (`{ kind: "url", url }` or `{ kind: "page", page }`).',
      resolve: (m) => m.ref,
    }),
    url: t.string({
      nullable: true,
      description: 'The URL, when the link is a URL.',
      resolve: (m) => (m.ref.kind === 'url' && typeof m.ref.url === 'string' ? m.ref.url : null),
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description: 'The page of the same revision, when the link is a page of it.',
      resolve: (m, _args, ctx) => refPage(ctx, m.from, m.ref),
    }),
  }),
});

const PageMetaLinks = builder.objectRef<{ from: PageHeld; metaLinks: PageMetaLinksAnswer }>('PageMetaLinks').implement({
  description: 'Meta links of a page (`<link rel="canonical">` and `rel="alternate"`).',
  fields: (t) => ({
    canonical: t.field({
      type: MetaLink,
      nullable: true,
      description: 'Where the canonical version of the page lives; null when it is the page itself.',
      resolve: ({ from, metaLinks }) => (metaLinks.canonical ? { from, ref: metaLinks.canonical } : null),
    }),
    alternates: t.field({
      type: [MetaLink],
      description: 'Alternate versions of the page.',
      resolve: ({ from, metaLinks }) => (metaLinks.alternates ?? []).map((ref) => ({ from, ref })),
    }),
  }),
});

/**
 * Where the link report or backlinks of a page or file are read: its change request's content
 * when it was reached through one, else the current content of its space.
 */
function liveOrRequest(item: {
  spaceId: string;
  revision: RevisionHeld | undefined;
  changeRequest?: string | undefined;
}): ContentAddress {
  const changeRequest = item.changeRequest ?? item.revision?.changeRequest;
  return changeRequest ? { spaceId: item.spaceId, changeRequest } : { spaceId: item.spaceId, current: true };
}

builder.objectFields(DocumentPageNode, (t) => ({
  links: t.connection(
    {
      type: ContentLink,
      nullable: true,
      description:
        'The link report of this page in the current content of its space (in a change request’s content, in that content); null with NOT_FOUND when the content has no such page.',
      args: { status: t.arg({ type: LinkStatusEnum, description: 'Only the targets of this health.' }) },
      resolve: (page, args, ctx) => linkReport(ctx, args, liveOrRequest(page), { pageId: page.id }),
    },
    LinkReport,
  ),
  backlinks: t.connection(
    {
      type: Backlink,
      nullable: true,
      description:
        'The pages linking to this page in the current content of its space (in a change request’s content, in that content); null with NOT_FOUND when the content has no such page.',
      resolve: (page, args, ctx) => backlinkList(ctx, args, liveOrRequest(page), { pageId: page.id }),
    },
    BacklinkConnection,
  ),
  metaLinks: t.field({
    type: PageMetaLinks,
    description:
      'Meta links of the page (canonical, alternates): one request per page, to the operation that serves them.',
    extensions: upstream.fetch(1),
    resolve: async (from, _args, ctx) => {
      const changeRequest = from.revision?.changeRequest;
      const revision = {
        spaceId: from.spaceId,
        id: from.revisionId,
        current: from.revision?.current ?? false,
        ...(changeRequest ? { changeRequest } : {}),
      };
      const metaLinks = await readOnce(
        ctx,
        `meta-links:${compositeKey(from.spaceId, from.revisionId, from.id)}${changeRequest ? `:${changeRequest}` : ''}`,
        () => getPageMetaLinks(ctx.api, revision, from.id),
      );
      return { from, metaLinks };
    },
  }),
}));

builder.objectFields(FileNode, (t) => ({
  backlinks: t.connection(
    {
      type: Backlink,
      nullable: true,
      description:
        'The pages linking to this file in the current content of its space (in a change request’s content, in that content); null with NOT_FOUND when the content has no such file.',
      resolve: (file, args, ctx) => backlinkList(ctx, args, liveOrRequest(file), { fileId: file.id }),
    },
    BacklinkConnection,
  ),
}));
