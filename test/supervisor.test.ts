import { afterEach, describe, expect, it } from 'vitest';
import { Supervisor, exitCause, type ReadyMessage, withoutTsx } from '../src/supervisor.js';

const entry = new URL('./fixtures/supervised-child.ts', import.meta.url);

/**
 * How long a test that starts processes may take before it counts as hung: a guard, not a bound.
 * Two starts through tsx and a heap filled to its limit take seconds alone, several times that on a busy machine.
 */
const PROCESS_GUARD_MS = 120_000;

describe('the supervisor', () => {
  let supervisor: Supervisor | undefined;
  afterEach(async () => {
    await supervisor?.stop();
    supervisor = undefined;
  });

  it('tells a heap-limit death and restarts the process, one log line per restart', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const lines: string[] = [];
    const ready: ReadyMessage[] = [];
    const { promise: second, resolve: restarted } = Promise.withResolvers<void>();
    supervisor = new Supervisor({
      name: 'test process',
      entry,
      env: () => ({ ...process.env, CHILD_MODE: ready.length === 0 ? 'leak' : 'wait' }),
      heapMb: 64,
      log: (line) => lines.push(line),
      onReady: (message) => {
        ready.push(message);
        if (ready.length === 2) restarted();
      },
    });
    const first = await supervisor.start();
    const firstPid = supervisor.status().pid;
    expect(first.url).toBe(`http://127.0.0.1:1/v1?pid=${firstPid}`);
    await second;
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(
          `^The test process \\(pid ${firstPid}\\) ended: killed by SIGABRT, heap limit reached; restart 1 in 0\\.1 s$`,
        ),
      ),
    ]);
    expect(supervisor.status()).toEqual({
      state: 'running',
      pid: expect.any(Number),
      restarts: 1,
      lastExit: 'killed by SIGABRT, heap limit reached',
    });
    expect(supervisor.status().pid).not.toBe(firstPid);
  });

  it('reports each change of its status, and a stop with no grace kills at once', {
    timeout: PROCESS_GUARD_MS,
  }, async () => {
    const statuses: string[] = [];
    let readies = 0;
    const { promise: second, resolve: restarted } = Promise.withResolvers<void>();
    supervisor = new Supervisor({
      name: 'test process',
      entry,
      // The first ends as soon as it is ready; the second ignores SIGTERM.
      env: () => ({ ...process.env, CHILD_MODE: readies === 0 ? 'exit' : 'stubborn' }),
      heapMb: 64,
      log: () => {},
      onStatus: (status) => statuses.push(`${status.state}${status.pid === undefined ? ' (no process)' : ''}`),
      onReady: () => {
        readies += 1;
        if (readies === 2) restarted();
      },
    });
    await supervisor.start();
    await second;
    await supervisor.stop(0);
    expect(statuses).toEqual([
      'starting',
      'running',
      'restarting (no process)',
      'restarting',
      'running',
      'stopped',
      'stopped (no process)',
    ]);
    expect(supervisor.status()).toEqual({ state: 'stopped', restarts: 1, lastExit: 'killed by SIGKILL' });
  });

  it('names how a process ended', () => {
    expect(exitCause(1, null)).toBe('exit code 1');
    expect(exitCause(null, 'SIGKILL')).toBe('killed by SIGKILL');
    expect(
      exitCause(
        null,
        'SIGABRT',
        '\n<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n',
      ),
    ).toBe('killed by SIGABRT, heap limit reached');
  });
});

describe("a compiled child's node options", () => {
  it("leave out tsx's loader, however it was given, and keep every other option", () => {
    // As `npx tsx script.ts` starts node, then as `node --import tsx` does.
    const viaCli = [
      '--require',
      '/app/node_modules/tsx/dist/preflight.cjs',
      '--import',
      'file:///app/node_modules/tsx/dist/loader.mjs',
      '--enable-source-maps',
    ];
    expect(withoutTsx(viaCli)).toEqual(['--enable-source-maps']);
    expect(withoutTsx(['--import', 'tsx', '--import=tsx', '--cpu-prof'])).toEqual(['--cpu-prof']);
    // A loader of something else stays.
    expect(withoutTsx(['--import', './otel.mjs', '--require=./tsx-like.cjs'])).toEqual([
      '--import',
      './otel.mjs',
      '--require=./tsx-like.cjs',
    ]);
  });
});
