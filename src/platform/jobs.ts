import { EventEmitter } from 'node:events';
import type { Db } from './store/db.js';
import { auditAs, jobAuditContext } from './audit/context.js';

/**
 * The platform's one way to do background work (Git sync, and later translations, OpenAPI
 * processing and event deliveries): jobs persisted in SQLite (`jobs`, migration 7), run by one
 * in-process worker. A job is enqueued in the same transaction as the write that asks for it, so
 * an accepted request never loses its work; jobs with the same `key` (a space, say) run one at a
 * time in the order they were enqueued; a failed attempt is retried with exponential backoff up
 * to `maxAttempts`; a job found running at start was interrupted by a restart, and its kind
 * decides whether it runs again or ends as failed. Tests wait for the queue with `drain()`.
 */

export type JobState = 'queued' | 'running' | 'done' | 'failed';

export interface JobRow {
  id: number;
  kind: string;
  key: string;
  payload: string;
  state: JobState;
  attempts: number;
  max_attempts: number;
  run_after: number;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  error: string | null;
}

/** What a job's handler gets. */
export interface JobContext {
  db: Db;
  /** Attempt number, from 1. */
  attempt: number;
  /** The job's row (its id, key, creation time). */
  job: JobRow;
}

export interface JobKind<P> {
  /** Runs the job; throwing fails this attempt (a `PermanentJobError` fails the job at once). */
  run(payload: P, context: JobContext): Promise<void>;
  /**
   * Called when a job of this kind ends as failed (after its last attempt, or when interrupted
   * and not resumed), in a transaction, with the reason: to record the failure where users see it.
   */
  failed?(payload: P, reason: string, context: JobContext): void;
  /** What to do with a job found running at start: run it again, or fail it. @default 'fail' */
  interrupted?: 'resume' | 'fail';
  /** Wait before the attempt after attempt `n` failed, in milliseconds. @default the queue's backoff */
  backoff?: (attempt: number) => number;
}

/** A failure that retrying cannot fix (bad input, a missing repository…): the job fails at once. */
export class PermanentJobError extends Error {
  override readonly name = 'PermanentJobError';
}

export interface EnqueueOptions {
  /** Jobs of one key run one at a time, in order. */
  key: string;
  /** @default 1 */
  maxAttempts?: number;
  /** When it may run first (epoch milliseconds). @default now */
  runAfter?: number;
}

/** Backoff before attempt `n + 1`: 1 s, 2 s, 4 s, … capped at a minute. */
export const backoffMs = (attempt: number) => Math.min(60_000, 1000 * 2 ** (attempt - 1));

export class JobQueue {
  private readonly kinds = new Map<string, JobKind<unknown>>();
  private readonly events = new EventEmitter();
  private readonly runningKeys = new Set<string>();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private started = false;
  private stopped = false;

  private readonly concurrency: number;
  private readonly backoff: (attempt: number) => number;

  constructor(
    private readonly db: Db,
    options: {
      /** Jobs run at the same time, at most (of different keys). @default 2 */
      concurrency?: number;
      /** Wait before the attempt after attempt `n` failed, in milliseconds. @default backoffMs */
      backoff?: (attempt: number) => number;
    } = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.backoff = options.backoff ?? backoffMs;
    this.events.setMaxListeners(0);
  }

  /** Declares how jobs of `kind` run. */
  register<P>(kind: string, handler: JobKind<P>): void {
    this.kinds.set(kind, handler as JobKind<unknown>);
  }

  /** Adds a job (call it inside the transaction of the write that asks for it); returns its id. */
  enqueue(kind: string, payload: unknown, options: EnqueueOptions): number {
    if (!this.kinds.has(kind)) throw new Error(`No job kind ${kind}`);
    const { lastInsertRowid } = this.db
      .prepare(
        `INSERT INTO jobs (kind, key, payload, state, attempts, max_attempts, run_after, created_at)
         VALUES (?, ?, ?, 'queued', 0, ?, ?, ?)`,
      )
      .run(
        kind,
        options.key,
        JSON.stringify(payload),
        options.maxAttempts ?? 1,
        options.runAfter ?? Date.now(),
        new Date().toISOString(),
      );
    // Picked up once the enqueuing transaction has committed.
    setImmediate(() => this.poke());
    return Number(lastInsertRowid);
  }

  /** Starts the worker: jobs interrupted by a restart are resumed or failed, then queued ones run. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const interrupted = this.db.prepare("SELECT * FROM jobs WHERE state = 'running'").all() as JobRow[];
    for (const job of interrupted) {
      const kind = this.kinds.get(job.kind);
      if (kind?.interrupted === 'resume') {
        this.db.prepare("UPDATE jobs SET state = 'queued', run_after = ? WHERE id = ?").run(Date.now(), job.id);
      } else {
        this.fail(job, 'interrupted by a restart of the platform');
      }
    }
    this.poke();
  }

  /** Stops taking jobs and waits for the running ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await Promise.allSettled([...this.inFlight]);
  }

  /** Resolves when no job is queued or running (for tests; jobs waiting for a retry count as queued). */
  async drain(): Promise<void> {
    for (;;) {
      const pending = this.db
        .prepare("SELECT COUNT(*) FROM jobs WHERE state IN ('queued', 'running')")
        .pluck(true)
        .get() as number;
      if (pending === 0 && this.inFlight.size === 0) return;
      await new Promise<void>((resolve) => {
        this.events.once('settled', resolve);
        this.poke();
      });
    }
  }

  /** Looks for runnable jobs now. */
  private poke(): void {
    if (!this.started || this.stopped) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    while (this.inFlight.size < this.concurrency) {
      const job = this.next();
      if (!job) break;
      const run = this.run(job).finally(() => {
        this.inFlight.delete(run);
        this.runningKeys.delete(job.key);
        this.events.emit('settled');
        this.poke();
      });
      this.inFlight.add(run);
    }
    // Wake up for the next retry that comes due.
    const due = this.db.prepare("SELECT MIN(run_after) FROM jobs WHERE state = 'queued'").pluck(true).get() as
      | number
      | null;
    if (due !== null && this.inFlight.size < this.concurrency) {
      this.timer = setTimeout(() => this.poke(), Math.max(10, due - Date.now()));
      this.timer.unref();
    }
  }

  /** The oldest due job whose key is free, now marked running. */
  private next(): JobRow | undefined {
    const busy = [...this.runningKeys];
    const job = this.db
      .prepare(
        `SELECT * FROM jobs j WHERE state = 'queued' AND run_after <= ?
           AND key NOT IN (SELECT value FROM json_each(?))
           AND NOT EXISTS (SELECT 1 FROM jobs o WHERE o.key = j.key AND o.state = 'queued' AND o.id < j.id)
         ORDER BY id LIMIT 1`,
      )
      .get(Date.now(), JSON.stringify(busy)) as JobRow | undefined;
    if (!job) return undefined;
    this.runningKeys.add(job.key);
    const startedAt = new Date().toISOString();
    this.db
      .prepare("UPDATE jobs SET state = 'running', attempts = attempts + 1, started_at = ? WHERE id = ?")
      .run(startedAt, job.id);
    return { ...job, state: 'running', attempts: job.attempts + 1, started_at: startedAt };
  }

  private async run(job: JobRow): Promise<void> {
    const kind = this.kinds.get(job.kind);
    if (!kind) {
      this.fail(job, `no handler for jobs of kind ${job.kind}`);
      return;
    }
    try {
      // A job woken from a request would otherwise write as its caller.
      await auditAs(jobAuditContext(job.id), () =>
        kind.run(JSON.parse(job.payload), { db: this.db, attempt: job.attempts, job }),
      );
      this.db
        .prepare("UPDATE jobs SET state = 'done', ended_at = ?, error = NULL WHERE id = ?")
        .run(new Date().toISOString(), job.id);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (!(error instanceof PermanentJobError) && job.attempts < job.max_attempts) {
        this.db
          .prepare("UPDATE jobs SET state = 'queued', run_after = ?, error = ? WHERE id = ?")
          .run(Date.now() + (kind.backoff ?? this.backoff)(job.attempts), reason, job.id);
      } else {
        this.fail(job, reason);
      }
    }
  }

  private fail(job: JobRow, reason: string): void {
    const kind = this.kinds.get(job.kind);
    const failed = this.db.transaction(() => {
      this.db
        .prepare("UPDATE jobs SET state = 'failed', ended_at = ?, error = ? WHERE id = ?")
        .run(new Date().toISOString(), reason, job.id);
      kind?.failed?.(JSON.parse(job.payload), reason, { db: this.db, attempt: job.attempts, job });
    });
    auditAs(jobAuditContext(job.id), failed);
  }
}
