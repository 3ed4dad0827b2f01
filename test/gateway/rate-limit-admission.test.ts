import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS } from '../../src/gateway/examples/operations.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http/server.js';
import { documentHash } from '../../src/gateway/policy/manifest.js';
import type { RateLimitOptions } from '../../src/gateway/policy/rate-limit.js';
import { DEMO } from '../../src/platform/demo-data.js';
import { payloadsOf, type Payload } from '../fixtures/incremental.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { sharedStateUp, startTestRedis, type TestRedis } from '../fixtures/redis.js';
import { until } from '../fixtures/wait.js';

/**
 * The admission rule of the rate limits: an operation is admitted while its caller's budget has
 * something left, reserves at most what is left, and is charged what it spent; the budget goes
 * below zero by one operation at most, and refuses while it is. On one gateway's memory and on
 * Redis alike.
 */

let platform: TestPlatform;
let redis: TestRedis;
const gateways: Gateway[] = [];
const quiet = { error: () => {}, info: () => {} };
const HOUR = 3_600_000;
/** The defaults of `RATE_LIMIT_POINTS` and `RATE_LIMIT_WINDOW_S`. */
const DEFAULT_POINTS = 5000;

beforeAll(async () => {
  [platform, redis] = await Promise.all([startTestPlatform(), startTestRedis()]);
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await redis.stop();
  await platform.destroy();
});

type Store = 'memory' | 'Redis';
const STORES: Store[] = ['memory', 'Redis'];

/** A gateway in front of the test platform with `points` per hour, its budgets in `store`, once they are reachable. */
async function gatewayWith(
  store: Store,
  points: number,
  options: Omit<Partial<GatewayOptions>, 'rateLimits'> & { rateLimits?: Partial<RateLimitOptions> } = {},
): Promise<Gateway> {
  const { rateLimits, ...rest } = options;
  const gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    logger: quiet,
    ...(store === 'Redis' ? { redisUrl: redis.url } : {}),
    ...rest,
    rateLimits: { points, windowMs: HOUR, failOpen: false, ...rateLimits },
  });
  gateways.push(gateway);
  if (store === 'Redis') await until(() => sharedStateUp(gateway));
  return gateway;
}

/** Every budget starts whole: the tests share tokens, and Redis outlives their gateways. */
async function forgetBudgets(): Promise<void> {
  const { Redis } = await import('ioredis');
  const client = new Redis(redis.url);
  try {
    await client.flushall();
  } finally {
    client.disconnect();
  }
}

async function post(
  gateway: Gateway,
  query: string,
  { token = platform.adminToken, headers = {} }: { token?: string; headers?: Record<string, string> } = {},
) {
  platform.app.stats.reset();
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query }),
  });
  return { response, body: (await response.json()) as any, upstream: platform.app.stats.count };
}

/** Points an answer says it spent: its upstream requests and the gateway's own work. */
const charged = (body: any) => body.extensions.cost.upstreamRequests + (body.extensions.cost.gatewayPoints ?? 0);

/** Bound 1 + 5 (a page of organizations, then a page of spaces in each): spends 1 + the organizations seen. */
const DASHBOARD = '{ organizations(first: 5) { nodes { title spaces(first: 2) { totalCount } } } }';
const BUDGET = 'rateLimit { limit cost remaining resetAt }';

/** The README's dashboard: bound 10,101 upstream requests, more than a whole default budget. */
const README_DASHBOARD = `{
  organizations(first: 50) { nodes {
    title
    spaces(first: 100) { nodes { title parent { __typename ... on Collection { title } } organization { title } } }
    members(first: 20) { nodes { user { displayName } } }
  } }
}`;

/** A search of up to 1000 results, each with its pages: bound 20,002 upstream requests. */
const LARGE_SEARCH = `{
  organization(id: "${DEMO.orgs.acme}") {
    search(query: "install", first: 1000) { totalCount nodes { title pages { title path page { title } sections { title body } } } }
  }
}`;

describe('on the default budget', () => {
  it('runs the README dashboard and a search of 1000 results 100 times in a row, charging what they spent', async () => {
    const gateway = await gatewayWith('memory', DEFAULT_POINTS);
    let spent = 0;
    for (let run = 0; run < 100; run += 1) {
      for (const query of [README_DASHBOARD, LARGE_SEARCH]) {
        const answer = await post(gateway, query);
        expect(answer.body.errors).toBeUndefined();
        // Its bound is far more than the budget; it reserved what one operation may send at most.
        expect(answer.body.extensions.cost.maxUpstreamRequests).toBeGreaterThan(DEFAULT_POINTS);
        expect(answer.body.extensions.rateLimit.cost).toBe(charged(answer.body));
        expect(answer.body.extensions.cost.upstreamRequests).toBe(answer.upstream);
        spent += charged(answer.body);
        expect(answer.body.extensions.rateLimit.remaining).toBe(DEFAULT_POINTS - spent);
      }
    }
    expect(spent).toBeLessThan(DEFAULT_POINTS);
  }, 300_000);

  it('runs every GraphiQL example, each spending so little that 100 in a row fit', async () => {
    for (const example of EXAMPLE_OPERATIONS) {
      const [, type, name] = /^(query|mutation|subscription) (\w+)/.exec(example.document)!;
      const gateway = await gatewayWith('memory', DEFAULT_POINTS);
      platform.app.stats.reset();
      const abort = new AbortController();
      const response = await gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: type === 'subscription' ? 'text/event-stream' : 'multipart/mixed, application/graphql-response+json',
          authorization: `Bearer ${platform.adminToken}`,
          ...example.headers,
        },
        body: JSON.stringify({ documentId: documentHash(example.document), variables: example.variables }),
        signal: abort.signal,
      });
      let last: Payload | undefined;
      if (!response.headers.get('content-type')?.match(/^(multipart\/mixed|text\/event-stream)/))
        last = (await response.json()) as Payload;
      else
        for await (const payload of payloadsOf(response)) {
          last = payload;
          if (type === 'subscription') break;
        }
      abort.abort();
      const codes = (last?.errors ?? []).map((error: any) => error.extensions?.code);
      expect(codes, name).not.toContain('RATE_LIMITED');
      const rateLimit = last?.extensions?.rateLimit as { cost: number; remaining: number };
      expect(rateLimit.cost, name).toBe(charged(last));
      expect(rateLimit.remaining, name).toBe(DEFAULT_POINTS - rateLimit.cost);
      // Admitted while anything is left: the 100th runs when 99 spent less than the budget.
      expect(99 * rateLimit.cost, name).toBeLessThan(DEFAULT_POINTS);
    }
  }, 120_000);
});

describe.each(STORES)('admission, budgets in %s', (store) => {
  beforeEach(forgetBudgets);

  it('runs an operation larger than what a fresh budget holds, then refuses until the window ends', async () => {
    const gateway = await gatewayWith(store, 2);
    const first = await post(gateway, `{ ${BUDGET} ${DASHBOARD.slice(2, -2)} }`);
    expect(first.body.errors).toBeUndefined();
    const spent = charged(first.body);
    expect(first.body.extensions.cost.maxUpstreamRequests).toBeGreaterThan(2);
    expect(spent).toBe(first.upstream);
    expect(spent).toBeGreaterThan(2);
    // It reserved what was left, and was charged what it spent: the budget is below zero by it.
    expect(first.body.data.rateLimit).toMatchObject({ limit: 2, cost: 2, remaining: 0 });
    expect(first.body.extensions.rateLimit).toMatchObject({ limit: 2, cost: spent, remaining: 0 });
    for (const query of ['{ viewer { displayName } }', `{ ${BUDGET} }`]) {
      const refused = await post(gateway, query);
      expect(refused.upstream).toBe(0);
      expect(refused.response.status).toBe(429);
      const retryAfter = Number(refused.response.headers.get('retry-after'));
      const untilReset = (Date.parse(first.body.data.rateLimit.resetAt) - Date.now()) / 1000;
      expect(retryAfter).toBeGreaterThanOrEqual(Math.floor(untilReset));
      expect(retryAfter).toBeLessThanOrEqual(Math.ceil(untilReset) + 1);
      expect(refused.body.data).toBeUndefined();
      expect(refused.body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(new RegExp(`your 2 points are spent \\(${spent} so far in this window\\)`)),
          extensions: expect.objectContaining({
            code: 'RATE_LIMITED',
            retryAfter,
            limit: 'rateLimitPoints',
            // The overspent budget, and the least the operation would take (nothing for one of no request).
            value: spent + (query.includes('viewer') ? 1 : 0),
            max: 2,
          }),
        }),
      ]);
      expect(refused.body.errors[0].extensions.http).toBeUndefined();
      expect(refused.body.extensions.rateLimit).toMatchObject({ cost: 0, remaining: 0 });
    }
    expect(await gateway.metrics.registry.metrics()).toMatch(
      /^graphql_gateway_operations_total\{operation_name="\(anonymous\)",operation_type="query",outcome="rate_limited"\} 2$/m,
    );
  });

  it('admits while anything is left: the last one admitted overspends by at most itself', async () => {
    const gateway = await gatewayWith(store, 10);
    let used = 0;
    const spentEach: number[] = [];
    for (;;) {
      const answer = await post(gateway, DASHBOARD);
      if (answer.response.status === 429) {
        expect(answer.upstream).toBe(0);
        expect(answer.body.errors[0].extensions).toMatchObject({ limit: 'rateLimitPoints', value: used + 1, max: 10 });
        break;
      }
      expect(answer.body.errors).toBeUndefined();
      expect(used).toBeLessThan(10);
      spentEach.push(charged(answer.body));
      used += charged(answer.body);
      expect(answer.body.extensions.rateLimit.remaining).toBe(Math.max(0, 10 - used));
    }
    expect(used).toBeGreaterThanOrEqual(10);
    expect(used - 10).toBeLessThanOrEqual(spentEach.at(-1)!);
  });

  it('lets the budget go below zero by at most one operation, however many run at once', async () => {
    // Each operation sends its own reads: identical ones in flight at once would share them, and each
    // is charged what it asked for, so the platform would receive less than the total charged.
    const gateway = await gatewayWith(store, 10, { upstreamDedupe: false });
    platform.app.stats.reset();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await gateway.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
          body: JSON.stringify({ query: DASHBOARD }),
        });
        return { status: response.status, body: (await response.json()) as any };
      }),
    );
    const admitted = answers.filter((answer) => answer.status === 200);
    const spent = admitted.map((answer) => charged(answer.body));
    const total = spent.reduce((sum, points) => sum + points, 0);
    // Exactly what the platform received, and no more than the budget and one operation.
    expect(total).toBe(platform.app.stats.count);
    expect(total).toBeLessThanOrEqual(10 + Math.max(...spent));
    for (const refused of answers.filter((answer) => answer.status === 429))
      expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 'rateLimitPoints' });
    // Settled: the budget holds what they spent, nothing more.
    const after = await post(gateway, DASHBOARD);
    if (total < 10)
      expect(after.body.extensions.rateLimit.remaining).toBe(Math.max(0, 10 - total - charged(after.body)));
    else expect(after.body.errors[0].extensions.value).toBe(total + 1);
  });

  it('refuses for a moment, not for the window, while operations under way hold what is left', async () => {
    const { promise: released, resolve: release } = Promise.withResolvers<void>();
    const { promise: held, resolve: holding } = Promise.withResolvers<void>();
    // Runs after the rate limits' reservation: the operation sent with `x-hold` waits there, reserved.
    const gate: Plugin = {
      async onExecute({ args }) {
        const { request } = args.contextValue as unknown as { request: Request };
        if (!request.headers.get('x-hold')) return;
        holding();
        await released;
      },
    };
    const gateway = await gatewayWith(store, 6, { plugins: [gate] });
    const first = post(gateway, DASHBOARD, { headers: { 'x-hold': '1' } });
    await held;
    // The first holds all 6 points (its bound): the budget is not spent, only held.
    const refused = await post(gateway, '{ viewer { displayName } }');
    expect(refused.upstream).toBe(0);
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('retry-after')).toBe('1');
    expect(refused.body.errors[0]).toMatchObject({
      message: expect.stringContaining('your operations under way hold what is left of your 6 points'),
      extensions: { code: 'RATE_LIMITED', retryAfter: 1, limit: 'rateLimitPoints', value: 7, max: 6 },
    });
    release();
    const answered = await first;
    expect(answered.body.errors).toBeUndefined();
    const spent = charged(answered.body);
    expect(answered.body.extensions.rateLimit).toMatchObject({ cost: spent, remaining: 6 - spent });
    // Settled, it gave back what it did not spend: the next one runs.
    const next = await post(gateway, '{ viewer { displayName } }');
    expect(next.body.errors).toBeUndefined();
    expect(next.body.extensions.rateLimit).toMatchObject({ cost: 1, remaining: 6 - spent - 1 });
  });
});

/** Serves `gateway` on a loopback port, behind which the tests play clients of several addresses. */
async function listen(gateway: Gateway): Promise<{ server: Server; url: string }> {
  const server = createServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function close(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

/** The outcome of a payload: `admitted`, `refused: <limit>` for a rate limit, or the code of its first error. */
function outcomeOf(payload: any): string {
  const refused = payload.errors?.find((error: any) => error.extensions.code === 'RATE_LIMITED');
  if (refused) return `refused: ${refused.extensions.limit}`;
  return payload.errors?.[0]?.extensions.code ?? 'admitted';
}

/**
 * One operation with `token` (none: no Authorization), from the client `forwardedFor` behind one
 * proxy: a one-point query, or a subscription (its first event over SSE).
 */
async function askAs(
  url: string,
  token: string | undefined,
  forwardedFor: string,
  kind: 'query' | 'subscription' = 'query',
): Promise<{ outcome: string; payload: any }> {
  const spaceId = platform.spaceId('Getting started');
  const query =
    kind === 'query'
      ? `{ space(id: "${spaceId}") { title } }`
      : `subscription { spaceContentUpdated(spaceId: "${spaceId}") { platformId } }`;
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor };
  if (token) headers.authorization = `Bearer ${token}`;
  if (kind === 'subscription') headers.accept = 'text/event-stream';
  const abort = new AbortController();
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query }),
    signal: abort.signal,
  });
  let payload: any;
  if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    for await (const event of payloadsOf(response)) {
      payload = event;
      break;
    }
  } else payload = await response.json();
  abort.abort();
  return { outcome: outcomeOf(payload), payload };
}

describe.each(STORES)('tokens the platform has not accepted yet, budgets in %s', (store) => {
  beforeEach(forgetBudgets);

  it('holds made-up tokens from one address to its budget and a few checks, queries and subscriptions alike', async () => {
    const gateway = await gatewayWith(store, 3, {
      trustedProxies: 1,
      rateLimits: { tokenChecks: { checks: 2, windowMs: HOUR } },
    });
    const served = await listen(gateway);
    try {
      for (const [kind, address] of [
        ['query', '10.0.3.1'],
        ['subscription', '10.0.3.2'],
      ] as const) {
        platform.app.stats.reset();
        const outcomes: string[] = [];
        const charges: number[] = [];
        for (let i = 0; i < 10; i += 1) {
          const { outcome, payload } = await askAs(served.url, `made-up-${kind}-${i}`, address, kind);
          outcomes.push(outcome);
          expect(payload.extensions.rateLimit.cost, kind).toBe(charged(payload));
          charges.push(charged(payload));
        }
        // Each made-up token is a fresh budget of its own: its address's budget for new tokens holds them.
        expect(outcomes, kind).toEqual([
          'UNAUTHENTICATED',
          'UNAUTHENTICATED',
          'UNAUTHENTICATED',
          ...Array(7).fill('refused: addressPoints'),
        ]);
        // Three operations of one request each, then two checks with the platform, then nothing.
        expect(charges, kind).toEqual([1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
        expect(platform.app.stats.count, kind).toBe(3 + 2);
        expect(
          platform.app.stats.requests.filter((line) => line === 'GET /v1/user'),
          kind,
        ).toHaveLength(2);
      }
    } finally {
      await close(served.server);
    }
  });

  it('lets in at once a valid token from an address that made-up tokens spent, and charges it its check', async () => {
    const gateway = await gatewayWith(store, 3, { trustedProxies: 1 });
    const served = await listen(gateway);
    try {
      for (let i = 0; i < 5; i += 1) await askAs(served.url, `made-up-flood-${i}`, '10.0.4.1');
      platform.app.stats.reset();
      const ben = await askAs(served.url, platform.token(DEMO.users.ben), '10.0.4.1');
      expect(ben.outcome).toBe('admitted');
      // The check is a request of the operation: in its cost, its bound and its charge.
      expect(platform.app.stats.requests).toEqual(['GET /v1/user', expect.stringMatching(/^GET \/v1\/spaces\//)]);
      expect(ben.payload.extensions.cost).toMatchObject({ maxUpstreamRequests: 2, upstreamRequests: 2 });
      expect(ben.payload.extensions.rateLimit).toMatchObject({ cost: 2, remaining: 1 });
      // Accepted, it spends its own budget only, with no more check.
      platform.app.stats.reset();
      expect((await askAs(served.url, platform.token(DEMO.users.ben), '10.0.4.1')).outcome).toBe('admitted');
      expect(platform.app.stats.count).toBe(1);
    } finally {
      await close(served.server);
    }
  });

  it('locks a valid token out for one window of checks at most, never for the whole window', async () => {
    // Long enough for the six asks below to fall in one window on a busy machine; the test then
    // waits for the window's end, however long that takes.
    const checkWindowMs = 5_000;
    const gateway = await gatewayWith(store, 3, {
      trustedProxies: 1,
      rateLimits: { tokenChecks: { checks: 1, windowMs: checkWindowMs } },
    });
    const served = await listen(gateway);
    try {
      // The address's budget for new tokens, then its one check, spent by made-up tokens.
      for (let i = 0; i < 5; i += 1) await askAs(served.url, `made-up-lockout-${i}`, '10.0.5.1');
      const cy = platform.token(DEMO.users.cy);
      const refused = await askAs(served.url, cy, '10.0.5.1');
      expect(refused.outcome).toBe('refused: addressPoints');
      expect(refused.payload.errors[0].message).toContain('no more of them are checked with the platform until');
      expect(refused.payload.errors[0].extensions.retryAfter).toBeLessThanOrEqual(checkWindowMs / 1000);
      // Once the checks are whole again, the valid token is checked and gets in.
      await until(async () => (await askAs(served.url, cy, '10.0.5.1')).outcome === 'admitted');
    } finally {
      await close(served.server);
    }
  });

  it("keeps the address's callers without a token on a budget of their own", async () => {
    const gateway = await gatewayWith(store, 3, { trustedProxies: 1 });
    const served = await listen(gateway);
    try {
      for (let i = 0; i < 20; i += 1) await askAs(served.url, `made-up-anon-${i}`, '10.0.6.1');
      const anonymous: string[] = [];
      for (let i = 0; i < 4; i += 1) anonymous.push((await askAs(served.url, undefined, '10.0.6.1')).outcome);
      // Refused by the platform (no token), but admitted by the rate limits, then held to their own budget.
      expect(anonymous).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'refused: rateLimitPoints']);
    } finally {
      await close(served.server);
    }
  });
});
