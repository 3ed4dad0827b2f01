import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { catchUpSearchIndex } from '../src/platform/content/current.js';
import type { ContentPage } from '../src/platform/content/revisions.js';
import { putDocument } from '../src/platform/content/revisions.js';
import { seedDemoData } from '../src/platform/demo-data.js';
import { openDatabase, type Db } from '../src/platform/store/db.js';
import { commitContent, textDocument } from '../test/fixtures/content.js';
import { freePort } from '../test/fixtures/ports.js';
import { now, startReader } from '../test/fixtures/hostile-corpus.js';
import { supervisedProcess } from '../test/fixtures/processes.js';
import { getIntrospectionQuery } from 'graphql';
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
// `ws`: the standard `WebSocket` hides a refused upgrade's status (429 here) and cannot drop a socket at once.
import WebSocket from 'ws';

/**
 * The gateway and the embedded platform as `npm start` runs them (`node dist/main.js` with a
 * 192 MiB heap, the platform in its own process), measured on:
 *
 * 1. The page tree of a 4,000-page space, and every page's markdown of a 2,000-page space (the
 *    largest answers the limits admit), then 3 concurrent requests for 100 aliases of that tree
 *    (`BENCH_PARALLEL`, `BENCH_ALIASES`; answers the byte budget refuses): time, the gateway's peak RSS during the operation, latency of a concurrent
 *    `{ viewer { id } }`.
 * 2. kill -9 of the platform's process during a stream of reads and writes: the gateway's
 *    answers (no 5xx), the time until `/ready` is 200 again, every acknowledged write present.
 * 3. A page of 50,000 short paragraphs inserted in a change request (`BENCH_PARAGRAPHS`): the
 *    gateway's answer, whether the platform's process was restarted, and how it ended.
 * 4. The work the gateway does without the platform (`BENCH_ONLY=work` runs these alone), each with
 *    its time, the gateway's peak RSS and a concurrent `{ viewer { id } }`'s latency:
 *    - introspection: 50 aliases of a deep `__schema` (types, their fields' types' fields), 40
 *      aliases of a plain one, and GraphiQL's introspection query (its `gatewayPoints`);
 *    - conversions: 10 aliases of every page's `document { markdown }` over six pages of 6,000
 *      paragraphs (about 1 MB of JSON each), the same again (documents read by id are immutable),
 *      and once with `text`;
 *    - document bodies: four concurrent reads of those 1 MB documents (`document(id:) { json }`).
 * 5. The doors of the other transports, the stores, browsers and rate limits (`BENCH_ONLY=doors`):
 *    four WebSocket `connection_init` of 60 MB at once, 2,000 WebSockets from one address, a 100 MB
 *    POST to `/graphql/stream`, 157 registrations of 1 MB documents, 1,000 of unique 100 KB ones,
 *    200 made-up tokens then a valid one from the same address, the README's dashboard and a
 *    search of 1,000 results 100 times each on a fresh default budget, and GraphiQL asked from
 *    another site's page: each refused or answered as it must be.
 *
 * `npm run build && npx tsx bench/hardening-process.ts` (MAX_RESPONSE_BYTES=1099511627776 runs
 * the gateway without a byte budget, for comparison; `BENCH_ONLY=process` or `work` runs a part,
 * `BENCH_CASES` some of its cases by name; `BENCH_PROF` a directory for the gateway's CPU profile; BENCH_ROOT runs another checkout's `dist/`, to measure before a change). Every answer is checked.
 */
const GATEWAY_HEAP_MB = Number(process.env.GATEWAY_HEAP_MB ?? 192);
/** Aliases of the 4,000-page tree in the third operation (the limits admit 100). */
const ALIASES = Number(process.env.BENCH_ALIASES ?? 100);
/** Paragraphs of the hostile page (`BENCH_PARAGRAPHS`). */
const PARAGRAPHS = Number(process.env.BENCH_PARAGRAPHS ?? 50_000);
/** How many of those run at once (`BENCH_PARALLEL`). */
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 3);
/** Parts to run (`BENCH_ONLY`: `process`, `work`, `doors`, comma-separated). */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'process,work,doors').split(','));
/** Cases to run of those parts (`BENCH_CASES`: names, comma-separated; all when unset). */
const CASES = process.env.BENCH_CASES ? new Set(process.env.BENCH_CASES.split(',')) : undefined;
/** The checkout whose compiled gateway runs (`BENCH_ROOT`). */
const ROOT = resolve(process.env.BENCH_ROOT ?? '.');
/** Paragraphs of each big page of the work cases. */
const BIG_PARAGRAPHS = 6_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A space of `count` document pages, in groups of 100 under top-level pages, each with its own document. */
function bigSpace(db: Db, spaceId: string, count: number, paragraph: string): void {
  const pages: ContentPage[] = [];
  db.transaction(() => {
    for (let top = 0; top * 100 < count; top += 1) {
      const children: ContentPage[] = [];
      for (let i = 1; i < 100 && top * 100 + i < count; i += 1) {
        const n = top * 100 + i;
        children.push({
          id: `bp${n}`,
          type: 'document',
          title: `Page ${n} of the big space`,
          slug: `page-${n}`,
          pages: [],
          documentId: putDocument(
            db,
            spaceId,
            textDocument([
              [1, `Page ${n}`],
              [0, `${paragraph} ${n}`],
            ]),
          ),
        });
      }
      const n = top * 100;
      pages.push({
        id: `bp${n}`,
        type: 'document',
        title: `Chapter ${top}`,
        slug: `chapter-${top}`,
        pages: children,
        documentId: putDocument(db, spaceId, textDocument([[0, `Chapter ${top}`]])),
      });
    }
  })();
  commitContent(db, spaceId, { pages, files: [], reusableContents: [], variables: {} });
}

interface Gateway {
  url: string;
  pid: number;
  child: ChildProcess;
  stderr(): string;
}

async function startGateway(dataDir: string): Promise<Gateway> {
  const [port, platformPort] = [await freePort(), await freePort()];
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
      '--enable-source-maps',
      `--max-old-space-size=${GATEWAY_HEAP_MB}`,
      join(ROOT, 'dist/main.js'),
    ],
    {
      env: {
        ...process.env,
        PORT: String(port),
        PLATFORM_PORT: String(platformPort),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        GATEWAY_HEAP_MB: String(GATEWAY_HEAP_MB),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const gateway = { url: `http://127.0.0.1:${port}`, pid: child.pid!, child, stderr: () => stderr };
  await waitReady(gateway, 30_000);
  // What is measured is the gateway's process, not its supervisor's (a checkout from before the
  // supervisor, `BENCH_ROOT`, runs the gateway in the process it started).
  gateway.pid = supervisedProcess(child.pid!, 'gateway')?.pid ?? child.pid!;
  return gateway;
}

async function readiness(gateway: Gateway): Promise<{ status: number; body: any }> {
  const response = await fetch(`${gateway.url}/ready`);
  return { status: response.status, body: await response.json() };
}

async function waitReady(gateway: Gateway, withinMs: number, unlikePid?: number): Promise<any> {
  const deadline = performance.now() + withinMs;
  while (performance.now() < deadline) {
    const answer = await readiness(gateway).catch(() => undefined);
    if (answer?.status === 200 && answer.body.process?.pid !== unlikePid) return answer.body;
    await sleep(20);
  }
  throw new Error(`not ready within ${withinMs} ms\n${gateway.stderr()}`);
}

async function graphql(gateway: Gateway, token: string | null, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return {
    status: response.status,
    bytes: text.length,
    body: JSON.parse(text) as { data?: any; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> },
  };
}

/** Resident set of a process now, and its peak since the last reset, in MiB (Linux). */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
  return { now: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Resets a process's peak RSS (`VmHWM`) to its current RSS. */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
const round = (n: number) => Math.round(n * 10) / 10;

/** Runs `operation` while a reader sends `{ viewer { id } }` one after the other; measures both and the gateway's RSS. */
async function measure<T>(gateway: Gateway, token: string, operation: () => Promise<T>) {
  await sleep(200);
  (globalThis as { gc?: () => void }).gc?.();
  const idle = rss(gateway.pid).now;
  resetPeak(gateway.pid);
  // In a thread of its own, so that what this process does to send a case does not delay it.
  const reader = startReader(`${gateway.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: '{ viewer { id } }' }),
  });
  const started = now();
  try {
    const result = await operation();
    const ended = now();
    const latencies = await reader.between(started, ended);
    const failedReads = reader.failures();
    const { peak } = isRunning(gateway.pid) ? rss(gateway.pid) : { peak: Number.NaN };
    return {
      result,
      figures: {
        ms: Math.round(ended - started),
        idleRssMiB: round(idle),
        peakRssMiB: round(peak),
        concurrentReads: latencies.length,
        readP50Ms: round(percentile(latencies, 50)),
        readP99Ms: round(percentile(latencies, 99)),
        ...(failedReads ? { failedReads } : {}),
      },
    };
  } finally {
    await reader.stop();
  }
}

const TREE = `query ($id: ID!) { space(id: $id) { content { pages { title ... on DocumentPage { path } children { title ... on DocumentPage { path } } } } } }`;
const MARKDOWN = `query ($id: ID!) { space(id: $id) { content { pages { ... on DocumentPage { markdown } children { ... on DocumentPage { markdown } } } } } }`;

function countPages(pages: Array<{ children?: unknown[] }>): number {
  return pages.reduce((sum, page) => sum + 1 + countPages((page.children ?? []) as Array<{ children?: unknown[] }>), 0);
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-process-'));
  const db = openDatabase({ file: join(dataDir, 'platform.sqlite') });
  const tokens = Object.values(seedDemoData(db));
  const token = tokens[0]!;
  const spaces = db
    .prepare("SELECT id FROM spaces WHERE org_id = 'acme' AND deleted_at IS NULL ORDER BY id LIMIT 3")
    .pluck(true)
    .all() as string[];
  const [treeSpace, markdownSpace, workSpace] = spaces as [string, string, string];
  const seeding = performance.now();
  if (ONLY.has('process')) {
    bigSpace(db, treeSpace, 4_000, 'Short text.');
    bigSpace(
      db,
      markdownSpace,
      2_000,
      'A paragraph of ordinary documentation text, about a hundred and fifty characters long, the size of most paragraphs of a guide, repeated on every page.',
    );
  }
  const bigDocuments = ONLY.has('work') ? bigPages(db, workSpace, 6) : [];
  catchUpSearchIndex(db);
  db.close();
  console.log(`seeded in ${Math.round(performance.now() - seeding)} ms`);

  const gateway = await startGateway(dataDir);
  const report: Record<string, unknown> = {};
  try {
    if (ONLY.has('process')) await processCases(gateway, token, treeSpace, markdownSpace, report);
    if (ONLY.has('work')) await workCases(gateway, dataDir, token, workSpace, bigDocuments, report);
    if (ONLY.has('doors')) await doorCases(gateway, dataDir, tokens, report);
    assert.ok(rss(gateway.pid).now > 0, 'the gateway is alive');
  } finally {
    await stopGateway(gateway);
    if (process.env.BENCH_KEEP_DATA) console.log(`data kept in ${dataDir}`);
    else rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(JSON.stringify(report, null, 2));
}

async function stopGateway(gateway: Gateway): Promise<void> {
  if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
    const exited = new Promise((resolve) => gateway.child.once('exit', resolve));
    gateway.child.kill('SIGTERM');
    await exited;
  }
}

const alive = (gateway: Gateway) => isRunning(gateway.pid);

/** Whether a process still runs. */
function isRunning(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/** What a gateway that ran out of memory left behind. */
async function death(gateway: Gateway) {
  await sleep(500);
  return {
    gatewayDied: !alive(gateway),
    // Its supervisor restarts it, and says how it ended.
    exit:
      /The gateway \(pid \d+\) ended: ([^;]+)/.exec(gateway.stderr())?.[1] ??
      gateway.child.signalCode ??
      gateway.child.exitCode,
    stderrTail: gateway
      .stderr()
      .split('\n')
      .filter((line) => /FATAL|heap/.test(line))
      .slice(0, 2),
  };
}

async function processCases(
  gateway: Gateway,
  token: string,
  treeSpace: string,
  markdownSpace: string,
  report: Record<string, unknown>,
): Promise<void> {
  const tree = await measure(gateway, token, () => graphql(gateway, token, TREE, { id: treeSpace }));
  assert.equal(tree.result.status, 200);
  assert.equal(tree.result.body.errors, undefined, JSON.stringify(tree.result.body.errors?.[0]));
  assert.equal(countPages(tree.result.body.data.space.content.pages), 4_000);
  report.pageTree4000 = { ...tree.figures, answerBytes: tree.result.bytes };

  const markdown = await measure(gateway, token, () => graphql(gateway, token, MARKDOWN, { id: markdownSpace }));
  assert.equal(markdown.result.status, 200);
  const pages = (markdown.result.body.data?.space?.content?.pages ?? []) as Array<{
    markdown?: string | null;
    children: Array<{ markdown?: string | null }>;
  }>;
  const texts = pages
    .flatMap((page) => [page.markdown, ...page.children.map((child) => child.markdown)])
    .filter((text): text is string => typeof text === 'string');
  const codes = new Map<string, number>();
  for (const error of markdown.result.body.errors ?? [])
    codes.set(String(error.extensions?.code), (codes.get(String(error.extensions?.code)) ?? 0) + 1);
  // The limits admit 1,000 upstream requests: the further pages fail alone, with a coded error.
  assert.equal(texts.length + (codes.get('BAD_USER_INPUT') ?? 0), 2_000);
  report.markdown2000 = {
    ...markdown.figures,
    answerBytes: markdown.result.bytes,
    pagesWithMarkdown: texts.length,
    refusedFields: Object.fromEntries(codes),
  };

  const aliases = Array.from(
    { length: ALIASES },
    (_, i) =>
      `t${i}: content { pages { title ... on DocumentPage { path } children { title ... on DocumentPage { path } } } }`,
  );
  const aliasedQuery = `query ($id: ID!) { space(id: $id) { ${aliases.join(' ')} } }`;
  const aliased = await measure(gateway, token, () =>
    Promise.all(Array.from({ length: PARALLEL }, () => graphql(gateway, token, aliasedQuery, { id: treeSpace }))).catch(
      (error: unknown) => error as Error,
    ),
  );
  const name = `pageTree4000x${ALIASES}Aliases${PARALLEL > 1 ? `x${PARALLEL}Concurrent` : ''}`;
  if (aliased.result instanceof Error) {
    // Without a byte budget, the gateway can run out of memory: report it and stop there.
    report[name] = { ...aliased.figures, peakRssMiB: null, ...(await death(gateway)) };
    console.log(JSON.stringify(report, null, 2));
    process.exit(0);
  }
  for (const answer of aliased.result) {
    assert.equal(answer.status, 200);
    const refused = answer.body.errors?.[0]?.extensions;
    if (refused) assert.equal(refused.limit, 'responseBytes');
    else assert.equal(countPages(answer.body.data.space.t0.pages), 4_000);
  }
  const first = aliased.result[0]!;
  report[name] = {
    ...aliased.figures,
    answerBytes: first.bytes,
    refused: first.body.errors?.[0]?.extensions ?? false,
  };

  report.killPlatform = await killDuringStream(gateway, token);
  report.hostilePage = await hostilePage(gateway, token);
}

/** Six pages of `BIG_PARAGRAPHS` one-letter paragraphs (about 1 MB of JSON each); answers their document ids. */
function bigPages(db: Db, spaceId: string, count: number): string[] {
  const documents: string[] = [];
  const pages: ContentPage[] = [];
  db.transaction(() => {
    for (let n = 0; n < count; n += 1) {
      const documentId = putDocument(
        db,
        spaceId,
        textDocument(Array.from({ length: BIG_PARAGRAPHS }, (_, i) => [0, i === 0 ? `Big ${n}` : 'a'] as [0, string])),
      );
      documents.push(documentId);
      pages.push({ id: `big${n}`, type: 'document', title: `Big ${n}`, slug: `big-${n}`, pages: [], documentId });
    }
  })();
  commitContent(db, spaceId, { pages, files: [], reusableContents: [], variables: {} });
  return documents;
}

/** A deep introspection (types, their fields' types and those types' fields), as the hostile tester sent it. */
const DEEP_SCHEMA =
  '__schema { types { name fields { name description type { name fields { name description type { name description } } } } } }';
const PLAIN_SCHEMA =
  '__schema { types { name description fields { name description args { name description } type { name } } } }';

async function workCases(
  started: Gateway,
  dataDir: string,
  token: string,
  space: string,
  documents: string[],
  report: Record<string, unknown>,
): Promise<Gateway> {
  const gateway = started;
  const { run, finish } = caseRunner(gateway, dataDir, report);
  const outcomeOf = (answer: Awaited<ReturnType<typeof graphql>>) => ({
    status: answer.status,
    answerBytes: answer.bytes,
    refused: answer.body.errors?.[0]?.extensions?.limit ?? answer.body.errors?.[0]?.extensions?.code ?? false,
    gatewayPoints: (answer.body as { extensions?: { cost?: { gatewayPoints?: number } } }).extensions?.cost
      ?.gatewayPoints,
  });
  const aliased = (count: number, selection: string) =>
    `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(' ')} }`;

  await run('introspectionDeepx50', async () => {
    const answer = await measure(gateway, token, () => graphql(gateway, token, aliased(50, DEEP_SCHEMA)));
    return { ...answer.figures, ...outcomeOf(answer.result) };
  });
  await run('introspectionPlainx40', async () => {
    const answer = await measure(gateway, token, () => graphql(gateway, token, aliased(40, PLAIN_SCHEMA)));
    return { ...answer.figures, ...outcomeOf(answer.result) };
  });
  await run('introspectionGraphiQL', async () => {
    const answer = await measure(gateway, token, () =>
      graphql(gateway, token, getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })),
    );
    assert.equal(answer.result.body.errors, undefined);
    return { ...answer.figures, ...outcomeOf(answer.result) };
  });

  const pagesOf = (field: string) => `content { pages { ... on DocumentPage { document { ${field} } } } }`;
  const converted = async (field: 'markdown' | 'text') => {
    const query = `query ($id: ID!) { space(id: $id) { ${Array.from({ length: 10 }, (_, i) => `c${i}: ${pagesOf(field)}`).join(' ')} } }`;
    const answer = await measure(gateway, token, () => graphql(gateway, token, query, { id: space }));
    assert.equal(answer.result.body.errors, undefined, JSON.stringify(answer.result.body.errors?.[0]));
    const pages = answer.result.body.data.space.c9.pages as Array<{ document: Record<string, string> }>;
    assert.equal(pages.length, documents.length);
    for (const page of pages) assert.ok(page.document[field]!.startsWith('Big '));
    const cost = (answer.result.body as { extensions?: { cost?: Record<string, number> } }).extensions?.cost;
    return { ...answer.figures, ...outcomeOf(answer.result), upstreamRequests: cost?.upstreamRequests };
  };
  await run('markdown6x6000Paragraphsx10Aliases', () => converted('markdown'));
  await run('markdown6x6000Paragraphsx10AliasesAgain', () => converted('markdown'));
  await run('text6x6000Paragraphsx10Aliases', () => converted('text'));

  await run('documentJson1MBx4Concurrent', async () => {
    const read = (id: string) =>
      graphql(gateway, token, 'query ($space: ID!, $id: ID!) { space(id: $space) { document(id: $id) { json } } }', {
        space,
        id,
      });
    const answer = await measure(gateway, token, () => Promise.all(documents.slice(0, 4).map(read)));
    for (const one of answer.result) {
      assert.equal(one.body.errors, undefined, JSON.stringify(one.body.errors?.[0]));
      assert.equal(one.body.data.space.document.json.nodes.length, BIG_PARAGRAPHS);
    }
    return { ...answer.figures, answerBytes: answer.result[0]!.bytes };
  });
  finish();
  return gateway;
}

/**
 * Runs cases one after another against `gateway`, each reported under its name: one whose answer
 * is wrong fails the run at the end (`finish`); one the gateway died in is reported with how it
 * died, and the gateway serves again for the next.
 */
function caseRunner(gateway: Gateway, dataDir: string, report: Record<string, unknown>) {
  const failures: string[] = [];
  return {
    async run(name: string, operation: () => Promise<Record<string, unknown>>): Promise<void> {
      if (CASES && !CASES.has(name)) return;
      let outcome: Record<string, unknown>;
      try {
        outcome = await operation();
      } catch (error) {
        // A gateway out of memory closes its connections as it dies: give it the time to end.
        for (let waited = 0; waited < 5_000 && alive(gateway); waited += 100) await sleep(100);
        if (alive(gateway)) failures.push(name);
        outcome = {
          error: String(error).split('\n')[0]!.slice(0, 300),
          ...(alive(gateway) ? {} : await death(gateway)),
        };
      }
      report[name] = outcome;
      console.log(name, JSON.stringify(outcome));
      if (!alive(gateway)) await revive(gateway, dataDir);
    },
    finish(): void {
      if (failures.length === 0) return;
      console.log(JSON.stringify(report, null, 2));
      throw new Error(`wrong answers: ${failures.join(', ')}`);
    },
  };
}

/**
 * Makes `gateway` serve again after its process died: its supervisor restarts it; a checkout from
 * before the supervisor (`BENCH_ROOT`) is started anew.
 */
async function revive(gateway: Gateway, dataDir: string): Promise<void> {
  if (gateway.pid !== gateway.child.pid && isRunning(gateway.child.pid!)) {
    await waitReady(gateway, 30_000);
    gateway.pid = supervisedProcess(gateway.child.pid!, 'gateway')!.pid;
    return;
  }
  await stopGateway(gateway);
  Object.assign(gateway, await startGateway(dataDir));
}

/**
 * A page of `PARAGRAPHS` short paragraphs inserted in a change request (the input that once took
 * the whole service down): whatever the platform does with it, the gateway answers, stays up,
 * and is ready again.
 */
async function hostilePage(gateway: Gateway, token: string) {
  const ok = async (query: string, variables: Record<string, unknown>) => {
    const answer = await graphql(gateway, token, query, variables);
    assert.equal(answer.body.errors, undefined, JSON.stringify(answer.body.errors));
    return answer.body.data;
  };
  const { createSpace } = await ok(
    'mutation { createSpace(input: { organizationId: "acme", title: "Hostile" }) { space { id } } }',
    {},
  );
  const { createChangeRequest } = await ok(
    'mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Big" }) { changeRequest { id } } }',
    { id: createSpace.space.id },
  );
  const before = await waitReady(gateway, 1_000);
  const markdown = 'a\n\n'.repeat(PARAGRAPHS);
  const edit = await measure(gateway, token, () =>
    graphql(
      gateway,
      token,
      'mutation ($id: ID!, $markdown: String!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: $markdown } }] }) { edits { pageId } userErrors { code message } } }',
      {
        id: createChangeRequest.changeRequest.id,
        markdown,
      },
    ),
  );
  assert.ok(edit.result.status < 500, `HTTP ${edit.result.status}`);
  // The platform may still be working on it after the gateway's time budget: give it 20 s to finish or die.
  for (let waited = 0; waited < 20_000; waited += 200) {
    const now = await readiness(gateway);
    if (now.body.process?.restarts > before.process.restarts || (now.status === 200 && waited >= 2_000)) break;
    await sleep(200);
  }
  const after = await waitReady(gateway, 30_000);
  const errors = edit.result.body.errors ?? [];
  return {
    ...edit.figures,
    markdownBytes: markdown.length,
    answer: errors.length
      ? errors.map((error) => error.extensions?.code)
      : edit.result.body.data?.editChangeRequestContent?.userErrors?.length
        ? 'userErrors'
        : 'inserted',
    platformRestarted: after.process.pid !== before.process.pid,
    lastExit: after.process.lastExit,
    gatewayAlive: alive(gateway),
  };
}

/** kill -9 of the platform during reads and writes: statuses, time to ready, acknowledged writes found. */
async function killDuringStream(gateway: Gateway, token: string) {
  const before = await waitReady(gateway, 1_000);
  const statuses = new Map<number, number>();
  const codes = new Map<string, number>();
  const acknowledged: Array<{ id: string; title: string }> = [];
  let running = true;
  let n = 0;
  const note = async (answer: Awaited<ReturnType<typeof graphql>>) => {
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    for (const error of answer.body.errors ?? [])
      codes.set(String(error.extensions?.code), (codes.get(String(error.extensions?.code)) ?? 0) + 1);
    if (answer.body.errors) await sleep(20);
  };
  const writer = async () => {
    while (running) {
      n += 1;
      const title = `Bench ${n}`;
      const answer = await graphql(
        gateway,
        token,
        'mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { platformId } userErrors { code } } }',
        { title },
      );
      await note(answer);
      const space = answer.body.data?.createSpace?.space;
      if (space && answer.body.data.createSpace.userErrors.length === 0)
        acknowledged.push({ id: space.platformId, title });
    }
  };
  const reader = async () => {
    while (running) await note(await graphql(gateway, token, '{ viewer { id } organization(id: "acme") { title } }'));
  };
  const stream = [writer(), writer(), reader(), reader()];
  while (acknowledged.length < 20) await sleep(5);
  const killedAt = performance.now();
  process.kill(before.process.pid, 'SIGKILL');
  const after = await waitReady(gateway, 30_000, before.process.pid);
  const readyAfterMs = Math.round(performance.now() - killedAt);
  const ackedAtReady = acknowledged.length;
  while (acknowledged.length < ackedAtReady + 10) await sleep(5);
  running = false;
  await Promise.all(stream);
  let found = 0;
  for (const write of acknowledged) {
    const answer = await graphql(gateway, token, 'query ($id: ID!) { space(id: $id) { title } }', { id: write.id });
    if (answer.body.data?.space?.title === write.title) found += 1;
  }
  assert.equal(found, acknowledged.length, 'every acknowledged write is present');
  assert.ok(![...statuses.keys()].some((status) => status >= 500), 'no 5xx');
  return {
    readyAfterMs,
    restarts: after.process.restarts,
    lastExit: after.process.lastExit,
    statuses: Object.fromEntries(statuses),
    errorCodes: Object.fromEntries(codes),
    acknowledgedWrites: acknowledged.length,
    found,
  };
}

/** The README's dashboard (bound 10,101 upstream requests) and a search of 1,000 results (bound 20,002). */
const DASHBOARD = `{ organizations(first: 50) { nodes { title
  spaces(first: 100) { nodes { title parent { __typename ... on Collection { title } } organization { title } } }
  members(first: 20) { nodes { user { displayName } } } } } }`;
const SEARCH = `{ organization(id: "acme") { search(query: "install", first: 1000) {
  totalCount nodes { title pages { title path page { title } sections { title body } } } } } }`;

/** Sends `body` to `path` by `method`, as a hostile client would, until the gateway answers or closes. */
function send(gateway: Gateway, path: string, body: Buffer, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: any; sentBytes: number }>((resolve, reject) => {
    const request = httpRequest(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-graphql-csrf': '1', ...headers },
    });
    let sentBytes = 0;
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: response.statusCode!, body: text ? JSON.parse(text) : null, sentBytes });
        request.destroy();
      });
    });
    request.on('error', reject);
    // In 1 MiB writes, stopping once the gateway answered: what it read is what it was sent.
    const chunk = 1024 * 1024;
    const write = (offset: number): void => {
      if (request.destroyed) return;
      if (offset >= body.length) return void request.end();
      sentBytes = offset + Math.min(chunk, body.length - offset);
      if (request.write(body.subarray(offset, offset + chunk))) setImmediate(() => write(offset + chunk));
      else request.once('drain', () => write(offset + chunk));
    };
    write(0);
  });
}

/** Opens a WebSocket (`graphql-transport-ws`) to the gateway: how it ended, once it did or was refused. */
function webSocket(gateway: Gateway, init?: string) {
  return new Promise<{ opened: boolean; status?: number; close?: number; socket: WebSocket }>((resolve) => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    socket.on('unexpected-response', (_request, response) =>
      resolve({ opened: false, status: response.statusCode, socket }),
    );
    socket.on('error', () => resolve({ opened: false, socket }));
    socket.on('open', () => {
      if (init === undefined) return resolve({ opened: true, socket });
      socket.send(init);
    });
    socket.on('close', (code) => resolve({ opened: true, close: code, socket }));
  });
}

/**
 * The doors of the issue "Hardening II" (transports, stores, browsers, rate limits), each with its
 * expected refusal or answer, its time, the gateway's peak RSS and a concurrent read's latency.
 */
async function doorCases(gateway: Gateway, dataDir: string, tokens: string[], report: Record<string, unknown>) {
  const [admin, ...others] = tokens as [string, ...string[]];
  const { run, finish } = caseRunner(gateway, dataDir, report);

  await run('webSocketInit60MBx4', async () => {
    const init = JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(60 * 1024 * 1024) } });
    const answer = await measure(gateway, admin, () => Promise.all([0, 1, 2, 3].map(() => webSocket(gateway, init))));
    const closes = answer.result.map((one) => one.close);
    // Past the message limit (`MAX_REQUEST_BYTES`), ws closes with 1009: too big.
    assert.deepEqual(closes, [1009, 1009, 1009, 1009]);
    return { ...answer.figures, closes };
  });
  await run('webSocketConnections2000', async () => {
    const answer = await measure(gateway, admin, () =>
      Promise.all(Array.from({ length: 2_000 }, () => webSocket(gateway))),
    );
    const opened = answer.result.filter((one) => one.opened).length;
    const refused = answer.result.filter((one) => one.status === 429).length;
    for (const one of answer.result) one.socket.terminate();
    assert.equal(opened, 100, 'MAX_CONNECTIONS_PER_ADDRESS');
    assert.equal(refused, 1_900);
    return { ...answer.figures, opened, refused };
  });
  await run('streamPost100MB', async () => {
    const body = Buffer.alloc(100 * 1024 * 1024, 0x20);
    const answer = await measure(gateway, admin, () => send(gateway, '/graphql/stream', body));
    assert.equal(answer.result.status, 413);
    return { ...answer.figures, status: answer.result.status, sentMiB: answer.result.sentBytes / 1024 / 1024 };
  });
  const registration = (document: string) =>
    Buffer.from(
      JSON.stringify({
        query: document,
        extensions: {
          persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(document).digest('hex') },
        },
      }),
    );
  const unique = (bytes: number, n: number) => `# ${n} ${'x'.repeat(bytes)}\n{ __typename }`;
  await run('persistedQuery1MBx157', async () => {
    const answer = await measure(gateway, admin, async () => {
      const codes = new Map<string, number>();
      for (let n = 0; n < 157; n += 1) {
        const one = await send(gateway, '/graphql', registration(unique(1_000_000, n)));
        const reason = String(one.body?.errors?.[0]?.extensions?.reason ?? one.status);
        codes.set(reason, (codes.get(reason) ?? 0) + 1);
      }
      return Object.fromEntries(codes);
    });
    assert.deepEqual(answer.result, { PERSISTED_QUERY_TOO_LARGE: 157 });
    return { ...answer.figures, answers: answer.result };
  });
  await run('persistedQuery100KBx1000Unique', async () => {
    const answer = await measure(gateway, admin, async () => {
      let registered = 0;
      for (let n = 0; n < 1_000; n += 1) {
        const one = await send(gateway, '/graphql', registration(unique(100_000, n)), {
          authorization: `Bearer ${others[0]}`,
        });
        if (one.status === 200 && one.body.data?.__typename === 'Query') registered += 1;
      }
      return registered;
    });
    assert.equal(answer.result, 1_000);
    return { ...answer.figures, registered: answer.result };
  });
  await run('madeUpTokensx200ThenAValidOne', async () => {
    const answer = await measure(gateway, admin, async () => {
      const refused = new Map<string, number>();
      for (let n = 0; n < 200; n += 1) {
        const one = await graphql(gateway, `made-up-${n}`, '{ viewer { id } }');
        const code = String(one.body.errors?.[0]?.extensions?.code ?? one.status);
        refused.set(code, (refused.get(code) ?? 0) + 1);
      }
      const valid = await graphql(gateway, others[1]!, '{ viewer { id } }');
      const anonymous = await graphql(gateway, null, '{ __typename }');
      return { madeUp: Object.fromEntries(refused), valid, anonymous };
    });
    assert.equal(answer.result.valid.body.errors, undefined, JSON.stringify(answer.result.valid.body.errors));
    assert.equal(answer.result.anonymous.body.errors, undefined);
    return { ...answer.figures, madeUp: answer.result.madeUp };
  });
  for (const [name, query] of [
    ['dashboardx100', DASHBOARD],
    ['searchFirst1000x100', SEARCH],
  ] as const) {
    await run(name, async () => {
      const answer = await measure(gateway, admin, async () => {
        let points = 0;
        for (let n = 0; n < 100; n += 1) {
          const one = await graphql(gateway, others[2]!, query);
          assert.equal(one.body.errors, undefined, JSON.stringify(one.body.errors?.[0]));
          points += (one.body as { extensions: { rateLimit: { cost: number } } }).extensions.rateLimit.cost;
        }
        return points;
      });
      return { ...answer.figures, pointsFor100: answer.result };
    });
    // Each on a fresh budget of its own.
    others.splice(2, 1);
  }
  await run('graphiqlFromAnotherSite', async () => {
    const answer = await measure(gateway, admin, async () => {
      const page = await fetch(`${gateway.url}/graphql`, {
        headers: { accept: 'text/html', origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      const html = await page.text();
      const tabs = await fetch(`${gateway.url}/graphiql/demo-tabs`, {
        method: 'POST',
        headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      return { html, allowOrigin: page.headers.get('access-control-allow-origin'), tabs: tabs.status };
    });
    assert.ok(!answer.result.html.includes(admin), 'no token in the page');
    assert.equal(answer.result.allowOrigin, null);
    assert.equal(answer.result.tabs, 403);
    return { ...answer.figures, allowOrigin: answer.result.allowOrigin, demoTabs: answer.result.tabs };
  });
  finish();
}

await main();
