import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchUrl, OutboundError } from '../../src/platform/outbound.js';
import {
  changeRequestsInEveryState,
  clusterOf,
  ingestConversations,
  type SpaceOfChangeRequests,
} from '../fixtures/change-requests.js';
import { pngImage } from '../fixtures/content.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
/** Acme: ada its admin; ben creates, cy reviews, dee edits, eve comments, finn reads. */
let acme: TestOrg;
/** Globex: ada its admin, hana edits (she is in no other organization). */
let globex: TestOrg;
/** Acme's public "Getting started", with a change request in every state. */
let gettingStarted: SpaceOfChangeRequests;
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  acme = addOrg(p, {
    id: 'acme',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read' },
  });
  globex = addOrg(p, { id: 'globex', members: { ada: 'admin', hana: 'edit' }, users: { ada: acme.user('ada') } });
  await ingestConversations(acme, [
    { id: 'install-1', messages: ['The installer fails with permission denied, I cannot install the CLI.'] },
  ]);
  gettingStarted = await changeRequestsInEveryState(acme, {
    authors: ['ben', 'dee'],
    reviewer: 'finn',
    approver: 'cy',
    cluster: await clusterOf(acme, 'install-1'),
  });
  files = createServer((request, response) => {
    if (request.url === '/logo.png') {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end(pngImage(4, 3));
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => files?.close(resolve));
  await p?.destroy();
});

/** The API token of a member by key (hana's of Globex, the others' of Acme). */
const tokenOf = (key: string) => (key === 'hana' ? globex : acme).token(key);
const as = (key: string) => ({
  get: (path: string, query?: Record<string, string | number | boolean>) =>
    p.api('GET', path, { token: tokenOf(key), ...(query ? { query } : {}) }),
  post: (path: string, body?: unknown, query?: Record<string, string | number | boolean>) =>
    p.api('POST', path, { token: tokenOf(key), body: body ?? {}, ...(query ? { query } : {}) }),
  patch: (path: string, body: unknown) => p.api('PATCH', path, { token: tokenOf(key), body }),
  delete: (path: string) => p.api('DELETE', path, { token: tokenOf(key) }),
});
const ada = as('ada');
const dee = as('dee');
const cy = as('cy');

/** A fresh space of Acme with one page ("Guide", three paragraphs), merge rules `none`. */
async function freshSpace(title: string): Promise<{ spaceId: string; pageId: string; keys: string[] }> {
  const space = (await ada.post('/orgs/acme/spaces', { title })).body as { id: string };
  await ada.patch(`/spaces/${space.id}`, { mergeRules: { type: 'none' } });
  const cr = await openRequest(space.id, 'Seed');
  const edit = await ada.post(`/spaces/${space.id}/change-requests/${cr}/content`, {
    changes: [
      {
        operation: 'insert_page',
        document: { markdown: '# Guide\n\nAlpha paragraph.\n\nBeta paragraph.\n\nGamma paragraph.\n' },
      },
    ],
  });
  expect(edit.status).toBe(200);
  expect((await ada.post(`/spaces/${space.id}/change-requests/${cr}/merge`)).body).toMatchObject({ result: 'merge' });
  const pages = (await ada.get(`/spaces/${space.id}/content/pages`)).body.pages as Array<{ id: string }>;
  const document = (await ada.get(`/spaces/${space.id}/content/page/${pages[0]!.id}`, { format: 'document' })).body
    .document;
  return { spaceId: space.id, pageId: pages[0]!.id, keys: document.nodes.map((node: { key: string }) => node.key) };
}

async function openRequest(spaceId: string, subject: string, who = ada): Promise<string> {
  const created = await who.post(`/spaces/${spaceId}/change-requests`, { subject });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const paragraph = (text: string, key: string) => ({
  object: 'block',
  type: 'paragraph',
  key,
  data: {},
  nodes: [{ object: 'text', key: `${key}-t`, leaves: [{ object: 'leaf', text, marks: [] }] }],
});

async function pageText(spaceId: string, pageId: string, changeRequestId?: string): Promise<string[]> {
  const base = changeRequestId
    ? `/spaces/${spaceId}/change-requests/${changeRequestId}/content`
    : `/spaces/${spaceId}/content`;
  const answer = await ada.get(`${base}/page/${pageId}`, { format: 'document' });
  expect(answer.status).toBe(200);
  return answer.body.document.nodes.map((node: { nodes: Array<{ leaves?: Array<{ text: string }> }> }) =>
    node.nodes.map((child) => (child.leaves ?? []).map((leaf) => leaf.text).join('')).join(''),
  );
}

describe('change request lifecycle', () => {
  it('creates drafts numbered per space, found by id or number, and keeps the space counts true', async () => {
    const space = (await ada.post('/orgs/acme/spaces', { title: 'CR lifecycle' })).body as {
      id: string;
      revision: string;
    };
    const first = await dee.post(`/spaces/${space.id}/change-requests`, { subject: 'Fix typos' });
    const second = await dee.post(`/spaces/${space.id}/change-requests`, { subject: 'New guide' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      object: 'change-request',
      number: 1,
      status: 'draft',
      subject: 'Fix typos',
      space: space.id,
      revision: space.revision,
      revisionInitial: space.revision,
      outdated: false,
      createdBy: { id: acme.user('dee').id },
    });
    expect(second.body.number).toBe(2);
    expect((await ada.get(`/spaces/${space.id}/change-requests/2`)).body.id).toBe(second.body.id);
    expect((await ada.get(`/spaces/${space.id}/change-requests/${first.body.id}`)).body.number).toBe(1);
    expect((await ada.get(`/spaces/${space.id}/change-requests/3`)).status).toBe(404);

    await dee.patch(`/spaces/${space.id}/change-requests/2`, { status: 'open' });
    expect((await ada.get(`/spaces/${space.id}`)).body).toMatchObject({
      changeRequests: 2,
      changeRequestsOpen: 1,
      changeRequestsDraft: 1,
    });

    // The list shows open requests unless asked otherwise.
    const open = await ada.get(`/spaces/${space.id}/change-requests`);
    expect(open.body.items.map((item: { number: number }) => item.number)).toEqual([2]);
    const drafts = await ada.get(`/spaces/${space.id}/change-requests`, {
      status: 'draft',
      creator: acme.user('dee').id,
    });
    expect(drafts.body.items.map((item: { number: number }) => item.number)).toEqual([1]);
    const org = await ada.get('/orgs/acme/change-requests', { status: 'open' });
    expect(org.body.items.some((item: { id: string }) => item.id === second.body.id)).toBe(true);

    // Archive and reopen; merged cannot be set.
    expect((await dee.patch(`/spaces/${space.id}/change-requests/1`, { status: 'archived' })).body.status).toBe(
      'archived',
    );
    expect((await dee.patch(`/spaces/${space.id}/change-requests/1`, { status: 'open' })).body.status).toBe('open');
    const merged = await dee.patch(`/spaces/${space.id}/change-requests/1`, { status: 'merged' });
    expect(merged.status).toBe(400);
    expect(merged.body.error.message).toMatch(/status/);
    expect((await dee.patch(`/spaces/${space.id}/change-requests/1`, { subject: 'x'.repeat(101) })).status).toBe(400);
  });

  it('lets only editors create change requests, and shows them to members only', async () => {
    const { spaceId } = gettingStarted;
    expect((await as('eve').post(`/spaces/${spaceId}/change-requests`, { subject: 'No' })).status).toBe(403);
    // A public space is readable by anyone; its change requests are not.
    expect((await as('hana').get(`/spaces/${spaceId}`)).status).toBe(200);
    expect((await as('hana').get(`/spaces/${spaceId}/change-requests`)).status).toBe(404);
    expect((await as('hana').get(`/spaces/${spaceId}/change-requests/1/content`)).status).toBe(404);
  });
});

describe('change request content', () => {
  it('applies a batch as one revision: markdown titles, front matter, refs between new pages and files, unresolved links as text', async () => {
    const { spaceId, pageId } = await freshSpace('CR edits');
    const cr = await openRequest(spaceId, 'Edits');
    const before = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.revision as string;
    const answer = await dee.post(
      `/spaces/${spaceId}/change-requests/${cr}/content`,
      {
        changes: [
          {
            operation: 'insert_page',
            ref: 'setup',
            title: 'Ignored title',
            document: {
              markdown:
                '---\ndescription: How to set it up\nhidden: true\n---\n\n# Setup\n\nSee [the FAQ](./faq.md), [the guide](/pages/guide.md), ![logo](./logo) and [nowhere](./missing.md).\n',
            },
          },
          {
            operation: 'insert_page',
            ref: 'faq',
            into: pageId,
            document: { markdown: '# FAQ\n\nBack to [setup](./setup.md).\n' },
          },
          { operation: 'insert_files', files: [{ name: 'logo.png', ref: 'logo', url: `${filesUrl}/logo.png` }] },
        ],
      },
      { compat: false },
    );
    expect(answer.status).toBe(200);
    const { changeRequest, changes, insertedFiles } = answer.body;
    expect(changeRequest.revision).not.toBe(before);
    expect(changes.map((change: { object: string; ref?: string }) => [change.object, change.ref])).toEqual([
      ['created_page', 'setup'],
      ['created_page', 'faq'],
    ]);
    expect(insertedFiles).toMatchObject([
      { name: 'logo.png', contentType: 'image/png', size: pngImage(4, 3).length, dimensions: { width: 4, height: 3 } },
    ]);
    const setupId = changes[0].page.id as string;
    const faqId = changes[1].page.id as string;

    const setup = (
      await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${setupId}`, { format: 'document' })
    ).body;
    expect(setup).toMatchObject({ title: 'Setup', slug: 'setup', description: 'How to set it up', hidden: true });
    const inlines = setup.document.nodes[0].nodes as Array<{
      type?: string;
      object: string;
      data?: { ref: unknown };
      leaves?: Array<{ text: string }>;
    }>;
    const refs = inlines.filter((node) => node.object === 'inline').map((node) => node.data?.ref);
    expect(refs).toEqual([
      { kind: 'page', page: faqId },
      { kind: 'page', page: pageId },
      { kind: 'file', file: insertedFiles[0].id },
    ]);
    // The unresolved link is its text.
    expect(JSON.stringify(inlines)).toContain('nowhere');
    expect(JSON.stringify(inlines)).not.toContain('missing.md');
    const faq = (
      await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${faqId}`, { format: 'markdown' })
    ).body;
    expect(faq.path).toBe('guide/faq');
    expect(faq.markdown).toContain('[setup](../setup.md)');

    // The live content is untouched; the request's content reads like the space's.
    expect((await ada.get(`/spaces/${spaceId}/content/pages`)).body.pages).toHaveLength(1);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/pages`)).body.pages).toHaveLength(2);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/path/guide/faq`)).body.id).toBe(faqId);
    const contributors = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/contributors`)).body.items;
    expect(contributors).toMatchObject([{ user: { id: acme.user('dee').id }, actionType: 'edit', count: 1 }]);
  });

  it('rejects a whole batch with one bad change, naming the change and field, and writes nothing', async () => {
    const { spaceId, pageId } = await freshSpace('CR atomic');
    const cr = await openRequest(spaceId, 'Atomic');
    const before = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.revision;
    const bad = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'update_page', page: pageId, title: 'Renamed' },
        { operation: 'delete_page', page: 'no-such-page' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/"changes\.1\.page"/);
    const slug = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', slug: 'guide', document: { markdown: 'Body' } }],
    });
    expect(slug.status).toBe(400);
    expect(slug.body.error.message).toMatch(/"changes\.0\.slug".*already has the slug "guide"/);
    const shape = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'rename_page' }],
    });
    expect(shape.status).toBe(400);
    const tooMany = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: Array.from({ length: 51 }, () => ({ operation: 'delete_page', page: pageId })),
    });
    expect(tooMany.status).toBe(400);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.revision).toBe(before);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`)).body.title).toBe('Guide');
  });

  it('keeps the keys of the blocks a markdown update left alone', async () => {
    const { spaceId, pageId, keys } = await freshSpace('CR keys');
    const cr = await openRequest(spaceId, 'Keys');
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'update_page',
          page: pageId,
          document: { markdown: '# Guide\n\nAlpha paragraph.\n\nBeta, rewritten.\n\nGamma paragraph.\n' },
        },
      ],
    });
    const document = (
      await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`, { format: 'document' })
    ).body.document;
    const after = document.nodes.map((node: { key: string }) => node.key);
    expect(after[0]).toBe(keys[0]);
    expect(after[2]).toBe(keys[2]);
    expect(await pageText(spaceId, pageId, cr)).toEqual(['Alpha paragraph.', 'Beta, rewritten.', 'Gamma paragraph.']);
  });

  it('reverts a page, or some of its blocks, to the base revision', async () => {
    const { spaceId, pageId, keys } = await freshSpace('CR revert');
    const cr = await openRequest(spaceId, 'Revert');
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'update_page',
          page: pageId,
          title: 'Changed',
          document: { markdown: '# Changed\n\nAlpha, edited.\n\nGamma paragraph.\n\nDelta, new.\n' },
        },
      ],
    });
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'revert_page', page: pageId, block: [keys[1]!] }],
    });
    expect(await pageText(spaceId, pageId, cr)).toEqual([
      'Alpha, edited.',
      'Beta paragraph.',
      'Gamma paragraph.',
      'Delta, new.',
    ]);
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'revert_page', page: pageId }],
    });
    expect(await pageText(spaceId, pageId, cr)).toEqual(['Alpha paragraph.', 'Beta paragraph.', 'Gamma paragraph.']);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`)).body.title).toBe('Guide');
  });

  it('inserts files from base64, and refuses bad ones naming the file', async () => {
    const { spaceId } = await freshSpace('CR files');
    const cr = await openRequest(spaceId, 'Files');
    const ok = await ada.post(
      `/spaces/${spaceId}/change-requests/${cr}/content`,
      {
        changes: [
          {
            operation: 'insert_files',
            files: [{ name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('hello').toString('base64') }],
          },
        ],
      },
      { compat: false },
    );
    expect(ok.status).toBe(200);
    const file = ok.body.insertedFiles[0];
    expect(file).toMatchObject({ name: 'notes.txt', contentType: 'text/plain', size: 5 });
    const download = await fetch(file.downloadURL);
    expect(await download.text()).toBe('hello');
    const missing = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_files', files: [{ name: 'a.png', url: `${filesUrl}/nothing.png` }] }],
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/"changes\.0\.files\.0\.url".*answered 404/);
    const both = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'insert_files',
          files: [{ name: 'a.png', contentType: 'image/png', base64: 'AA==', url: `${filesUrl}/logo.png` }],
        },
      ],
    });
    expect(both.status).toBe(400);
  });

  it('refuses private and loopback targets outside demo and test runs', async () => {
    await expect(fetchUrl(`${filesUrl}/logo.png`, { allowPrivate: false, maxBytes: 1000 })).rejects.toThrow(
      OutboundError,
    );
    await expect(fetchUrl('http://user:secret@127.0.0.1:1/x', { allowPrivate: false, maxBytes: 1000 })).rejects.toThrow(
      /^http:\/\/127\.0\.0\.1:1\/x is a private/,
    );
    await expect(fetchUrl('file:///etc/passwd', { allowPrivate: true, maxBytes: 1000 })).rejects.toThrow(
      /http or https/,
    );
    const fetched = await fetchUrl(`${filesUrl}/logo.png`, { allowPrivate: true, maxBytes: 1000 });
    expect(fetched.contentType).toBe('image/png');
    await expect(fetchUrl(`${filesUrl}/logo.png`, { allowPrivate: true, maxBytes: 10 })).rejects.toThrow(
      /larger than 10 bytes/,
    );
  });
});

describe('reviews and merges', () => {
  it('runs the whole cycle: edit with markdown, request a review, approve, merge; the page is live and found by search', async () => {
    const { spaceId } = await freshSpace('CR cycle');
    const cr = await openRequest(spaceId, 'Add the glossary', dee);
    await dee.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'insert_page',
          document: { markdown: '# Glossary\n\nA zygomorphic flower has one plane of symmetry.\n' },
        },
      ],
    });
    await dee.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', document: { markdown: '# Index\n\nEvery term.\n' } }],
    });
    // Its changes are everything it did since it branched, not its last batch alone.
    const changes = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/changes`)).body.changes;
    expect(
      changes.map((change: { type: string; page?: { title: string } }) => [change.type, change.page?.title]),
    ).toEqual([
      ['page_created', 'Glossary'],
      ['page_created', 'Index'],
    ]);
    const requested = await dee.post(`/spaces/${spaceId}/change-requests/${cr}/requested-reviewers`, {
      users: [acme.user('cy').id],
    });
    expect(requested.status).toBe(200);
    expect(requested.body.users).toMatchObject([
      { object: 'change-request-requested-reviewer', kind: 'user', user: { id: acme.user('cy').id } },
    ]);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.status).toBe('open');
    const inbox = await ada.get(`/spaces/${spaceId}/change-requests`, { requestedReviewer: acme.user('cy').id });
    expect(inbox.body.items.map((item: { id: string }) => item.id)).toEqual([cr]);

    expect((await dee.post(`/spaces/${spaceId}/change-requests/${cr}/reviews`, { status: 'approved' })).status).toBe(
      403,
    );
    const review = await cy.post(`/spaces/${spaceId}/change-requests/${cr}/reviews`, {
      status: 'approved',
      comment: { object: 'document', data: {}, nodes: [paragraph('Looks good', 'c1')] },
    });
    expect(review.status).toBe(201);
    expect(review.body).toMatchObject({
      status: 'approved',
      reviewer: { id: acme.user('cy').id },
      requestedBy: { id: acme.user('dee').id },
      outdated: false,
    });
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/reviews`)).body.items).toHaveLength(1);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${cr}/requested-reviewers`)).body.items).toHaveLength(0);
    const contributors = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/contributors`)).body.items;
    expect(contributors.map((item: { actionType: string }) => item.actionType).sort()).toEqual(['comment', 'edit']);

    const merged = await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body).toEqual({ revision: expect.any(String), result: 'merge' });
    const space = (await ada.get(`/spaces/${spaceId}`)).body;
    expect(space.revision).toBe(merged.body.revision);
    const request = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body;
    expect(request).toMatchObject({
      status: 'merged',
      revisionMerged: merged.body.revision,
      mergedBy: { id: acme.user('cy').id },
      outdated: false,
    });
    const revision = (await ada.get(`/spaces/${spaceId}/revisions/${merged.body.revision}`)).body;
    expect(revision).toMatchObject({ type: 'merge', parents: [request.revisionInitial, request.revision] });
    const pages = (await ada.get(`/spaces/${spaceId}/content/pages`)).body.pages.map(
      (page: { title: string }) => page.title,
    );
    expect(pages).toEqual(['Guide', 'Glossary', 'Index']);
    const found = await ada.get(`/spaces/${spaceId}/search`, { query: 'zygomorphic' });
    expect(found.body.items.map((item: { title: string }) => item.title)).toEqual(['Glossary']);

    expect((await dee.patch(`/spaces/${spaceId}/change-requests/${cr}`, { subject: 'Again' })).status).toBe(409);
    expect(
      (
        await dee.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
          changes: [{ operation: 'insert_page', document: {} }],
        })
      ).status,
    ).toBe(409);
    expect((await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`)).status).toBe(409);
  });

  it('merges edits to different blocks of one page cleanly', async () => {
    const { spaceId, pageId, keys } = await freshSpace('CR clean merge');
    const first = await openRequest(spaceId, 'First');
    const second = await openRequest(spaceId, 'Second');
    await ada.post(`/spaces/${spaceId}/change-requests/${first}/content`, {
      changes: [
        {
          operation: 'update_page',
          page: pageId,
          document: { markdown: '# Guide\n\nAlpha, by the first.\n\nBeta paragraph.\n\nGamma paragraph.\n' },
        },
      ],
    });
    await ada.post(`/spaces/${spaceId}/change-requests/${second}/content`, {
      changes: [
        {
          operation: 'update_page',
          page: pageId,
          document: { markdown: '# Guide\n\nAlpha paragraph.\n\nBeta paragraph.\n\nGamma, by the second.\n' },
        },
      ],
    });
    expect((await ada.post(`/spaces/${spaceId}/change-requests/${first}/merge`)).body.result).toBe('merge');
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${second}`)).body.outdated).toBe(true);
    expect((await ada.post(`/spaces/${spaceId}/change-requests/${second}/merge`)).body.result).toBe('merge');
    expect(await pageText(spaceId, pageId)).toEqual([
      'Alpha, by the first.',
      'Beta paragraph.',
      'Gamma, by the second.',
    ]);
    const live = (await ada.get(`/spaces/${spaceId}/content/page/${pageId}`, { format: 'document' })).body.document;
    expect(live.nodes.map((node: { key: string }) => node.key)).toEqual(keys);
  });

  it('reports a conflict without changing anything live; an update puts both versions in the request; once resolved it merges', async () => {
    const { spaceId, pageId, keys } = await freshSpace('CR conflict');
    const first = await openRequest(spaceId, 'First');
    const second = await openRequest(spaceId, 'Second');
    const edit = (cr: string, text: string) =>
      ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
        changes: [
          {
            operation: 'update_page',
            page: pageId,
            document: { markdown: `# Guide\n\nAlpha paragraph.\n\n${text}\n\nGamma paragraph.\n` },
          },
        ],
      });
    await edit(first, 'Beta by the first.');
    await edit(second, 'Beta by the second.');
    expect((await ada.post(`/spaces/${spaceId}/change-requests/${first}/merge`)).body.result).toBe('merge');
    const live = (await ada.get(`/spaces/${spaceId}`)).body.revision;
    const secondRevision = (await ada.get(`/spaces/${spaceId}/change-requests/${second}`)).body.revision;

    const refused = await ada.post(`/spaces/${spaceId}/change-requests/${second}/merge`);
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({
      revision: secondRevision,
      result: 'conflicts',
      conflicts: [{ page: pageId, block: keys[1] }],
    });
    expect((await ada.get(`/spaces/${spaceId}`)).body.revision).toBe(live);
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${second}`)).body.status).toBe('draft');

    const updated = await ada.post(`/spaces/${spaceId}/change-requests/${second}/update`);
    expect(updated.body).toMatchObject({ result: 'conflicts', conflicts: [{ page: pageId, block: keys[1] }] });
    const request = (await ada.get(`/spaces/${spaceId}/change-requests/${second}`)).body;
    expect(request).toMatchObject({ revision: updated.body.revision, revisionMergedAncestor: live, outdated: false });
    expect((await ada.get(`/spaces/${spaceId}/revisions/${updated.body.revision}`)).body.type).toBe('update');
    expect(await pageText(spaceId, pageId, second)).toEqual([
      'Alpha paragraph.',
      'Beta by the second.',
      'Beta by the first.',
      'Gamma paragraph.',
    ]);

    // The author keeps one version, then the merge is clean.
    await edit(second, 'Beta by both.');
    expect((await ada.post(`/spaces/${spaceId}/change-requests/${second}/merge`)).body.result).toBe('merge');
    expect(await pageText(spaceId, pageId)).toEqual(['Alpha paragraph.', 'Beta by both.', 'Gamma paragraph.']);
  });

  it('serializes concurrent merges into one space: the second merges against the first', async () => {
    const { spaceId, pageId } = await freshSpace('CR concurrent');
    const requests = await Promise.all(['One', 'Two', 'Three'].map((subject) => openRequest(spaceId, subject)));
    for (const [i, cr] of requests.entries()) {
      await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
        changes: [
          { operation: 'insert_page', into: pageId, document: { markdown: `# Part ${i + 1}\n\nText ${i + 1}.\n` } },
        ],
      });
    }
    const answers = await Promise.all(requests.map((cr) => ada.post(`/spaces/${spaceId}/change-requests/${cr}/merge`)));
    expect(answers.map((answer) => answer.body.result)).toEqual(['merge', 'merge', 'merge']);
    const pages = (await ada.get(`/spaces/${spaceId}/content/pages`)).body.pages[0].pages.map(
      (page: { title: string }) => page.title,
    );
    expect([...pages].sort()).toEqual(['Part 1', 'Part 2', 'Part 3']);
    // Each merge revision has the one before as its first parent: a chain, nothing merged over.
    const revisions = await Promise.all(
      answers.map((answer) => ada.get(`/spaces/${spaceId}/revisions/${answer.body.revision}`)),
    );
    const ids = new Set(answers.map((answer) => answer.body.revision));
    const chained = revisions.filter((revision) => ids.has(revision.body.parents[0]));
    expect(chained).toHaveLength(2);
  });

  it('enforces merge rules with a 412 naming the rule, and lets a bypass user through', async () => {
    const { spaceId } = await freshSpace('CR rules');
    await ada.patch(`/spaces/${spaceId}`, {
      mergeRules: {
        type: 'rules',
        rules: [
          { rule: 'require_change_request_subject' },
          { rule: 'require_specific_reviewers', users: [acme.user('cy').id] },
          { rule: 'allow_bypass', users: [acme.user('ada').id] },
        ],
      },
    });
    const cr = await openRequest(spaceId, '', dee);
    await dee.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', document: { markdown: '# Rules\n' } }],
    });
    const noSubject = await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`);
    expect(noSubject.status).toBe(412);
    expect(noSubject.body.error.message).toMatch(/require_change_request_subject/);
    await dee.patch(`/spaces/${spaceId}/change-requests/${cr}`, { subject: 'Rules page' });
    const noReview = await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`);
    expect(noReview.status).toBe(412);
    expect(noReview.body.error.message).toMatch(
      /Merge rule require_specific_reviewers is not met: it needs the approval of/,
    );
    await cy.post(`/spaces/${spaceId}/change-requests/${cr}/reviews`, { status: 'changes-requested' });
    expect((await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`)).status).toBe(412);
    await cy.post(`/spaces/${spaceId}/change-requests/${cr}/reviews`, { status: 'approved' });
    expect((await cy.post(`/spaces/${spaceId}/change-requests/${cr}/merge`)).body.result).toBe('merge');

    const bypassed = await openRequest(spaceId, '', dee);
    expect((await ada.post(`/spaces/${spaceId}/change-requests/${bypassed}/merge`)).body.result).toBe('merge');
    const unknownRule = await ada.patch(`/spaces/${spaceId}`, {
      mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'true' }] },
    });
    expect(unknownRule.status).toBe(400);
  });
});

describe('templates and PDF', () => {
  it('applies a template to a new change request and to the live content, as new pages', async () => {
    const { spaceId } = await freshSpace('CR templates');
    const created = await ada.post(`/spaces/${spaceId}/change-requests`, {
      subject: 'Changelog',
      template: { id: 'changelog' },
    });
    expect(created.status).toBe(201);
    const pages = (await ada.get(`/spaces/${spaceId}/change-requests/${created.body.id}/content/pages`)).body.pages;
    expect(pages.map((page: { title: string }) => page.title)).toEqual(['Guide', 'Changelog']);
    expect(pages[1].pages.map((page: { title: string }) => page.title)).toEqual(['Version 1.1', 'Version 1.0']);

    const applied = await ada.post(`/spaces/${spaceId}/content/template`, { id: 'getting-started' });
    expect(applied.status).toBe(201);
    const live = (await ada.get(`/spaces/${spaceId}/content/pages`)).body.pages;
    expect(live.map((page: { title: string }) => page.title)).toEqual([
      'Guide',
      'Introduction',
      'Quickstart',
      'Core concepts',
    ]);
    const intro = (await ada.get(`/spaces/${spaceId}/content/page/${live[1].id}`, { format: 'document' })).body
      .document;
    expect(JSON.stringify(intro)).toContain(JSON.stringify({ kind: 'page', page: live[2].id }));
    const unknown = await ada.post(`/spaces/${spaceId}/content/template`, { id: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/"id".*getting-started, api-reference, changelog/);
  });

  it('exports a change request as a PDF of its own content', async () => {
    const { spaceId } = await freshSpace('CR pdf');
    const cr = await openRequest(spaceId, 'PDF');
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', document: { markdown: '# Printed\n\nOnly in the request.\n' } }],
    });
    const answer = await ada.get(`/spaces/${spaceId}/change-requests/${cr}/pdf`);
    expect(answer.status).toBe(200);
    const pdf = await fetch(answer.body.url);
    expect(pdf.status).toBe(200);
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(new URL(answer.body.url).searchParams.get('revision')).toBe(
      (await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.revision,
    );
  });
});

describe('a space with change requests in every state', () => {
  it('shows change requests in every state on "Getting started": merged, outdated, conflicting, reviewed, draft, archived', async () => {
    const { spaceId } = gettingStarted;
    const all = await Promise.all(
      (['draft', 'open', 'archived', 'merged'] as const).map(
        async (status) => (await ada.get(`/spaces/${spaceId}/change-requests`, { status })).body.items,
      ),
    );
    const [drafts, open, archived, merged] = all as Array<
      Array<{ id: string; subject: string; outdated: boolean; conversationsIssuesCluster?: string }>
    >;
    const { requests } = gettingStarted;
    const ids = (items: Array<{ id: string }>) => items.map((item) => item.id).sort();
    expect(ids(drafts!)).toEqual([requests.draft]);
    expect(ids(archived!)).toEqual([requests.archived]);
    expect(ids(merged!)).toEqual([requests.seed, requests.merged].sort());
    expect(ids(open!.filter((item) => item.outdated))).toEqual([requests.outdated, requests.conflicting].sort());
    expect(open!.some((item) => item.conversationsIssuesCluster)).toBe(true);
    const space = (await ada.get(`/spaces/${spaceId}`)).body;
    expect(space.changeRequests).toBe(drafts!.length + open!.length + archived!.length + merged!.length);

    // One of the outdated requests conflicts with what was merged; merging it changes nothing.
    const outcomes = await Promise.all(
      open!
        .filter((item) => item.outdated)
        .map((item) => ada.post(`/spaces/${spaceId}/change-requests/${item.id}/update`)),
    );
    expect(outcomes.map((outcome) => outcome.body.result).sort()).toEqual(['conflicts', 'update']);
    const reviewed = open!.find((item) => item.conversationsIssuesCluster)!;
    expect((await ada.get(`/spaces/${spaceId}/change-requests/${reviewed.id}/reviews`)).body.items).toMatchObject([
      { status: 'approved' },
    ]);
    expect(
      (await ada.get(`/spaces/${spaceId}/change-requests/${reviewed.id}/requested-reviewers`)).body.items,
    ).toHaveLength(1);
  });
});

describe('hostile and awkward input', () => {
  it('refuses markdown nested too deeply with a 400 naming the field, quickly', async () => {
    const { spaceId, pageId } = await freshSpace('CR deep markdown');
    const cr = await openRequest(spaceId, 'Deep');
    for (const markdown of [
      `${'>'.repeat(2000)} hi`,
      `${'['.repeat(8000)}x${'](y)'.repeat(8000)}`,
      `${'  '.repeat(100)}* deep`,
    ]) {
      const answer = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
        changes: [{ operation: 'update_page', page: pageId, document: { markdown } }],
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(
        /"changes\.0\.document\.markdown": markdown .*nested more than 32 levels/,
      );
      expect(answer.body.error).toMatchObject({ limit: 'markdownNesting', max: 32 });
    }
    // Ordinary brackets, however many, are fine.
    const fine = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'update_page',
          page: pageId,
          document: { markdown: `# Guide\n\n${'a[i] '.repeat(500)}\n\n${'[unclosed '.repeat(40)}\n` },
        },
      ],
    });
    expect(fine.status).toBe(200);
  });

  it('takes a page of 25,000 paragraphs, refuses one past the node budget with a coded 413, and keeps answering', async () => {
    const { spaceId } = await freshSpace('CR many paragraphs');
    const cr = await openRequest(spaceId, 'Many');
    const insert = (markdown: string) =>
      ada.post(
        `/spaces/${spaceId}/change-requests/${cr}/content`,
        { changes: [{ operation: 'insert_page', title: 'Long', document: { markdown } }] },
        { compat: false },
      );
    // 25,000 paragraphs of one text each: 50,000 nodes, the budget exactly.
    const accepted = await insert('a\n\n'.repeat(25_000));
    expect(accepted.status).toBe(200);
    const pageId = accepted.body.changes[0].page.id as string;
    const page = await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`, {
      format: 'document',
    });
    expect(page.body.document.nodes).toHaveLength(25_000);
    // One more paragraph: past the budget by 2 nodes.
    const refused = await insert('a\n\n'.repeat(25_001));
    expect(refused.status).toBe(413);
    expect(refused.body.error).toEqual({
      code: 413,
      message:
        'Invalid body field "changes.0.document.markdown": the markdown parses into more than 50000 nodes (50002 in its first 75003 characters), the limit is 50000',
      limit: 'markdownNodes',
      value: 50_002,
      max: 50_000,
    });
    const bytes = await insert('a'.repeat(1024 * 1024 + 1));
    expect(bytes.status).toBe(413);
    expect(bytes.body.error).toMatchObject({
      code: 413,
      limit: 'markdownBytes',
      value: 1024 * 1024 + 1,
      max: 1024 * 1024,
    });
    const pages = await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/pages`);
    expect(pages.body.pages.map((entry: { title: string }) => entry.title)).toEqual(['Guide', 'Long']);
  }, 60_000);

  it('refuses a JSON document over its node budget with a coded 413', async () => {
    const { spaceId, pageId } = await freshSpace('CR big JSON');
    const cr = await openRequest(spaceId, 'Big JSON');
    const nodes = Array.from({ length: 50_001 }, () => ({
      object: 'block',
      type: 'paragraph',
      nodes: [{ object: 'text', leaves: [{ text: 'a' }] }],
    }));
    const answer = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'update_page', page: pageId, document: { document: { object: 'document', nodes } } }],
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toEqual({
      code: 413,
      message:
        'Invalid body field "changes.0.document.document": the document has more than 100000 nodes, the limit is 100000',
      limit: 'documentNodes',
      value: 100_001,
      max: 100_000,
    });
    expect(await pageText(spaceId, pageId, cr)).toEqual(['Alpha paragraph.', 'Beta paragraph.', 'Gamma paragraph.']);
  });

  it('answers 400, not 500, for an invalid JSON document reverted in the same batch', async () => {
    const { spaceId, pageId, keys } = await freshSpace('CR invalid then revert');
    const cr = await openRequest(spaceId, 'Invalid');
    const answer = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'update_page', page: pageId, document: { document: { object: 'document', nodes: 'nope' } } },
        { operation: 'revert_page', page: pageId, block: [keys[0]] },
      ],
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/"changes\.0\.document\.document"/);
  });

  it('keeps slugs unique among siblings when a revert brings an old slug back', async () => {
    const { spaceId, pageId } = await freshSpace('CR revert slug');
    const cr = await openRequest(spaceId, 'Slugs');
    const answer = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'update_page', page: pageId, slug: 'moved' },
        { operation: 'insert_page', slug: 'guide', document: { markdown: '# Another guide\n' } },
        { operation: 'revert_page', page: pageId },
      ],
    });
    expect(answer.status).toBe(200);
    const slugs = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/pages`)).body.pages.map(
      (page: { slug: string }) => page.slug,
    );
    expect(slugs).toEqual(['guide-2', 'guide']);
  });

  it('limits the files of one batch, and serves uploaded files that are not images as attachments', async () => {
    const { spaceId } = await freshSpace('CR file limits');
    const cr = await openRequest(spaceId, 'Files');
    const file = (n: number) => ({
      name: `f${n}.txt`,
      contentType: 'text/plain',
      base64: Buffer.from(`file ${n}`).toString('base64'),
    });
    const tooMany = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'insert_files', files: Array.from({ length: 20 }, (_, n) => file(n)) },
        { operation: 'insert_files', files: [file(20)] },
      ],
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.message).toMatch(/at most 20 files, this one inserts 21/);
    const html = await ada.post(
      `/spaces/${spaceId}/change-requests/${cr}/content`,
      {
        changes: [
          {
            operation: 'insert_files',
            files: [
              {
                name: 'page.html',
                contentType: 'text/html',
                base64: Buffer.from('<script>alert(1)</script>').toString('base64'),
              },
            ],
          },
        ],
      },
      { compat: false },
    );
    const download = await fetch(html.body.insertedFiles[0].downloadURL);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(download.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('hides the revisions of change requests, and whom a merge came from, from readers outside the space', async () => {
    const spaceId = (await ada.post('/orgs/acme/spaces', { title: 'CR public history', visibility: 'public' })).body
      .id as string;
    await ada.patch(`/spaces/${spaceId}`, { mergeRules: { type: 'none' } });
    const cr = await openRequest(spaceId, 'Secret plan');
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'insert_page', document: { markdown: '# Draft\n' } }],
    });
    const draft = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}`)).body.revision;
    const outsider = as('hana');
    expect((await outsider.get(`/spaces/${spaceId}/revisions/${draft}`)).status).toBe(404);
    expect((await ada.get(`/spaces/${spaceId}/revisions/${draft}`)).status).toBe(200);
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/merge`);
    const live = await outsider.get(`/spaces/${spaceId}/content`);
    expect(live.status).toBe(200);
    expect(live.body.type).toBe('merge');
    expect(JSON.stringify(live.body)).not.toContain('Secret plan');
    expect((await ada.get(`/spaces/${spaceId}/content`)).body.mergedFrom).toMatchObject({ subject: 'Secret plan' });
  });
});

describe('adaptive content conditions of pages', () => {
  it('sets a page condition by field or by front matter `if`, removes it with an empty string, and exports it as `if`', async () => {
    const { spaceId, pageId } = await freshSpace('CR conditions');
    const cr = await openRequest(spaceId, 'Conditions');
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'update_page', page: pageId, condition: 'visitor.claims.unsigned.beta' },
        {
          operation: 'insert_page',
          document: { markdown: '---\nif: visitor.claims.plan == "pro"\n---\n# Pro only\n' },
        },
      ],
    });
    const pages = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/pages`)).body.pages;
    expect(pages.map((page: { condition?: string }) => page.condition)).toEqual([
      'visitor.claims.unsigned.beta',
      'visitor.claims.plan == "pro"',
    ]);
    const markdown = (
      await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pages[1].id}`, { format: 'markdown' })
    ).body.markdown;
    expect(markdown).toMatch(/^---\nif: visitor.claims.plan == "pro"\n---/);
    const hostile = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        { operation: 'update_page', page: pageId, condition: 'visitor.constructor.constructor("return process")()' },
      ],
    });
    expect(hostile.status).toBe(400);
    expect(hostile.body.error.message).toMatch(
      /"changes\.0\.condition": is not a condition the platform can evaluate: "constructor" cannot be read/,
    );
    const frontMatter = await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [
        {
          operation: 'insert_page',
          document: { markdown: '---\nif: visitor.claims.list.includes("x")\n---\n# Nope\n' },
        },
      ],
    });
    expect(frontMatter.status).toBe(400);
    expect(frontMatter.body.error.message).toMatch(
      /front matter "if" is not a condition the platform can evaluate: calls are not allowed/,
    );
    await ada.post(`/spaces/${spaceId}/change-requests/${cr}/content`, {
      changes: [{ operation: 'update_page', page: pageId, condition: '' }],
    });
    const after = (await ada.get(`/spaces/${spaceId}/change-requests/${cr}/content/page/${pageId}`)).body;
    expect(after).not.toHaveProperty('condition');
  });
});
