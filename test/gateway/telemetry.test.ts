import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import type { OperationReport } from '../../src/gateway/telemetry/operations.js';
import { startFaultyUpstream, type FaultyUpstream } from '../fixtures/faulty-upstream.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

/**
 * Request ids and the operation log, through a gateway whose upstream calls pass a recording
 * proxy, over a real socket.
 */
let platform: TestPlatform;
let proxy: FaultyUpstream;
let gateway: Gateway;
let server: Server;
let url: string;
let spaceId: string;
const lines: Array<OperationReport & { msg: string; level: number }> = [];
const raw: string[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  proxy = await startFaultyUpstream(platform.url);
  const operationLog = pino(
    { level: 'info' },
    {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line));
      },
    },
  );
  gateway = createGateway({ upstreamUrl: proxy.url, graphiql: { enabled: false }, operationLog });
  server = createServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  spaceId = (await platform.api('GET', '/orgs/acme/spaces', { query: { limit: 1 } })).body.items[0].id;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gateway.close();
  await proxy.close();
  await platform.destroy();
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await request(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}`, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, body: (await response.body.json()) as any };
}

const SPACE = 'query SpaceWithOrganization($id: ID!) { space(id: $id) { title organization { title } } }';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('makes one per request, answers it and sends it with every upstream call of the request', async () => {
    proxy.reset();
    const first = await post({ query: SPACE, variables: { id: spaceId } });
    const second = await post({ query: SPACE, variables: { id: spaceId } });
    const ids = [first.headers['x-request-id'], second.headers['x-request-id']];
    expect(ids[0]).toMatch(UUID);
    expect(ids[1]).toMatch(UUID);
    expect(ids[0]).not.toBe(ids[1]);
    expect(proxy.requests.map((one) => one.headers['x-request-id'])).toEqual([ids[0], ids[0], ids[1], ids[1]]);
  });

  it("keeps a client's plausible id, and replaces one that is too long or holds anything but id characters", async () => {
    proxy.reset();
    const kept = await post({ query: SPACE, variables: { id: spaceId } }, { 'x-request-id': 'checkout-7.a:b_c' });
    expect(kept.headers['x-request-id']).toBe('checkout-7.a:b_c');
    expect(proxy.requests.every((one) => one.headers['x-request-id'] === 'checkout-7.a:b_c')).toBe(true);
    for (const hostile of ['x'.repeat(129), 'id with spaces', '{"json":1}']) {
      const replaced = await post({ query: '{ viewer { id } }' }, { 'x-request-id': hostile });
      expect(replaced.headers['x-request-id']).toMatch(UUID);
    }
  });
});

describe('the operation log', () => {
  it('writes one line per operation: id, name, type, status, duration, upstream requests, error codes', async () => {
    lines.length = 0;
    const read = await post({ query: SPACE, variables: { id: spaceId } }, { 'x-request-id': 'log-read' });
    const missing = await post({ query: SPACE, variables: { id: 'no-such-space' } }, { 'x-request-id': 'log-missing' });
    const broken = await post({ query: '{ space(' }, { 'x-request-id': 'log-broken' });
    await request(`${url}/health`).then((answer) => answer.body.dump());
    expect([read.status, missing.status, broken.status]).toEqual([200, 200, 200]);
    expect(
      lines.map(({ time: _time, pid: _pid, hostname: _host, durationMs, ...line }: any) => ({
        ...line,
        durationMs: typeof durationMs,
      })),
    ).toEqual([
      {
        level: 30,
        msg: 'operation',
        requestId: 'log-read',
        operationName: 'SpaceWithOrganization',
        operationType: 'query',
        status: 200,
        durationMs: 'number',
        upstreamRequests: 2,
        maxUpstreamRequests: 2,
        errorCodes: [],
        cacheHit: null,
      },
      {
        level: 30,
        msg: 'operation',
        requestId: 'log-missing',
        operationName: 'SpaceWithOrganization',
        operationType: 'query',
        status: 200,
        durationMs: 'number',
        upstreamRequests: 1,
        maxUpstreamRequests: 2,
        errorCodes: ['NOT_FOUND'],
        cacheHit: null,
      },
      {
        level: 30,
        msg: 'operation',
        requestId: 'log-broken',
        operationName: null,
        operationType: null,
        status: 200,
        durationMs: 'number',
        upstreamRequests: 0,
        maxUpstreamRequests: null,
        errorCodes: ['BAD_USER_INPUT'],
        cacheHit: null,
      },
    ]);
  });

  it('names an automatic persisted query it does not know by the operationName sent', async () => {
    lines.length = 0;
    const hash = 'a'.repeat(64);
    const missed = await post(
      { operationName: 'SpaceWithOrganization', extensions: { persistedQuery: { version: 1, sha256Hash: hash } } },
      { 'x-request-id': 'log-apq-miss' },
    );
    expect(missed.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(lines).toMatchObject([
      {
        requestId: 'log-apq-miss',
        operationName: 'SpaceWithOrganization',
        operationType: null,
        errorCodes: ['PERSISTED_QUERY_NOT_FOUND'],
        upstreamRequests: 0,
      },
    ]);
  });

  it('never writes a token, a variable value or the document', async () => {
    raw.length = 0;
    const secret = 'sk_live_4f9a8b7c6d5e';
    await post(
      {
        query:
          'mutation Rename($id: ID!, $title: String!) { updateSpace(input: { spaceId: $id, title: $title }) { userErrors { code } } }',
        variables: { id: spaceId, title: `Title with ${secret}` },
      },
      { authorization: `Bearer ${platform.adminToken}` },
    );
    await post({ query: SPACE, variables: { id: `https://user:${secret}@example.test` } });
    expect(raw).toHaveLength(2);
    const text = raw.join('\n');
    for (const leaked of [secret, platform.adminToken, 'updateSpace', 'Bearer']) expect(text).not.toContain(leaked);
  });
});

describe('a client that goes away', () => {
  let slowPlatform: TestPlatform;
  let slowGateway: Gateway;
  let slowServer: Server;
  let slowUrl: string;
  const slowLines: OperationReport[] = [];

  beforeAll(async () => {
    slowPlatform = await startTestPlatform({ delayMs: 300 });
    const log = pino({ level: 'info' }, { write: (line: string) => void slowLines.push(JSON.parse(line)) });
    slowGateway = createGateway({ upstreamUrl: slowPlatform.url, graphiql: { enabled: false }, operationLog: log });
    slowServer = createServer(slowGateway.handle);
    await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
    slowUrl = `http://127.0.0.1:${(slowServer.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    slowServer.closeAllConnections();
    await new Promise((resolve) => slowServer.close(resolve));
    await slowGateway.close();
    await slowPlatform.destroy();
  });

  it('aborts the upstream requests of its operation: the next level is never sent', async () => {
    const id = slowPlatform.spaceId('Getting started');
    slowPlatform.app.stats.reset();
    const controller = new AbortController();
    const asked = request(`${slowUrl}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${slowPlatform.adminToken}`,
        'x-request-id': 'gone',
      },
      body: JSON.stringify({ query: SPACE, variables: { id } }),
      signal: controller.signal,
    });
    // Gone while the space's read is out (the platform has it, and answers 300 ms later).
    await until(() => slowPlatform.app.stats.requests.length > 0);
    controller.abort();
    await expect(asked).rejects.toThrow();
    await until(() => slowLines.length > 0);
    expect(slowLines).toMatchObject([{ requestId: 'gone', status: 499, operationName: 'SpaceWithOrganization' }]);
    // Without the abort, the space's answer would start the organization's read: once the
    // platform answered, a while for that read to show (a busy machine only makes it show later).
    await until(() => slowPlatform.app.stats.answers.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(slowPlatform.app.stats.requests.map((line) => line.split('?')[0])).toEqual([`GET /v1/spaces/${id}`]);
  });
});

describe('metrics', () => {
  /** One series' value in a Prometheus text answer; undefined when the series is absent. */
  function sample(text: string, series: string): number | undefined {
    const line = text.split('\n').find((one) => one.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  }

  it('counts operations by name, type and outcome, and upstream requests by route template and status', async () => {
    const fresh = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
    try {
      const run = async (body: unknown) => {
        const response = await fresh.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
          body: JSON.stringify(body),
        });
        await response.text();
      };
      await run({ query: SPACE, variables: { id: spaceId } });
      await run({ query: SPACE, variables: { id: spaceId } });
      await run({ query: SPACE, variables: { id: 'no-such-space' } });
      await run({ query: '{ viewer { id } }' });
      await run({ query: '{ nothingHere }' });
      const response = await fresh.fetch('http://gateway.test/metrics');
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await response.text();
      const operations = 'graphql_gateway_operations_total';
      expect({
        success: sample(
          text,
          `${operations}{operation_name="SpaceWithOrganization",operation_type="query",outcome="success"}`,
        ),
        error: sample(
          text,
          `${operations}{operation_name="SpaceWithOrganization",operation_type="query",outcome="error"}`,
        ),
        anonymous: sample(text, `${operations}{operation_name="(anonymous)",operation_type="query",outcome="success"}`),
        invalid: sample(text, `${operations}{operation_name="(anonymous)",operation_type="none",outcome="refused"}`),
      }).toEqual({ success: 2, error: 1, anonymous: 1, invalid: 1 });
      const upstream = 'graphql_gateway_upstream_requests_total';
      expect({
        spaces: sample(text, `${upstream}{method="GET",route="/spaces/{spaceId}",status="200"}`),
        missing: sample(text, `${upstream}{method="GET",route="/spaces/{spaceId}",status="404"}`),
        organizations: sample(text, `${upstream}{method="GET",route="/orgs/{organizationId}",status="200"}`),
        viewer: sample(text, `${upstream}{method="GET",route="/user",status="200"}`),
      }).toEqual({ spaces: 2, missing: 1, organizations: 2, viewer: 1 });
      // Route templates, never raw paths: no id becomes a label.
      expect(text).not.toContain(spaceId);
      expect(sample(text, 'graphql_gateway_upstream_breaker_state')).toBe(0);
      expect(sample(text, 'graphql_gateway_requests_in_flight')).toBe(0);
      expect(sample(text, 'graphql_gateway_operation_duration_seconds_count{operation_type="query"}')).toBe(4);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    } finally {
      await fresh.close();
    }
  });

  it('answers HEAD /metrics as GET without a body, on the main port and on a port of its own', async () => {
    const fresh = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
    const own = createServer(fresh.metrics.listener);
    try {
      await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
      const ownUrl = `http://127.0.0.1:${(own.address() as AddressInfo).port}`;
      const answer = async (response: Response) => ({
        status: response.status,
        type: response.headers.get('content-type'),
        body: (await response.text()).length > 0,
      });
      const main = (method: string) => fresh.fetch('http://gateway.test/metrics', { method });
      const separate = (method: string, path = '/metrics') => fetch(`${ownUrl}${path}`, { method });
      const type = fresh.metrics.registry.contentType;
      expect({
        mainHead: await answer(await main('HEAD')),
        mainGet: await answer(await main('GET')),
        ownHead: await answer(await separate('HEAD')),
        ownGet: await answer(await separate('GET')),
        ownPost: await answer(await separate('POST')),
        ownOther: await answer(await separate('GET', '/graphql')),
      }).toEqual({
        mainHead: { status: 200, type, body: false },
        mainGet: { status: 200, type, body: true },
        ownHead: { status: 200, type, body: false },
        ownGet: { status: 200, type, body: true },
        ownPost: { status: 404, type: null, body: false },
        ownOther: { status: 404, type: null, body: false },
      });
    } finally {
      own.close();
      await fresh.close();
    }
  });

  it('leaves /metrics off the main port when another server serves them', async () => {
    const quiet = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, metricsOnMainPort: false });
    try {
      const response = await quiet.fetch('http://gateway.test/metrics');
      expect(response.status).toBe(404);
      expect(await quiet.metrics.registry.metrics()).toContain('graphql_gateway_requests_in_flight');
    } finally {
      await quiet.close();
    }
  });
});
