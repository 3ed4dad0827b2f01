import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { createServer, Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'graphql';
import { MockAgent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { operationCost } from '../src/gateway/policy/cost.js';
import { schema } from '../src/gateway/schema/index.js';
import { COST_DASHBOARD } from '../test/fixtures/dashboards.js';
import { createGateway } from '../src/gateway/http/server.js';
import { RestClient, type Exchange } from '../src/gateway/upstream/client.js';
import { reportExchanges } from '../src/gateway/upstream/hooks.js';
import { criticalPath } from '../src/gateway/upstream/critical-path.js';
import { buildDist } from '../test/fixtures/built.js';
import { freePort } from '../test/fixtures/ports.js';
import { supervisedProcess } from '../test/fixtures/processes.js';
import { percentile } from '../test/fixtures/stats.js';

/**
 * `npm run bench`: the gateway on the embedded platform (demo data, temporary database),
 * each in its own process, as in production where the API is remote.
 *
 * 1. Nested dashboard queries with a delay injected before every upstream request
 *    (BENCH_DELAY_MS, default 20): upstream requests, depth of the dependency chain, latency
 *    p50/p99 next to depth × delay.
 * 2. Overhead without delay: a one-object query through the gateway against the same REST
 *    call made directly (p50, p99, requests/s at BENCH_CONCURRENCY, default 8).
 *
 * 3. The gateway alone: the same query with upstream answers served from memory (undici
 *    MockAgent), one request at a time, so only the gateway's own work is measured; and
 *    its per-field work on a read of 440 fields (`fieldHooks`), without and with `x-explain`.
 * 4. The cost model: the time to compute `extensions.cost` of the dashboard query, next to
 *    the gateway's CPU time for the whole request (it must stay under 5 %); and the time to
 *    refuse a 1 MB query at the byte budget (413), which must stay under 100 ms (median).
 *
 * Every answer is checked, so a fast wrong answer fails the run.
 */
/**
 * BENCH_SMOKE=1: every section with a few rounds, every answer still checked; its figures mean
 * nothing. `npm test` runs it (test/bench-smoke.test.ts) so the bench cannot break unnoticed.
 */
const SMOKE = process.env.BENCH_SMOKE === '1';
/** A number of rounds or requests: `full`, or `smoke` of them in a smoke run. */
const scaled = (full: number, smoke = 2) => (SMOKE ? Math.min(full, smoke) : full);
/** The upstream delays a section measures at: all of them, or the first alone in a smoke run (the same code runs at each). */
const delays = (all: number[]) => (SMOKE ? all.slice(0, 1) : all);
// The processes it starts run the build, smoke runs too (a no-op when `dist/` is current).
buildDist();

const DELAY = Number(process.env.BENCH_DELAY_MS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? scaled(30));
const OVERHEAD_REQUESTS = Number(process.env.BENCH_REQUESTS ?? scaled(3000, 20));
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
// BENCH_ONLY=runtime,costModel runs those sections alone.

interface Running {
  graphqlUrl: string;
  restUrl: string;
  token: string;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** The embedded platform in a process of its own, as a remote API would be. */
async function startPlatformProcess(
  dataDir: string,
  delayMs: number,
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/platform/main.js'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_HOST: '127.0.0.1',
      PLATFORM_PORT: String(port),
      PLATFORM_DELAY_MS: String(delayMs),
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`platform exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Platform API on')) resolve();
    });
  });
  return {
    url: `http://127.0.0.1:${port}/v1`,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function start(delayMs: number): Promise<Running> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const platform = await startPlatformProcess(dataDir, delayMs);
  const tokens = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
  const exchanges: Exchange[] = [];
  const client = new RestClient({
    baseUrl: platform.url,
    hooks: [reportExchanges((exchange) => exchanges.push(exchange))],
  });
  const gateway = createGateway({ client, graphiql: { enabled: false } });
  const server = createServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    graphqlUrl: `http://127.0.0.1:${port}/graphql`,
    restUrl: platform.url,
    token: Object.values(tokens)[0]!,
    exchanges,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gateway.close();
      await platform.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A GraphQL POST of `body` (JSON text) to `url` as the holder of `token`: its status and its answer, read whole. */
async function postAs<A = any>(url: string, token: string, body: string): Promise<{ status: number; answer: A }> {
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  return { status: response.statusCode, answer: (await response.body.json()) as A };
}

async function graphql(run: Running, query: string, variables: Record<string, unknown> = {}) {
  const response = await request(run.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${run.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.body.json()) as { data?: any; errors?: unknown[] };
  assert.equal(response.statusCode, 200);
  assert.equal(body.errors, undefined, `errors: ${JSON.stringify(body.errors)}`);
  return body.data;
}

const ms = (value: number) => value.toFixed(1);

/** The commit the figures come from, marked when the tree has uncommitted changes. */
function revision(): string {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  try {
    const changed = git('status', '--porcelain', '--untracked-files=no') !== '';
    return `commit ${git('rev-parse', '--short=12', 'HEAD')}${changed ? ' with uncommitted changes' : ''}`;
  } catch {
    return 'no Git checkout';
  }
}

interface Scenario {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  check(data: any): void;
}

async function scenarios(run: Running): Promise<Scenario[]> {
  const seed = await graphql(
    run,
    '{ organization(id: "acme") { spaces(first: 50) { nodes { platformId title parent { platformId } } } } }',
  );
  const nested = seed.organization.spaces.nodes.find(
    (s: { parent: { platformId: string } | null }) => s.parent !== null,
  );
  assert.ok(nested, 'a demo space inside a collection');
  return [
    {
      name: 'viewer home (orgs → spaces)',
      query: `{ viewer { displayName } organizations(first: 10) { totalCount nodes { title spaces(first: 10) { totalCount nodes { title visibility } } } } }`,
      check: (data) => {
        assert.equal(data.viewer.displayName, 'Ada Lovelace');
        assert.equal(data.organizations.totalCount, 2);
        assert.ok(data.organizations.nodes.every((o: any) => o.spaces.totalCount > 0));
      },
    },
    {
      name: 'space page (space → org, collection → parent)',
      query: `query ($id: ID!) { space(id: $id) { title organization { title } parent { title parent { title } } } }`,
      variables: { id: nested.platformId },
      check: (data) => {
        assert.equal(data.space.title, nested.title);
        assert.equal(data.space.organization.title, 'Acme Docs');
        assert.ok(data.space.parent.title);
      },
    },
    {
      name: 'org dashboard (members, teams → members, collections, spaces → parent)',
      query: `{ organization(id: "acme") {
          title
          members(first: 50) { totalCount nodes { role user { displayName } } }
          teams(first: 20) { nodes { title members(first: 20) { nodes { role member { user { displayName } } } } } }
          collections(first: 50) { totalCount nodes { title parent { title } } }
          spaces(first: 50) { totalCount nodes { title parent { title } organization { platformId } } }
        } }`,
      check: (data) => {
        assert.equal(data.organization.title, 'Acme Docs');
        assert.ok(data.organization.members.totalCount >= 7);
        assert.equal(data.organization.teams.nodes.length, 3);
        assert.ok(data.organization.spaces.totalCount >= 15);
      },
    },
  ];
}

async function nestedQueries(): Promise<void> {
  for (const delay of delays([DELAY, 0])) await nestedQueriesAt(delay);
}

async function nestedQueriesAt(DELAY: number): Promise<void> {
  const run = await start(DELAY);
  try {
    console.log(`\n## Nested queries, ${DELAY} ms injected per upstream request, ${ROUNDS} rounds each\n`);
    console.log(
      '| query | upstream requests | depth | p50 ms | p99 ms | depth × delay ms | upstream time on the chain, p50 ms |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const scenario of await scenarios(run)) {
      const latencies: number[] = [];
      let requests = 0;
      let depth = 0;
      const chainBusy: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        run.exchanges.length = 0;
        const started = performance.now();
        scenario.check(await graphql(run, scenario.query, scenario.variables));
        latencies.push(performance.now() - started);
        const path = criticalPath(run.exchanges);
        chainBusy.push(path.busy);
        if (round === 0) {
          requests = run.exchanges.length;
          depth = path.depth;
        } else {
          assert.equal(path.depth, depth, `${scenario.name}: same dependency depth every time`);
          assert.equal(run.exchanges.length, requests, `${scenario.name}: same number of upstream requests every time`);
        }
      }
      console.log(
        `| ${scenario.name} | ${requests} | ${depth} | ${ms(percentile(latencies, 50))} | ${ms(percentile(latencies, 99))} | ${depth * DELAY} | ${ms(percentile(chainBusy, 50))} |`,
      );
    }
  } finally {
    await run.close();
  }
}

async function load(total: number, concurrency: number, once: () => Promise<void>) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const t0 = performance.now();
        await once();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rps: total / seconds, seconds, latencies };
}

async function overhead(): Promise<void> {
  const run = await start(0);
  try {
    const seed = await graphql(run, '{ organization(id: "acme") { spaces(first: 1) { nodes { platformId title } } } }');
    const space = seed.organization.spaces.nodes[0];
    const query = `query ($id: ID!) { space(id: $id) { platformId title visibility } }`;
    const viaGateway = async () => {
      const data = await graphql(run, query, { id: space.platformId });
      assert.equal(data.space.title, space.title);
    };
    const direct = async () => {
      const response = await request(`${run.restUrl}/spaces/${space.platformId}`, {
        headers: { authorization: `Bearer ${run.token}` },
      });
      const body = (await response.body.json()) as { title: string };
      assert.equal(response.statusCode, 200);
      assert.equal(body.title, space.title);
    };
    await load(scaled(300, 10), CONCURRENCY, viaGateway);
    await load(scaled(300, 10), CONCURRENCY, direct);
    const rest = await load(OVERHEAD_REQUESTS, CONCURRENCY, direct);
    const gql = await load(OVERHEAD_REQUESTS, CONCURRENCY, viaGateway);
    console.log(`\n## One-object query, no delay, ${OVERHEAD_REQUESTS} requests at concurrency ${CONCURRENCY}\n`);
    console.log('| path | p50 ms | p99 ms | requests/s |');
    console.log('|---|---:|---:|---:|');
    console.log(`| REST GET /v1/spaces/{id} directly | ${ms(rest.p50)} | ${ms(rest.p99)} | ${rest.rps.toFixed(0)} |`);
    console.log(`| GraphQL space(id) through the gateway | ${ms(gql.p50)} | ${ms(gql.p99)} | ${gql.rps.toFixed(0)} |`);
    console.log(`| gateway overhead | ${ms(gql.p50 - rest.p50)} | ${ms(gql.p99 - rest.p99)} | |`);
  } finally {
    await run.close();
  }
}

/** A space as the platform answers it, for the sections that serve the upstream from memory. */
const MEMORY_SPACE = {
  object: 'space',
  id: 's1',
  title: 'Getting started',
  emoji: '',
  visibility: 'public',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  mergeRules: { type: 'inherit' },
  urls: { location: 'http://upstream.test/v1/spaces/s1', app: 'http://app.test/s/s1' },
  organization: 'o1',
  revision: 'r1',
  defaultLevel: 'inherit',
  comments: 0,
  changeRequests: 0,
  changeRequestsOpen: 0,
  changeRequestsDraft: 0,
  permissions: Object.fromEntries(
    [
      'view',
      'access',
      'admin',
      'viewInviteLinks',
      'edit',
      'triggerGitSync',
      'comment',
      'merge',
      'review',
      'installIntegration',
    ].map((flag) => [flag, flag === 'view' || flag === 'access']),
  ),
};

/** A gateway whose one upstream answer, `GET /v1/spaces/s1`, comes from memory (undici MockAgent). */
function memoryGateway() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get('http://upstream.test')
    .intercept({ path: '/v1/spaces/s1', method: 'GET' })
    .reply(200, MEMORY_SPACE)
    .persist();
  const gateway = createGateway({
    client: new RestClient({ baseUrl: 'http://upstream.test/v1', dispatcher: agent }),
    graphiql: { enabled: false },
  });
  return {
    gateway,
    close: async () => {
      await gateway.close();
      await agent.close();
    },
  };
}

/** The gateway alone: upstream answers come from memory (undici MockAgent), one request at a time. */
async function gatewayAlone(): Promise<void> {
  const { gateway, close } = memoryGateway();
  const body = JSON.stringify({
    query: 'query ($id: ID!) { space(id: $id) { platformId title visibility } }',
    variables: { id: 's1' },
  });
  const once = async () => {
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body,
    });
    const result = (await response.json()) as { data?: { space: { title: string } }; errors?: unknown };
    assert.equal(result.errors, undefined);
    assert.equal(result.data?.space.title, 'Getting started');
  };
  await load(scaled(500, 10), 1, once);
  const alone = await load(OVERHEAD_REQUESTS, 1, once);
  await close();
  console.log(`\n## The gateway alone, upstream in memory, ${OVERHEAD_REQUESTS} requests one at a time\n`);
  console.log('| query | p50 ms | p99 ms | requests/s |');
  console.log('|---|---:|---:|---:|');
  console.log(
    `| space(id) { platformId title visibility } | ${ms(alone.p50)} | ${ms(alone.p99)} | ${alone.rps.toFixed(0)} |`,
  );
}

/**
 * The gateway's per-field work (`BENCH_ONLY=fieldHooks`): a read of 40 aliases of one space, ten
 * fields each (440 fields resolved, one upstream request, answered from memory), one at a
 * time, with and without `x-explain`. CPU of this process per read, median of 7 runs.
 */
async function fieldHooks(): Promise<void> {
  const { gateway, close } = memoryGateway();
  const aliases = Array.from(
    { length: 40 },
    (_, index) =>
      `s${index}: space(id: $id) { id platformId title emoji visibility createdAt updatedAt organization { id platformId } }`,
  );
  const body = JSON.stringify({ query: `query ($id: ID!) { ${aliases.join(' ')} }`, variables: { id: 's1' } });
  const read = async (explain: boolean) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', authorization: 'Bearer t' };
    if (explain) headers['x-explain'] = '1';
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', { method: 'POST', headers, body });
    const result = (await response.json()) as {
      data?: Record<string, { title: string }>;
      errors?: unknown;
      extensions?: { explain?: { requests: unknown[] } };
    };
    assert.equal(result.errors, undefined);
    assert.equal(result.data?.s39?.title, 'Getting started');
    assert.equal(result.extensions?.explain?.requests.length, explain ? 1 : undefined);
  };
  const reads = scaled(300, 5);
  const runs = scaled(7, 1);
  const cpuPerRead = async (explain: boolean) => {
    const perRead: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const cpu = process.cpuUsage();
      for (let index = 0; index < reads; index += 1) await read(explain);
      const used = process.cpuUsage(cpu);
      perRead.push((used.user + used.system) / 1000 / reads);
    }
    return percentile(perRead, 50);
  };
  for (let index = 0; index < scaled(200, 2); index += 1) await read(index % 2 === 0);
  const plain = await cpuPerRead(false);
  const explained = await cpuPerRead(true);
  await close();
  console.log(
    `\n## Per-field work: 40 aliases × 10 fields of one space (440 fields), ${reads} reads one at a time, median of ${runs} runs\n`,
  );
  console.log('| read | CPU per read | per field |');
  console.log('|---|---:|---:|');
  console.log(`| without \`x-explain\` | ${plain.toFixed(3)} ms | ${((plain * 1000) / 440).toFixed(2)} µs |`);
  console.log(`| with \`x-explain: 1\` | ${explained.toFixed(3)} ms | ${((explained * 1000) / 440).toFixed(2)} µs |`);
}

/**
 * The time a 1 MB query takes to be refused at the byte budget (413, `PAYLOAD_TOO_LARGE`) through
 * the gateway's `fetch`, median of `rounds`: the refusal reads the limit and nothing parses it, so
 * its time must not grow with the query (it took 20.7 s for 100 KB before the secret redaction of
 * errors was made linear). Tests check that the refusal comes from the bound; its time is here.
 */
async function oneMegabyteRefusal(rounds: number): Promise<number> {
  // Nothing listens there: a refusal never reaches the upstream.
  const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: false } });
  const limit = 1024 * 1024;
  const body = JSON.stringify({ query: 'x'.repeat(limit) });
  const times: number[] = [];
  try {
    for (let round = 0; round < rounds; round += 1) {
      const started = performance.now();
      const response = await gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      const answer = (await response.json()) as { errors: Array<{ extensions: Record<string, unknown> }> };
      times.push(performance.now() - started);
      assert.equal(response.status, 413);
      assert.deepEqual(answer.errors[0]!.extensions, { code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE', limit });
    }
  } finally {
    await gateway.close();
  }
  return percentile(times, 50);
}

/**
 * The share of the gateway's time spent computing the cost of an operation, against the CPU time of
 * the gateway process per dashboard request (platform in its own process, no delay); and the time
 * to refuse a 1 MB query. `operationCost` keeps what it computed per document object (the parser's
 * cache hands the gateway the same one for the same text), so it is timed two ways: the walk, on
 * documents it has not seen (the same text parsed anew each time, outside the timing: a first
 * request of that text), and the lookup of a cost computed before (the same document and
 * variables again: every later request of that text). The target holds the walk.
 */
async function costModel(): Promise<void> {
  const document = parse(COST_DASHBOARD);
  const cost = operationCost(schema, document, undefined, {});
  assert.deepEqual(cost, {
    nodes: 6050,
    maxUpstreamRequests: 10101,
    followRequests: 0,
    depth: 6,
    aliases: 0,
    rootFields: 1,
    estimated: false,
    introspection: false,
  });
  const timedWalks = scaled(2000, 20);
  const warmWalks = scaled(500, 5);
  const unseen = Array.from({ length: warmWalks + timedWalks }, () => parse(COST_DASHBOARD));
  for (const fresh of unseen.slice(0, warmWalks)) operationCost(schema, fresh, undefined, {});
  let started = performance.now();
  for (const fresh of unseen.slice(warmWalks)) operationCost(schema, fresh, undefined, {});
  const walkMs = (performance.now() - started) / timedWalks;
  assert.deepEqual(operationCost(schema, unseen.at(-1)!, undefined, {}), cost);
  const lookups = scaled(20_000, 200);
  for (let index = 0; index < scaled(2000, 20); index += 1) operationCost(schema, document, undefined, {});
  started = performance.now();
  for (let index = 0; index < lookups; index += 1) operationCost(schema, document, undefined, {});
  const lookupMs = (performance.now() - started) / lookups;

  const run = await start(0);
  try {
    const check = (data: any) => {
      assert.equal(data.organizations.nodes.length, 2);
      assert.ok(data.organizations.nodes[0].spaces.nodes.length >= 15);
    };
    for (let index = 0; index < scaled(50); index += 1) check(await graphql(run, COST_DASHBOARD));
    const requests = scaled(300, 5);
    const cpu = process.cpuUsage();
    for (let index = 0; index < requests; index += 1) check(await graphql(run, COST_DASHBOARD));
    const used = process.cpuUsage(cpu);
    const cpuMs = (used.user + used.system) / 1000 / requests;
    const share = (walkMs / cpuMs) * 100;
    const refusalRounds = scaled(100, 3);
    const refusalMs = await oneMegabyteRefusal(refusalRounds);
    console.log(`\n## The cost model on the dashboard (orgs 50 → spaces 100 with 2 links, members 20)\n`);
    console.log('| measure | value |');
    console.log('|---|---:|');
    console.log(
      `| the walk: nodes and maxUpstreamRequests of a document not seen before (${timedWalks} distinct parses of the text) | ${(walkMs * 1000).toFixed(1)} µs |`,
    );
    console.log(
      `| the lookup: the same document and variables again (the cost kept per document), per request | ${(lookupMs * 1000).toFixed(1)} µs |`,
    );
    console.log(`| gateway process CPU per dashboard request (its text seen before: a lookup) | ${ms(cpuMs)} ms |`);
    console.log(
      `| share of the walk in that CPU | ${share.toFixed(2)} % (target < 5 %: ${verdict(share, 5, (value) => `${value.toFixed(2)} points`)}) |`,
    );
    console.log(`| share of the lookup in that CPU | ${((lookupMs / cpuMs) * 100).toFixed(2)} % |`);
    console.log(
      `| refusing a 1 MB query at the byte budget (413), median of ${refusalRounds} | ${ms(refusalMs)} ms (target < 100 ms) |`,
    );
    against(
      'cost model: the walk of an unseen dashboard, share of the CPU of its request',
      share,
      5,
      (value) => `${value.toFixed(2)} %`,
    );
    against('cost model: refusing a 1 MB query (413), median', refusalMs, 100, (value) => `${ms(value)} ms`);
    // A smoke run checks the answers only: its times are those of a machine busy with the whole suite.
    if (!SMOKE) assert.ok(refusalMs < 100, `a 1 MB query took ${ms(refusalMs)} ms (median) to be refused`);
  } finally {
    await run.close();
  }
}

/** Resident memory of a process, in MB (Linux). */
function residentMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) / 1024;
}

/** CPU time (user + system) a process has used, in ms (Linux, clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The node flags `npm start` gives its process (package.json `scripts.start`), or
 * BENCH_GATEWAY_NODE_OPTIONS instead when set: its supervisor passes them on to the gateway's
 * process, with the heap limit `GATEWAY_HEAP_MB` gives it (in place of any other).
 */
function startFlags(): string[] {
  if (process.env.BENCH_GATEWAY_NODE_OPTIONS) return process.env.BENCH_GATEWAY_NODE_OPTIONS.split(' ').filter(Boolean);
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** The node flags of the gateway's process under `npm start`. */
function gatewayFlags(): string[] {
  return [
    ...startFlags().filter((flag) => !flag.startsWith('--max-old-space-size')),
    `--max-old-space-size=${loadConfig().GATEWAY_HEAP_MB}`,
  ];
}

/**
 * The compiled gateway as `npm start` runs it in front of `upstreamUrl` (`UPSTREAM_URL`): in a process of its own,
 * under its supervisor, which passes `nodeFlags` (after `npm start`'s) on to the gateway's process.
 */
async function startGatewayProcess(
  upstreamUrl: string,
  settings: Record<string, string> = {},
  nodeFlags: string[] = [],
): Promise<{ url: string; pid: number; readyMs: number; stop(): Promise<void> }> {
  const port = await freePort();
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [...startFlags(), ...nodeFlags, 'dist/main.js'], {
    env: {
      ...process.env,
      UPSTREAM_URL: upstreamUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      // Rate limits on, as `npm start` has them, with a budget no run spends: their cost is measured, never a refusal.
      RATE_LIMIT_POINTS: process.env.BENCH_RATE_LIMIT_POINTS ?? '1000000000',
      ...settings,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const answered = await request(`${url}/health`).then(
      async (response) => {
        await response.body.dump();
        return response.statusCode === 200;
      },
      () => false,
    );
    if (answered) break;
    if (child.exitCode !== null) throw new Error(`the gateway exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return {
    url: `${url}/graphql`,
    // Memory and CPU are the gateway's process's, not its supervisor's.
    pid: supervisedProcess(child.pid!, 'gateway')!.pid,
    readyMs: performance.now() - started,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The production runtime: the compiled gateway alone in its process (as `npm start` runs it in
 * front of a remote API), with the platform in another. Ready time, resident memory idle and
 * after 10,000 and 20,000 one-object reads, and the gateway process's CPU per request.
 */
async function runtime(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const platform = await startPlatformProcess(dataDir, 0);
  const token = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
  )[0]!;
  const readies: number[] = [];
  for (let attempt = 0; attempt < scaled(4, 1); attempt += 1) {
    const probe = await startGatewayProcess(platform.url);
    readies.push(probe.readyMs);
    await probe.stop();
  }
  const gateway = await startGatewayProcess(platform.url);
  try {
    const run: Running = {
      graphqlUrl: gateway.url,
      restUrl: platform.url,
      token,
      exchanges: [],
      close: async () => undefined,
    };
    const seed = await graphql(run, '{ organization(id: "acme") { spaces(first: 1) { nodes { platformId title } } } }');
    const space = seed.organization.spaces.nodes[0];
    await new Promise((resolve) => setTimeout(resolve, 500));
    const idle = residentMb(gateway.pid);
    const query = `query ($id: ID!) { space(id: $id) { platformId title visibility } }`;
    const once = async () => {
      const data = await graphql(run, query, { id: space.platformId });
      assert.equal(data.space.title, space.title);
    };
    // The first 2,000 requests warm the JIT up; CPU is counted over the 18,000 after them.
    const warmUp = scaled(2000, 20);
    const half = scaled(10_000, 40);
    await load(warmUp, 16, once);
    const cpuBefore = cpuMs(gateway.pid);
    const first = await load(half - warmUp, 16, once);
    const atHalf = residentMb(gateway.pid);
    const second = await load(half, 16, once);
    const atEnd = residentMb(gateway.pid);
    const cpuPerRequest = (cpuMs(gateway.pid) - cpuBefore) / (2 * half - warmUp);
    console.log(`\n## Production runtime: the compiled gateway alone, in its own process\n`);
    console.log('| measure | value | target |');
    console.log('|---|---:|---:|');
    console.log(
      `| ready after start (spawn to first /health answer), median of 5 | ${ms(percentile([...readies, gateway.readyMs], 50))} ms | ≤ 1000 ms |`,
    );
    console.log(`| resident memory, idle | ${idle.toFixed(0)} MB | ≤ 120 MB |`);
    console.log(`| resident memory after 10,000 requests | ${atHalf.toFixed(0)} MB | |`);
    console.log(
      `| resident memory after 20,000 requests | ${atEnd.toFixed(0)} MB | ≤ 160 MB, no growth after 10,000 |`,
    );
    console.log(
      `| gateway CPU per one-object read (concurrency 16, after 2,000 to warm up) | ${cpuPerRequest.toFixed(3)} ms | ≤ 0.30 ms |`,
    );
    const mb = (value: number) => `${value.toFixed(0)} MB`;
    against(
      'runtime: ready after start, median of 5',
      percentile([...readies, gateway.readyMs], 50),
      1000,
      (value) => `${ms(value)} ms`,
    );
    against('runtime: resident memory, idle', idle, 120, mb);
    against('runtime: resident memory after 20,000 reads', atEnd, 160, mb);
    against('runtime: gateway CPU per one-object read', cpuPerRequest, 0.3, (value) => `${value.toFixed(3)} ms`);
    console.log(
      `| throughput at concurrency 16, second half | ${second.rps.toFixed(0)} requests/s (first half ${first.rps.toFixed(0)}) | |`,
    );

    // The org dashboard, one at a time: the gateway's CPU for a whole nested query.
    const dashboard = (await scenarios(run)).find((scenario) => scenario.name.startsWith('org dashboard'))!;
    for (let index = 0; index < scaled(100); index += 1)
      dashboard.check(await graphql(run, dashboard.query, dashboard.variables));
    const dashboards = scaled(500);
    const dashboardCpu = cpuMs(gateway.pid);
    for (let index = 0; index < dashboards; index += 1)
      dashboard.check(await graphql(run, dashboard.query, dashboard.variables));
    console.log(
      `| gateway CPU per org dashboard (8 upstream requests, one at a time) | ${((cpuMs(gateway.pid) - dashboardCpu) / dashboards).toFixed(2)} ms | half the figure before |`,
    );

    // The platform's own time for a page of 100 spaces, as a reader (roles computed per space).
    for (let index = 0; index < 100; index += 1) {
      const created = await request(`${platform.url}/orgs/acme/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Bench space ${index}` }),
      });
      assert.equal(created.statusCode, 201);
      await created.body.dump();
    }
    const reader = Object.entries(
      JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
    ).find(([email]) => email.startsWith('finn@'))![1];
    const list = async () => {
      const response = await request(`${platform.url}/orgs/acme/spaces?limit=100`, {
        headers: { authorization: `Bearer ${reader}` },
      });
      const body = (await response.body.json()) as { items: unknown[] };
      assert.equal(response.statusCode, 200);
      assert.equal(body.items.length, 100);
    };
    for (let index = 0; index < scaled(100); index += 1) await list();
    const lists = scaled(500);
    const platformCpu = cpuMs(platform.pid);
    for (let index = 0; index < lists; index += 1) await list();
    const perPage = (cpuMs(platform.pid) - platformCpu) / lists;
    console.log(
      `| platform CPU per page of 100 spaces (a reader: roles per space) | ${perPage.toFixed(2)} ms | ≤ 1 ms |`,
    );
    against('runtime: platform CPU per page of 100 spaces', perPage, 1, (value) => `${value.toFixed(2)} ms`);
  } finally {
    await gateway.stop();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A stand-in OTLP/HTTP collector (JSON, as the gateway exports): takes every export, keeps the count of spans by name. */
async function startTraceReceiver(): Promise<{
  url: string;
  batches(): number;
  spans(name?: string): number;
  stop(): Promise<void>;
}> {
  let batches = 0;
  const byName = new Map<string, number>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.once('end', () => {
      if (incoming.url === '/v1/traces') {
        batches += 1;
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: { scopeSpans: { spans: { name: string }[] }[] }[];
        };
        for (const resource of body.resourceSpans)
          for (const scope of resource.scopeSpans)
            for (const span of scope.spans) byName.set(span.name, (byName.get(span.name) ?? 0) + 1);
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    batches: () => batches,
    spans: (name) => (name ? (byName.get(name) ?? 0) : [...byName.values()].reduce((sum, count) => sum + count, 0)),
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Node flags of the processes the floor section measures: `bench/gc-share.ts` (the GC pauses of the
 * process, written to BENCH_GC_DIR), and with BENCH_CPU_PROF=<dir> a V8 CPU profile of each, written
 * there when it stops (`npx tsx bench/profile.ts <file>` says where its time went). A profile
 * costs CPU: the figures of such a run are not comparable with others.
 */
const GC_SHARE = [
  '--import',
  fileURLToPath(new URL('./gc-share.ts', import.meta.url)),
  ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
];

/**
 * The GC pauses of process `pid` so far, in ms, and the bytes it allocated on its heap: asked of
 * `bench/gc-share.ts` (SIGUSR2), read from what it writes.
 */
async function gcReading(dir: string, pid: number): Promise<{ pauseMs: number; allocatedBytes: number }> {
  const read = () => {
    try {
      return JSON.parse(readFileSync(join(dir, `${pid}.json`), 'utf8')) as {
        pauseMs: number;
        allocatedBytes: number;
        asked: number;
      };
    } catch {
      return undefined;
    }
  };
  const before = read()?.asked ?? 0;
  process.kill(pid, 'SIGUSR2');
  for (let wait = 0; wait < 500; wait += 1) {
    const now = read();
    if (now && now.asked > before) return now;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { pauseMs: Number.NaN, allocatedBytes: Number.NaN };
}

/** The floor of a JavaScript gateway (`bench/floor.ts`) in a process of its own, in front of `upstreamUrl`. */
async function startFloorProcess(
  upstreamUrl: string,
  { yoga = false, env = {} as Record<string, string> } = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  // The floor is not compiled with the project: tsx loads it (its cost is at load, none per request).
  const args = [...gatewayFlags(), ...GC_SHARE, '--import', 'tsx', 'bench/floor.ts', ...(yoga ? ['--yoga'] : [])];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, UPSTREAM_URL: upstreamUrl, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the floor exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      const listening = /Floor gateway on (\S+)/.exec(chunk.toString());
      if (listening) resolve(listening[1]!);
    });
  });
  child.removeAllListeners('exit');
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Wall time of a fixed CPU-bound loop, in ms: how fast this machine is, to read absolute figures across runs. */
function calibrationMs(): number {
  let value = 0;
  const started = performance.now();
  for (let index = 0; index < 1e8; index += 1) value = (value * 31 + index) | 0;
  const took = performance.now() - started;
  // Used, so that the loop is not optimized away.
  return value === 0.5 ? 0 : took;
}

/** A figure against the most it may be, as the summary and the floor's table say it: met, or missed by how much. */
function verdict(value: number, max: number, format: (value: number) => string): string {
  return value <= max ? 'met' : `missed by ${format(value - max)} (${((value / max - 1) * 100).toFixed(0)} % over)`;
}

/** The targets this run measured, each with its figure: the summary it ends with (`npm run bench:readme` writes it). */
const summary: { measure: string; figure: string; target: string; verdict: string }[] = [];

/** Notes `value` against its target (at most `max`) for the summary; returns the verdict. */
function against(measure: string, value: number, max: number, format: (value: number) => string): string {
  const said = verdict(value, max, format);
  summary.push({ measure, figure: format(value), target: `≤ ${format(max)}`, verdict: said });
  return said;
}

/**
 * Issue 35's yardstick, in one run: the floor of a JavaScript gateway (`bench/floor.ts`: a bare
 * `node:http` server running graphql-js with parse and validation cached, one undici Pool), bare
 * yoga over the same schema, and the compiled gateway with production settings (persisted
 * operations only, the response cache on with every read a miss, metrics, logs at info, request
 * ids, rate limits, traces exported at `parentbased_traceidratio` 0.1), the same with every span
 * exported, and the same answering from the response cache: each in its own process in front of
 * one platform process, on the same one-object read at concurrency 16, sent as a persisted id by
 * all. They are measured in alternate rounds, so the machine's noise falls on all; CPU per read
 * is each process's own CPU over its measured requests, and its GC share the pauses `perf_hooks`
 * saw (`bench/gc-share.ts`) over that CPU. Then the cost dashboard (`test/fixtures/dashboards.ts`)
 * through the production gateway, one at a time: its CPU per upstream request.
 */
async function floor(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const workDir = mkdtempSync(join(tmpdir(), 'gateway-bench-floor-'));
  const platform = await startPlatformProcess(dataDir, 0);
  const token = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
  )[0]!;
  const READ = 'query SpaceRead($id: ID!) { space(id: $id) { platformId title visibility } }';
  const readId = createHash('sha256').update(READ).digest('hex');
  const dashboardId = createHash('sha256').update(COST_DASHBOARD).digest('hex');
  const manifest = join(workDir, 'persisted-operations.json');
  writeFileSync(manifest, JSON.stringify({ [readId]: READ, [dashboardId]: COST_DASHBOARD }));
  const common = { BENCH_GC_DIR: workDir, PERSISTED_OPERATIONS_FILE: manifest };
  const receivers = await Promise.all([startTraceReceiver(), startTraceReceiver(), startTraceReceiver()]);
  const [sampledTraces, allTraces, hitTraces] = receivers as [
    Awaited<ReturnType<typeof startTraceReceiver>>,
    Awaited<ReturnType<typeof startTraceReceiver>>,
    Awaited<ReturnType<typeof startTraceReceiver>>,
  ];
  const productionSettings = (traces: { url: string }, ratio: string) => ({
    ...common,
    PERSISTED_ONLY: '1',
    // Every read of the production gateway sends variables of its own (below): a miss, kept as any answer.
    RESPONSE_CACHE_TTL_MS: '3600000',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: traces.url,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: ratio,
    // Batches leave every 500 ms (5 s by default), so even a smoke run's few reads are exported.
    OTEL_BSP_SCHEDULE_DELAY: '500',
    // Every read here is the same object at concurrency 16: shared in flight (`UPSTREAM_DEDUPE`), most would not
    // reach the platform, and the gateway would be measured on other work than the floor's. Its section below.
    UPSTREAM_DEDUPE: '0',
  });
  // `upstream`: the upstream requests a gateway's answer must report (none for a response-cache hit);
  // `hits`: every read after the first sends the same variables, and is answered from the cache.
  type Server = {
    name: string;
    short: string;
    url: string;
    pid: number;
    upstream?: number;
    hits?: boolean;
    reads: number;
    stop(): Promise<void>;
  };
  const servers: Server[] = [];
  try {
    // Started together: a smoke run spends its time on starts.
    const started = await Promise.all([
      startFloorProcess(platform.url, { env: common }),
      startFloorProcess(platform.url, { yoga: true, env: common }),
      startGatewayProcess(platform.url, productionSettings(sampledTraces, '0.1'), GC_SHARE),
      startGatewayProcess(platform.url, productionSettings(allTraces, '1'), GC_SHARE),
      startGatewayProcess(platform.url, productionSettings(hitTraces, '0.1'), GC_SHARE),
    ]);
    const described: Omit<Server, 'url' | 'pid' | 'stop' | 'reads'>[] = [
      { name: 'floor: `node:http` + graphql-js + one undici Pool (`bench/floor.ts`)', short: 'floor' },
      { name: 'bare graphql-yoga over the same schema (`bench/floor.ts --yoga`)', short: 'yoga' },
      {
        name: 'this gateway, compiled, production settings, traces at `parentbased_traceidratio` 0.1, every read a response-cache miss',
        short: 'production',
        upstream: 1,
      },
      { name: 'the same, every span exported (ratio 1)', short: 'all spans', upstream: 1 },
      { name: 'the same as production, every read a response-cache hit', short: 'cache hits', upstream: 0, hits: true },
    ];
    for (const [index, server] of described.entries()) servers.push({ ...server, ...started[index]!, reads: 0 });
    const listed = await request(`${platform.url}/orgs/acme/spaces?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const seed = ((await listed.body.json()) as { items: { id: string; title: string; visibility: string }[] })
      .items[0]!;
    const visibility = seed.visibility.toUpperCase().replace('-', '_');
    const expected = { space: { platformId: seed.id, title: seed.title, visibility } };
    const hitBody = JSON.stringify({ documentId: readId, variables: { id: seed.id } });
    // Each read but the cache's hits sends a variable of its own that the operation does not declare
    // (GraphQL ignores it): the response cache, keyed by the variables, then never answers it.
    let sequence = 0;
    const read = (server: Server) => async () => {
      server.reads += 1;
      sequence += 1;
      const body = server.hits
        ? hitBody
        : JSON.stringify({ documentId: readId, variables: { id: seed.id, read: sequence } });
      const { status, answer } = await postAs<{
        data?: unknown;
        errors?: unknown;
        extensions?: { cost?: { upstreamRequests: number }; responseCache?: { hit?: boolean } };
      }>(server.url, token, body);
      assert.equal(status, 200, JSON.stringify(answer));
      // The same data from all, with no error; the gateway adds its cost, where one upstream request is due.
      assert.equal(answer.errors, undefined);
      assert.deepEqual(answer.data, expected);
      if (server.upstream !== undefined) {
        assert.equal(answer.extensions?.cost?.upstreamRequests, server.upstream);
        assert.equal(answer.extensions?.responseCache?.hit === true, server.upstream === 0);
      }
    };

    const rounds = scaled(6);
    const perRound = scaled(4000, 20);
    // Long enough for the JIT to settle, and in reverse order: the first round measures the floor
    // first, and a floor left idle for the gateways' warm-up (over 5 s, past keep-alive) paid for new
    // connections in that round (0.08 ms per read against 0.06 after).
    for (const server of [...servers].reverse()) {
      // The first read of the cached gateway goes upstream; the rest are hits.
      if (server.hits) {
        assert.equal((await postAs(server.url, token, hitBody)).status, 200);
      }
      await load(scaled(10_000, 20), 16, read(server));
    }
    const measured = servers.map(() => ({
      cpu: [] as number[],
      platformCpu: 0,
      seconds: 0,
      latencies: [] as number[],
    }));
    // The GC pauses and CPU of each process over all its rounds (the time between them is idle).
    const gcBefore: { pause: number; allocated: number; cpu: number }[] = [];
    for (const server of servers) {
      const reading = await gcReading(workDir, server.pid);
      gcBefore.push({ pause: reading.pauseMs, allocated: reading.allocatedBytes, cpu: cpuMs(server.pid) });
    }
    for (let round = 0; round < rounds; round += 1) {
      // Forward then backward, so none always follows the same one (its garbage collection, its sockets).
      const order = servers.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const server = servers[index]!;
        const before = cpuMs(server.pid);
        const platformBefore = cpuMs(platform.pid);
        const result = await load(perRound, 16, read(server));
        measured[index]!.cpu.push((cpuMs(server.pid) - before) / perRound);
        measured[index]!.platformCpu += cpuMs(platform.pid) - platformBefore;
        measured[index]!.seconds += result.seconds;
        measured[index]!.latencies.push(...result.latencies);
      }
    }
    const gcShare: number[] = [];
    const allocatedPerRead: number[] = [];
    for (const [index, server] of servers.entries()) {
      const reading = await gcReading(workDir, server.pid);
      gcShare.push((reading.pauseMs - gcBefore[index]!.pause) / (cpuMs(server.pid) - gcBefore[index]!.cpu));
      allocatedPerRead.push((reading.allocatedBytes - gcBefore[index]!.allocated) / (rounds * perRound));
    }

    // The cost dashboard through the production gateway, one at a time, each a miss.
    const gateway = servers[2]!;
    let dashboardUpstream = 0;
    const dashboard = async () => {
      sequence += 1;
      const { status, answer } = await postAs<{
        data?: any;
        errors?: unknown;
        extensions?: { cost?: { upstreamRequests: number } };
      }>(gateway.url, token, JSON.stringify({ documentId: dashboardId, variables: { read: sequence } }));
      assert.equal(status, 200);
      assert.equal(answer.errors, undefined);
      assert.equal(answer.data.organizations.nodes.length, 2);
      assert.ok(answer.data.organizations.nodes[0].spaces.nodes.length >= 15);
      const upstream = answer.extensions?.cost?.upstreamRequests ?? 0;
      assert.ok(upstream > 0);
      if (dashboardUpstream) assert.equal(upstream, dashboardUpstream, 'the same upstream requests every time');
      dashboardUpstream = upstream;
    };
    for (let index = 0; index < scaled(100); index += 1) await dashboard();
    const dashboards = scaled(500);
    const dashboardCpuBefore = cpuMs(gateway.pid);
    for (let index = 0; index < dashboards; index += 1) await dashboard();
    const dashboardCpu = (cpuMs(gateway.pid) - dashboardCpuBefore) / dashboards;

    // The last batches may still be on their way (a smoke run lasts less than the batch delay; on a
    // machine busy with the whole test suite, as long as it takes).
    for (let wait = 0; (SMOKE || wait < 50) && allTraces.batches() === 0; wait += 1)
      await new Promise((ok) => setTimeout(ok, 100));
    await new Promise((resolve) => setTimeout(resolve, SMOKE ? 0 : 1500));
    assert.ok(allTraces.batches() > 0, 'the gateway with every span exported exported some');
    const figures = measured.map((m) => ({
      cpu: m.cpu.reduce((sum, value) => sum + value, 0) / rounds,
      platformCpu: m.platformCpu / (rounds * perRound),
      rps: (rounds * perRound) / m.seconds,
      p50: percentile(m.latencies, 50),
      p99: percentile(m.latencies, 99),
    }));
    const traceReceivers = [undefined, undefined, sampledTraces, allTraces, hitTraces];
    // Operations traced per read: the operation's span is the trace's root, one per trace kept.
    const traced = servers.map((server, index) => {
      const receiver = traceReceivers[index];
      return receiver ? receiver.spans('query SpaceRead') / server.reads : undefined;
    });
    const spansPerRead = servers.map((server, index) => {
      const receiver = traceReceivers[index];
      return receiver ? receiver.spans() / server.reads : undefined;
    });
    // Past warm-up, the production ratio must show: about a tenth of the reads traced.
    if (!SMOKE) assert.ok(traced[2]! > 0.05 && traced[2]! < 0.15, `production traced ${traced[2]} of its reads`);
    const base = figures[0]!;
    const times = (value: number) => `${value.toFixed(2)}×`;
    const msOf = (digits: number) => (value: number) => `${value.toFixed(digits)} ms`;
    console.log(
      `\n## The floor of a JavaScript gateway and the gateway with production settings: \`space(id:) { platformId title visibility }\` as a persisted id, concurrency 16, ${rounds} alternate rounds of ${perRound} reads each\n`,
    );
    // The platform's CPU per read shows each makes the one upstream request.
    console.log(
      '| server | CPU per read | CPU × floor | requests/s | p50 ms | p99 ms | p99 × floor | GC share of CPU | heap allocated per read | platform CPU per read | traces / spans exported per read |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    servers.forEach((server, index) => {
      const f = figures[index]!;
      const cpuRatio = index === 0 ? '' : times(f.cpu / base.cpu);
      const p99Ratio = index === 0 ? '' : times(f.p99 / base.p99);
      const spans =
        traced[index] === undefined ? '' : `${traced[index]!.toFixed(3)} / ${spansPerRead[index]!.toFixed(2)}`;
      console.log(
        `| ${server.name} | ${f.cpu.toFixed(3)} ms | ${cpuRatio} | ${f.rps.toFixed(0)} | ${ms(f.p50)} | ${ms(f.p99)} | ${p99Ratio} | ${(gcShare[index]! * 100).toFixed(1)} % | ${(allocatedPerRead[index]! / 1024).toFixed(1)} KiB | ${f.platformCpu.toFixed(3)} ms | ${spans} |`,
      );
    });
    const [production, all, hits] = [figures[2]!, figures[3]!, figures[4]!];
    // The absolute targets (a cache hit, a dashboard) were set on a machine where the floor took 0.065–0.077 ms:
    // in floors, they read the same on any machine.
    console.log(
      `\nThis machine: a fixed loop of 10^8 iterations takes ${calibrationMs().toFixed(0)} ms; the floor's CPU per read is ${base.cpu.toFixed(3)} ms. In floors: a response-cache hit ${(hits.cpu / base.cpu).toFixed(2)} (its target, 0.10 ms against issue 20's 0.071 ms floor: 1.41), a dashboard's upstream request ${(dashboardCpu / dashboardUpstream / base.cpu).toFixed(2)} (target 0.15 ms: 2.11).`,
    );
    const perUpstream = dashboardCpu / dashboardUpstream;
    const targets: { measure: string; value: number; max: number; format(value: number): string }[] = [
      { measure: 'production gateway, CPU per read × floor', value: production.cpu / base.cpu, max: 2, format: times },
      { measure: 'production gateway, p99 × floor', value: production.p99 / base.p99, max: 2, format: times },
      { measure: 'every span exported, CPU per read × floor', value: all.cpu / base.cpu, max: 3, format: times },
      { measure: 'response-cache hit, CPU per read', value: hits.cpu, max: 0.1, format: msOf(3) },
      { measure: 'response-cache hit, p50', value: hits.p50, max: 1, format: msOf(2) },
      {
        measure: `cost dashboard (${dashboardUpstream} upstream requests, ${msOf(2)(dashboardCpu)} of gateway CPU, one at a time), CPU per upstream request`,
        value: perUpstream,
        max: 0.15,
        format: msOf(3),
      },
    ];
    console.log('\n| target (issue 35) | figure | target | |');
    console.log('|---|---:|---:|---|');
    for (const target of targets) {
      const said = against(`floor: ${target.measure}`, target.value, target.max, target.format);
      console.log(`| ${target.measure} | ${target.format(target.value)} | ≤ ${target.format(target.max)} | ${said} |`);
    }
    // Round by round, so a drift (warm-up still going, a heap that grows) shows next to the noise.
    const byRound = measured.map(
      (m, index) => `${servers[index]!.short} ${m.cpu.map((cpu) => cpu.toFixed(3)).join(', ')}`,
    );
    console.log(`\nCPU per read round by round, ms: ${byRound.join('; ')}.`);
    if (process.env.BENCH_CPU_PROF)
      console.log(
        `\nCPU profiles in ${process.env.BENCH_CPU_PROF} (written as each stops; a gateway's is its supervisor's child's): ${servers.map((server) => `${server.short} pid ${server.pid}`).join(', ')}.`,
      );
    console.log(
      "\nGC share: the main thread's GC pauses (`perf_hooks` `gc` entries, `bench/gc-share.ts`) over the process's CPU time (`/proc`, every thread), over the measured rounds. Heap allocated per read: what the heap holds after the rounds less what it held before, plus what every collection between freed (`v8.GCProfiler`), over the reads of the rounds.",
    );
  } finally {
    for (const server of servers) await server.stop();
    for (const receiver of receivers) await receiver.stop();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Where the production gateway's CPU goes, setting by setting: the compiled gateway with the
 * floor section's production settings, and the same with one of them off at a time (traces, logs,
 * rate limits, the response cache, persisted operations only, the sharing of reads in flight is
 * already off), and with all of them off, each in its own process in front of one platform, on
 * the floor's one-object read sent as a persisted id at concurrency 16, in alternate rounds. What
 * turning a setting off saves is what it costs: the table the floor's targets are read against.
 */
async function floorParts(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const workDir = mkdtempSync(join(tmpdir(), 'gateway-bench-parts-'));
  const platform = await startPlatformProcess(dataDir, 0);
  const receiver = await startTraceReceiver();
  const token = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
  )[0]!;
  const READ = 'query SpaceRead($id: ID!) { space(id: $id) { platformId title visibility } }';
  const readId = createHash('sha256').update(READ).digest('hex');
  const manifest = join(workDir, 'persisted-operations.json');
  writeFileSync(manifest, JSON.stringify({ [readId]: READ }));
  const production: Record<string, string> = {
    PERSISTED_OPERATIONS_FILE: manifest,
    PERSISTED_ONLY: '1',
    RESPONSE_CACHE_TTL_MS: '3600000',
    LOG_LEVEL: 'info',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.1',
    OTEL_BSP_SCHEDULE_DELAY: '500',
    UPSTREAM_DEDUPE: '0',
  };
  const off: Record<string, Record<string, string>> = {
    traces: { OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    logs: { LOG_LEVEL: 'silent' },
    'rate limits': { RATE_LIMIT_POINTS: '0' },
    'response cache': { RESPONSE_CACHE_TTL_MS: '' },
    'persisted only': { PERSISTED_ONLY: '0' },
  };
  const variants: { name: string; settings: Record<string, string> }[] = [
    { name: 'production settings', settings: production },
    ...Object.entries(off).map(([name, change]) => ({
      name: `without ${name}`,
      settings: { ...production, ...change },
    })),
    {
      name: 'without any of them',
      settings: Object.assign({ ...production }, ...Object.values(off)) as Record<string, string>,
    },
  ];
  const gateways: { name: string; url: string; pid: number; stop(): Promise<void> }[] = [];
  try {
    // Started together: a smoke run spends its time on starts.
    const started = await Promise.all(variants.map((variant) => startGatewayProcess(platform.url, variant.settings)));
    for (const [index, variant] of variants.entries()) gateways.push({ name: variant.name, ...started[index]! });
    const listed = await request(`${platform.url}/orgs/acme/spaces?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const seed = ((await listed.body.json()) as { items: { id: string }[] }).items[0]!;
    let sequence = 0;
    const read = (url: string) => async () => {
      sequence += 1;
      const { answer } = await postAs<{ data?: { space?: { platformId: string } } }>(
        url,
        token,
        JSON.stringify({ documentId: readId, variables: { id: seed.id, read: sequence } }),
      );
      assert.equal(answer.data?.space?.platformId, seed.id);
    };
    for (const gateway of gateways) await load(scaled(10_000, 20), 16, read(gateway.url));
    const rounds = scaled(6);
    const perRound = scaled(3000, 20);
    const cpu = gateways.map(() => 0);
    for (let round = 0; round < rounds; round += 1) {
      const order = gateways.map((_, index) => index);
      if (round % 2 === 1) order.reverse();
      for (const index of order) {
        const before = cpuMs(gateways[index]!.pid);
        await load(perRound, 16, read(gateways[index]!.url));
        cpu[index]! += (cpuMs(gateways[index]!.pid) - before) / (rounds * perRound);
      }
    }
    console.log(
      `\n## What each production setting costs: the floor's read as a persisted id, concurrency 16, ${rounds} alternate rounds of ${perRound} reads each\n`,
    );
    console.log('| gateway | CPU per read | saved against production |');
    console.log('|---|---:|---:|');
    for (const [index, gateway] of gateways.entries()) {
      const saved =
        index === 0
          ? ''
          : `${(cpu[0]! - cpu[index]!).toFixed(3)} ms (${(((cpu[0]! - cpu[index]!) / cpu[0]!) * 100).toFixed(0)} %)`;
      console.log(`| ${gateway.name} | ${cpu[index]!.toFixed(3)} ms | ${saved} |`);
    }
  } finally {
    for (const gateway of gateways) await gateway.stop();
    await receiver.stop();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  }
}

/**
 * Content: what a revision costs to store (a one-paragraph edit of a 200-page space, in a
 * database of its own), and content queries through the gateway on the demo documentation
 * (the page tree with a page's document and markdown, a search, a PDF export), no delay.
 */
async function content(): Promise<void> {
  const { openDatabase } = await import('../src/platform/store/db.js');
  const { seedDemoData } = await import('../src/platform/demo-data.js');
  const { putDocument, storeRevision, storedBytes } = await import('../src/platform/content/revisions.js');
  const { setCurrentRevision } = await import('../src/platform/content/current.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-content-'));
  const db = openDatabase({ file: join(dataDir, 'platform.sqlite') });
  seedDemoData(db);
  const spaceId = db.prepare("SELECT id FROM spaces WHERE title = 'Runbooks'").pluck(true).get() as string;
  const paragraph = (text: string, key: string) => ({
    object: 'block',
    type: 'paragraph',
    key,
    data: {},
    nodes: [{ object: 'text', key: `${key}t`, leaves: [{ object: 'leaf', text, marks: [] }] }],
  });
  const body = (page: string, edit: string) => ({
    object: 'document',
    data: {},
    nodes: Array.from({ length: 12 }, (_, index) =>
      paragraph(
        `${page}, paragraph ${index}${index === 5 ? edit : ''}: ${'words of documentation '.repeat(12)}`,
        `p${index}`,
      ),
    ),
  });
  const tree = (edit: string) => ({
    pages: Array.from({ length: 20 }, (_, chapter) => ({
      id: `ch${chapter}`,
      type: 'document' as const,
      title: `Chapter ${chapter}`,
      slug: `chapter-${chapter}`,
      documentId: putDocument(db, spaceId, body(`ch${chapter}`, '')),
      pages: Array.from({ length: 9 }, (_, section) => ({
        id: `ch${chapter}s${section}`,
        type: 'document' as const,
        title: `Section ${chapter}.${section}`,
        slug: `section-${section}`,
        documentId: putDocument(
          db,
          spaceId,
          body(`ch${chapter}s${section}`, chapter === 7 && section === 3 ? edit : ''),
        ),
        pages: [],
      })),
    })),
    files: [],
    reusableContents: [],
    variables: {},
  });
  const commit = (edit: string) => {
    const parent = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
    const id = storeRevision(db, {
      spaceId,
      type: 'edits',
      parents: [parent],
      content: tree(edit),
      createdAt: new Date().toISOString(),
    });
    setCurrentRevision(db, spaceId, id);
  };
  const before = storedBytes(db);
  commit('');
  const spaceBytes = storedBytes(db) - before;
  const editBytes: number[] = [];
  for (let edit = 1; edit <= scaled(5); edit += 1) {
    const was = storedBytes(db);
    commit(` (edit ${edit})`);
    editBytes.push(storedBytes(db) - was);
  }
  const merges = await mergeRounds(db, spaceId, (text) => body('ch3s1', text));
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
  console.log(`\n## Content\n`);
  console.log('| measure | value |');
  console.log('|---|---:|');
  console.log(`| bytes stored for a 200-page space (12 paragraphs a page) | ${spaceBytes.toLocaleString('en')} |`);
  console.log(
    `| bytes stored per revision of a one-paragraph edit (median of 5) | ${percentile(editBytes, 50).toLocaleString('en')} |`,
  );
  assert.ok(percentile(editBytes, 50) < spaceBytes / 50, 'an edit stores more than a fiftieth of the space');
  console.log(
    `| change request batch: one page rewritten as markdown, 200-page space, p50 / p99 ms | ${ms(percentile(merges.edit, 50))} / ${ms(percentile(merges.edit, 99))} |`,
  );
  console.log(
    `| merge of that change request after a live edit elsewhere (three-way), p50 / p99 ms | ${ms(percentile(merges.merge, 50))} / ${ms(percentile(merges.merge, 99))} |`,
  );
  console.log(`| bytes stored by such a merge (median) | ${percentile(merges.bytes, 50).toLocaleString('en')} |`);

  for (const delay of delays([0, DELAY])) await contentQueriesAt(delay);
}

/**
 * Change requests on the 200-page space: each round opens one, rewrites a page of it as markdown
 * (timed), moves the live content on elsewhere, then merges it (timed, a three-way merge since the
 * live content moved), checking that both edits are live.
 */
async function mergeRounds(
  db: import('../src/platform/store/db.js').Db,
  spaceId: string,
  pageBody: (text: string) => unknown,
) {
  const { createChangeRequest } = await import('../src/platform/change-requests/store.js');
  const { editRequestContent } = await import('../src/platform/change-requests/edits.js');
  const { mergeChangeRequest } = await import('../src/platform/change-requests/merging.js');
  const { getDocument, loadRevision, putDocument, storeRevision, storedBytes } = await import(
    '../src/platform/content/revisions.js'
  );
  const { setCurrentRevision } = await import('../src/platform/content/current.js');
  const user = db
    .prepare("SELECT * FROM users WHERE email = 'ada@acme.test'")
    .get() as import('../src/platform/rows.js').UserRow;
  const space = () =>
    db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as import('../src/platform/rows.js').SpaceRow;
  const times = { edit: [] as number[], merge: [] as number[], bytes: [] as number[] };
  for (let round = 0; round < scaled(20); round += 1) {
    const request = createChangeRequest(db, space(), user, { subject: `Round ${round}` });
    const markdown = `# Section 3.1\n\n${Array.from({ length: 12 }, (_, index) => `Paragraph ${index}${index === 2 ? `, rewritten in round ${round}` : ''}.`).join('\n\n')}\n`;
    let started = performance.now();
    db.transaction(() =>
      editRequestContent(db, request, user.id, [{ operation: 'update_page', page: 'ch3s1', document: { markdown } }]),
    )();
    times.edit.push(performance.now() - started);
    // The live content moves on: another page changes.
    const live = loadRevision(db, spaceId, space().revision)!;
    const pages = live.content.pages.map((chapter) =>
      chapter.id === 'ch9'
        ? { ...chapter, documentId: putDocument(db, spaceId, pageBody(`live edit ${round}`)) }
        : chapter,
    );
    setCurrentRevision(
      db,
      spaceId,
      storeRevision(db, {
        spaceId,
        type: 'edits',
        parents: [live.id],
        content: { ...live.content, pages },
        createdAt: new Date().toISOString(),
      }),
    );
    const before = storedBytes(db);
    started = performance.now();
    const answer = mergeChangeRequest(db, spaceId, request.id, user);
    times.merge.push(performance.now() - started);
    times.bytes.push(storedBytes(db) - before);
    assert.equal(answer.result, 'merge');
    const merged = loadRevision(db, spaceId, space().revision)!;
    const section = merged.content.pages
      .find((chapter) => chapter.id === 'ch3')!
      .pages.find((page) => page.id === 'ch3s1')!;
    assert.match(
      JSON.stringify(getDocument(db, spaceId, section.documentId!)),
      new RegExp(`rewritten in round ${round}`),
    );
    assert.equal(
      merged.content.pages.find((chapter) => chapter.id === 'ch9')!.documentId,
      pages.find((chapter) => chapter.id === 'ch9')!.documentId,
    );
  }
  return times;
}

/** Content queries on the demo "Getting started" space, `delayMs` injected per upstream request. */
async function contentQueriesAt(delayMs: number): Promise<void> {
  const run = await start(delayMs);
  try {
    const seed = await graphql(
      run,
      '{ organization(id: "acme") { spaces(first: 100) { nodes { platformId title } } } }',
    );
    const space = seed.organization.spaces.nodes.find((item: { title: string }) => item.title === 'Getting started');
    const pageQuery = `query ($id: ID!) { space(id: $id) { content { pages { title children { title children { title } } }
      page(path: "installation/self-hosted/docker") { title ... on DocumentPage { document { text } markdown } } } } }`;
    const queries = [
      {
        name: 'page tree and one page with its document and markdown',
        query: pageQuery,
        check: (data: any) => {
          assert.ok(data.space.content.pages.length >= 8);
          assert.match(data.space.content.page.document.text, /docker/i);
          assert.match(data.space.content.page.markdown, /^# |\n# /);
        },
      },
      {
        name: 'every top-level page with its document as markdown (converted in the gateway)',
        query: `query ($id: ID!) { space(id: $id) { content { pages { title ... on DocumentPage { document { markdown } } } } } }`,
        check: (data: any) =>
          assert.ok(data.space.content.pages.some((page: any) => page.document?.markdown.length > 100)),
      },
      {
        name: 'search of the space',
        query: `query ($id: ID!) { space(id: $id) { search(query: "kubernetes", first: 10) { totalCount nodes { title } } } }`,
        check: (data: any) => assert.ok(data.space.search.totalCount >= 1),
      },
      {
        name: 'PDF export URL',
        query: `query ($id: ID!) { space(id: $id) { pdf { url } } }`,
        check: (data: any) => assert.match(data.space.pdf.url, /\/pdf\//),
      },
    ];
    // The first 10 rounds warm up; the figures are those of the others (none in a smoke run).
    const rounds = scaled(delayMs ? 40 : 100);
    const label = delayMs ? `${delayMs} ms delay per upstream request` : 'no delay';
    console.log(
      `\n| content query (demo "Getting started", ${label}, one at a time) | upstream requests | p50 ms | p99 ms |`,
    );
    console.log('|---|---:|---:|---:|');
    for (const item of queries) {
      const latencies: number[] = [];
      let requests = 0;
      for (let round = 0; round < rounds; round += 1) {
        run.exchanges.length = 0;
        const started = performance.now();
        item.check(await graphql(run, item.query, { id: space.platformId }));
        latencies.push(performance.now() - started);
        requests = run.exchanges.length;
      }
      console.log(
        `| ${item.name} | ${requests} | ${ms(percentile(latencies.slice(10), 50))} | ${ms(percentile(latencies.slice(10), 99))} |`,
      );
    }
    if (delayMs) return;
    const { url } = (await graphql(run, queries.at(-1)!.query, { id: space.platformId })).space.pdf;
    const renders: number[] = [];
    let size = 0;
    for (let round = 0; round < scaled(10); round += 1) {
      const started = performance.now();
      const response = await request(url);
      const bytes = Buffer.from(await response.body.arrayBuffer());
      assert.equal(response.statusCode, 200);
      assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
      size = bytes.length;
      renders.push(performance.now() - started);
    }
    console.log(
      `| rendering the PDF of the space (${Math.round(size / 1024)} KB), platform | | ${ms(percentile(renders, 50))} | ${ms(percentile(renders, 99))} |`,
    );
  } finally {
    await run.close();
  }
}

/**
 * Docs sites through the gateway: from a published URL to the page's markdown, the same as a
 * visitor with a token, and an organization's sites with their structures; with no delay and
 * with the upstream delay. Every answer is checked.
 */
async function sites(): Promise<void> {
  const { DEMO_SITE_SECRETS } = await import('../src/platform/sites/demo.js');
  console.log('\n## Docs sites through the gateway');
  for (const delayMs of delays([0, DELAY])) {
    const run = await start(delayMs);
    try {
      const published = `${new URL(run.restUrl).origin}/published/acme-docs`;
      const queries = [
        {
          name: 'resolveUrl of a page to its markdown',
          query: `query ($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { pathname siteSpace { path } page { title ... on DocumentPage { markdown } } } } }`,
          variables: { url: `${published}/installation/self-hosted/docker` },
          check: (data: any) => {
            assert.equal(data.resolveUrl.pathname, 'installation/self-hosted/docker');
            assert.match(data.resolveUrl.page.markdown, /^# |\n# /);
          },
        },
        {
          name: 'resolveUrl as a visitor with a token (adaptive content)',
          query: `query ($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent { siteSpace { path } space { title } } } }`,
          variables: { url: 'https://api.acme-docs.test/beta', token: DEMO_SITE_SECRETS.visitorToken },
          check: (data: any) => assert.equal(data.resolveUrl.siteSpace.path, 'beta'),
        },
        {
          name: "an organization's sites with their structures",
          query: `{ organization(id: "acme") { sites { nodes { title structure { ... on SiteSectionsStructure { sections { title siteSpaces { path space { title } } } } ... on SiteSpacesStructure { siteSpaces { path space { title } } } } } } } }`,
          variables: {},
          check: (data: any) => assert.equal(data.organization.sites.nodes.length, 4),
        },
      ];
      const rounds = scaled(delayMs ? 40 : 100);
      const label = delayMs ? `${delayMs} ms delay per upstream request` : 'no delay';
      console.log(`\n| sites query (${label}, one at a time) | upstream requests | p50 ms | p99 ms |`);
      console.log('|---|---:|---:|---:|');
      for (const item of queries) {
        const latencies: number[] = [];
        let requests = 0;
        for (let round = 0; round < rounds; round += 1) {
          run.exchanges.length = 0;
          const started = performance.now();
          item.check(await graphql(run, item.query, item.variables));
          latencies.push(performance.now() - started);
          requests = run.exchanges.length;
        }
        console.log(
          `| ${item.name} | ${requests} | ${ms(percentile(latencies.slice(10), 50))} | ${ms(percentile(latencies.slice(10), 99))} |`,
        );
      }
    } finally {
      await run.close();
    }
  }
}

/**
 * Git Sync on the embedded platform, in this process: export of the demo "Getting started" space
 * (15 pages, files, includes) to a local bare repository, then import of that repository into an
 * empty space, each from the request to the end of the background operation; every round checks
 * that the operation succeeded and the imported tree has the pages.
 */
async function gitSync(): Promise<void> {
  const { startPlatform } = await import('../src/platform/server.js');
  const { execFileSync } = await import('node:child_process');
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-git-'));
  const platform = await startPlatform({ dataDir, port: 0, gitAllowLocal: true });
  const token = Object.values(platform.tokens)[0]!;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await request(`${platform.url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return response.statusCode === 204 ? undefined : ((await response.body.json()) as any);
  };
  try {
    const spaces = (await api('GET', '/orgs/acme/spaces?limit=100')).items as Array<{ id: string; title: string }>;
    const source = spaces.find((space) => space.title === 'Getting started')!;
    const pages = (await api('GET', `/spaces/${source.id}/content`)).pages.length as number;
    const exports: number[] = [];
    const imports: number[] = [];
    for (let round = 0; round < scaled(10); round += 1) {
      const bare = join(dataDir, `bench-${round}.git`);
      execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
      let started = performance.now();
      await api('POST', `/spaces/${source.id}/git/export`, {
        url: bare,
        ref: 'refs/heads/main',
        commitMessage: `Round ${round}`,
        force: true,
      });
      await platform.app.jobs.drain();
      exports.push(performance.now() - started);
      assert.equal((await api('GET', `/spaces/${source.id}/git/info`)).operation.state, 'success');
      const target = await api('POST', '/orgs/acme/spaces', { title: `Imported ${round}` });
      started = performance.now();
      await api('POST', `/spaces/${target.id}/git/import`, { url: bare, ref: 'refs/heads/main' });
      await platform.app.jobs.drain();
      imports.push(performance.now() - started);
      assert.equal((await api('GET', `/spaces/${target.id}/git/info`)).operation.state, 'success');
      assert.equal((await api('GET', `/spaces/${target.id}/content`)).pages.length, pages);
    }
    console.log(
      '\n## Git Sync (the demo "Getting started" space, with its files and reusable content; local bare repository)\n',
    );
    console.log('| operation, request to end of the background job | p50 ms | p99 ms |');
    console.log('|---|---:|---:|');
    console.log(
      `| export (fetch, write files, commit, push) | ${ms(percentile(exports, 50))} | ${ms(percentile(exports, 99))} |`,
    );
    console.log(
      `| import (fetch, read files, convert markdown, store, reindex) | ${ms(percentile(imports, 50))} | ${ms(percentile(imports, 99))} |`,
    );
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * A generated OpenAPI 3.1 document in YAML: `paths` paths of two operations each (a GET with a
 * query parameter and two answers, a PUT with a request body; all referring to schemas), spread
 * over `tags` declared tags, and a schema per path plus two shared ones (about 2 KB a path).
 */
function benchOpenApiYaml(paths: number, tags: number): string {
  const words = 'the resource as stored, with its identifier, its name, its state and the time it last changed';
  const lines = [
    'openapi: 3.1.0',
    'info:',
    '  title: Bench API',
    "  version: '1'",
    `  description: A generated API of ${paths} paths.`,
    'tags:',
  ];
  for (let tag = 0; tag < tags; tag += 1) {
    lines.push(
      `  - name: group-${tag}`,
      `    x-displayName: Group ${tag}`,
      `    description: Resources of group ${tag}, ${words}.`,
    );
  }
  lines.push('paths:');
  for (let index = 0; index < paths; index += 1) {
    const tag = `group-${index % tags}`;
    const schema = `'#/components/schemas/Resource${index}'`;
    lines.push(
      `  /${tag}/resources-${index}/{id}:`,
      '    parameters:',
      '      - name: id',
      '        in: path',
      '        required: true',
      `        description: Identifier of resource ${index}.`,
      '        schema:',
      '          type: string',
      '          pattern: ^[a-z0-9-]+$',
      '    get:',
      `      tags: [${tag}]`,
      `      operationId: getResource${index}`,
      `      summary: Get resource ${index}`,
      `      description: Answers resource ${index} (${words}). Fields not asked for are left out.`,
      '      parameters:',
      '        - name: expand',
      '          in: query',
      '          schema:',
      '            type: boolean',
      '      responses:',
      "        '200':",
      `          description: Resource ${index}.`,
      '          content:',
      '            application/json:',
      '              schema:',
      `                $ref: ${schema}`,
      "        '404':",
      '          description: No such resource.',
      '          content:',
      '            application/json:',
      '              schema:',
      "                $ref: '#/components/schemas/Error'",
      '    put:',
      `      tags: [${tag}]`,
      `      operationId: updateResource${index}`,
      `      summary: Update resource ${index}`,
      `      description: Replaces resource ${index} (${words}). The identifier cannot change.`,
      '      requestBody:',
      '        required: true',
      '        content:',
      '          application/json:',
      '            schema:',
      `              $ref: ${schema}`,
      '      responses:',
      "        '200':",
      `          description: Resource ${index}, updated.`,
      '          content:',
      '            application/json:',
      '              schema:',
      `                $ref: ${schema}`,
    );
  }
  lines.push(
    'components:',
    '  schemas:',
    '    Error:',
    '      type: object',
    '      required: [code, message]',
    '      properties:',
    '        code:',
    '          type: integer',
    '        message:',
    '          type: string',
    '    Owner:',
    '      type: object',
    '      properties:',
    '        id:',
    '          type: string',
    '        displayName:',
    '          type: string',
  );
  for (let index = 0; index < paths; index += 1) {
    lines.push(
      `    Resource${index}:`,
      '      type: object',
      `      description: Resource ${index}, ${words}.`,
      '      required: [id, name]',
      '      properties:',
      '        id:',
      '          type: string',
      '          readOnly: true',
      '        name:',
      '          type: string',
      '          maxLength: 100',
      `          description: Name of resource ${index}.`,
      '        state:',
      '          type: string',
      '          enum: [draft, active, archived]',
      '        count:',
      '          type: integer',
      '          minimum: 0',
      '        labels:',
      '          type: array',
      '          items:',
      '            type: string',
      '        updatedAt:',
      '          type: string',
      '          format: date-time',
      '        owner:',
      "          $ref: '#/components/schemas/Owner'",
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Background work of organization resources on the embedded platform, in this process (jobs
 * awaited with `drain()`), every result checked:
 * - OpenAPI processing of a large generated document (~1 MB of YAML) created from text, request
 *   to end of the job; the same text sent again (no new version, not parsed); the computed
 *   reference of it (a page per tag and the models page), first after the version and again;
 * - translation runs (pseudo-localization) of a 200-page space: the first full run, then runs
 *   after one page edited through a merged change request;
 * - custom fonts: upload URL, the WOFF2 bytes, the font, per font, checking its file is served.
 */
async function orgResources(): Promise<void> {
  const { startPlatform } = await import('../src/platform/server.js');
  const { minimalWoff2 } = await import('../src/platform/fonts/woff.js');
  const { pseudoLocalize } = await import('../src/platform/translations/translator.js');
  /** A word as pseudo-localization writes it, without the markers and padding. */
  const accented = (word: string) => [...pseudoLocalize(word)].slice(1, 1 + word.length).join('');
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-org-'));
  const platform = await startPlatform({ dataDir, port: 0 });
  const token = Object.values(platform.tokens)[0]!;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await request(`${platform.url}${path}`, {
      method: method as 'GET',
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.body.text();
    return { status: response.statusCode, body: text ? (JSON.parse(text) as any) : undefined };
  };
  const ok = async (method: string, path: string, body: unknown, status: number) => {
    const answer = await api(method, path, body);
    assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)?.slice(0, 500)}`);
    return answer.body;
  };
  /** Duration of the last job of `key`, from its row (start to end of the handler). */
  const jobMs = (key: string) => {
    const row = platform.db
      .prepare('SELECT started_at, ended_at, state FROM jobs WHERE key = ? ORDER BY id DESC LIMIT 1')
      .get(key) as { started_at: string; ended_at: string; state: string } | undefined;
    assert.equal(row?.state, 'done', `job ${key}`);
    return Date.parse(row!.ended_at) - Date.parse(row!.started_at);
  };
  const line = (label: string, values: number[]) =>
    `| ${label} | ${ms(percentile(values, 50))} | ${ms(Math.max(...values))} |`;
  /**
   * Runs `work` while reading the organization (`GET /orgs/acme`) again and again, 5 ms apart,
   * and answers the longest such read, in ms: what a client waits while the job runs (the
   * platform handles requests and jobs on one thread).
   */
  const stalled = async (work: () => Promise<void>) => {
    let done = false;
    let longest = 0;
    const reader = (async () => {
      while (!done) {
        const started = performance.now();
        const answer = await api('GET', '/orgs/acme');
        assert.equal(answer.status, 200);
        longest = Math.max(longest, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await work();
    } finally {
      done = true;
      await reader;
    }
    return longest;
  };
  try {
    // --- OpenAPI processing ------------------------------------------------------------------
    const PATHS = scaled(500, 50);
    const TAGS = 20;
    const yamlText = benchOpenApiYaml(PATHS, TAGS);
    const bytes = Buffer.byteLength(yamlText);
    const spaceId = (await ok('GET', '/orgs/acme/spaces?limit=100', undefined, 200)).items.find(
      (space: { title: string }) => space.title === 'Getting started',
    ).id as string;
    const openapi = {
      create: [] as number[],
      createJob: [] as number[],
      createStall: [] as number[],
      same: [] as number[],
      sameJob: [] as number[],
      computed: [] as number[],
      computedAgain: [] as number[],
    };
    const ROUNDS_OPENAPI = scaled(5, 1);
    for (let round = 0; round < ROUNDS_OPENAPI; round += 1) {
      const slug = `bench-api-${round}`;
      let started = performance.now();
      const created = await ok('POST', '/orgs/acme/openapi', { slug, source: { text: yamlText } }, 201);
      assert.equal(created.processingState, 'pending');
      await platform.app.jobs.drain();
      openapi.create.push(performance.now() - started);
      openapi.createJob.push(jobMs(`openapi:${created.id}`));
      const spec = await ok('GET', `/orgs/acme/openapi/${slug}`, undefined, 200);
      assert.equal(spec.processingState, 'complete');
      assert.equal(spec.lastProcessErrorCode, undefined, JSON.stringify(spec.lastProcessedErrors));
      assert.equal(typeof spec.lastVersion, 'string');

      const readings = platform.app.openapiReader.readings;
      started = performance.now();
      await ok('PUT', `/orgs/acme/openapi/${slug}`, { source: { text: yamlText } }, 200);
      await platform.app.jobs.drain();
      openapi.same.push(performance.now() - started);
      openapi.sameJob.push(jobMs(`openapi:${created.id}`));
      const same = await ok('GET', `/orgs/acme/openapi/${slug}`, undefined, 200);
      assert.equal(same.processingState, 'complete');
      assert.equal(same.lastProcessErrorCode, undefined);
      assert.equal(same.lastVersion, spec.lastVersion, 'the same text makes no new version');
      assert.equal(platform.app.openapiReader.readings, readings, 'the same text is not parsed again');
      assert.equal((await ok('GET', `/orgs/acme/openapi/${slug}/versions`, undefined, 200)).count, 1);

      const computedBody = {
        source: {
          type: 'builtin:openapi',
          props: { models: true },
          dependencies: { spec: { ref: { kind: 'openapi', spec: slug } } },
        },
        seed: `bench-${round}`,
      };
      for (const times of [openapi.computed, openapi.computedAgain]) {
        started = performance.now();
        const reference = await ok('POST', `/spaces/${spaceId}/content/computed/revision`, computedBody, 200);
        times.push(performance.now() - started);
        const titles = reference.pages.map((page: { title: string }) => page.title);
        assert.equal(reference.pages.length, TAGS + 1, 'a page per tag and the models page');
        assert.deepEqual(titles, [...Array.from({ length: TAGS }, (_, tag) => `Group ${tag}`), 'Models']);
      }

      // Untimed: a changed text processed while a client keeps reading the API.
      openapi.createStall.push(
        await stalled(async () => {
          await ok(
            'PUT',
            `/orgs/acme/openapi/${slug}`,
            { source: { text: yamlText.replace("version: '1'", "version: '2'") } },
            200,
          );
          await platform.app.jobs.drain();
        }),
      );
      const changed = await ok('GET', `/orgs/acme/openapi/${slug}`, undefined, 200);
      assert.equal(changed.lastProcessErrorCode, undefined);
      assert.notEqual(changed.lastVersion, spec.lastVersion, 'a changed text makes a version');
    }
    console.log(`\n## Organization resources (embedded platform in this process)\n`);
    console.log(
      `| OpenAPI: ${PATHS} paths × 2 operations, ${TAGS} tags, ${PATHS + 2} schemas, ${(bytes / 1024).toFixed(0)} KB of YAML; ${ROUNDS_OPENAPI} rounds | median ms | max ms |`,
    );
    console.log('|---|---:|---:|');
    console.log(line('create from text, request to end of the job (parse, validate, version)', openapi.create));
    console.log(line('… of which the job', openapi.createJob));
    console.log(
      line(
        '… longest wait of a `GET /orgs/acme` made meanwhile (the text is read in a worker thread)',
        openapi.createStall,
      ),
    );
    console.log(
      line('the same text again (PUT by slug), request to end of the job: no new version, no parsing', openapi.same),
    );
    console.log(line('… of which the job', openapi.sameJob));
    console.log(line(`computed reference (${TAGS + 1} pages), first after the version`, openapi.computed));
    console.log(line('computed reference again (same version)', openapi.computedAgain));

    // --- Translation runs --------------------------------------------------------------------
    const CHAPTERS = 20;
    const SECTIONS = 9;
    const paragraphs = (page: string, edit = '') =>
      Array.from(
        { length: 12 },
        (_, index) =>
          `${page}, paragraph ${index}${index === 5 ? edit : ''}: ${'words of documentation '.repeat(12).trim()}.`,
      ).join('\n\n');
    const languages = ['de', 'es', 'it'].slice(0, scaled(3, 1));
    const EDITS = scaled(5, 1);
    const translation = {
      full: [] as number[],
      fullJob: [] as number[],
      fullStall: [] as number[],
      incremental: [] as number[],
      incrementalJob: [] as number[],
      pages: 0,
      words: 0,
      editWords: 0,
    };
    for (const [round, language] of languages.entries()) {
      // A 200-page source space (20 chapters of 9 sections), made through a merged change request.
      const space = await ok('POST', '/orgs/acme/spaces', { title: `Bench translation ${round}`, language: 'en' }, 201);
      await ok('PATCH', `/spaces/${space.id}`, { mergeRules: { type: 'none' } }, 200);
      const seedRequest = (await ok('POST', `/spaces/${space.id}/change-requests`, { subject: 'Seed' }, 201))
        .id as string;
      const pageIds: string[] = [];
      for (let batch = 0; batch < CHAPTERS / 5; batch += 1) {
        const changes = Array.from({ length: 5 }, (_, offset) => {
          const chapter = batch * 5 + offset;
          return [
            {
              operation: 'insert_page',
              ref: `ch${chapter}`,
              document: { markdown: `# Chapter ${chapter}\n\n${paragraphs(`Chapter ${chapter}`)}\n` },
            },
            ...Array.from({ length: SECTIONS }, (_, section) => ({
              operation: 'insert_page',
              into: `ch${chapter}`,
              document: {
                markdown: `# Section ${chapter}.${section}\n\n${paragraphs(`Section ${chapter}.${section}`)}\n`,
              },
            })),
          ];
        }).flat();
        const edit = await ok(
          'POST',
          `/spaces/${space.id}/change-requests/${seedRequest}/content?compat=false`,
          { changes },
          200,
        );
        pageIds.push(...edit.changes.map((change: { page: { id: string } }) => change.page.id));
      }
      assert.equal(pageIds.length, CHAPTERS * (SECTIONS + 1));
      assert.equal(
        (await ok('POST', `/spaces/${space.id}/change-requests/${seedRequest}/merge`, {}, 200)).result,
        'merge',
      );
      await platform.app.jobs.drain();

      const created = await ok(
        'POST',
        '/orgs/acme/translations',
        { language, source: { space: space.id, language: 'en' } },
        201,
      );
      let started = performance.now();
      await ok('POST', `/orgs/acme/translations/${created.id}/run`, {}, 204);
      await platform.app.jobs.drain();
      translation.full.push(performance.now() - started);
      translation.fullJob.push(jobMs(created.id));
      const first = await ok('GET', `/orgs/acme/translations/${created.id}`, undefined, 200);
      assert.equal(first.status, 'completed');
      assert.equal(first.lastRunError, undefined);
      assert.equal(first.stats.latestPages, CHAPTERS * (SECTIONS + 1));
      assert.equal(first.stats.runs, 1);
      translation.pages = first.stats.latestPages;
      translation.words = first.stats.latestWords;
      const resultPages = (await ok('GET', `/spaces/${first.result.space}/content/pages`, undefined, 200))
        .pages as Array<{ title: string; pages: unknown[] }>;
      assert.equal(resultPages.length, CHAPTERS);
      assert.match(resultPages[0]!.title, /^⟦.*⟧$/u, 'pseudo-localized titles');

      // One page edited through a merged change request: the merge queues the run itself.
      for (let edit = 0; edit < EDITS; edit += 1) {
        const page = pageIds[1 + ((edit * 7) % pageIds.length)]!;
        const changeRequest = (
          await ok('POST', `/spaces/${space.id}/change-requests`, { subject: `Edit ${edit}` }, 201)
        ).id as string;
        await ok(
          'POST',
          `/spaces/${space.id}/change-requests/${changeRequest}/content?compat=false`,
          {
            changes: [
              {
                operation: 'update_page',
                page,
                document: { markdown: `# Edited ${edit}\n\n${paragraphs(`Edited page ${edit}`, ', rewritten')}\n` },
              },
            ],
          },
          200,
        );
        started = performance.now();
        assert.equal(
          (await ok('POST', `/spaces/${space.id}/change-requests/${changeRequest}/merge`, {}, 200)).result,
          'merge',
        );
        await platform.app.jobs.drain();
        translation.incremental.push(performance.now() - started);
        translation.incrementalJob.push(jobMs(created.id));
        const again = await ok('GET', `/orgs/acme/translations/${created.id}`, undefined, 200);
        assert.equal(again.status, 'completed');
        assert.equal(again.stats.runs, edit + 2);
        assert.equal(again.stats.latestPages, 1, 'only the edited page is translated again');
        translation.editWords = again.stats.latestWords;
        const translated = await ok(
          'GET',
          `/spaces/${first.result.space}/content/page/${page}?format=markdown`,
          undefined,
          200,
        );
        assert.ok(
          translated.markdown.includes(accented('rewritten')) && !translated.markdown.includes('rewritten'),
          'the edit is translated',
        );
      }

      // Untimed: new instructions translate every page again, while a client keeps reading the API.
      const instructions = {
        object: 'document',
        data: {},
        nodes: [
          { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Use a formal tone.' }] }] },
        ],
      };
      await ok('PUT', `/orgs/acme/translations/${created.id}`, { instructions }, 200);
      translation.fullStall.push(
        await stalled(async () => {
          await ok('POST', `/orgs/acme/translations/${created.id}/run`, {}, 204);
          await platform.app.jobs.drain();
        }),
      );
      const rerun = await ok('GET', `/orgs/acme/translations/${created.id}`, undefined, 200);
      assert.equal(rerun.stats.runs, EDITS + 2);
      assert.equal(rerun.stats.latestPages, CHAPTERS * (SECTIONS + 1), 'new instructions translate every page again');
    }
    const perSecond = (count: number, values: number[]) => ((count / percentile(values, 50)) * 1000).toFixed(0);
    console.log(
      `\n| Translation (pseudo-localization) of a ${translation.pages}-page space, ${translation.words.toLocaleString('en')} words; ${languages.length} translations, ${EDITS} edits each | median ms | max ms | pages/s | words/s |`,
    );
    console.log('|---|---:|---:|---:|---:|');
    console.log(
      `${line('first run, request to end of the job', translation.full)} ${perSecond(translation.pages, translation.full)} | ${perSecond(translation.words, translation.full)} |`,
    );
    console.log(
      `${line('… of which the job', translation.fullJob)} ${perSecond(translation.pages, translation.fullJob)} | ${perSecond(translation.words, translation.fullJob)} |`,
    );
    console.log(`${line('… longest wait of a `GET /orgs/acme` made meanwhile', translation.fullStall)} | |`);
    console.log(
      `${line(`one page edited (${translation.editWords} words): merge request to end of the run`, translation.incremental)} ${perSecond(1, translation.incremental)} | ${perSecond(translation.editWords, translation.incremental)} |`,
    );
    console.log(
      `${line('… of which the run (job)', translation.incrementalJob)} ${perSecond(1, translation.incrementalJob)} | ${perSecond(translation.editWords, translation.incrementalJob)} |`,
    );

    // --- Font uploads ------------------------------------------------------------------------
    const fonts = { reserve: [] as number[], upload: [] as number[], create: [] as number[], total: [] as number[] };
    const FONTS = scaled(50);
    for (let round = 0; round < FONTS; round += 1) {
      const file = minimalWoff2(`Bench ${round}`, 400);
      const t0 = performance.now();
      const signed = await ok(
        'POST',
        '/orgs/acme/storage/upload',
        { file: { name: `bench-${round}.woff2`, type: 'font/woff2', size: file.length }, kind: 'customization_font' },
        201,
      );
      const t1 = performance.now();
      const put = await request(signed.url, { method: 'PUT', headers: { 'content-type': 'font/woff2' }, body: file });
      await put.body.dump();
      assert.equal(put.statusCode, 200);
      const t2 = performance.now();
      const font = await ok(
        'PUT',
        '/orgs/acme/fonts',
        { fontFamily: `Bench ${round}`, fontFaces: [{ weight: 400, storageKey: signed.key }] },
        201,
      );
      const t3 = performance.now();
      fonts.reserve.push(t1 - t0);
      fonts.upload.push(t2 - t1);
      fonts.create.push(t3 - t2);
      fonts.total.push(t3 - t0);
      const source = font.fontFaces[0].sources[0] as { url: string; format: string };
      assert.equal(source.format, 'woff2');
      const served = await request(source.url);
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'font/woff2');
      assert.ok(Buffer.from(await served.body.arrayBuffer()).equals(file), 'the source URL serves the uploaded file');
    }
    console.log(
      `\n| Custom font (a ${minimalWoff2('Bench 0', 400).length}-byte WOFF2), ${FONTS} fonts one after the other | median ms | max ms |`,
    );
    console.log('|---|---:|---:|');
    console.log(line('`POST …/storage/upload` (signed URL)', fonts.reserve));
    console.log(line('`PUT` of the bytes to the signed URL', fonts.upload));
    console.log(line('`PUT …/fonts` (file checked as a font)', fonts.create));
    console.log(line('the three, per font', fonts.total));
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The embedded platform (in this process) under the random route cases of its fuzz test
 * (`test/fixtures/platform-fuzz.ts`, with the test's seed, so the same draws, over the demo data's ids): the
 * time of each answer, one request at a time over one keep-alive connection, as the test sends them.
 * Every answer must come, below 500 (the test checks the rest of each answer); the run fails when
 * one takes a second or more (a hostile input that stalls the platform), outside smoke runs.
 */
async function platformFuzz(): Promise<void> {
  const { startPlatform } = await import('../src/platform/server.js');
  const { DEMO } = await import('../src/platform/demo-data.js');
  const { servedOperations } = await import('../test/fixtures/operations.js');
  const { createRng } = await import('../test/fixtures/fuzz.js');
  const { routeCases } = await import('../test/fixtures/platform-fuzz.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-fuzz-'));
  const platform = await startPlatform({ dataDir, port: 0 });
  const { hostname, port } = new URL(platform.url);
  const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
  try {
    const routes = [
      ...servedOperations(platform.app.registeredRoutes).map(({ method, path }) => ({ method, path })),
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/ready' },
      { method: 'PUT', path: '/storage/upload' },
    ];
    const tokens = [DEMO.users.ada, DEMO.users.gus, DEMO.users.ivy].map((email) => platform.tokens[email]!);
    const idOf = (sql: string, value: string) => (platform.db.prepare(sql).get(value) as { id: string }).id;
    // The demo data's ids: the benchmark times the cases over the data a started platform serves.
    const userId = (email: string) => idOf('SELECT id FROM users WHERE email = ?', email);
    const spaceId = (title: string) =>
      idOf('SELECT id FROM spaces WHERE title = ? ORDER BY created_at, id LIMIT 1', title);
    const real = {
      organizationId: () => [DEMO.orgs.acme, DEMO.orgs.globex],
      userId: () => [userId(DEMO.users.finn), userId(DEMO.users.ivy), userId(DEMO.users.ada)],
      teamId: () => [DEMO.teams.writers, DEMO.teams.platform],
      collectionId: () => [DEMO.collections.guides, DEMO.collections.engineering],
      spaceId: () => [spaceId(DEMO.spaces.public), spaceId(DEMO.spaces.deleted)],
      emailDomain: () => ['acme.test', 'globex.test'],
      inviteId: () => ['invite-1'],
    };
    const cases = scaled(1500, 50);
    const times: Array<{ label: string; ms: number }> = [];
    for (const fuzz of routeCases(createRng(20240611), cases, { routes, tokens, real })) {
      // As the test sends it: a body always gets its length (see test/platform/fuzz.test.ts).
      const headers =
        fuzz.body === undefined
          ? fuzz.headers
          : { 'content-length': String(Buffer.byteLength(fuzz.body)), ...fuzz.headers };
      const started = performance.now();
      const status = await new Promise<number | string>((resolve) => {
        let outgoing: ReturnType<typeof httpRequest>;
        try {
          outgoing = httpRequest(
            { host: hostname, port, method: fuzz.method, path: fuzz.path, headers, agent },
            (response) => {
              response.resume();
              response.on('end', () => resolve(response.statusCode ?? 0));
              response.on('error', (error) => resolve(error.message));
            },
          );
        } catch (error) {
          resolve(String(error));
          return;
        }
        outgoing.on('error', (error) => resolve(error.message));
        outgoing.end(fuzz.body);
      });
      times.push({
        label: `${fuzz.label} (${fuzz.method} ${fuzz.path.slice(0, 80)})`,
        ms: performance.now() - started,
      });
      assert.ok(typeof status === 'number' && status < 500, `${fuzz.label}: ${status}`);
    }
    const ordered = [...times].sort((a, b) => b.ms - a.ms);
    const all = times.map((time) => time.ms);
    console.log(`\n## The platform under its fuzz test's route cases, ${cases} requests one at a time\n`);
    console.log('| p50 ms | p99 ms | max ms | slowest case | target |');
    console.log('|---:|---:|---:|---|---|');
    console.log(
      `| ${ms(percentile(all, 50))} | ${ms(percentile(all, 99))} | ${ms(ordered[0]!.ms)} | ${ordered[0]!.label.replaceAll('|', '\\|')} | every answer < 1000 ms |`,
    );
    if (!SMOKE) assert.ok(ordered[0]!.ms < 1000, `${ordered[0]!.label} took ${ms(ordered[0]!.ms)} ms`);
  } finally {
    agent.destroy();
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The sum of a counter's samples in a Prometheus text page. */
function counterTotal(page: string, name: string): number {
  let total = 0;
  for (const line of page.split('\n')) if (line.startsWith(`${name}{`)) total += Number(line.split(' ').at(-1));
  return total;
}

/**
 * Identical reads in flight shared across requests (`UPSTREAM_DEDUPE`): 20 concurrent identical
 * dashboards, one token, against a platform that answers in `BENCH_DELAY_MS`; the compiled gateway
 * with it on and off, in alternate rounds. Upstream requests as the gateway's metrics count them
 * (what the platform received), and the gateway process's CPU.
 */
async function dedupe(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const platform = await startPlatformProcess(dataDir, DELAY);
  const token = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
  )[0]!;
  const CONCURRENT = 20;
  const gateways = [
    { setting: '1', ...(await startGatewayProcess(platform.url, { UPSTREAM_DEDUPE: '1' })) },
    { setting: '0', ...(await startGatewayProcess(platform.url, { UPSTREAM_DEDUPE: '0' })) },
  ];
  const body = JSON.stringify({ query: COST_DASHBOARD });
  const sent = async (url: string) => {
    const page = await request(url.replace(/\/graphql$/, '/metrics'));
    return counterTotal(await page.body.text(), 'graphql_gateway_upstream_requests_total');
  };
  const dashboard = async (url: string) => {
    const { status, answer } = await postAs<{
      data?: unknown;
      errors?: unknown;
      extensions?: { cost?: { upstreamRequests: number } };
    }>(url, token, body);
    assert.equal(status, 200);
    assert.equal(answer.errors, undefined, `errors: ${JSON.stringify(answer.errors)}`);
    return answer;
  };
  try {
    // One dashboard alone: its requests and its data, which every concurrent one must answer too.
    const alone = await dashboard(gateways[1]!.url);
    const one = alone.extensions!.cost!.upstreamRequests;
    const measured = gateways.map(() => ({ requests: 0, cpu: 0 }));
    const rounds = scaled(8, 2);
    for (let round = 0; round < rounds; round += 1) {
      for (const [index, gateway] of gateways.entries()) {
        const requestsBefore = await sent(gateway.url);
        const cpuBefore = cpuMs(gateway.pid);
        const answers = await Promise.all(Array.from({ length: CONCURRENT }, () => dashboard(gateway.url)));
        measured[index]!.cpu += cpuMs(gateway.pid) - cpuBefore;
        measured[index]!.requests += (await sent(gateway.url)) - requestsBefore;
        for (const answer of answers) {
          assert.deepEqual(answer.data, alone.data);
          // Each request reports the requests it asked for, shared or not.
          assert.equal(answer.extensions?.cost?.upstreamRequests, one);
        }
      }
    }
    console.log(
      `\n## Reads in flight shared across requests (\`UPSTREAM_DEDUPE\`): ${CONCURRENT} concurrent identical dashboards, ${rounds} rounds, platform delay ${DELAY} ms\n`,
    );
    console.log(
      '| UPSTREAM_DEDUPE | upstream requests per round | × one dashboard | gateway CPU per round | per dashboard | per upstream request sent |',
    );
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [index, gateway] of gateways.entries()) {
      const { requests, cpu } = measured[index]!;
      console.log(
        `| ${gateway.setting} | ${(requests / rounds).toFixed(1)} | ${(requests / rounds / one).toFixed(2)} | ${ms(cpu / rounds)} ms | ${(cpu / rounds / CONCURRENT).toFixed(2)} ms | ${(cpu / requests).toFixed(3)} ms |`,
      );
    }
    // Off, every dashboard sends its own; on, at most what they send alone (usually one dashboard's).
    assert.equal(measured[1]!.requests, rounds * CONCURRENT * one);
    assert.ok(measured[0]!.requests < measured[1]!.requests, 'sharing saved no upstream request');
  } finally {
    for (const gateway of gateways) await gateway.stop();
    await platform.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const only = process.env.BENCH_ONLY?.split(',');
const sections: Record<string, () => Promise<void>> = {
  nestedQueries,
  overhead,
  gatewayAlone,
  fieldHooks,
  costModel,
  runtime,
  floor,
  floorParts,
  dedupe,
  content,
  gitSync,
  sites,
  orgResources,
  platformFuzz,
};
const chosen = Object.entries(sections).filter(([name]) => !only || only.includes(name));
console.log(
  `# bench/run.ts on ${revision()}, Node ${process.version}, ${cpus().length} CPUs${SMOKE ? ', smoke run' : ''}`,
);
// Each section's wall time, so that a slow smoke run (inside `npm test`) says which section to shrink.
const took: string[] = [];
for (const [name, section] of chosen) {
  const started = performance.now();
  await section();
  took.push(`${name} ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
if (summary.length > 0) {
  // From this run's own figures above, so the summary and the tables always agree.
  console.log('\n## Summary against the targets\n');
  console.log('| measure | this run | target | |');
  console.log('|---|---:|---:|---|');
  for (const row of summary) console.log(`| ${row.measure} | ${row.figure} | ${row.target} | ${row.verdict} |`);
}
console.log(`\nSections took: ${took.join(', ')}.`);
console.log(`\nSections run: ${chosen.map(([name]) => name).join(', ')}.`);
