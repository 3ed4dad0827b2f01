import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../src/cluster/cluster.js';
import { loadConfig } from '../src/config.js';
import { startTestPlatform, type TestPlatform } from './fixtures/platform.js';
import { freePort } from './fixtures/ports.js';

/**
 * Three gateways behind a real HAProxy, sharing a real redis-server, as `npm run cluster` runs
 * them, in front of a test platform: what clients see while replicas die, restart and lose Redis.
 */
let platform: TestPlatform;
let cluster: Cluster;
let dir: string;
let spaceId: string;
const log: string[] = [];

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
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  await platform.destroy();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
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
 * after another each; answers every outcome.
 */
async function underLoad(kinds: Array<'read' | 'query' | 'mutation'>, during: () => Promise<void>, clients = 6) {
  const outcomes: Outcome[] = [];
  let running = true;
  const worker = async (index: number) => {
    for (let i = index; running; i += 1) outcomes.push(await send(cluster.url, kinds[i % kinds.length]!, spaceId));
  };
  const workers = Array.from({ length: clients }, (_, index) => worker(index));
  await sleep(300);
  await during();
  await sleep(300);
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

  it('loses no read when a replica is killed (kill -9) under load', async () => {
    const victim = cluster.replicas[0]!;
    const pid = victim.supervisor.status().pid!;
    const outcomes = await underLoad(['read'], async () => {
      process.kill(pid, 'SIGKILL');
      await sleep(1_500);
    });
    expect(outcomes.length).toBeGreaterThan(50);
    expect(failed(outcomes)).toEqual([]);
    // Its supervisor started it again on its port, and HAProxy has it back.
    await cluster.inRotation();
    expect(victim.supervisor.status()).toMatchObject({ state: 'running', restarts: 1 });
    expect(log.join('\n')).toMatch(/gateway gateway1 \(pid \d+\) ended: killed by SIGKILL/);
  }, 60_000);

  // Each restart waits on HAProxy's clock: 2 failed checks out, 1 s quiet, a start, 2 checks back
  // in (about 5 s on a quiet machine, twice that beside the rest of the suite).
  it('fails no operation while every replica is restarted in turn under load', async () => {
    const pids = cluster.replicas.map((replica) => replica.supervisor.status().pid);
    const outcomes = await underLoad(['read', 'query', 'mutation'], async () => {
      for (const replica of cluster.replicas) await cluster.restart(replica);
    });
    expect(failed(outcomes)).toEqual([]);
    for (const kind of ['read', 'query', 'mutation'])
      expect(outcomes.filter((o) => o.kind === kind).length).toBeGreaterThan(10);
    const now = cluster.replicas.map((replica) => replica.supervisor.status().pid);
    for (const [index, pid] of now.entries()) expect(pid).not.toBe(pids[index]);
  }, 90_000);

  it('answers no 5xx while Redis is stopped and started under load, and shares state again after', async () => {
    const redis = cluster.redis!;
    const outcomes = await underLoad(['read', 'query'], async () => {
      await redis.stop();
      await sleep(1_000);
      await redis.start();
    });
    expect(outcomes.filter((outcome) => outcome.status >= 500 || outcome.status === 0)).toEqual([]);
    expect(failed(outcomes)).toEqual([]);
    // Every replica reconnects on its own, counts what failed meanwhile, and shares again.
    for (const replica of cluster.replicas) {
      for (let waited = 0; !/^graphql_gateway_shared_state_up 1$/m.test(await metricsOf(replica.port)); waited += 100) {
        if (waited > 10_000) throw new Error(`${replica.name} did not reconnect to Redis`);
        await sleep(100);
      }
    }
    const query = `{ organization(id: "acme") { title } }`;
    const [a, b] = cluster.replicas;
    const get = (port: number) =>
      fetch(`http://127.0.0.1:${port}/graphql?query=${encodeURIComponent(query)}`, {
        headers: { authorization: authorization(), 'x-graphql-csrf': '1' },
      }).then((response) => response.json() as Promise<any>);
    await get(a!.port);
    expect((await get(b!.port)).extensions.responseCache).toEqual({ hit: true });
  }, 60_000);
});
