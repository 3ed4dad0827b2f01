import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ResilienceOptions } from '../../src/gateway/upstream/resilience.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { startFaultyUpstream, type FaultyUpstream } from '../fixtures/faulty-upstream.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let platform: TestPlatform;
let proxy: FaultyUpstream;
let gateways: Gateway[] = [];
let warnings: string[];

/**
 * The budget of one upstream request in these tests: generous, so that a loaded machine does not
 * fail the reads meant to succeed; the hanging upstream gets a small one of its own.
 */
const BUDGET_MS = 2000;
const HANG_BUDGET_MS = 300;

beforeAll(async () => {
  platform = await startTestPlatform();
  proxy = await startFaultyUpstream(platform.url);
});

afterAll(async () => {
  await proxy?.close();
  await platform?.destroy();
});

beforeEach(() => {
  proxy.reset();
  warnings = [];
});

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(gateways.map((gateway) => gateway.close()));
  gateways = [];
});

/** A gateway through the proxy, with small timeouts and a breaker that opens after 3 failed tries. */
function gatewayThroughProxy(options: ResilienceOptions = {}, upstreamUrl = proxy.url): Gateway {
  const gateway = createGateway({
    upstreamUrl,
    graphiql: { enabled: false },
    // The pool's timeouts follow the budget, as `main.ts` sets them (one setting: UPSTREAM_TIMEOUT_MS).
    clientOptions: {
      timeoutMs: options.timeoutMs ?? BUDGET_MS,
      logger: { warn: (message) => warnings.push(message) },
    },
    resilience: {
      retryBaseDelayMs: 5,
      breakerThreshold: 3,
      breakerCooldownMs: 200,
      ...options,
    },
  });
  gateways.push(gateway);
  return gateway;
}

async function gql(gateway: Gateway, query: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}`, ...headers },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as {
    data?: any;
    errors?: Array<{ message: string; path?: unknown[]; extensions: Record<string, unknown> }>;
    extensions?: any;
  };
  return { ...body, elapsedMs: performance.now() - started };
}

async function get(gateway: Gateway, path: string) {
  const response = await gateway.fetch(`http://gateway.test${path}`);
  return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as any };
}

const ORG = '/v1/orgs/acme';
const ORG_TITLE = '{ organization(id: "acme") { title } }';

describe('reads', () => {
  it('retries a read answered 503 once and reset once, and answers', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: ORG, fault: { kind: 'status', status: 503 } });
    proxy.inject({ method: 'GET', path: ORG, fault: { kind: 'reset' } });
    const result = await gql(gateway, ORG_TITLE, { 'x-explain': '1' });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { title: 'Acme Docs' } });
    expect(proxy.requests.map((r) => `${r.method} ${r.path} ${r.outcome}`)).toEqual([
      'GET /v1/orgs/acme status',
      'GET /v1/orgs/acme reset',
      'GET /v1/orgs/acme forwarded',
    ]);
    expect(result.extensions.explain.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/orgs/acme', status: 200, retries: 2 }),
    ]);
  });

  it('reports UPSTREAM_UNAVAILABLE when the retries are spent, the rest of the answer resolving', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({
      method: 'GET',
      path: ORG,
      times: 3,
      fault: { kind: 'status', status: 503, body: { error: { code: 503, message: 'maintenance' } } },
    });
    const result = await gql(gateway, `{ organization(id: "acme") { title } viewer { displayName } }`);
    expect(result.data).toEqual({ organization: null, viewer: { displayName: expect.any(String) } });
    expect(result.errors).toEqual([
      {
        message: 'maintenance',
        path: ['organization'],
        locations: expect.any(Array),
        extensions: { code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 },
      },
    ]);
    expect(proxy.count('GET', ORG)).toBe(3);
  });

  it('fails a hanging read with UPSTREAM_TIMEOUT within the budget', async () => {
    const gateway = gatewayThroughProxy({ timeoutMs: HANG_BUDGET_MS });
    proxy.inject({ method: 'GET', path: ORG, fault: { kind: 'hang' } });
    const result = await gql(gateway, ORG_TITLE);
    expect(result.data).toEqual({ organization: null });
    expect(result.errors?.map((e) => [e.path, e.extensions.code, e.message])).toEqual([
      [['organization'], 'UPSTREAM_TIMEOUT', `GET /orgs/acme did not answer within ${HANG_BUDGET_MS} ms`],
    ]);
    // The budget ended it (the proxy never answers): not before it was spent. How long after is
    // the machine's business; the code and message say which bound ended it.
    expect(result.elapsedMs).toBeGreaterThanOrEqual(HANG_BUDGET_MS - 5);
    // The whole budget went to the one try: there was no time left for another.
    expect(proxy.count('GET', ORG)).toBe(1);
  });
});

describe('rate limits', () => {
  it('waits a Retry-After that fits in the budget and reads again', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: ORG, fault: { kind: 'status', status: 429, headers: { 'retry-after': '0' } } });
    const result = await gql(gateway, ORG_TITLE);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { title: 'Acme Docs' } });
    expect(proxy.count('GET', ORG)).toBe(2);
  });

  it('fails with RATE_LIMITED and retryAfter when the wait does not fit, without waiting', async () => {
    // Asked to wait past its budget, the gateway does not wait at all: one that waited for the
    // budget (60 s) or the time asked (120 s) would fail the test by its timeout.
    const gateway = gatewayThroughProxy({ timeoutMs: 60_000 });
    proxy.inject({
      method: 'GET',
      path: ORG,
      fault: {
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '120' },
        body: { error: { code: 429, message: 'Too many requests' } },
      },
    });
    const result = await gql(gateway, ORG_TITLE);
    expect(result.errors?.map((e) => [e.message, e.extensions])).toEqual([
      ['Too many requests', { code: 'RATE_LIMITED', upstreamStatus: 429, retryAfter: 120 }],
    ]);
    expect(proxy.count('GET', ORG)).toBe(1);
  }, 30_000); // half the budget: a guard for one request, which a gateway waiting the budget out misses
});

describe('invalid answers', () => {
  it('reports malformed JSON as UPSTREAM_INVALID_RESPONSE naming the operation', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: ORG, fault: { kind: 'malformed' } });
    const result = await gql(gateway, ORG_TITLE);
    expect(result.errors?.map((e) => [e.message, e.extensions])).toEqual([
      ['GET /orgs/acme answered a body that is not JSON', { code: 'UPSTREAM_INVALID_RESPONSE' }],
    ]);
    expect(proxy.count('GET', ORG)).toBe(1);
    expect(warnings).toEqual([
      'Invalid upstream answer (logged once per operation and field): GET /orgs/acme answered a body that is not JSON',
    ]);
  });

  it('names the first field of the wrong type, never its value, and logs it once', async () => {
    const gateway = gatewayThroughProxy();
    const breakTitles = (page: { items: Array<Record<string, unknown>> }) => ({
      ...page,
      items: page.items.map((org) => ({ ...org, title: { leaked: 'sensitive-value' } })),
    });
    proxy.inject({ method: 'GET', path: '/v1/orgs', times: 2, fault: { kind: 'rewrite', edit: breakTitles } });
    const first = await gql(gateway, '{ organizations { nodes { title } } }');
    const second = await gql(gateway, '{ organizations { totalCount nodes { id } } }');
    const expected =
      'GET /orgs answered a body that does not match the API at items.0.title: Invalid input: expected string, received object';
    expect(first.errors?.map((e) => [e.message, e.extensions])).toEqual([
      [expected, { code: 'UPSTREAM_INVALID_RESPONSE' }],
    ]);
    expect(second.errors?.map((e) => e.extensions.code)).toEqual(['UPSTREAM_INVALID_RESPONSE']);
    expect(JSON.stringify([first, second, warnings])).not.toContain('sensitive-value');
    expect(warnings).toEqual([`Invalid upstream answer (logged once per operation and field): ${expected}`]);
  });
  it('refuses a value outside the set of an enum as UPSTREAM_INVALID_RESPONSE, the rest of the answer intact', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({
      method: 'GET',
      path: ORG,
      fault: { kind: 'rewrite', edit: (org) => ({ ...org, plan: 'galactic' }) },
    });
    const result = await gql(gateway, '{ organization(id: "acme") { plan } viewer { displayName } }');
    expect(result.data).toEqual({ organization: null, viewer: { displayName: 'Ada Lovelace' } });
    expect(result.errors?.map((e) => [e.path, e.message, e.extensions])).toEqual([
      [
        ['organization'],
        expect.stringMatching(/^GET \/orgs\/acme answered a body that does not match the API at plan: /),
        { code: 'UPSTREAM_INVALID_RESPONSE' },
      ],
    ]);
    expect(JSON.stringify(result.errors)).not.toContain('galactic');
  });
});

describe('writes', () => {
  const CREATE = `mutation { createSpace(input: { organizationId: "acme", title: "Resilience" }) { space { title } userErrors { code } } }`;

  it.each([
    ['answered 503', { kind: 'status', status: 503 } as const, { code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 }],
    ['whose connection was reset', { kind: 'reset' } as const, { code: 'UPSTREAM_UNAVAILABLE' }],
  ])('sends a POST %s once and reports it', async (_, fault, extensions) => {
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'POST', path: '/v1/orgs/acme/spaces', fault });
    const result = await gql(gateway, CREATE);
    expect(result.data).toBeNull();
    expect(result.errors?.map((e) => [e.path, e.extensions])).toEqual([[['createSpace'], extensions]]);
    expect(proxy.count('POST')).toBe(1);
  });
});

/**
 * The breaker's clock is the wall clock (`Date`, for the `reopensAt` it shows): stopped here, so
 * that it opens for the whole of the test's steps however slow the machine, and moved on at once
 * to where the cool-down ends. Only `Date` stands still: timers and sockets run as always.
 */
function stopBreakerClock(): { coolDown(gateway: Gateway): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(Date.now());
  return { coolDown: (gateway) => vi.setSystemTime(gateway.breaker.status().reopensAt!) };
}

describe('circuit breaker', () => {
  it('opens after the threshold, fails fast without reaching the platform, and closes after a successful probe', async () => {
    const clock = stopBreakerClock();
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: ORG, times: 3, fault: { kind: 'status', status: 502 } });
    const failing = await gql(gateway, ORG_TITLE);
    expect(failing.errors?.map((e) => e.extensions)).toEqual([{ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 502 }]);
    expect(gateway.breaker.status()).toMatchObject({ state: 'open', consecutiveFailures: 3 });

    const fast = await gql(gateway, `{ viewer { displayName } }`);
    expect(fast.errors?.map((e) => [e.extensions, e.message])).toEqual([
      [
        { code: 'UPSTREAM_UNAVAILABLE' },
        expect.stringMatching(
          /^The platform is failing \(3 failed requests in a row\), so GET \/user was not sent: it will be tried again at \S+Z \(in 0\.2 s\)$/,
        ),
      ],
    ]);
    const ready = await get(gateway, '/ready');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({
      status: 'unavailable',
      reason: expect.stringMatching(
        /^The platform is failing: the circuit breaker opened after 3 failed requests in a row; requests fail fast until \S+Z$/,
      ),
      upstream: { reachable: false, durationMs: 0, reason: 'the circuit breaker is open' },
      breaker: {
        state: 'open',
        consecutiveFailures: 3,
        reopensAt: new Date(gateway.breaker.status().reopensAt!).toISOString(),
      },
    });
    expect(proxy.requests).toHaveLength(3);
    // The metrics show the breaker of the gateway's requests, the one /ready pings through.
    const metrics = await (await gateway.fetch('http://gateway.test/metrics')).text();
    expect(metrics).toMatch(/^graphql_gateway_upstream_breaker_state 2$/m);

    clock.coolDown(gateway);
    expect(gateway.breaker.status().state).toBe('half-open');
    const probe = await gql(gateway, ORG_TITLE);
    expect(probe.errors).toBeUndefined();
    expect(probe.data).toEqual({ organization: { title: 'Acme Docs' } });
    expect(gateway.breaker.status()).toEqual({ state: 'closed', consecutiveFailures: 0, reopensAt: undefined });
    expect((await get(gateway, '/ready')).status).toBe(200);
    expect(proxy.requests).toHaveLength(5);
  });

  it('lets /ready be the probe once the cool-down is over, with no operation sent', async () => {
    const clock = stopBreakerClock();
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: ORG, times: 3, fault: { kind: 'status', status: 502 } });
    await gql(gateway, ORG_TITLE);
    expect(gateway.breaker.status().state).toBe('open');
    clock.coolDown(gateway);
    const ready = await get(gateway, '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.breaker).toEqual({ state: 'closed', consecutiveFailures: 0 });
    expect(gateway.breaker.status().state).toBe('closed');
    expect(proxy.requests).toHaveLength(4);
  });

  it('opens again when the probe fails', async () => {
    const clock = stopBreakerClock();
    const gateway = gatewayThroughProxy({ maxRetries: 0 });
    proxy.inject({ method: 'GET', path: ORG, times: 4, fault: { kind: 'reset' } });
    for (let i = 0; i < 3; i += 1) await gql(gateway, ORG_TITLE);
    expect(gateway.breaker.status().state).toBe('open');
    clock.coolDown(gateway);
    const probe = await gql(gateway, ORG_TITLE);
    expect(probe.errors?.map((e) => e.message)).toEqual(['GET /orgs/acme could not be reached (UND_ERR_SOCKET)']);
    expect(gateway.breaker.status()).toMatchObject({ state: 'open', consecutiveFailures: 4 });
    expect(proxy.count('GET', ORG)).toBe(4);
  });
});

describe('health', () => {
  it('answers /health with {"status":"ok"}', async () => {
    const gateway = gatewayThroughProxy();
    expect(await get(gateway, '/health')).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { status: 'ok' },
    });
    expect(proxy.requests).toEqual([]);
  });

  it('answers /ready with 200 when the platform answers its base URL and the breaker is closed', async () => {
    const gateway = gatewayThroughProxy();
    const ready = await get(gateway, '/ready');
    expect(ready).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: {
        status: 'ready',
        upstream: { reachable: true, status: expect.any(Number), durationMs: expect.any(Number) },
        breaker: { state: 'closed', consecutiveFailures: 0 },
      },
    });
    expect(ready.body.upstream.status).toBeLessThan(500);
    expect(proxy.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /v1']);
  });

  it('answers /ready with 503 and the reason when the platform fails or cannot be reached, credentials left out', async () => {
    const gateway = gatewayThroughProxy();
    proxy.inject({ method: 'GET', path: '/v1', fault: { kind: 'status', status: 503 } });
    const failing = await get(gateway, '/ready');
    expect(failing.status).toBe(503);
    expect(failing.body).toEqual({
      status: 'unavailable',
      reason: 'The platform is not reachable: GET /v1 answered 503',
      upstream: { reachable: false, status: 503, durationMs: expect.any(Number), reason: 'GET /v1 answered 503' },
      breaker: { state: 'closed', consecutiveFailures: 1 },
    });

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const down = gatewayThroughProxy({}, `http://deploy:s3cret-password@127.0.0.1:${port}/v1`);
    const refused = await get(down, '/ready');
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({
      status: 'unavailable',
      reason: 'The platform is not reachable: GET /v1 could not be reached (ECONNREFUSED)',
      upstream: { reachable: false },
    });
    expect(JSON.stringify(refused.body)).not.toMatch(/s3cret|deploy|127\.0\.0\.1/);
  });
});
