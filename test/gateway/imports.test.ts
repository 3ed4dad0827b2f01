import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateRawSync } from 'node:zlib';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { storeUploaded } from '../../src/platform/fonts/store.js';
import { DEFAULT_IMPORT_BUDGETS, MAX_ACTIVE_IMPORTS, registerImports } from '../../src/platform/imports/runs.js';
import { readZip } from '../../src/platform/imports/zip.js';
import { JobQueue } from '../../src/platform/jobs.js';
import { payloadsOf } from '../fixtures/incremental.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * Content imports end to end: the four operations through the graph (`startImportRun`,
 * `Organization.importRuns`, `node`, `cancelImportRun`), a website crawled from a loopback server
 * within its page budget, uploaded markdown, HTML and ZIP files, hostile archives refused with a
 * coded reason, and a run cancelled while it reads, which writes nothing.
 */

/** A ZIP archive of `entries` (deflated unless `stored`; sizes as declared, else true), written as the format says. */
function zipOf(
  entries: Array<{ path: string; bytes: Buffer | string; stored?: boolean; declaredSize?: number }>,
  countField?: number,
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const raw = Buffer.isBuffer(entry.bytes) ? entry.bytes : Buffer.from(entry.bytes);
    const data = entry.stored ? raw : deflateRawSync(raw);
    const name = Buffer.from(entry.path);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.stored ? 0 : 8, 8);
    local.writeUInt32LE(crc32(raw), 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.declaredSize ?? raw.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.stored ? 0 : 8, 10);
    central.writeUInt32LE(crc32(raw), 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.declaredSize ?? raw.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE((countField ?? entries.length) & 0xffff, 8);
  end.writeUInt16LE((countField ?? entries.length) & 0xffff, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const PAGES: Record<string, string> = {
  '/': '<html><head><title>Acme docs</title></head><body><nav><a href="/nav-only">Nav</a></nav><main><h1>Acme docs</h1><p>Welcome to <strong>Acme</strong>.</p><a href="/install">Install</a> <a href="/usage#top">Usage</a> <a href="https://elsewhere.test/">Away</a></main></body></html>',
  '/install':
    '<html><head><title>Install</title></head><body><h2>Steps</h2><ol><li>Download</li><li>Run <code>acme</code></li></ol><pre><code class="language-sh">acme init</code></pre><a href="/more">More</a></body></html>',
  '/usage': '<html><head><title>Usage</title></head><body><p>Use it.</p></body></html>',
  '/more': '<html><head><title>More</title></head><body><p>Past the budget.</p></body></html>',
  '/nav-only': '<html><head><title>Nav</title></head><body><p>Navigation.</p></body></html>',
};

let g: TestGateway;
let org: TestOrg;
let space: string;
let site: Server;
let origin: string;
/** Requests the website received, by path. */
const served: string[] = [];
/** While set, the website holds its answers until it is called. */
let hold: Promise<void> | undefined;
let release: () => void = () => undefined;
let reached: () => void = () => undefined;

beforeAll(async () => {
  g = await startTestGateway({ seed: false, importBudgets: { maxPages: 3, maxBytes: 16 * 1024 * 1024 } });
  org = addOrg(g.platform, { id: 'acme', members: { ada: 'admin', finn: 'read' } });
  space = await org.space('Imported');
  site = createServer(async (request, response) => {
    served.push(request.url ?? '');
    if (hold) {
      reached();
      await hold;
    }
    const page = PAGES[request.url ?? ''];
    response.writeHead(page ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'missing');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await g?.destroy();
});

const START = /* GraphQL */ `
  mutation StartImport($input: StartImportRunInput!) {
    startImportRun(input: $input) {
      importRun { id platformId status sourceType sourceUrl sourceFiles space { platformId } }
      importRunEdge { cursor }
      userErrors { code message field }
    }
  }
`;

const RUN = /* GraphQL */ `
  query ImportRunState($id: ID!) {
    node(id: $id) {
      ... on ImportRun {
        status
        reason
        pages { pageId sourceUrl }
        changeRequest { platformId subject }
        createdBy { platformId }
        startedAt
        completedAt
      }
    }
  }
`;

/** Uploads a file into the organization's storage; its key. */
const upload = (name: string, type: string, bytes: Buffer | string) =>
  storeUploaded(g.platform.db, org.id, 'import_file', name, type, Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));

async function startFiles(files: string[]) {
  const started = await expectOk(g, START, { input: { organizationId: org.id, spaceId: space, files } });
  await g.platform.app.jobs.drain();
  return (await g.gql(RUN, { id: started.startImportRun.importRun.id })).data!.node;
}

describe('a website import', () => {
  it('crawls the same origin within the page budget into a new change request', async () => {
    served.length = 0;
    const started = await g.gql(START, { input: { organizationId: org.id, spaceId: space, url: `${origin}/` } });
    expect(started.errors).toBeUndefined();
    expect(started.upstream).toBe(1);
    const run = started.data.startImportRun;
    expect(run.userErrors).toEqual([]);
    expect(run.importRun).toMatchObject({
      status: 'PENDING',
      sourceType: 'WEBSITE',
      sourceUrl: `${origin}/`,
      sourceFiles: null,
      space: { platformId: space },
    });
    expect(run.importRunEdge.cursor).toBeTruthy();
    await g.platform.app.jobs.drain();

    const read = await g.gql(RUN, { id: run.importRun.id });
    // The run, and its change request; its creator's id is in the run.
    expect(read.upstream).toBe(2);
    const node = read.data.node;
    expect(node.status).toBe('COMPLETED');
    expect(node.reason).toBeNull();
    expect(node.changeRequest.subject).toBe(`Import from 127.0.0.1:${origin.split(':').pop()}`);
    expect(node.createdBy.platformId).toBe('user-ada');
    // Links in document order (navigation's too, though its text is not imported); other origins never;
    // `/usage` and `/more` are past the budget of 3 pages.
    expect(node.pages.map((page: { sourceUrl: string }) => page.sourceUrl)).toEqual([
      `${origin}/`,
      `${origin}/nav-only`,
      `${origin}/install`,
    ]);
    expect(served).toEqual(['/', '/nav-only', '/install']);

    const content = await g.platform.api(
      'GET',
      `/spaces/${space}/change-requests/${node.changeRequest.platformId}/content`,
    );
    const titles = (content.body as { pages: Array<{ title: string }> }).pages.map((page) => page.title);
    expect(titles).toEqual(['Acme docs', 'Nav', 'Install']);
    const install = (content.body as { pages: Array<{ id: string; title: string }> }).pages[2]!;
    const markdown = await g.platform.api(
      'GET',
      `/spaces/${space}/change-requests/${node.changeRequest.platformId}/content/page/${install.id}`,
      { query: { format: 'markdown' } },
    );
    expect(JSON.stringify(markdown.body)).toContain('acme init');
  });

  it('lists runs newest first, filtered by status', async () => {
    const listed = await g.gql(
      /* GraphQL */ `
        query OrganizationImportRuns($org: ID!) {
          organization(id: $org) {
            all: importRuns(first: 10) { totalCount nodes { status sourceType } }
            failed: importRuns(first: 10, status: FAILED) { totalCount }
          }
        }
      `,
      { org: org.id },
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.upstream).toBe(3);
    expect(listed.data.organization.all.totalCount).toBeGreaterThan(0);
    expect(listed.data.organization.all.nodes[0].status).toBe('COMPLETED');
  });

  it('refuses to cancel a completed run, and readers cannot start one', async () => {
    const runs = await expectOk(g, `{ organization(id: "acme") { importRuns(first: 1) { nodes { id } } } }`);
    const cancel = await g.gql(
      `mutation ($id: ID!) { cancelImportRun(input: { importRunId: $id }) { importRun { status } userErrors { code message } } }`,
      { id: runs.organization.importRuns.nodes[0].id },
    );
    expect(cancel.upstream).toBe(1);
    expect(cancel.data.cancelImportRun.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', message: expect.stringContaining('completed') }),
    ]);
    const reader = await g.gql(
      START,
      { input: { organizationId: org.id, spaceId: space, url: `${origin}/` } },
      { token: org.token('finn') },
    );
    expect(reader.data.startImportRun.userErrors[0].code).toBe('FORBIDDEN');
  });

  it('cancels a run while it reads: the run stops and writes nothing', async () => {
    served.length = 0;
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const arrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const started = await expectOk(g, START, { input: { organizationId: org.id, spaceId: space, url: `${origin}/` } });
    await arrived;
    const id = started.startImportRun.importRun.id;
    const cancelled = await g.gql(
      `mutation ($id: ID!) { cancelImportRun(input: { importRunId: $id }) { importRun { status } userErrors { code } } }`,
      { id },
    );
    expect(cancelled.data.cancelImportRun).toEqual({ importRun: { status: 'CANCELLED' }, userErrors: [] });
    hold = undefined;
    release();
    await g.platform.app.jobs.drain();
    const node = (await g.gql(RUN, { id })).data.node;
    expect(node).toMatchObject({ status: 'CANCELLED', pages: [], changeRequest: null, completedAt: null });
    expect(served).toEqual(['/']);
  });

  it('refuses a run past MAX_ACTIVE_IMPORTS pending or in progress in the organization, naming the limit', async () => {
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ids: string[] = [];
    try {
      // The first reads a website that does not answer; the others wait behind it (one run per space at a time).
      for (let started = 0; started < MAX_ACTIVE_IMPORTS; started += 1)
        ids.push(
          (await expectOk(g, START, { input: { organizationId: org.id, spaceId: space, url: `${origin}/` } }))
            .startImportRun.importRun.id,
        );
      const refused = await g.gql(START, { input: { organizationId: org.id, spaceId: space, url: `${origin}/` } });
      // A rate limit of the whole operation, with its limit, value and maximum.
      expect(refused.errors?.[0]?.extensions).toEqual({
        code: 'RATE_LIMITED',
        upstreamStatus: 429,
        limit: 'activeImports',
        value: MAX_ACTIVE_IMPORTS + 1,
        max: MAX_ACTIVE_IMPORTS,
      });
      expect(refused.errors?.[0]?.message).toBe(
        `An organization has at most ${MAX_ACTIVE_IMPORTS} import runs pending or in progress`,
      );
    } finally {
      for (const id of ids)
        await g.gql(`mutation ($id: ID!) { cancelImportRun(input: { importRunId: $id }) { userErrors { code } } }`, {
          id,
        });
      hold = undefined;
      release();
      await g.platform.app.jobs.drain();
    }
  });

  it('follows a run on the live hub until it is cancelled', async () => {
    const live = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 20 },
    });
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const arrived = new Promise<void>((resolve) => {
      reached = resolve;
    });
    try {
      const started = await expectOk(g, START, {
        input: { organizationId: org.id, spaceId: space, url: `${origin}/` },
      });
      await arrived;
      const response = await live.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${g.platform.adminToken}`,
        },
        body: JSON.stringify({
          query: `subscription ($id: ID!) { importRunUpdated(importRunId: $id) { status pages { pageId } } }`,
          variables: { id: started.startImportRun.importRun.id },
        }),
      });
      const events = payloadsOf(response);
      expect((await events.next()).value).toMatchObject({
        data: { importRunUpdated: { status: 'IN_PROGRESS', pages: [] } },
      });
      await expectOk(
        g,
        `mutation ($id: ID!) { cancelImportRun(input: { importRunId: $id }) { userErrors { code } } }`,
        {
          id: started.startImportRun.importRun.id,
        },
      );
      expect((await events.next()).value).toMatchObject({ data: { importRunUpdated: { status: 'CANCELLED' } } });
      await events.return(undefined);
    } finally {
      hold = undefined;
      release();
      await g.platform.app.jobs.drain();
      await live.close();
    }
  });

  it('resumes a run a restart interrupted, from its source', async () => {
    const key = upload('resumed.md', 'text/markdown', '# Resumed\n\nRead again after a restart.\n');
    const { db } = g.platform;
    const at = new Date().toISOString();
    // What a restart leaves of a run that was reading its source: the run in progress, its job running.
    db.prepare(
      `INSERT INTO import_runs (id, org_id, space_id, source, status, pages, created_by, created_at, updated_at, started_at)
       VALUES ('resumed-run', ?, ?, ?, 'in-progress', '[]', 'user-ada', ?, ?, ?)`,
    ).run(org.id, space, JSON.stringify({ type: 'file', files: [key] }), at, at, at);
    db.prepare(
      `INSERT INTO jobs (kind, key, payload, state, attempts, max_attempts, run_after, created_at)
       VALUES ('content-import', 'import-space:resumed', '{"runId":"resumed-run"}', 'running', 1, 1, 0, ?)`,
    ).run(at);
    // The worker of the platform that starts again on the same database.
    const restarted = new JobQueue(db);
    registerImports(restarted, { allowPrivateUrls: true, budgets: DEFAULT_IMPORT_BUDGETS });
    restarted.start();
    await restarted.drain();
    await restarted.stop();
    const node = (await g.gql(RUN, { id: encodeGlobalID('ImportRun', `${org.id}/resumed-run`) })).data.node;
    expect(node).toMatchObject({ status: 'COMPLETED', pages: [{ sourceUrl: 'resumed.md' }] });
  });

  it('refuses a source that is both or neither, before any request', async () => {
    const both = await g.gql(START, {
      input: { organizationId: org.id, spaceId: space, url: `${origin}/`, files: ['x'] },
    });
    expect(both.upstream).toBe(0);
    expect(both.data.startImportRun.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', message: expect.stringContaining('exactly one'), field: ['url'] },
    ]);
  });
});

describe('into a new space', () => {
  const spaces = () =>
    g.platform.db
      .prepare('SELECT title FROM spaces WHERE org_id = ? AND deleted_at IS NULL')
      .pluck(true)
      .all(org.id) as string[];

  it('creates the space, then starts the run into it', async () => {
    const key = upload('welcome.md', 'text/markdown', '# Welcome\n\nImported into a new space.\n');
    const started = await g.gql(START, {
      input: { organizationId: org.id, newSpaceTitle: 'Imported handbook', files: [key] },
    });
    expect(started.errors).toBeUndefined();
    // The new space, then the run.
    expect(started.upstream).toBe(2);
    const { importRun, userErrors } = started.data.startImportRun;
    expect(userErrors).toEqual([]);
    const created = g.platform.db
      .prepare('SELECT id FROM spaces WHERE org_id = ? AND title = ?')
      .pluck(true)
      .get(org.id, 'Imported handbook');
    expect(importRun.space).toEqual({ platformId: created });
    await g.platform.app.jobs.drain();
    expect((await g.gql(RUN, { id: importRun.id })).data.node).toMatchObject({
      status: 'COMPLETED',
      pages: [{ sourceUrl: 'welcome.md' }],
    });
  });

  it('deletes the new space again when the platform refuses the run', async () => {
    const before = spaces();
    const refused = await g.gql(START, {
      input: { organizationId: org.id, newSpaceTitle: 'Never filled', files: ['no-such-file'] },
    });
    // The new space, the refused run, the new space deleted.
    expect(refused.upstream).toBe(3);
    expect(refused.data.startImportRun.userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['files', '0'] }),
    ]);
    expect(spaces()).toEqual(before);
  });

  it('refuses both a space and a new space, or a change request with a new space, before any request', async () => {
    const both = await g.gql(START, {
      input: { organizationId: org.id, spaceId: space, newSpaceTitle: 'Twice', url: `${origin}/` },
    });
    expect(both.upstream).toBe(0);
    expect(both.data.startImportRun.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', message: expect.stringContaining('exactly one of spaceId'), field: ['spaceId'] },
    ]);
    const withChangeRequest = await g.gql(START, {
      input: { organizationId: org.id, newSpaceTitle: 'Fresh', changeRequestId: 'cr-1', url: `${origin}/` },
    });
    expect(withChangeRequest.upstream).toBe(0);
    expect(withChangeRequest.data.startImportRun.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', message: expect.stringContaining('a new space'), field: ['changeRequestId'] },
    ]);
  });
});

describe('a file import', () => {
  it('imports markdown, HTML and the pages of a ZIP archive', async () => {
    const markdown = upload('guide.md', 'text/markdown', '# Guide\n\nRead **this**.\n');
    const html = upload('faq.html', 'text/html', '<title>FAQ</title><p>Questions.</p>');
    const archive = upload(
      'bundle.zip',
      'application/zip',
      zipOf([
        { path: 'docs/', bytes: '', stored: true },
        { path: 'docs/one.md', bytes: '# One\n\nFirst.\n' },
        { path: 'docs/logo.png', bytes: 'not a page', stored: true },
      ]),
    );
    const node = await startFiles([markdown, html, archive]);
    expect(node.status).toBe('COMPLETED');
    expect(node.pages.map((page: { sourceUrl: string }) => page.sourceUrl)).toEqual([
      'guide.md',
      'faq.html',
      'docs/one.md',
    ]);
  });

  const hostile: Array<[string, () => Buffer, string]> = [
    ['a zip bomb', () => zipOf([{ path: 'bomb.md', bytes: Buffer.alloc(64 * 1024 * 1024) }]), 'archive_too_large'],
    [
      'a zip bomb that declares a small size',
      () => zipOf([{ path: 'bomb.md', bytes: Buffer.alloc(64 * 1024 * 1024), declaredSize: 10 }]),
      'archive_too_large',
    ],
    ['a path with ..', () => zipOf([{ path: '../escape.md', bytes: '# x' }]), 'archive_unsafe_path'],
    ['an absolute path', () => zipOf([{ path: '/etc/passwd.md', bytes: '# x' }]), 'archive_unsafe_path'],
    [
      'a nested archive',
      () => zipOf([{ path: 'inner.zip', bytes: zipOf([{ path: 'a.md', bytes: '# a' }]) }]),
      'archive_nested',
    ],
    [
      'a nested archive under another name',
      () => zipOf([{ path: 'inner.md', bytes: zipOf([{ path: 'a.md', bytes: '# a' }]), stored: true }]),
      'archive_nested',
    ],
    [
      '100,000 tiny entries',
      () => zipOf(Array.from({ length: 100_000 }, (_, n) => ({ path: `${n}.md`, bytes: '', stored: true }))),
      'archive_too_many_entries',
    ],
  ];
  for (const [name, build, code] of hostile) {
    it(`refuses ${name} with a coded reason and writes nothing`, async () => {
      const node = await startFiles([upload('hostile.zip', 'application/zip', build())]);
      expect(node.status).toBe('FAILED');
      expect(node.reason).toMatch(new RegExp(`^${code}: hostile\\.zip `));
      expect(node.changeRequest).toBeNull();
      expect(node.pages).toEqual([]);
    });
  }

  it('reads a wrapped entry count by counting the directory', () => {
    // 1,001 entries whose directory claims 1, as a wrapped 16-bit count would.
    const bytes = zipOf(
      Array.from({ length: 1001 }, (_, n) => ({ path: `${n}.md`, bytes: '', stored: true })),
      1,
    );
    expect(() => readZip(bytes, 'wrapped.zip', { maxEntries: 1000, maxBytes: 1024 })).toThrow(
      /^wrapped\.zip has more than 1000 entries; an archive may have at most 1000$/,
    );
  });

  it('lists a run under the one site that publishes its space, and filters by it', async () => {
    const published = await org.space('Published');
    const siteId = await org.site('Acme site', { spaces: [published] });
    const key = upload('site.md', 'text/markdown', '# For the site\n');
    const started = await expectOk(g, START, { input: { organizationId: org.id, spaceId: published, files: [key] } });
    await g.platform.app.jobs.drain();
    const listed = await g.gql(
      /* GraphQL */ `
        query SiteImportRuns($org: ID!, $site: ID!) {
          organization(id: $org) { importRuns(first: 10, siteId: $site) { nodes { id site { platformId title } } } }
        }
      `,
      { org: org.id, site: siteId },
    );
    expect(listed.errors).toBeUndefined();
    // The organization, the list, the site.
    expect(listed.upstream).toBe(3);
    expect(listed.data.organization.importRuns.nodes).toEqual([
      { id: started.startImportRun.importRun.id, site: { platformId: siteId, title: 'Acme site' } },
    ]);
  });

  it('refuses a file that is not markdown, HTML nor an archive, naming it', async () => {
    const key = upload('photo.png', 'image/png', 'png');
    const result = await g.gql(START, { input: { organizationId: org.id, spaceId: space, files: [key] } });
    expect(result.upstream).toBe(1);
    expect(result.data.startImportRun.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: ['files', '0'] }),
    ]);
  });
});
