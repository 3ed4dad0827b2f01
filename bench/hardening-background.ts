/**
 * Background work against the request thread, and memory against what was read:
 *
 * 1. Git export of a 4,000-page space to a local bare repository (`GIT_ALLOW_LOCAL`), timed from
 *    the request to the end of its job, while a second client reads (one request at a time) and
 *    records its latency: p50, p99 and max. The repository is checked: one markdown file per page,
 *    the summary listing them.
 * 2. Import of that repository into an empty space, measured the same way, its pages counted.
 * 3. Translation runs of the 4,000-page space, measured the same way: the first (which creates the
 *    result space) and one that translates every page again into it (new instructions).
 * 4. The platform's resident memory (RSS) idle, then after reading 10,000 distinct pages (their
 *    documents and their markdown) in a platform started again, and its peak (VmHWM).
 *
 * The platform runs in a process of its own, compiled as `npm start` runs it (the bench builds
 * `dist/` first), so its memory and event loop are its own; the data (demo organization plus a 4,000-page and a
 * 6,000-page space) is written through the store before it starts.
 *
 *   npx tsx bench/hardening-background.ts
 *   BENCH_PLATFORM_FLAGS='--max-old-space-size=192 --cpu-prof --cpu-prof-dir=/tmp/prof' npx tsx bench/hardening-background.ts   # profile the platform
 *   BENCH_MEMORY_DETAIL=1 BENCH_PLATFORM_FLAGS='--max-old-space-size=192 --expose-gc' …   # the platform's heap and cache after the reads
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setCurrentRevision } from '../src/platform/content/current.js';
import { code, documentOf, heading, listUnordered, paragraph } from '../src/document/model.js';
import { putDocument, storeRevision, type ContentPage } from '../src/platform/content/revisions.js';
import { seedDemoData } from '../src/platform/demo-data.js';
import { insertSpace } from '../src/platform/spaces/store.js';
import { openDatabase, type Db } from '../src/platform/store/db.js';

const EXPORT_PAGES = Number(process.env.BENCH_EXPORT_PAGES ?? 4000);
const READ_PAGES = Number(process.env.BENCH_READ_PAGES ?? 10_000);
const READ_EVERY_MS = 10;

/** About 1 KB of document: a heading, paragraphs, a list and a code block, with words unique to the page. */
function pageDocument(n: number) {
  const words = (salt: number) =>
    Array.from({ length: 24 }, (_, i) => `word${(n * 31 + i * 7 + salt) % 997}`).join(' ');
  return documentOf([
    paragraph(`Page ${n} introduces marker${n} and explains ${words(1)}.`),
    heading(2, `Setup of part ${n}`),
    paragraph(`Before you start, ${words(2)}.`),
    listUnordered([`first step ${words(3)}`, `second step ${n}`, `third step ${words(4)}`]),
    code(`run --page ${n}\nexport VALUE=${n}`, { syntax: 'bash' }),
    heading(2, 'Troubleshooting'),
    paragraph(`If it fails, ${words(5)}.`),
  ]);
}

/** A space of `count` document pages: 40 top-level pages, the rest as their children. Returns the page ids. */
function fillSpace(db: Db, spaceId: string, count: number, first: number): string[] {
  const ids: string[] = [];
  const top: ContentPage[] = [];
  db.transaction(() => {
    for (let i = 0; i < count; i += 1) {
      const n = first + i;
      const page: ContentPage = {
        id: `p${n}`,
        type: 'document',
        title: `Page ${n}`,
        slug: `page-${n}`,
        documentId: putDocument(db, spaceId, pageDocument(n)),
        pages: [],
      };
      ids.push(page.id);
      if (top.length < 40) top.push(page);
      else top[i % 40]!.pages.push(page);
    }
    const current = db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
    const revision = storeRevision(db, {
      spaceId,
      type: 'edits',
      parents: [current],
      content: { pages: top, files: [], reusableContents: [], variables: {} },
      createdAt: new Date().toISOString(),
    });
    setCurrentRevision(db, spaceId, revision);
  })();
  return ids;
}

/** CPU time (user and system) the process has used, in milliseconds. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/**
 * The platform's process, as `npm start` runs it: compiled (`dist/`, built first), without a
 * TypeScript loader, which would add its own memory to what is measured. It listens on a free
 * port, says where, and exits on its own (so that a `--cpu-prof` profile is written).
 */
const CHILD = `
  const { startPlatform } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../dist/platform/server.js', import.meta.url))).href)});
  const { loadConfig } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../dist/config.js', import.meta.url))).href)});
  const platform = await startPlatform({ dataDir: process.argv[1], port: 0, seed: true, gitAllowLocal: true, cacheMb: loadConfig().PLATFORM_CACHE_MB });
  process.stdout.write(JSON.stringify({ url: platform.url, token: Object.values(platform.tokens)[0] }) + '\\n');
  process.once('SIGTERM', () => void platform.close().then(() => process.exit(0)));
  const { cacheSize } = await import(${JSON.stringify(pathToFileURL(fileURLToPath(new URL('../dist/platform/cache.js', import.meta.url))).href)});
  process.on('SIGUSR2', () => {
    const mb = (n) => Math.round(n / 1048576);
    const m = process.memoryUsage();
    globalThis.gc?.();
    const g = process.memoryUsage();
    process.stderr.write('memory: rss ' + mb(m.rss) + ' heapUsed ' + mb(m.heapUsed) + ' heapTotal ' + mb(m.heapTotal) + ' external ' + mb(m.external) + ' | after gc heapUsed ' + mb(g.heapUsed) + ' rss ' + mb(g.rss) + ' | cache ' + JSON.stringify(cacheSize()) + '\\n');
  });
`;

async function startChild(dataDir: string): Promise<{ child: ChildProcess; url: string; token: string }> {
  // The heap limit `npm start` gives its process (GATEWAY_HEAP_MB): V8 grows an unlimited heap
  // with its garbage, whatever is kept.
  const flags = (process.env.BENCH_PLATFORM_FLAGS ?? '--max-old-space-size=192').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [...flags, '--enable-source-maps', '--input-type=module', '-e', CHILD, dataDir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the platform exited (${code})`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { child, url, token };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ['src/build.mjs'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-background-'));
  const bare = join(dataDir, 'export.git');
  execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
  let child: ChildProcess | undefined;
  try {
    const started = Date.now();
    const db = openDatabase({ file: join(dataDir, 'platform.sqlite') });
    seedDemoData(db);
    const exportSpace = insertSpace(db, { orgId: 'acme', title: 'Export bench' });
    const exportIds = fillSpace(db, exportSpace, EXPORT_PAGES, 0);
    const readSpace = insertSpace(db, { orgId: 'acme', title: 'Read bench' });
    const readIds = READ_PAGES > EXPORT_PAGES ? fillSpace(db, readSpace, READ_PAGES - EXPORT_PAGES, EXPORT_PAGES) : [];
    db.close();
    console.log(
      `data: ${EXPORT_PAGES} + ${readIds.length} pages written in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );

    const platform = { ...(await startChild(dataDir)) };
    child = platform.child;
    const api = async (method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${platform.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${platform.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await answer.text();
      return { status: answer.status, body: text ? (JSON.parse(text) as any) : undefined };
    };
    // Warm up: the first answers compile statements and load the space.
    for (let i = 0; i < 20; i += 1) await api('GET', `/spaces/${exportSpace}/content/page/${exportIds[i]}`);
    const idle = memoryOf(child.pid!);
    console.log(`platform idle: RSS ${idle.rssMb} MB`);

    /**
     * Runs background work while another client reads; prints its duration, the platform's CPU
     * and peak RSS meanwhile and the latencies of the reads. `start` asks for the work, `state`
     * answers `running` until it ends, then `success` or what went wrong. Reads start every
     * READ_EVERY_MS whether the previous one answered or not, so a stall of the platform delays
     * every read that falls in it (a client waiting for each answer would see one).
     */
    const whileReading = async (label: string, start: () => Promise<void>, state: () => Promise<string>) => {
      const latencies: number[] = [];
      let running = true;
      const reads: Array<Promise<void>> = [];
      const reader = (async () => {
        for (let i = 0; running; i += 1) {
          const at = performance.now();
          const path =
            i % 2
              ? `/spaces/${exportSpace}`
              : `/spaces/${exportSpace}/content/page/${exportIds[(i * 37) % 20]}?format=document`;
          reads.push(
            api('GET', path).then((answer) => {
              latencies.push(performance.now() - at);
              if (answer.status !== 200) throw new Error(`read answered ${answer.status}`);
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
        }
      })();
      const cpuBefore = cpuMsOf(child!.pid!);
      const startedAt = performance.now();
      await start();
      let peakMb = 0;
      let ended: string;
      for (;;) {
        peakMb = Math.max(peakMb, memoryOf(child!.pid!).rssMb);
        ended = await state();
        if (ended !== 'running') break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const ms = performance.now() - startedAt;
      const cpuMs = cpuMsOf(child!.pid!) - cpuBefore;
      running = false;
      await reader;
      await Promise.all(reads);
      if (ended !== 'success') throw new Error(`${label} ended ${ended}`);
      latencies.sort((a, b) => a - b);
      console.log(
        `${label} of ${EXPORT_PAGES} pages: ${(ms / 1000).toFixed(2)} s (${(ms / EXPORT_PAGES).toFixed(2)} ms per page; platform CPU ${(cpuMs / 1000).toFixed(2)} s), RSS up to ${peakMb} MB; ` +
          `concurrent reads: ${latencies.length}, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
      );
    };
    const asked = async (method: string, path: string, body: unknown, status: number) => {
      const answer = await api(method, path, body);
      if (answer.status !== status)
        throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    };
    const syncWhileReading = (spaceId: string, direction: 'export' | 'import', body: Record<string, unknown>) =>
      whileReading(
        direction,
        () => asked('POST', `/spaces/${spaceId}/git/${direction}`, body, 204),
        async () => {
          const operation = (await api('GET', `/spaces/${spaceId}/git/info`)).body.operation;
          return operation?.state === 'running'
            ? 'running'
            : operation?.state === 'success'
              ? 'success'
              : JSON.stringify(operation);
        },
      );
    /** A translation run of the export space, which translates every page (pseudo-localization), while another client reads. */
    const translationWhileReading = (label: string, translationId: string, runsBefore: number) =>
      whileReading(
        label,
        () => asked('POST', `/orgs/acme/translations/${translationId}/run`, {}, 204),
        async () => {
          const translation = (await api('GET', `/orgs/acme/translations/${translationId}`)).body;
          if (translation.lastRunError) return `with ${JSON.stringify(translation.lastRunError)}`;
          return translation.stats.runs > runsBefore && translation.status === 'completed' ? 'success' : 'running';
        },
      );

    // 1. Export while another client reads; the repository is checked.
    await syncWhileReading(exportSpace, 'export', { url: bare, ref: 'refs/heads/main', commitMessage: 'Bench export' });
    const files = execFileSync('git', ['--git-dir', bare, 'ls-tree', '-r', '--name-only', 'main'])
      .toString()
      .trim()
      .split('\n');
    const markdown = files.filter((file) => file.endsWith('.md') && file !== 'SUMMARY.md');
    if (markdown.length !== EXPORT_PAGES)
      throw new Error(`the repository holds ${markdown.length} page files, not ${EXPORT_PAGES}`);
    const summary = execFileSync('git', ['--git-dir', bare, 'show', 'main:SUMMARY.md']).toString();
    if ((summary.match(/^\s*\* \[/gm) ?? []).length !== EXPORT_PAGES)
      throw new Error('the summary does not list every page');
    const sample = execFileSync('git', [
      '--git-dir',
      bare,
      'show',
      `main:${markdown.find((file) => file.endsWith('page-41.md'))}`,
    ]).toString();
    if (!sample.includes('marker41')) throw new Error('page 41 was not exported with its text');

    // 2. Import of that repository into an empty space, while another client reads.
    const imported = (await api('POST', '/orgs/acme/spaces', { title: 'Import bench' })).body.id as string;
    await syncWhileReading(imported, 'import', { url: bare, ref: 'refs/heads/main' });
    const count = (pages: Array<{ pages?: unknown[] }>): number =>
      pages.reduce((sum, page) => sum + 1 + count((page.pages ?? []) as Array<{ pages?: unknown[] }>), 0);
    const importedPages = count((await api('GET', `/spaces/${imported}/content`)).body.pages);
    if (importedPages !== EXPORT_PAGES) throw new Error(`the import made ${importedPages} pages, not ${EXPORT_PAGES}`);

    // 3. Translation runs of the export space: the first creates the result space, the second
    // (new instructions) translates every page again into it.
    const translation = (
      await asked('POST', '/orgs/acme/translations', { language: 'de', source: { space: exportSpace } }, 201)
    ).id as string;
    await translationWhileReading('first translation run', translation, 0);
    const instructions = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Formal.', marks: [] }] }],
        },
      ],
    };
    await asked('PUT', `/orgs/acme/translations/${translation}`, { instructions }, 200);
    await translationWhileReading('full translation run', translation, 1);

    // 4. Read distinct pages (documents and markdown) in a platform started again: what it keeps
    // then comes from the reads alone.
    const stopped = new Promise((resolve) => child!.once('exit', resolve));
    child.kill();
    await stopped;
    const restarted = await startChild(dataDir);
    child = restarted.child;
    platform.url = restarted.url;
    for (let i = 0; i < 20; i += 1) await api('GET', `/spaces/${exportSpace}/content/page/${exportIds[i]}`);
    const idleAgain = memoryOf(child.pid!);
    const all = [...exportIds, ...readIds];
    const readStart = performance.now();
    for (let i = 0; i < all.length; i += 1) {
      const spaceId = i < exportIds.length ? exportSpace : readSpace;
      const page = await api('GET', `/spaces/${spaceId}/content/page/${all[i]}?format=document`);
      if (page.status !== 200 || !JSON.stringify(page.body.document).includes(`marker${i}`))
        throw new Error(`page ${i} read wrong (${page.status})`);
      if (i % 2 === 0) {
        const asMarkdown = await api('GET', `/spaces/${spaceId}/content/page/${all[i]}?format=markdown`);
        if (asMarkdown.status !== 200 || !String(asMarkdown.body.markdown).includes(`marker${i}`))
          throw new Error(`markdown of page ${i} read wrong (${asMarkdown.status})`);
      }
    }
    const afterReads = memoryOf(child.pid!);
    if (process.env.BENCH_MEMORY_DETAIL) {
      child.kill('SIGUSR2');
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    console.log(
      `after reading ${all.length} distinct pages (${((performance.now() - readStart) / 1000).toFixed(1)} s): RSS ${afterReads.rssMb} MB (idle ${idleAgain.rssMb} MB), peak ${afterReads.peakMb} MB`,
    );
  } finally {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill();
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
