import { EventEmitter } from 'node:events';
import { TaskWorker, TaskWorkerError } from '../task-worker.js';
import { readSpec, type SpecReading } from './parse.js';

/**
 * Reads OpenAPI documents (`readSpec`: parse, then validate) in the platform's task worker
 * (`../task-worker.ts`, with `parse-worker.ts`), so that the seconds a large document takes leave
 * the platform's event loop free for API requests: texts wait their turn, a reading that takes
 * longer than its time (`readTimeoutMs`) or a worker that stops (out of memory, a crash) fails
 * that reading, and the next one starts a new worker. Such failures are `SpecReaderError`s; what
 * a text holds (syntax errors, invalid documents) is a `SpecReading`.
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

/** The words a failure of the worker is told in, for the specification's processing errors. */
function failure(error: TaskWorkerError): SpecReaderError {
  switch (error.reason) {
    case 'timeout': {
      const timeoutMs = error.timeoutMs ?? 0;
      const seconds = timeoutMs / 1000;
      return new SpecReaderError(
        'timeout',
        `The document could not be read within ${seconds < 1 ? `${timeoutMs} ms` : `${seconds} s`}`,
      );
    }
    case 'memory':
      return new SpecReaderError('crash', 'The document is too large to be read (out of memory)');
    case 'crash':
      return new SpecReaderError('crash', 'The document could not be read: the reader stopped unexpectedly');
    case 'closed':
      return new SpecReaderError('closed', 'The OpenAPI reader was closed during the reading');
  }
}

export class SpecReader extends EventEmitter {
  /** Readings asked so far (in the worker or in this thread), for tests and benchmarks. */
  readings = 0;

  private readonly maxTimeoutMs: number;
  private readonly worker: TaskWorker<string, SpecReading>;

  constructor(options: SpecReaderOptions = {}) {
    super();
    this.maxTimeoutMs = options.timeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
    this.worker = new TaskWorker<string, SpecReading>({
      from: import.meta.url,
      name: 'parse-worker',
      fallback: readSpec,
      timeoutMs: (text) => readTimeoutMs(text.length, this.maxTimeoutMs),
      idleMs: options.idleMs ?? 60_000,
      ...(options.maxHeapMb ? { maxHeapMb: options.maxHeapMb } : {}),
      ...(options.mode ? { mode: options.mode } : {}),
    });
    this.worker.on('start', () => this.emit('start'));
    this.worker.on('end', () => this.emit('end'));
  }

  /** Whether texts are read in a worker thread (false: in the calling one). */
  get inWorker(): boolean {
    return this.worker.inWorker;
  }

  /** Reads and validates a text; rejects with a `SpecReaderError` when the worker could not. */
  async read(text: string): Promise<SpecReading> {
    if (this.worker.isClosed) throw new SpecReaderError('closed', 'The OpenAPI reader is closed');
    this.readings += 1;
    try {
      return await this.worker.run(text);
    } catch (error) {
      throw error instanceof TaskWorkerError ? failure(error) : error;
    }
  }

  /** Stops the worker; readings under way or waiting fail, later ones are refused. */
  close(): Promise<void> {
    return this.worker.close();
  }
}
