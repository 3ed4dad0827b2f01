import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlatform, type RunningPlatform } from '../src/platform/server.js';

/**
 * `npx tsx bench/hardening-outbound.ts`: what a caller can make the embedded platform connect to.
 *
 * 1. Git Sync with GIT_ALLOW_LOCAL off: import and export of loopback, private, link-local
 *    repositories and of names that resolve to them: the status of each request, its time, and
 *    the connections counting listeners on loopback received once the job queue drained.
 * 2. Refs git refuses (`refs/heads/../../etc` …): the status of each request.
 * 3. Integration endpoints with PLATFORM_ALLOW_PRIVATE_URLS off: the status of each publication.
 * 4. Git Sync with GIT_ALLOW_LOCAL on (demos, tests): the operation error of a closed port, an
 *    open port that is not TLS, and a name that does not resolve: one text, or a port scanner.
 *
 * Section 1 runs BENCH_ROUNDS times (default 10). Meanwhile a reader asks for a space every 10 ms:
 * its latency p50/p99, next to the same reader alone just before; and the process's peak RSS.
 * Every answer is checked at the end (the figures are printed first, so a run on code without the
 * guard shows what it lets through, then fails).
 */

interface Counting {
  port: number;
  connections: number;
  close(): Promise<void>;
}

/** A loopback listener that counts connections and answers each with `reply` (then closes). */
async function counting(host: string, reply: string): Promise<Counting> {
  const sockets = new Set<Socket>();
  const state = { connections: 0 };
  const server: Server = createServer((socket) => {
    state.connections += 1;
    sockets.add(socket.on('close', () => sockets.delete(socket)).on('error', () => undefined));
    socket.end(reply);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return Object.assign(state, {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}

async function closedPort(): Promise<number> {
  const listener = await counting('127.0.0.1', '');
  await listener.close();
  return listener.port;
}

async function start(settings: {
  gitAllowLocal: boolean;
  allowPrivateUrls: boolean;
}): Promise<RunningPlatform & { dir: string; token: string; spaceId: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-outbound-'));
  const platform = await startPlatform({ dataDir: dir, port: 0, seed: true, ...settings });
  const token = Object.values(platform.tokens)[0]!;
  const spaceId = platform.db
    .prepare('SELECT id FROM spaces WHERE deleted_at IS NULL ORDER BY created_at, id LIMIT 1')
    .pluck()
    .get() as string;
  return { ...platform, dir, token, spaceId };
}

async function call(
  platform: { url: string; token: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${platform.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${platform.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

/** Reads a space every 10 ms until stopped: the latencies of a concurrent reader. */
function reader(platform: { url: string; token: string; spaceId: string }) {
  const latencies: number[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      latencies.push((await call(platform, 'GET', `/spaces/${platform.spaceId}`)).ms);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), reads: latencies.length };
    },
  };
}

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
const rssBefore = process.memoryUsage().rss;

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const tlsGarbage = 'not TLS, not HTTP\r\n';
const v4 = await counting('127.0.0.1', tlsGarbage);
const v6 = await counting('::1', tlsGarbage);
const machine = hostname();
const problems: string[] = [];
const expect = (what: string, ok: boolean) => {
  if (!ok) problems.push(what);
};

// 1–3. The guard on.
const guarded = await start({ gitAllowLocal: false, allowPrivateUrls: false });
// The same reader alone first: what this machine gives at the moment, to compare with.
const alone = reader(guarded);
await new Promise((resolve) => setTimeout(resolve, 2_000));
const idle = await alone.stop();
const read = reader(guarded);
const gitUrls = [
  `https://127.0.0.1:${v4.port}/r.git`,
  `https://localhost:${v4.port}/r.git`,
  `https://u:pw@127.0.0.1:${v4.port}/r.git`,
  `https://[::1]:${v6.port}/r.git`,
  `https://[::ffff:127.0.0.1]:${v4.port}/r.git`,
  `https://${machine}:${v4.port}/r.git`,
  'https://169.254.169.254/latest/meta-data.git',
];
const machineAddresses = (await lookup(machine, { all: true })).map((entry) => entry.address).join(', ');
console.log(`1. Git Sync, GIT_ALLOW_LOCAL off (${machine} resolves to ${machineAddresses})`);
const refusalMs: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  for (const direction of ['import', 'export'] as const) {
    for (const url of gitUrls) {
      const answer = await call(guarded, 'POST', `/spaces/${guarded.spaceId}/git/${direction}`, {
        url,
        ref: 'refs/heads/main',
        ...(direction === 'export' ? { commitMessage: 'Out' } : {}),
      });
      refusalMs.push(answer.ms);
      if (round === 0)
        console.log(
          `   ${direction} ${url.padEnd(48)} ${answer.status} in ${answer.ms.toFixed(1)} ms ${answer.body?.error?.message ?? ''}`,
        );
      expect(
        `${direction} ${url} refused`,
        answer.status === 400 && /^Invalid body field "url"/.test(answer.body.error.message),
      );
      expect(`${direction} ${url} shows no password`, !JSON.stringify(answer.body ?? '').includes('pw@'));
    }
  }
}
await guarded.app.jobs.drain();
console.log(
  `   ${ROUNDS} rounds; connections received once the queue drained: 127.0.0.1 ${v4.connections}, ::1 ${v6.connections}`,
);
expect('no connection made', v4.connections + v6.connections === 0);

console.log('2. Refs');
for (const ref of [
  'refs/heads/../../etc',
  'refs/heads/a@{1}',
  'refs/heads/x.lock',
  'refs/heads/-x',
  'refs/heads/a\u0001b',
]) {
  const answer = await call(guarded, 'POST', `/spaces/${guarded.spaceId}/git/import`, {
    url: 'https://git.example.test/r.git',
    ref,
  });
  console.log(`   ${JSON.stringify(ref).padEnd(26)} ${answer.status} ${answer.body?.error?.message ?? ''}`);
  expect(
    `ref ${JSON.stringify(ref)} refused`,
    answer.status === 400 && /^Invalid body field "ref"/.test(answer.body.error.message),
  );
}

console.log('3. Integration endpoints, PLATFORM_ALLOW_PRIVATE_URLS off');
const organization = guarded.db
  .prepare('SELECT id FROM organizations ORDER BY created_at, id LIMIT 1')
  .pluck()
  .get() as string;
for (const endpoint of [
  'https://localhost.:4722/h',
  'https://127.0.0.1:4722/h',
  `https://${machine}:4722/h`,
  'https://[2002:a9fe:a9fe::]/h',
  'https://[2001:0:808:808::80ff:fffe]/h',
]) {
  const answer = await call(guarded, 'POST', '/integrations/bench-guard', {
    organization,
    title: 'Guarded',
    description: 'Receives events',
    script: 'export default {};',
    scopes: ['space:content:read'],
    endpoint,
  });
  console.log(`   ${endpoint.padEnd(40)} ${answer.status} ${answer.body?.error?.message ?? ''}`);
  expect(
    `endpoint ${endpoint} refused`,
    answer.status === 400 && /^Invalid body field "endpoint"/.test(answer.body.error.message),
  );
}
const concurrent = await read.stop();
await guarded.close();
rmSync(guarded.dir, { recursive: true, force: true });

// 4. The guard off: what operation errors say of the network.
console.log('4. Git Sync, GIT_ALLOW_LOCAL on: operation errors');
const local = await start({ gitAllowLocal: true, allowPrivateUrls: true });
const errors: string[] = [];
for (const url of [
  `https://127.0.0.1:${await closedPort()}/r.git`,
  `https://127.0.0.1:${v4.port}/r.git`,
  'https://nowhere.invalid/r.git',
]) {
  await call(local, 'POST', `/spaces/${local.spaceId}/git/import`, { url, ref: 'refs/heads/main' });
  await local.app.jobs.drain();
  const error = (await call(local, 'GET', `/spaces/${local.spaceId}/git/info`)).body.operation.error as string;
  errors.push(error);
  console.log(`   ${url.padEnd(40)} ${error}`);
}
expect('one text for a closed port, an open one and an unresolved name', new Set(errors).size === 1);
await local.close();
rmSync(local.dir, { recursive: true, force: true });

await Promise.all([v4.close(), v6.close()]);
clearInterval(sampler);
console.log(
  `Refused requests: p50 ${percentile(refusalMs, 50).toFixed(1)} ms, max ${Math.max(...refusalMs).toFixed(1)} ms; ` +
    `concurrent reads: ${concurrent.reads}, p50 ${concurrent.p50.toFixed(1)} ms, p99 ${concurrent.p99.toFixed(1)} ms ` +
    `(alone: ${idle.reads}, p50 ${idle.p50.toFixed(1)} ms, p99 ${idle.p99.toFixed(1)} ms); ` +
    `peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MB (${((peakRss - rssBefore) / 2 ** 20).toFixed(0)} MB over the start)`,
);
if (problems.length > 0) console.log(`NOT HELD (${problems.length}):\n  ${problems.join('\n  ')}`);
assert.deepEqual(problems, []);
// At most 100 ms, or twice what the same reader got alone when the machine is busier than that. A
// smoke run (inside the tests, on a machine shared with them) checks the answers, not the times.
if (process.env.BENCH_SMOKE !== '1') {
  assert.ok(
    concurrent.p99 <= Math.max(100, 2 * idle.p99),
    `concurrent reads p99 ${concurrent.p99} ms (alone ${idle.p99} ms)`,
  );
}
