import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JSONDocument } from '../../src/document/model.js';
import { documentText } from '../../src/document/text.js';
import { loadDemoContent } from '../../src/platform/demo-content/load.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/** The demo documentation, as seeded: three spaces of real pages, with history, and the other spaces sites publish. */
let p: TestPlatform;

beforeAll(async () => {
  p = await startTestPlatform();
});

afterAll(async () => {
  await p?.destroy();
});

interface Page {
  id: string;
  type: string;
  title: string;
  path?: string;
  noIndex?: boolean;
  documentId?: string;
  pages: Page[];
}

const flatten = (pages: Page[]): Page[] => pages.flatMap((page) => [page, ...flatten(page.pages ?? [])]);
const depth = (page: Page): number => 1 + Math.max(0, ...(page.pages ?? []).map(depth));

/** Every demo space with content, as its data files give it. */
const SEEDED_CONTENT = loadDemoContent();

/** The three spaces of real documentation (the others have a few pages for the demo sites to show). */
describe.each(['Getting started', 'API reference', 'Company handbook'])('demo space "%s"', (title) => {
  let spaceId: string;
  let revision: { id: string; parents: string[]; pages: Page[]; files: unknown[]; variables: Record<string, unknown> };

  beforeAll(async () => {
    spaceId = p.spaceId(title);
    revision = (await p.api('GET', `/spaces/${spaceId}/content`)).body as typeof revision;
  });

  it('holds ten or more pages, nested two levels, with a group, a link page, files and variables', () => {
    const pages = flatten(revision.pages);
    expect(pages.length).toBeGreaterThanOrEqual(10);
    expect(revision.pages.some((page) => page.type === 'group')).toBe(true);
    expect(pages.some((page) => page.type === 'link')).toBe(true);
    expect(Math.max(...revision.pages.map(depth))).toBeGreaterThanOrEqual(3);
    expect(revision.files.length).toBeGreaterThanOrEqual(1);
    expect(Object.keys(revision.variables).length).toBeGreaterThan(0);
  });

  it('has a history of three revisions after its first, with changes to show', async () => {
    const count = p.db.prepare('SELECT COUNT(*) FROM revisions WHERE space_id = ?').pluck(true).get(spaceId) as number;
    expect(count).toBeGreaterThanOrEqual(4);
    // The last revision of the seeded history: the current one, or what a demo change request was merged into.
    const current = (await p.api('GET', `/spaces/${spaceId}/revisions/${revision.id}`)).body as {
      type: string;
      parents: string[];
    };
    const seeded = current.type === 'merge' ? current.parents[0]! : revision.id;
    const changes = (await p.api('GET', `/spaces/${spaceId}/revisions/${seeded}/changes`, { query: { limit: 100 } }))
      .body as {
      changes: Array<{ type: string }>;
    };
    const kinds = new Set(changes.changes.map((change) => change.type));
    expect(kinds.has('page_created')).toBe(true);
    expect(kinds.has('page_edited')).toBe(true);
    expect(kinds.has('variables_edited')).toBe(true);
  });

  it('is found by search: a word of every indexed page finds that page', async () => {
    const pages = flatten(revision.pages).filter(
      (page) => page.type === 'document' && page.documentId && !page.noIndex,
    );
    for (const page of pages) {
      const document = (await p.api('GET', `/spaces/${spaceId}/documents/${page.documentId}`)).body as JSONDocument;
      // The longest word of the page is rare enough to find it among the first results.
      const word = documentText(document)
        .split(/[^A-Za-z]+/)
        .filter((candidate) => candidate.length >= 4)
        .sort((a, b) => b.length - a.length || a.localeCompare(b))[0]!;
      const found = (await p.api('GET', `/spaces/${spaceId}/search`, { query: { query: word, limit: 50 } })).body as {
        items: Array<{ id: string }>;
      };
      expect(
        found.items.map((item) => item.id),
        `"${word}" of ${page.title}`,
      ).toContain(page.id);
    }
  });

  it('renders as a PDF', async () => {
    const { url } = (await p.api('GET', `/spaces/${spaceId}/pdf`)).body as { url: string };
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  });
});

describe('the demo documentation as a whole', () => {
  it('keeps the noIndex page out of search', async () => {
    const found = (await p.api('GET', '/orgs/acme/search', { query: { query: 'quokka' } })).body as { count: number };
    expect(found.count).toBe(0);
  });

  it('has exactly one broken link, and links between its spaces', async () => {
    let broken = 0;
    let crossSpace = 0;
    for (const { space } of SEEDED_CONTENT) {
      const report = (await p.api('GET', `/spaces/${p.spaceId(space)}/links`, { query: { limit: 1000 } })).body as {
        stats: { broken: { total: number } };
        items: Array<{ status: string; targetReference?: unknown }>;
      };
      broken += report.stats.broken.total;
      crossSpace += report.items.filter((item) => item.status === 'ok' && item.targetReference === undefined).length;
    }
    expect(broken).toBe(1);
    expect(crossSpace).toBeGreaterThan(0);
  });
});
