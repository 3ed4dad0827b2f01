import type { Links } from '../serialize.js';
import { DEFAULT_LAYOUT, type ContentPage, type Revision, type RevisionContent } from './revisions.js';

/**
 * The pages of a revision as the API shows them: paths, the landing page, lookups by id and by
 * path, and the JSON of each page variant.
 */

/** A page with where it sits in the tree. */
export interface PlacedPage {
  page: ContentPage;
  /** Complete path (document and group pages; `undefined` for links and computed pages). */
  path: string | undefined;
  /** The page it is nested in, if any. */
  parent: PlacedPage | undefined;
}

/** Every page of a content by id and by path, in tree order, and the landing page. */
export interface PageIndex {
  ordered: PlacedPage[];
  byId: Map<string, PlacedPage>;
  byPath: Map<string, PlacedPage>;
  /** The first document page (links and computed pages skipped, groups entered): path `""`. */
  landing: PlacedPage | undefined;
}

const indexes = new WeakMap<RevisionContent, PageIndex>();

/** The index of a content's pages (kept per content object, which never changes). */
export function pageIndex(content: RevisionContent): PageIndex {
  const known = indexes.get(content);
  if (known) return known;
  const index: PageIndex = { ordered: [], byId: new Map(), byPath: new Map(), landing: undefined };
  const walk = (pages: readonly ContentPage[], parent: PlacedPage | undefined) => {
    for (const page of pages) {
      const hasPath = page.type === 'document' || page.type === 'group';
      const path = hasPath ? joinPath(parent?.path, page.slug ?? '') : undefined;
      const placed: PlacedPage = { page, path, parent };
      index.ordered.push(placed);
      index.byId.set(page.id, placed);
      if (path !== undefined && !index.byPath.has(path)) index.byPath.set(path, placed);
      if (!index.landing && page.type === 'document') index.landing = placed;
      walk(page.pages, placed);
    }
  };
  walk(content.pages, undefined);
  indexes.set(content, index);
  return index;
}

function joinPath(parent: string | undefined, slug: string): string {
  return parent ? `${parent}/${slug}` : slug;
}

/**
 * The page at `path` (leading and trailing slashes ignored): `""` is the landing page, which
 * also keeps its own path.
 */
export function pageByPath(index: PageIndex, path: string): PlacedPage | undefined {
  const normalized = path.replace(/^\/+|\/+$/g, '');
  if (normalized === '') return index.landing;
  return index.byPath.get(normalized);
}

/** Options of the page JSON. */
export interface PageJsonOptions {
  spaceId: string;
  links: Links;
  /** Include Git metadata (`metadata=false` leaves it out). */
  metadata: boolean;
  /** The body of the page asked for (`format=document` or `format=markdown`), if asked; not of its children. */
  body?: ((page: ContentPage, path: string) => Record<string, unknown>) | undefined;
  /** Children are included (false for the pages listed in semantic changes). */
  children?: boolean;
}

/** The JSON of a page and its children (`RevisionPage`). */
export function pageJson(placed: PlacedPage, index: PageIndex, options: PageJsonOptions): Record<string, unknown> {
  const { page } = placed;
  // A body is the asked page's alone: its children are listed without theirs.
  const childOptions = options.body ? { ...options, body: undefined } : options;
  const children = (options.children ?? true)
    ? page.pages.map((child) => pageJson(index.byId.get(child.id)!, index, childOptions))
    : [];
  const base: Record<string, unknown> = { id: page.id, title: page.title };
  if (page.linkTitle) base.linkTitle = page.linkTitle;
  if (page.emoji) base.emoji = page.emoji;
  if (page.icon) base.icon = page.icon;
  if (page.condition) base.condition = page.condition;
  if (page.createdAt) base.createdAt = page.createdAt;
  if (page.updatedAt) base.updatedAt = page.updatedAt;
  switch (page.type) {
    case 'document': {
      const path = placed.path ?? '';
      return {
        ...base,
        kind: 'sheet',
        type: 'document',
        urls: { app: appUrl(options, path) },
        slug: page.slug ?? '',
        path,
        ...(page.description ? { description: page.description } : {}),
        pages: children,
        ...(options.metadata && page.git ? { git: page.git } : {}),
        layout: page.layout ?? DEFAULT_LAYOUT,
        ...(page.cover ? { cover: page.cover } : {}),
        ...(page.variables ? { variables: page.variables } : {}),
        hidden: page.hidden ?? false,
        noIndex: page.noIndex ?? false,
        noRobotsIndex: page.noRobotsIndex ?? false,
        ...(page.metaLinks ? { metaLinks: page.metaLinks } : {}),
        tags: [],
        ...(page.documentId ? { documentId: page.documentId } : {}),
        ...(options.body ? options.body(page, path) : {}),
      };
    }
    case 'group':
      return {
        ...base,
        kind: 'group',
        type: 'group',
        slug: page.slug ?? '',
        path: placed.path ?? '',
        hidden: page.hidden ?? false,
        noIndex: page.noIndex ?? false,
        noRobotsIndex: page.noRobotsIndex ?? false,
        pages: children,
      };
    case 'link':
      return {
        ...base,
        kind: 'link',
        type: 'link',
        target: page.target ?? { kind: 'url', url: page.href ?? '' },
        ...(page.href ? { href: page.href } : {}),
        hidden: page.hidden ?? false,
      };
    case 'computed':
      return { ...base, type: 'computed', computed: page.computed ?? {} };
  }
}

function appUrl(options: Pick<PageJsonOptions, 'spaceId' | 'links'>, path: string): string {
  return `${options.links.app}/s/${options.spaceId}${path ? `/${path}` : ''}`;
}

/** The JSON of a revision (`Revision`): its pages as a tree, files, reusable contents, variables. */
export function revisionJson(
  revision: Revision,
  space: { id: string; visibility: string },
  options: Omit<PageJsonOptions, 'spaceId' | 'body' | 'children'> & { fileJson: (file: Revision['content']['files'][number]) => unknown },
): Record<string, unknown> {
  const index = pageIndex(revision.content);
  const pageOptions: PageJsonOptions = { spaceId: space.id, links: options.links, metadata: options.metadata };
  const published = `${options.links.published}/${space.id}`;
  return {
    object: 'revision',
    id: revision.id,
    type: revision.type,
    parents: revision.parents,
    pages: revision.content.pages.map((page) => pageJson(index.byId.get(page.id)!, index, pageOptions)),
    files: revision.content.files.map(options.fileJson),
    reusableContents: revision.content.reusableContents.map((reusable) => ({
      id: reusable.id,
      title: reusable.title,
      ...(reusable.documentId ? { document: reusable.documentId } : {}),
      ...(options.metadata && reusable.git ? { git: reusable.git } : {}),
    })),
    tags: [],
    variables: revision.content.variables,
    createdAt: revision.createdAt,
    ...(options.metadata && revision.git ? { git: revision.git } : {}),
    urls: {
      app: `${options.links.app}/s/${space.id}/~/revisions/${revision.id}`,
      ...(space.visibility !== 'private' ? { published } : {}),
      ...(space.visibility === 'public' ? { public: published } : {}),
    },
  };
}
