import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { sharedStateUp, startTestRedis } from '../fixtures/redis.js';
import { until } from '../fixtures/wait.js';

let platform: TestPlatform;
let cached: Gateway;
let uncached: Gateway;
let org: TestOrg;
let spaceId: string;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, { id: 'http-cached', members: { alice: 'admin' } });
  spaceId = await org.space('Guide');
  cached = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, responseCache: { ttlMs: 60_000 } });
  uncached = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
});

afterAll(async () => {
  await Promise.all([cached.close(), uncached.close()]);
  await platform.destroy();
});

/**
 * What anyone may read, a caller without a token included (the embedded platform answers nothing
 * without one; introspection is never kept, see the response cache).
 */
const PUBLIC = 'query Root { __typename }';
const SPACE = 'query Space($id: ID!) { space(id: $id) { title } }';

/** A GET of `query` (with `variables`), as a browser or a CDN sends it, and any more headers. */
async function get(gateway: Gateway, query: string, variables: object = {}, headers: Record<string, string> = {}) {
  platform.app.stats.reset();
  const url = `http://gateway.test/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
  const response = await gateway.fetch(url, {
    headers: { accept: 'application/graphql-response+json', 'x-graphql-csrf': '1', ...headers },
  });
  const text = await response.text();
  return { response, body: text ? (JSON.parse(text) as any) : undefined, upstream: platform.app.stats.count };
}

async function post(gateway: Gateway, body: object, headers: Record<string, string> = {}) {
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token('alice')}`, ...headers },
    body: JSON.stringify(body),
  });
  return { response, body: (await response.json()) as any };
}

/** The caching headers of `response`, by name. */
function cachingHeaders(response: Response): Record<string, string> {
  const names = new Set(['cache-control', 'etag', 'last-modified', 'vary']);
  return Object.fromEntries([...response.headers].filter(([name]) => names.has(name)));
}

const bearer = () => ({ authorization: `Bearer ${org.token('alice')}` });
const ETAG = /^"[0-9a-f]{64}\.[\w-]{12}"$/;

/** Checks the caching headers of a first answer the cache kept (`cacheControl`, an ETag, the rest); answers its ETag. */
function expectKept(response: Response, cacheControl: string): string {
  const etag = response.headers.get('etag')!;
  expect(etag).toMatch(ETAG);
  expect(cachingHeaders(response)).toEqual({
    'cache-control': cacheControl,
    etag,
    'last-modified': response.headers.get('last-modified'),
    vary: 'Accept, Authorization',
  });
  return etag;
}

/** Checks a public answer's `max-age`: what is left of the 60 s TTL, however long the machine took since. */
function expectPublicAge(response: Response): void {
  const age = /^public, max-age=(\d+)$/.exec(response.headers.get('cache-control') ?? '');
  expect(age, response.headers.get('cache-control') ?? '').not.toBeNull();
  expect(Number(age![1])).toBeGreaterThan(0);
  expect(Number(age![1])).toBeLessThanOrEqual(60);
}

describe('Cache-Control and ETag', () => {
  it('makes an anonymous GET of public data public for the TTL, with an ETag answered 304 while the entry lives', async () => {
    const first = await get(cached, PUBLIC);
    expect(first.body.errors).toBeUndefined();
    const etag = expectKept(first.response, 'public, max-age=60');
    const hit = await get(cached, PUBLIC);
    expect(hit.body.extensions.responseCache).toEqual({ hit: true });
    expect(hit.response.headers.get('etag')).toBe(etag);
    expect(hit.body.extensions.http).toBeUndefined();
    expect(hit.response.headers.has('x-response-cache-version')).toBe(false);
    expectPublicAge(hit.response);
    const revalidated = await get(cached, PUBLIC, {}, { 'if-none-match': etag });
    expect(revalidated.response.status).toBe(304);
    expect(revalidated.body).toBeUndefined();
    expect(revalidated.upstream).toBe(0);
    expect(revalidated.response.headers.get('etag')).toBe(etag);
    expectPublicAge(revalidated.response);
    expect(revalidated.response.headers.get('vary')).toBe('Accept, Authorization');
    // Counted as what it is: no operation ran, none was refused.
    expect(await cached.metrics.registry.metrics()).toMatch(
      /^graphql_gateway_operations_total\{operation_name="\(anonymous\)",operation_type="none",outcome="not_modified"\} 1$/m,
    );
    // A tag the cache does not hold gets the whole answer.
    const other = await get(cached, PUBLIC, {}, { 'if-none-match': `"${'0'.repeat(64)}"` });
    expect(other.response.status).toBe(200);
  });

  it("sends no caller's budget with a public answer, which a shared cache replays to everyone", async () => {
    const limited = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      responseCache: { ttlMs: 60_000 },
      rateLimits: { points: 1000, windowMs: 60_000, failOpen: true },
    });
    try {
      for (const answer of [await get(limited, PUBLIC), await get(limited, PUBLIC)]) {
        expectPublicAge(answer.response);
        expect(answer.body.extensions.rateLimit).toBeUndefined();
        expect([...answer.response.headers.keys()].filter((name) => name.startsWith('x-ratelimit'))).toEqual([]);
      }
      // A caller's own answer, private, says its budget.
      const own = await get(limited, SPACE, { id: spaceId }, bearer());
      expect(own.response.headers.get('cache-control')).toBe('private, no-cache');
      expect(own.body.extensions.rateLimit.limit).toBe(1000);
      expect(own.response.headers.get('x-ratelimit-limit')).toBe('1000');
    } finally {
      await limited.close();
    }
  });

  it("keeps a caller's GET private, revalidated by its ETag, and forgets the tag once a mutation changed it", async () => {
    const first = await get(cached, SPACE, { id: spaceId }, bearer());
    expect(first.body.data.space.title).toBe('Guide');
    const etag = expectKept(first.response, 'private, no-cache');
    const revalidated = await get(cached, SPACE, { id: spaceId }, { ...bearer(), 'if-none-match': etag });
    expect(revalidated.response.status).toBe(304);
    expect(revalidated.upstream).toBe(0);
    expect(revalidated.response.headers.get('cache-control')).toBe('private, no-cache');
    // A write through the gateway drops the entry: the tag is no longer answered 304.
    const renamed = await post(cached, {
      query:
        'mutation ($id: ID!) { updateSpace(input: { spaceId: $id, title: "Guide 2" }) { userErrors { message } } }',
      variables: { id: spaceId },
    });
    expect(renamed.body.errors).toBeUndefined();
    expect(cachingHeaders(renamed.response)).toEqual({ 'cache-control': 'private, no-store' });
    const after = await get(cached, SPACE, { id: spaceId }, { ...bearer(), 'if-none-match': etag });
    expect(after.response.status).toBe(200);
    expect(after.body.data.space.title).toBe('Guide 2');
    expect(after.response.headers.get('etag')).not.toBe(etag);
    // The entry is kept again under the same key: a client still holding the older answer gets the new one.
    const stale = await get(cached, SPACE, { id: spaceId }, { ...bearer(), 'if-none-match': etag });
    expect(stale.response.status).toBe(200);
    expect(stale.body.data.space.title).toBe('Guide 2');
    // The key alone (what yoga's plugin sends as the ETag) is not a tag of the gateway's.
    const key = etag.slice(1, 65);
    for (const tag of [key, `"${key}"`]) {
      const bare = await get(cached, SPACE, { id: spaceId }, { ...bearer(), 'if-none-match': tag });
      expect(bare.response.status).toBe(200);
    }
  });

  it('sends no-store for answers with errors, private for POST queries, and no ETag without the response cache', async () => {
    const missing = await get(cached, SPACE, { id: 'nope' }, bearer());
    expect(missing.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect(cachingHeaders(missing.response)).toEqual({ 'cache-control': 'private, no-store' });
    const unauthenticated = await get(cached, SPACE, { id: spaceId });
    expect(unauthenticated.body.errors).toBeDefined();
    expect(cachingHeaders(unauthenticated.response)).toEqual({ 'cache-control': 'private, no-store' });
    // A POST is never kept by URL: no ETag, even when the response cache holds it.
    for (let i = 0; i < 2; i++) {
      const posted = await post(cached, { query: SPACE, variables: { id: spaceId } });
      expect(cachingHeaders(posted.response)).toEqual({ 'cache-control': 'private' });
    }
    // What the response cache does not keep (the caller's budget: a TTL of 0) is private, without an ETag.
    const budget = await get(cached, '{ rateLimit { remaining } }', {}, bearer());
    expect(cachingHeaders(budget.response)).toEqual({ 'cache-control': 'private' });
    const off = await get(uncached, PUBLIC);
    expect(off.body.errors).toBeUndefined();
    expect(cachingHeaders(off.response)).toEqual({ 'cache-control': 'private' });
  });

  it('revalidates on any replica sharing Redis: the tag is the shared entry', async () => {
    const redis = await startTestRedis();
    const options = {
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      redisUrl: redis.url,
      responseCache: { ttlMs: 60_000 },
      logger: { error: () => {}, info: () => {} },
    };
    const [a, b] = [createGateway(options), createGateway(options)];
    try {
      await until(async () => (await sharedStateUp(a)) && (await sharedStateUp(b)));
      const first = await get(a, SPACE, { id: spaceId }, bearer());
      const etag = first.response.headers.get('etag')!;
      expect(etag).toMatch(ETAG);
      const elsewhere = await get(b, SPACE, { id: spaceId }, { ...bearer(), 'if-none-match': etag });
      expect(elsewhere.response.status).toBe(304);
      expect(elsewhere.upstream).toBe(0);
      expect(elsewhere.response.headers.get('etag')).toBe(etag);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await redis.stop();
    }
  });
});
