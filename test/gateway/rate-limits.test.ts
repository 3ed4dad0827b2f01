import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
// `ws`: the standard `WebSocket` sends no request headers of the caller's (`x-forwarded-for` here).
import { WebSocket } from 'ws';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http/server.js';
import { serveWebSockets } from '../../src/gateway/http/websocket.js';
import { askInParts } from '../fixtures/incremental.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { sharedStateUp, startTestRedis, type TestRedis } from '../fixtures/redis.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { until } from '../fixtures/wait.js';

let platform: TestPlatform;
let redis: TestRedis;
const gateways: Gateway[] = [];
const quiet = { error: () => {}, info: () => {} };
const HOUR = 3_600_000;
/** Admin `admin`, and members `ben`, `cy` and `finn`, each a budget of their own. */
let org: TestOrg;
/** A space every member reads, asked for by the one-point operations. */
let spaceId: string;
/** A published site showing that space. */
let siteUrl: string;

beforeAll(async () => {
  [platform, redis] = await Promise.all([startTestPlatform({ seed: false }), startTestRedis()]);
  org = addOrg(platform, { id: 'metered', members: { admin: 'admin', ben: 'create', cy: 'review', finn: 'read' } });
  spaceId = await org.space('Getting started');
  await org.site('Docs', { spaces: [spaceId] });
  siteUrl = `${new URL(platform.url).origin}/published/${org.id}/docs`;
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await redis.stop();
  await platform.destroy();
});

/** A gateway in front of the test platform with rate limits of `points` per hour (and more options). */
function gatewayWith(points: number, options: Partial<GatewayOptions> = {}): Gateway {
  const gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    logger: quiet,
    rateLimits: { points, windowMs: HOUR, failOpen: true },
    ...options,
  });
  gateways.push(gateway);
  return gateway;
}

async function post(gateway: Gateway, query: string, token = platform.adminToken, variables = {}) {
  platform.app.stats.reset();
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return { response, body: (await response.json()) as any, upstream: platform.app.stats.count };
}

/** The rate-limit headers of `response`, by name. */
function rateLimitHeaders(response: Response): Record<string, string> {
  return Object.fromEntries(
    [...response.headers].filter(([name]) => name.startsWith('x-ratelimit-') || name === 'retry-after'),
  );
}

/** Serves `gateway` on a loopback port: what a client address needs, a connection. */
async function listen(gateway: Gateway): Promise<{ server: Server; url: string }> {
  const server = createServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * One one-point operation with `token`, from the client `forwardedFor` behind one proxy:
 * `admitted`, or the limit that refused it.
 */
async function askAs(url: string, token: string, forwardedFor: string): Promise<string> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor },
    body: JSON.stringify({ query: `{ space(id: "${spaceId}") { title } }` }),
  });
  const body = (await response.json()) as any;
  const refused = body.errors?.find((error: any) => error.extensions.code === 'RATE_LIMITED');
  return refused ? `refused: ${refused.extensions.limit}` : 'admitted';
}

/** Bound 1 + 5 (a page of spaces, then up to 5 organizations): spends 1 + the organizations seen. */
const DASHBOARD = '{ organizations(first: 5) { nodes { title spaces(first: 2) { totalCount } } } }';
const BUDGET = '{ rateLimit { limit cost remaining resetAt } }';

describe('cost-based rate limits', () => {
  it('reserves the bound, settles at what was spent, and reports both', async () => {
    const gateway = gatewayWith(100);
    const first = await post(gateway, `{ ${BUDGET.slice(2, -2)} ${DASHBOARD.slice(2, -2)} }`);
    expect(first.body.errors).toBeUndefined();
    const { maxUpstreamRequests, upstreamRequests } = first.body.extensions.cost;
    expect(maxUpstreamRequests).toBeGreaterThan(upstreamRequests);
    // The field sees the reservation; the extension the settlement.
    expect(first.body.data.rateLimit).toMatchObject({
      limit: 100,
      cost: maxUpstreamRequests,
      remaining: 100 - maxUpstreamRequests,
    });
    expect(first.body.extensions.rateLimit).toEqual({
      limit: 100,
      cost: upstreamRequests,
      remaining: 100 - upstreamRequests,
      resetAt: first.body.data.rateLimit.resetAt,
    });
    const resetIn = Date.parse(first.body.data.rateLimit.resetAt) - Date.now();
    expect(resetIn).toBeGreaterThan(HOUR - 60_000);
    expect(resetIn).toBeLessThanOrEqual(HOUR);
    // The next operation starts from the settled budget.
    const second = await post(gateway, BUDGET);
    expect(second.upstream).toBe(0);
    expect(second.body.data.rateLimit).toMatchObject({ cost: 0, remaining: 100 - upstreamRequests });
  });

  it('sends the budget in X-RateLimit-* headers that agree with extensions.rateLimit, and Retry-After on a 429', async () => {
    const gateway = gatewayWith(3);
    const first = await post(gateway, DASHBOARD);
    const reported = first.body.extensions.rateLimit;
    expect(reported.remaining).toBeLessThan(3);
    expect(rateLimitHeaders(first.response)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': String(reported.remaining),
      'x-ratelimit-used': String(3 - reported.remaining),
      'x-ratelimit-reset': String(Math.ceil(Date.parse(reported.resetAt) / 1000)),
    });
    // Spend the rest, then be refused: the 429 carries the same headers and Retry-After.
    let refused = await post(gateway, DASHBOARD);
    while (refused.response.status !== 429) refused = await post(gateway, DASHBOARD);
    expect(refused.upstream).toBe(0);
    const { retryAfter } = refused.body.errors[0].extensions;
    expect(rateLimitHeaders(refused.response)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-used': '3',
      'x-ratelimit-reset': String(Math.ceil(Date.parse(reported.resetAt) / 1000)),
      'retry-after': String(retryAfter),
    });
    expect(refused.body.extensions.rateLimit).toMatchObject({ limit: 3, remaining: 0, resetAt: reported.resetAt });
  });

  it.each(['multipart/mixed', 'text/event-stream'])(
    'sends the headers of an answer in parts (%s) with its first part: the budget its reservation left',
    async (accept) => {
      const gateway = gatewayWith(100);
      const response = await gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${platform.adminToken}` },
        body: JSON.stringify({ query: `{ viewer { displayName } ... @defer { ${DASHBOARD.slice(2, -2)} } }` }),
      });
      expect(response.headers.get('content-type')).toContain(accept);
      const parts = [...(await response.text()).matchAll(/\{"[^\r\n]*\}/g)].map((match) => JSON.parse(match[0]));
      const first = parts[0].extensions.rateLimit;
      expect(rateLimitHeaders(response)).toEqual({
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': String(first.remaining),
        'x-ratelimit-used': String(100 - first.remaining),
        'x-ratelimit-reset': String(Math.ceil(Date.parse(first.resetAt) / 1000)),
      });
      // Reserved more than it spent: the last part reports the settled budget.
      expect(first.remaining).toBeLessThan(parts.at(-1).extensions.rateLimit.remaining);
    },
  );

  it('sends no X-RateLimit-* headers when rate limits are off', async () => {
    const gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, logger: quiet });
    gateways.push(gateway);
    const answer = await post(gateway, BUDGET);
    expect(rateLimitHeaders(answer.response)).toEqual({});
  });

  it('keeps one budget per token, keyed by a hash of it, however its header is written', async () => {
    const gateway = gatewayWith(10);
    const spent = (await post(gateway, DASHBOARD)).body.extensions.rateLimit.remaining;
    const other = await post(gateway, BUDGET, org.token('ben'));
    expect(other.body.data.rateLimit.remaining).toBe(10);
    // The platform reads the scheme in any case and any run of spaces: so do the budgets.
    for (const written of [`bearer ${platform.adminToken}`, `Bearer   ${platform.adminToken} `]) {
      const response = await gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: written },
        body: JSON.stringify({ query: BUDGET }),
      });
      expect(((await response.json()) as any).data.rateLimit.remaining).toBe(spent);
    }
  });

  it('budgets callers without a token by their address, read through trusted proxies only', async () => {
    const ask = async (gateway: Gateway, forwardedFor?: string) => {
      const served = await listen(gateway);
      try {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (forwardedFor) headers['x-forwarded-for'] = forwardedFor;
        const response = await fetch(`${served.url}/graphql`, {
          method: 'POST',
          headers,
          // One point: the platform refuses it (no token), but it was sent.
          body: JSON.stringify({ query: `{ space(id: "${spaceId}") { title } }` }),
        });
        const body = (await response.json()) as any;
        return body.errors?.some((error: any) => error.extensions.code === 'RATE_LIMITED') ? 'refused' : 'admitted';
      } finally {
        served.server.closeAllConnections();
        await new Promise((resolve) => served.server.close(resolve));
      }
    };
    // Behind one proxy: each client address has its budget.
    const proxied = gatewayWith(2, { trustedProxies: 1 });
    expect([await ask(proxied, '10.0.0.1'), await ask(proxied, '10.0.0.1'), await ask(proxied, '10.0.0.1')]).toEqual([
      'admitted',
      'admitted',
      'refused',
    ]);
    expect(await ask(proxied, '10.0.0.2')).toBe('admitted');
    // What the client wrote before the proxy's entry proves nothing.
    expect(await ask(proxied, '10.0.0.9, 10.0.0.1')).toBe('refused');
    // A WebSocket's operations spend the budget of the address its connection came from.
    const served = await listen(proxied);
    const sockets = serveWebSockets(served.server, proxied);
    const ws = createClient({
      url: `${served.url.replace('http', 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { 'x-forwarded-for': '10.0.0.3' } });
        }
      },
      retryAttempts: 0,
    });
    try {
      const query = `{ space(id: "${spaceId}") { title } }`;
      await ws.iterate({ query }).next();
      await ws.iterate({ query }).next();
      expect(await ask(proxied, '10.0.0.3')).toBe('refused');
    } finally {
      await ws.dispose();
      await sockets.close(0);
      served.server.closeAllConnections();
      await new Promise((resolve) => served.server.close(resolve));
    }
    // No proxy trusted: the header is the client's own, and every call from here is one caller.
    const direct = gatewayWith(2);
    expect([await ask(direct, '10.0.0.1'), await ask(direct, '10.0.0.2'), await ask(direct, '10.0.0.3')]).toEqual([
      'admitted',
      'admitted',
      'refused',
    ]);
  });

  it("holds made-up tokens to their address's budget, never a token the platform accepted", async () => {
    const gateway = gatewayWith(3, { trustedProxies: 1 });
    const served = await listen(gateway);
    const ask = (token: string, forwardedFor: string) => askAs(served.url, token, forwardedFor);
    try {
      const admin = platform.adminToken;
      const ben = org.token('ben');
      // The admin's token is accepted once, from anywhere: from then on it spends its own budget only.
      expect(await ask(admin, '10.0.1.1')).toBe('admitted');
      // Each made-up token is a fresh budget of its own, and spends its address's too.
      const minted = [];
      for (let i = 0; i < 4; i += 1) minted.push(await ask(`made-up-${i}`, '10.0.1.2'));
      expect(minted).toEqual(['admitted', 'admitted', 'admitted', 'refused: addressPoints']);
      expect(await ask(admin, '10.0.1.2')).toBe('admitted');
      // A valid token this replica has not seen accepted is checked with the platform, and gets in.
      expect(await ask(ben, '10.0.1.2')).toBe('admitted');
      expect(await ask(ben, '10.0.1.3')).toBe('admitted');
    } finally {
      served.server.closeAllConnections();
      await new Promise((resolve) => served.server.close(resolve));
    }
  });

  it('gives a signed token one budget, however its signature is spelled', async () => {
    // A visitor token, as any account gets one for a published URL.
    const minted = await post(
      gatewayWith(1000),
      'query ($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { apiToken space { id } } } }',
      platform.adminToken,
      { url: siteUrl },
    );
    expect(minted.body.errors).toBeUndefined();
    const { apiToken, space } = minted.body.data.resolveUrl;
    // An HS256 signature's last character carries 2 unused bits, and padding is ignored: the
    // platform accepts these spellings as one token.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(apiToken.at(-1));
    const spellings = [0, 1, 2, 3].map((bits) => apiToken.slice(0, -1) + alphabet[(last & ~3) | bits]);
    spellings.push(`${apiToken}=`);
    const gateway = gatewayWith(2);
    const outcomes: string[] = [];
    for (const spelling of spellings) {
      const answer = await post(gateway, 'query ($id: ID!) { space(id: $id) { title } }', spelling, { id: space.id });
      outcomes.push(answer.body.errors?.[0]?.extensions?.code ?? 'admitted');
    }
    // One token, one budget of 2 points: 2 operations of 1 point.
    expect(outcomes).toEqual(['admitted', 'admitted', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('charges nothing for an answer of the response cache', async () => {
    const gateway = gatewayWith(100, { responseCache: { ttlMs: 60_000 } });
    const miss = await post(gateway, DASHBOARD);
    const spent = miss.body.extensions.cost.upstreamRequests;
    const hit = await post(gateway, DASHBOARD);
    expect(hit.body.extensions.responseCache).toEqual({ hit: true });
    expect(hit.upstream).toBe(0);
    expect(hit.body.extensions.rateLimit).toMatchObject({ cost: 0, remaining: 100 - spent });
    // The budget itself is never kept: it changes with every operation.
    await post(gateway, BUDGET);
    const again = await post(gateway, BUDGET);
    expect(again.body.extensions.responseCache).toEqual({ hit: false, didCache: false });
  });

  it('gives subscriptions and answers in parts their report too', async () => {
    const gateway = gatewayWith(100);
    const response = await askInParts(gateway, platform.adminToken, {
      query: '{ viewer { displayName } ... @defer { organizations(first: 2) { totalCount } } }',
    });
    const text = await response.text();
    const parts = [...text.matchAll(/\{"[^\r\n]*\}/g)].map((match) => JSON.parse(match[0]));
    expect(parts.length).toBeGreaterThanOrEqual(2);
    for (const part of parts) expect(part.extensions.rateLimit.limit).toBe(100);
    expect(parts.at(-1).extensions.rateLimit).toMatchObject({ cost: 2, remaining: 98 });
  });

  it("charges a subscription's later events their own reads, reports each, and ends it once the budget is spent", async () => {
    const gateway = gatewayWith(12, { subscriptions: { pollMs: 50 } });
    const { server, url } = await listen(gateway);
    const token = org.token('admin');
    const followed = await org.space('Followed and charged');
    const merge = async () => {
      const made = await platform.api('POST', `/spaces/${followed}/change-requests`, { token, body: { subject: 'x' } });
      const merged = await platform.api('POST', `/spaces/${followed}/change-requests/${made.body.id}/merge`, { token });
      expect(merged.status).toBe(200);
    };
    // The space (the shared poll's, for later events), its revision and its changes.
    const sub = await subscribe(
      url,
      `subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId changes { changes { __typename } } } }`,
      { token, variables: { id: followed } },
    );
    try {
      const first = await sub.next();
      expect(first.extensions.cost).toMatchObject({ maxUpstreamRequests: 3, upstreamRequests: 3 });
      expect(first.extensions.rateLimit).toMatchObject({ cost: 3, remaining: 9 });
      for (const remaining of [7, 5, 3, 1]) {
        await merge();
        const event = await sub.next();
        // Its own reads only: the revision and its changes, within the bound of a later event.
        expect(event.extensions.cost).toMatchObject({ maxUpstreamRequests: 2, upstreamRequests: 2 });
        expect(event.extensions.rateLimit).toMatchObject({ cost: 2, remaining });
      }
      expect((await post(gateway, BUDGET, token)).body.data.rateLimit.remaining).toBe(1);
      await merge();
      const last = await sub.next();
      expect(last.extensions.rateLimit).toMatchObject({ cost: 2, remaining: 0 });
      // Nothing left: the next event ends the subscription before it reads anything but the poll.
      await merge();
      platform.app.stats.reset();
      const ended = await sub.next();
      expect(ended.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 'rateLimitPoints', max: 12 });
      await sub.completed;
      const polled = `GET /v1/spaces/${followed}`;
      expect(platform.app.stats.requests.filter((line) => line.split('?')[0] !== polled)).toEqual([]);
    } finally {
      sub.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('settles an answer in parts cut short at what it sent', async () => {
    const gateway = gatewayWith(100);
    const abort = new AbortController();
    const response = await askInParts(
      gateway,
      platform.adminToken,
      { query: `{ viewer { displayName } ... @defer { ${DASHBOARD.slice(2, -2)} } }` },
      abort.signal,
    );
    // The first part read, the client goes away before the deferred one.
    const reader = response.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.cancel().catch(() => {});
    // Not the whole bound (1 + 6) kept: only what was sent before it ended, at most the bound of
    // its parts, settled once the server heard the client go (a busy machine hears it later).
    await until(async () => (await post(gateway, BUDGET)).body.data.rateLimit.remaining >= 100 - 6);
  });

  describe('across replicas sharing Redis', () => {
    it('never admits more than the budget, however three replicas race for it', async () => {
      const replicas = [0, 1, 2].map(() => gatewayWith(40, { redisUrl: redis.url }));
      await until(async () => (await Promise.all(replicas.map(sharedStateUp))).every(Boolean));
      const token = org.token('cy');
      // 90 operations of 1 point each, 30 per replica at once.
      const answers = await Promise.all(
        Array.from({ length: 90 }, (_, i) => post(replicas[i % 3]!, '{ viewer { displayName } }', token)),
      );
      const admitted = answers.filter((answer) => answer.response.status === 200);
      const refused = answers.filter((answer) => answer.response.status === 429);
      expect(admitted).toHaveLength(40);
      expect(refused).toHaveLength(50);
      for (const answer of refused) expect(answer.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      const budget = await post(replicas[2]!, BUDGET, token);
      expect(budget.body.data.rateLimit.remaining).toBe(0);
    });

    it('stores budgets under a hash of the token, never the token, and none for a caller who spends nothing', async () => {
      const looker = gatewayWith(40, { redisUrl: redis.url });
      await until(async () => (await post(looker, BUDGET, 'not-a-token-anyone-has')).response.status === 200);
      const keys = await redisKeys();
      expect(keys.filter((key) => key.startsWith('budget:'))).toHaveLength(1);
      expect(keys.some((key) => key.startsWith('budget:'))).toBe(true);
      for (const token of [platform.adminToken, org.token('cy')]) expect(keys.join('\n')).not.toContain(token);
    });

    it('tells every replica of a token the platform accepted: it spends no address budget anywhere', async () => {
      const [a, b] = [0, 1].map(() => gatewayWith(3, { redisUrl: redis.url, trustedProxies: 1 }));
      await until(async () => (await sharedStateUp(a!)) && (await sharedStateUp(b!)));
      const [onA, onB] = [await listen(a!), await listen(b!)];
      try {
        const token = org.token('finn');
        // Made-up tokens spend the budget of 10.0.2.2 on B.
        for (let i = 0; i < 3; i += 1) expect(await askAs(onB.url, `made-up-shared-${i}`, '10.0.2.2')).toBe('admitted');
        expect(await askAs(onB.url, 'made-up-shared-3', '10.0.2.2')).toBe('refused: addressPoints');
        // Finn's token is accepted through A, from elsewhere: B learns it, and admits it from 10.0.2.2
        // without asking the platform whether it accepts it.
        expect(await askAs(onA.url, token, '10.0.2.1')).toBe('admitted');
        await until(async () => (await redisKeys()).some((key) => key.startsWith('accepted-token:')));
        platform.app.stats.reset();
        expect(await askAs(onB.url, token, '10.0.2.2')).toBe('admitted');
        expect(platform.app.stats.requests).not.toContain('GET /v1/user');
      } finally {
        for (const served of [onA, onB]) {
          served.server.closeAllConnections();
          await new Promise((resolve) => served.server.close(resolve));
        }
      }
    });

    it('runs unmetered while Redis is down when failing open, and refuses when failing closed', async () => {
      const open = gatewayWith(5, { redisUrl: redis.url });
      const closed = createGateway({
        upstreamUrl: platform.url,
        graphiql: { enabled: false },
        logger: quiet,
        redisUrl: redis.url,
        rateLimits: { points: 5, windowMs: HOUR, failOpen: false },
      });
      gateways.push(closed);
      await redis.stop();
      try {
        const served = await post(open, '{ viewer { displayName } }');
        expect(served.response.status).toBe(200);
        expect(served.body.errors).toBeUndefined();
        expect(served.body.extensions.rateLimit).toBeUndefined();
        const refused = await post(closed, '{ viewer { displayName } }');
        expect(refused.response.status).toBe(429);
        expect(refused.upstream).toBe(0);
        expect(refused.body.errors[0]).toMatchObject({
          message: expect.stringContaining('cannot be checked'),
          extensions: { code: 'RATE_LIMITED', retryAfter: 1 },
        });
        expect(await open.metrics.registry.metrics()).toMatch(
          /^graphql_gateway_shared_state_errors_total\{operation="budget"\} [1-9]/m,
        );
      } finally {
        await redis.start();
      }
      await until(async () => (await post(closed, BUDGET)).response.status === 200);
    });
  });
});

/** Every key in the test Redis, read over its own connection. */
async function redisKeys(): Promise<string[]> {
  const { Redis } = await import('ioredis');
  const client = new Redis(redis.url);
  try {
    return await client.keys('*');
  } finally {
    client.disconnect();
  }
}
