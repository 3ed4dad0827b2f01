import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS } from '../../src/gateway/examples/operations.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { graphiqlOptionsOf } from '../fixtures/graphiql.js';
import { seededTemplate, startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { freePort } from '../fixtures/ports.js';

const TOKENS = { 'ada@acme.test': 'token-of-ada', 'ben@acme.test': 'token-of-ben' };

/** GraphiQL's page from a gateway listening at `port` on 127.0.0.1, sent with these headers (`host` included). */
function pageAt(port: number, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      path: '/graphql',
      headers: { accept: 'text/html', ...headers },
    });
    req.once('error', reject);
    req.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve(body));
    });
    req.end();
  });
}

/** Whether the page offers any of `tokens`, in a tab or in the headers of new tabs. */
function offers(html: string, tokens: Record<string, string>): boolean[] {
  return Object.values(tokens).map((token) => html.includes(token));
}

describe('the demo users’ tokens in GraphiQL', () => {
  let gateway: Gateway;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: true, demoTokens: TOKENS } });
    server = createServer(gateway.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  });

  it('are offered to a browser on this machine: a tab per user, the first user’s token in every example', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const options = graphiqlOptionsOf(await pageAt(port, { host }));
      const tabs = options.defaultTabs;
      expect(tabs).toHaveLength(EXAMPLE_OPERATIONS.length + 2);
      EXAMPLE_OPERATIONS.forEach((example, index) => {
        expect(JSON.parse(tabs[index]!.headers!)).toEqual({ Authorization: 'Bearer token-of-ada', ...example.headers });
      });
      expect(tabs.slice(-2).map((tab) => [/query (\w+)/.exec(tab.query)![1], JSON.parse(tab.headers!)])).toEqual([
        ['AsAda', { Authorization: 'Bearer token-of-ada' }],
        ['AsBen', { Authorization: 'Bearer token-of-ben' }],
      ]);
      expect(tabs.at(-1)!.query).toContain('# Signed in as ben@acme.test');
      expect(JSON.parse(options.defaultHeaders!)).toEqual({ Authorization: 'Bearer token-of-ada' });
    }
  });

  it('are never offered through a proxy, to a host name of another site, nor to a client elsewhere', async () => {
    // A proxy on this machine relays requests of other machines.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip'])
      expect(offers(await pageAt(port, { [header]: '203.0.113.9' }), TOKENS), header).toEqual([false, false]);
    // A site whose name resolves to this machine (DNS rebinding) would read the page.
    expect(offers(await pageAt(port, { host: `docs.example.test:${port}` }), TOKENS)).toEqual([false, false]);
    // A client on another machine: the address Node's server would give (no test can connect from one).
    const page = async (remoteAddress?: string) => {
      // yoga's fetch takes, last, the server context that Node's adapter gives it ({ req, res }).
      const serverContext = (remoteAddress ? { req: { socket: { remoteAddress } } } : {}) as Record<string, never>;
      const url = `http://127.0.0.1:${port}/graphql`;
      const response = await gateway.fetch(url, { headers: { accept: 'text/html' } }, serverContext);
      return response.text();
    };
    expect(offers(await page('192.0.2.7'), TOKENS)).toEqual([false, false]);
    expect(offers(await page('::ffff:192.0.2.7'), TOKENS)).toEqual([false, false]);
    expect(offers(await page(), TOKENS)).toEqual([false, false]);
    // The same path with a loopback address offers them.
    expect(offers(await page('::ffff:127.0.0.1'), TOKENS)).toEqual([true, true]);
    // Without tokens, the examples' tabs carry only their own headers.
    const tabs = graphiqlOptionsOf(await page('192.0.2.7')).defaultTabs;
    expect(tabs).toHaveLength(EXAMPLE_OPERATIONS.length);
    expect(tabs.filter((tab) => tab.headers).map((tab) => JSON.parse(tab.headers!))).toEqual([{ 'x-explain': '1' }]);
  });
});

/** Every process started here: one whose start outlived its test is killed with the file's end. */
const spawned = new Set<ChildProcess>();
afterAll(() => {
  // `npm start`'s children see their IPC channel close, and end.
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `npm run dev` as a process, with `env`; resolves once it answers on `port`. */
async function startGatewayProcess(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  spawned.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway ended: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`the gateway did not answer: ${stderr}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await gone;
}

describe('npm start offers the demo users’ tokens', () => {
  let dataDir: string;
  let embedded: ChildProcess | undefined;
  let elsewhere: ChildProcess | undefined;
  let platform: TestPlatform;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-graphiql-'));
    // Seeded ahead, as `npm ci` does: this test is about the page, not about seeding.
    copyFileSync(seededTemplate(), join(dataDir, 'platform.sqlite'));
    platform = await startTestPlatform();
  });

  afterAll(async () => {
    await Promise.all([stop(embedded), stop(elsewhere)]);
    await platform?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('on its embedded platform, every demo user’s token, to a browser on this machine', async () => {
    const port = await freePort();
    embedded = await startGatewayProcess(port, { DATA_DIR: dataDir, PLATFORM_PORT: '0' });
    const tokens = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
    expect(Object.keys(tokens).length).toBeGreaterThan(1);
    const html = await pageAt(port);
    expect(offers(html, tokens).every(Boolean)).toBe(true);
    expect(offers(await pageAt(port, { 'x-forwarded-for': '203.0.113.9' }), tokens).some(Boolean)).toBe(false);
  }, 60_000); // a start of its own, slower on a busy machine

  it('never with UPSTREAM_URL, even to a browser on this machine', async () => {
    const port = await freePort();
    elsewhere = await startGatewayProcess(port, { UPSTREAM_URL: platform.url });
    const html = await pageAt(port);
    expect(graphiqlOptionsOf(html).defaultTabs).toHaveLength(EXAMPLE_OPERATIONS.length);
    expect(offers(html, platform.tokens).some(Boolean)).toBe(false);
    expect(html).not.toContain('Bearer');
  }, 60_000); // a start of its own, slower on a busy machine
});
