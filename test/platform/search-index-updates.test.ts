import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCurrentRevision, stageIndex } from '../../src/platform/content/current.js';
import { documentOf, paragraph } from '../../src/document/model.js';
import { putDocument, storeRevision, type ContentPage } from '../../src/platform/content/revisions.js';
import { sweepRetiredRows } from '../../src/platform/content/search.js';
import { insertSpace } from '../../src/platform/spaces/store.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Moving a space's current revision reindexes it for search in the same transaction; the pages
 * whose text did not change since the revision indexed before are not read again (counted by the
 * update `setCurrentRevision` returns), and search answers from the new text at once.
 */
let p: TestPlatform;
let spaceId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  spaceId = insertSpace(p.db, { orgId: 'acme', title: 'Indexing' });
});

afterAll(async () => {
  await p.destroy();
});

const PAGES = 200;

/** The id of a document of one paragraph: the same for the same text (a document's id is its content's). */
const documents = new Map<string, string>();
function documentWith(text: string): string {
  let id = documents.get(text);
  if (!id) {
    id = putDocument(p.db, spaceId, documentOf([paragraph(text)]));
    documents.set(text, id);
  }
  return id;
}

/** 20 top-level pages of 9 children each; page `n` says `word<n>`, or what `texts` says. */
function content(
  texts: Record<number, string> = {},
  without: number[] = [],
): { pages: ContentPage[]; files: []; reusableContents: []; variables: Record<string, never> } {
  const top: ContentPage[] = [];
  for (let n = 0; n < PAGES; n += 1) {
    if (without.includes(n)) continue;
    const documentId = documentWith(texts[n] ?? `Page ${n} says word${n}.`);
    const page: ContentPage = {
      id: `page-${n}`,
      type: 'document',
      title: `Page ${n}`,
      slug: `page-${n}`,
      documentId,
      pages: [],
    };
    if (n % 10 === 0) top.push(page);
    else top.at(-1)!.pages.push(page);
  }
  return { pages: top, files: [], reusableContents: [], variables: {} };
}

function makeCurrent(pages: ReturnType<typeof content>) {
  const current = p.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  const revision = storeRevision(p.db, {
    spaceId,
    type: 'edits',
    parents: [current],
    content: pages,
    createdAt: new Date().toISOString(),
  });
  return setCurrentRevision(p.db, spaceId, revision);
}

const search = async (query: string) =>
  ((await p.api('GET', `/spaces/${spaceId}/search`, { query: { query } })).body.items as Array<{ id: string }>).map(
    (item) => item.id,
  );

describe('search index updates', () => {
  it('reads only the pages whose text changed', async () => {
    expect(makeCurrent(content())).toEqual({ read: PAGES, written: PAGES, adopted: 0, placed: 0, removed: 0 });
    expect(await search('word57')).toEqual(['page-57']);

    // One page edited: one page read and written.
    expect(makeCurrent(content({ 57: 'Page 57 now says zebra.' }))).toEqual({
      read: 1,
      written: 1,
      adopted: 0,
      placed: 0,
      removed: 0,
    });
    expect(await search('zebra')).toEqual(['page-57']);
    expect(await search('word57')).toEqual([]);

    // The same content in a new revision (a translation run that changed nothing): nothing read.
    expect(makeCurrent(content({ 57: 'Page 57 now says zebra.' }))).toEqual({
      read: 0,
      written: 0,
      adopted: 0,
      placed: 0,
      removed: 0,
    });

    // A page removed: the pages after it only move up.
    expect(makeCurrent(content({ 57: 'Page 57 now says zebra.' }, [150]))).toEqual({
      read: 0,
      written: 0,
      adopted: 0,
      placed: PAGES - 151,
      removed: 1,
    });
    expect(await search('word150')).toEqual([]);
    expect(await search('word199')).toEqual(['page-199']);
  });

  it('takes over the rows a job wrote ahead of the move, leaving none behind', async () => {
    const next = content({ 57: 'Page 57 now says zebra.', 58: 'Page 58 now says okapi.' }, [150]);
    await stageIndex(p.db, spaceId, next);
    const rowsOf = (key: string) =>
      p.db.prepare('SELECT page_id, rowid FROM search_rows WHERE space_id = ?').all(key) as Array<{
        page_id: string;
        rowid: number;
      }>;
    // Only the page whose text changed is written ahead, under a key no search names.
    const ahead = rowsOf(`staged:${spaceId}`);
    expect(ahead.map((row) => row.page_id)).toEqual(['page-58']);
    expect(await search('okapi')).toEqual([]);

    expect(makeCurrent(next)).toEqual({ read: 0, written: 0, adopted: 1, placed: 0, removed: 0 });
    expect(rowsOf(spaceId).find((row) => row.page_id === 'page-58')?.rowid).toBe(ahead[0]!.rowid);
    expect(rowsOf(`staged:${spaceId}`)).toEqual([]);
    expect(await search('okapi')).toEqual(['page-58']);
    expect(await search('word58')).toEqual([]);
    p.db.exec("INSERT INTO search_stem (search_stem) VALUES ('integrity-check')");
    p.db.exec("INSERT INTO search_raw (search_raw) VALUES ('integrity-check')");
  });

  it('takes over a whole space written ahead and deletes the rows it replaced after the move', async () => {
    const texts = Object.fromEntries(Array.from({ length: PAGES }, (_, n) => [n, `Page ${n} is now about gnu${n}.`]));
    const next = content(texts, [150]);
    await stageIndex(p.db, spaceId, next);
    const rowsOf = (key: string) =>
      p.db.prepare('SELECT count(*) FROM search_rows WHERE space_id = ?').pluck(true).get(key) as number;
    expect(rowsOf(`staged:${spaceId}`)).toBe(PAGES - 1);

    expect(makeCurrent(next)).toEqual({ read: 0, written: 0, adopted: PAGES - 1, placed: 0, removed: 0 });
    // The replaced rows wait, out of every search, for the sweep after the move.
    expect(rowsOf('retired:')).toBe(PAGES - 1);
    expect(await search('word57')).toEqual([]);
    expect(await search('gnu57')).toEqual(['page-57']);
    await sweepRetiredRows(p.db);
    expect(rowsOf('retired:')).toBe(0);
    expect(rowsOf(spaceId)).toBe(PAGES - 1);
    p.db.exec("INSERT INTO search_stem (search_stem) VALUES ('integrity-check')");
  });

  it('writes the pages itself when the space moved while a job wrote ahead', async () => {
    const next = content({ 3: 'Page 3 says lynx.' }, [150]);
    await stageIndex(p.db, spaceId, next);
    // Another write moves the space first: it takes over the rows written ahead that hold its
    // text (all but page 3's) and retires the rest; the job's move then writes page 3 itself.
    expect(makeCurrent(content({ 3: 'Page 3 says ibex.' }, [150]))).toEqual({
      read: 1,
      written: 1,
      adopted: PAGES - 2,
      placed: 0,
      removed: 0,
    });
    expect(makeCurrent(next)).toEqual({ read: 1, written: 1, adopted: 0, placed: 0, removed: 0 });
    await sweepRetiredRows(p.db);
    expect(
      p.db
        .prepare("SELECT count(*) FROM search_rows WHERE space_id LIKE 'staged:%' OR space_id = 'retired:'")
        .pluck(true)
        .get(),
    ).toBe(0);
    expect(await search('lynx')).toEqual(['page-3']);
    expect(await search('ibex')).toEqual([]);
  });
});
