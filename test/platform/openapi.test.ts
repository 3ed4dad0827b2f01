import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasDocument } from '../../src/platform/openapi/documents.js';
import { readSpec } from '../../src/platform/openapi/parse.js';
import { doublingRefs } from '../fixtures/hostile-corpus.js';
import { apiReferencePages, petStore, uploadSpec } from '../fixtures/openapi-specs.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { PRIVATE_URLS, privateMachineName } from '../fixtures/private-urls.js';

const ORG = 'northwind';
const SOUTH = 'southwind';
/** Northwind's public specification of two versions, whose reference the Petstore API space computes. */
const SPEC = 'petstore';
/** Its versions: the second adds Remove a pet. */
const [SPEC_V1, SPEC_V2] = [petStore({ removePet: false }), petStore()];

let p: TestPlatform;
let org: TestOrg;
/** The space computing the reference of SPEC: an Overview page, then the computed API reference. */
let petstoreSpace: string;
const as = (key: string) => ({ token: org.token(key) });
const specs = `/orgs/${ORG}/openapi`;

/** Northwind: ada admin, ben `create`, cy `review`, dee `edit`, finn `read`, gus a guest; SPEC. Southwind: ada admin. */
async function northwind(platform: TestPlatform): Promise<TestOrg> {
  const users = { ada: addUser(platform, 'ada') };
  const built = addOrg(platform, {
    id: ORG,
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', finn: 'read', gus: null },
    users,
  });
  addOrg(platform, { id: SOUTH, members: { ada: 'admin' }, users });
  await uploadSpec(built, SPEC, [SPEC_V1, SPEC_V2], { visibility: 'public' });
  return built;
}

const yaml31 = (title: string, extra = '') => `openapi: 3.1.0
info:
  title: ${title}
  version: '1'
tags:
  - name: things
    description: All the things.
paths:
  /things:
    get:
      tags: [things]
      summary: List things
      responses:
        '200':
          description: The things.
${extra}components:
  schemas:
    Thing:
      type: object
      properties:
        id: { type: string }
`;

const json30 = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'JSON API', version: '2' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'pong' } } } } },
});

const swagger2 = JSON.stringify({
  swagger: '2.0',
  info: { title: 'Old API', version: '0.1' },
  paths: { '/legacy': { post: { tags: ['legacy'], responses: { '201': { description: 'created' } } } } },
  definitions: { Legacy: { type: 'object' } },
});

/** Creates a specification, waits for its processing, and answers it. */
async function processed(slug: string, source: { url: string } | { text: string }) {
  const created = await p.api('POST', specs, { body: { slug, source } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  await p.app.jobs.drain();
  return (await p.api('GET', `${specs}/${slug}`)).body;
}

/** The answers of a tiny HTTP server the tests change as they go. */
const served: Record<string, { status?: number; body?: string; hang?: boolean; user?: string }> = {};
let server: Server;
let origin: string;
const hanging: ServerResponse[] = [];

beforeAll(async () => {
  // A timeout of its own: the hanging route never answers, and the others answer well within it
  // however busy the machine.
  p = await startTestPlatform({ seed: false, openapiFetchTimeoutMs: 2_000 });
  org = await northwind(p);
  petstoreSpace = await org.space('Petstore API', { visibility: 'public' });
  apiReferencePages(
    org,
    petstoreSpace,
    SPEC,
    `# Overview\n\nThe reference below is generated from the specification \`${SPEC}\`.\n`,
  );
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const entry = served[(request.url ?? '').split('?')[0]!];
    if (!entry) return response.writeHead(404).end();
    if (entry.hang) {
      hanging.push(response);
      return;
    }
    if (entry.user) {
      const expected = `Basic ${Buffer.from(entry.user).toString('base64')}`;
      if (request.headers.authorization !== expected) return response.writeHead(401).end();
    }
    response.writeHead(entry.status ?? 200, { 'content-type': 'application/yaml' }).end(entry.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await p?.destroy();
});

describe('a specification of two versions', () => {
  it('is processed, public, with two valid versions, the newest last', async () => {
    const list = await p.api('GET', specs);
    expect(list.status).toBe(200);
    const spec = list.body.items.find((item: any) => item.slug === SPEC);
    expect(spec).toMatchObject({
      object: 'openapi-spec',
      processingState: 'complete',
      visibility: 'public',
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
    });
    const versions = await p.api('GET', `${specs}/${SPEC}/versions`);
    expect(versions.body.count).toBe(2);
    expect(versions.body.items[0].id).toBe(spec.lastVersion);
    const raw = await p.api('GET', `${specs}/${SPEC}/versions/latest/content/raw`);
    expect(raw.body).toEqual({ text: SPEC_V2, format: 'yaml' });
    for (const text of [SPEC_V1, SPEC_V2]) expect((await readSpec(text)).ok).toBe(true);
  });
});

describe('specifications from text', () => {
  it('processes YAML and JSON, Swagger 2.0, OpenAPI 3.0 and 3.1, each pending first, then complete with a version', async () => {
    const created = await p.api('POST', specs, { body: { slug: 'things', source: { text: yaml31('Things') } } });
    expect(created.status).toBe(201);
    expect(created.headers?.get('location')).toBe(created.body.urls.location);
    expect(created.body).toMatchObject({
      slug: 'things',
      processingState: 'pending',
      lastProcessedErrorCount: 0,
      visibility: 'private',
    });
    expect(created.body.lastVersion).toBeUndefined();
    expect(created.body.sourceURL).toBeUndefined();
    await p.app.jobs.drain();
    const things = (await p.api('GET', `${specs}/things`)).body;
    expect(things).toMatchObject({ processingState: 'complete', lastProcessedErrorCount: 0, lastProcessedErrors: [] });
    expect(things.lastVersion).toEqual(expect.any(String));
    expect(things.lastProcessedAt).toEqual(expect.any(String));
    expect((await p.api('GET', `${specs}/things/versions/latest/content/raw`)).body).toEqual({
      text: yaml31('Things'),
      format: 'yaml',
    });

    for (const [slug, text] of [
      ['json-30', json30],
      ['swagger-2', swagger2],
    ] as const) {
      const spec = await processed(slug, { text });
      expect(spec).toMatchObject({ processingState: 'complete', lastProcessedErrorCount: 0 });
      expect(spec.lastVersion).toEqual(expect.any(String));
      expect((await p.api('GET', `${specs}/${slug}/versions/latest/content/raw`)).body).toEqual({
        text,
        format: 'json',
      });
    }
  });

  it('keeps the errors of a document that does not validate (PARSE_ERROR), and no version', async () => {
    const broken = await processed('broken-text', { text: 'openapi: 3.0.3\ninfo:\n  title: No version\npaths: {}\n' });
    expect(broken).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrorCount: 1,
    });
    expect(broken.lastProcessedErrors).toEqual([{ message: expect.stringMatching(/version/) }]);
    expect(broken.lastVersion).toBeUndefined();
    expect((await p.api('GET', `${specs}/broken-text/versions/latest`)).status).toBe(404);

    const syntax = await processed('bad-yaml', { text: 'openapi: 3.0.3\ninfo: [unclosed\n' });
    expect(syntax).toMatchObject({
      lastProcessErrorCode: 'PARSE_ERROR',
      lastProcessedErrors: [{ code: 'SYNTAX', message: expect.stringMatching(/line \d+/) }],
    });

    const notOpenAPI = await processed('not-openapi', { text: '{"hello": "world"}' });
    expect(notOpenAPI.lastProcessedErrors[0].message).toMatch(/neither an "openapi" nor a "swagger" field/);

    // Many problems: the list is cut, the count says how many there were.
    const param = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
    const paths = Object.fromEntries(
      Array.from({ length: 30 }, (_, i) => [
        `/p${i}/{id}`,
        { get: { parameters: [param, param], responses: { '200': { description: 'ok' } } } },
      ]),
    );
    const many = await processed('many-errors', {
      text: JSON.stringify({ openapi: '3.0.3', info: { title: 'x', version: '1' }, paths }),
    });
    expect(many.lastProcessErrorCode).toBe('PARSE_ERROR');
    expect(many.lastProcessedErrors).toHaveLength(20);
    expect(many.lastProcessedErrorCount).toBe(30);
  });

  it('makes a version of each changed document, none of an identical one', async () => {
    await processed('evolving', { text: yaml31('Evolving') });
    const first = (await p.api('GET', `${specs}/evolving`)).body.lastVersion;
    expect((await p.api('PUT', `${specs}/evolving`, { body: { source: { text: yaml31('Evolving') } } })).status).toBe(
      200,
    );
    await p.app.jobs.drain();
    const same = (await p.api('GET', `${specs}/evolving`)).body;
    expect(same.lastVersion).toBe(first);
    expect((await p.api('GET', `${specs}/evolving/versions`)).body.count).toBe(1);

    await p.api('PUT', `${specs}/evolving`, { body: { source: { text: yaml31('Evolving, v2') } } });
    await p.app.jobs.drain();
    const changed = (await p.api('GET', `${specs}/evolving`)).body;
    expect(changed.lastVersion).not.toBe(first);
    const versions = (await p.api('GET', `${specs}/evolving/versions`)).body;
    expect(versions.items.map((item: any) => item.id)).toEqual([changed.lastVersion, first]);

    // A later failure keeps the last good version.
    await p.api('PUT', `${specs}/evolving`, { body: { source: { text: 'openapi: 3.1.0' } } });
    await p.app.jobs.drain();
    expect((await p.api('GET', `${specs}/evolving`)).body).toMatchObject({
      lastVersion: changed.lastVersion,
      lastProcessErrorCode: 'PARSE_ERROR',
    });
  });
});

/** A valid OpenAPI 3.1 document of `paths` paths (a GET and a POST each) and a schema per path, in YAML. */
function largeYaml(paths: number, version = '1'): string {
  const lines = ['openapi: 3.1.0', 'info:', '  title: Large API', `  version: '${version}'`, 'tags:'];
  for (let tag = 0; tag < 10; tag += 1)
    lines.push(`  - name: group-${tag}`, `    description: Resources of group ${tag}.`);
  lines.push('paths:');
  for (let path = 0; path < paths; path += 1) {
    lines.push(
      `  /resources-${path}/{id}:`,
      '    parameters:',
      '      - { name: id, in: path, required: true, schema: { type: string } }',
      ...['get', 'post'].flatMap((method) => [
        `    ${method}:`,
        `      tags: [group-${path % 10}]`,
        `      operationId: ${method}Resource${path}`,
        `      summary: ${method === 'get' ? 'Read' : 'Change'} resource ${path}`,
        '      responses:',
        "        '200':",
        '          description: The resource.',
        '          content:',
        '            application/json:',
        `              schema: { $ref: '#/components/schemas/Resource${path}' }`,
      ]),
    );
  }
  lines.push('components:', '  schemas:');
  for (let path = 0; path < paths; path += 1) {
    lines.push(
      `    Resource${path}:`,
      '      type: object',
      '      required: [id]',
      '      properties:',
      '        id: { type: string }',
      '        name: { type: string, description: The name of the resource as shown. }',
      '        count: { type: integer, minimum: 0 }',
    );
  }
  return `${lines.join('\n')}\n`;
}

describe('budgets of a document', () => {
  it('refuses references that write out exponentially as a coded problem, several at once, and still reads the next documents', async () => {
    const bombs = ['doubling-1', 'doubling-2', 'doubling-3', 'doubling-4'];
    for (const [index, slug] of bombs.entries()) {
      expect(
        (await p.api('POST', specs, { body: { slug, source: { text: doublingRefs(40, `Doubling ${index}`) } } }))
          .status,
      ).toBe(201);
    }
    // Circular references stay references: a tree of nodes is a valid document.
    const node = {
      type: 'object',
      properties: {
        children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        parent: { $ref: '#/components/schemas/Node' },
      },
    };
    const tree = JSON.stringify({
      ...JSON.parse(json30),
      info: { title: 'Tree', version: '1' },
      components: { schemas: { Node: node } },
    });
    expect((await p.api('POST', specs, { body: { slug: 'tree', source: { text: tree } } })).status).toBe(201);
    await p.app.jobs.drain();

    for (const slug of bombs) {
      const spec = (await p.api('GET', `${specs}/${slug}`)).body;
      expect(spec).toMatchObject({
        processingState: 'complete',
        lastProcessErrorCode: 'PARSE_ERROR',
        lastProcessedErrorCount: 1,
      });
      expect(spec.lastProcessedErrors).toEqual([
        {
          code: 'LIMIT_EXCEEDED',
          message: expect.stringMatching(
            /^The document's \$ref references write out to at least \d+ values: .* \(limit "expandedNodes": \d+, at most 2000000\)$/,
          ),
        },
      ]);
      expect(spec.lastVersion).toBeUndefined();
    }
    expect((await p.api('GET', `${specs}/tree`)).body).toMatchObject({
      processingState: 'complete',
      lastProcessedErrorCount: 0,
      lastVersion: expect.any(String),
    });
  });
});

describe('processing in a worker thread', () => {
  it("reads texts in a worker thread, and not at all a text that is the latest version's", async () => {
    const reader = p.app.openapiReader;
    expect(reader.inWorker).toBe(true);
    const before = reader.readings;
    const spec = await processed('read-once', { text: yaml31('Read once') });
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessedErrorCount: 0,
      lastVersion: expect.any(String),
    });
    expect(reader.readings).toBe(before + 1);

    // The same text again: complete, the same version, and nothing parsed.
    await p.api('PUT', `${specs}/read-once`, { body: { source: { text: yaml31('Read once') } } });
    await p.app.jobs.drain();
    expect((await p.api('GET', `${specs}/read-once`)).body).toMatchObject({
      processingState: 'complete',
      lastVersion: spec.lastVersion,
      lastProcessedErrorCount: 0,
    });
    expect(reader.readings).toBe(before + 1);

    // A failing text is read; the latest version's text afterwards clears its errors without a reading.
    await p.api('PUT', `${specs}/read-once`, { body: { source: { text: 'openapi: 3.1.0\ninfo: [unclosed\n' } } });
    await p.app.jobs.drain();
    expect((await p.api('GET', `${specs}/read-once`)).body).toMatchObject({
      lastProcessErrorCode: 'PARSE_ERROR',
      lastVersion: spec.lastVersion,
    });
    expect(reader.readings).toBe(before + 2);
    await p.api('PUT', `${specs}/read-once`, { body: { source: { text: yaml31('Read once') } } });
    await p.app.jobs.drain();
    const cleared = (await p.api('GET', `${specs}/read-once`)).body;
    expect(cleared).toMatchObject({
      processingState: 'complete',
      lastVersion: spec.lastVersion,
      lastProcessedErrors: [],
      lastProcessedErrorCount: 0,
    });
    expect(cleared.lastProcessErrorCode).toBeUndefined();
    expect(reader.readings).toBe(before + 2);
    expect((await p.api('GET', `${specs}/read-once/versions`)).body.count).toBe(1);

    // A changed text is read, and its version's document is kept parsed for computed content.
    await p.api('PUT', `${specs}/read-once`, { body: { source: { text: yaml31('Read once, v2') } } });
    await p.app.jobs.drain();
    const changed = (await p.api('GET', `${specs}/read-once`)).body;
    expect(changed.lastVersion).not.toBe(spec.lastVersion);
    expect(reader.readings).toBe(before + 3);
    expect(hasDocument(changed.lastVersion)).toBe(true);
    const content = await p.api('GET', `${specs}/read-once/versions/latest/content`);
    expect(content.body.filesystem.files['read-once.yaml']).toMatchObject({ info: { title: 'Read once, v2' } });
  });

  it('answers API reads while a large document is being read', async () => {
    const reader = p.app.openapiReader;
    const text = largeYaml(300);
    expect(text.length).toBeGreaterThan(250_000);
    const order: string[] = [];
    const started = once(reader, 'start');
    const ended = once(reader, 'end').then(() => order.push('reading ended'));
    const created = await p.api('POST', specs, { body: { slug: 'large', source: { text } } });
    expect(created.status).toBe(201);
    // The worker has the text: a read made now is answered before the reading ends.
    await started;
    const read = p.api('GET', `/orgs/${ORG}`).then((answer) => {
      expect(answer.status).toBe(200);
      order.push('read answered');
    });
    await Promise.all([read, ended, p.app.jobs.drain()]);
    expect(order).toEqual(['read answered', 'reading ended']);
    const spec = (await p.api('GET', `${specs}/large`)).body;
    expect(spec).toMatchObject({
      processingState: 'complete',
      lastProcessedErrorCount: 0,
      lastVersion: expect.any(String),
    });
    expect(hasDocument(spec.lastVersion)).toBe(true);
  });
});

describe('specifications from a URL', () => {
  it('fetches, then checks again on schedule: an unchanged document makes no version, a changed one does', async () => {
    served['/northwind.yaml'] = { body: yaml31('From a URL') };
    const spec = await processed('from-url', { url: `${origin}/northwind.yaml` });
    expect(spec).toMatchObject({
      processingState: 'complete',
      sourceURL: `${origin}/northwind.yaml`,
      lastProcessedErrorCount: 0,
    });
    const row = () =>
      p.db.prepare('SELECT next_check_at FROM openapi_specs WHERE slug = ?').pluck(true).get('from-url') as
        | number
        | null;
    // The next check is 6 hours after the processing.
    expect(row()).toBeGreaterThan(Date.now() + 5.9 * 3600_000);
    expect(p.app.openapiRefresher.checkDue()).toBe(0);

    // Six hours later, nothing changed.
    expect(p.app.openapiRefresher.checkDue(Date.now() + 7 * 3600_000)).toBeGreaterThanOrEqual(1);
    expect(p.db.prepare('SELECT processing_state FROM openapi_specs WHERE slug = ?').pluck(true).get('from-url')).toBe(
      'pending',
    );
    await p.app.jobs.drain();
    const unchanged = (await p.api('GET', `${specs}/from-url`)).body;
    expect(unchanged).toMatchObject({ processingState: 'complete', lastVersion: spec.lastVersion });
    expect(unchanged.lastProcessedAt >= spec.lastProcessedAt).toBe(true);
    expect((await p.api('GET', `${specs}/from-url/versions`)).body.count).toBe(1);

    // Then the document changes.
    served['/northwind.yaml'] = { body: yaml31('From a URL, changed') };
    p.app.openapiRefresher.checkDue(Date.now() + 7 * 3600_000);
    await p.app.jobs.drain();
    const changed = (await p.api('GET', `${specs}/from-url`)).body;
    expect(changed.lastVersion).not.toBe(spec.lastVersion);
    expect((await p.api('GET', `${specs}/from-url/versions`)).body.count).toBe(2);
    expect((await p.api('GET', `${specs}/from-url/versions/latest/content/raw`)).body.text).toBe(
      yaml31('From a URL, changed'),
    );

    // A text source is never checked again.
    await p.api('PUT', `${specs}/from-url`, { body: { source: { text: yaml31('Now a text') } } });
    await p.app.jobs.drain();
    expect(row()).toBeNull();
    expect((await p.api('GET', `${specs}/from-url`)).body.sourceURL).toBeUndefined();
  });

  it('fails with PARSE_ERROR on an invalid document, FETCH_ERROR on an error answer, FETCH_TIMEOUT when the source does not answer', async () => {
    served['/invalid.yaml'] = { body: 'swagger: "2.0"\ninfo: {}\n' };
    const invalid = await processed('invalid-url', { url: `${origin}/invalid.yaml` });
    expect(invalid).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(invalid.lastProcessedErrors.length).toBeGreaterThan(0);

    const missing = await processed('missing-url', { url: `${origin}/nowhere.yaml` });
    expect(missing).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_ERROR',
      lastProcessedErrors: [{ message: `The source URL ${origin}/nowhere.yaml answered 404` }],
    });

    served['/slow.yaml'] = { hang: true };
    const slow = await processed('slow-url', { url: `${origin}/slow.yaml` });
    expect(slow).toMatchObject({
      processingState: 'complete',
      lastProcessErrorCode: 'FETCH_TIMEOUT',
      lastProcessedErrorCount: 1,
    });
    expect(slow.lastProcessedErrors[0].message).toMatch(/did not answer within 2000 ms/);
  });

  it('sends the credentials of a URL but never shows them', async () => {
    served['/private.yaml'] = { body: yaml31('Private'), user: 'bot:s3cret-pass' };
    const answers: string[] = [];
    const created = await p.api('POST', specs, {
      body: {
        slug: 'with-credentials',
        source: { url: `http://bot:s3cret-pass@127.0.0.1:${new URL(origin).port}/private.yaml?x=1` },
      },
    });
    answers.push(JSON.stringify(created.body));
    await p.app.jobs.drain();
    const spec = await p.api('GET', `${specs}/with-credentials`);
    answers.push(
      JSON.stringify(spec.body),
      JSON.stringify((await p.api('GET', specs, { query: { limit: 1000 } })).body),
    );
    expect(spec.body).toMatchObject({
      processingState: 'complete',
      lastProcessedErrorCount: 0,
      sourceURL: `${origin}/private.yaml?x=1`,
    });

    // Wrong credentials: the error names the URL without them.
    await p.api('PUT', `${specs}/with-credentials`, {
      body: { source: { url: `http://bot:wrong-s3cret@127.0.0.1:${new URL(origin).port}/private.yaml` } },
    });
    await p.app.jobs.drain();
    const refused = await p.api('GET', `${specs}/with-credentials`);
    answers.push(JSON.stringify(refused.body));
    expect(refused.body).toMatchObject({
      lastProcessErrorCode: 'FETCH_ERROR',
      lastProcessedErrors: [{ message: `The source URL ${origin}/private.yaml answered 401` }],
    });
    // A bad URL with credentials: the 400 does not repeat it.
    const bad = await p.api('POST', specs, {
      body: { slug: 'bad-url', source: { url: 'ftp://bot:s3cret-pass@example.test/spec.yaml' } },
    });
    answers.push(JSON.stringify(bad.body));
    expect(bad.status).toBe(400);
    for (const answer of answers) expect(answer).not.toMatch(/s3cret|wrong-s3cret|bot:/);
    const jobs = p.db
      .prepare("SELECT payload || ifnull(error, '') FROM jobs WHERE kind = 'openapi-process'")
      .pluck(true)
      .all() as string[];
    for (const job of jobs) expect(job).not.toMatch(/s3cret/);
  });

  it('refuses private and loopback targets outside demo and test runs', async () => {
    const { OutboundError, fetchUrl } = await import('../../src/platform/outbound.js');
    await expect(fetchUrl(`${origin}/northwind.yaml`, { allowPrivate: false, maxBytes: 1000 })).rejects.toBeInstanceOf(
      OutboundError,
    );
  });
});

describe('URL sources outside demo and test runs (PLATFORM_ALLOW_PRIVATE_URLS off)', () => {
  let guarded: TestPlatform;
  beforeAll(async () => {
    guarded = await startTestPlatform({ seed: false, allowPrivateUrls: false });
    await northwind(guarded);
  });
  afterAll(async () => {
    await guarded?.destroy();
  });

  it('refuses every private form of a URL when a specification is created or updated, naming the field, and stores nothing', async () => {
    const machine = await privateMachineName();
    const corpus = [
      ...PRIVATE_URLS,
      ...(machine
        ? [
            [
              `https://${machine}:8443/spec.yaml`,
              "the machine's own name",
              `${machine} does not resolve to public addresses only`,
            ] as const,
          ]
        : []),
    ];
    const row = () =>
      guarded.db
        .prepare('SELECT source_url, source_text, generation, updated_at FROM openapi_specs WHERE slug = ?')
        .get(SPEC);
    const jobs = () => guarded.db.prepare("SELECT count(*) FROM jobs WHERE kind = 'openapi-process'").pluck().get();
    const [specBefore, jobsBefore] = [row(), jobs()];
    const answers: unknown[] = [];
    for (const [url, form, guard] of corpus) {
      const reason =
        guard === 'scheme'
          ? 'must be an http or https URL of at most 2048 characters'
          : `must be on a public address (${guard})`;
      const refused = { error: { code: 400, message: `Invalid body field "source.url": ${reason}` } };
      const body = { source: { url } };
      for (const [method, path, sent] of [
        ['POST', specs, { slug: 'private-source', ...body }],
        ['PUT', `${specs}/private-source`, body],
        ['PUT', `${specs}/${SPEC}`, body],
      ] as const) {
        const answer = await guarded.api(method, path, { body: sent });
        answers.push(answer.body);
        expect([form, method, path, answer.status, answer.body]).toEqual([form, method, path, 400, refused]);
      }
    }
    expect(corpus.length).toBeGreaterThanOrEqual(55);
    await guarded.app.jobs.drain();
    expect([row(), jobs()]).toEqual([specBefore, jobsBefore]);
    expect(guarded.db.prepare("SELECT count(*) FROM openapi_specs WHERE slug = 'private-source'").pluck().get()).toBe(
      0,
    );
    expect(JSON.stringify(answers)).not.toContain('s3cret');
  });
});

describe('writes', () => {
  it('PUT creates (201) then updates (200)', async () => {
    const created = await p.api('PUT', `${specs}/put-me`, { body: { source: { text: json30 } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'put-me', processingState: 'pending' });
    const updated = await p.api('PUT', `${specs}/put-me`, { body: { source: { text: swagger2 } } });
    expect(updated.status).toBe(200);
    expect(updated.body.id).toBe(created.body.id);
    await p.app.jobs.drain();
    expect((await p.api('GET', `${specs}/put-me/versions/latest/content/raw`)).body.text).toBe(swagger2);
  });

  it('checks slugs (pattern, 1 to 100 characters, unique in the organization) and bodies, naming the field', async () => {
    const post = (body: unknown) => p.api('POST', specs, { body });
    expect((await post({ slug: 'Bad slug', source: { text: json30 } })).body.error.message).toMatch(
      /^Invalid body field "slug": must be letters and digits/,
    );
    expect((await post({ slug: 'trailing-', source: { text: json30 } })).status).toBe(400);
    expect((await post({ slug: 'x'.repeat(101), source: { text: json30 } })).body.error.message).toBe(
      'Invalid body field "slug": must be 1 to 100 characters',
    );
    expect((await post({ slug: 'Upper-Case-9', source: { text: json30 } })).status).toBe(201);
    const duplicate = await post({ slug: 'Upper-Case-9', source: { text: json30 } });
    expect(duplicate.status).toBe(409);
    // The same slug in another organization is another specification.
    expect(
      (await p.api('POST', `/orgs/${SOUTH}/openapi`, { body: { slug: 'Upper-Case-9', source: { text: json30 } } }))
        .status,
    ).toBe(201);
    expect((await post({ slug: 'ok', source: { url: 'not a url' } })).body.error.message).toMatch(
      /^Invalid body field "source.url": must be an http or https URL/,
    );
    expect((await post({ slug: 'ok', source: { text: '' } })).body.error.message).toBe(
      'Invalid body field "source.text": must not be empty',
    );
    expect((await post({ slug: 'ok', source: {} })).body.error.message).toMatch(
      /^Invalid body field "source": must be \{ url \} or \{ text \}/,
    );
    expect((await post({ slug: 'ok' })).body.error.message).toMatch(/^Invalid body field "source"/);
    expect((await post({ slug: 'ok', source: { text: json30 }, extra: 1 })).body.error.message).toBe(
      'Invalid body field "extra": is not a known field',
    );
    expect(
      (await p.api('PUT', `${specs}/bad%20slug`, { body: { source: { text: json30 } } })).body.error.message,
    ).toMatch(/^Invalid body field "slug"/);
    expect((await p.api('PATCH', `${specs}/${SPEC}`, { body: { visibility: 'secret' } })).body.error.message).toBe(
      'Invalid body field "visibility": must be private or public',
    );
  });

  it('sets the visibility: a public specification has a public URL for its content', async () => {
    await processed('visible', { text: yaml31('Visible') });
    expect((await p.api('GET', `${specs}/visible/versions/latest/content`)).body.urls.public).toBeNull();
    const patched = await p.api('PATCH', `${specs}/visible`, { body: { visibility: 'public' } });
    expect(patched.status).toBe(200);
    expect(patched.body.visibility).toBe('public');
    const content = (await p.api('GET', `${specs}/visible/versions/latest/content`)).body;
    expect(content.urls.public).toBe(content.urls.source);
    expect((await p.api('PATCH', `${specs}/nope`, { body: { visibility: 'public' } })).status).toBe(404);
  });

  it('deletes: 205, then 204; the versions and their URLs go with it', async () => {
    await processed('doomed', { text: json30 });
    const version = (await p.api('GET', `${specs}/doomed/versions/latest`)).body;
    expect((await fetch(version.url)).status).toBe(200);
    expect((await p.api('DELETE', `${specs}/doomed`)).status).toBe(205);
    expect((await p.api('DELETE', `${specs}/doomed`)).status).toBe(204);
    expect((await p.api('GET', `${specs}/doomed`)).status).toBe(404);
    expect((await p.api('GET', `${specs}/doomed/versions`)).status).toBe(404);
    expect((await fetch(version.url)).status).toBe(404);
  });

  it('lets members read and the create role write; guests and outsiders get nothing', async () => {
    expect((await p.api('GET', specs, as('finn'))).status).toBe(200);
    expect((await p.api('GET', `${specs}/${SPEC}`, as('finn'))).body.permissions).toEqual({
      view: true,
      edit: false,
    });
    expect(
      (await p.api('POST', specs, { ...as('finn'), body: { slug: 'by-finn', source: { text: json30 } } })).status,
    ).toBe(403);
    expect((await p.api('PUT', `${specs}/${SPEC}`, { ...as('dee'), body: { source: { text: json30 } } })).status).toBe(
      403,
    );
    expect((await p.api('DELETE', `${specs}/${SPEC}`, as('cy'))).status).toBe(403);
    const byBen = await p.api('POST', specs, { ...as('ben'), body: { slug: 'by-ben', source: { text: json30 } } });
    expect(byBen.status).toBe(201);
    expect(byBen.body.permissions).toEqual({ view: true, edit: true });
    expect((await p.api('GET', specs, as('gus'))).status).toBe(403);
    expect((await p.api('GET', `/orgs/${SOUTH}/openapi`, as('ben'))).status).toBe(404);
  });
});

describe('versions', () => {
  it('lists versions, reads them by id and as the latest, with their content, raw text and served URL', async () => {
    await processed('versioned', { text: yaml31('Versioned') });
    await p.api('PUT', `${specs}/versioned`, { body: { source: { text: yaml31('Versioned, again') } } });
    await p.app.jobs.drain();
    const list = (await p.api('GET', `${specs}/versioned/versions`, { query: { limit: 1 } })).body;
    expect(list.count).toBe(2);
    expect(list.items).toHaveLength(1);
    expect(list.next.page).toEqual(expect.any(String));
    const older = (await p.api('GET', `${specs}/versioned/versions`, { query: { page: list.next.page } })).body
      .items[0];
    const latest = (await p.api('GET', `${specs}/versioned/versions/latest`)).body;
    expect(latest).toEqual(list.items[0]);
    expect(latest).toMatchObject({
      object: 'openapi-spec-version',
      urls: { location: expect.stringMatching(new RegExp(`/openapi/versioned/versions/${latest.id}$`)) },
    });
    expect((await p.api('GET', `${specs}/versioned/versions/${older.id}`)).body).toEqual(older);
    expect((await p.api('GET', `${specs}/versioned/versions/nope`)).status).toBe(404);

    const content = (await p.api('GET', `${specs}/versioned/versions/${older.id}/content`)).body;
    expect(content.filesystem).toEqual({
      entrypoint: 'versioned.yaml',
      files: { 'versioned.yaml': expect.objectContaining({ info: { title: 'Versioned', version: '1' } }) },
    });
    expect(content.urls).toEqual({ source: older.url, public: null });
    expect(
      (await p.api('GET', `${specs}/versioned/versions/latest/content`)).body.filesystem.files['versioned.yaml'].info
        .title,
    ).toBe('Versioned, again');

    // The URL of a version serves its text without a token; an altered one is refused.
    const served = await fetch(older.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(await served.text()).toBe(yaml31('Versioned'));
    expect((await fetch(older.url.replace(older.id, latest.id))).status).toBe(403);
    expect((await fetch(older.url.replace(/sig=[^&]+/, 'sig=forged'))).status).toBe(403);
  });
});

describe('computed content', () => {
  const spaceId = () => petstoreSpace;
  const source = (slug: string, props: Record<string, unknown> = { models: true }) => ({
    type: 'builtin:openapi',
    props,
    dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } },
  });
  const titles = (pages: any[]): unknown[] =>
    pages.map((page) => (page.pages?.length ? [page.title, titles(page.pages)] : page.title));

  it('computes a revision: a page per tag, untagged operations apart, and the models', async () => {
    const answer = await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
      body: { source: source(SPEC), seed: 'seed-1' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.files).toEqual([]);
    expect(answer.body.reusableContents).toEqual([]);
    expect(titles(answer.body.pages)).toEqual(['Pets', 'Store', 'Other operations', 'Models']);
    const [pets] = answer.body.pages;
    expect(pets).toMatchObject({
      type: 'document',
      slug: 'pets',
      path: 'pets',
      description: 'Everything about the pets of the store.',
      computedSeed: expect.any(String),
    });
    expect(pets.computed).toMatchObject({
      type: 'builtin:openapi',
      props: { doc: 'operations', page: 'pets' },
      dependencies: {
        spec: {
          ref: { kind: 'openapi', spec: SPEC },
          value: { object: 'openapi-spec', slug: SPEC },
        },
      },
    });
    // The same source and seed give the same pages; another seed other ids.
    const again = await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
      body: { source: source(SPEC), seed: 'seed-1' },
    });
    expect(again.body).toEqual(answer.body);
    const other = await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
      body: { source: source(SPEC, { models: false }), seed: 'seed-2' },
    });
    expect(titles(other.body.pages)).toEqual(['Pets', 'Store', 'Other operations']);
    expect(other.body.pages[0].id).not.toBe(pets.id);

    const byOperation = await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
      body: { source: source(SPEC, { models: false, grouping: 'by-operation' }), seed: 's' },
    });
    expect(titles(byOperation.body.pages)).toEqual([
      ['Pets', ['List pets', 'Add a pet', 'Get a pet', 'Remove a pet']],
      ['Store', ['Place an order']],
      ['Other operations', ['Check the service']],
    ]);
  });

  it('computes documents: operations of a tag, one operation, the models', async () => {
    const document = (props: Record<string, unknown>) =>
      p.api('POST', `/spaces/${spaceId()}/content/computed/document`, {
        body: { source: source(SPEC, props), seed: 'doc-seed' },
      });
    const operations = await document({ doc: 'operations', page: 'pets' });
    expect(operations.status).toBe(200);
    expect(operations.body.object).toBe('document');
    expect(operations.body.nodes.map((node: any) => [node.type, node.data.method, node.data.path])).toEqual([
      ['openapi-operation', 'get', '/pets'],
      ['openapi-operation', 'post', '/pets'],
      ['openapi-operation', 'get', '/pets/{petId}'],
      ['openapi-operation', 'delete', '/pets/{petId}'],
    ]);
    expect(operations.body.nodes[0]).toMatchObject({
      object: 'block',
      isVoid: true,
      data: { ref: { kind: 'openapi', spec: SPEC } },
      meta: { id: 'get-pets' },
    });
    const one = await document({ doc: 'operation', page: '/store/orders', method: 'post' });
    expect(one.body.nodes).toHaveLength(1);
    const models = await document({ doc: 'models' });
    expect(models.body.nodes).toEqual([
      expect.objectContaining({
        type: 'openapi-schemas',
        data: { ref: { kind: 'openapi', spec: SPEC }, schemas: ['NewPet', 'Pet', 'Order'], grouped: true },
      }),
    ]);
    const info = await document({ doc: 'info', page: 'info' });
    expect(info.body.nodes.map((node: any) => node.type)).toEqual(['paragraph', 'paragraph']);
    // Bad sources are 400s naming the field; an unknown specification a 404.
    expect((await document({ doc: 'nothing' })).status).toBe(400);
    const unknown = await p.api('POST', `/spaces/${spaceId()}/content/computed/document`, {
      body: { source: source('nope', { doc: 'models' }), seed: 's' },
    });
    expect(unknown.status).toBe(404);
    const translation = await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
      body: { source: { type: 'builtin:translation', props: {}, dependencies: {} }, seed: 's' },
    });
    expect(translation.body.error.message).toMatch(/^Invalid body field "source.type"/);
    expect(
      (
        await p.api('POST', `/spaces/${spaceId()}/content/computed/revision`, {
          body: { source: source(SPEC) },
        })
      ).body.error.message,
    ).toMatch(/^Invalid body field "seed"/);
  });

  it('expands the computed page of a revision with computed=true (the default), not with computed=false', async () => {
    const expanded = await p.api('GET', `/spaces/${spaceId()}/content/pages`);
    expect(titles(expanded.body.pages)).toEqual(['Overview', 'Pets', 'Store', 'Other operations', 'Models']);
    const raw = await p.api('GET', `/spaces/${spaceId()}/content/pages`, { query: { computed: false } });
    expect(raw.body.pages.map((page: any) => [page.type, page.title])).toEqual([
      ['document', 'Overview'],
      ['computed', 'API reference'],
    ]);
    expect(raw.body.pages[1].computed).toEqual(source(SPEC, { models: true, downloadLink: true }));
    const revision = await p.api('GET', `/spaces/${spaceId()}/content`);
    expect(titles(revision.body.pages)).toEqual(titles(expanded.body.pages));
    expect(
      titles(
        (await p.api('GET', `/spaces/${spaceId()}/revisions/${revision.body.id}`, { query: { computed: false } })).body
          .pages,
      ),
    ).toEqual(['Overview', 'API reference']);

    // A generated page is read like any page: by path, by id, with its body.
    const pets = await p.api('GET', `/spaces/${spaceId()}/content/path/pets`, { query: { format: 'document' } });
    expect(pets.status).toBe(200);
    expect(pets.body.document.nodes.map((node: any) => node.type)).toEqual([
      'openapi-operation',
      'openapi-operation',
      'openapi-operation',
      'openapi-operation',
    ]);
    const byId = await p.api('GET', `/spaces/${spaceId()}/revisions/${revision.body.id}/page/${pets.body.id}/document`);
    expect(byId.body).toEqual(pets.body.document);
    // Its body is what computed/document answers for its source and seed.
    const computed = await p.api('POST', `/spaces/${spaceId()}/content/computed/document`, {
      body: { source: pets.body.computed, seed: pets.body.computedSeed },
    });
    expect(computed.body).toEqual(pets.body.document);
    const markdown = await p.api('GET', `/spaces/${spaceId()}/content/page/${pets.body.id}`, {
      query: { format: 'markdown' },
    });
    expect(markdown.body.markdown).toContain(`{% openapi-operation spec="${SPEC}" path="/pets" method="get" %}`);
    // With computed=false, the generated page is not there.
    expect(
      (await p.api('GET', `/spaces/${spaceId()}/content/page/${pets.body.id}`, { query: { computed: false } })).status,
    ).toBe(404);
  });

  it('generates other pages after a new version of the specification', async () => {
    const before = (await p.api('GET', `/spaces/${spaceId()}/content/pages`)).body.pages;
    const text = `${SPEC_V2.replace('  - name: store\n', '  - name: owners\n    x-displayName: Owners\n  - name: store\n').replace('paths:\n', "paths:\n  /owners:\n    get:\n      tags: [owners]\n      summary: List owners\n      responses:\n        '200':\n          description: The owners.\n")}`;
    await p.api('PUT', `${specs}/${SPEC}`, { body: { source: { text } } });
    await p.app.jobs.drain();
    expect((await p.api('GET', `${specs}/${SPEC}`)).body.lastProcessErrorCode).toBeUndefined();
    const after = (await p.api('GET', `/spaces/${spaceId()}/content/pages`)).body.pages;
    expect(titles(after)).toEqual(['Overview', 'Pets', 'Owners', 'Store', 'Other operations', 'Models']);
    // Pages of the same tag keep their ids; their source names the new version.
    expect(after[1].id).toBe(before[1].id);
    expect(after[1].computed.dependencies.spec.value.lastVersion).not.toBe(
      before[1].computed.dependencies.spec.value.lastVersion,
    );
    const owners = await p.api('GET', `/spaces/${spaceId()}/content/path/owners`, { query: { format: 'document' } });
    expect(owners.body.document.nodes).toEqual([
      expect.objectContaining({
        type: 'openapi-operation',
        data: expect.objectContaining({ path: '/owners', method: 'get' }),
      }),
    ]);
  });
});

describe('templates', () => {
  it('makes the reference of the api-reference template a computed page of the specification its params name', async () => {
    const space = (await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Template with a spec' } })).body;
    const params = { contentRefs: { spec: { kind: 'openapi', spec: SPEC } } };
    expect(
      (await p.api('POST', `/spaces/${space.id}/content/template`, { body: { id: 'api-reference', params } })).status,
    ).toBe(201);
    const raw = (await p.api('GET', `/spaces/${space.id}/content/pages`, { query: { computed: false } })).body.pages;
    expect(raw.map((page: any) => [page.type, page.title])).toEqual([
      ['document', 'API overview'],
      ['document', 'Authentication'],
      ['document', 'Errors'],
      ['computed', 'Endpoints'],
    ]);
    expect(raw[3].computed).toEqual({
      type: 'builtin:openapi',
      props: { models: true },
      dependencies: { spec: { ref: { kind: 'openapi', spec: SPEC } } },
    });
    const expanded = (await p.api('GET', `/spaces/${space.id}/content/pages`)).body.pages;
    expect(expanded.map((page: any) => page.title).slice(3)).toContain('Pets');

    // In a change request, the same; without a specification, the skeleton pages.
    const request = await p.api('POST', `/spaces/${space.id}/change-requests`, {
      body: { subject: 'Reference', template: { id: 'api-reference', params } },
    });
    expect(request.status).toBe(201);
    const inRequest = (
      await p.api('GET', `/spaces/${space.id}/change-requests/${request.body.id}/content/pages`, {
        query: { computed: false },
      })
    ).body.pages;
    expect(inRequest.filter((page: any) => page.type === 'computed')).toHaveLength(2);
    const plain = (await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Template without a spec' } })).body;
    await p.api('POST', `/spaces/${plain.id}/content/template`, { body: { id: 'api-reference' } });
    const skeleton = (await p.api('GET', `/spaces/${plain.id}/content/pages`)).body.pages;
    expect(skeleton.map((page: any) => page.title)).toEqual(['API overview', 'Authentication', 'Errors', 'Resources']);

    const unknown = await p.api('POST', `/spaces/${space.id}/content/template`, {
      body: { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: 'nope' } } } },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(
      'OpenAPI specification not found: body field "params.contentRefs.spec.spec" ("nope")',
    );
  });
});

describe('restarts', () => {
  it('resumes a processing that a restart interrupted or that was still queued', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'openapi-restart-'));
    try {
      const first = await startTestPlatform({ dataDir, seed: false });
      addOrg(first, { id: ORG, members: { ada: 'admin' } });
      // The worker stops: what is accepted now waits in the queue.
      await first.app.jobs.stop();
      const queued = await first.api('POST', `/orgs/${ORG}/openapi`, {
        body: { slug: 'queued', source: { text: json30 } },
      });
      const running = await first.api('POST', `/orgs/${ORG}/openapi`, {
        body: { slug: 'running', source: { text: swagger2 } },
      });
      expect([queued.status, running.status]).toEqual([201, 201]);
      // As if the platform had stopped in the middle of the second one.
      first.db
        .prepare("UPDATE jobs SET state = 'running', attempts = 1 WHERE payload LIKE ?")
        .run(`%${running.body.id}%`);
      first.db.prepare("UPDATE openapi_specs SET processing_state = 'progress' WHERE slug = 'running'").run();
      await first.destroy();

      // A platform over the same database: its default caller is Northwind's admin again.
      const second = await startTestPlatform({ dataDir, seed: false });
      second.adminToken = first.adminToken;
      try {
        await second.app.jobs.drain();
        for (const slug of ['queued', 'running']) {
          const spec = (await second.api('GET', `/orgs/${ORG}/openapi/${slug}`)).body;
          expect(spec, slug).toMatchObject({
            processingState: 'complete',
            lastProcessedErrorCount: 0,
            lastVersion: expect.any(String),
          });
        }
      } finally {
        await second.destroy();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
