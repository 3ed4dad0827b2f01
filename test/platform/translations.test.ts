import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TextSlots, documentSlots, wordCount } from '../../src/platform/translations/extract.js';
import { libreTranslator, pseudoLocalize, TranslatorError } from '../../src/platform/translations/translator.js';
import type { JSONDocument } from '../../src/document/model.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Acme (ada its admin; ben creates, dee edits, finn reads) and Globex (ada its admin, hana edits, a space
 * "Benefits"), on an unseeded platform.
 */
async function organizations(p: TestPlatform): Promise<{ acme: TestOrg; globex: TestOrg }> {
  const acme = addOrg(p, { id: 'acme', members: { ada: 'admin', ben: 'create', dee: 'edit', finn: 'read' } });
  const globex = addOrg(p, { id: 'globex', members: { ada: 'admin', hana: 'edit' }, users: { ada: acme.user('ada') } });
  await globex.space('Benefits');
  return { acme, globex };
}

/** Plain text of a document's blocks (texts and inline texts joined), one entry per block. */
function blockTexts(document: { nodes: unknown[] }): string[] {
  const text = (node: any): string =>
    node.object === 'text'
      ? node.leaves.map((leaf: { text: string }) => leaf.text).join('')
      : (node.nodes ?? []).map(text).join('');
  return document.nodes.map(text);
}

/** Every key of a document's nodes, in document order. */
function keysOf(node: any): string[] {
  return [
    ...(node.key ? [node.key] : []),
    ...(node.nodes ?? []).flatMap(keysOf),
    ...(node.fragments ?? []).flatMap(keysOf),
  ];
}

/** Caller helpers on a platform, calling with `token` (default the first admin's). */
function client(p: TestPlatform, token = p.adminToken) {
  return {
    get: (path: string, query?: Record<string, string | number | boolean>) =>
      p.api('GET', path, { token, ...(query ? { query } : {}) }),
    post: (path: string, body?: unknown) => p.api('POST', path, { token, body: body ?? {} }),
    put: (path: string, body: unknown) => p.api('PUT', path, { token, body }),
    patch: (path: string, body: unknown) => p.api('PATCH', path, { token, body }),
    delete: (path: string) => p.api('DELETE', path, { token }),
  };
}

const GUIDE = `# Guide

Welcome to the **guide**. Read [the docs](https://docs.example.test/start), also at https://docs.example.test/start, or write to help@example.test.

Run \`npm install acme\` first.

\`\`\`bash
npm install acme
acme --version
\`\`\`

## Next steps

Keep reading.
`;

/**
 * A fresh Acme space (merge rules `none`, English; in the collection `parent` when given) with pages "Guide"
 * (with a child "Setup") and "FAQ", made through a merged change request. Returns the space and page ids.
 */
async function sourceSpace(p: TestPlatform, title: string, parent?: string) {
  const ada = client(p);
  const space = (await ada.post('/orgs/acme/spaces', { title, language: 'en', parent })).body as { id: string };
  await ada.patch(`/spaces/${space.id}`, { mergeRules: { type: 'none' } });
  const cr = (await ada.post(`/spaces/${space.id}/change-requests`, { subject: 'Seed' })).body.id as string;
  const edit = await p.api('POST', `/spaces/${space.id}/change-requests/${cr}/content`, {
    query: { compat: false },
    body: {
      changes: [
        { operation: 'insert_page', ref: 'guide', document: { markdown: GUIDE } },
        {
          operation: 'insert_page',
          into: 'guide',
          ref: 'setup',
          document: { markdown: '# Setup\n\nInstall the agent on every machine.\n' },
        },
        {
          operation: 'insert_page',
          ref: 'faq',
          document: { markdown: '---\ndescription: Answers to common questions\n---\n\n# FAQ\n\nAsk us anything.\n' },
        },
      ],
    },
  });
  expect(edit.status).toBe(200);
  const [guide, setup, faq] = edit.body.changes.map((change: { page: { id: string } }) => change.page.id) as [
    string,
    string,
    string,
  ];
  expect((await ada.post(`/spaces/${space.id}/change-requests/${cr}/merge`)).body).toMatchObject({ result: 'merge' });
  return { spaceId: space.id, pages: { guide, setup, faq } };
}

/** Edits a page of the space through a change request, and merges it. */
async function mergeEdit(p: TestPlatform, spaceId: string, changes: unknown[]) {
  const ada = client(p);
  const cr = (await ada.post(`/spaces/${spaceId}/change-requests`, { subject: 'Edit' })).body.id as string;
  const edit = await p.api('POST', `/spaces/${spaceId}/change-requests/${cr}/content`, {
    query: { compat: false },
    body: { changes },
  });
  expect(edit.status, JSON.stringify(edit.body)).toBe(200);
  expect((await ada.post(`/spaces/${spaceId}/change-requests/${cr}/merge`)).body).toMatchObject({ result: 'merge' });
  return edit.body;
}

describe('translation text extraction', () => {
  it('pseudo-localizes with accented look-alikes, ~30% padding and markers; leaves text without letters alone', () => {
    const out = pseudoLocalize('Hello world');
    expect(out).toMatch(/^⟦Ĥëļļö ŵöŕļð·+⟧$/);
    expect([...out].length).toBeGreaterThanOrEqual(Math.ceil('Hello world'.length * 1.3));
    expect(pseudoLocalize('3.2 — 42')).toBe('3.2 — 42');
  });

  it('sends prose only: URLs, e-mail addresses, spacing, inline code and code blocks stay as written', () => {
    const document = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          key: 'p',
          data: {},
          nodes: [
            {
              object: 'text',
              key: 't',
              leaves: [
                { object: 'leaf', text: 'See https://example.test/a. Then ', marks: [] },
                { object: 'leaf', text: 'npm test', marks: [{ object: 'mark', type: 'code' }] },
                { object: 'leaf', text: ' or mail a@b.test', marks: [] },
              ],
            },
          ],
        },
        {
          object: 'block',
          type: 'code',
          key: 'c',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'code-line',
              key: 'l',
              data: {},
              nodes: [{ object: 'text', key: 'lt', leaves: [{ object: 'leaf', text: 'echo hi', marks: [] }] }],
            },
          ],
        },
        {
          object: 'block',
          type: 'heading-2',
          key: 'h',
          data: {},
          meta: { id: 'next-steps' },
          nodes: [{ object: 'text', key: 'ht', leaves: [{ object: 'leaf', text: 'Next steps', marks: [] }] }],
        },
      ],
    } as unknown as JSONDocument;
    const slots = new TextSlots();
    const copy = documentSlots(document, slots);
    expect(slots.texts).toEqual(['See', '. Then', 'or mail', 'Next steps']);
    slots.apply(slots.texts.map((text) => text.toUpperCase()));
    expect(blockTexts(copy)).toEqual([
      'SEE https://example.test/a. THEN npm test OR MAIL a@b.test',
      'echo hi',
      'NEXT STEPS',
    ]);
    // Keys and structure unchanged; the heading keeps its anchor; the source is untouched.
    expect(keysOf(copy)).toEqual(keysOf(document));
    expect((copy.nodes[2] as { data: unknown }).data).toEqual({ id: 'next-steps' });
    expect(blockTexts(document)[0]).toBe('See https://example.test/a. Then npm test or mail a@b.test');
    expect(wordCount(' two  words ')).toBe(2);
    expect(wordCount('  ')).toBe(0);
  });
});

describe('translations (pseudo-localization)', () => {
  let p: TestPlatform;
  let acme: TestOrg;
  let globex: TestOrg;
  let ada: ReturnType<typeof client>;
  /** Acme's spaces: Tutorials (English) and Erste Schritte (German). */
  const S = { tutorials: '', german: '' };

  beforeAll(async () => {
    p = await startTestPlatform({ seed: false });
    ({ acme, globex } = await organizations(p));
    ada = client(p);
    S.tutorials = await acme.space('Tutorials', { language: 'en' });
    S.german = await acme.space('Erste Schritte', { language: 'de' });
  });
  afterAll(async () => {
    await p?.destroy();
  });

  it('translates a space of a collection into French in one run: a result space beside it, pseudo-localized', async () => {
    const guides = await acme.collection('Guides');
    const { spaceId } = await sourceSpace(p, 'Getting started', guides);
    const id = (await ada.post('/orgs/acme/translations', { language: 'fr', source: { space: spaceId } })).body.id;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const list = await ada.get('/orgs/acme/translations');
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(1);
    const translation = list.body.items[0];
    expect(translation).toMatchObject({
      object: 'translation',
      status: 'completed',
      source: { space: spaceId, language: 'en' },
      language: 'fr',
      result: { language: 'fr' },
      stats: { runs: 1, totalPages: 3, latestPages: 3 },
    });
    expect(translation.stats.totalWords).toBe(translation.stats.latestWords);
    expect(translation.stats.totalWords).toBeGreaterThan(10);
    const result = (await ada.get(`/spaces/${translation.result.space}`)).body;
    expect(result).toMatchObject({
      title: 'Getting started (FR)',
      language: 'fr',
      parent: guides,
      revision: translation.result.revision,
    });
    const pages = (await ada.get(`/spaces/${translation.result.space}/content/pages`)).body.pages;
    const source = (await ada.get(`/spaces/${translation.source.space}/content/pages`)).body.pages;
    expect(pages.map((page: { id: string }) => page.id)).toEqual(source.map((page: { id: string }) => page.id));
    expect(pages[0].title).toBe(pseudoLocalize(source[0].title));
  });

  it('creates a translation and nothing else; refuses bad input (400 naming the field), a second one (409) and the source language', async () => {
    const spaceId = S.tutorials;
    const spacesBefore = (await ada.get('/orgs/acme/spaces', { limit: 1000 })).body.count;
    const created = await ada.post('/orgs/acme/translations', {
      language: 'de',
      source: { space: spaceId, language: 'en' },
    });
    expect(created.status).toBe(201);
    expect(created.headers?.get('location')).toBe(created.body.urls.location);
    expect(created.body).toEqual({
      object: 'translation',
      id: expect.any(String),
      status: 'pending',
      source: { space: spaceId, language: 'en' },
      language: 'de',
      instructions: { object: 'document', data: { schemaVersion: 1 }, nodes: [] },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      stats: {
        runs: 0,
        totalWords: 0,
        totalPages: 0,
        totalDuration: 0,
        latestRunDuration: 0,
        latestPages: 0,
        latestWords: 0,
      },
      permissions: { view: true, edit: true },
      urls: { location: `${p.url}/orgs/acme/translations/${created.body.id}` },
    });
    expect((await ada.get('/orgs/acme/spaces', { limit: 1000 })).body.count).toBe(spacesBefore);
    expect((await ada.get(`/orgs/acme/translations/${created.body.id}`)).body).toEqual(created.body);

    const duplicate = await ada.post('/orgs/acme/translations', {
      language: 'de',
      source: { space: spaceId, language: 'en' },
    });
    expect(duplicate.status).toBe(409);
    const same = await ada.post('/orgs/acme/translations', { language: 'en', source: { space: spaceId } });
    expect(same.status).toBe(400);
    expect(same.body.error.message).toMatch(/"language": must differ from the source language \(en\)/);
    const cases: Array<[unknown, RegExp]> = [
      [{ language: 'klingon', source: { space: spaceId } }, /"language"/],
      [{ language: 'fr' }, /"source"/],
      [{ language: 'fr', source: { space: '' } }, /"source.space"/],
      [{ language: 'fr', source: { space: 'nope' } }, /"source.space": no space nope/],
      [{ language: 'fr', source: { space: p.spaceId('Benefits') } }, /"source.space"/],
      [{ language: 'fr', source: { space: spaceId, language: 'xx' } }, /"source.language"/],
      [
        { language: 'fr', source: { space: spaceId }, instructions: { object: 'document', nodes: 'x' } },
        /"instructions/,
      ],
      [{ language: 'fr', source: { space: spaceId }, extra: 1 }, /"extra": is not a known field/],
    ];
    for (const [body, message] of cases) {
      const answer = await ada.post('/orgs/acme/translations', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toMatch(message);
    }
    // The space's own language is the source language when none is given.
    const german = await ada.post('/orgs/acme/translations', {
      language: 'fr',
      source: { space: S.german },
    });
    expect(german.body.source.language).toBe('de');
  });

  it('is for admins only: other members 403, outsiders 404; a translation of another organization is 404', async () => {
    const id = (await ada.get('/orgs/acme/translations')).body.items[0].id as string;
    for (const key of ['ben', 'dee', 'finn']) {
      const member = client(p, acme.token(key));
      expect((await member.get('/orgs/acme/translations')).status).toBe(403);
      expect((await member.get(`/orgs/acme/translations/${id}`)).status).toBe(403);
      expect(
        (await member.post('/orgs/acme/translations', { language: 'it', source: { space: S.tutorials } })).status,
      ).toBe(403);
      expect(
        (
          await member.put(`/orgs/acme/translations/${id}`, {
            instructions: { object: 'document', data: {}, nodes: [] },
          })
        ).status,
      ).toBe(403);
      expect((await member.post(`/orgs/acme/translations/${id}/run`)).status).toBe(403);
      expect((await member.delete(`/orgs/acme/translations/${id}`)).status).toBe(403);
    }
    const hana = client(p, globex.token('hana'));
    expect((await hana.get('/orgs/acme/translations')).status).toBe(404);
    expect((await hana.post(`/orgs/acme/translations/${id}/run`)).status).toBe(404);
    expect((await ada.get(`/orgs/globex/translations/${id}`)).status).toBe(404);
    expect((await ada.post(`/orgs/globex/translations/${id}/run`)).status).toBe(404);
  });

  it('runs into a new result space: same pages and blocks, pseudo-localized text, code and URLs unchanged', async () => {
    const { spaceId, pages } = await sourceSpace(p, 'Translated guide');
    const created = (
      await ada.post('/orgs/acme/translations', { language: 'fr', source: { space: spaceId, language: 'en' } })
    ).body;
    expect(created.status).toBe('pending');
    const run = await ada.post(`/orgs/acme/translations/${created.id}/run`);
    expect(run.status).toBe(204);
    expect(run.body).toBeUndefined();
    await p.app.jobs.drain();
    const done = (await ada.get(`/orgs/acme/translations/${created.id}`)).body;
    expect(done).toMatchObject({
      status: 'completed',
      result: { space: expect.any(String), revision: expect.any(String), language: 'fr' },
    });
    expect(done.stats).toMatchObject({ runs: 1, totalPages: 3, latestPages: 3 });
    expect(done.stats.latestWords).toBeGreaterThan(10);
    expect(done.stats.totalWords).toBe(done.stats.latestWords);
    expect(done.lastRunError).toBeUndefined();

    const source = (await ada.get(`/spaces/${spaceId}`)).body;
    const result = (await ada.get(`/spaces/${done.result.space}`)).body;
    expect(result).toMatchObject({
      title: 'Translated guide (FR)',
      language: 'fr',
      organization: 'acme',
      editMode: 'locked',
      revision: done.result.revision,
    });
    expect(result.parent ?? null).toBe(source.parent ?? null);

    const tree = (await ada.get(`/spaces/${done.result.space}/content/pages`)).body.pages;
    expect(tree.map((page: any) => [page.id, page.pages.map((child: any) => child.id)])).toEqual([
      [pages.guide, [pages.setup]],
      [pages.faq, []],
    ]);
    expect(tree[0].title).toBe(pseudoLocalize('Guide'));
    expect(tree[1].description).toBe(pseudoLocalize('Answers to common questions'));

    const sourceDoc = (await ada.get(`/spaces/${spaceId}/content/page/${pages.guide}`, { format: 'document' })).body
      .document;
    const resultDoc = (
      await ada.get(`/spaces/${done.result.space}/content/page/${pages.guide}`, { format: 'document' })
    ).body.document;
    expect(keysOf(resultDoc)).toEqual(keysOf(sourceDoc));
    const before = blockTexts(sourceDoc);
    const after = blockTexts(resultDoc);
    expect(after).not.toEqual(before);
    expect(after[0]).toContain(pseudoLocalize('Welcome to the'));
    expect(after[0]).toContain('https://docs.example.test/start');
    expect(after[0]).toContain('help@example.test');
    expect(after[1]).toContain('npm install acme');
    // The code block is the same block, unchanged.
    const code = (document: any) => document.nodes.find((node: any) => node.type === 'code');
    expect(code(resultDoc)).toEqual(code(sourceDoc));
    // Link targets stay.
    expect(JSON.stringify(resultDoc)).toContain('"url":"https://docs.example.test/start"');
  });

  it('runs again when a change request is merged into the source, translating only the page that changed', async () => {
    const { spaceId, pages } = await sourceSpace(p, 'Incremental guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'es', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const first = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    const resultSpace = first.result.space as string;
    const read = async (page: string) =>
      (await ada.get(`/spaces/${resultSpace}/content/page/${page}`, { format: 'document' })).body;
    const guideBefore = await read(pages.guide);
    const faqBefore = await read(pages.faq);

    // The merge alone asks for the run (no call to /run).
    await mergeEdit(p, spaceId, [
      {
        operation: 'update_page',
        page: pages.setup,
        document: { markdown: '# Setup\n\nInstall the agent on every server.\n' },
      },
    ]);
    await p.app.jobs.drain();
    const second = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(second).toMatchObject({ status: 'completed', result: { space: resultSpace } });
    expect(second.result.revision).not.toBe(first.result.revision);
    expect(second.stats).toMatchObject({ runs: 2, latestPages: 1, totalPages: 3, latestWords: 7 });
    expect(second.stats.totalWords).toBe(first.stats.totalWords + 7);
    expect(blockTexts((await read(pages.setup)).document)).toEqual([
      pseudoLocalize('Install the agent on every server.'),
    ]);
    // The other pages keep their translation, document and all.
    const guideAfter = await read(pages.guide);
    expect(guideAfter.document).toEqual(guideBefore.document);
    expect((await read(pages.faq)).document).toEqual(faqBefore.document);

    // Structure follows: a page added, one removed, one moved to the top level.
    const added = await mergeEdit(p, spaceId, [
      { operation: 'insert_page', document: { markdown: '# Changelog\n\nWhat changed.\n' } },
      { operation: 'delete_page', page: pages.faq },
      { operation: 'update_page', page: pages.setup, into: null },
    ]);
    const changelog = added.changes.find((change: { object: string }) => change.object === 'created_page').page
      .id as string;
    await p.app.jobs.drain();
    const third = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(third.stats).toMatchObject({ runs: 3, latestPages: 1, totalPages: 4 });
    const sourceTree = (await ada.get(`/spaces/${spaceId}/content/pages`)).body.pages;
    const resultTree = (await ada.get(`/spaces/${resultSpace}/content/pages`)).body.pages;
    const shape = (tree: any[]): unknown => tree.map((page) => [page.id, shape(page.pages)]);
    expect(shape(resultTree)).toEqual(shape(sourceTree));
    expect(resultTree.map((page: { id: string }) => page.id)).toContain(changelog);
    expect(resultTree.map((page: { id: string }) => page.id)).not.toContain(pages.faq);

    // New instructions: the next run translates every page again.
    const instructions = {
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Use a formal tone.' }] }] },
      ],
    };
    const updated = await ada.put(`/orgs/acme/translations/${id}`, { instructions });
    expect(updated.status).toBe(200);
    expect(updated.body.instructions).toMatchObject({
      object: 'document',
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Use a formal tone.', marks: [] }] }],
        },
      ],
    });
    expect((await ada.get(`/orgs/acme/translations/${id}`)).body.instructions).toEqual(updated.body.instructions);
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    expect((await ada.get(`/orgs/acme/translations/${id}`)).body.stats).toMatchObject({
      runs: 4,
      latestPages: 3,
      totalPages: 4,
    });

    expect((await ada.put(`/orgs/acme/translations/${id}`, {})).body.error.message).toMatch(/"instructions"/);
    expect((await ada.put(`/orgs/acme/translations/${id}`, { instructions: { object: 'nope' } })).status).toBe(400);
    expect((await ada.put('/orgs/acme/translations/nope', { instructions })).status).toBe(404);
  });

  it('makes a new result space when the old one was deleted, keeping the translations it had', async () => {
    const { spaceId } = await sourceSpace(p, 'Replaced result');
    const id = (await ada.post('/orgs/acme/translations', { language: 'it', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const first = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect((await ada.delete(`/spaces/${first.result.space}`)).status).toBe(205);
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const second = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(second.result.space).not.toBe(first.result.space);
    expect(second.stats).toMatchObject({ runs: 2, latestPages: 0, totalPages: 3 });
    const pages = (await ada.get(`/spaces/${second.result.space}/content/pages`)).body.pages;
    const guide = (await ada.get(`/spaces/${second.result.space}/content/page/${pages[0].id}`, { format: 'document' }))
      .body.document;
    expect(blockTexts(guide)[0]).toContain(pseudoLocalize('Welcome to the'));
  });

  it('deletes a translation (205, then 204); its result space stays; a queued run finds nothing to do', async () => {
    const { spaceId } = await sourceSpace(p, 'Deleted translation');
    const id = (await ada.post('/orgs/acme/translations', { language: 'nl', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const result = (await ada.get(`/orgs/acme/translations/${id}`)).body.result.space as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    const deleted = await ada.delete(`/orgs/acme/translations/${id}`);
    expect(deleted.status).toBe(205);
    expect((await ada.delete(`/orgs/acme/translations/${id}`)).status).toBe(204);
    expect((await ada.get(`/orgs/acme/translations/${id}`)).status).toBe(404);
    expect((await ada.post(`/orgs/acme/translations/${id}/run`)).status).toBe(404);
    await p.app.jobs.drain();
    expect((await ada.get(`/spaces/${result}`)).status).toBe(200);
    // Nothing runs for it any more: a merge into its source enqueues nothing.
    const jobs = () => p.db.prepare('SELECT COUNT(*) FROM jobs WHERE key = ?').pluck(true).get(id);
    const before = jobs();
    await mergeEdit(p, spaceId, [{ operation: 'insert_page', document: { markdown: '# More\n\nText.\n' } }]);
    expect(jobs()).toBe(before);
  });

  it('lists translations a page at a time', async () => {
    const all = (await ada.get('/orgs/acme/translations')).body;
    expect(all.count).toBeGreaterThan(2);
    const first = (await ada.get('/orgs/acme/translations', { limit: 2 })).body;
    const ids = (items: Array<{ id: string }>) => items.map((item) => item.id);
    expect(ids(first.items)).toEqual(ids(all.items.slice(0, 2)));
    const next = (await ada.get('/orgs/acme/translations', { limit: 2, page: first.next.page })).body;
    expect(next.items[0].id).toBe(all.items[2].id);
    expect((await ada.get('/orgs/acme/translations', { limit: 0 })).status).toBe(400);
    expect((await ada.get('/orgs/globex/translations')).body).toEqual({ count: 0, items: [] });
  });
});

/** A LibreTranslate-compatible service on loopback whose behaviour the tests switch. */
interface FakeTranslator {
  url: string;
  /** Request bodies received. */
  received: Array<{ q: string[] | string; source: string; target: string; format: string; api_key?: string }>;
  mode: 'ok' | 'fail' | 'refuse' | 'hold';
  /** Resolves when a request arrives in `hold` mode; `release()` then answers it. */
  held: Promise<void>;
  release(): void;
  close(): Promise<void>;
}

const API_KEY = 'lt-secret-key-0123456789';

async function fakeTranslator(): Promise<FakeTranslator> {
  let arrived: () => void = () => undefined;
  const pending: Array<() => void> = [];
  const fake: FakeTranslator = {
    url: '',
    received: [],
    mode: 'ok',
    held: Promise.resolve(),
    release: () => {
      for (const answer of pending.splice(0)) answer();
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const reset = () => {
    fake.held = new Promise((resolve) => (arrived = resolve));
  };
  reset();
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const body = JSON.parse(text);
      fake.received.push(body);
      const send = (status: number, payload: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(payload));
      };
      if (request.url !== '/translate' || request.method !== 'POST') return send(404, { error: 'Not found' });
      if (fake.mode === 'fail') return send(500, { error: 'Translation engine crashed' });
      // A service that repeats the key it was sent, as some do: it must not reach anyone.
      if (fake.mode === 'refuse' || body.api_key !== API_KEY)
        return send(403, { error: `Invalid API key: ${body.api_key}` });
      const answer = () => send(200, { translatedText: (body.q as string[]).map((q) => `[${body.target}] ${q}`) });
      if (fake.mode === 'hold') {
        pending.push(answer);
        arrived();
        reset();
        return;
      }
      answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return fake;
}

describe('translations (LibreTranslate-compatible service)', () => {
  let fake: FakeTranslator;
  let p: TestPlatform;
  let ada: ReturnType<typeof client>;

  beforeAll(async () => {
    fake = await fakeTranslator();
    p = await startTestPlatform({ seed: false, translatorUrl: fake.url, translatorApiKey: API_KEY });
    await organizations(p);
    ada = client(p);
  });
  afterAll(async () => {
    fake?.release();
    await p?.destroy();
    await fake?.close();
  });

  it('sends texts in batches with the languages and the key, and writes the answers', async () => {
    fake.mode = 'ok';
    fake.received.length = 0;
    const { spaceId, pages } = await sourceSpace(p, 'Service guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'pt-br', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const done = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(done).toMatchObject({ status: 'completed', stats: { runs: 1, latestPages: 3 } });
    expect(fake.received.length).toBeGreaterThan(0);
    for (const body of fake.received) {
      expect(body).toMatchObject({ source: 'en', target: 'pt-BR', format: 'text', api_key: API_KEY });
      expect(Array.isArray(body.q)).toBe(true);
    }
    const sent = fake.received.flatMap((body) => body.q as string[]);
    expect(sent).toContain('Guide');
    expect(sent.some((text) => text.includes('npm install') || text.includes('https://'))).toBe(false);
    const tree = (await ada.get(`/spaces/${done.result.space}/content/pages`)).body.pages;
    expect(tree[0].title).toBe('[pt-BR] Guide');
    const document = (await ada.get(`/spaces/${done.result.space}/content/page/${pages.setup}`, { format: 'document' }))
      .body.document;
    expect(blockTexts(document)).toEqual(['[pt-BR] Install the agent on every machine.']);
  });

  it('shows the run as running while the service works, and joins a run asked while another waits', async () => {
    fake.mode = 'hold';
    const { spaceId } = await sourceSpace(p, 'Held guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'de', source: { space: spaceId } })).body
      .id as string;
    const held = fake.held;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await held;
    expect((await ada.get(`/orgs/acme/translations/${id}`)).body.status).toBe('running');
    // Three more requests while it runs: one run waits, the others join it.
    for (let i = 0; i < 3; i += 1) expect((await ada.post(`/orgs/acme/translations/${id}/run`)).status).toBe(204);
    const queued = p.db.prepare("SELECT COUNT(*) FROM jobs WHERE key = ? AND state = 'queued'").pluck(true).get(id);
    expect(queued).toBe(1);
    expect((await ada.get(`/orgs/acme/translations/${id}`)).body.status).toBe('running');
    fake.mode = 'ok';
    fake.release();
    await p.app.jobs.drain();
    const done = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(done).toMatchObject({ status: 'completed', stats: { runs: 2, latestPages: 0, totalPages: 3 } });
  });

  it('fails a run cleanly when the service is down after retries: the last result stays, the reason shows', async () => {
    fake.mode = 'ok';
    const { spaceId } = await sourceSpace(p, 'Outage guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'fr', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const good = (await ada.get(`/orgs/acme/translations/${id}`)).body;

    fake.mode = 'fail';
    const calls = fake.received.length;
    await mergeEdit(p, spaceId, [{ operation: 'insert_page', document: { markdown: '# Outage\n\nDown.\n' } }]);
    await p.app.jobs.drain();
    // Three attempts, then the translation is as it was, with the reason.
    expect(fake.received.length - calls).toBe(3);
    const failed = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(failed).toMatchObject({ status: 'completed', result: good.result, stats: good.stats });
    expect(failed.lastRunError).toEqual({
      message: expect.stringMatching(/answered 500: Translation engine crashed/),
      failedAt: expect.any(String),
    });

    // Never run: a failed first run leaves it pending, without a result.
    const fresh = (await ada.post('/orgs/acme/translations', { language: 'de', source: { space: spaceId } })).body
      .id as string;
    await ada.post(`/orgs/acme/translations/${fresh}/run`);
    await p.app.jobs.drain();
    const pending = (await ada.get(`/orgs/acme/translations/${fresh}`)).body;
    expect(pending.status).toBe('pending');
    expect(pending.result).toBeUndefined();
    expect(pending.lastRunError.message).toMatch(/answered 500/);

    // Back up: the next run completes and clears the error.
    fake.mode = 'ok';
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    const recovered = (await ada.get(`/orgs/acme/translations/${id}`)).body;
    expect(recovered).toMatchObject({ status: 'completed', stats: { runs: 2, latestPages: 1 } });
    expect(recovered.lastRunError).toBeUndefined();
  });

  it('never shows the API key, even when the service repeats it; a refusal is not retried', async () => {
    fake.mode = 'refuse';
    const { spaceId } = await sourceSpace(p, 'Refused guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'fr', source: { space: spaceId } })).body
      .id as string;
    const calls = fake.received.length;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await p.app.jobs.drain();
    expect(fake.received.length - calls).toBe(1);
    const answer = await ada.get(`/orgs/acme/translations/${id}`);
    expect(answer.body.lastRunError.message).toMatch(/answered 403: Invalid API key: \*\*\*/);
    expect(JSON.stringify(answer.body)).not.toContain(API_KEY);
    const errors = p.db.prepare('SELECT error FROM jobs WHERE key = ?').pluck(true).all(id);
    expect(errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(errors)).not.toContain(API_KEY);
    expect(JSON.stringify(p.db.prepare('SELECT * FROM translations WHERE id = ?').get(id))).not.toContain(API_KEY);
    fake.mode = 'ok';
  });

  it('reports an unreachable service without its address details leaking credentials', async () => {
    const translator = libreTranslator({
      url: 'http://user:pw@127.0.0.1:1/base?token=x',
      apiKey: API_KEY,
      timeoutMs: 2000,
    });
    const error = await translator
      .translate({
        texts: ['Hello'],
        source: 'en',
        target: 'fr',
        instructions: { object: 'document', data: {}, nodes: [] },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranslatorError);
    expect((error as TranslatorError).retryable).toBe(true);
    expect((error as Error).message).toBe('the translator at http://127.0.0.1:1/base/translate could not be reached');
  });

  it('runs a run interrupted by a restart again', async () => {
    fake.mode = 'hold';
    const { spaceId } = await sourceSpace(p, 'Restarted guide');
    const id = (await ada.post('/orgs/acme/translations', { language: 'fr', source: { space: spaceId } })).body
      .id as string;
    const held = fake.held;
    await ada.post(`/orgs/acme/translations/${id}/run`);
    await held;
    // A copy of the database as a crash would leave it: the run marked running, not done.
    const dataDir = mkdtempSync(join(tmpdir(), 'translation-restart-'));
    p.db.exec(`VACUUM INTO '${join(dataDir, 'platform.sqlite')}'`);
    fake.mode = 'ok';
    const restarted = await startTestPlatform({
      dataDir,
      seed: false,
      translatorUrl: fake.url,
      translatorApiKey: API_KEY,
    });
    try {
      await restarted.app.jobs.drain();
      const after = (await restarted.api('GET', `/orgs/acme/translations/${id}`, { token: p.adminToken })).body;
      expect(after).toMatchObject({ status: 'completed', stats: { runs: 1, latestPages: 3 } });
      const states = restarted.db.prepare('SELECT state, attempts FROM jobs WHERE key = ?').all(id);
      expect(states).toEqual([{ state: 'done', attempts: 2 }]);
    } finally {
      await restarted.destroy();
      rmSync(dataDir, { recursive: true, force: true });
      fake.release();
      await p.app.jobs.drain();
    }
  });
});
