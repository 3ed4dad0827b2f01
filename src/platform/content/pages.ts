import type { ContentPage, RevisionContent } from './revisions.js';

/**
 * The pages of a revision as the API shows them: paths, the landing page, lookups by id and by
 * path (their JSON is in `json.ts`).
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
