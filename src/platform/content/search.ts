/**
 * Full-text search of page sections over SQLite FTS5.
 *
 * What is indexed: one row per section of every page that is not `noIndex` (a section is a
 * heading and the text under it; the text before the first heading is a section with no anchor),
 * or one row for a page that has no section. Each row carries its page's title and description
 * too, so a query can match words spread over a page's title and one of its sections.
 *
 * Storage: the rows live once in the plain table `search_rows`; two FTS5 indexes read their text
 * from it (external content) and are kept in step by triggers:
 * - `search_stem` (`porter unicode61 remove_diacritics 2`): whole words, stemmed, so
 *   "installing" finds "install" and "permissions" finds "permission";
 * - `search_raw` (`unicode61 remove_diacritics 2`, prefix indexes for 2 and 3 characters):
 *   words as written, for prefixes. Porter cannot serve prefixes: it stems the typed fragment and
 *   the indexed word differently ("configura" → "configura" but "configuration" → "configur";
 *   "deploy" → "deploi" but "deployment" → "deploy"), so search-as-you-type would lose results
 *   at some keystrokes and find them again at the next.
 * A query runs on both; a row found by both keeps its better score. Both fold case and remove
 * diacritics ("cafe" finds "café", also when written with a combining accent).
 *
 * Ranking: bm25 with column weights page title 10, section title 5, page description 2,
 * section body 1, given as a positive `score` (higher is better). A page scores as its best
 * section. Pages are ordered by score, then by space id and their order in the space's tree; `rank` is the
 * one-based position of a page in the whole ranked result, across spaces and windows.
 *
 * Query: the user's text is never FTS5 syntax. It is cut at white space into terms; each term is
 * quoted (a term like `built-in` or `col:term` becomes the phrase "built in" / "col term"), terms
 * without any letter or digit are dropped, and at most MAX_QUERY_TERMS are kept. All terms must
 * match; the last one may be the start of a word (2 characters or more). When no row contains all
 * the terms, rows containing any of them are returned instead (bm25 favours rows with more of them).
 *
 * Excerpts: a section's `body` is an excerpt of about EXCERPT_TOKENS words around the best match
 * (the start of the section when only the page matched), as an HTML fragment: the text is
 * escaped (`&`, `<`, `>`, `"`, `'`) and each match is wrapped in `<mark>…</mark>`; a cut is shown
 * as `…`. Runs of white space are collapsed into one space.
 */
import type { Db } from '../store/db.js';
import { pageToken, type PageOfResults, type PageWindow } from '../http.js';
import { writeInSlices } from '../slices.js';

/** A page as given to the index: its searchable text and what a result shows of it. */
export interface IndexedPage {
  id: string;
  title: string;
  /** Path of the page in the space (`getting-started/install`), without a leading slash. */
  path: string;
  description?: string | null;
  /** Titles of the ancestors, from the top level to the direct parent. */
  ancestors: string[];
  /** A page with `noIndex` is not indexed at all (its descendants are, unless flagged too). */
  noIndex: boolean;
  /**
   * In document order; `id` is the heading's anchor, null for the text before the first heading.
   * A function is called only when the page's text is read (not for an `unchanged` page).
   */
  sections: IndexedSection[] | (() => IndexedSection[]);
  /**
   * The caller knows that the page's text (title, description, sections, noIndex) is the one the
   * index holds for it already: its rows are kept and at most placed again, its text not read.
   */
  unchanged?: boolean;
  /**
   * What the page's text is made of (equal keys, equal text), when the caller can tell: rows
   * written ahead with the same key and place are taken over without being read.
   */
  textKey?: string;
}

/** What an update of a space's index did, in pages. */
export interface IndexUpdate {
  /** Pages whose text was read and compared with what was indexed. */
  read: number;
  /** Pages whose rows were written: new pages, and pages whose text changed. */
  written: number;
  /** Pages whose rows a job wrote ahead (`stageSpaceIndex`) and the update took over. */
  adopted: number;
  /** Pages whose rows only changed place (position, path, ancestors). */
  placed: number;
  /** Pages taken out of the index (gone, or now `noIndex`). */
  removed: number;
}

export interface IndexedSection {
  id: string | null;
  /** The heading's text; empty for the text before the first heading (shown with the page title). */
  title: string;
  /** Plain text of the section. */
  body: string;
}

export type SearchResultType = 'page' | 'section';

export interface SearchSectionHit {
  /** The heading's anchor; null for the text before the first heading. */
  id: string | null;
  title: string;
  /** The page's path, plus `#anchor` when the section has one. */
  path: string;
  score: number;
  /** `section` when the query matched the section's own title or text; `page` when it is shown
   * only because its page matched. */
  resultType: SearchResultType;
  /** Excerpt: escaped HTML text with matches in `<mark>…</mark>`. */
  body: string;
}

export interface SearchPageHit {
  id: string;
  title: string;
  description: string;
  path: string;
  score: number;
  /** One-based position of the page in the whole ranked result (across windows and spaces). */
  rank: number;
  /** `page` when a term matched the page's title or description, `section` otherwise. */
  resultType: SearchResultType;
  sections: SearchSectionHit[];
  ancestors: Array<{ title: string }>;
}

export interface SearchSpaceHit {
  spaceId: string;
  /** The score of the space's best page in the whole result. */
  score: number;
  pages: SearchPageHit[];
}

/** Most matching pages an organization search gives per space (its best). */
export const MAX_PAGES_PER_SPACE = 10;

/** Terms kept from a query; the rest is ignored. */
export const MAX_QUERY_TERMS = 32;
/** Pages ranked per query, best first; matching pages beyond them are neither counted nor returned. */
export const MAX_RANKED_PAGES = 10_000;
/** Sections listed under a page, best first. */
export const MAX_SECTIONS_PER_PAGE = 5;
/** Length of an excerpt, in words (FTS5 tokens). */
export const EXCERPT_TOKENS = 32;

/** Column weights for bm25, in the order of the FTS5 columns. */
const WEIGHTS = { pageTitle: 10, sectionTitle: 5, body: 1, pageDescription: 2 };

// ---------------------------------------------------------------------------------------------
// Indexing

/** The revision a space's index was built from, if it has one. */
export function indexedRevision(db: Db, spaceId: string): string | undefined {
  const row = db.prepare('SELECT revision_id FROM search_spaces WHERE space_id = ?').get(spaceId) as
    | { revision_id: string }
    | undefined;
  return row?.revision_id;
}

/** One row of the index as stored: a section of a page (or a page without sections). */
interface IndexRow {
  rowid?: number;
  page_id: string;
  page_position: number;
  section_position: number;
  page_title: string;
  section_title: string;
  body: string;
  page_description: string;
  page_path: string;
  section_id: string | null;
  ancestors: string;
}

/** The rows of a page, in section order. */
function rowsOf(page: IndexedPage, pagePosition: number): IndexRow[] {
  const sections = typeof page.sections === 'function' ? page.sections() : page.sections;
  const common = {
    page_id: page.id,
    page_position: pagePosition,
    page_title: clean(page.title),
    page_description: clean(page.description ?? ''),
    page_path: page.path,
    ancestors: JSON.stringify(page.ancestors.map(clean)),
  };
  if (sections.length === 0)
    return [{ ...common, section_position: -1, section_title: '', body: '', section_id: null }];
  return sections.map((section, position) => ({
    ...common,
    section_position: position,
    section_title: clean(section.title),
    body: clean(section.body),
    section_id: section.id,
  }));
}

/** Writes a row of the index under `key` (a space's id, or the key rows are written ahead under). */
function rowWriter(db: Db): (key: string, row: IndexRow) => void {
  const insert = db.prepare(
    `INSERT INTO search_rows (space_id, page_id, page_position, section_position, page_title, section_title,
       body, page_description, page_path, section_id, ancestors)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (key, row) => {
    insert.run(
      key,
      row.page_id,
      row.page_position,
      row.section_position,
      row.page_title,
      row.section_title,
      row.body,
      row.page_description,
      row.page_path,
      row.section_id,
      row.ancestors,
    );
  };
}

/** What of a row the full-text index holds: rows equal on it keep their index entries. */
const textOf = (row: Pick<IndexRow, 'page_title' | 'section_title' | 'body' | 'page_description'>) =>
  `${row.page_title}\u0000${row.section_title}\u0000${row.body}\u0000${row.page_description}`;

/**
 * Makes what is indexed for a space the given pages (in the space's tree order, which breaks ties
 * between equal scores). Only what changed is written: rows whose text is unchanged stay in the
 * full-text index and at most get their position, path or ancestors updated. Pages the caller
 * marks `unchanged` are not even read: after a one-page edit of a large space, that page alone is.
 * Pages a job wrote ahead (`stageSpaceIndex`) with the same text and place are taken over by one
 * statement that leaves the full-text index alone. Runs in the caller's transaction when there is one.
 */
export function replaceSpaceIndex(db: Db, spaceId: string, revisionId: string, pages: IndexedPage[]): IndexUpdate {
  return db.transaction(() => {
    const update: IndexUpdate = { read: 0, written: 0, adopted: 0, placed: 0, removed: 0 };
    // Where the rows are, without their text: the text is read only for the pages that need it.
    const stored = db
      .prepare(
        `SELECT rowid, page_id, page_position, section_position, page_path, section_id, ancestors
         FROM search_rows WHERE space_id = ? ORDER BY page_id, section_position`,
      )
      .all(spaceId) as PlacedRow[];
    const storedByPage = new Map<string, PlacedRow[]>();
    for (const row of stored) {
      const list = storedByPage.get(row.page_id);
      if (list) list.push(row);
      else storedByPage.set(row.page_id, [row]);
    }
    const ahead = takeStaged(db, spaceId);
    // Pages whose rows a job wrote ahead with the text and place they have here.
    const writtenAhead = new Set(
      pages
        .filter((page, pagePosition) => {
          const key = stagedKey(page, pagePosition);
          return key !== undefined && ahead.pages.get(page.id) === key;
        })
        .map((page) => page.id),
    );
    const adopted: string[] = [];
    // The text of the rows of the pages to compare: neither unchanged nor written ahead.
    const textOfRows = storedText(
      db,
      pages.flatMap((page) =>
        page.noIndex || page.unchanged || writtenAhead.has(page.id) ? [] : (storedByPage.get(page.id) ?? []),
      ),
    );
    const insert = rowWriter(db);
    const place = db.prepare(
      'UPDATE search_rows SET page_position = ?, page_path = ?, section_id = ?, ancestors = ? WHERE rowid = ?',
    );
    const gone: number[] = [];
    const placeRows = (old: PlacedRow[], wanted: Array<Omit<PlacedRow, 'rowid' | 'page_id' | 'section_position'>>) => {
      let moved = false;
      old.forEach((row, index) => {
        const next = wanted[index]!;
        if (
          row.page_position !== next.page_position ||
          row.page_path !== next.page_path ||
          row.section_id !== next.section_id ||
          row.ancestors !== next.ancestors
        ) {
          place.run(next.page_position, next.page_path, next.section_id, next.ancestors, row.rowid);
          moved = true;
        }
      });
      if (moved) update.placed += 1;
    };
    pages.forEach((page, pagePosition) => {
      if (page.noIndex) return;
      const old = storedByPage.get(page.id) ?? [];
      storedByPage.delete(page.id);
      if (page.unchanged && old.length) {
        // Same text, so the same sections and anchors: only the page's place may differ.
        const where = {
          page_position: pagePosition,
          page_path: page.path,
          ancestors: JSON.stringify(page.ancestors.map(clean)),
        };
        placeRows(
          old,
          old.map((row) => ({ ...where, section_id: row.section_id })),
        );
        return;
      }
      if (writtenAhead.has(page.id)) {
        // Written ahead with this text in this place: the rows only change hands.
        for (const row of old) gone.push(row.rowid);
        adopted.push(page.id);
        update.adopted += 1;
        return;
      }
      update.read += 1;
      const wanted = rowsOf(page, pagePosition);
      const sameText =
        old.length === wanted.length && old.every((row, index) => textOfRows.get(row.rowid) === textOf(wanted[index]!));
      if (sameText) {
        placeRows(old, wanted);
        return;
      }
      update.written += 1;
      for (const row of old) gone.push(row.rowid);
      for (const row of wanted) {
        insert(spaceId, row);
      }
    });
    // Pages gone (or now left out of search).
    for (const rows of storedByPage.values()) {
      for (const row of rows) gone.push(row.rowid);
      update.removed += 1;
    }
    if (adopted.length) {
      db.prepare(
        'UPDATE search_rows SET space_id = ? WHERE space_id = ? AND page_id IN (SELECT value FROM json_each(?))',
      ).run(spaceId, stagingKey(spaceId), JSON.stringify(adopted));
    }
    // Rows written ahead and not taken over go with the rows no page has any more.
    if (ahead.written)
      db.prepare('UPDATE search_rows SET space_id = ? WHERE space_id = ?').run(RETIRED, stagingKey(spaceId));
    removeRows(db, gone);
    db.prepare(
      `INSERT INTO search_spaces (space_id, revision_id, indexed_at) VALUES (?, ?, ?)
       ON CONFLICT (space_id) DO UPDATE SET revision_id = excluded.revision_id, indexed_at = excluded.indexed_at`,
    ).run(spaceId, revisionId, new Date().toISOString());
    return update;
  })();
}

/**
 * Rows no page shows any more. A few are deleted at once; more are handed to the sweep
 * (`sweepRetiredRows`): deleting a row costs the full-text index as much as writing it, and a
 * job that replaced thousands of pages would hold the thread for as long as their indexing.
 */
const DELETE_AT_ONCE = 64;

function removeRows(db: Db, rowids: number[]): void {
  if (rowids.length === 0) return;
  if (rowids.length <= DELETE_AT_ONCE) {
    db.prepare('DELETE FROM search_rows WHERE rowid IN (SELECT value FROM json_each(?))').run(JSON.stringify(rowids));
    return;
  }
  db.prepare('UPDATE search_rows SET space_id = ? WHERE rowid IN (SELECT value FROM json_each(?))').run(
    RETIRED,
    JSON.stringify(rowids),
  );
  sweepSoon(db);
}

/** The key of rows waiting to be deleted: a key no search names (space ids are letters and digits). */
const RETIRED = 'retired:';

const sweeping = new WeakSet<Db>();

/** Deletes retired rows after the current transaction, in slices; at most one sweep per database. */
function sweepSoon(db: Db): void {
  if (sweeping.has(db)) return;
  sweeping.add(db);
  setImmediate(() => {
    sweepRetiredRows(db)
      .catch(() => undefined) // The database closed meanwhile: the next start clears them.
      .finally(() => sweeping.delete(db));
  });
}

/** Deletes the retired rows, a slice at a time (a rolled-back move leaves none to delete). */
export async function sweepRetiredRows(db: Db): Promise<void> {
  for (;;) {
    if (!db.open) return;
    const rowids = db
      .prepare('SELECT rowid FROM search_rows WHERE space_id = ? LIMIT 2000')
      .pluck(true)
      .all(RETIRED) as number[];
    if (rowids.length === 0) return;
    const remove = db.prepare('DELETE FROM search_rows WHERE rowid = ?');
    await writeInSlices(db, rowids, (rowid) => remove.run(rowid));
  }
}

/**
 * The key under which rows of a space are written ahead of the transaction that moves its
 * revision (`stageSpaceIndex`): a key no search names, so these rows are never found.
 */
const stagingKey = (spaceId: string) => `${STAGED}${spaceId}`;
/** Space ids are made of letters and digits: no space's key starts so. */
const STAGED = 'staged:';

/**
 * What was written ahead, by space: for each page, the key of the text and place its rows were
 * written with (`stagedKey`). Rows written ahead by an earlier process are cleared at start, so
 * this process's memory tells what the staged rows hold without reading them.
 */
const staging = new WeakMap<Db, Map<string, Map<string, string>>>();

/** A page's rows are the same when their text (`textKey`) and their place are. */
const stagedKey = (page: IndexedPage, pagePosition: number) =>
  page.textKey === undefined ? undefined : JSON.stringify([page.textKey, pagePosition, page.path, page.ancestors]);

/** What was written ahead for a space, forgotten as it is taken (the move takes it over or retires it). */
function takeStaged(db: Db, spaceId: string): { pages: Map<string, string>; written: boolean } {
  const spaces = staging.get(db);
  const pages = spaces?.get(spaceId);
  spaces?.delete(spaceId);
  return { pages: pages ?? new Map(), written: pages !== undefined };
}

/**
 * Writes ahead the index rows of the pages whose text the index does not hold (not `unchanged`),
 * in the place they will have, in transactions of a slice each (`writeInSlices`): the costly part
 * of indexing (the full-text index's writes) is then done before the transaction that moves the
 * space's revision, whose `replaceSpaceIndex` takes the rows over in one statement when the page's
 * text and place are the ones it wants (and writes the rest itself). Rows it does not take are
 * retired then, or cleared at the next start (`clearStagedIndex`) after a crash.
 */
export async function stageSpaceIndex(db: Db, spaceId: string, pages: IndexedPage[]): Promise<void> {
  takeStaged(db, spaceId);
  db.prepare('UPDATE search_rows SET space_id = ? WHERE space_id = ?').run(RETIRED, stagingKey(spaceId));
  sweepSoon(db);
  const written = new Map<string, string>();
  let spaces = staging.get(db);
  if (!spaces) {
    spaces = new Map();
    staging.set(db, spaces);
  }
  spaces.set(spaceId, written);
  const insert = rowWriter(db);
  const ahead = pages.flatMap((page, pagePosition) => {
    const key = stagedKey(page, pagePosition);
    return page.noIndex || page.unchanged || key === undefined ? [] : [{ page, pagePosition, key }];
  });
  const stillStaging = () => staging.get(db)?.get(spaceId) === written;
  try {
    await writeInSlices(db, ahead, ({ page, pagePosition, key }) => {
      // A move of the space's revision between two slices took (and retired) what was written.
      if (!stillStaging()) return;
      for (const row of rowsOf(page, pagePosition)) {
        insert(stagingKey(spaceId), row);
      }
      written.set(page.id, key);
    });
  } catch (error) {
    // A slice rolled back: what its rows were is not known, so none is taken over.
    if (stillStaging()) written.clear();
    throw error;
  }
}

/** Removes rows written ahead and never used (a crash came between), and retired rows: at start. */
export function clearStagedIndex(db: Db): void {
  db.prepare('DELETE FROM search_rows WHERE substr(space_id, 1, ?) = ? OR space_id = ?').run(
    STAGED.length,
    STAGED,
    RETIRED,
  );
}

/** Where a stored row is shown: what `replaceSpaceIndex` reads of every row of a space. */
type PlacedRow = Pick<
  IndexRow,
  'page_id' | 'page_position' | 'section_position' | 'page_path' | 'section_id' | 'ancestors'
> & { rowid: number };

/** The indexed text (`textOf`) of stored rows, by rowid. */
function storedText(db: Db, rows: PlacedRow[]): Map<number, string> {
  const texts = new Map<number, string>();
  if (rows.length === 0) return texts;
  const found = db
    .prepare(
      'SELECT rowid, page_title, section_title, body, page_description FROM search_rows WHERE rowid IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(rows.map((row) => row.rowid))) as Array<
    Pick<IndexRow, 'page_title' | 'section_title' | 'body' | 'page_description'> & { rowid: number }
  >;
  for (const row of found) texts.set(row.rowid, textOf(row));
  return texts;
}

/** Removes everything indexed for a space (when it is deleted). */
export function removeSpaceIndex(db: Db, spaceId: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM search_rows WHERE space_id = ?').run(spaceId);
    db.prepare('DELETE FROM search_spaces WHERE space_id = ?').run(spaceId);
  })();
}

// Control characters are separators for the tokenizer; they are removed so that the excerpt
// markers (\u0001, \u0002) can only come from FTS5.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

function clean(text: string): string {
  return String(text ?? '')
    .normalize('NFC')
    .replace(CONTROL, ' ');
}

// ---------------------------------------------------------------------------------------------
// Queries

export interface SearchQuery {
  /** The terms, as typed (no FTS5 syntax is interpreted); each becomes a quoted phrase. */
  terms: string[];
  /** Whether the last term is matched as the start of a word. */
  lastIsPrefix: boolean;
}

const TOKEN_CHARACTER = /[\p{L}\p{N}\p{Co}]/u;
const TOKENS = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;

/** Cuts user text into terms; never throws. An empty `terms` means there is nothing to search. */
export function parseSearchQuery(query: string): SearchQuery {
  const text = typeof query === 'string' ? query.normalize('NFC').replace(CONTROL, ' ') : '';
  const terms = text
    .split(/\s+/u)
    .filter((term) => TOKEN_CHARACTER.test(term))
    .slice(0, MAX_QUERY_TERMS);
  const lastTokens = terms.length ? terms[terms.length - 1]!.match(TOKENS) : null;
  const lastToken = lastTokens?.[lastTokens.length - 1]?.replace(/\p{M}/gu, '') ?? '';
  return { terms, lastIsPrefix: [...lastToken].length >= 2 };
}

/**
 * The FTS5 MATCH expression for a query: every term a quoted string (double quotes doubled), so
 * that nothing in it is syntax; `prefix` puts `*` after the last term; `any` joins with OR.
 * Null when there is no term.
 */
export function matchExpression(query: SearchQuery, options: { prefix: boolean; any: boolean }): string | null {
  if (query.terms.length === 0) return null;
  const quoted = query.terms.map((term) => `"${term.replaceAll('"', '""')}"`);
  if (options.prefix && query.lastIsPrefix) quoted[quoted.length - 1] += '*';
  return quoted.join(options.any ? ' OR ' : ' AND ');
}

type Index = 'search_stem' | 'search_raw';
const INDEXES: Index[] = ['search_stem', 'search_raw'];

/** The two MATCH expressions of a query: stemmed whole words, and words as written with a prefix. */
function expressions(query: SearchQuery, any: boolean): Record<Index, string> {
  return {
    search_stem: matchExpression(query, { prefix: false, any })!,
    search_raw: matchExpression(query, { prefix: true, any })!,
  };
}

/** A page of the ranked result. */
interface RankedPage {
  spaceId: string;
  pageId: string;
  score: number;
}

/** A matched row of a page in the window. */
interface MatchedRow {
  rowid: number;
  spaceId: string;
  pageId: string;
  sectionPosition: number;
  score: number;
  /** Part of the score from the page's title and description. */
  pageScore: number;
  /** Part of the score from the section's title and body. */
  sectionScore: number;
  index: Index;
}

const W = WEIGHTS;
const score = (index: Index, w: typeof WEIGHTS) =>
  `max(0, -bm25(${index}, ${w.pageTitle}, ${w.sectionTitle}, ${w.body}, ${w.pageDescription}))`;
const TOTAL = (index: Index) => score(index, W);
const PAGE_PART = (index: Index) => score(index, { ...W, sectionTitle: 0, body: 0 });
const SECTION_PART = (index: Index) => score(index, { ...W, pageTitle: 0, pageDescription: 0 });

// The space filter sits inside each arm (CROSS JOIN keeps FTS5 in the lead) so that bm25 is
// only computed for rows of the spaces searched.
const arm = (index: Index, match: string) => `
  SELECT r.space_id AS spaceId, r.page_id AS pageId, r.page_position AS pagePosition, ${TOTAL(index)} AS score
  FROM ${index} CROSS JOIN search_rows r ON r.rowid = ${index}.rowid
  WHERE ${index} MATCH ${match} AND r.space_id IN (SELECT value FROM json_each(@spaces))`;
const RANK_SQL = `
  SELECT spaceId, pageId, max(score) AS score, min(pagePosition) AS pagePosition
  FROM (${arm('search_stem', '@stem')} UNION ALL ${arm('search_raw', '@raw')})
  GROUP BY spaceId, pageId
  ORDER BY score DESC, spaceId, pagePosition, pageId
  LIMIT ${MAX_RANKED_PAGES}`;

/** Every matching page of the given spaces (up to MAX_RANKED_PAGES), best first. */
function rankPages(db: Db, spaceIds: string[], query: SearchQuery): { pages: RankedPage[]; any: boolean } {
  const spaces = JSON.stringify([...new Set(spaceIds.filter((id) => typeof id === 'string'))]);
  if (spaces === '[]' || query.terms.length === 0) return { pages: [], any: false };
  const run = (any: boolean): RankedPage[] => {
    const match = expressions(query, any);
    try {
      return db.prepare(RANK_SQL).all({ stem: match.search_stem, raw: match.search_raw, spaces }) as RankedPage[];
    } catch {
      // The expressions are only quoted strings; should FTS5 still refuse one, nothing matches.
      return [];
    }
  };
  const pages = run(false);
  if (pages.length === 0 && query.terms.length > 1) return { pages: run(true), any: true };
  return { pages, any: false };
}

const rowsSql = (index: Index) => `
  SELECT r.rowid AS rowid, r.space_id AS spaceId, r.page_id AS pageId, r.section_position AS sectionPosition,
    ${TOTAL(index)} AS score, ${PAGE_PART(index)} AS pageScore, ${SECTION_PART(index)} AS sectionScore
  FROM ${index} CROSS JOIN search_rows r ON r.rowid = ${index}.rowid
  WHERE ${index} MATCH ? AND r.space_id IN (SELECT value FROM json_each(?))
    AND r.page_id IN (SELECT value FROM json_each(?))`;

/** The matched rows of the given pages, each with the index that scored it best. */
function pageRows(db: Db, query: SearchQuery, any: boolean, pages: RankedPage[]): Map<string, MatchedRow[]> {
  const key = (spaceId: string, pageId: string) => JSON.stringify([spaceId, pageId]);
  const byPage = new Map<string, MatchedRow[]>(pages.map((page) => [key(page.spaceId, page.pageId), []]));
  const spaces = JSON.stringify([...new Set(pages.map((page) => page.spaceId))]);
  const pageIds = JSON.stringify([...new Set(pages.map((page) => page.pageId))]);
  const match = expressions(query, any);
  const best = new Map<number, MatchedRow>();
  for (const index of INDEXES) {
    let rows: Omit<MatchedRow, 'index'>[];
    try {
      rows = db.prepare(rowsSql(index)).all(match[index], spaces, pageIds) as Omit<MatchedRow, 'index'>[];
    } catch {
      rows = [];
    }
    for (const row of rows) {
      const seen = best.get(row.rowid);
      if (!seen || row.score > seen.score) best.set(row.rowid, { ...row, index });
    }
  }
  // A page id may exist in another of the spaces: rows are kept only for the pages asked for.
  for (const row of best.values()) byPage.get(key(row.spaceId, row.pageId))?.push(row);
  return byPage;
}

/** The rows shown under a page: its best sections matched on their own content, or its first. */
function shownRows(rows: MatchedRow[]): Array<{ row: MatchedRow; resultType: SearchResultType }> {
  const sections = rows.filter((row) => row.sectionPosition >= 0);
  const own = sections
    .filter((row) => row.sectionScore > 0)
    .sort((a, b) => b.score - a.score || a.sectionPosition - b.sectionPosition)
    .slice(0, MAX_SECTIONS_PER_PAGE);
  if (own.length) return own.map((row) => ({ row, resultType: 'section' }));
  const first = sections.sort((a, b) => a.sectionPosition - b.sectionPosition)[0];
  return first ? [{ row: first, resultType: 'page' }] : [];
}

interface StoredRow {
  rowid: number;
  pageTitle: string;
  pagePath: string;
  pageDescription: string;
  ancestors: string;
  sectionId: string | null;
  sectionTitle: string;
  excerpt: string;
}

const detailSql = (index: Index) => `
  SELECT r.rowid AS rowid, r.page_title AS pageTitle, r.page_path AS pagePath, r.page_description AS pageDescription,
    r.ancestors AS ancestors, r.section_id AS sectionId, r.section_title AS sectionTitle,
    snippet(${index}, 2, char(1), char(2), '…', ${EXCERPT_TOKENS}) AS excerpt
  FROM ${index} CROSS JOIN search_rows r ON r.rowid = ${index}.rowid
  WHERE ${index} MATCH ? AND ${index}.rowid IN (SELECT value FROM json_each(?))`;

const detailByRowSql = `
  SELECT r.rowid AS rowid, r.page_title AS pageTitle, r.page_path AS pagePath, r.page_description AS pageDescription,
    r.ancestors AS ancestors, r.section_id AS sectionId, r.section_title AS sectionTitle,
    substr(r.body, 1, 200) AS excerpt
  FROM search_rows r WHERE r.rowid IN (SELECT value FROM json_each(?))`;

/** Reads the sections, titles, paths and excerpts of the pages of one window. */
/** The hits of `pages`, each with its rank in the whole result (`rankOf`, 1 for the best). */
function describe(
  db: Db,
  query: SearchQuery,
  any: boolean,
  pages: RankedPage[],
  rankOf: (index: number) => number,
): SearchPageHit[] {
  const rowsByPage = [...pageRows(db, query, any, pages).values()];
  const shown = rowsByPage.map(shownRows);
  const wanted = new Map<Index, number[]>(INDEXES.map((index) => [index, []]));
  shown.forEach((rows, i) => {
    for (const { row } of rows) wanted.get(row.index)!.push(row.rowid);
    // A page without sections is described from its page row.
    const pageRow = rowsByPage[i]![0];
    if (rows.length === 0 && pageRow) wanted.get(pageRow.index)!.push(pageRow.rowid);
  });
  const stored = new Map<number, StoredRow>();
  const match = expressions(query, any);
  for (const [index, rowids] of wanted) {
    if (rowids.length === 0) continue;
    let found: StoredRow[];
    try {
      found = db.prepare(detailSql(index)).all(match[index], JSON.stringify(rowids)) as StoredRow[];
    } catch {
      found = [];
    }
    for (const row of found) stored.set(row.rowid, row);
    const missing = rowids.filter((rowid) => !stored.has(rowid));
    if (missing.length) {
      for (const row of db.prepare(detailByRowSql).all(JSON.stringify(missing)) as StoredRow[])
        stored.set(row.rowid, row);
    }
  }

  return pages.map((page, i) => {
    const rows = shown[i]!;
    const pageRows = rowsByPage[i]!;
    const info = stored.get((rows[0]?.row ?? pageRows[0])?.rowid ?? -1);
    return {
      id: page.pageId,
      title: info?.pageTitle ?? '',
      description: info?.pageDescription ?? '',
      path: info?.pagePath ?? '',
      score: page.score,
      rank: rankOf(i),
      resultType: pageRows.some((row) => row.pageScore > 0) ? 'page' : 'section',
      sections: rows.map(({ row, resultType }) => {
        const section = stored.get(row.rowid)!;
        return {
          id: section.sectionId,
          title: section.sectionTitle || section.pageTitle,
          path: section.sectionId ? `${section.pagePath}#${section.sectionId}` : section.pagePath,
          score: row.score,
          resultType,
          body: excerptHtml(section.excerpt),
        };
      }),
      ancestors: parseAncestors(info?.ancestors ?? '[]'),
    };
  });
}

function parseAncestors(text: string): Array<{ title: string }> {
  try {
    const titles = JSON.parse(text) as unknown;
    return Array.isArray(titles) ? titles.map((title) => ({ title: String(title) })) : [];
  } catch {
    return [];
  }
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes an FTS5 snippet (markers \u0001 … \u0002) into HTML with `<mark>` around matches. */
export function excerptHtml(snippet: string): string {
  return snippet
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!)
    .replaceAll('\u0001', '<mark>')
    .replaceAll('\u0002', '</mark>');
}

function safeWindow(window: PageWindow): PageWindow {
  const offset = Number.isSafeInteger(window.offset) && window.offset > 0 ? window.offset : 0;
  const limit = Number.isSafeInteger(window.limit) && window.limit > 0 ? window.limit : 1;
  return { offset, limit };
}

/**
 * Searches one space: its matching pages, best first, in one window of the ranked result.
 * `count` is the number of matching pages; `next` is there when more follow. The caller adds `urls`.
 * Several indexed ids (the parts of a visitor's view of one space) are ranked as one list.
 */
export function searchSpace(
  db: Db,
  spaceId: string | readonly string[],
  query: string,
  window: PageWindow,
): PageOfResults<SearchPageHit> {
  const { offset, limit } = safeWindow(window);
  const parsed = parseSearchQuery(query);
  const { pages: ranked, any } = rankPages(db, typeof spaceId === 'string' ? [spaceId] : [...spaceId], parsed);
  const slice = ranked.slice(offset, offset + limit);
  const items = slice.length ? describe(db, parsed, any, slice, (index) => offset + 1 + index) : [];
  const end = offset + items.length;
  return end < ranked.length
    ? { next: { page: pageToken(end) }, count: ranked.length, items }
    : { count: ranked.length, items };
}

/**
 * Searches several spaces (only those given: the caller passes the spaces the user may read), and
 * pages by space: each item a space with its best pages (`rank` global over the pages of every
 * space), in the order of their best page; `count` is the number of spaces. The caller adds each
 * space's `title` and `type`.
 */
export function searchSpaces(
  db: Db,
  spaceIds: string[],
  query: string,
  window: PageWindow,
): PageOfResults<SearchSpaceHit> {
  const { offset, limit } = safeWindow(window);
  const parsed = parseSearchQuery(query);
  const { pages: ranked, any } = rankPages(db, Array.isArray(spaceIds) ? spaceIds : [], parsed);
  // Paged by space, best first: a space is one item whichever of its hits a page would hold, so
  // that pages hold each space once, count spaces, and follow each other without gaps.
  const bySpace = new Map<string, { score: number; pages: Array<{ page: RankedPage; rank: number }> }>();
  ranked.forEach((page, index) => {
    let group = bySpace.get(page.spaceId);
    if (!group) {
      group = { score: page.score, pages: [] };
      bySpace.set(page.spaceId, group);
    }
    if (group.pages.length < MAX_PAGES_PER_SPACE) group.pages.push({ page, rank: index + 1 });
  });
  const groups = [...bySpace].slice(offset, offset + limit);
  const shown = groups.flatMap(([, group]) => group.pages);
  const hits = shown.length
    ? describe(
        db,
        parsed,
        any,
        shown.map((hit) => hit.page),
        (index) => shown[index]!.rank,
      )
    : [];
  let next = 0;
  const items = groups.map(([spaceId, group]) => ({
    spaceId,
    score: group.score,
    pages: group.pages.map(() => hits[next++]!),
  }));
  const end = offset + groups.length;
  const count = bySpace.size;
  return end < count ? { next: { page: pageToken(end) }, count, items } : { count, items };
}
