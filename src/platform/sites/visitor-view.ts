import Database from 'better-sqlite3';
import { evaluateForVisitor } from '../adaptive/evaluate-document.js';
import { contentForVisitor } from '../adaptive/page-conditions.js';
import { cacheNamespace, textHeapBytes } from '../cache.js';
import { canonicalJson, hashOf } from '../content/blobs.js';
import { indexedPages } from '../content/current.js';
import type { JSONDocument } from '../../document/model.js';
import { documentRefs } from '../content/links.js';
import { pageIndex } from '../content/pages.js';
import type { ContentReader } from '../content/reader.js';
import {
  getDocument,
  loadRevision,
  type ContentPage,
  type ContentRef,
  type Revision,
  type RevisionContent,
  type Variables,
} from '../content/revisions.js';
import { replaceSpaceIndex, searchSpace } from '../content/search.js';
import { documentSections } from '../../document/text.js';
import type { Db } from '../store/db.js';
import { SEARCH_SCHEMA, SEARCH_UPDATE_TRIGGER } from '../store/migrations.js';

/**
 * The one place that decides what a site visitor (the bearer of a resolved URL's API token) sees
 * of a revision, for their claims:
 * - pages: those whose condition holds (a page hidden hides its children);
 * - documents: the bodies of those pages and of the reusable contents they use, evaluated for
 *   the claims (conditional blocks resolved, a condition that does not parse hiding its block);
 *   no other document of the space;
 * - files and reusable contents: those the visible documents (and page covers) use;
 * - search: over that view only, so a hidden page or block is neither found nor excerpted.
 * Every route reads through the request's `ContentReader`, which for a visitor is this view.
 */

type Claims = Record<string, unknown>;

/** A revision as one visitor sees it. */
interface VisitorView {
  revision: Revision;
  /** Readable documents, with the variables of the page they are the body of (none for reusable contents). */
  documents: Map<string, Variables>;
  /**
   * Documents of visible pages in which the visitor's claims hide something, with the hash of
   * what the visitor reads of them (re-evaluated when indexed, not kept).
   */
  narrowed: Map<string, string>;
  /** Whether the visitor sees less of the pages than the space's search index holds. */
  hidesIndexedText: boolean;
  /**
   * What the visitor's search index depends on: the pages hidden from them and what they read
   * of the narrowed documents. Visitors whose claims differ but hide the same things share it.
   */
  indexKey: string;
}

/**
 * Views, in the platform's cache (`cache.ts`): a view is read by every request of its visitor, and
 * computing it reads every page's condition and every conditional document.
 */
const views = cacheNamespace<VisitorView>('visitor-view');

/**
 * Heap a view keeps of its own: an id or a hash and a small object for each document, page, file
 * and reusable content it lists. The pages, files and reusable contents themselves are the
 * revision's, shared with the content cache (only the pages on the way to a hidden one are copies).
 */
function viewHeapBytes(view: VisitorView): number {
  const { content } = view.revision;
  const entries =
    view.documents.size +
    view.narrowed.size +
    pageIndex(content).ordered.length +
    content.files.length +
    content.reusableContents.length;
  return textHeapBytes(64 * entries, entries);
}

/** The visitor's view of a revision (computed once per revision and claims, then kept). */
function viewOf(db: Db, revision: Revision, claims: Claims): VisitorView {
  const key = `${revision.spaceId}\u0000${revision.id}\u0000${canonicalJson(claims)}`;
  const known = views.get(db, key);
  if (known) return known;
  const view = computeView(db, revision, claims);
  views.set(db, key, view, viewHeapBytes(view));
  return view;
}

/** What a visitor's view needs of a stored document, whoever reads it (documents never change). */
interface DocumentFacts {
  /** Its conditional blocks: the document must be evaluated for each visitor. */
  conditional: boolean;
  /** Its references, when it has no conditional block. */
  refs: ContentRef[];
}

/** Facts of documents, in the platform's cache; `null` for a document the store does not hold. */
const facts = cacheNamespace<DocumentFacts | null>('visitor-document-facts');

function hasConditional(nodes: unknown): boolean {
  if (!Array.isArray(nodes)) return false;
  return nodes.some(
    (node: { type?: unknown; nodes?: unknown; fragments?: unknown }) =>
      node?.type === 'if' || hasConditional(node?.nodes) || hasConditional(node?.fragments),
  );
}

function factsOf(
  db: Db,
  spaceId: string,
  documentId: string,
  document: () => JSONDocument | undefined,
): DocumentFacts | null {
  const key = `${spaceId}\u0000${documentId}`;
  const known = facts.get(db, key);
  if (known !== undefined) return known;
  const raw = document();
  const found = raw
    ? hasConditional(raw.nodes)
      ? { conditional: true, refs: [] }
      : { conditional: false, refs: documentRefs(raw) }
    : null;
  facts.set(db, key, found, textHeapBytes(key.length, 1 + (found?.refs.length ?? 0)));
  return found;
}

function computeView(db: Db, revision: Revision, claims: Claims): VisitorView {
  const stored = revision.content;
  const pages = contentForVisitor(stored, claims);
  const documents = new Map<string, Variables>();
  const narrowed = new Map<string, string>();
  const files = new Set<string>();
  const reusables = new Set<string>();
  const ownSpace = (ref: Record<string, unknown>) => typeof ref.space !== 'string' || ref.space === revision.spaceId;

  const use = (refs: readonly ContentRef[]): void => {
    for (const ref of refs) {
      if (!ownSpace(ref)) continue;
      if (ref.kind === 'file') files.add(String(ref.file));
      if (ref.kind === 'reusable-content' && !reusables.has(String(ref.reusableContent))) {
        reusables.add(String(ref.reusableContent));
        const reusable = stored.reusableContents.find((item) => item.id === ref.reusableContent);
        if (reusable?.documentId) read(reusable.documentId, {}, false);
      }
    }
  };
  // Only documents with conditional blocks are evaluated for the claims; the others are read once for everyone.
  const read = (documentId: string, vars: Variables, pageBody: boolean): void => {
    if (documents.has(documentId)) return;
    documents.set(documentId, vars);
    const raw = () => getDocument<JSONDocument>(db, revision.spaceId, documentId);
    const known = factsOf(db, revision.spaceId, documentId, raw);
    if (!known) return;
    if (!known.conditional) {
      use(known.refs);
      return;
    }
    const { document, hidden } = evaluateForVisitor(raw()!, {
      space: { vars: stored.variables },
      page: { vars },
      visitor: { claims },
    });
    if (pageBody && hidden > 0) narrowed.set(documentId, hashOf(canonicalJson(document)));
    use(documentRefs(document));
  };
  for (const { page } of pageIndex(pages).ordered) {
    // A cover is a reference like those of documents.
    if (page.cover) use(documentRefs({ nodes: [{ data: page.cover }] }));
    if (page.type === 'document' && page.documentId) read(page.documentId, page.variables ?? {}, true);
  }
  const content: RevisionContent = {
    ...pages,
    files: stored.files.filter((file) => files.has(file.id)),
    reusableContents: stored.reusableContents.filter((item) => reusables.has(item.id)),
  };
  const visible = new Set(pageIndex(pages).ordered.map((placed) => placed.page.id));
  const hiddenPages = pageIndex(stored)
    .ordered.filter((placed) => !visible.has(placed.page.id))
    .map((placed) => placed.page.id);
  return {
    revision: { ...revision, content },
    documents,
    narrowed,
    hidesIndexedText: pages !== stored || narrowed.size > 0,
    indexKey: hashOf(JSON.stringify([revision.spaceId, hiddenPages, [...narrowed]])),
  };
}

/**
 * A search index of the visitor's view of a space's current revision: the pages they see,
 * their narrowed documents as they read them. Built in memory with the schema of the store's
 * index, so that search ranks and excerpts exactly as it does for members (bm25 statistics
 * included: hidden text weighs on no score). Kept per view (`indexKey`: visitors who are
 * hidden the same things share one) within a budget of text; a new revision that hides the
 * same things updates it as the store's index is updated, rewriting only the pages that changed.
 * The index holds the space's pages in INDEX_PARTS parts (each page in the part its id hashes
 * to, indexed as a space of its own): a first build writes one part at a time and lets other
 * requests run between, and each part is replaced as a whole space would be. bm25 statistics
 * are the whole index's, whatever the parts.
 */
async function viewIndex(db: Db, view: VisitorView, claims: Claims): Promise<Db> {
  const key = view.indexKey;
  let cache = viewIndexes.get(db);
  if (!cache) {
    cache = new Map();
    viewIndexes.set(db, cache);
  }
  const { revision } = view;
  const known = cache.get(key);
  if (known) {
    // Most recently used last: the first are dropped first.
    cache.delete(key);
    cache.set(key, known);
  }
  if (known?.revision === revision.id) return known.index;
  let builds = building.get(db);
  if (!builds) {
    builds = new Map();
    building.set(db, builds);
  }
  const pending = builds.get(key);
  if (pending?.revision === revision.id) return pending.index;
  const build = { revision: revision.id, index: buildViewIndex(db, view, claims, known, cache) };
  builds.set(key, build);
  try {
    return await build.index;
  } finally {
    if (builds.get(key) === build) builds.delete(key);
  }
}

/**
 * Search indexes of views kept per database, and the text they may hold together. Not in the
 * platform's cache (`cache.ts`): an index is an SQLite database in memory, outside the heap whose
 * bytes the cache estimates, that must be closed when it is dropped (the cache drops values
 * without a word), and one index may hold more than the quarter of the cache's budget it keeps.
 */
const MAX_VIEW_INDEXES = 8;
const MAX_VIEW_INDEX_CHARACTERS = 8 * 1024 * 1024;
const viewIndexes = new WeakMap<Db, Map<string, { index: Db; revision: string; characters: number }>>();

/** Parts of a view's index: a first build writes one, then lets other requests run. */
const INDEX_PARTS = 32;
const building = new WeakMap<Db, Map<string, { revision: string; index: Promise<Db> }>>();

/** The ids under which the parts of a space's view index are stored, in order. */
const partIds = (spaceId: string): string[] =>
  Array.from({ length: INDEX_PARTS }, (_, part) => `${spaceId}\u0000${String(part).padStart(2, '0')}`);

/** The part of a page: FNV-1a of its id, so that a page stays in its part from one revision to the next. */
function partOf(pageId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < pageId.length; i += 1) hash = Math.imul(hash ^ pageId.charCodeAt(i), 0x01000193) >>> 0;
  return hash % INDEX_PARTS;
}
async function buildViewIndex(
  db: Db,
  view: VisitorView,
  claims: Claims,
  known: { index: Db; revision: string; characters: number } | undefined,
  cache: Map<string, { index: Db; revision: string; characters: number }>,
): Promise<Db> {
  const { revision } = view;
  const placed = pageIndex(revision.content).byId;
  // Sections are read as the index asks for them (a first build, a page that changed): a page
  // whose document the view narrows is indexed as the visitor reads it.
  const pages = indexedPages(db, revision.spaceId, revision.content).map((page) => {
    const documentId = placed.get(page.id)?.page.documentId;
    if (documentId === undefined || !view.narrowed.has(documentId)) return page;
    const sections = () => {
      const raw = getDocument<JSONDocument>(db, revision.spaceId, documentId);
      if (!raw) return [];
      const context = {
        space: { vars: revision.content.variables },
        page: { vars: view.documents.get(documentId) ?? {} },
        visitor: { claims },
      };
      return documentSections(evaluateForVisitor(raw, context).document);
    };
    return { ...page, sections };
  });
  const parts = partIds(revision.spaceId).map((id) => ({ id, pages: [] as typeof pages }));
  for (const page of pages) parts[partOf(page.id)]!.pages.push(page);
  // An update rewrites only the pages that changed, at once; a first build yields between parts.
  const index = known?.index ?? newSearchIndex();
  for (const part of parts) {
    replaceSpaceIndex(index, part.id, revision.id, part.pages);
    if (!known) await new Promise((resolve) => setImmediate(resolve));
  }
  const size = index
    .prepare('SELECT coalesce(sum(length(section_title) + length(body)), 0) FROM search_rows')
    .pluck(true)
    .get() as number;
  const key = view.indexKey;
  const replaced = cache.get(key);
  cache.delete(key);
  if (replaced && replaced.index !== index) replaced.index.close();
  let characters = [...cache.values()].reduce((total, other) => total + other.characters, 0);
  while (cache.size > 0 && (cache.size >= MAX_VIEW_INDEXES || characters + size > MAX_VIEW_INDEX_CHARACTERS)) {
    const [oldest, evicted] = cache.entries().next().value!;
    cache.delete(oldest);
    evicted.index.close();
    characters -= evicted.characters;
  }
  cache.set(key, { index, revision: revision.id, characters: size });
  return index;
}

/** An empty search index in memory, with the store's schema. */
function newSearchIndex(): Db {
  const index = new Database(':memory:');
  index.exec(SEARCH_SCHEMA);
  index.exec(SEARCH_UPDATE_TRIGGER);
  return index;
}

/** The reader of a site visitor with these claims: every read is of their view. */
export function visitorContentReader(db: Db, claims: Claims): ContentReader {
  // The views this reader (one request) has read, by space and revision id.
  const read = new Map<string, VisitorView | undefined>();
  const view = (spaceId: string, revisionId: string): VisitorView | undefined => {
    const key = `${spaceId}\u0000${revisionId}`;
    if (!read.has(key)) {
      const stored = loadRevision(db, spaceId, revisionId);
      read.set(key, stored && viewOf(db, stored, claims));
    }
    return read.get(key);
  };
  const context = (revision: Revision, vars: Variables) => ({
    space: { vars: revision.content.variables },
    page: { vars },
    visitor: { claims },
  });
  return {
    revision: (spaceId, revisionId) => view(spaceId, revisionId)?.revision,
    document(revision, documentId, page) {
      // The revision given is a view (from `revision` above, perhaps with computed pages added): the view says what it holds.
      const vars = view(revision.spaceId, revision.id)?.documents.get(documentId);
      if (vars === undefined) return undefined;
      const raw = getDocument<JSONDocument>(db, revision.spaceId, documentId);
      return raw && evaluateForVisitor(raw, context(revision, page?.variables ?? vars)).document;
    },
    // A visitor's documents are evaluated for their claims: never the stored text.
    storedText: () => undefined,
    shown(revision, document, page?: ContentPage) {
      return evaluateForVisitor(document, context(revision, page?.variables ?? {})).document;
    },
    async search(space, query, window) {
      const seen = view(space.id, space.revision);
      if (!seen) return { count: 0, items: [] };
      if (!seen.hidesIndexedText) return searchSpace(db, space.id, query, window);
      // The parts are searched together and ranked as one space.
      return searchSpace(await viewIndex(db, seen, claims), partIds(space.id), query, window);
    },
    signedView: Buffer.from(canonicalJson(claims)).toString('base64url'),
  };
}

/** The reader a signed URL's `view` stands for (see `ContentReader.signedView`); undefined when it is not one. */
export function signedViewReader(db: Db, signedView: string): ContentReader | undefined {
  try {
    const claims = JSON.parse(Buffer.from(signedView, 'base64url').toString('utf8')) as unknown;
    return claims !== null && typeof claims === 'object' && !Array.isArray(claims)
      ? visitorContentReader(db, claims as Claims)
      : undefined;
  } catch {
    return undefined;
  }
}
