import { cacheNamespace, textHeapBytes } from '../cache.js';
import { now } from '../http.js';
import type { Db } from '../store/db.js';
import type { JSONDocument } from '../../document/model.js';
import { pageIndex } from './pages.js';
import { getDocument, loadRevision, PreparedDocument, type ContentPage, type RevisionContent } from './revisions.js';
import {
  clearStagedIndex,
  indexedRevision,
  replaceSpaceIndex,
  stageSpaceIndex,
  type IndexedPage,
  type IndexUpdate,
} from './search.js';
import { documentSections } from '../../document/text.js';

/**
 * The current revision of a space and what follows it: moving the pointer reindexes the space
 * for search in the same transaction, so search never shows content the space does not have.
 */

/** Called in the transaction that moved a space's current revision. */
export type CurrentRevisionListener = (spaceId: string, revisionId: string) => void;

const listeners = new WeakMap<Db, Set<CurrentRevisionListener>>();

/**
 * Calls `listener` whenever a space of `db` gets a new current revision (a merge, a Git import,
 * a template, a translation run…), inside the transaction that moves it, so what it writes (a
 * job to enqueue) commits or rolls back with the move. Returns the function that stops it.
 */
export function onCurrentRevision(db: Db, listener: CurrentRevisionListener): () => void {
  let set = listeners.get(db);
  if (!set) {
    set = new Set();
    listeners.set(db, set);
  }
  set.add(listener);
  return () => {
    listeners.get(db)?.delete(listener);
  };
}

/**
 * Makes `revisionId` the current revision of a space (and reindexes it), in one transaction;
 * returns what the reindexing did.
 */
export function setCurrentRevision(db: Db, spaceId: string, revisionId: string): IndexUpdate {
  return db.transaction(() => {
    db.prepare('UPDATE spaces SET revision = ?, updated_at = ? WHERE id = ?').run(revisionId, now(), spaceId);
    const update = reindexSpace(db, spaceId, revisionId);
    for (const listener of listeners.get(db) ?? []) listener(spaceId, revisionId);
    return update;
  })();
}

/**
 * Indexes a revision of a space for search (replacing what was indexed for the space). Pages
 * whose text is the same as in the revision indexed before (same title, description, document
 * and noIndex) are not read again: an edit of one page reads one page, whatever the space's size.
 */
export function reindexSpace(db: Db, spaceId: string, revisionId: string): IndexUpdate {
  const revision = loadRevision(db, spaceId, revisionId);
  if (!revision) throw new Error(`Revision ${revisionId} of space ${spaceId} is missing`);
  return replaceSpaceIndex(db, spaceId, revisionId, pagesForIndex(db, spaceId, revision.content));
}

/**
 * Brings the search index of every space up to its current revision: after a migration, or
 * when a crash came between a write and its reindexing (they share a transaction, so only an
 * index built by an older release can be behind).
 */
export function catchUpSearchIndex(db: Db): number {
  clearStagedIndex(db);
  const spaces = db.prepare('SELECT id, revision FROM spaces').all() as Array<{ id: string; revision: string }>;
  let reindexed = 0;
  for (const space of spaces) {
    if (indexedRevision(db, space.id) === space.revision) continue;
    db.transaction(() => reindexSpace(db, space.id, space.revision))();
    reindexed += 1;
  }
  return reindexed;
}

/**
 * The document pages of a content as the search index takes them: sections (read only when the
 * index asks), ancestors, noIndex; pages whose text is that of the same page in `indexed` (the
 * content the index holds) are marked `unchanged`.
 */
export function indexedPages(
  db: Db,
  spaceId: string,
  content: RevisionContent,
  indexed?: RevisionContent,
): IndexedPage[] {
  const indexedText = new Map<string, string>();
  if (indexed)
    for (const { page } of pageIndex(indexed).ordered)
      if (page.type === 'document') indexedText.set(page.id, textKey(page));
  const pages: IndexedPage[] = [];
  for (const placed of pageIndex(content).ordered) {
    const { page } = placed;
    if (page.type !== 'document') continue;
    const ancestors: string[] = [];
    for (let parent = placed.parent; parent; parent = parent.parent) ancestors.unshift(parent.page.title);
    pages.push({
      id: page.id,
      title: page.title,
      path: placed.path ?? '',
      description: page.description ?? null,
      ancestors,
      noIndex: page.noIndex ?? false,
      sections: () => (page.documentId ? sectionsOf(db, spaceId, page.documentId) : []),
      unchanged: indexedText.get(page.id) === textKey(page),
      textKey: textKey(page),
    });
  }
  return pages;
}

/**
 * `indexedPages` of a space's content against what the space's search index holds now (the
 * content of the revision it indexed, if any): pages whose text it holds already are `unchanged`.
 */
function pagesForIndex(db: Db, spaceId: string, content: RevisionContent): IndexedPage[] {
  const before = indexedRevision(db, spaceId);
  const indexed = before ? loadRevision(db, spaceId, before)?.content : undefined;
  return indexedPages(db, spaceId, content, indexed);
}

/** What of a page its index rows are made of (its document by id: a document never changes). */
const textKey = (page: ContentPage) =>
  JSON.stringify([page.title, page.description ?? null, page.documentId ?? null, page.noIndex ?? false]);

/** Sections of documents by id: a document never changes, and most pages keep theirs from one revision to the next. */
const sectionCache = cacheNamespace<ReturnType<typeof documentSections>>('sections');

function sectionsOf(db: Db, spaceId: string, documentId: string): ReturnType<typeof documentSections> {
  const known = sectionCache.get(db, `${spaceId}/${documentId}`);
  if (known) return known;
  const document = getDocument<JSONDocument>(db, spaceId, documentId);
  // A document not stored (yet: see `stageIndex`) has no sections, and none are kept for it.
  return document ? keepSections(db, spaceId, documentId, documentSections(document)) : [];
}

function keepSections(
  db: Db,
  spaceId: string,
  documentId: string,
  sections: ReturnType<typeof documentSections>,
): ReturnType<typeof documentSections> {
  const chars = sections.reduce(
    (sum, section) => sum + section.title.length + section.body.length + (section.id?.length ?? 0),
    0,
  );
  sectionCache.set(db, `${spaceId}/${documentId}`, sections, textHeapBytes(chars, sections.length + 1));
  return sections;
}

/**
 * Writes ahead, in the job's time slices, the search rows of the pages of `content` whose text
 * the space's index does not hold, for the transaction that will make it the space's revision
 * (see `stageSpaceIndex`). Their documents' sections must be ready (`prepareSections`): the
 * documents themselves may not be stored yet.
 */
export async function stageIndex(db: Db, spaceId: string, content: RevisionContent): Promise<void> {
  await stageSpaceIndex(db, spaceId, pagesForIndex(db, spaceId, content));
}

/**
 * Prepares a document a job is about to store in a space (`PreparedDocument`) and reads its
 * search sections, before the transaction that stores it and moves the space's revision: the
 * indexing in that transaction then finds them ready instead of reading every new document on
 * the request thread. Without a space (not created yet), the sections are read then.
 */
export function prepareDocument(db: Db, spaceId: string | undefined, document: unknown): PreparedDocument {
  let completed: JSONDocument | undefined;
  const prepared = new PreparedDocument(document, (value) => (completed = value));
  if (spaceId && !sectionCache.get(db, `${spaceId}/${prepared.id}`))
    keepSections(db, spaceId, prepared.id, documentSections(completed!));
  return prepared;
}
