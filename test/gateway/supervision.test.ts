import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import type { UpstreamProcessStatus } from '../../src/gateway/http/health.js';
import { catchUpSearchIndex } from '../../src/platform/content/current.js';
import { seedDemoData } from '../../src/platform/demo-data.js';
import { openDatabase } from '../../src/platform/store/db.js';
import { freePort } from '../fixtures/ports.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Readiness {
  status: string;
  reason?: string;
  process?: { state: string; pid?: number; restarts: number; lastExit?: string };
}

/** `npm run dev` as a process: the gateway, which starts and supervises the platform's process. */
describe('the gateway supervises the embedded platform in a process of its own', () => {
  let dataDir: string;
  let gateway: ChildProcess;
  let gatewayUrl: string;
  let token: string;
  let stderr = '';
  let exited: { code: number | null; signal: string | null } | undefined;

  const ready = async (): Promise<{ status: number; body: Readiness }> => {
    const response = await fetch(`${gatewayUrl}/ready`);
    return { status: response.status, body: (await response.json()) as Readiness };
  };

  /** Polls `/ready` until it answers 200 (and, with `unlike`, names another platform process). */
  const waitReady = async (withinMs: number, unlike?: number): Promise<Readiness> => {
    const deadline = Date.now() + withinMs;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const answer = await ready();
        last = answer.body;
        if (answer.status === 200 && answer.body.process?.pid !== unlike) return answer.body;
      } catch (error) {
        last = error;
      }
      await sleep(50);
    }
    throw new Error(`not ready within ${withinMs} ms: ${JSON.stringify(last)}\n${stderr}`);
  };

  const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${gatewayUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> },
    };
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gateway-supervision-'));
    // Seeded here, as the first start would: this test is about restarts, not about seeding.
    const db = openDatabase({ file: join(dataDir, 'platform.sqlite') });
    token = Object.values(seedDemoData(db))[0]!;
    catchUpSearchIndex(db);
    db.close();
    const port = await freePort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    gateway = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        PORT: String(port),
        // A port the system gives the platform: one picked free here could be taken before it
        // listens, while other tests run beside this one. Its restarts keep the port it got.
        PLATFORM_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    gateway.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    gateway.once('exit', (code, signal) => (exited = { code, signal }));
    await waitReady(20_000);
  });

  afterAll(async () => {
    if (gateway && !exited) {
      const gone = new Promise((resolve) => gateway.once('exit', resolve));
      gateway.kill('SIGTERM');
      await gone;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stays up through kill -9 of the platform, answers no 5xx, restarts it and keeps every acknowledged write', async () => {
    const before = await waitReady(1_000);
    const platformPid = before.process!.pid!;
    expect(before.process).toEqual({ state: 'running', pid: platformPid, restarts: 0 });

    const statuses: number[] = [];
    const codes = new Set<string>();
    const acknowledged: Array<{ id: string; title: string }> = [];
    let writes = 0;
    let running = true;
    /** Notes an answer; after a failed one, waits a little, as a client would before trying again. */
    const record = async (answer: Awaited<ReturnType<typeof graphql>>) => {
      statuses.push(answer.status);
      for (const error of answer.body.errors ?? []) codes.add(error.extensions?.code ?? 'none');
      if (answer.body.errors) await sleep(50);
    };
    const writer = async () => {
      while (running) {
        writes += 1;
        const title = `Survivor ${writes}`;
        const answer = await graphql(
          'mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { platformId title } userErrors { code } } }',
          { title },
        );
        await record(answer);
        const created = answer.body.data?.createSpace;
        if (created?.space && created.userErrors.length === 0)
          acknowledged.push({ id: created.space.platformId, title });
      }
    };
    const reader = async () => {
      while (running) await record(await graphql('{ viewer { id } organization(id: "acme") { title } }'));
    };
    const stream = [writer(), writer(), reader(), reader()];

    while (acknowledged.length < 10) await sleep(10);
    const beforeKill = acknowledged.length;
    process.kill(platformPid, 'SIGKILL');
    const during = await ready();
    const after = await waitReady(5_000, platformPid);
    const ackedAtRestart = acknowledged.length;
    while (acknowledged.length < ackedAtRestart + 5) await sleep(10);
    running = false;
    await Promise.all(stream);

    expect(exited).toBeUndefined();
    expect(alive(platformPid)).toBe(false);
    expect(statuses.filter((status) => status >= 500)).toEqual([]);
    // Fields that needed the platform while it was down failed with the one code for it.
    expect([...codes].filter((code) => code !== 'UPSTREAM_UNAVAILABLE')).toEqual([]);
    expect(beforeKill).toBeGreaterThanOrEqual(10);
    if (during.status === 503)
      expect(during.body.reason).toMatch(/^The platform is (not running|not reachable|failing)/);
    expect(after.process).toEqual({
      state: 'running',
      pid: expect.any(Number),
      restarts: 1,
      lastExit: 'killed by SIGKILL',
    });
    expect(stderr).toMatch(
      new RegExp(`The embedded platform \\(pid ${platformPid}\\) ended: killed by SIGKILL; restart 1 in \\d+\\.\\d s`),
    );

    const found = new Map<string, string>();
    for (let start = 0; start < acknowledged.length; start += 40) {
      const batch = acknowledged.slice(start, start + 40);
      const fields = batch.map(
        (write, index) => `s${index}: space(id: ${JSON.stringify(write.id)}) { platformId title }`,
      );
      const stored = await graphql(`{ ${fields.join(' ')} }`);
      expect(stored.body.errors).toBeUndefined();
      for (const space of Object.values(stored.body.data) as Array<{ platformId: string; title: string }>)
        found.set(space.platformId, space.title);
    }
    expect(acknowledged.filter((write) => found.get(write.id) !== write.title)).toEqual([]);
  });

  it('takes the platform down with it, even when killed', async () => {
    const { process: platform } = await waitReady(1_000);
    const gone = new Promise((resolve) => gateway.once('exit', resolve));
    gateway.kill('SIGKILL');
    await gone;
    // The platform sees its IPC channel close, and exits.
    for (let tries = 0; tries < 250 && alive(platform!.pid!); tries += 1) await sleep(20);
    expect(alive(platform!.pid!)).toBe(false);
  });
});

describe('/ready with a supervised upstream process', () => {
  it('answers 503 naming how the process ended while it restarts, without asking it', async () => {
    let status: UpstreamProcessStatus = {
      state: 'restarting',
      restarts: 2,
      lastExit: 'killed by SIGABRT, heap limit reached',
    };
    // Nothing listens there: a ping would fail differently.
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9/v1',
      graphiql: { enabled: false },
      upstreamProcess: () => status,
    });
    try {
      const restarting = await gateway.fetch('http://gateway.test/ready');
      expect(restarting.status).toBe(503);
      expect(await restarting.json()).toEqual({
        status: 'unavailable',
        reason:
          'The platform is not running: its process ended (killed by SIGABRT, heap limit reached) and is restarting (restart 2)',
        upstream: { reachable: false, durationMs: 0, reason: 'not asked: the process is not running' },
        breaker: { state: 'closed', consecutiveFailures: 0 },
        process: status,
      });
      status = { state: 'running', pid: 4242, restarts: 2, lastExit: 'killed by SIGABRT, heap limit reached' };
      const running = await gateway.fetch('http://gateway.test/ready');
      expect(running.status).toBe(503);
      expect(await running.json()).toMatchObject({
        reason: expect.stringMatching(/^The platform is not reachable: /),
        process: status,
      });
    } finally {
      await gateway.close();
    }
  });
});
