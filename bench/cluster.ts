import assert from 'node:assert/strict';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { Cluster } from '../src/cluster/cluster.js';
import { loadConfig } from '../src/config.js';
import { buildDist, importBuilt } from '../test/fixtures/built.js';
import { freePort } from '../test/fixtures/ports.js';
import { percentile } from '../test/fixtures/stats.js';

/**
 * Replicas behind HAProxy (issue 23), as `npm run cluster` runs them (the compiled gateway, each
 * replica, the embedded platform, redis-server and HAProxy in processes of their own, on loopback):
 *
 * - throughput and CPU per request through HAProxy with 1, 2 and 3 replicas, every feature on
 *   (rate limits with a budget that never runs out, Redis), the response cache off;
 * - the latency HAProxy adds: one request at a time, to a replica directly and through the balancer;
 * - what the shared response cache saves on a dashboard repeated through the balancer, whichever
 *   replica serves it.
 *
 *   npx tsx bench/cluster.ts     (builds `dist/` when it is stale; BENCH_SMOKE=1: a few requests)
 */
const SMOKE = process.env.BENCH_SMOKE === '1';
const SECONDS = SMOKE ? 0.5 : Number(process.env.BENCH_SECONDS ?? 8);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SEQUENTIAL = SMOKE ? 20 : 1000;
const REPLICAS = SMOKE ? [1, 2] : [1, 2, 3];
buildDist();
const { startCluster } = await importBuilt<typeof import('../src/cluster/cluster.js')>('cluster/cluster.js');

const READ = 'query BenchSpace($id: ID!) { space(id: $id) { title organization { title } } }';
const DASHBOARD = `query BenchDashboard {
  organizations(first: 5) { nodes { title members(first: 3) { nodes { role user { displayName } } } spaces(first: 5) { nodes { title } } } }
}`;

interface Running {
  cluster: Cluster;
  token: string;
  spaceId: string;
  close(): Promise<void>;
}

async function start(replicas: number, env: Record<string, string>): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-cluster-'));
  // The embedded platform reads its settings from the environment, as under `npm run cluster`.
  Object.assign(process.env, { DATA_DIR: dataDir, PLATFORM_PORT: '0', LOG_LEVEL: 'error' });
  const config = loadConfig({ ...process.env, PORT: String(await freePort()), CLUSTER_REPLICAS: String(replicas) });
  const cluster = await startCluster({ config, dir: join(dataDir, 'cluster'), log: () => {}, env });
  const token = Object.values(JSON.parse(readFileSync(cluster.demoTokensFile!, 'utf8')) as Record<string, string>)[0]!;
  const pool = new Pool(cluster.url, { connections: 1 });
  const answer = await graphql(
    pool,
    token,
    '{ spaces: organization(id: "acme") { spaces(first: 1) { nodes { platformId } } } }',
  );
  await pool.close();
  const spaceId = (answer.data as any).spaces.spaces.nodes[0].platformId as string;
  return {
    cluster,
    token,
    spaceId,
    close: async () => {
      await cluster.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function graphql(pool: Pool, token: string, query: string, variables: Record<string, unknown> = {}) {
  const params = new URLSearchParams({ query, variables: JSON.stringify(variables) });
  const response = await pool.request({
    method: 'GET',
    path: `/graphql?${params}`,
    headers: { authorization: `Bearer ${token}`, 'x-graphql-csrf': '1' },
  });
  const body = (await response.body.json()) as { data?: unknown; errors?: unknown; extensions?: any };
  assert.equal(response.statusCode, 200, JSON.stringify(body));
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body;
}

/** CPU seconds a process has used so far (user and system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** `CONCURRENCY` clients sending `READ` through the balancer for `SECONDS`: throughput, latency, CPU by process. */
async function throughput(running: Running) {
  const { cluster, token, spaceId } = running;
  const pids = {
    gateways: cluster.replicas.map((replica) => replica.supervisor.status().pid!),
    haproxy: [cluster.balancer.pid],
    platform: [cluster.platform!.status().pid!],
    redis: [cluster.redis!.pid!],
    client: [process.pid],
  };
  const cpu = () =>
    Object.fromEntries(
      Object.entries(pids).map(([name, list]) => [name, list.reduce((sum, pid) => sum + cpuSeconds(pid), 0)]),
    );
  const pool = new Pool(cluster.url, { connections: CONCURRENCY, pipelining: 1 });
  // Warm up for a second: every replica compiles its paths and fills its pools.
  const warmUntil = performance.now() + (SMOKE ? 100 : 1000);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < warmUntil) await graphql(pool, token, READ, { id: spaceId });
    }),
  );
  const latencies: number[] = [];
  const before = cpu();
  const started = performance.now();
  const end = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const sent = performance.now();
        await graphql(pool, token, READ, { id: spaceId });
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const after = cpu();
  await pool.close();
  const perRequest = (name: string) => ((after[name]! - before[name]!) / latencies.length) * 1000;
  return {
    requestsPerSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    gatewayMs: perRequest('gateways'),
    haproxyMs: perRequest('haproxy'),
    platformMs: perRequest('platform'),
    redisMs: perRequest('redis'),
    clientMs: perRequest('client'),
    coresBusy: Object.keys(pids).reduce((sum, name) => sum + (after[name]! - before[name]!), 0) / elapsed,
  };
}

/** One request at a time, to the first replica directly and through the balancer: p50 and p99 of each. */
async function balancerLatency(running: Running) {
  const { cluster, token, spaceId } = running;
  const measure = async (origin: string) => {
    const pool = new Pool(origin, { connections: 1 });
    const latencies: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i += 1) {
      const sent = performance.now();
      await graphql(pool, token, READ, { id: spaceId });
      latencies.push(performance.now() - sent);
    }
    await pool.close();
    return {
      p50: percentile(latencies.slice(SEQUENTIAL / 10), 50),
      p99: percentile(latencies.slice(SEQUENTIAL / 10), 99),
    };
  };
  const direct = await measure(`http://127.0.0.1:${cluster.replicas[0]!.port}`);
  const balanced = await measure(cluster.url);
  return { direct, balanced };
}

/** Upstream requests of `times` dashboards through the balancer (`extensions.cost.upstreamRequests`, summed). */
async function repeatedDashboard(running: Running, times: number) {
  const pool = new Pool(running.cluster.url, { connections: 3 });
  let upstream = 0;
  let hits = 0;
  for (let i = 0; i < times; i += 1) {
    const body = await graphql(pool, running.token, DASHBOARD);
    upstream += body.extensions.cost.upstreamRequests;
    if (body.extensions.responseCache?.hit) hits += 1;
  }
  await pool.close();
  return { upstream, hits };
}

const fmt = (value: number, digits = 2) => value.toFixed(digits);
console.log(
  `# bench/cluster.ts on ${cpus().length} × ${cpus()[0]?.model.trim()}, node ${process.version}${SMOKE ? ', smoke run' : ''}`,
);
console.log(
  `\n${CONCURRENCY} clients for ${SECONDS} s through HAProxy, query BenchSpace (2 upstream requests), every feature on:\n`,
);
console.log(
  '| replicas | requests/s | p50 ms | p99 ms | CPU ms/request: gateways | HAProxy | platform | Redis | load client | cores busy (of 2) |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const NO_LIMIT = { RATE_LIMIT_POINTS: '1000000000' };
let latency: Awaited<ReturnType<typeof balancerLatency>> | undefined;
let uncached: Awaited<ReturnType<typeof repeatedDashboard>> | undefined;
for (const replicas of REPLICAS) {
  const running = await start(replicas, NO_LIMIT);
  try {
    const figures = await throughput(running);
    console.log(
      `| ${replicas} | ${fmt(figures.requestsPerSecond, 0)} | ${fmt(figures.p50, 1)} | ${fmt(figures.p99, 1)} | ${fmt(figures.gatewayMs, 3)} | ${fmt(figures.haproxyMs, 3)} | ${fmt(figures.platformMs, 3)} | ${fmt(figures.redisMs, 3)} | ${fmt(figures.clientMs, 3)} | ${fmt(figures.coresBusy)} |`,
    );
    if (replicas === 1) latency = await balancerLatency(running);
    if (replicas === REPLICAS.at(-1)) uncached = await repeatedDashboard(running, 30);
  } finally {
    await running.close();
  }
}
console.log(`\nOne request at a time (${SEQUENTIAL}, the first tenth left out), 1 replica:\n`);
console.log('| to | p50 ms | p99 ms |');
console.log('|---|---:|---:|');
console.log(`| the replica directly | ${fmt(latency!.direct.p50)} | ${fmt(latency!.direct.p99)} |`);
console.log(`| through HAProxy | ${fmt(latency!.balanced.p50)} | ${fmt(latency!.balanced.p99)} |`);
console.log(
  `| HAProxy adds | ${fmt(latency!.balanced.p50 - latency!.direct.p50)} | ${fmt(latency!.balanced.p99 - latency!.direct.p99)} |`,
);

const cached = await start(REPLICAS.at(-1)!, { ...NO_LIMIT, RESPONSE_CACHE_TTL_MS: '60000' });
try {
  const shared = await repeatedDashboard(cached, 30);
  const perDashboard = uncached!.upstream / 30;
  console.log(`\nThe dashboard BenchDashboard 30 times through HAProxy, ${REPLICAS.at(-1)} replicas:\n`);
  console.log('| response cache | upstream requests | answers from the cache |');
  console.log('|---|---:|---:|');
  console.log(`| off | ${uncached!.upstream} | 0 |`);
  console.log(
    `| one per replica (each replica misses once; computed) | ${perDashboard * REPLICAS.at(-1)!} | ${30 - REPLICAS.at(-1)!} |`,
  );
  console.log(`| shared in Redis (measured) | ${shared.upstream} | ${shared.hits} |`);
  assert.equal(shared.upstream, perDashboard, 'the shared cache serves every repetition after the first');
} finally {
  await cached.close();
}
console.log('\nbench/cluster.ts done.');
process.exit(0);
