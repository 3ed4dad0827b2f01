import type { Db } from '../store/db.js';
import { pageIndex, type PlacedPage } from './pages.js';
import type { ContentFile, ContentPage, ContentRef, RevisionContent } from './revisions.js';

/**
 * The links of a revision's documents: every content reference a page holds (links, mentions,
 * content-ref blocks, images, files, reusable contents), checked against the revision: `ok`,
 * `broken` (the target is not in the revision, or not in the space it names) or `in-app` (a URL
 * into the platform's own app, which should be a reference instead). Backlinks are the same
 * graph read the other way.
 */

export type LinkStatus = 'ok' | 'broken' | 'in-app';

/** One reference found in a page. */
export interface FoundLink {
  /** The page holding the reference. */
  from: PlacedPage;
  ref: ContentRef;
}

/** Where references point, with the pages that hold them. */
export interface LinkTarget {
  ref: ContentRef;
  /** Identity of the target (`page:<id>`, `url:<url>`, …), the grouping key. */
  key: string;
  status: LinkStatus;
  from: PlacedPage[];
}

/** What the link check needs to know beyond the revision itself. */
export interface LinkContext {
  db: Db;
  spaceId: string;
  /** The base URL of the app (`…/app`): URLs below it are `in-app`. */
  appUrl: string;
  /** Whether a page exists in the current content of another space. */
  pageInSpace(spaceId: string, pageId: string): boolean;
  /** Whether a space exists. */
  spaceExists(spaceId: string): boolean;
}

/** Every content reference in a JSON document, in document order (fragments included). */
export function documentRefs(document: unknown): ContentRef[] {
  const refs: ContentRef[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    const data = record.data as Record<string, unknown> | undefined;
    if (data && typeof data === 'object') {
      for (const field of ['ref', 'refDark'] as const) {
        const ref = data[field];
        if (isContentRef(ref)) refs.push(ref);
      }
    }
    if (Array.isArray(record.nodes)) visit(record.nodes);
    if (Array.isArray(record.fragments)) visit(record.fragments);
  };
  visit((document as { nodes?: unknown } | undefined)?.nodes);
  return refs;
}

function isContentRef(value: unknown): value is ContentRef {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string';
}

/** The links of every document page of a content, kept per content (which never changes). */
const found = new WeakMap<RevisionContent, FoundLink[]>();

/**
 * The links of a content's document pages, whose bodies `documentOf` reads (as the caller sees
 * them: a site visitor's links are those of their view).
 */
export function contentLinks(
  content: RevisionContent,
  documentOf: (page: ContentPage & { documentId: string }) => unknown,
): FoundLink[] {
  const known = found.get(content);
  if (known) return known;
  const links: FoundLink[] = [];
  for (const placed of pageIndex(content).ordered) {
    const { page } = placed;
    if (page.type !== 'document' || !page.documentId) continue;
    const document = documentOf({ ...page, documentId: page.documentId });
    for (const ref of documentRefs(document)) links.push({ from: placed, ref });
  }
  found.set(content, links);
  return links;
}

/** The identity of what a reference points at, relative to the current space. */
function targetKey(ref: ContentRef, spaceId: string): string {
  const space = typeof ref.space === 'string' && ref.space !== spaceId ? `${ref.space}/` : '';
  switch (ref.kind) {
    case 'page':
      return `page:${space}${String(ref.page)}`;
    case 'file':
      return `file:${space}${String(ref.file)}`;
    case 'anchor':
      return `anchor:${space}${String(ref.page ?? '')}#${String(ref.anchor)}`;
    case 'reusable-content':
      return `reusable-content:${space}${String(ref.reusableContent)}`;
    case 'url':
      return `url:${String(ref.url)}`;
    default:
      return `${ref.kind}:${JSON.stringify(ref)}`;
  }
}

/** The status of one reference. */
export function linkStatus(ref: ContentRef, content: RevisionContent, context: LinkContext): LinkStatus {
  const otherSpace = typeof ref.space === 'string' && ref.space !== context.spaceId ? ref.space : undefined;
  const index = pageIndex(content);
  switch (ref.kind) {
    case 'url':
      return typeof ref.url === 'string' && ref.url.startsWith(`${context.appUrl}/`) ? 'in-app' : 'ok';
    case 'page':
      if (otherSpace) return context.pageInSpace(otherSpace, String(ref.page)) ? 'ok' : 'broken';
      return index.byId.has(String(ref.page)) ? 'ok' : 'broken';
    case 'anchor':
      if (otherSpace)
        return ref.page === undefined || context.pageInSpace(otherSpace, String(ref.page)) ? 'ok' : 'broken';
      return ref.page === undefined || index.byId.has(String(ref.page)) ? 'ok' : 'broken';
    case 'file':
      if (otherSpace) return context.spaceExists(otherSpace) ? 'ok' : 'broken';
      return content.files.some((file) => file.id === ref.file) ? 'ok' : 'broken';
    case 'reusable-content':
      if (otherSpace) return context.spaceExists(otherSpace) ? 'ok' : 'broken';
      return content.reusableContents.some((item) => item.id === ref.reusableContent) ? 'ok' : 'broken';
    case 'space':
      return context.spaceExists(String(ref.space)) ? 'ok' : 'broken';
    default:
      return 'ok';
  }
}

/** The targets of the given links, each with its status and the pages pointing at it, in first-seen order. */
export function linkTargets(links: readonly FoundLink[], content: RevisionContent, context: LinkContext): LinkTarget[] {
  const targets = new Map<string, LinkTarget>();
  for (const link of links) {
    const key = targetKey(link.ref, context.spaceId);
    let target = targets.get(key);
    if (!target) {
      target = { ref: link.ref, key, status: linkStatus(link.ref, content, context), from: [] };
      targets.set(key, target);
    }
    if (!target.from.includes(link.from)) target.from.push(link.from);
  }
  return [...targets.values()];
}

/** The pages of a content that reference a page (or a file) of the same space, in tree order. */
export function backlinks(
  spaceId: string,
  content: RevisionContent,
  target: { page: string } | { file: ContentFile },
  documentOf: Parameters<typeof contentLinks>[1],
): PlacedPage[] {
  const pages: PlacedPage[] = [];
  for (const link of contentLinks(content, documentOf)) {
    const { ref } = link;
    if (typeof ref.space === 'string' && ref.space !== spaceId) continue;
    const hit =
      'page' in target
        ? (ref.kind === 'page' && ref.page === target.page) || (ref.kind === 'anchor' && ref.page === target.page)
        : ref.kind === 'file' && ref.file === target.file.id;
    if (hit && !pages.includes(link.from)) pages.push(link.from);
  }
  return pages;
}
