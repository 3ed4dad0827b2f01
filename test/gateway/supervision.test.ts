import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import type { UpstreamProcessStatus } from '../../src/gateway/http/health.js';
import { addOrg } from '../fixtures/org.js';
import { startTestPlatform } from '../fixtures/platform.js';
import { freePort } from '../fixtures/ports.js';
import { supervisedProcess } from '../fixtures/processes.js';
import { NPM_START_ARGS } from '../fixtures/built.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { until } from '../fixtures/wait.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The organization the tests write to. */
const ORG = 'northwind';
/** The embedded platform without the demo data: it starts on what its data folder holds. */
const NO_DEMO = { PLATFORM_DEMO_DATA: '0' };

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

/** `npm start`'s entry as `npm start` runs it (the compiled `dist/main.js`), and what it printed. */
interface Started {
  child: ChildProcess;
  url: string;
  /** The processes its start-up lines name. */
  gatewayPid: number;
  platformPid: number;
  stdout(): string;
  stderr(): string;
  /** Set once it ended. */
  readonly exited: { code: number | null; signal: string | null } | undefined;
  ended: Promise<{ code: number | null; signal: string | null }>;
}

/** Every `npm start` spawned here: one whose start outlived its test is killed with the file's end. */
const spawned = new Set<ChildProcess>();
afterAll(() => {
  // Its children see their IPC channel close, and end.
  for (const child of spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Spawns `dist/main.js` on a port of its own; resolves once it printed its start-up lines (the gateway listens). */
async function startNpmStart(env: Record<string, string>, { detached = false } = {}): Promise<Started> {
  const child = spawn(process.execPath, NPM_START_ARGS, {
    cwd: projectRoot,
    // A process group of its own, for a signal to all of it.
    detached,
    env: { ...process.env, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  spawned.add(child);
  let stdout = '';
  let stderr = '';
  let exited: Started['exited'];
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = { code, signal };
      resolve(exited);
    }),
  );
  const printed = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const lines =
        /GraphQL gateway: (http:\/\/\S+)\/graphql .*process (\d+)\)\nUpstream REST API: \S+ \(embedded platform, process (\d+)\)/.exec(
          stdout,
        );
      if (lines) resolve(lines);
    });
    void ended.then(({ code, signal }) =>
      reject(new Error(`npm start ended (${signal ?? code}):\n${stdout}${stderr}`)),
    );
  });
  const started: Started = {
    child,
    url: printed[1]!,
    gatewayPid: Number(printed[2]),
    platformPid: Number(printed[3]),
    stdout: () => stdout,
    stderr: () => stderr,
    get exited() {
      return exited;
    },
    ended,
  };
  return started;
}

async function readiness(url: string): Promise<{ status: number; body: Readiness }> {
  const response = await fetch(`${url}/ready`);
  return { status: response.status, body: (await response.json()) as Readiness };
}

/**
 * Polls `/ready` until it answers 200 (and, with `unlike`, names another platform process). No
 * deadline of its own: a busy machine restarts a process slower, and the test's timeout is the guard.
 */
async function waitReady(url: string, unlike?: number): Promise<Readiness> {
  for (;;) {
    try {
      const answer = await readiness(url);
      if (answer.status === 200 && answer.body.process?.pid !== unlike) return answer.body;
    } catch {
      // Not listening yet (a gateway being restarted).
    }
    await sleep(50);
  }
}

/** Polls until none of `pids` is alive (processes of another parent: their exit is not an event here). */
async function ended(pids: number[]): Promise<void> {
  while (pids.some(alive)) await sleep(20);
}

/**
 * How long a test that starts `npm start` may take before it counts as hung: a guard, not a bound.
 * A start (three processes) takes a second or two alone, several times that on a busy machine.
 */
const PROCESS_GUARD_MS = 180_000;

async function graphqlAt(url: string, token: string, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { data?: any; errors?: Array<{ extensions?: { code?: string } }> },
  };
}

/**
 * A data folder whose database holds Northwind with its admin, built through a test platform over it, and the
 * admin's token.
 */
async function builtDataDir(prefix: string): Promise<{ dataDir: string; token: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  const builder = await startTestPlatform({ dataDir, seed: false });
  const token = addOrg(builder, { id: ORG, title: 'Northwind Docs', members: { ada: 'admin' } }).token('ada');
  await builder.destroy();
  return { dataDir, token };
}

/** `npm run dev` as a process: a supervisor, running the gateway and the platform in processes of their own. */
describe('npm start supervises the embedded platform in a process of its own', () => {
  let dataDir: string;
  let started: Started;
  let gatewayUrl: string;
  let token: string;

  const ready = () => readiness(gatewayUrl);
  const waitReadyHere = (unlike?: number) => waitReady(gatewayUrl, unlike);
  const ask = (query: string, variables: Record<string, unknown> = {}) =>
    graphqlAt(gatewayUrl, token, query, variables);

  beforeAll(async () => {
    ({ dataDir, token } = await builtDataDir('gateway-supervision-'));
    const port = await freePort();
    started = await startNpmStart({
      PORT: String(port),
      // A port the system gives the platform: one picked free here could be taken before it
      // listens, while other tests run beside this one. Its restarts keep the port it got.
      PLATFORM_PORT: '0',
      DATA_DIR: dataDir,
      ...NO_DEMO,
    });
    gatewayUrl = started.url;
    await waitReadyHere();
  }, PROCESS_GUARD_MS);

  afterAll(async () => {
    if (started && !started.exited) {
      started.child.kill('SIGTERM');
      await started.ended;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stays up through kill -9 of the platform, answers no 5xx, restarts it and keeps every acknowledged write', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const before = await waitReadyHere();
    const platformPid = before.process!.pid!;
    expect(before.process).toEqual({ state: 'running', pid: platformPid, restarts: 0 });

    const statuses: number[] = [];
    const codes = new Set<string>();
    const acknowledged: Array<{ id: string; title: string }> = [];
    let writes = 0;
    let running = true;
    /** Notes an answer; after a failed one, waits a little, as a client would before trying again. */
    const record = async (answer: Awaited<ReturnType<typeof ask>>) => {
      statuses.push(answer.status);
      for (const error of answer.body.errors ?? []) codes.add(error.extensions?.code ?? 'none');
      if (answer.body.errors) await sleep(50);
    };
    const writer = async () => {
      while (running) {
        writes += 1;
        const title = `Survivor ${writes}`;
        const answer = await ask(
          `mutation ($title: String!) { createSpace(input: { organizationId: "${ORG}", title: $title }) { space { platformId title } userErrors { code } } }`,
          { title },
        );
        await record(answer);
        const created = answer.body.data?.createSpace;
        if (created?.space && created.userErrors.length === 0)
          acknowledged.push({ id: created.space.platformId, title });
      }
    };
    const reader = async () => {
      while (running) await record(await ask(`{ viewer { id } organization(id: "${ORG}") { title } }`));
    };
    const stream = [writer(), writer(), reader(), reader()];

    while (acknowledged.length < 10) await sleep(10);
    const beforeKill = acknowledged.length;
    process.kill(platformPid, 'SIGKILL');
    const during = await ready();
    const after = await waitReadyHere(platformPid);
    const ackedAtRestart = acknowledged.length;
    while (acknowledged.length < ackedAtRestart + 5) await sleep(10);
    running = false;
    await Promise.all(stream);

    expect(started.exited).toBeUndefined();
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
    expect(started.stderr()).toMatch(
      new RegExp(`The embedded platform \\(pid ${platformPid}\\) ended: killed by SIGKILL; restart 1 in \\d+\\.\\d s`),
    );

    const found = new Map<string, string>();
    for (let start = 0; start < acknowledged.length; start += 40) {
      const batch = acknowledged.slice(start, start + 40);
      const fields = batch.map(
        (write, index) => `s${index}: space(id: ${JSON.stringify(write.id)}) { platformId title }`,
      );
      const stored = await ask(`{ ${fields.join(' ')} }`);
      expect(stored.body.errors).toBeUndefined();
      for (const space of Object.values(stored.body.data) as Array<{ platformId: string; title: string }>)
        found.set(space.platformId, space.title);
    }
    expect(acknowledged.filter((write) => found.get(write.id) !== write.title)).toEqual([]);
  });

  it('takes the gateway and the platform down with it, even when killed', { timeout: PROCESS_GUARD_MS }, async () => {
    await waitReadyHere();
    const children = (['gateway', 'platform'] as const).map((part) => supervisedProcess(started.child.pid!, part)!.pid);
    expect(children[0]).toBe(started.gatewayPid);
    started.child.kill('SIGKILL');
    await started.ended;
    // Both see their IPC channel close, and exit.
    await ended(children);
  });
});

describe("npm start pushes the platform's events to its gateway", () => {
  it('registers the gateway, on the port it chose, and a merge made on the platform reaches a subscriber without a poll', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const { dataDir, token } = await builtDataDir('gateway-events-');
    // PORT=0: the supervisor chooses the port before either process starts, so that the platform knows the receiver.
    const started = await startNpmStart({
      PORT: '0',
      PLATFORM_PORT: '0',
      DATA_DIR: dataDir,
      ...NO_DEMO,
      UPSTREAM_EVENTS_TOKEN: token,
      // A poll an hour: only a delivery brings the second event within the test's time.
      SUBSCRIPTION_POLL_MS: '3600000',
      LOG_LEVEL: 'info',
    });
    try {
      await until(() => started.stdout().includes('Platform events: pushed to'));
      expect(started.stdout()).toContain(
        `Platform events: pushed to ${started.url}/platform-events from 1 organization(s)\n`,
      );
      const platformUrl = /Upstream REST API: (\S+) /.exec(started.stdout())![1]!;
      const ask = (query: string, variables: Record<string, unknown> = {}) =>
        graphqlAt(started.url, token, query, variables);
      const space = await ask(
        `mutation { createSpace(input: { organizationId: "${ORG}", title: "Pushed" }) { space { platformId } } }`,
      );
      const spaceId = space.body.data.createSpace.space.platformId as string;
      const created = await ask(
        `mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "A page" }) { changeRequest { id platformId } } }`,
        { id: spaceId },
      );
      const changeRequest = created.body.data.createChangeRequest.changeRequest;
      await ask(
        `mutation ($id: ID!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: "# Pushed" } }] }) { edits { pageId } } }`,
        { id: changeRequest.id },
      );
      const sub = await subscribe(
        started.url,
        'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }',
        {
          token,
          variables: { id: spaceId },
        },
      );
      await sub.next();
      const merged = await fetch(`${platformUrl}/spaces/${spaceId}/change-requests/${changeRequest.platformId}/merge`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(merged.status).toBe(200);
      const { revision } = (await merged.json()) as { revision: string };
      expect((await sub.next()).data.spaceContentUpdated.platformId).toBe(revision);
      sub.close();
    } finally {
      started.child.kill('SIGTERM');
      await started.ended;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('npm start restarts a gateway that dies', () => {
  let dataDir: string;
  let started: Started;
  let token: string;

  beforeAll(async () => {
    ({ dataDir, token } = await builtDataDir('gateway-restart-'));
    started = await startNpmStart({
      PORT: String(await freePort()),
      PLATFORM_PORT: '0',
      DATA_DIR: dataDir,
      ...NO_DEMO,
    });
  }, PROCESS_GUARD_MS);

  afterAll(async () => {
    if (started && !started.exited) {
      started.child.kill('SIGKILL');
      await started.ended;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts it again on its port after kill -9; the platform is the same process and kept what was written', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const { url, gatewayPid, platformPid } = started;
    expect(gatewayPid).not.toBe(started.child.pid);
    expect((await waitReady(url)).process).toEqual({
      state: 'running',
      pid: platformPid,
      restarts: 0,
    });
    const written = await graphqlAt(
      url,
      token,
      `mutation { createSpace(input: { organizationId: "${ORG}", title: "Written before the crash" }) { space { platformId } userErrors { code } } }`,
    );
    expect(written.body.data?.createSpace.userErrors).toEqual([]);
    const spaceId: string = written.body.data!.createSpace.space.platformId;

    process.kill(gatewayPid, 'SIGKILL');
    const after = await waitReady(url);

    expect(started.exited).toBeUndefined();
    expect(alive(gatewayPid)).toBe(false);
    const restarted = supervisedProcess(started.child.pid!, 'gateway')?.pid;
    expect(restarted).toEqual(expect.any(Number));
    expect(restarted).not.toBe(gatewayPid);
    // One line, naming the cause; the platform was neither restarted nor told anything bad.
    expect(started.stderr()).toBe(`The gateway (pid ${gatewayPid}) ended: killed by SIGKILL; restart 1 in 0.1 s\n`);
    expect(after.process).toEqual({ state: 'running', pid: platformPid, restarts: 0 });
    const read = await graphqlAt(url, token, `{ space(id: ${JSON.stringify(spaceId)}) { title } }`);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({ space: { title: 'Written before the crash' } });
    // The start-up lines were printed once, by the supervisor.
    expect(started.stdout().match(/GraphQL gateway:/g)).toHaveLength(1);
  });

  it('stops the gateway, then the platform, and exits 0 on SIGTERM', async () => {
    const children = (['gateway', 'platform'] as const).map((part) => supervisedProcess(started.child.pid!, part)!.pid);
    expect(children[1]).toBe(started.platformPid);
    started.child.kill('SIGTERM');
    expect(await started.ended).toEqual({ code: 0, signal: null });
    // It waited for both before it exited.
    expect(children.filter(alive)).toEqual([]);
  });
});

describe('npm start signalled as a whole process group (a terminal, a service manager)', () => {
  it('stops the gateway, then the platform, restarting neither, and exits 0', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-group-'));
    try {
      const started = await startNpmStart(
        { PORT: String(await freePort()), PLATFORM_PORT: '0', DATA_DIR: dataDir, ...NO_DEMO },
        { detached: true },
      );
      await waitReady(started.url);
      // Every process of the group gets it, the supervisor's children too.
      process.kill(-started.child.pid!, 'SIGTERM');
      expect(await started.ended).toEqual({ code: 0, signal: null });
      expect(started.stderr()).toBe('');
      expect([started.gatewayPid, started.platformPid].filter(alive)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a busy port', () => {
  /**
   * Runs `args` (a compiled entry) while `setting`'s port is taken on 127.0.0.1; answers how it ended and all it
   * printed, both streams together: one line, never a stack.
   */
  async function startOnBusyPort(args: string[], setting: string, env: NodeJS.ProcessEnv) {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-busy-'));
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const child = spawn(process.execPath, args, {
        cwd: projectRoot,
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'error', ...NO_DEMO, ...env, [setting]: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      spawned.add(child);
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const ended = await new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
      return { port, ended, output };
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  const GATEWAY_ALONE = ['--enable-source-maps', 'dist/gateway/main.js'];
  const upstream = { UPSTREAM_URL: 'http://127.0.0.1:9/v1' };

  it.each([
    { entry: 'npm start', args: NPM_START_ARGS, setting: 'PORT', env: { PLATFORM_PORT: '0' }, what: 'gateway' },
    {
      entry: 'npm start',
      args: NPM_START_ARGS,
      setting: 'PLATFORM_PORT',
      env: { PORT: '0' },
      what: 'embedded platform',
    },
    {
      entry: 'npm start',
      args: NPM_START_ARGS,
      setting: 'METRICS_PORT',
      env: { PORT: '0', PLATFORM_PORT: '0' },
      what: 'gateway',
    },
    { entry: 'the gateway alone', args: GATEWAY_ALONE, setting: 'PORT', env: upstream, what: 'gateway' },
    {
      entry: 'the gateway alone',
      args: GATEWAY_ALONE,
      setting: 'METRICS_PORT',
      env: { ...upstream, PORT: '0' },
      what: 'gateway',
    },
  ])(
    '$entry on a busy $setting ends with one line naming it, restarting nothing',
    {
      timeout: PROCESS_GUARD_MS,
    },
    async ({ args, setting, env, what }) => {
      const { port, ended, output } = await startOnBusyPort(args, setting, env);
      expect({ ended, output }).toEqual({
        ended: { code: 1, signal: null },
        output: `Cannot start the ${what}: port ${port} is already in use. Choose another port with ${setting}.\n`,
      });
    },
  );
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
