import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  indexedRevision,
  matchExpression,
  parseSearchQuery,
  removeSpaceIndex,
  replaceSpaceIndex,
  searchSpace,
  searchSpaces,
  type IndexedPage,
  type SearchPageHit,
} from '../../src/platform/content/search.js';
import { pageWindow } from '../../src/platform/http.js';
import { openDatabase, type Db } from '../../src/platform/store/db.js';

const ALL = { offset: 0, limit: 1000 };

function page(id: string, title: string, fields: Partial<IndexedPage> = {}): IndexedPage {
  return { id, title, path: id, description: '', ancestors: [], noIndex: false, sections: [], ...fields };
}

const DOCS: IndexedPage[] = [
  page('getting-started', 'Getting started', {
    description: 'Set up the platform on your machine',
    sections: [
      { id: null, title: '', body: 'Welcome! This guide walks you through your first steps with the platform.' },
      {
        id: 'installation',
        title: 'Installation',
        body: 'Run npm install @acme/cli to install the command line tool. The installer needs Node.js 20 or later.',
      },
      {
        id: 'first-project',
        title: 'Your first project',
        body: 'Create a project with acme init, then open the generated folder in your editor.',
      },
    ],
  }),
  page('guides/configuration', 'Configuration', {
    description: 'Every setting of the configuration file',
    ancestors: ['Guides'],
    sections: [
      { id: null, title: '', body: 'The platform reads acme.config.json from the root of your project.' },
      {
        id: 'environment-variables',
        title: 'Environment variables',
        body: 'Variables prefixed with ACME_ override the file. Use ACME_TOKEN for deployment pipelines.',
      },
      {
        id: 'permissions',
        title: 'Permissions',
        body: 'Each permission grants one action. An admin holds every permission of the organization.',
      },
    ],
  }),
  page('reference/api', 'API reference', {
    description: 'HTTP endpoints of the platform',
    ancestors: ['Reference', 'HTTP'],
    sections: [
      {
        id: 'authentication',
        title: 'Authentication',
        body: 'Every request must carry a bearer token in the Authorization header; requests without one are not accepted and answer 401.',
      },
      {
        id: 'rate-limits',
        title: 'Rate limits',
        body: 'Clients may send 100 requests per minute. Past that the API answers 429 <Too Many Requests> & a Retry-After header.',
      },
      {
        id: 'events',
        title: 'Events',
        body: 'The platform can notify your server through webhooks when content changes.',
      },
    ],
  }),
  page('integrations/webhooks', 'Webhooks', {
    description: 'Receive events over HTTP',
    ancestors: ['Integrations'],
    sections: [
      { id: null, title: '', body: 'Register an endpoint to receive a POST for each event.' },
      { id: 'signatures', title: 'Signatures', body: 'Each delivery is signed with your secret.' },
    ],
  }),
  page('community/cafe', 'Café corner', {
    description: 'Where the team meets',
    sections: [{ id: 'menu', title: 'Menu', body: 'Our café serves crème brûlée and a naïve espresso every Friday.' }],
  }),
  page('internal/notes', 'Internal notes', {
    noIndex: true,
    sections: [{ id: 'secret', title: 'Secret plans', body: 'The zanzibarium project ships next quarter.' }],
  }),
  page('changelog', 'Changelog'),
  page('guides/deployment', 'Deployment', {
    ancestors: ['Guides'],
    sections: [
      {
        id: 'deploying',
        title: 'Deploying',
        body: 'Deploying to production runs the build, then uploads the generated files.',
      },
    ],
  }),
];

const ids = (hits: SearchPageHit[]) => hits.map((hit) => hit.id);

let dir: string;
let db: Db;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'content-search-'));
  db = openDatabase({ file: join(dir, 'platform.db') });
  expect(db.prepare("SELECT sqlite_compileoption_used('ENABLE_FTS5')").pluck(true).get()).toBe(1);
  // The migrations create the index (SEARCH_SCHEMA is migration 4).
  expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'search_rows'").pluck(true).get()).toBe('search_rows');
  replaceSpaceIndex(db, 'space-docs', 'rev-1', DOCS);
});

afterAll(() => {
  db?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('search of page sections', () => {
  it('finds a page by a word of a section body, with that section and a highlighted excerpt', () => {
    const result = searchSpace(db, 'space-docs', 'bearer', ALL);
    expect(result.count).toBe(1);
    expect(result.next).toBeUndefined();
    const [hit] = result.items;
    expect(hit).toMatchObject({
      id: 'reference/api',
      title: 'API reference',
      description: 'HTTP endpoints of the platform',
      path: 'reference/api',
      rank: 1,
      resultType: 'section',
      ancestors: [{ title: 'Reference' }, { title: 'HTTP' }],
    });
    expect(hit!.score).toBeGreaterThan(0);
    expect(hit!.sections).toHaveLength(1);
    const [section] = hit!.sections;
    expect(section).toMatchObject({
      id: 'authentication',
      title: 'Authentication',
      path: 'reference/api#authentication',
      resultType: 'section',
    });
    expect(section!.score).toBeGreaterThan(0);
    expect(section!.body).toContain('a <mark>bearer</mark> token');
    expect(section!.body.match(/<mark>/g)).toHaveLength(1);
  });

  it('escapes the excerpt as HTML, marks only matches', () => {
    const [hit] = searchSpace(db, 'space-docs', 'retry', ALL).items;
    const body = hit!.sections[0]!.body;
    expect(body).toContain('429 &lt;Too Many Requests&gt; &amp; a <mark>Retry</mark>-After');
    expect(body.replaceAll('<mark>', '').replaceAll('</mark>', '')).not.toMatch(/[<>]/);
  });

  it('ranks a page whose title matches above a page that matches only in its body', () => {
    const result = searchSpace(db, 'space-docs', 'webhooks', ALL);
    expect(ids(result.items)).toEqual(['integrations/webhooks', 'reference/api']);
    const [titled, inBody] = result.items;
    expect(titled!.score).toBeGreaterThan(inBody!.score);
    expect(titled!.resultType).toBe('page');
    // No section of the page says "webhooks": its first section stands for it.
    expect(titled!.sections).toEqual([
      expect.objectContaining({ id: null, title: 'Webhooks', path: 'integrations/webhooks', resultType: 'page' }),
    ]);
    expect(inBody!.resultType).toBe('section');
    expect(inBody!.sections.map((s) => s.id)).toEqual(['events']);
    expect(inBody!.sections[0]!.body).toContain('<mark>webhooks</mark>');
    expect(result.items.map((hit) => hit.rank)).toEqual([1, 2]);
  });

  it('finds words by their start as they are typed', () => {
    for (const typed of ['ins', 'inst', 'instal', 'install', 'installa', 'installat', 'installation']) {
      expect(ids(searchSpace(db, 'space-docs', typed, ALL).items), typed).toContain('getting-started');
    }
    // Words porter stems apart from their prefixes.
    expect(ids(searchSpace(db, 'space-docs', 'configura', ALL).items)).toContain('guides/configuration');
    expect(ids(searchSpace(db, 'space-docs', 'deploy', ALL).items)).toContain('guides/deployment');
    const [hit] = searchSpace(db, 'space-docs', 'installer nee', ALL).items;
    expect(hit!.sections[0]!.body).toContain('The <mark>installer</mark> <mark>needs</mark> Node.js');
  });

  it('finds other forms of a whole word (English stemming)', () => {
    const permission = searchSpace(db, 'space-docs', 'permissions admin', ALL);
    expect(ids(permission.items)).toEqual(['guides/configuration']);
    expect(permission.items[0]!.sections[0]!.body).toContain('<mark>permission</mark>');
    expect(ids(searchSpace(db, 'space-docs', 'deployed production', ALL).items)).toEqual(['guides/deployment']);
  });

  it('finds an empty page by its title', () => {
    const result = searchSpace(db, 'space-docs', 'changelog', ALL);
    expect(result.items).toEqual([
      expect.objectContaining({ id: 'changelog', title: 'Changelog', resultType: 'page', sections: [], ancestors: [] }),
    ]);
  });

  it('does not index noIndex pages', () => {
    expect(searchSpace(db, 'space-docs', 'zanzibarium', ALL)).toEqual({ count: 0, items: [] });
    expect(searchSpace(db, 'space-docs', 'Internal notes', ALL).count).toBe(0);
  });

  it('ignores diacritics and case', () => {
    for (const query of ['cafe', 'CAFÉ', 'café', 'cafe\u0301', 'creme brulee', 'naive']) {
      expect(ids(searchSpace(db, 'space-docs', query, ALL).items), query).toEqual(['community/cafe']);
    }
    const [hit] = searchSpace(db, 'space-docs', 'creme', ALL).items;
    expect(hit!.sections[0]!.body).toContain('<mark>crème</mark> brûlée');
  });

  it('matches all terms, across the page title and a section', () => {
    const result = searchSpace(db, 'space-docs', 'configuration variables', ALL);
    expect(ids(result.items)).toEqual(['guides/configuration']);
    expect(result.items[0]!.resultType).toBe('page');
    expect(result.items[0]!.sections.map((s) => [s.id, s.resultType])).toEqual([['environment-variables', 'section']]);
  });

  it('falls back to any term when no section has them all', () => {
    const result = searchSpace(db, 'space-docs', 'bearer espresso', ALL);
    expect(ids(result.items).sort()).toEqual(['community/cafe', 'reference/api']);
  });

  it('never reads user input as FTS5 syntax', () => {
    // Literal words: `NOT` would exclude "token", `body:` would pick a column.
    expect(ids(searchSpace(db, 'space-docs', 'bearer NOT token', ALL).items)).toEqual(['reference/api']);
    expect(searchSpace(db, 'space-docs', 'body:bearer', ALL).count).toBe(0);
    expect(ids(searchSpace(db, 'space-docs', '"bearer', ALL).items)).toEqual(['reference/api']);
    expect(ids(searchSpace(db, 'space-docs', '-bearer', ALL).items)).toEqual(['reference/api']);
    expect(parseSearchQuery('NEAR(bearer token) col:x "a OR *')).toEqual({
      terms: ['NEAR(bearer', 'token)', 'col:x', '"a', 'OR'],
      lastIsPrefix: true,
    });
    expect(matchExpression(parseSearchQuery('say "hi" x*'), { prefix: true, any: false })).toBe(
      '"say" AND """hi""" AND "x*"',
    );

    const hostile = [
      '"',
      '""',
      '*',
      '**',
      'NEAR(',
      'NEAR(a b, 2)',
      'a OR',
      'OR',
      'AND',
      'NOT',
      'x AND',
      '-x',
      'col:term',
      'page_title:webhooks',
      '{body page_title}: webhooks',
      '^webhooks',
      'web*hooks',
      '(',
      ')',
      'a + b',
      '🎉',
      'café 🎉 ☕',
      '\u0000',
      'bear\u0000er',
      '\uD800',
      '   ',
      '',
      'a'.repeat(512),
      '"*:^()-+{}[],.;'.repeat(40),
      Array.from({ length: 300 }, (_, i) => `w${i}`).join(' '),
      'ab'.repeat(300),
    ];
    for (const query of hostile) {
      let result: ReturnType<typeof searchSpace> | undefined;
      expect(() => (result = searchSpace(db, 'space-docs', query, ALL)), JSON.stringify(query)).not.toThrow();
      expect(result!.count).toBe(result!.items.length);
      expect(() => searchSpaces(db, ['space-docs'], query, ALL)).not.toThrow();
      // The expressions themselves are valid FTS5 (the search would hide an SQLite error as "no result").
      for (const options of [
        { prefix: false, any: false },
        { prefix: true, any: true },
      ]) {
        const expression = matchExpression(parseSearchQuery(query), options);
        if (expression === null) continue;
        for (const table of ['search_stem', 'search_raw']) {
          expect(
            () => db.prepare(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`).pluck(true).get(expression),
            `${table} ${expression}`,
          ).not.toThrow();
        }
      }
    }
    for (const empty of ['', '   ', '*', '"', '🎉', '\u0000']) {
      expect(searchSpace(db, 'space-docs', empty, ALL), JSON.stringify(empty)).toEqual({ count: 0, items: [] });
    }
  });

  it('pages through the ranked result, keeping the global rank and a stable order', () => {
    const full = searchSpace(db, 'space-docs', 'platform', ALL);
    expect(full.count).toBeGreaterThanOrEqual(3);
    expect(full.items.map((hit) => hit.rank)).toEqual(full.items.map((_, i) => i + 1));
    const scores = full.items.map((hit) => hit.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(searchSpace(db, 'space-docs', 'platform', ALL)).toEqual(full);

    const seen: SearchPageHit[] = [];
    let params: { page?: string; limit: number } = { limit: 2 };
    for (;;) {
      const window = pageWindow(params);
      const result = searchSpace(db, 'space-docs', 'platform', window);
      expect(result.count).toBe(full.count);
      expect(result.items.length).toBeLessThanOrEqual(2);
      seen.push(...result.items);
      if (!result.next) break;
      params = { page: result.next.page, limit: 2 };
    }
    expect(seen).toEqual(full.items);
    expect(searchSpace(db, 'space-docs', 'platform', { offset: full.count, limit: 10 })).toEqual({
      count: full.count,
      items: [],
    });
  });

  it('replaces the pages of a space, and removes its index', () => {
    replaceSpaceIndex(db, 'space-temp', 'rev-a', [
      page('a', 'Alpha page', { sections: [{ id: 'x', title: 'Xylophone', body: 'quokka' }] }),
      page('b', 'Beta page', { sections: [{ id: 'y', title: 'Yodel', body: 'quokka wombat' }] }),
    ]);
    expect(indexedRevision(db, 'space-temp')).toBe('rev-a');
    expect(ids(searchSpace(db, 'space-temp', 'quokka', ALL).items)).toEqual(['a', 'b']);

    db.transaction(() => {
      replaceSpaceIndex(db, 'space-temp', 'rev-b', [
        page('b', 'Beta page', { sections: [{ id: 'y', title: 'Yodel', body: 'wombat only now' }] }),
        page('a', 'Alpha page', { noIndex: true, sections: [{ id: 'x', title: 'Xylophone', body: 'quokka' }] }),
      ]);
    })();
    expect(indexedRevision(db, 'space-temp')).toBe('rev-b');
    expect(searchSpace(db, 'space-temp', 'quokka', ALL).count).toBe(0);
    expect(searchSpace(db, 'space-temp', 'xylophone', ALL).count).toBe(0);
    expect(ids(searchSpace(db, 'space-temp', 'wombat', ALL).items)).toEqual(['b']);

    // A rolled-back transaction leaves the index as it was.
    expect(() =>
      db.transaction(() => {
        replaceSpaceIndex(db, 'space-temp', 'rev-c', []);
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(indexedRevision(db, 'space-temp')).toBe('rev-b');
    expect(searchSpace(db, 'space-temp', 'wombat', ALL).count).toBe(1);

    removeSpaceIndex(db, 'space-temp');
    expect(indexedRevision(db, 'space-temp')).toBeUndefined();
    expect(searchSpace(db, 'space-temp', 'wombat', ALL).count).toBe(0);
    expect(db.prepare("SELECT count(*) FROM search_rows WHERE space_id = 'space-temp'").pluck(true).get()).toBe(0);
    db.exec("INSERT INTO search_stem (search_stem) VALUES ('integrity-check')");
    db.exec("INSERT INTO search_raw (search_raw) VALUES ('integrity-check')");
  });

  it('updates an index page by page: the same results as an index built from scratch, only changed pages rewritten', () => {
    const before = [
      page('a', 'Alpha', { sections: [{ id: 'x', title: 'Xylophone', body: 'quokka numbat' }] }),
      page('b', 'Beta', { sections: [{ id: 'y', title: 'Yodel', body: 'quokka wombat' }] }),
      page('c', 'Gamma', { ancestors: ['Alpha'], sections: [{ id: 'z', title: 'Zither', body: 'numbat' }] }),
      page('d', 'Delta', { sections: [] }),
    ];
    const after = [
      page('c', 'Gamma', { path: 'moved/c', ancestors: [], sections: [{ id: 'z', title: 'Zither', body: 'numbat' }] }),
      page('a', 'Alpha', { sections: [{ id: 'x', title: 'Xylophone', body: 'quokka only' }] }),
      page('e', 'Epsilon', { sections: [{ id: 'w', title: 'Walrus', body: 'numbat quokka' }] }),
      page('d', 'Delta', { noIndex: true }),
    ];
    replaceSpaceIndex(db, 'space-incremental', 'rev-1', before);
    const rowids = () =>
      new Map(
        (
          db.prepare("SELECT page_id, rowid FROM search_rows WHERE space_id = 'space-incremental'").all() as Array<{
            page_id: string;
            rowid: number;
          }>
        ).map((row) => [row.page_id, row.rowid]),
      );
    const kept = rowids();
    replaceSpaceIndex(db, 'space-incremental', 'rev-2', after);
    replaceSpaceIndex(db, 'space-scratch', 'rev-2', after);
    // Gamma only moved: its row (and its full-text entry) stayed; Alpha's text changed: rewritten.
    expect(rowids().get('c')).toBe(kept.get('c'));
    expect(rowids().get('a')).not.toBe(kept.get('a'));
    expect([...rowids().keys()].sort()).toEqual(['a', 'c', 'e']);
    for (const query of ['quokka', 'numbat', 'wombat', 'zither', 'delta', 'gamma']) {
      expect(searchSpace(db, 'space-incremental', query, ALL).items, query).toEqual(
        searchSpace(db, 'space-scratch', query, ALL).items,
      );
    }
    expect(searchSpace(db, 'space-incremental', 'numbat', ALL).items.find((hit) => hit.id === 'c')).toMatchObject({
      path: 'moved/c',
      ancestors: [],
    });
    db.exec("INSERT INTO search_stem (search_stem) VALUES ('integrity-check')");
    db.exec("INSERT INTO search_raw (search_raw) VALUES ('integrity-check')");
  });

  it('searches several spaces, paged by space, only those given', () => {
    replaceSpaceIndex(db, 'space-ops', 'rev-1', [
      page('runbook', 'Install runbook', {
        sections: [{ id: 'steps', title: 'Steps', body: 'Install the agent on each host, then install the probes.' }],
      }),
      page('faq', 'FAQ', { sections: [{ id: 'q1', title: 'Why', body: 'Reinstall if the install fails.' }] }),
    ]);
    replaceSpaceIndex(db, 'space-private', 'rev-1', [
      page('secret', 'Install secrets', { sections: [{ id: 's', title: 'Install', body: 'install install install' }] }),
    ]);

    const all = searchSpaces(db, ['space-docs', 'space-ops'], 'install', ALL);
    const pages = all.items.flatMap((space) => space.pages);
    // The count is of spaces: a page of results is a page of spaces, each with its matching pages.
    expect(all.count).toBe(all.items.length);
    expect(new Set(all.items.map((space) => space.spaceId))).toEqual(new Set(['space-docs', 'space-ops']));
    expect(ids(pages)).not.toContain('secret');
    for (const space of all.items) {
      expect(space.score).toBe(Math.max(...space.pages.map((p) => p.score)));
      const ranks = space.pages.map((p) => p.rank);
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
    expect(pages.map((p) => p.rank).sort((a, b) => a - b)).toEqual(pages.map((_, i) => i + 1));
    // The runbook has "install" in its title: it comes first, so its space does too.
    expect(all.items[0]!.spaceId).toBe('space-ops');
    expect(all.items[0]!.pages[0]!.id).toBe('runbook');
    expect(all.items[0]!.pages[0]!.rank).toBe(1);

    // Windows are of spaces: each space once, with all its pages, in the order of their best page.
    const first = searchSpaces(db, ['space-docs', 'space-ops'], 'install', { offset: 0, limit: 1 });
    const second = searchSpaces(db, ['space-docs', 'space-ops'], 'install', { offset: 1, limit: 1 });
    expect([first.count, second.count]).toEqual([all.count, all.count]);
    expect([...first.items, ...second.items]).toEqual(all.items);
    expect(first.next).toBeDefined();
    expect(second.next).toBeUndefined();

    expect(searchSpaces(db, [], 'install', ALL)).toEqual({ count: 0, items: [] });
    expect(searchSpaces(db, ['space-unknown'], 'install', ALL)).toEqual({ count: 0, items: [] });
    expect(searchSpaces(db, ['space-private'], 'install', ALL).items.map((s) => s.spaceId)).toEqual(['space-private']);
    // The single-space search keeps to its space too.
    expect(ids(searchSpace(db, 'space-ops', 'install', ALL).items)).toEqual(['runbook', 'faq']);
  });
});

describe('search timings', () => {
  const WORDS =
    'install configure deploy token request header webhook event permission admin project folder editor build upload file setting variable environment pipeline endpoint client server content change space page section title search index query result rank score excerpt'.split(
      ' ',
    );

  /**
   * `count` pages of six sections; `share` of the words come from WORDS (the words searched for),
   * the rest from 3,000 made-up words: 1 makes every section match every query (the worst case).
   */
  function generated(count: number, share: number): IndexedPage[] {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'pa', 'qui', 'dor'];
    const filler = Array.from(
      { length: 3000 },
      (_, i) =>
        Array.from(
          { length: 2 + (i % 3) },
          (_, j) => syllables[(i * 7 + j * 5 + Math.floor(i / 12)) % syllables.length],
        ).join('') + i,
    );
    const word = () =>
      random() < share ? WORDS[Math.floor(random() * WORDS.length)] : filler[Math.floor(random() ** 2 * filler.length)];
    const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
    return Array.from({ length: count }, (_, i) =>
      page(`generated/page-${i}`, `Page ${i} ${sentence(3)}`, {
        description: sentence(10),
        ancestors: ['Generated', `Group ${Math.floor(i / 20)}`],
        sections: Array.from({ length: 6 }, (_, j) => ({
          id: j === 0 ? null : `section-${j}`,
          title: j === 0 ? '' : sentence(3),
          body: `${sentence(60)}. ${sentence(60)}.`,
        })),
      }),
    );
  }

  it.each([
    ['dense (every section has every word searched for)', 1],
    ['mixed (one word in ten from the searched words)', 0.1],
  ])('measures indexing 200 pages and answering queries: %s', (label, share) => {
    const pages = generated(200, share);
    const space = `space-big-${share}`;
    const started = performance.now();
    replaceSpaceIndex(db, space, 'rev-1', pages);
    const first = performance.now() - started;
    const again = performance.now();
    replaceSpaceIndex(db, space, 'rev-2', pages);
    const replaced = performance.now() - again;

    const queries = ['install', 'webhook event', 'perm', 'token header request', 'zzzzz', 'page 150'];
    const timings: string[] = [];
    for (const query of queries) {
      const result = searchSpace(db, space, query, { offset: 0, limit: 20 });
      const runs = 20;
      const t = performance.now();
      for (let i = 0; i < runs; i += 1) searchSpace(db, space, query, { offset: 0, limit: 20 });
      timings.push(`"${query}": ${((performance.now() - t) / runs).toFixed(2)} ms (${result.count} pages)`);
    }
    const orgT = performance.now();
    for (let i = 0; i < 20; i += 1)
      searchSpaces(db, [space, 'space-docs', 'space-ops'], 'install', { offset: 0, limit: 20 });
    const org = (performance.now() - orgT) / 20;

    console.log(
      [
        `search, ${label}: indexed 200 pages × 6 sections (~120 words each) in ${first.toFixed(0)} ms, replaced in ${replaced.toFixed(0)} ms`,
        ...timings.map((line) => `  query ${line}, first 20`),
        `  3 spaces "install": ${org.toFixed(2)} ms`,
      ].join('\n'),
    );
    expect(searchSpace(db, space, 'install', ALL).count).toBeGreaterThan(20);
  });
});
