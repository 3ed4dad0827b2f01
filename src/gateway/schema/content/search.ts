import { listConnection, mapNodes } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { getSpacePdf, searchOrganization, searchSpace } from '../../upstream/content.js';
import type { SearchPageResult, SearchSpaceResult } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { linkTo } from '../kit/loaders.js';
import { OrganizationNode } from '../organizations.js';
import { restEnum } from '../kit/enums.js';
import { SpaceNode } from '../spaces.js';
import { PageInterface, PAGE_NODE_TYPENAMES } from './page.js';
import { indexOf, notFound, revisionPartId } from './revision.js';

/** A PDF export as the platform answers it: its signed URL, kept whole. */
type PdfExportAnswer = Awaited<ReturnType<typeof getSpacePdf>>;

/**
 * Full-text search of the current content (of a space, or of every space of an organization you
 * can read), and PDF exports of a space.
 */

/** Longest search query the platform takes. */
const MAX_QUERY_LENGTH = 512;

function searchQuery(query: string): string {
  if (query.trim() === '') throw new BadUserInputError('`query` must not be empty', ['query']);
  if (query.length > MAX_QUERY_LENGTH)
    throw new BadUserInputError(`\`query\` has at most ${MAX_QUERY_LENGTH} characters`, ['query']);
  return query;
}

const SearchResultTypeEnum = restEnum('SearchResultType', 'What a search result matched.', {
  page: 'The page’s own fields (title, description).',
  section: 'The content of one of its sections.',
} satisfies Record<NonNullable<SearchPageResult['resultType']>, string>);

/** A page found by a search, with the space it is in (and the revision searched, when known). */
type SearchPageHeld = SearchPageResult & { spaceId: string; revisionId: string | undefined };

const SearchSection = builder
  .objectRef<NonNullable<SearchPageResult['sections']>[number]>('SearchSectionResult')
  .implement({
    description: 'A section of a page that matched a search, with a highlighted excerpt.',
    fields: (t) => ({
      anchor: t.exposeString('id', {
        description: 'Anchor of the section in its page (the page id for the text before its first heading).',
      }),
      title: t.exposeString('title', { description: 'Title of the section.' }),
      path: t.exposeString('path', { description: 'Path of its page.' }),
      score: t.exposeFloat('score', { description: 'Relevance: higher is better, unbounded.' }),
      resultType: t.field({
        type: SearchResultTypeEnum,
        nullable: true,
        description: 'What matched: PAGE when this is just a section of a page that matched on its own fields.',
        resolve: (s) => s.resultType ?? null,
      }),
      body: t.exposeString('body', {
        description: 'Excerpt of the section, the matched words in `<mark>` (HTML-escaped otherwise).',
      }),
      appUrl: t.string({ description: 'URL of the section in the web app.', resolve: (s) => s.urls.app }),
    }),
  });

export const SearchPage = builder.objectRef<SearchPageHeld>('SearchPageResult').implement({
  description: 'A page that matched a search, with its best sections.',
  fields: (t) => ({
    title: t.exposeString('title', { description: 'Title of the page.' }),
    description: t.exposeString('description', { description: 'Description of the page ("" when it has none).' }),
    path: t.exposeString('path', { description: 'Path of the page in its space.' }),
    score: t.exposeFloat('score', { description: 'Relevance: higher is better, unbounded.' }),
    rank: t.exposeInt('rank', {
      description: 'One-based position in the whole ranked result, whatever page of results it is on.',
    }),
    resultType: t.field({
      type: SearchResultTypeEnum,
      nullable: true,
      description: 'Whether the page matched on its own fields or on one of its sections.',
      resolve: (p) => p.resultType ?? null,
    }),
    sections: t.field({
      type: [SearchSection],
      description: 'Its best matching sections, best first.',
      resolve: (p) => p.sections ?? [],
    }),
    ancestors: t.stringList({
      description: 'Titles of the pages it is nested in, from the top level down.',
      resolve: (p) => p.ancestors.map((a) => a.title),
    }),
    appUrl: t.string({ description: 'URL of the page in the web app.', resolve: (p) => p.urls.app }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page in the current content of its space (the space and its current revision are read once per request); null when it is no longer there.',
      extensions: upstream.fetch(2),
      resolve: async (p, _args, ctx) => {
        const revisionId = p.revisionId ?? (await currentRevisionId(ctx, p.spaceId));
        return (await indexOf(ctx, p.spaceId, revisionId)).byId.get(p.id) ?? null;
      },
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space the page is in.',
      extensions: upstream.link,
      resolve: (p, _args, _ctx, info) => linkTo(SpaceNode, p.spaceId, info),
    }),
  }),
});

async function currentRevisionId(ctx: GatewayContext, spaceId: string): Promise<string> {
  const space = await SpaceNode.getDataloader(ctx).load(spaceId);
  if (space instanceof Error) throw space;
  return space.revision;
}

const SearchSpace = builder.objectRef<SearchSpaceResult>('SearchSpaceResult').implement({
  description: 'A space with pages that matched a search of an organization.',
  fields: (t) => ({
    title: t.exposeString('title', { description: 'Title of the space.' }),
    score: t.exposeFloat('score', { description: 'Relevance of its best page: higher is better, unbounded.' }),
    pages: t.field({
      type: [SearchPage],
      description: 'Its matching pages, best first.',
      resolve: (s) => s.pages.map((page) => ({ ...page, spaceId: s.id, revisionId: undefined })),
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(SpaceNode, s.id, info),
    }),
  }),
});

const SearchPageConnection = builder.connectionObject(
  {
    type: SearchPage,
    name: 'SearchPageResultConnection',
    description: 'A page of search results, best first, with their number.',
  },
  { name: 'SearchPageResultEdge', description: 'A search result, with its cursor.' },
);

const SearchSpaceConnection = builder.connectionObject(
  {
    type: SearchSpace,
    name: 'SearchSpaceResultConnection',
    description: 'A page of spaces with results, best first, with their number.',
  },
  { name: 'SearchSpaceResultEdge', description: 'A space with results, with its cursor.' },
);

/** A PDF URL as the platform answers it, with when it was asked. */
export interface PdfExportHeld {
  url: string;
  askedAt: number;
}

/** The PDF URLs of the platform are valid one hour. */
const PDF_URL_VALIDITY_MS = 60 * 60 * 1000;

export const PdfExport = builder.objectRef<PdfExportHeld>('PdfExport').implement({
  description: 'A PDF of content, to download.',
  fields: (t) => ({
    url: t.exposeString('url', {
      description: 'Temporary URL (valid one hour, signed: no token needed) that serves the PDF.',
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When the URL stops working: the expiry it carries, or one hour after it was asked for.',
      resolve: (pdf) => {
        const carried = Number(new URL(pdf.url).searchParams.get('expires'));
        return new Date(
          Number.isFinite(carried) && carried > 0 ? carried * 1000 : pdf.askedAt + PDF_URL_VALIDITY_MS,
        ).toISOString();
      },
    }),
  }),
});

/** Asks the platform for a PDF URL (`ask` reads it) and notes when it was asked for. */
export async function pdfExportOf(ask: () => Promise<PdfExportAnswer>): Promise<PdfExportHeld> {
  const askedAt = Date.now();
  const answer = await ask();
  return { url: answer.url, askedAt };
}

/** The `pageId` argument of a PDF export as a platform page id. */
export function pdfPage(pageId: string | null | undefined, spaceId: string): string | undefined {
  const page = pageId == null ? undefined : revisionPartId(String(pageId), PAGE_NODE_TYPENAMES, spaceId);
  if (page === '') throw notFound('Page', String(pageId));
  return page;
}

builder.objectFields(SpaceNode, (t) => ({
  search: t.connection(
    {
      type: SearchPage,
      nullable: true,
      description:
        'Searches the full text of the current content of the space: pages, ranked, with excerpts of their best sections.',
      args: {
        query: t.arg.string({
          required: true,
          description: 'Words to find (at most 512 characters); quote a phrase to find it whole.',
        }),
      },
      resolve: async (space, args, ctx) => {
        const connection = await listConnection(args, searchSpace(ctx.api, space.id, searchQuery(args.query)));
        return mapNodes(connection, (pages) =>
          pages.map((page) => ({ ...page, spaceId: space.id, revisionId: space.revision })),
        );
      },
    },
    SearchPageConnection,
  ),
  pdf: t.field({
    type: PdfExport,
    description: 'A PDF of the current content of the space, or of one page (with or without the pages nested in it).',
    args: {
      pageId: t.arg.id({
        description: 'Platform id or global ID of a document page to print instead of the whole space.',
      }),
      only: t.arg.boolean({ description: 'With `pageId`: print that page alone, without the pages nested in it.' }),
    },
    extensions: upstream.fetch(1),
    resolve: (space, args, ctx) =>
      pdfExportOf(() =>
        getSpacePdf(ctx.api, space.id, { page: pdfPage(args.pageId, space.id), only: args.only ?? undefined }),
      ),
  }),
}));

builder.objectFields(OrganizationNode, (t) => ({
  search: t.connection(
    {
      type: SearchSpace,
      nullable: true,
      description:
        'Searches the current content of every space of the organization you can read: spaces, best first, with their matching pages.',
      args: {
        query: t.arg.string({
          required: true,
          description: 'Words to find (at most 512 characters); quote a phrase to find it whole.',
        }),
      },
      resolve: (org, args, ctx) => listConnection(args, searchOrganization(ctx.api, org.id, searchQuery(args.query))),
    },
    SearchSpaceConnection,
  ),
}));
