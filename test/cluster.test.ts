import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../src/cluster/cluster.js';
import { assertFree } from '../src/cluster/ports.js';
import { loadConfig } from '../src/config.js';
import { startTestPlatform, type TestPlatform } from './fixtures/platform.js';
import { fileURLToPath } from 'node:url';
import { importBuilt } from './fixtures/built.js';
import { freePort } from './fixtures/ports.js';
import { until } from './fixtures/wait.js';

/**
 * Three gateways behind a real HAProxy, sharing a real redis-server, as `npm run cluster` runs
 * them, in front of a test platform: what clients see while replicas die, restart and lose Redis.
 */
let platform: TestPlatform;
let cluster: Cluster;
let dir: string;
let spaceId: string;
/** The ports the settings gave: the first replica's (`CLUSTER_BASE_PORT`) and Redis's (`REDIS_PORT`). */
let basePort: number;
let redisPort: number;
const log: string[] = [];

/**
 * How long a start or a test of the cluster may take before it counts as hung: a guard, not a
 * bound. Each waits on HAProxy's checks and on gateways starting: seconds alone, several times
 * that on a busy machine.
 */
const CLUSTER_GUARD_MS = 300_000;

// The compiled cluster, as `npm run cluster` runs it (the suite builds `dist/` first): its replicas
// start from the bundles, not through tsx, each a second or more of compiling the sources.
const { startCluster } = await importBuilt<typeof import('../src/cluster/cluster.js')>('cluster/cluster.js');

/** The balancer's port, chosen first: the platform delivers its events there. */
let balancerPort: number;

beforeAll(async () => {
  balancerPort = await freePort();
  platform = await startTestPlatform({ eventReceivers: [`http://127.0.0.1:${balancerPort}/platform-events`] });
  // Read once: the mutations of the load below rename it.
  spaceId = platform.spaceId('Getting started');
  dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-'));
  basePort = await freePorts(3);
  redisPort = await freePort();
  const config = loadConfig({
    PORT: String(balancerPort),
    UPSTREAM_URL: platform.url,
    CLUSTER_REPLICAS: '3',
    CLUSTER_BASE_PORT: String(basePort),
    REDIS_PORT: String(redisPort),
    SHUTDOWN_TIMEOUT_MS: '5000',
  });
  cluster = await startCluster({
    config,
    dir,
    log: (line) => log.push(line),
    // The load below spends one token's budget many times over: the limits have tests of their own.
    env: {
      LOG_LEVEL: 'error',
      RESPONSE_CACHE_TTL_MS: '60000',
      RATE_LIMIT_POINTS: '0',
      // Each replica registers for the platform's events, delivered through the balancer to any of them.
      UPSTREAM_EVENTS_URL: `http://127.0.0.1:${balancerPort}/platform-events`,
      UPSTREAM_EVENTS_TOKEN: platform.adminToken,
    },
  });
}, CLUSTER_GUARD_MS);

afterAll(async () => {
  await cluster?.stop();
  await platform.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/** The first of `count` ports in a row free on 127.0.0.1 now. */
async function freePorts(count: number): Promise<number> {
  for (;;) {
    const base = await freePort();
    if (base + count - 1 > 65_535) continue;
    const free = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        assertFree(base + i, 'a test').then(
          () => true,
          () => false,
        ),
      ),
    );
    if (free.every(Boolean)) return base;
  }
}

/** The status of one request sent with its target exactly as written (no client resolves `..` first). */
function statusOf(port: number, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: '127.0.0.1', port, method, path }, (response) => {
      response.resume();
      response.once('end', () => resolve(response.statusCode!));
    });
    sent.once('error', reject);
    sent.end();
  });
}

const authorization = () => `Bearer ${platform.adminToken}`;

/** What a client saw of one request: its status and the codes of its errors. */
interface Outcome {
  kind: string;
  status: number;
  codes: string[];
}

async function send(origin: string, kind: 'read' | 'query' | 'mutation', spaceId: string): Promise<Outcome> {
  const headers = { authorization: authorization(), 'content-type': 'application/json', 'x-graphql-csrf': '1' };
  const request =
    kind === 'read'
      ? fetch(`${origin}/graphql?query=${encodeURIComponent('{ viewer { displayName } }')}`, { headers })
      : fetch(`${origin}/graphql`, {
          method: 'POST',
          headers,
          body: JSON.stringify(
            kind === 'query'
              ? {
                  query: 'query ($id: ID!) { space(id: $id) { title organization { title } } }',
                  variables: { id: spaceId },
                }
              : {
                  query:
                    'mutation ($id: ID!, $t: String!) { updateSpace(input: { spaceId: $id, title: $t }) { space { title } } }',
                  variables: { id: spaceId, t: `Load ${Date.now()}` },
                },
          ),
        });
  try {
    const response = await request;
    const body = (await response.json()) as { errors?: Array<{ extensions?: { code?: string } }> };
    return { kind, status: response.status, codes: (body.errors ?? []).map((error) => error.extensions?.code ?? '?') };
  } catch (error) {
    return { kind, status: 0, codes: [String((error as Error).cause ?? error)] };
  }
}

/**
 * Runs `during` while `clients` clients send `kinds` of operations through the balancer, one
 * after another each; answers every outcome. The load is on before `during` begins (every client
 * had an answer) and still on after it ended (every client had another): counted, not timed.
 * `during` may wait for `answered(n)`: n more answers than when it was called.
 */
async function underLoad(
  kinds: Array<'read' | 'query' | 'mutation'>,
  during: (answered: (count: number) => Promise<void>) => Promise<void>,
  clients = 6,
) {
  const outcomes: Outcome[] = [];
  const answers = Array.from({ length: clients }, () => 0);
  let running = true;
  const worker = async (index: number) => {
    for (let i = index; running; i += 1) {
      outcomes.push(await send(cluster.url, kinds[i % kinds.length]!, spaceId));
      answers[index]! += 1;
    }
  };
  const workers = Array.from({ length: clients }, (_, index) => worker(index));
  await until(() => answers.every((count) => count > 0));
  await during((count) => {
    const from = outcomes.length;
    return until(() => outcomes.length >= from + count);
  });
  const after = [...answers];
  await until(() => answers.every((count, index) => count > after[index]!));
  running = false;
  await Promise.all(workers);
  return outcomes;
}

const failed = (outcomes: Outcome[]) =>
  outcomes.filter((outcome) => outcome.status !== 200 || outcome.codes.length > 0);

async function metricsOf(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

describe('replicas behind HAProxy', () => {
  it('listens where CLUSTER_BASE_PORT and REDIS_PORT say, and serves /metrics on the replicas only', async () => {
    expect({ replicas: cluster.replicas.map((replica) => replica.port), redis: cluster.redisUrl }).toEqual({
      replicas: [basePort, basePort + 1, basePort + 2],
      redis: `redis://127.0.0.1:${redisPort}`,
    });
    const balancer = Number(new URL(cluster.url).port);
    // Every way of writing the path that a replica resolves to /metrics.
    const targets = ['/metrics', '/metrics?name=x', '/graphql/../metrics', '/x/%2e%2e/metrics', '/x\\..\\metrics'];
    const statuses = async (port: number) =>
      Object.fromEntries(
        await Promise.all(
          targets.flatMap((path) =>
            ['GET', 'HEAD'].map(async (method) => [`${method} ${path}`, await statusOf(port, method, path)]),
          ),
        ),
      );
    const everyTarget = (status: number) =>
      Object.fromEntries(targets.flatMap((path) => ['GET', 'HEAD'].map((method) => [`${method} ${path}`, status])));
    expect({ balancer: await statuses(balancer), replica: await statuses(basePort) }).toEqual({
      balancer: everyTarget(404),
      replica: everyTarget(200),
    });
  });

  it('balances over every replica, and a replica serves what another cached', async () => {
    const query = `{ space(id: "${spaceId}") { title } }`;
    const [a, b] = cluster.replicas;
    const ask = async (port: number) => {
      platform.app.stats.reset();
      const response = await fetch(`http://127.0.0.1:${port}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { authorization: authorization(), 'x-graphql-csrf': '1' },
      });
      const body = (await response.json()) as any;
      // HAProxy's health checks of /ready ping the platform's base URL meanwhile: not this query's.
      const upstream = platform.app.stats.requests.filter((line) => !/^GET \/v1\/?(\?|$)/.test(line)).length;
      return { body, upstream };
    };
    const miss = await ask(a!.port);
    expect(miss.upstream).toBe(1);
    const hit = await ask(b!.port);
    expect(hit).toEqual({ body: { ...miss.body, extensions: expect.anything() }, upstream: 0 });
    expect(hit.body.extensions.responseCache).toEqual({ hit: true });

    const before = await cluster.balancer.servers();
    await Promise.all(Array.from({ length: 30 }, () => send(cluster.url, 'read', spaceId)));
    const after = await cluster.balancer.servers();
    for (const server of after) {
      expect(server.status).toBe('UP');
      expect(server.requests).toBeGreaterThan(before.find((s) => s.name === server.name)!.requests);
    }
  });

  it("takes the platform's events through the balancer: any replica's delivery forgets what every replica cached", async () => {
    const [a, b] = cluster.replicas;
    const ask = async (port: number, query: string) => {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { authorization: authorization(), 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return (await response.json()) as any;
    };
    const created = await ask(
      a!.port,
      'mutation { createSpace(input: { organizationId: "acme", title: "Pushed" }) { space { platformId } } }',
    );
    const pushed = created.data.createSpace.space.platformId as string;
    const opened = await ask(
      a!.port,
      `mutation { createChangeRequest(input: { spaceId: "${pushed}", subject: "A page" }) { changeRequest { id platformId } } }`,
    );
    const changeRequest = opened.data.createChangeRequest.changeRequest;
    await ask(
      a!.port,
      `mutation { editChangeRequestContent(input: { changeRequestId: "${changeRequest.id}", changes: [{ insertPage: { markdown: "# Pushed" } }] }) { edits { pageId } } }`,
    );
    const query = `{ space(id: "${pushed}") { revisionId } }`;
    const before = await ask(a!.port, query);
    expect((await ask(b!.port, query)).extensions.responseCache).toEqual({ hit: true });
    const merged = await platform.api('POST', `/spaces/${pushed}/change-requests/${changeRequest.platformId}/merge`);
    expect(merged.status).toBe(200);
    // Delivered once a replica answered, which it does after the entries are gone from Redis; a
    // delivery that came before its replica registered is refused, and the platform tries again.
    await until(async () => {
      const { body } = await platform.api('GET', '/integrations/graphql-gateway/events');
      return (body.items as Array<{ status: string; payload: { revisionId?: string } }>).some(
        (event) => event.payload.revisionId === merged.body.revision && event.status === 'success',
      );
    });
    const after = await ask(b!.port, query);
    expect(after.extensions.responseCache.hit).toBe(false);
    expect(after.data.space.revisionId).toBe(merged.body.revision);
    expect(after.data.space.revisionId).not.toBe(before.data.space.revisionId);
  });

  it('loses no read when a replica is killed (kill -9) under load', { timeout: CLUSTER_GUARD_MS }, async () => {
    const victim = cluster.replicas[0]!;
    const pid = victim.supervisor.status().pid!;
    const outcomes = await underLoad(['read'], async (answered) => {
      process.kill(pid, 'SIGKILL');
      // Reads go on while HAProxy finds it gone, its supervisor starts it again on its port, and
      // HAProxy has it back.
      await answered(30);
      await until(() => victim.supervisor.status().state === 'running' && victim.supervisor.status().restarts === 1);
      await cluster.inRotation(undefined, CLUSTER_GUARD_MS);
    });
    expect(failed(outcomes)).toEqual([]);
    expect(victim.supervisor.status()).toMatchObject({ state: 'running', restarts: 1 });
    expect(log.join('\n')).toMatch(/gateway gateway1 \(pid \d+\) ended: killed by SIGKILL/);
  });

  // Each restart waits on HAProxy's clock: 2 failed checks out, 1 s quiet, a start, 2 checks back
  // in (about 5 s on a quiet machine, several times that on a busy one).
  it('fails no operation while every replica is restarted in turn under load', {
    timeout: CLUSTER_GUARD_MS,
  }, async () => {
    const pids = cluster.replicas.map((replica) => replica.supervisor.status().pid);
    const outcomes = await underLoad(['read', 'query', 'mutation'], async () => {
      for (const replica of cluster.replicas) await cluster.restart(replica);
    });
    expect(failed(outcomes)).toEqual([]);
    for (const kind of ['read', 'query', 'mutation'])
      expect(outcomes.filter((o) => o.kind === kind).length).toBeGreaterThan(10);
    const now = cluster.replicas.map((replica) => replica.supervisor.status().pid);
    for (const [index, pid] of now.entries()) expect(pid).not.toBe(pids[index]);
  });

  it('answers no 5xx while Redis is stopped and started under load, and shares state again after', {
    timeout: CLUSTER_GUARD_MS,
  }, async () => {
    const redis = cluster.redis!;
    const sharedStateIs = async (up: 0 | 1) =>
      (await Promise.all(cluster.replicas.map((replica) => metricsOf(replica.port)))).every((metrics) =>
        new RegExp(`^graphql_gateway_shared_state_up ${up}$`, 'm').test(metrics),
      );
    const outcomes = await underLoad(['read', 'query'], async (answered) => {
      await redis.stop();
      // Answers while every replica knows Redis is gone, before it comes back.
      await until(() => sharedStateIs(0));
      await answered(12);
      await redis.start();
    });
    expect(outcomes.filter((outcome) => outcome.status >= 500 || outcome.status === 0)).toEqual([]);
    expect(failed(outcomes)).toEqual([]);
    // Every replica reconnects on its own, counts what failed meanwhile, and shares again.
    await until(() => sharedStateIs(1));
    const query = `{ organization(id: "acme") { title } }`;
    const [a, b] = cluster.replicas;
    const get = (port: number) =>
      fetch(`http://127.0.0.1:${port}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { authorization: authorization(), 'x-graphql-csrf': '1' },
      }).then((response) => response.json() as Promise<any>);
    await get(a!.port);
    expect((await get(b!.port)).extensions.responseCache).toEqual({ hit: true });
  });
});

describe('npm run cluster on ports it cannot have', () => {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const spawned = new Set<ChildProcess>();
  // One that started after all (a regression) is not left running.
  afterAll(() => {
    for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });
  /** Runs the compiled `npm run cluster` with `env`; answers how it ended and all it printed. */
  async function runCluster(env: Record<string, string>) {
    const child = spawn(process.execPath, ['--enable-source-maps', 'dist/cluster/main.js'], {
      cwd: projectRoot,
      env: { ...process.env, UPSTREAM_URL: platform.url, LOG_LEVEL: 'error', DATA_DIR: join(dir, 'cli'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    spawned.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    return { code, stdout, stderr };
  }

  it.each(['127.0.0.1', '127.0.0.2'])(
    "ends with one line naming the balancer's port taken on HOST %s, starting nothing",
    async (host) => {
      // Taken on HOST only: the balancer binds there, whatever loopback's 127.0.0.1 holds.
      const taken: Server = createServer();
      await new Promise<void>((resolve) => taken.listen(0, host, resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        expect(await runCluster({ PORT: String(port), HOST: host })).toEqual({
          code: 1,
          stdout: '',
          stderr: `Cannot start the cluster: port ${port} is already in use. Choose another port with PORT.\n`,
        });
      } finally {
        taken.close();
      }
    },
  );

  it('ends with one line naming a replica port taken and its setting, starting nothing', async () => {
    const base = await freePorts(2);
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(base + 1, '127.0.0.1', resolve));
    try {
      expect(
        await runCluster({ PORT: String(await freePort()), CLUSTER_REPLICAS: '2', CLUSTER_BASE_PORT: String(base) }),
      ).toEqual({
        code: 1,
        stdout: '',
        stderr: `Cannot start the cluster: port ${base + 1} is already in use. Choose another port with CLUSTER_BASE_PORT + 1.\n`,
      });
    } finally {
      taken.close();
    }
  });

  it("refuses replica ports over the balancer's or past the last port, naming the settings", async () => {
    const port = await freePort();
    expect({
      clash: await runCluster({ PORT: String(port), CLUSTER_REPLICAS: '3', CLUSTER_BASE_PORT: String(port - 1) }),
      past: await runCluster({ PORT: String(port), CLUSTER_REPLICAS: '3', CLUSTER_BASE_PORT: '65534' }),
    }).toEqual({
      clash: {
        code: 1,
        stdout: '',
        stderr: `Cannot start the cluster: PORT ${port} falls in the replicas' ports ${port - 1}-${port + 1} (CLUSTER_BASE_PORT, CLUSTER_REPLICAS)\n`,
      },
      past: {
        code: 1,
        stdout: '',
        stderr:
          'Cannot start the cluster: CLUSTER_BASE_PORT 65534 leaves room for 2 of the 3 replicas (CLUSTER_REPLICAS): the last port is 65535\n',
      },
    });
  });
});
