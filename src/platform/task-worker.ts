import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A worker thread for CPU-heavy work on user input (parsing a large page), so that the seconds it
 * takes and the garbage it makes stay off the platform's event loop and heap. One worker, started
 * at the first task, reused for the next ones (tasks wait their turn), let go after a while without
 * work. A task that takes longer than the timeout stops the worker; a worker that stops in the
 * middle of a task (out of its heap, a crash) fails that task; either way the next task starts a
 * new worker. The worker module answers each `{ id, request }` message with `{ id, answer }`.
 *
 * The worker's file: `<name>.js` next to the calling module when the platform runs compiled
 * (`dist/`); from the TypeScript sources (tsx, vitest), `task-worker-tsx.mjs`, which registers
 * tsx's loader in the worker (a worker thread does not inherit its parent's) and loads
 * `<name>.ts`. When neither can be used, `run` does the task on the calling thread with the
 * fallback given.
 *
 * Events: `start` (a task was handed to the worker, or runs in this thread) and `end` (its answer
 * is known, or it failed).
 */

/** `memory`: the worker went over its heap limit; `crash`: it stopped for another reason. */
export type TaskWorkerFailure = 'timeout' | 'memory' | 'crash' | 'closed';

export class TaskWorkerError extends Error {
  override readonly name = 'TaskWorkerError';
  constructor(
    readonly reason: TaskWorkerFailure,
    message: string,
    /** The time the task had, for a `timeout`. */
    readonly timeoutMs?: number,
  ) {
    super(message);
  }
}

export interface TaskWorkerOptions<Request, Answer> {
  /** `import.meta.url` of the module beside the worker's file. */
  from: string;
  /** The worker's file name without extension (`parse-worker`). */
  name: string;
  /** Does a task on the calling thread, when no worker can be started (or `mode` is `thread`). */
  fallback(request: Request): Answer | Promise<Answer>;
  /** Longest a task may take in the worker, in milliseconds, or that time for a given task. */
  timeoutMs: number | ((request: Request) => number);
  /** Limit of the worker's heap (V8 old generation), in MB; unset, V8's default. */
  maxHeapMb?: number;
  /** Time without work after which the worker is stopped. @default 30000 */
  idleMs?: number;
  /** Where tasks run: `worker` (when the worker's file is found) or `thread` (the calling one). @default 'worker' */
  mode?: 'worker' | 'thread';
}

/** A message the worker module receives, and the one it answers. */
export interface TaskMessage<T> {
  id: number;
  request: T;
}
export type TaskAnswer<T> = { id: number; answer: T } | { id: number; error: string };

interface Task<Request, Answer> {
  id: number;
  request: Request;
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

/** The worker's entry and its data for this run, or undefined when tasks must stay in this thread. */
function workerEntry(from: string, name: string): { url: URL; workerData?: { entry: string } } | undefined {
  if (from.endsWith('.js')) {
    const compiled = new URL(`./${name}.js`, from);
    return existsSync(fileURLToPath(compiled)) ? { url: compiled } : undefined;
  }
  const bootstrap = new URL('./task-worker-tsx.mjs', import.meta.url);
  const source = new URL(`./${name}.ts`, from);
  if (!from.startsWith('file:') || !existsSync(fileURLToPath(bootstrap)) || !existsSync(fileURLToPath(source)))
    return undefined;
  try {
    createRequire(import.meta.url).resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  return { url: bootstrap, workerData: { entry: source.href } };
}

export class TaskWorker<Request, Answer> extends EventEmitter {
  private readonly entry: ReturnType<typeof workerEntry>;
  private worker: Worker | undefined;
  private readonly waiting: Array<Task<Request, Answer>> = [];
  private current: Task<Request, Answer> | undefined;
  private timeout: NodeJS.Timeout | undefined;
  private idle: NodeJS.Timeout | undefined;
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: TaskWorkerOptions<Request, Answer>) {
    super();
    this.entry = options.mode === 'thread' ? undefined : workerEntry(options.from, options.name);
  }

  /** Whether `close()` was called: tasks are refused from then on. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether tasks run in a worker thread (false: in the calling one). */
  get inWorker(): boolean {
    return this.entry !== undefined;
  }

  /** Runs a task; rejects with a `TaskWorkerError` when the worker could not, or with the task's own error. */
  run(request: Request): Promise<Answer> {
    if (this.closed) return Promise.reject(new TaskWorkerError('closed', 'The worker is closed'));
    if (!this.entry) {
      this.emit('start');
      return Promise.resolve()
        .then(() => this.options.fallback(request))
        .finally(() => this.emit('end'));
    }
    return new Promise<Answer>((resolve, reject) => {
      this.waiting.push({ id: this.nextId++, request, resolve, reject });
      this.pump();
    });
  }

  /** Stops the worker; tasks under way or waiting fail, later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.idle) clearTimeout(this.idle);
    const failure = new TaskWorkerError('closed', 'The worker was closed during the task');
    for (const task of this.waiting.splice(0)) task.reject(failure);
    const task = this.current;
    if (task) this.finish(() => task.reject(failure));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

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
    const { timeoutMs } = this.options;
    const limit = typeof timeoutMs === 'function' ? timeoutMs(task.request) : timeoutMs;
    this.timeout = setTimeout(
      () => this.fail(worker, new TaskWorkerError('timeout', `the work did not end within ${limit} ms`, limit)),
      limit,
    );
    this.emit('start');
    worker.postMessage({ id: task.id, request: task.request } satisfies TaskMessage<Request>);
  }

  private start(): Worker {
    const worker = new Worker(this.entry!.url, {
      // Not the parent's options: under tsx or vitest they name loaders a worker cannot use.
      execArgv: process.execArgv.filter((arg) => arg === '--enable-source-maps'),
      ...(this.options.maxHeapMb ? { resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } } : {}),
      ...(this.entry!.workerData ? { workerData: this.entry!.workerData } : {}),
    });
    worker.on('message', (message: TaskAnswer<Answer>) => {
      const task = this.current;
      if (worker !== this.worker || !task || message.id !== task.id) return;
      this.finish(() => ('error' in message ? task.reject(new Error(message.error)) : task.resolve(message.answer)));
      this.pump();
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const failure =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new TaskWorkerError('memory', `the work needed more than ${this.options.maxHeapMb ?? "V8's default"} MB`)
          : new TaskWorkerError('crash', 'the worker stopped unexpectedly');
      this.fail(worker, failure);
    });
    worker.on('exit', () => this.fail(worker, new TaskWorkerError('crash', 'the worker stopped unexpectedly')));
    this.worker = worker;
    return worker;
  }

  /** The worker stopped or must stop: the task under way fails, the next task gets a new worker. */
  private fail(worker: Worker, error: TaskWorkerError): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    void worker.terminate();
    const task = this.current;
    if (task) this.finish(() => task.reject(error));
    this.pump();
  }

  private finish(settle: () => void): void {
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
    }, this.options.idleMs ?? 30_000);
    this.idle.unref();
  }
}
