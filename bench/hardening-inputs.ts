import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Transform } from 'node:stream';
import { createBrotliCompress, createDeflate, constants } from 'node:zlib';
import { freePort } from '../test/fixtures/ports.js';
import { doublingRefs, woff1File, woff2File } from '../test/fixtures/hostile-corpus.js';
import { percentile } from '../test/fixtures/stats.js';
import { buildDist } from '../test/fixtures/built.js';

/**
 * `npx tsx bench/hardening-inputs.ts`: small hostile inputs that cost the embedded platform far
 * more than their size, each sent to a platform running in a process of its own (demo data,
 * temporary database) while a client reads `GET /v1/orgs/acme` back to back. For each case:
 * how long the hostile request took, the platform's peak RSS meanwhile (VmHWM, reset before the
 * case) and its RSS after, and the latency of the concurrent reads (p50, p99, max).
 *
 * 1. fonts: a WOFF2 font whose Brotli tables inflate to 1 GiB (809 bytes of Brotli, its directory
 *    declaring 400 bytes), then a WOFF 1.0 font whose one zlib table inflates to 1 GiB (1 MB),
 *    each made a custom font's face.
 * 2. openapi: an OpenAPI text of 40 schemas each referring twice to the next (4.7 KB), then four
 *    of them at once, then one again; the time is until their processing ended.
 * 3. conversations: one ingest of 100 conversations of about 10 KB each (1 MB).
 *
 * Every answer is checked (the coded refusal, the processing error, the ingested count), so a
 * fast wrong answer fails the run. `BENCH_SOURCE=<folder>` runs the platform of another checkout
 * (for figures before a change); `BENCH_ONLY=fonts,openapi` runs those cases alone;
 * `BENCH_OPENAPI_WAIT_S` (default 120) bounds the wait for a processing.
 */
const SOURCE = resolve(process.env.BENCH_SOURCE ?? '.');
// The platform's process runs the build of that checkout (a no-op when its `dist/` is current).
buildDist(SOURCE);
const ONLY = process.env.BENCH_ONLY?.split(',');
const OPENAPI_WAIT_MS = Number(process.env.BENCH_OPENAPI_WAIT_S ?? 120) * 1000;
const ORG = 'acme';

interface Platform {
  url: string;
  pid: number;
  token: string;
  stop(): Promise<void>;
}

async function startPlatform(): Promise<Platform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hardening-bench-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/platform/main.js'], {
    cwd: SOURCE,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_HOST: '127.0.0.1',
      PLATFORM_PORT: String(port),
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`the platform exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Platform API on')) ready();
    });
  });
  const tokens = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    pid: child.pid!,
    token: Object.values(tokens)[0]!,
    stop: () =>
      new Promise((done) => {
        child.removeAllListeners('exit');
        child.once('exit', () => {
          rmSync(dataDir, { recursive: true, force: true });
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function api(
  platform: Platform,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(platform.url + path, {
    method,
    headers: {
      authorization: `Bearer ${platform.token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Resident memory of a process, now and at its peak since the last reset, in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) =>
    Number(/\d+/.exec(status.split('\n').find((line) => line.startsWith(name)) ?? '')?.[0] ?? 0) / 1024;
  return { rss: field('VmRSS:'), peak: field('VmHWM:') };
}

/** Resets a process's peak RSS to its current RSS (Linux: `echo 5 > /proc/<pid>/clear_refs`). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

interface Measure {
  name: string;
  ms: number;
  peakMb: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  reads: number;
  readP50: number;
  readP99: number;
  readMax: number;
}

/** Runs `work` while reading back to back; answers the figures of the case. */
async function measure(platform: Platform, name: string, work: () => Promise<void>): Promise<Measure> {
  const before = memory(platform.pid).rss;
  resetPeak(platform.pid);
  const latencies: number[] = [];
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const started = performance.now();
      const answer = await fetch(`${platform.url}/orgs/${ORG}`, {
        headers: { authorization: `Bearer ${platform.token}` },
      });
      await answer.arrayBuffer();
      assert.equal(answer.status, 200);
      latencies.push(performance.now() - started);
    }
  })();
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  reading = false;
  await reader;
  const { peak, rss } = memory(platform.pid);
  return {
    name,
    ms,
    peakMb: peak,
    rssBeforeMb: before,
    rssAfterMb: rss,
    reads: latencies.length,
    readP50: percentile(latencies, 50),
    readP99: percentile(latencies, 99),
    readMax: latencies.reduce((max, value) => Math.max(max, value), 0),
  };
}

// --- Fonts ----------------------------------------------------------------------------------------

/** `bytes` of zeros through a compressor, a MiB at a time (never held whole). */
async function squeeze(stream: Transform, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((done) => stream.on('end', done));
  const zeros = Buffer.alloc(1024 * 1024);
  for (let sent = 0; sent < bytes; sent += zeros.length) {
    if (!stream.write(zeros)) await new Promise((drained) => stream.once('drain', drained));
  }
  stream.end();
  await ended;
  return Buffer.concat(chunks);
}

const GIB = 1024 * 1024 * 1024;

/** A WOFF2 font of one table ("name") whose Brotli stream inflates to 1 GiB, declaring `declared` bytes. */
async function woff2Bomb(declared: number): Promise<Buffer> {
  const compressed = await squeeze(
    createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_LGWIN]: 24 } }),
    GIB,
  );
  return woff2File(compressed, declared);
}

/** A WOFF 1.0 font of one table whose zlib stream inflates to 1 GiB, declaring twice its compressed size. */
async function woff1Bomb(): Promise<Buffer> {
  const compressed = await squeeze(createDeflate({ level: 9 }), GIB);
  return woff1File(compressed, compressed.length * 2);
}

async function uploadFont(platform: Platform, bytes: Buffer, name: string): Promise<string> {
  const reserved = await api(platform, 'POST', `/orgs/${ORG}/storage/upload`, {
    file: { name, type: 'font/woff2', size: bytes.length },
    kind: 'customization_font',
  });
  assert.equal(reserved.status, 201);
  const put = await fetch(reserved.body.url, {
    method: 'PUT',
    headers: { 'content-type': 'font/woff2' },
    body: new Uint8Array(bytes),
  });
  assert.equal(put.status, 200);
  return reserved.body.key as string;
}

async function fonts(platform: Platform): Promise<Measure[]> {
  const results: Measure[] = [];
  // Warm-up of the route: a file that is no font.
  const notFont = await uploadFont(
    platform,
    Buffer.from('<html>not a font, but long enough to be read as one</html>'),
    'page.woff2',
  );
  assert.equal(
    (
      await api(platform, 'PUT', `/orgs/${ORG}/fonts`, {
        fontFamily: 'Page',
        fontFaces: [{ weight: 400, storageKey: notFont }],
      })
    ).status,
    400,
  );
  for (const [name, bytes] of [
    ['WOFF2, Brotli to 1 GiB', await woff2Bomb(400)],
    ['WOFF 1.0, zlib to 1 GiB', await woff1Bomb()],
  ] as const) {
    const key = await uploadFont(platform, bytes, 'bomb.woff2');
    results.push(
      await measure(platform, `font: ${name} (${bytes.length} bytes)`, async () => {
        const answer = await api(platform, 'PUT', `/orgs/${ORG}/fonts`, {
          fontFamily: 'Bomb',
          fontFaces: [{ weight: 400, storageKey: key }],
        });
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.match(answer.body.error.message, /fontFaces\.0\.storageKey/);
      }),
    );
  }
  return results;
}

// --- OpenAPI --------------------------------------------------------------------------------------

/** Waits until every spec of `slugs` ended its processing; answers them. */
async function processed(platform: Platform, slugs: string[]): Promise<any[]> {
  const deadline = Date.now() + OPENAPI_WAIT_MS;
  for (;;) {
    const specs = await Promise.all(
      slugs.map(async (slug) => (await api(platform, 'GET', `/orgs/${ORG}/openapi/${slug}`)).body),
    );
    if (specs.every((spec) => spec.processingState === 'complete')) return specs;
    assert.ok(Date.now() < deadline, `still processing after ${OPENAPI_WAIT_MS} ms`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

async function openapi(platform: Platform): Promise<Measure[]> {
  const results: Measure[] = [];
  // The first processing starts the reader's worker; the last one finds it running.
  for (const [round, count] of [1, 4, 1].entries()) {
    const slugs = Array.from({ length: count }, (_, index) => `doubling-${round}-${index}`);
    const when = round === 0 ? ', worker starting' : '';
    results.push(
      await measure(
        platform,
        `openapi: ${count} × 40 doubling schemas (${doublingRefs(40, 'x').length} bytes each${when})`,
        async () => {
          for (const slug of slugs)
            assert.equal(
              (await api(platform, 'POST', `/orgs/${ORG}/openapi`, { slug, source: { text: doublingRefs(40, slug) } }))
                .status,
              201,
            );
          for (const spec of await processed(platform, slugs)) {
            assert.equal(spec.lastProcessErrorCode, 'PARSE_ERROR', JSON.stringify(spec));
            assert.equal(spec.lastVersion, undefined);
          }
        },
      ),
    );
  }
  return results;
}

// --- Conversations --------------------------------------------------------------------------------

const WORDS =
  'account admin api billing browser cache change chart checkout client config dashboard data deploy domain editor email export feature file folder git header image import integration invoice language link login member menu mobile notification page password payment pdf permission plan preview project publish redirect report search session settings site space sso style table team template theme token upload user version webhook workspace'.split(
    ' ',
  );
const OPENINGS = [
  'I cannot',
  'We tried to',
  'Why does the',
  'The',
  'Also, the',
  'It fails when we',
  'Nobody on our team can',
  'How do I',
];
const VERBS = ['open the', 'save the', 'sync the', 'load the', 'find the', 'update the', 'delete the', 'export the'];

/** A deterministic pseudo-random sequence (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` support conversations of about `bytes` each: user and agent messages of varied sentences. */
function conversations(count: number, bytes: number) {
  const next = random(7);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const sentence = () =>
    `${pick(OPENINGS)} ${pick(VERBS)} ${pick(WORDS)} ${pick(WORDS)} in the ${pick(WORDS)} ${pick(WORDS)} since the last ${pick(WORDS)} change${next() < 0.3 ? '?' : '.'}`;
  return Array.from({ length: count }, (_, index) => {
    const parts: Array<{ type: 'message'; role: string; body: string }> = [];
    let size = 0;
    while (size < bytes) {
      let body = '';
      while (body.length < 900) body += `${sentence()} `;
      parts.push({ type: 'message', role: parts.length % 2 === 0 ? 'user' : 'agent', body: body.trim() });
      size += body.length;
    }
    return { id: `bench-${index}`, subject: `${pick(WORDS)} ${pick(WORDS)} problem`, parts };
  });
}

async function ingest(platform: Platform): Promise<Measure[]> {
  const batch = conversations(100, 10_000);
  const before = (await api(platform, 'GET', `/orgs/${ORG}/conversations?limit=1`)).body.count as number;
  const size = JSON.stringify(batch).length;
  const result = await measure(
    platform,
    `conversations: 100 × 10 KB in one ingest (${(size / 1e6).toFixed(2)} MB)`,
    async () => {
      const answer = await api(platform, 'POST', `/orgs/${ORG}/conversations`, batch);
      assert.ok(answer.status === 204 || answer.status === 202, JSON.stringify(answer.body));
    },
  );
  // Ingested (at once, or by the time the queue ran it): every conversation, split into issues.
  const deadline = Date.now() + 60_000;
  while ((await api(platform, 'GET', `/orgs/${ORG}/conversations?limit=1`)).body.count !== before + 100) {
    assert.ok(Date.now() < deadline, 'the conversations were not all ingested');
    await new Promise((done) => setTimeout(done, 20));
  }
  const issues = await api(platform, 'GET', `/orgs/${ORG}/conversations-issues?conversation=bench-0`);
  assert.ok(issues.body.count > 0, 'the ingested conversation has no issue');
  return [result];
}

// --- Run ------------------------------------------------------------------------------------------

const CASES: Record<string, (platform: Platform) => Promise<Measure[]>> = { fonts, openapi, conversations: ingest };

const f = (value: number) => value.toFixed(0);
const platform = await startPlatform();
console.log(`platform from ${SOURCE}`);
console.log('| case | time ms | peak RSS MB | RSS before → after MB | reads | read p50 / p99 / max ms |');
console.log('|---|---|---|---|---|---|');
try {
  // Warm-up: the first requests compile routes and fill caches.
  await measure(platform, 'warm-up', () => new Promise((done) => setTimeout(done, 500)));
  for (const [name, run] of Object.entries(CASES)) {
    if (ONLY && !ONLY.includes(name)) continue;
    for (const row of await run(platform)) {
      console.log(
        `| ${row.name} | ${f(row.ms)} | ${f(row.peakMb)} | ${f(row.rssBeforeMb)} → ${f(row.rssAfterMb)} | ${row.reads} | ${f(row.readP50)} / ${f(row.readP99)} / ${f(row.readMax)} |`,
      );
    }
  }
} finally {
  await platform.stop();
}
