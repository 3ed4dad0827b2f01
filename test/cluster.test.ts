import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Cluster } from '../src/cluster/cluster.js';
import { loadConfig } from '../src/config.js';
import { startTestPlatform, type TestPlatform } from './fixtures/platform.js';
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

beforeAll(async () => {
  platform = await startTestPlatform();
  // Read once: the mutations of the load below rename it.
  spaceId = platform.spaceId('Getting started');
  dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-'));
  const config = loadConfig({
    PORT: String(await freePort()),
    UPSTREAM_URL: platform.url,
    CLUSTER_REPLICAS: '3',
    SHUTDOWN_TIMEOUT_MS: '5000',
  });
  cluster = await startCluster({
    config,
    dir,
    log: (line) => log.push(line),
    // The load below spends one token's budget many times over: the limits have tests of their own.
    env: { LOG_LEVEL: 'error', RESPONSE_CACHE_TTL_MS: '60000', RATE_LIMIT_POINTS: '0' },
  });
}, CLUSTER_GUARD_MS);

afterAll(async () => {
  await cluster?.stop();
  await platform.destroy();
  rmSync(dir, { recursive: true, force: true });
});

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
