import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { ConversionJob, ConversionOutcome, DocumentCheckJob, DocumentCheckOutcome } from './convert.js';
import type { IntrospectionJob, IntrospectionOutcome } from './introspect.js';

/** What the pool's workers do: convert or check a document, or answer an introspection. */
export type PoolJob = ConversionJob | DocumentCheckJob | IntrospectionJob;
/** The outcome of a job (`invalid` also when a job of any kind threw). */
export type PoolOutcome = ConversionOutcome | DocumentCheckOutcome | IntrospectionOutcome;
/** The outcome of a job of the type `J`. */
export type OutcomeOf<J extends PoolJob> = J extends IntrospectionJob
  ? IntrospectionOutcome | { invalid: string }
  : J extends DocumentCheckJob
    ? DocumentCheckOutcome
    : ConversionOutcome;

/**
 * Why a conversion in the pool has no outcome: `timeout` (it ran longer than `timeoutMs`),
 * `memory` (its worker went over its heap limit), `crash` (its worker stopped for another reason),
 * `aborted` (its signal was aborted: the client went away), `closed` (the pool was closed).
 */
export type PoolFailure = 'timeout' | 'memory' | 'crash' | 'aborted' | 'closed';

/** A conversion the pool could not do, and why. */
export class ConversionPoolError extends Error {
  override readonly name = 'ConversionPoolError';
  constructor(
    readonly reason: PoolFailure,
    message: string,
    /** The bound it went over: milliseconds for a `timeout`, MB of heap for `memory`. */
    readonly max?: number,
  ) {
    super(message);
  }
}

/** Options of `ConversionPool`. */
export interface ConversionPoolOptions {
  /** Worker threads at most, each converting one document at a time. */
  threads: number;
  /** Longest one conversion may take in a worker, in milliseconds; past it, its worker is stopped. */
  timeoutMs: number;
  /** Heap limit of each worker (V8 old generation), in MB. */
  maxHeapMb: number;
  /** Time without work after which a worker stops (it starts again with the next job). @default 30000 */
  idleMs?: number;
}

interface Task {
  id: number;
  job: PoolJob;
  resolve(outcome: PoolOutcome): void;
  reject(error: ConversionPoolError): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** One thread of the pool: its worker, once started, and the task it runs. */
interface Slot {
  worker: Worker | undefined;
  task: Task | undefined;
  timeout: NodeJS.Timeout | undefined;
  idle: NodeJS.Timeout | undefined;
}

/**
 * Where a worker's code is: the compiled `worker.js` beside this module (`dist/`), or, run from
 * the TypeScript sources (tsx, vitest), `worker.ts` through tsx's loader, which a worker thread
 * does not inherit from its parent: a two-line bootstrap registers it, then loads the worker.
 * Undefined when neither can run: conversions then stay on the calling thread.
 */
function workerEntry(): { code: string | URL; eval: boolean; workerData?: { tsx: string; entry: string } } | undefined {
  const here = import.meta.url;
  if (here.endsWith('.js')) {
    const compiled = new URL('./worker.js', here);
    return existsSync(fileURLToPath(compiled)) ? { code: compiled, eval: false } : undefined;
  }
  const source = new URL('./worker.ts', here);
  if (!here.startsWith('file:') || !existsSync(fileURLToPath(source))) return undefined;
  let tsx: string;
  try {
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  return {
    code: `const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ register }) => { register(); return import(workerData.entry); });`,
    eval: true,
    workerData: { tsx, entry: source.href },
  };
}

/**
 * A bounded pool of worker threads converting documents and answering introspection
 * (`worker.ts`), so that the hundreds of milliseconds a large document or a large introspection
 * takes, and its garbage, stay off the gateway's event loop and heap. Jobs wait their turn in order; a job whose signal is aborted (its client went away) leaves
 * the queue, or, running, stops its worker (the next job starts a new one). A worker that runs
 * out of time or heap, or stops, fails its job alone. Workers start with the first jobs and stop
 * after `idleMs` without work; an idle worker does not keep the process alive.
 *
 * Events: `start` (a job was handed to a worker).
 */
export class ConversionPool extends EventEmitter {
  /** Jobs handed to a worker so far. */
  started = 0;
  private readonly entry = workerEntry();
  private readonly slots: Slot[];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: ConversionPoolOptions) {
    super();
    this.slots = Array.from({ length: Math.max(1, options.threads) }, () => ({
      worker: undefined,
      task: undefined,
      timeout: undefined,
      idle: undefined,
    }));
  }

  /** Whether jobs run in worker threads (false: the worker's code cannot be found, see `workerEntry`). */
  get available(): boolean {
    return this.entry !== undefined && !this.closed;
  }

  /** Runs a job in a worker; rejects with a `ConversionPoolError` when it could not. */
  run<J extends PoolJob>(job: J, signal?: AbortSignal): Promise<OutcomeOf<J>> {
    if (this.closed || !this.entry) return Promise.reject(new ConversionPoolError('closed', 'The pool is closed'));
    if (signal?.aborted) return Promise.reject(aborted());
    return new Promise<OutcomeOf<J>>((resolve, reject) => {
      const task: Task = {
        id: this.nextId++,
        job,
        resolve: resolve as (outcome: PoolOutcome) => void,
        reject,
        signal,
        onAbort: undefined,
      };
      if (signal) {
        task.onAbort = () => this.abort(task);
        signal.addEventListener('abort', task.onAbort, { once: true });
      }
      this.queue.push(task);
      this.pump();
    });
  }

  /** Stops every worker; jobs under way or waiting fail, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    const failure = new ConversionPoolError('closed', 'The pool was closed during the conversion');
    for (const task of this.queue.splice(0)) this.settle(task, () => task.reject(failure));
    await Promise.all(
      this.slots.map((slot) => {
        const { worker, task } = slot;
        if (slot.idle) clearTimeout(slot.idle);
        slot.worker = undefined;
        if (task) this.finish(slot, () => task.reject(failure));
        return worker?.terminate();
      }),
    );
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) break;
      if (slot.task) continue;
      const task = this.queue.shift()!;
      if (slot.idle) clearTimeout(slot.idle);
      slot.idle = undefined;
      const worker = slot.worker ?? this.start(slot);
      // Busy, a worker keeps the process alive, like any work under way; idle, it does not.
      worker.ref();
      slot.task = task;
      slot.timeout = setTimeout(
        () =>
          this.fail(
            slot,
            new ConversionPoolError(
              'timeout',
              `the conversion did not end within ${this.options.timeoutMs} ms`,
              this.options.timeoutMs,
            ),
          ),
        this.options.timeoutMs,
      );
      this.started += 1;
      worker.postMessage({ id: task.id, job: task.job });
      this.emit('start');
    }
    for (const slot of this.slots) if (!slot.task) this.idleSoon(slot);
  }

  private start(slot: Slot): Worker {
    const entry = this.entry!;
    const worker = new Worker(entry.code, {
      eval: entry.eval,
      // Not the parent's options: under tsx or vitest they name loaders a worker cannot use.
      execArgv: process.execArgv.filter((arg) => arg === '--enable-source-maps'),
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb },
      ...(entry.workerData ? { workerData: entry.workerData } : {}),
    });
    worker.on('message', (message: { id: number; outcome: PoolOutcome }) => {
      const task = slot.task;
      if (worker !== slot.worker || !task || message.id !== task.id) return;
      this.finish(slot, () => task.resolve(message.outcome));
      this.pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      this.fail(
        slot,
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new ConversionPoolError(
              'memory',
              `the conversion needed more than ${this.options.maxHeapMb} MB`,
              this.options.maxHeapMb,
            )
          : new ConversionPoolError('crash', 'the conversion worker stopped unexpectedly'),
        worker,
      );
    });
    worker.on('exit', () =>
      this.fail(slot, new ConversionPoolError('crash', 'the conversion worker stopped unexpectedly'), worker),
    );
    slot.worker = worker;
    return worker;
  }

  /** A job's signal was aborted: out of the queue, or, running, its worker stopped. */
  private abort(task: Task): void {
    const queued = this.queue.indexOf(task);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.settle(task, () => task.reject(aborted()));
      return;
    }
    const slot = this.slots.find((candidate) => candidate.task === task);
    if (slot) this.fail(slot, aborted());
  }

  /** The worker of `slot` failed or must stop: its job fails, and the next job gets a new worker. */
  private fail(slot: Slot, error: ConversionPoolError, worker: Worker | undefined = slot.worker): void {
    if (!worker || worker !== slot.worker) return;
    slot.worker = undefined;
    void worker.terminate();
    const task = slot.task;
    if (task) this.finish(slot, () => task.reject(error));
    this.pump();
  }

  private finish(slot: Slot, settle: () => void): void {
    if (slot.timeout) clearTimeout(slot.timeout);
    slot.timeout = undefined;
    const task = slot.task!;
    slot.task = undefined;
    this.settle(task, settle);
  }

  private settle(task: Task, settle: () => void): void {
    if (task.onAbort) task.signal?.removeEventListener('abort', task.onAbort);
    settle();
  }

  /** Without work, a worker lets the process exit, and stops after `idleMs`. */
  private idleSoon(slot: Slot): void {
    const worker = slot.worker;
    if (!worker || slot.idle) return;
    worker.unref();
    slot.idle = setTimeout(() => {
      slot.idle = undefined;
      if (slot.worker === worker && !slot.task) {
        slot.worker = undefined;
        void worker.terminate();
      }
    }, this.options.idleMs ?? 30_000);
    slot.idle.unref();
  }
}

function aborted(): ConversionPoolError {
  return new ConversionPoolError('aborted', 'the conversion was abandoned: the client went away');
}
