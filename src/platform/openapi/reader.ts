import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { readSpec, type SpecReading } from './parse.js';
import type { ReadAnswer, ReadRequest } from './parse-worker.js';

/**
 * Reads OpenAPI documents (`readSpec`: parse, then validate) in a worker thread, so that the
 * seconds a large document takes leave the platform's event loop free for API requests. One
 * worker, started at the first reading, reused for the next ones (texts wait their turn), let go
 * after a while without work and stopped by `close()`. A reading that takes longer than the
 * timeout stops the worker; a worker that stops in the middle of a reading (out of memory, a
 * crash) fails that reading; either way the next reading starts a new worker. Such failures are
 * `SpecReaderError`s; what a text holds (syntax errors, invalid documents) is a `SpecReading`.
 *
 * The worker's file: `parse-worker.js` next to this module when the platform runs compiled
 * (`dist/`); from the TypeScript sources (tsx, vitest), `parse-worker-tsx.mjs`, which registers
 * tsx's loader in the worker (a worker thread does not inherit its parent's) and loads
 * `parse-worker.ts`. When neither can be used (the file is missing, or tsx is not installed), the
 * reading happens on the calling thread, as before there was a worker.
 *
 * Events: `start` (a text was handed to the worker, or is read in this thread) and `end` (its
 * reading is known, or failed).
 */

export type SpecReaderFailure = 'timeout' | 'crash' | 'closed';

export class SpecReaderError extends Error {
  override readonly name = 'SpecReaderError';
  constructor(
    readonly reason: SpecReaderFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface SpecReaderOptions {
  /**
   * Longest a reading may take in the worker (from the moment the worker gets the text), whatever
   * its size; a smaller text has less (`readTimeoutMs`). @default 60000
   */
  timeoutMs?: number;
  /** Time without work after which the worker is stopped (a next reading starts another). @default 60000 */
  idleMs?: number;
  /** Limit of the worker's heap (V8 old generation), in MB; unset, V8's default. */
  maxHeapMb?: number;
  /** Where texts are read: `worker` (the default, when a worker file is found) or `thread` (the calling one). */
  mode?: 'worker' | 'thread';
}

export const DEFAULT_READ_TIMEOUT_MS = 60_000;
/** Time any reading has, however small its text. */
const BASE_READ_MS = 10_000;
/** Time a reading has for each MiB of its text, on top of `BASE_READ_MS`. */
const READ_MS_PER_MIB = 5_000;

/**
 * Time a reading of a text of `chars` characters has, at most `maxMs`: the budgets of `budget.ts`
 * keep a document's reading within seconds, so a small text that is still being read long after
 * is stopped early instead of holding the worker, and the texts waiting behind it, for a minute.
 */
export function readTimeoutMs(chars: number, maxMs = DEFAULT_READ_TIMEOUT_MS): number {
  return Math.min(maxMs, BASE_READ_MS + Math.ceil((chars / (1024 * 1024)) * READ_MS_PER_MIB));
}

interface Task {
  id: number;
  text: string;
  resolve(reading: SpecReading): void;
  reject(error: Error): void;
}

/** The worker's entry for this run, or undefined when readings must stay in this thread. */
function workerEntry(): URL | undefined {
  const here = import.meta.url;
  if (here.endsWith('.js')) {
    const compiled = new URL('./parse-worker.js', here);
    return existsSync(fileURLToPath(compiled)) ? compiled : undefined;
  }
  const bootstrap = new URL('./parse-worker-tsx.mjs', here);
  if (!here.startsWith('file:') || !existsSync(fileURLToPath(bootstrap))) return undefined;
  try {
    createRequire(here).resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  return bootstrap;
}

let entry: URL | undefined | null = null;

export class SpecReader extends EventEmitter {
  /** Readings asked so far (in the worker or in this thread), for tests and benchmarks. */
  readings = 0;

  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private readonly maxHeapMb: number | undefined;
  private readonly entry: URL | undefined;
  private worker: Worker | undefined;
  private readonly waiting: Task[] = [];
  private current: Task | undefined;
  private timeout: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closed = false;

  constructor(options: SpecReaderOptions = {}) {
    super();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    this.idleMs = options.idleMs ?? 60_000;
    this.maxHeapMb = options.maxHeapMb;
    if (entry === null) entry = workerEntry();
    this.entry = options.mode === 'thread' ? undefined : entry;
  }

  /** Whether texts are read in a worker thread (false: in the calling one). */
  get inWorker(): boolean {
    return this.entry !== undefined;
  }

  /** Reads and validates a text; rejects with a `SpecReaderError` when the worker could not. */
  read(text: string): Promise<SpecReading> {
    if (this.closed) return Promise.reject(new SpecReaderError('closed', 'The OpenAPI reader is closed'));
    this.readings += 1;
    if (!this.entry) {
      this.emit('start');
      return readSpec(text).finally(() => this.emit('end'));
    }
    return new Promise<SpecReading>((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, text, resolve, reject });
      this.pump();
    });
  }

  /** Stops the worker; readings under way or waiting fail, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    const failure = new SpecReaderError('closed', 'The OpenAPI reader was closed during the reading');
    for (const task of this.waiting.splice(0)) task.reject(failure);
    const task = this.current;
    if (task) this.finish(task, () => task.reject(failure));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  /** Hands the next text to the worker, when it has none. */
  private pump(): void {
    if (this.current || this.closed) return;
    const task = this.waiting.shift();
    if (!task) {
      this.idleSoon();
      return;
    }
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const worker = this.worker ?? this.start();
    // Busy, the worker keeps the process alive, like any work under way; idle, it does not.
    worker.ref();
    this.current = task;
    const timeoutMs = readTimeoutMs(task.text.length, this.timeoutMs);
    this.timeout = setTimeout(() => {
      const seconds = timeoutMs / 1000;
      this.fail(worker, new SpecReaderError('timeout', `The document could not be read within ${seconds < 1 ? `${timeoutMs} ms` : `${seconds} s`}`));
    }, timeoutMs);
    this.emit('start');
    worker.postMessage({ id: task.id, text: task.text } satisfies ReadRequest);
  }

  private start(): Worker {
    const worker = new Worker(this.entry!, {
      // Not the parent's options: under tsx or vitest they name loaders a worker cannot use.
      execArgv: process.execArgv.filter((arg) => arg === '--enable-source-maps'),
      ...(this.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb } } : {}),
    });
    worker.on('message', (answer: ReadAnswer) => {
      const task = this.current;
      if (worker !== this.worker || !task || answer.id !== task.id) return;
      this.finish(task, () => ('error' in answer ? task.reject(new Error(answer.error)) : task.resolve(answer.reading)));
      this.pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const message =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'The document is too large to be read (out of memory)' : 'The document could not be read: the reader stopped unexpectedly';
      this.fail(worker, new SpecReaderError('crash', message));
    });
    worker.on('exit', () => this.fail(worker, new SpecReaderError('crash', 'The document could not be read: the reader stopped unexpectedly')));
    this.worker = worker;
    return worker;
  }

  /** The worker stopped or must stop: the reading under way fails, the worker is let go, the next text gets a new one. */
  private fail(worker: Worker, error: SpecReaderError): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    void worker.terminate();
    const task = this.current;
    if (task) this.finish(task, () => task.reject(error));
    this.pump();
  }

  private finish(task: Task, settle: () => void): void {
    if (this.timeout) clearTimeout(this.timeout);
    this.timeout = undefined;
    this.current = undefined;
    settle();
    this.emit('end');
  }

  /** Without work, the worker lets the process exit, and stops after `idleMs`. */
  private idleSoon(): void {
    const worker = this.worker;
    if (!worker) return;
    worker.unref();
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      this.idle = undefined;
      if (this.worker === worker && !this.current) {
        this.worker = undefined;
        void worker.terminate();
      }
    }, this.idleMs);
    this.idle.unref();
  }
}
