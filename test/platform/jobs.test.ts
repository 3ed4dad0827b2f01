import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobQueue, PermanentJobError, backoffMs } from '../../src/platform/jobs.js';
import { openDatabase, type Db } from '../../src/platform/store/db.js';

let dir: string;
let db: Db;
const queues: JobQueue[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'jobs-'));
  db = openDatabase({ file: join(dir, 'p.sqlite') });
});

afterEach(async () => {
  await Promise.all(queues.splice(0).map((queue) => queue.stop()));
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function queue(options: ConstructorParameters<typeof JobQueue>[1] = {}): JobQueue {
  const made = new JobQueue(db, { backoff: () => 0, ...options });
  queues.push(made);
  return made;
}

const states = () => db.prepare('SELECT id, kind, state, attempts, error FROM jobs ORDER BY id').all();

describe('job queue', () => {
  it('runs the jobs of one key one at a time, in order, and jobs of other keys beside them', async () => {
    const q = queue({ concurrency: 4 });
    const log: string[] = [];
    let running = 0;
    let most = 0;
    q.register<{ key: string; n: number }>('step', {
      async run({ key, n }) {
        running += 1;
        most = Math.max(most, running);
        log.push(`${key}${n} start`);
        await new Promise((resolve) => setImmediate(resolve));
        log.push(`${key}${n} end`);
        running -= 1;
      },
    });
    q.start();
    for (const n of [1, 2, 3]) q.enqueue('step', { key: 'a', n }, { key: 'a' });
    q.enqueue('step', { key: 'b', n: 1 }, { key: 'b' });
    await q.drain();
    const ofA = log.filter((entry) => entry.startsWith('a'));
    expect(ofA).toEqual(['a1 start', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
    expect(most).toBe(2);
    expect(states()).toEqual([1, 2, 3, 4].map((id) => ({ id, kind: 'step', state: 'done', attempts: 1, error: null })));
  });

  it('retries a failed attempt with backoff up to its attempts, and fails a permanent error at once', async () => {
    const q = queue();
    const failures: string[] = [];
    let calls = 0;
    q.register<{ succeedAt: number }>('flaky', {
      async run({ succeedAt }, { attempt }) {
        calls += 1;
        if (attempt < succeedAt) throw new Error(`attempt ${attempt} failed`);
      },
      failed: (_payload, reason) => failures.push(reason),
    });
    q.register('broken', {
      async run() {
        throw new PermanentJobError('the repository does not exist');
      },
      failed: (_payload, reason) => failures.push(reason),
    });
    q.start();
    q.enqueue('flaky', { succeedAt: 3 }, { key: 'x', maxAttempts: 3 });
    q.enqueue('flaky', { succeedAt: 9 }, { key: 'y', maxAttempts: 2 });
    q.enqueue('broken', {}, { key: 'z', maxAttempts: 5 });
    await q.drain();
    expect(states()).toEqual([
      { id: 1, kind: 'flaky', state: 'done', attempts: 3, error: null },
      { id: 2, kind: 'flaky', state: 'failed', attempts: 2, error: 'attempt 2 failed' },
      { id: 3, kind: 'broken', state: 'failed', attempts: 1, error: 'the repository does not exist' },
    ]);
    expect(calls).toBe(3 + 2 + 0);
    expect(failures.sort()).toEqual(['attempt 2 failed', 'the repository does not exist']);
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(backoffMs)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
  });

  it('keeps queued jobs across a restart, and resumes or fails those a restart interrupted', async () => {
    const first = queue();
    first.register('resumable', { async run() {}, interrupted: 'resume' });
    first.register('one-shot', { async run() {}, failed: () => undefined });
    // Enqueued, never started: as if the process stopped right after accepting them.
    first.enqueue('resumable', { n: 1 }, { key: 'a' });
    first.enqueue('one-shot', { n: 2 }, { key: 'b' });
    first.enqueue('resumable', { n: 3 }, { key: 'c' });
    // Two were running when the process died.
    db.prepare("UPDATE jobs SET state = 'running', attempts = 1 WHERE id IN (1, 2)").run();

    const seen: number[] = [];
    const failed: string[] = [];
    const second = queue();
    second.register<{ n: number }>('resumable', {
      async run({ n }) {
        seen.push(n);
      },
      interrupted: 'resume',
    });
    second.register<{ n: number }>('one-shot', {
      async run({ n }) {
        seen.push(n);
      },
      failed: (payload, reason) => failed.push(`${payload.n}: ${reason}`),
    });
    second.start();
    await second.drain();
    expect(seen.sort()).toEqual([1, 3]);
    expect(failed).toEqual(['2: interrupted by a restart of the platform']);
    expect(states()).toMatchObject([{ state: 'done' }, { state: 'failed' }, { state: 'done' }]);
  });
});
