import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { compositeKey, readingId } from '../kit/ids.js';
import { getPage, getPageByPath } from '../../upstream/content.js';
import type { ContentRef, RevisionPageType } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { linkTo, loadableNode } from '../kit/loaders.js';
import { restEnum } from '../kit/enums.js';
import { SpaceNode } from '../spaces.js';
import {
  GitBlob,
  indexOf,
  notFound,
  PAGE_TYPENAMES,
  pageAtPath,
  revisionOfPart,
  treeIndex,
  lightRevision,
  detachedPage,
  RevisionNode,
  revisionPartId,
  splitRevisionKey,
  type PageHeld,
} from './revision.js';

/**
 * Pages of a revision: the `Page` interface and its four variants. Pages come from their
 * revision's tree, read once per request (the tree, a page by id or path, a page's parent and
 * children then cost nothing more), or, for one page asked alone without its parent, from a read
 * of that page (its parent, if asked, then reads the tree).
 */

export const PageTypeEnum = restEnum('PageType', 'Kind of a page of the content.', {
  document: 'A page with a body (a document).',
  group: 'A group of pages at the top level of the content, without a body.',
  link: 'An entry of the table of contents pointing elsewhere (a URL or other content).',
  computed: 'Pages generated from a source (for example an OpenAPI description).',
} satisfies Record<RevisionPageType, string>);

/** The global ID key of a page: `spaceId/revisionId/pageId`. */
export const pageKey = (page: Pick<PageHeld, 'spaceId' | 'revisionId' | 'id'>) =>
  compositeKey(page.spaceId, page.revisionId, page.id);

/** Loads a page by its key through its revision's tree; NOT_FOUND when it is missing or of another type. */
async function loadPage(key: string, ctx: GatewayContext, type: PageHeld['page']['type']): Promise<PageHeld> {
  const typename = PAGE_TYPENAMES[type];
  const [spaceId, revisionId, pageId] = splitRevisionKey(key, typename);
  const page = (await indexOf(ctx, spaceId, revisionId)).byId.get(pageId);
  if (!page || page.page.type !== type) throw notFound('Page', pageId);
  return page;
}

const pageNode = (type: PageHeld['page']['type']) =>
  loadableNode<PageHeld>(PAGE_TYPENAMES[type], { key: pageKey, load: (key, ctx) => loadPage(key, ctx, type) });

export const DocumentPageNode = pageNode('document');
export const GroupPageNode = pageNode('group');
export const LinkPageNode = pageNode('link');
export const ComputedPageNode = pageNode('computed');

/** The typenames a page's global ID may carry. */
export const PAGE_NODE_TYPENAMES = Object.values(PAGE_TYPENAMES);

/** A page id an input gives: a page's global ID (of any variant) or its platform id. */
export const pageIdInput = z
  .string()
  .trim()
  .min(1, 'must be the id of a page')
  .transform(readingId((value) => revisionPartId(value, PAGE_NODE_TYPENAMES)));

export const PageInterface = builder.interfaceRef<PageHeld>('Page');

PageInterface.implement({
  description:
    'A page of a revision: a document, a group, a link or computed pages. Pages come from their revision’s tree, read once per request; one page asked alone is read by itself.',
  interfaces: [builder.nodeInterfaceRef()],
  resolveType: (page) => PAGE_TYPENAMES[page.page.type],
  fields: (t) => ({
    platformId: t.string({ description: 'Id of the page on the platform.', resolve: (p) => p.id }),
    type: t.field({ type: PageTypeEnum, description: 'Kind of page.', resolve: (p) => p.page.type }),
    title: t.string({ description: 'Title of the page.', resolve: (p) => p.page.title }),
    linkTitle: t.string({
      nullable: true,
      description: 'Shorter title for the table of contents and mentions; null when it is the title.',
      resolve: (p) => p.page.linkTitle ?? null,
    }),
    emoji: t.string({
      nullable: true,
      description: 'Emoji shown as its icon; null when there is none.',
      resolve: (p) => p.page.emoji ?? null,
    }),
    icon: t.string({
      nullable: true,
      description: 'Icon shown with it; null when there is none.',
      resolve: (p) => p.page.icon ?? null,
    }),
    hidden: t.boolean({
      description: 'True when the page is left out of the navigation (it can still be opened).',
      resolve: (p) => p.page.hidden ?? false,
    }),
    createdAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was created; null when it was never edited.',
      resolve: (p) => p.page.createdAt ?? null,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last changed; null when it was never edited.',
      resolve: (p) => p.page.updatedAt ?? null,
    }),
    parent: t.field({
      type: PageInterface,
      nullable: true,
      description:
        "The page it is nested in (a document or a group); null at the top level. Free when the revision's tree was read; for a page read alone, the tree is read once.",
      extensions: upstream.fetch(1),
      resolve: async (p, _args, ctx) => {
        if (!p.detached) return p.parent ?? null;
        // The tree of the page's revision: from the revision when the request holds it, else read alone.
        const held =
          p.revision && !p.revision.light
            ? p.revision
            : lightRevision(p.spaceId, p.revisionId, p.revision?.current ?? false);
        return (await treeIndex(ctx, held)).byId.get(p.id)?.parent ?? null;
      },
    }),
    children: t.field({
      type: [PageInterface],
      description:
        "The pages nested in it, in order. Free, but for a page from a link report or backlink, whose revision's tree is then read once.",
      extensions: upstream.fetch(1),
      resolve: async (p, _args, ctx) => {
        if (!p.childrenUnknown) return p.children;
        const held = p.revision && !p.revision.light ? p.revision : lightRevision(p.spaceId, p.revisionId, false);
        return (await treeIndex(ctx, held)).byId.get(p.id)?.children ?? [];
      },
    }),
    revision: t.field({
      type: RevisionNode,
      description: 'The revision holding the page.',
      extensions: upstream.link,
      resolve: (p, _args, _ctx, info) => revisionOfPart(p, info),
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space holding the page.',
      extensions: upstream.link,
      resolve: (p, _args, _ctx, info) => linkTo(SpaceNode, p.spaceId, info),
    }),
  }),
});

const PageUrls = builder.objectRef<{ app?: string | undefined }>('PageUrls').implement({
  description: 'Addresses of a page.',
  fields: (t) => ({
    app: t.string({ nullable: true, description: 'URL of the page in the web app.', resolve: (u) => u.app ?? null }),
  }),
});

DocumentPageNode.implement({
  description: 'A page with a body: a document, possibly with pages nested in it.',
  interfaces: [PageInterface],
  fields: (t) => ({
    slug: t.string({
      description: 'Its part of the path, unique among its siblings.',
      resolve: (p) => p.page.slug ?? '',
    }),
    path: t.string({
      description: 'Its complete path in the revision (the landing page is also found at "").',
      resolve: (p) => p.page.path ?? '',
    }),
    description: t.string({
      nullable: true,
      description: 'Its description; null when it has none.',
      resolve: (p) => p.page.description ?? null,
    }),
    urls: t.field({ type: PageUrls, description: 'Addresses of the page.', resolve: (p) => p.page.urls ?? {} }),
    noIndex: t.boolean({
      description: 'True when the page is left out of search and ask.',
      resolve: (p) => p.page.noIndex ?? false,
    }),
    noRobotsIndex: t.boolean({
      description: 'True when search engines are asked not to index the page.',
      resolve: (p) => p.page.noRobotsIndex ?? false,
    }),
    condition: t.string({
      nullable: true,
      description:
        'Adaptive-content condition: an expression on the visitor’s claims that decides whether the page shows; null when it always shows.',
      resolve: (p) => p.page.condition ?? null,
    }),
    layout: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Layout options (`width`, `cover`, `tableOfContents`, `outline`, …).',
      resolve: (p) => p.page.layout ?? null,
    }),
    cover: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Cover image settings; null without a cover.',
      resolve: (p) => p.page.cover ?? null,
    }),
    variables: t.field({
      type: 'JSON',
      description: 'Variables of the page: an object of names to values.',
      resolve: (p) => p.page.variables ?? {},
    }),
    git: t.field({
      type: GitBlob,
      nullable: true,
      description: 'Where the page lives in the synchronized Git repository; null without Git Sync.',
      resolve: (p) => p.page.git ?? null,
    }),
  }),
});

GroupPageNode.implement({
  description: 'A group of pages at the top level of the content, without a body.',
  interfaces: [PageInterface],
  fields: (t) => ({
    slug: t.string({
      description: 'Its part of the path, unique among its siblings.',
      resolve: (p) => p.page.slug ?? '',
    }),
    path: t.string({ description: 'Its complete path in the revision.', resolve: (p) => p.page.path ?? '' }),
    noIndex: t.boolean({
      description: 'True when its pages are left out of search and ask.',
      resolve: (p) => p.page.noIndex ?? false,
    }),
    noRobotsIndex: t.boolean({
      description: 'True when search engines are asked not to index its pages.',
      resolve: (p) => p.page.noRobotsIndex ?? false,
    }),
  }),
});

/** The URL a reference points at, when it is a URL. */
const refUrl = (ref: ContentRef | undefined): string | null =>
  ref?.kind === 'url' && typeof ref.url === 'string' ? ref.url : null;

/** The page of the same revision a reference names, if any. */
export async function refPage(
  ctx: GatewayContext,
  from: PageHeld,
  ref: ContentRef | undefined,
): Promise<PageHeld | null> {
  if (!ref || !from.revision || (ref.kind !== 'page' && ref.kind !== 'anchor') || typeof ref.page !== 'string')
    return null;
  if (typeof ref.space === 'string' && ref.space !== from.spaceId) return null;
  return (await treeIndex(ctx, from.revision)).byId.get(ref.page) ?? null;
}

LinkPageNode.implement({
  description: 'An entry of the table of contents pointing elsewhere: a URL, a page, a space, …',
  interfaces: [PageInterface],
  fields: (t) => ({
    target: t.field({
      type: 'JSON',
      description: 'What it points at: a content reference (`{ kind: "url", url }`, `{ kind: "page", page }`, …).',
      resolve: (p) => p.page.target ?? null,
    }),
    url: t.string({
      nullable: true,
      description: 'The URL it points at; null when it points at content.',
      resolve: (p) => refUrl(p.page.target) ?? p.page.href ?? null,
    }),
    targetPage: t.field({
      type: PageInterface,
      nullable: true,
      description: 'The page of the same revision it points at; null when it points elsewhere.',
      resolve: (p, _args, ctx) => refPage(ctx, p, p.page.target),
    }),
  }),
});

ComputedPageNode.implement({
  description: 'Pages generated from a source, such as an OpenAPI description.',
  interfaces: [PageInterface],
  fields: (t) => ({
    computed: t.field({
      type: 'JSON',
      description: 'The source the pages are generated from.',
      resolve: (p) => p.page.computed ?? {},
    }),
  }),
});

builder.objectFields(RevisionNode, (t) => ({
  pages: t.field({
    type: [PageInterface],
    description:
      'The page tree: the top-level pages, each with its `children`. Comes with the revision; when the revision is asked for nothing else, its tree alone is read (one request, shared with `page`).',
    extensions: upstream.fetch(1),
    resolve: async (r, _args, ctx) => (await treeIndex(ctx, r)).top,
  }),
  page: t.field({
    type: PageInterface,
    nullable: true,
    description:
      'A page of the revision by id or by path (give one): "" is the landing page (the first document page). Null with NOT_FOUND when there is no such page. Links and computed pages have no path.',
    args: {
      id: t.arg.id({ description: 'Platform id or global ID of the page.' }),
      path: t.arg.string({ description: 'Path of the page (`getting-started/install`); "" for the landing page.' }),
    },
    extensions: upstream.fetch(1),
    resolve: async (r, args, ctx) => {
      if ((args.id == null) === (args.path == null))
        throw new BadUserInputError('Give exactly one of id or path', ['id']);
      if (r.onePage) {
        // Asked alone and without its parent: the page is read by itself.
        const page =
          args.id != null
            ? getPage(ctx.api, r, revisionPartId(String(args.id), PAGE_NODE_TYPENAMES, r.spaceId))
            : getPageByPath(ctx.api, r, args.path!.replace(/^\/+|\/+$/g, ''));
        return detachedPage(await page, r.spaceId, r.id, r);
      }
      const index = await treeIndex(ctx, r);
      if (args.id != null) {
        const id = revisionPartId(String(args.id), PAGE_NODE_TYPENAMES, r.spaceId);
        const page = index.byId.get(id);
        if (!page) throw notFound('Page', id);
        return page;
      }
      const page = pageAtPath(index, args.path!);
      if (!page) throw notFound('Page at path', args.path!);
      return page;
    },
  }),
}));
