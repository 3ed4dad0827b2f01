/**
 * `npm start` time to ready: from spawning `npm start` to the gateway's first `/health` answer, the build check
 * (`src/build.mjs`) and the embedded platform's start included, as a user or a process manager sees it.
 *
 *   npx tsx bench/start.ts            # on the tree as it is: built once first, then RUNS starts (default 5)
 *   npx tsx bench/start.ts --rebuild  # each start after emptying dist/: what the first start after a change costs
 *   npx tsx bench/start.ts --fresh    # each start as the first after `npm ci`: an empty data folder, no compile cache
 *
 * Each start uses one data folder, seeded by a first start that is not counted (seeding happens once in a
 * folder's life), unless `--fresh`. Prints each start and the minimum, median and maximum.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.RUNS ?? 5);
const rebuild = process.argv.includes('--rebuild');
const fresh = process.argv.includes('--fresh');

/** Milliseconds from spawning `npm start` to the first answer of `GET /health`, which must be a 200. */
async function timeStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    // Its own process group, so that stopping it stops the gateway and its platform under npm too.
    detached: true,
    env: { ...process.env, PORT: '0', PLATFORM_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const url = await printedUrl(child);
    for (;;) {
      const status = await fetch(`${url}/health`).then(
        (response) => response.status,
        () => undefined,
      );
      if (status === 200) return performance.now() - started;
      if (status !== undefined) throw new Error(`/health answered ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGTERM');
    await gone;
  }
}

/** The gateway's address, from the line `npm start` prints once it listens (`PORT=0` gets a free port). */
function printedUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let printed = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /GraphQL gateway: (http:\/\/\S+)\/graphql/.exec(printed)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${printed}`)));
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
try {
  await timeStart(dataDir);
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    if (rebuild) rmSync(join(root, 'dist'), { recursive: true, force: true });
    if (fresh) {
      rmSync(dataDir, { recursive: true, force: true });
      // `npm ci` builds `dist/` anew: V8's compile cache beside it is empty until a start fills it.
      rmSync(join(root, 'dist', '.compile-cache'), { recursive: true, force: true });
    }
    times.push(await timeStart(dataDir));
    console.log(`start ${run + 1}: ${times.at(-1)!.toFixed(0)} ms`);
  }
  const sorted = times.toSorted((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(
    `npm start ready${rebuild ? ' (dist/ emptied before each)' : ''}${fresh ? ' (an empty data folder, no compile cache)' : ''}: min ${sorted[0]!.toFixed(0)} ms, ` +
      `median ${median.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms (${runs} starts)`,
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
