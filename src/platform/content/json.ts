import type { Links } from '../links.js';
import type { SemanticChange } from './changes.js';
import { downloadUrl } from './files.js';
import { pageIndex, type PageIndex, type PlacedPage } from './pages.js';
import { DEFAULT_LAYOUT, type ContentFile, type ContentPage, type Revision } from './revisions.js';
import type { SearchPageHit } from './search.js';
import type { Db } from '../store/db.js';

/** The JSON of a semantic change (`RevisionSemanticChange`). */
export function changeJson(change: SemanticChange, url: (file: ContentFile) => string): Record<string, unknown> {
  const page = (placed: PlacedPage) => ({
    id: placed.page.id,
    type: placed.page.type,
    title: placed.page.title,
    ...(placed.path !== undefined ? { path: placed.path } : {}),
  });
  const file = (item: ContentFile) => ({
    id: item.id,
    name: item.name,
    contentType: item.contentType,
    downloadURL: url(item),
  });
  switch (change.type) {
    case 'page_created':
    case 'page_deleted':
      return { type: change.type, page: page(change.page) };
    case 'page_edited':
      return { type: change.type, page: page(change.page), attributes: change.attributes };
    case 'page_moved':
      return {
        type: change.type,
        page: page(change.page),
        parent: {
          ...(change.parent.before ? { before: page(change.parent.before) } : {}),
          ...(change.parent.after ? { after: page(change.parent.after) } : {}),
        },
      };
    case 'file_created':
    case 'file_deleted':
      return { type: change.type, file: file(change.file) };
    case 'file_edited': {
      const { downloadURL, ...attributes } = change.attributes;
      return {
        type: change.type,
        file: file(change.file),
        attributes: {
          ...attributes,
          ...(downloadURL
            ? {
                downloadURL: {
                  before: url(downloadURL.before as ContentFile),
                  after: url(downloadURL.after as ContentFile),
                },
              }
            : {}),
        },
      };
    }
    case 'reusable_content_created':
    case 'reusable_content_deleted':
    case 'reusable_content_edited': {
      const item = change.reusableContent;
      return {
        type: change.type,
        reusableContent: { id: item.id, title: item.title, ...(item.documentId ? { document: item.documentId } : {}) },
        ...('attributes' in change ? { attributes: change.attributes } : {}),
      };
    }
    case 'variables_edited':
      return { type: change.type, variables: change.variables };
  }
}

/** A page of search results (`SearchPageResult`), with its app URLs. */
export function pageHitJson(page: SearchPageHit, spaceId: string, links: Links) {
  const app = (path: string) => `${links.app}/s/${spaceId}${path ? `/${path}` : ''}`;
  return {
    ...page,
    // The text before a page's first heading has no anchor: it is the page's own section.
    sections: page.sections.map((section) => ({
      ...section,
      id: section.id ?? page.id,
      urls: { app: app(section.path) },
    })),
    urls: { app: app(page.path) },
  };
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
  const children =
    (options.children ?? true)
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
        // A page generated by computed content names its source and seed instead of a document.
        ...(page.computed && page.computedSeed !== undefined
          ? { computed: page.computed, computedSeed: page.computedSeed }
          : {}),
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
  options: Omit<PageJsonOptions, 'spaceId' | 'body' | 'children'> & {
    fileJson: (file: Revision['content']['files'][number]) => unknown;
  },
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

/** The JSON of a file (`RevisionFile`). */
export function fileJson(
  db: Db,
  links: Pick<Links, 'files'>,
  file: ContentFile,
  metadata: boolean,
): Record<string, unknown> {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: downloadUrl(db, links, file),
    size: file.size,
    ...(file.dimensions ? { dimensions: file.dimensions } : {}),
    ...(metadata && file.git ? { git: file.git } : {}),
  };
}
