import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createClient } from 'graphql-ws';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createSseClient } from 'graphql-sse';
import { trackInFlight } from '../../src/gateway/http/drain.js';
import { createGateway } from '../../src/gateway/http/server.js';
import { startFaultyUpstream, type FaultyUpstream } from '../fixtures/faulty-upstream.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { freePort } from '../fixtures/ports.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { until } from '../fixtures/wait.js';
import { NPM_START_ARGS } from '../fixtures/built.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
/** Every platform request takes this long: an operation of two levels is in flight for twice it. */
const DELAY_MS = 300;
let platform: TestPlatform;
/** In front of the platform, for requests that must never be answered. */
let proxy: FaultyUpstream;

/**
 * How long a test that starts a gateway's process may take before it counts as hung: a guard,
 * not a bound. A start takes a second or two alone, several times that on a busy machine.
 */
const PROCESS_GUARD_MS = 180_000;

beforeAll(async () => {
  platform = await startTestPlatform({ delayMs: DELAY_MS });
  proxy = await startFaultyUpstream(platform.url);
});
/** Every process started here: one whose start outlived its test is killed with the file's end. */
const spawned = new Set<ChildProcess>();
afterAll(async () => {
  // `npm start`'s children see their IPC channel close, and end.
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await proxy.close();
  await platform.destroy();
});

/**
 * `npm start`'s entry in front of the test platform, with `env` added; resolves once it printed
 * the line it prints when its gateway listens.
 */
async function startGatewayProcess(env: Record<string, string>) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, NPM_START_ARGS, {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), UPSTREAM_URL: platform.url, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('GraphQL gateway: ')) resolve();
    });
    void exited.then(() => reject(new Error(`the gateway did not start: ${stderr}`)));
  });
  return { child, url, exited, stderr: () => stderr };
}

/** Resolves once the upstream has received a request for `path` (the operation is in flight). */
const received = (path: string, from: () => string[]) => until(() => from().some((line) => line.includes(path)));

function query(url: string, document: string) {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
    body: JSON.stringify({ query: document }),
  });
}

describe('graceful shutdown', () => {
  it('ends the streams of the single-connection mode once their subscriptions sent SHUTTING_DOWN', {
    timeout: 90_000,
  }, async () => {
    const gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
    const server = createServer(gateway.handle);
    const inFlight = trackInFlight(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const sse = createSseClient({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql/stream`,
      singleConnection: true,
      // A client that keeps its stream open between operations, as an app that subscribes again and again.
      lazy: false,
      headers: { authorization: `Bearer ${platform.adminToken}` },
      retryAttempts: 0,
    });
    try {
      const events = sse.iterate<any>({
        query: 'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }',
        variables: { id: platform.spaceId('Getting started') },
      });
      expect((await events.next()).value.data.spaceContentUpdated.platformId).toBeTruthy();
      gateway.drain();
      expect((await events.next()).value.errors[0].extensions.code).toBe('SHUTTING_DOWN');
      // The stream itself ends too: nothing keeps the gateway from exiting (the wait is a guard).
      expect(await inFlight.idle(60_000)).toBe(true);
    } finally {
      sse.dispose();
      server.closeAllConnections();
      server.close();
      await gateway.close();
    }
  });

  it('answers /ready 503 once draining, and closes the connections of its answers', async () => {
    const gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
    const ready = await gateway.fetch('http://gateway.test/ready');
    expect(ready.status).toBe(200);
    gateway.drain();
    const draining = await gateway.fetch('http://gateway.test/ready');
    expect(draining.status).toBe(503);
    expect(await draining.json()).toEqual({ status: 'unavailable', reason: expect.stringMatching(/shutting down/) });
    const answer = await gateway.fetch('http://gateway.test/health');
    expect(answer.headers.get('connection')).toBe('close');
    // A subscription asked for while draining is refused: no poll would ever bring it an event.
    const refused = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
      body: JSON.stringify({
        query: `subscription { spaceContentUpdated(spaceId: "${platform.spaceId('Getting started')}") { platformId } }`,
      }),
    });
    const body = (await refused.json()) as { errors: Array<{ extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('SHUTTING_DOWN');
    expect(gateway.live.subscriptions).toBe(0);
    await gateway.close();
  });

  it(
    'on SIGTERM finishes what is in flight, ends subscriptions with a message, refuses new connections, exits 0',
    async () => {
      const gateway = await startGatewayProcess({ SHUTDOWN_TIMEOUT_MS: '10000', SUBSCRIPTION_POLL_MS: '200' });
      const subscription = await subscribe(
        gateway.url,
        'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }',
        { token: platform.adminToken, variables: { id: platform.spaceId('Getting started') } },
      );
      expect((await subscription.next()).data.spaceContentUpdated.platformId).toBeTruthy();

      const webSocket = createClient({
        url: `${gateway.url.replace(/^http/, 'ws')}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${platform.adminToken}` },
        retryAttempts: 0,
      });
      const overWebSocket = webSocket.iterate<any>({
        query: 'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }',
        variables: { id: platform.spaceId('Getting started') },
      });
      expect((await overWebSocket.next()).value.data.spaceContentUpdated.platformId).toBeTruthy();

      // Two levels of platform requests: in flight for at least 2 × DELAY_MS, from when the
      // platform has its first one.
      platform.app.stats.reset();
      const started = Date.now();
      const inFlight = query(gateway.url, '{ organizations(first: 2) { nodes { spaces(first: 2) { totalCount } } } }');
      await received('GET /v1/orgs?', () => platform.app.stats.requests);
      gateway.child.kill('SIGTERM');

      const last = await subscription.next();
      expect(last.errors?.[0]).toMatchObject({
        message: expect.stringMatching(/shutting down/),
        extensions: { code: 'SHUTTING_DOWN' },
      });
      await subscription.completed;
      // Over WebSocket too, before the socket closes.
      expect((await overWebSocket.next()).value.errors[0].extensions.code).toBe('SHUTTING_DOWN');
      await webSocket.dispose();
      // The port closes once no request but health checks came for a second (a balancer has stopped
      // sending): then a new connection is refused (a pooled one would be answered, with `connection: close`).
      const probe = () => fetch(`${gateway.url}/health`, { dispatcher: new Agent() } as RequestInit);
      await until(() =>
        probe().then(
          () => false,
          () => true,
        ),
      );
      await expect(probe()).rejects.toThrow();

      const answer = await inFlight;
      expect(answer.status).toBe(200);
      const body = (await answer.json()) as { data: any; errors?: unknown };
      expect(body.errors).toBeUndefined();
      expect(body.data.organizations.nodes.length).toBeGreaterThan(0);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2 * DELAY_MS);
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.stderr()).toBe('');
    },
    PROCESS_GUARD_MS,
  );

  it(
    'exits 0 after SHUTDOWN_TIMEOUT_MS when an operation takes longer, and at once on a second signal',
    async () => {
      // Through the proxy, whose organizations never come: only the shutdown's timeout or a second
      // signal can end the operation, however slow the machine.
      proxy.reset();
      proxy.inject({ method: 'GET', path: '/v1/orgs', times: 2, fault: { kind: 'hang' } });
      const proxied = () => proxy.requests.map((request) => `${request.method} ${request.url}`);
      const gateway = await startGatewayProcess({ SHUTDOWN_TIMEOUT_MS: '100', UPSTREAM_URL: proxy.url });
      const slow = query(
        gateway.url,
        '{ organizations(first: 2) { nodes { spaces(first: 2) { totalCount } } } }',
      ).catch((error: Error) => error);
      await received('GET /v1/orgs?', proxied);
      gateway.child.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.stderr()).toMatch(/Stopped after SHUTDOWN_TIMEOUT_MS \(100 ms\) with requests unfinished/);
      expect(await slow).toBeInstanceOf(Error);

      const again = await startGatewayProcess({ SHUTDOWN_TIMEOUT_MS: '60000', UPSTREAM_URL: proxy.url });
      const held = query(again.url, '{ organizations(first: 2) { nodes { spaces(first: 2) { totalCount } } } }').catch(
        (error: Error) => error,
      );
      await until(() => proxied().filter((line) => line.startsWith('GET /v1/orgs?')).length === 2);
      // Two signals, one stop under way when the other is handled (whichever comes first).
      again.child.kill('SIGTERM');
      again.child.kill('SIGINT');
      expect((await again.exited).code).toBe(1);
      await held;
    },
    PROCESS_GUARD_MS,
  );
});
