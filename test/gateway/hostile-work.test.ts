import { once } from 'node:events';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { getIntrospectionQuery, parse } from 'graphql';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { introspect } from '../../src/gateway/conversion/introspect.js';
import { describeSchema } from '../../src/gateway/conversion/introspection.js';
import { ConversionPool, ConversionPoolError } from '../../src/gateway/conversion/pool.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { executeWhole } from '../../src/gateway/policy/answer-size.js';
import { BYTES_PER_POINT } from '../../src/gateway/gateway-work.js';
import { UnparsedBody } from '../../src/gateway/upstream/bodies.js';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, textDocument } from '../fixtures/content.js';
import { startFaultyUpstream, type FaultyUpstream } from '../fixtures/faulty-upstream.js';
import { postGraphQL, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg } from '../fixtures/org.js';

/**
 * Work the gateway does without the platform, which the upstream requests do not count, sent as a
 * hostile caller would: introspection many times over in one request, and conversions of large
 * documents under many aliases. Each is bounded (the answer's byte budget, the limits), charged
 * in points, done once, and kept off the event loop.
 */

let g: TestGateway;
let spaceId: string;
let revision: string;
/** Page ids and the documents they name, with the size in bytes the platform answers for each. */
const pages = { big: 'pg-big', huge: 'pg-huge', small: 'pg-small', cached: 'pg-cached' } as const;
const bodyBytes: Record<string, number> = {};
/** The id of each page's document. */
const documentIds: Record<string, string> = {};

/** A document of `count` one-letter paragraphs, the first naming it: about 150 bytes of JSON each. */
const paragraphs = (name: string, count: number) =>
  textDocument(Array.from({ length: count }, (_, i) => [0, i === 0 ? name : 'a'] as [0, string]));

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  spaceId = await addOrg(g.platform, { id: 'works', members: { alice: 'admin' } }).space('Large pages');
  const documents = {
    [pages.big]: paragraphs('Big', 6_000),
    [pages.huge]: paragraphs('Huge', 12_000),
    [pages.small]: paragraphs('Small', 3),
    [pages.cached]: paragraphs('Cached', 2_000),
  };
  const content = Object.entries(documents).map(([id, document]) => ({
    id,
    type: 'document' as const,
    title: id,
    slug: id,
    pages: [],
    documentId: putDocument(g.platform.db, spaceId, document),
  }));
  for (const page of content) documentIds[page.id] = page.documentId;
  revision = commitContent(g.platform.db, spaceId, { pages: content, files: [], reusableContents: [], variables: {} });
  for (const page of content) {
    const response = await fetch(`${g.platform.url}/spaces/${spaceId}/documents/${page.documentId}`, {
      headers: { authorization: `Bearer ${g.platform.adminToken}` },
    });
    bodyBytes[page.id] = (await response.arrayBuffer()).byteLength;
  }
});
afterAll(() => g?.destroy());

const pageGid = (pageId: string) =>
  encodeGlobalID('DocumentPage', [spaceId, revision, pageId].map(encodeURIComponent).join('/'));
const pointsOf = (bytes: number) => Math.ceil(bytes / BYTES_PER_POINT);
const costOf = (result: { extensions?: Record<string, unknown> }) =>
  result.extensions?.cost as { upstreamRequests: number; gatewayPoints?: number };

/** A deep introspection, as the hostile caller sent it: every type's fields' types' fields. */
const DEEP_SCHEMA =
  '__schema { types { name fields { name description type { name fields { name description type { name description } } } } } }';

describe('introspection', () => {
  it("refuses 50 aliases of a deep __schema past a quarter more than the whole schema's introspection", async () => {
    const whole = await g.gql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }));
    expect(whole.errors).toBeUndefined();
    const wholeBytes = JSON.stringify(whole.data).length;
    const aliases = Array.from({ length: 50 }, (_, i) => `s${i}: ${DEEP_SCHEMA}`).join(' ');
    const result = await g.gql(`{ ${aliases} }`);
    expect(result.data).toBeNull();
    expect(result.errors).toEqual([
      {
        message: expect.stringMatching(/^Introspection too large: it reached \d+ bytes, the limit is \d+ /),
        extensions: {
          code: 'BAD_USER_INPUT',
          limit: 'introspectionBytes',
          value: expect.any(Number),
          max: expect.any(Number),
        },
      },
    ]);
    const { max } = result.errors![0]!.extensions as { max: number };
    // The bound follows the schema: above its whole introspection, far below the 8 MiB answer budget.
    expect(max).toBeGreaterThan(wholeBytes * 1.25);
    expect(max).toBeLessThan(wholeBytes * 2);
    expect(result.upstream).toBe(0);
    // A few plain ones in one operation are past it too; the whole introspection alone is answered (above).
    const plain =
      '__schema { types { name description fields { name description args { name description } type { name } } } }';
    const twice = await g.gql(`{ ${Array.from({ length: 4 }, (_, i) => `p${i}: ${plain}`).join(' ')} }`);
    expect(twice.errors?.[0]?.extensions).toMatchObject({ limit: 'introspectionBytes' });
  });

  it("answers GraphiQL's introspection, charged in gatewayPoints by its size, and by the rate limits", async () => {
    const limited = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      rateLimits: { points: 1000, windowMs: 60_000, failOpen: false },
    });
    try {
      const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
      // Without a token: the caller's budget is its address's.
      const first = await postGraphQL(limited, g.platform, { query }, { authorization: '' });
      expect(first.body.errors).toBeUndefined();
      expect(first.upstream).toBe(0);
      const answerBytes = JSON.stringify(first.body.data).length;
      const points = first.body.extensions.cost.gatewayPoints;
      // The estimate counts at least what the answer holds, and not much more.
      expect(points).toBeGreaterThanOrEqual(pointsOf(answerBytes));
      expect(points).toBeLessThanOrEqual(pointsOf(answerBytes * 1.25));
      expect(first.body.extensions.rateLimit).toMatchObject({ limit: 1000, cost: points, remaining: 1000 - points });
      const second = await postGraphQL(limited, g.platform, { query }, { authorization: '' });
      expect(second.body.extensions.rateLimit).toMatchObject({ cost: points, remaining: 1000 - 2 * points });
    } finally {
      await limited.close();
    }
  });

  it('answers introspection in a worker thread, the same answer as on the request thread', async () => {
    const pool = g.gateway.converter.pool;
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    });
    const started = pool.started;
    const answered = await g.gql(query);
    expect(pool.started).toBe(started + 1);
    // What graphql-js answers for the schema itself, without the gateway's plugins.
    const here = executeWhole({ schema: g.gateway.yoga.getEnveloped().schema, document: parse(query) });
    expect(answered.data).toEqual(JSON.parse(JSON.stringify(here.data)));
    // What a worker does with it (a worker that fails leaves the operation to this thread, unseen above).
    const schema = g.gateway.yoga.getEnveloped().schema;
    const job = { kind: 'introspection' as const, schema: describeSchema(schema), query, variables: undefined };
    const outcome = introspect({ ...job, operationName: undefined, maxBytes: 8 * 1024 * 1024 });
    expect('output' in outcome && JSON.parse(outcome.output).data).toEqual(answered.data);
    // Fragments and variables go with it; an operation with data, or __typename alone, stays here.
    const typed = await g.gql('query ($name: String!) { ...T } fragment T on Query { __type(name: $name) { name } }', {
      name: 'Space',
    });
    expect(typed.data).toEqual({ __type: { name: 'Space' } });
    expect(pool.started).toBe(started + 2);
    await g.gql('{ __typename viewer { id } }');
    await g.gql('{ __typename }');
    expect(pool.started).toBe(started + 2);
  });

  it('refuses introspection without a token when INTROSPECTION_REQUIRES_TOKEN is on', async () => {
    const strict = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      introspectionRequiresToken: true,
    });
    try {
      const anonymous = { authorization: '' };
      for (const query of ['{ __schema { queryType { name } } }', '{ __type(name: "Query") { name } }']) {
        const refused = await postGraphQL(strict, g.platform, { query }, anonymous);
        expect(refused.body.data).toBeUndefined();
        expect(refused.body.errors).toEqual([
          {
            message: expect.stringMatching(/^This gateway answers introspection .* to callers with a token only/),
            extensions: { code: 'UNAUTHENTICATED', reason: 'INTROSPECTION_REQUIRES_TOKEN' },
          },
        ]);
        expect(refused.upstream).toBe(0);
      }
      // `__typename` reads nothing of the schema; a caller with a token introspects.
      expect((await postGraphQL(strict, g.platform, { query: '{ __typename }' }, anonymous)).body.data).toEqual({
        __typename: 'Query',
      });
      const signedIn = await postGraphQL(strict, g.platform, { query: '{ __schema { queryType { name } } }' });
      expect(signedIn.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    } finally {
      await strict.close();
    }
  });
});

describe('conversions of documents', () => {
  let gateway: Gateway;
  beforeAll(() => {
    gateway = createGateway({ upstreamUrl: g.platform.url, graphiql: { enabled: false } });
  });
  afterAll(() => gateway.close());

  const ask = (query: string, variables: Record<string, unknown>) =>
    postGraphQL(gateway, g.platform, { query, variables });

  it('converts a document once however many aliases ask, and charges it by its size', async () => {
    const before = { ...gateway.converter.counts };
    const fields = Array.from({ length: 10 }, (_, i) => `m${i}: document { markdown } t${i}: document { text }`);
    const answer = await ask(`query ($id: ID!) { node(id: $id) { ... on DocumentPage { ${fields.join(' ')} } } }`, {
      id: pageGid(pages.big),
    });
    expect(answer.body.errors).toBeUndefined();
    const node = answer.body.data.node;
    const markdown = `Big\n\n${'a\n\n'.repeat(5_999)}`.replace(/\n\n$/, '\n');
    for (let i = 0; i < 10; i += 1) {
      expect(node[`m${i}`].markdown).toBe(markdown);
      expect(node[`t${i}`].text).toBe(['Big', ...Array.from({ length: 5_999 }, () => 'a')].join('\n'));
    }
    // The revision and the document, read once; one conversion of each kind, both in a worker.
    expect(answer.upstream).toBe(2);
    expect(gateway.converter.counts).toEqual({ ...before, inWorker: before.inWorker + 2 });
    expect(answer.body.extensions.cost.gatewayPoints).toBe(pointsOf(2 * bodyBytes[pages.big]!));
  });

  it('converts a small document on the request thread, charged a point', async () => {
    const before = { ...gateway.converter.counts };
    const answer = await ask('query ($id: ID!) { node(id: $id) { ... on DocumentPage { document { markdown } } } }', {
      id: pageGid(pages.small),
    });
    expect(answer.body.data.node.document.markdown).toBe('Small\n\na\n\na\n');
    expect(gateway.converter.counts).toEqual({ ...before, inline: before.inline + 1 });
    expect(costOf(answer.body).gatewayPoints).toBe(1);
  });

  it('converts a large document off the event loop: another request is answered meanwhile', async () => {
    const order: string[] = [];
    const started = once(gateway.converter.pool, 'start');
    const big = ask('query ($id: ID!) { node(id: $id) { ... on DocumentPage { document { markdown } } } }', {
      id: pageGid(pages.huge),
    }).then((answer) => {
      order.push('conversion');
      return answer;
    });
    await Promise.race([
      started,
      big.then(() => {
        throw new Error('the document was converted without a worker, on the event loop');
      }),
    ]);
    // The conversion is under way in a worker: the event loop is free to answer this one.
    const light = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    order.push('light');
    expect(await light.json()).toMatchObject({ data: { __typename: 'Query' } });
    const answer = await big;
    expect(answer.body.data.node.document.markdown).toMatch(/^Huge\n\na\n\n/);
    expect(order).toEqual(['light', 'conversion']);
  });

  it("keeps the conversion of a revision's document across requests, at no cost", async () => {
    const query = 'query ($id: ID!) { node(id: $id) { ... on DocumentPage { document { markdown } } } }';
    const first = await ask(query, { id: pageGid(pages.cached) });
    expect(costOf(first.body).gatewayPoints).toBe(pointsOf(bodyBytes[pages.cached]!));
    const before = { ...gateway.converter.counts };
    const second = await ask(query, { id: pageGid(pages.cached) });
    expect(second.body.data).toEqual(first.body.data);
    // The document is read again (the caller's permission is the platform's to check), not converted.
    expect(second.upstream).toBe(first.upstream);
    expect(gateway.converter.counts).toEqual({ ...before, cached: before.cached + 1 });
    expect(costOf(second.body).gatewayPoints).toBeUndefined();
  });
});

describe('the conversion pool', () => {
  const job = (paragraphCount: number) => ({
    kind: 'markdown' as const,
    body: JSON.stringify(paragraphs('Pooled', paragraphCount)),
    maxChars: 1 << 30,
  });

  it('abandons a job whose client went away, and converts the next one in a new worker', async () => {
    const pool = new ConversionPool({ threads: 1, timeoutMs: 60_000, maxHeapMb: 128 });
    try {
      const controller = new AbortController();
      const started = once(pool, 'start');
      const abandoned = pool.run(job(12_000), controller.signal);
      // Queued behind it, then abandoned before it starts.
      const queued = new AbortController();
      const neverStarted = pool.run(job(10), queued.signal);
      queued.abort();
      await expect(neverStarted).rejects.toMatchObject({ reason: 'aborted' });
      await started;
      controller.abort();
      await expect(abandoned).rejects.toBeInstanceOf(ConversionPoolError);
      await expect(abandoned).rejects.toMatchObject({ reason: 'aborted' });
      expect(await pool.run(job(2))).toEqual({ output: 'Pooled\n\na\n' });
      expect(pool.started).toBe(2);
    } finally {
      await pool.close();
    }
  });

  it('answers an output longer than asked for by its length, without sending it back', async () => {
    const pool = new ConversionPool({ threads: 1, timeoutMs: 60_000, maxHeapMb: 128 });
    try {
      expect(await pool.run({ ...job(100), maxChars: 50 })).toEqual({ tooLarge: 'Pooled\n\n'.length + 99 * 3 - 1 });
    } finally {
      await pool.close();
    }
  });
});

describe('large document bodies', () => {
  let faulty: FaultyUpstream;
  let gateway: Gateway;
  beforeAll(async () => {
    faulty = await startFaultyUpstream(g.platform.url);
    gateway = createGateway({ upstreamUrl: faulty.url, graphiql: { enabled: false } });
  });
  afterAll(async () => {
    await gateway.close();
    await faulty.close();
  });
  afterEach(() => faulty.reset());

  const JSON_OF =
    'query ($space: ID!, $id: ID!) { space(id: $space) { a: document(id: $id) { json } b: document(id: $id) { json } } }';
  const read = (id: string) => postGraphQL(gateway, g.platform, { query: JSON_OF, variables: { space: spaceId, id } });
  const stored = async (id: string) => {
    const response = await fetch(`${g.platform.url}/spaces/${spaceId}/documents/${id}`, {
      headers: { authorization: `Bearer ${g.platform.adminToken}` },
    });
    return (await response.json()) as Record<string, unknown>;
  };

  it("answers a large document's json as the platform sent it, checked once in a worker thread", async () => {
    const started = gateway.converter.pool.started;
    const parsedHere = vi.spyOn(UnparsedBody.prototype, 'value');
    const answer = await read(documentIds[pages.big]!);
    // Never parsed on the request's thread: its text went into the answer's as it came.
    expect(parsedHere).not.toHaveBeenCalled();
    parsedHere.mockRestore();
    expect(answer.body.errors).toBeUndefined();
    const expected = await stored(documentIds[pages.big]!);
    expect(answer.body.data.space.a.json).toEqual(expected);
    expect(answer.body.data.space.b.json).toEqual(expected);
    // The space and one read of the document, one check, whatever the aliases.
    expect(answer.upstream).toBe(2);
    expect(gateway.converter.pool.started).toBe(started + 1);
    // A small one is parsed on arrival, as any body: no check.
    const small = await read(documentIds[pages.small]!);
    expect(small.body.data.space.a.json).toEqual(await stored(documentIds[pages.small]!));
    expect(gateway.converter.pool.started).toBe(started + 1);
  });

  it('answers a body with a key the API does not have as the gateway reads it, without the key', async () => {
    faulty.inject({ path: /\/documents\//, fault: { kind: 'rewrite', edit: (body) => ({ ...body, injected: 'x' }) } });
    const answer = await read(documentIds[pages.big]!);
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.space.a.json).toEqual(await stored(documentIds[pages.big]!));
    expect(JSON.stringify(answer.body)).not.toContain('injected');
  });

  it("keeps every key of a document's data and only the token of its meta, large or small", async () => {
    faulty.inject({
      path: /\/documents\//,
      times: 2,
      fault: {
        kind: 'rewrite',
        edit: (body) => ({
          ...body,
          data: { ...(body.data as object), theme: 'dark' },
          meta: { token: 't', injected: 1 },
        }),
      },
    });
    for (const page of [pages.big, pages.small]) {
      const answer = await read(documentIds[page]!);
      expect(answer.body.errors).toBeUndefined();
      const original = await stored(documentIds[page]!);
      expect(answer.body.data.space.a.json).toEqual({
        ...original,
        data: { ...(original.data as object), theme: 'dark' },
        meta: { token: 't' },
      });
    }
  });

  it("refuses a large body that is not a document, as the platform's fault", async () => {
    const notADocument = { object: 'document', data: {}, nodes: 'x'.repeat(300_000) };
    faulty.inject({ path: /\/documents\//, fault: { kind: 'status', status: 200, body: notADocument } });
    const answer = await read(documentIds[pages.big]!);
    expect(answer.body.data.space.a).toBeNull();
    expect(answer.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_INVALID_RESPONSE');
  });

  it('writes a placeholder-like string of a caller as the string it is', async () => {
    // Text in a document that looks like the answer's placeholders stays text: the nonce is the request's own.
    const tricky = {
      object: 'document',
      data: { note: '\u0000not-a-nonce:0' },
      nodes: [{ text: 'y'.repeat(300_000) }],
    };
    faulty.inject({ path: /\/documents\//, fault: { kind: 'status', status: 200, body: tricky } });
    const answer = await read(documentIds[pages.big]!);
    expect(answer.body.data.space.a.json).toEqual(tricky);
  });
});
