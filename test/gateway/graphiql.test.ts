import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS } from '../../src/gateway/examples/operations.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { DEMO_TABS_PATH } from '../../src/gateway/http/graphiql.js';
import { type GraphiQLPageOptions, graphiqlOptionsOf } from '../fixtures/graphiql.js';
import { seededTemplate, startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { freePort } from '../fixtures/ports.js';
import { until } from '../fixtures/wait.js';
import { NPM_START_ARGS } from '../fixtures/built.js';

const TOKENS = { 'ada@acme.test': 'token-of-ada', 'ben@acme.test': 'token-of-ben' };

/** Sends a request to 127.0.0.1:`port` with these headers (`host` included); answers its status and body. */
function requestAt(
  port: number,
  {
    method = 'GET',
    path = '/graphql',
    headers = {},
  }: { method?: string; path?: string; headers?: Record<string, string> },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers });
    req.once('error', reject);
    req.once('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.once('end', () => resolve({ status: response.statusCode!, body }));
    });
    req.end();
  });
}

/** GraphiQL's page from a gateway listening at `port` on 127.0.0.1, sent with these headers (`host` included). */
async function pageAt(port: number, headers: Record<string, string> = {}): Promise<string> {
  return (await requestAt(port, { headers: { accept: 'text/html', ...headers } })).body;
}

/**
 * What GraphiQL's page opened at `origin` asks for (`POST /graphiql/demo-tabs`, as a browser sends
 * it from the page: its `Origin`, `Sec-Fetch-Site: same-origin`), with `headers` over those.
 */
function demoTabsAt(port: number, origin: string, headers: Record<string, string | undefined> = {}) {
  const sent = {
    host: new URL(origin).host,
    origin,
    'sec-fetch-site': 'same-origin',
    accept: 'application/json',
    ...headers,
  };
  return requestAt(port, {
    method: 'POST',
    path: DEMO_TABS_PATH,
    headers: Object.fromEntries(
      Object.entries(sent).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
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

  it('are never in the page: the page opened on this machine asks for them, and opens a tab per user', async () => {
    for (const origin of [`http://127.0.0.1:${port}`, `http://localhost:${port}`]) {
      // A developer types the address: a navigation, without Origin.
      const html = await pageAt(port, { host: new URL(origin).host, 'sec-fetch-site': 'none' });
      expect(offers(html, TOKENS)).toEqual([false, false]);
      expect(html.includes('fetch("/graphiql/demo-tabs", { method: \'POST\'')).toBe(true);
      const page = graphiqlOptionsOf(html);
      expect(page.defaultTabs).toHaveLength(EXAMPLE_OPERATIONS.length);
      expect(page.defaultHeaders).toBeUndefined();
      // The page's own request, with its Origin, or from a client that sends neither header.
      for (const headers of [{}, { origin: undefined, 'sec-fetch-site': undefined }]) {
        const answer = await demoTabsAt(port, origin, headers);
        expect(answer.status).toBe(200);
        const options = JSON.parse(answer.body) as GraphiQLPageOptions;
        const tabs = options.defaultTabs;
        expect(tabs).toHaveLength(EXAMPLE_OPERATIONS.length + 2);
        EXAMPLE_OPERATIONS.forEach((example, index) => {
          expect(JSON.parse(tabs[index]!.headers!)).toEqual({
            Authorization: 'Bearer token-of-ada',
            ...example.headers,
          });
        });
        expect(tabs.slice(-2).map((tab) => [/query (\w+)/.exec(tab.query)![1], JSON.parse(tab.headers!)])).toEqual([
          ['AsAda', { Authorization: 'Bearer token-of-ada' }],
          ['AsBen', { Authorization: 'Bearer token-of-ben' }],
        ]);
        expect(tabs.at(-1)!.query).toContain('# Signed in as ben@acme.test');
        expect(JSON.parse(options.defaultHeaders!)).toEqual({ Authorization: 'Bearer token-of-ada' });
      }
    }
  });

  it('the page opens with the tabs it is given, with its own when refused, and asks at a loopback address only', async () => {
    const html = await pageAt(port);
    const base = graphiqlOptionsOf(html);
    // The page's whole script, yoga's bundle and what asks for the tabs, still compiles.
    const whole = html.slice(
      html.indexOf('<script>', html.indexOf('<div id="root">')) + 8,
      html.lastIndexOf('</script>'),
    );
    expect(() => new Script(whole)).not.toThrow();
    // The page's last script past yoga's bundle, run with what a browser would give it.
    const script = html.slice(
      html.lastIndexOf('{', html.indexOf('const graphiqlOptions =')),
      html.lastIndexOf('</script>'),
    );
    const open = async (hostname: string, answer: () => Promise<Response>) => {
      const rendered: unknown[] = [];
      const asked: unknown[][] = [];
      const window = { location: { hostname }, document: { querySelector: (selector: string) => selector } };
      const fetch = (...args: unknown[]) => {
        asked.push(args);
        return answer();
      };
      const YogaGraphiQL = { renderYogaGraphiQL: (root: string, options: unknown) => rendered.push([root, options]) };
      new Function('window', 'fetch', 'YogaGraphiQL', script)(window, fetch, YogaGraphiQL);
      await until(() => rendered.length > 0);
      expect(rendered).toHaveLength(1);
      return { rendered: rendered[0], asked };
    };
    const tabs = { defaultTabs: [{ query: '{ viewer { email } }' }], defaultHeaders: '{}' };
    expect(await open('localhost', async () => Response.json(tabs))).toEqual({
      rendered: ['#root', { ...base, ...tabs }],
      asked: [[DEMO_TABS_PATH, { method: 'POST', headers: { accept: 'application/json' } }]],
    });
    for (const hostname of ['127.0.0.1', '[::1]'])
      expect((await open(hostname, async () => Response.json(tabs))).asked).toHaveLength(1);
    expect((await open('localhost', async () => Response.json({}, { status: 403 }))).rendered).toEqual(['#root', base]);
    expect((await open('localhost', () => Promise.reject(new TypeError('failed')))).rendered).toEqual(['#root', base]);
    expect(await open('docs.example.test', async () => Response.json(tabs))).toEqual({
      rendered: ['#root', base],
      asked: [],
    });
  });

  it('are never given to a page of another site, nor to a request that is not the page’s', async () => {
    const own = `http://127.0.0.1:${port}`;
    // The case: a page of another site reads GraphiQL's page, or asks for the tabs itself.
    const crossSite = { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' };
    expect(offers(await pageAt(port, crossSite), TOKENS)).toEqual([false, false]);
    const refusals = [
      crossSite,
      { origin: 'http://evil.example', 'sec-fetch-site': undefined },
      { origin: undefined, 'sec-fetch-site': 'cross-site' },
      // An app of this machine on another port is same-site, not same-origin.
      { origin: 'http://localhost:3000', 'sec-fetch-site': 'same-site' },
      { origin: `http://127.0.0.1:${port + 1}` },
      { origin: `https://127.0.0.1:${port}` },
      // A sandboxed frame or a page with no-referrer sends `null`.
      { origin: 'null' },
    ];
    for (const headers of refusals) {
      const answer = await demoTabsAt(port, own, headers);
      expect({ headers, status: answer.status }).toEqual({ headers, status: 403 });
      expect(offers(answer.body, TOKENS)).toEqual([false, false]);
      expect(JSON.parse(answer.body).errors[0].extensions).toEqual({ code: 'FORBIDDEN' });
    }
    // Only the page's POST: a GET is no way to them.
    const get = await requestAt(port, { path: DEMO_TABS_PATH, headers: { origin: own } });
    expect([get.status, offers(get.body, TOKENS)]).toEqual([405, [false, false]]);
  });

  it('are never given through a proxy on this machine that rewrites Host, to any browser elsewhere', async () => {
    // A reverse proxy as nginx's default: Host rewritten to the gateway's loopback address, no forwarding header.
    const proxy = createServer((incoming, outgoing) => {
      const upstream = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: `127.0.0.1:${port}` },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode!, answer.headers);
          answer.pipe(outgoing);
        },
      );
      incoming.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyPort = (proxy.address() as AddressInfo).port;
    try {
      // A browser elsewhere opens http://docs.example.test/graphql, typed in: the page holds no token...
      const html = await pageAt(proxyPort, { host: 'docs.example.test', 'sec-fetch-site': 'none' });
      expect(offers(html, TOKENS)).toEqual([false, false]);
      // ...and the page's request names the proxy's public origin, not the gateway's.
      const answer = await demoTabsAt(proxyPort, 'http://docs.example.test');
      expect([answer.status, offers(answer.body, TOKENS)]).toEqual([403, [false, false]]);
      // So does a browser on this machine through the proxy: its page is the proxy's, not the gateway's.
      const local = await demoTabsAt(proxyPort, `http://127.0.0.1:${proxyPort}`);
      expect([local.status, offers(local.body, TOKENS)]).toEqual([403, [false, false]]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('are never given through a proxy that says so, to a host name of another site, nor to a client elsewhere', async () => {
    const own = `http://127.0.0.1:${port}`;
    // A proxy on this machine relays requests of other machines.
    for (const header of ['x-forwarded-for', 'forwarded', 'x-real-ip'])
      expect((await demoTabsAt(port, own, { [header]: '203.0.113.9' })).status, header).toBe(403);
    // A site whose name resolves to this machine (DNS rebinding) would read the answer.
    expect((await demoTabsAt(port, `http://docs.example.test:${port}`)).status).toBe(403);
    // A client on another machine: the address Node's server would give (no test can connect from one).
    const tabs = async (remoteAddress?: string) => {
      // yoga's fetch takes, last, the server context that Node's adapter gives it ({ req, res }).
      const serverContext = (remoteAddress ? { req: { socket: { remoteAddress } } } : {}) as Record<string, never>;
      const init = { method: 'POST', headers: { origin: own, 'sec-fetch-site': 'same-origin' } };
      const response = await gateway.fetch(`${own}${DEMO_TABS_PATH}`, init, serverContext);
      return [response.status, offers(await response.text(), TOKENS)];
    };
    expect(await tabs('192.0.2.7')).toEqual([403, [false, false]]);
    expect(await tabs('::ffff:192.0.2.7')).toEqual([403, [false, false]]);
    expect(await tabs()).toEqual([403, [false, false]]);
    // The same path with a loopback address offers them.
    expect(await tabs('::ffff:127.0.0.1')).toEqual([200, [true, true]]);
    // Without tokens, the examples' tabs carry only their own headers.
    const page = graphiqlOptionsOf(await pageAt(port, { 'x-forwarded-for': '203.0.113.9' })).defaultTabs;
    expect(page.filter((tab) => tab.headers).map((tab) => JSON.parse(tab.headers!))).toEqual([{ 'x-explain': '1' }]);
  });
});

/** Every process started here: one whose start outlived its test is killed with the file's end. */
const spawned = new Set<ChildProcess>();
afterAll(() => {
  // `npm start`'s children see their IPC channel close, and end.
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** `npm run dev` as a process, with `env`; resolves once it printed the line it prints when it listens. */
async function startGatewayProcess(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, NPM_START_ARGS, {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('GraphQL gateway: ')) resolve();
    });
    child.once('exit', () => reject(new Error(`the gateway ended: ${stderr}`)));
  });
  return child;
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
    expect(offers(html, tokens).some(Boolean)).toBe(false);
    expect(offers((await demoTabsAt(port, `http://127.0.0.1:${port}`)).body, tokens).every(Boolean)).toBe(true);
    const proxied = await demoTabsAt(port, `http://127.0.0.1:${port}`, { 'x-forwarded-for': '203.0.113.9' });
    expect(offers(proxied.body, tokens).some(Boolean)).toBe(false);
  }, 180_000); // a guard: a start of its own takes seconds, several times that on a busy machine

  it('never with UPSTREAM_URL, even to a browser on this machine', async () => {
    const port = await freePort();
    elsewhere = await startGatewayProcess(port, { UPSTREAM_URL: platform.url });
    const html = await pageAt(port);
    expect(graphiqlOptionsOf(html).defaultTabs).toHaveLength(EXAMPLE_OPERATIONS.length);
    expect(offers(html, platform.tokens).some(Boolean)).toBe(false);
    expect(html.includes('Bearer')).toBe(false);
    // The page does not ask for tabs, and nothing answers there.
    expect(html.includes(DEMO_TABS_PATH)).toBe(false);
    expect((await demoTabsAt(port, `http://127.0.0.1:${port}`)).status).toBe(404);
  }, 180_000); // a guard: a start of its own takes seconds, several times that on a busy machine
});
