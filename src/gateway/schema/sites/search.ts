import type { ArgBuilder } from '@pothos/core';
import type { GatewayContext } from '../../context.js';
import { BadUserInputError } from '../../errors.js';
import * as op from '../../upstream/contract/operations.js';
import type { SearchSpaceResult } from '../../upstream/contract/types.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { SearchPage } from '../content/search.js';
import { builder, type SchemaTypesOf } from '../kit/builder.js';
import { listConnection, mapNodes } from '../kit/connections.js';
import { restEnum } from '../kit/enums.js';
import { linkTo } from '../kit/loaders.js';
import { declareMutation } from '../kit/mutations.js';
import { payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { SpaceNode } from '../spaces.js';
import { PublishedSiteProfile } from './access.js';
import { inSite, siteAfter, siteTarget } from './mutations.js';
import { readSiteRef, SiteRef } from './site.js';
import { readSiteStructure, SiteSpaceRef, type SiteSpaceHeld, type SiteStructureHeld } from './structure.js';

/**
 * Search of a docs site: `Site.search` (members, and readers of a published public site) and
 * `PublishedSiteProfile.search` (the same for whoever reads the profile, a site visitor with the
 * claims of their token included), spaces of the site with their best pages, ranked across the
 * site; and `prewarmSiteSearch`, which readers call when they open a site's search.
 */

/** Longest search query the platform takes. */
const MAX_QUERY_LENGTH = 512;
/** Site spaces one search names, at most. */
const MAX_SITE_SPACES = 100;

/** A space of the site with its matches, and where the results were read from. */
type SiteResultHeld = SearchSpaceResult & SiteAddress & { structure: () => Promise<SiteStructureHeld> };

/** The site space of a result: the first of the structure the caller read that shows its space. */
async function siteSpaceOf(r: SiteResultHeld): Promise<SiteSpaceHeld | null> {
  const structure = await r.structure();
  for (const node of structure.byKey.values())
    if (node.object === 'site-space' && node.space.id === r.id) return node as SiteSpaceHeld;
  return null;
}

const SiteSearchResult = builder.objectRef<SiteResultHeld>('SiteSearchResult').implement({
  description: 'A space of a site with pages that matched a search of the site.',
  fields: (t) => ({
    title: t.exposeString('title', { description: 'Title of the space.' }),
    score: t.exposeFloat('score', { description: 'Relevance of its best page: higher is better, unbounded.' }),
    pages: t.field({
      type: [SearchPage],
      description: 'Its best matching pages (up to 10), best first; `rank` is their place across the whole site.',
      resolve: (r) => r.pages.map((page) => ({ ...page, spaceId: r.id, revisionId: undefined })),
    }),
    space: t.field({
      type: SpaceNode,
      description:
        'The space. A site visitor reads only the space their token was given for: another is null with NOT_FOUND.',
      extensions: upstream.link,
      resolve: (r, _args, _ctx, info) => linkTo(SpaceNode, r.id, info),
    }),
    siteSpace: t.field({
      type: SiteSpaceRef,
      nullable: true,
      description:
        'The site space showing the space (the first in the structure, for a space shown twice), in the structure the caller reads.',
      extensions: upstream.fetch(1),
      resolve: (r) => siteSpaceOf(r),
    }),
  }),
});

const SiteSearchResultConnection = builder.connectionObject(
  {
    type: SiteSearchResult,
    name: 'SiteSearchResultConnection',
    description: 'A page of the spaces of a site with results, best first, with their number.',
  },
  { name: 'SiteSearchResultEdge', description: 'A space with results, with its cursor.' },
);

const ModeEnum = restEnum('SiteSearchMode', 'Which site spaces of a site a search covers.', {
  all: 'Every site space the reader sees (the default).',
  default:
    'The default site space of each section (one in the language of `currentSiteSpaceId` when a section has one), plus `currentSiteSpaceId`.',
  specific: 'The site spaces of `siteSpaceIds`.',
});

const RestrictionEnum = restEnum('SiteSearchRestriction', 'A part of the DEFAULT scope of a site search.', {
  currentSiteSpace: 'Only `currentSiteSpaceId`.',
  otherSiteSpaces: 'The DEFAULT scope without `currentSiteSpaceId`.',
});

type ScopeArgs = {
  query: string;
  mode?: string | null;
  currentSiteSpaceId?: string | number | null;
  restrictTo?: string | null;
  siteSpaceIds?: ReadonlyArray<string | number> | null;
};

/** The REST body of a search: its query and scope (checked for what the platform cannot say in graph terms). */
function searchBody(args: ScopeArgs) {
  if (args.query.trim() === '') throw new BadUserInputError('`query` must not be empty', ['query']);
  if (args.query.length > MAX_QUERY_LENGTH)
    throw new BadUserInputError(`\`query\` has at most ${MAX_QUERY_LENGTH} characters`, ['query']);
  const siteSpace = (value: string | number) => readSiteRef(String(value), 'SiteSpace').id;
  const mode = args.mode ?? 'all';
  if (mode === 'specific') {
    const ids = args.siteSpaceIds ?? [];
    if (ids.length === 0 || ids.length > MAX_SITE_SPACES)
      throw new BadUserInputError(`\`siteSpaceIds\` must name 1 to ${MAX_SITE_SPACES} site spaces with SPECIFIC`, [
        'siteSpaceIds',
      ]);
    return { query: args.query, scope: { mode: 'specific' as const, siteSpaceIds: ids.map(siteSpace) } };
  }
  if (args.siteSpaceIds != null)
    throw new BadUserInputError('`siteSpaceIds` goes with SPECIFIC only', ['siteSpaceIds']);
  if (mode === 'all') {
    if (args.currentSiteSpaceId != null || args.restrictTo != null)
      throw new BadUserInputError('`currentSiteSpaceId` and `restrictTo` go with DEFAULT only', ['mode']);
    return { query: args.query, scope: { mode: 'all' as const } };
  }
  if (args.restrictTo != null && args.currentSiteSpaceId == null)
    throw new BadUserInputError('`restrictTo` needs `currentSiteSpaceId`', ['restrictTo']);
  return {
    query: args.query,
    scope: {
      mode: 'default' as const,
      ...(args.currentSiteSpaceId != null ? { currentSiteSpace: siteSpace(args.currentSiteSpaceId) } : {}),
      ...(args.restrictTo != null ? { restrictTo: args.restrictTo as 'currentSiteSpace' | 'otherSiteSpaces' } : {}),
    },
  };
}

/** The search of a site as a connection; `structure` reads the structure the caller sees (for `siteSpace`). */
async function searchConnection(
  ctx: GatewayContext,
  at: SiteAddress,
  args: ScopeArgs & { first?: number | null; after?: string | null },
  structure: () => Promise<SiteStructureHeld>,
) {
  const body = searchBody(args);
  // A POST that only reads: its pages are asked as a list's are, the body beside `page` and `limit`.
  const read = async (page: string | undefined, limit: number) =>
    (await ctx.api.write(op.searchSiteContent, at, { body, query: { ...(page ? { page } : {}), limit } })).data;
  const connection = await listConnection(args, { read, first: () => read(undefined, 1) });
  return mapNodes(connection, (items) =>
    items.flatMap((item) => (item.type === 'space' ? [{ ...item, ...at, structure }] : [])),
  );
}

/** The arguments of a site's search, on `Site.search` and `PublishedSiteProfile.search` alike. */
const searchArgs = (arg: ArgBuilder<SchemaTypesOf>) => ({
  query: arg.string({
    required: true,
    description: 'Words to find (at most 512 characters); quote a phrase to find it whole.',
  }),
  mode: arg({ type: ModeEnum, description: 'Which site spaces to search (default ALL).' }),
  currentSiteSpaceId: arg.id({
    description: 'With DEFAULT: the site space the search is made from (global ID or platform id).',
  }),
  restrictTo: arg({ type: RestrictionEnum, description: 'With DEFAULT and `currentSiteSpaceId`: a part.' }),
  siteSpaceIds: arg.idList({
    description: 'With SPECIFIC: 1 to 100 site spaces (global IDs or platform ids).',
  }),
});

builder.objectFields(SiteRef, (t) => ({
  search: t.connection(
    {
      type: SiteSearchResult,
      nullable: true,
      description:
        'Searches the current content the site publishes, across its site spaces: spaces, best first, with their best pages ranked across the site. Members search the published structure (drafts too on an unpublished site) in the spaces they can read; readers of a published public or unlisted site what a visitor without claims sees. Null with NOT_FOUND for others.',
      args: searchArgs(t.arg),
      resolve: (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        return searchConnection(ctx, at, args, () => readSiteStructure(ctx, at.organizationId, at.siteId));
      },
    },
    SiteSearchResultConnection,
  ),
}));

builder.objectFields(PublishedSiteProfile, (t) => ({
  search: t.connection(
    {
      type: SiteSearchResult,
      nullable: true,
      description:
        'Searches the site as the reader of this profile reads it: a site visitor (with the API token of a resolved URL) finds only what the claims of their token open (site spaces, sections, pages and blocks); others as `Site.search`.',
      args: searchArgs(t.arg),
      resolve: (p, args, ctx) =>
        searchConnection(
          ctx,
          { organizationId: p.organizationId, siteId: p.siteId },
          args,
          async () => p.structureHeld,
        ),
    },
    SiteSearchResultConnection,
  ),
}));

declareMutation('prewarmSiteSearch', {
  description:
    'Tells the platform that searches of a site are coming (call it when a reader opens the site’s search): what the site publishes is made ready to search. Whoever may search the site may call it.',
  input: 'The site.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ at: SiteAddress; accepted: boolean }>(name, (t) => ({
      accepted: t.boolean({
        description: 'True when the platform took the hint.',
        resolve: (p) => p.accepted ?? false,
      }),
      site: t.field(siteAfter('The site (members).') as never),
    })),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    await ctx.api.write(op.prewarmSiteSearch, at);
    return { at, accepted: true };
  },
});
