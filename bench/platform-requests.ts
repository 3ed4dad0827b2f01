/**
 * The platform's start and its CPU per page of 100 spaces, for the request gate of the API description
 * (`src/platform/validation.ts`): run it on two builds to compare them.
 *
 *   npm run build && npx tsx bench/platform-requests.ts [root]   # root: a package folder with a built dist/ (default: this one)
 *
 * Start: spawn of `dist/platform/main.js` to its "Platform API on" line, over a data folder seeded by a first start
 * (not counted), RUNS times (default 5): minimum, median and maximum, and the process's CPU at that point. CPU per
 * page: `GET /v1/orgs/acme/spaces?limit=100` read by a member whose role is computed per space (as bench/run.ts),
 * 100 to warm up, then ROUNDS rounds (default 4) of 500, CPU read from /proc; then the same page read right after a
 * write (which builds every item again: kept items last until the next write), as rounds of a write and a read less
 * rounds of the write alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';

const root = resolve(process.argv[2] ?? '.');
const runs = Number(process.env.RUNS ?? 5);
const rounds = Number(process.env.ROUNDS ?? 4);

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

async function startPlatform(dataDir: string) {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--enable-source-maps', join(root, 'dist/platform/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_HOST: '127.0.0.1',
      PLATFORM_PORT: String(port),
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`platform exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('Platform API on')) done();
    });
  });
  return {
    readyMs: performance.now() - started,
    startCpuMs: cpuMs(child.pid!),
    url: `http://127.0.0.1:${port}/v1`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((done) => {
        child.removeAllListeners('exit');
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

const ms = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${sorted[0]!.toFixed(0)} / ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} / ${sorted.at(-1)!.toFixed(0)}`;
};

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-requests-bench-'));
  try {
    await (await startPlatform(dataDir)).stop();
    const ready: number[] = [];
    const cpu: number[] = [];
    for (let run = 0; run < runs; run += 1) {
      const platform = await startPlatform(dataDir);
      ready.push(platform.readyMs);
      cpu.push(platform.startCpuMs);
      await platform.stop();
    }
    console.log(
      `${root}\nstart to listening, ms (min / median / max of ${runs}): ${ms(ready)}; CPU at that point: ${ms(cpu)}`,
    );

    const platform = await startPlatform(dataDir);
    try {
      const tokens = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
      const admin = Object.values(tokens)[0]!;
      const reader = Object.entries(tokens).find(([email]) => email.startsWith('finn@'))![1];
      for (let index = 0; index < 100; index += 1) {
        const created = await request(`${platform.url}/orgs/acme/spaces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `Bench space ${index}` }),
        });
        assert.equal(created.statusCode, 201);
        await created.body.dump();
      }
      const list = async () => {
        const response = await request(`${platform.url}/orgs/acme/spaces?limit=100`, {
          headers: { authorization: `Bearer ${reader}` },
        });
        const body = (await response.body.json()) as { items: unknown[] };
        assert.equal(response.statusCode, 200);
        assert.equal(body.items.length, 100);
      };
      for (let index = 0; index < 100; index += 1) await list();
      const perPage: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const before = cpuMs(platform.pid);
        for (let index = 0; index < 500; index += 1) await list();
        perPage.push((cpuMs(platform.pid) - before) / 500);
      }
      console.log(
        `platform CPU per page of 100 spaces (a reader), ms, ${rounds} rounds of 500: ${perPage.map((value) => value.toFixed(2)).join(', ')}`,
      );

      // The first read after a write builds every item again: rounds of a write then a read, less rounds of the
      // write alone, give that read's CPU.
      const spaceId = (
        (await (
          await request(`${platform.url}/orgs/acme/spaces?limit=1`, {
            headers: { authorization: `Bearer ${admin}` },
          })
        ).body.json()) as { items: Array<{ id: string }> }
      ).items[0]!.id;
      let edits = 0;
      const write = async () => {
        const updated = await request(`${platform.url}/spaces/${spaceId}`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: JSON.stringify({ emoji: edits++ % 2 === 0 ? '1f4d8' : '1f4d7' }),
        });
        assert.equal(updated.statusCode, 200);
        await updated.body.dump();
      };
      const cpuOf = async (step: () => Promise<void>) => {
        const before = cpuMs(platform.pid);
        for (let index = 0; index < 200; index += 1) await step();
        return (cpuMs(platform.pid) - before) / 200;
      };
      const afterWrite: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const writeAndRead = await cpuOf(async () => {
          await write();
          await list();
        });
        afterWrite.push(writeAndRead - (await cpuOf(write)));
      }
      console.log(
        `platform CPU per page of 100 spaces right after a write, ms, ${rounds} rounds of 200: ${afterWrite.map((value) => value.toFixed(2)).join(', ')}`,
      );
    } finally {
      await platform.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
