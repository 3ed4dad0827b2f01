import { fork, type ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from './config.js';

/**
 * What a supervised process sends its parent over IPC: it serves, it could not start, or (a
 * gateway) it waits to know its upstream.
 */
export type ChildMessage =
  | {
      type: 'ready';
      /** Base URL it serves: the platform's ends in `/v1`, a gateway's is its origin. */
      url: string;
      /**
       * The demo users' tokens, the first an admin of every demo organization, when the demo data is
       * seeded: GraphiQL offers them to clients on this machine. Never printed.
       */
      demoTokens?: Record<string, string>;
      /** Where every demo user's token is written, when the demo data is seeded. */
      demoTokensFile?: string;
    }
  | { type: 'failed'; reason: string }
  /**
   * A gateway without `UPSTREAM_URL` asks `npm start`'s supervisor for the embedded platform's URL
   * (answered with an `upstream` message once the platform is ready).
   */
  | { type: 'waiting' };

export type ReadyMessage = Extract<ChildMessage, { type: 'ready' }>;

/** The demo admin's token (an admin of every demo organization): the first of the demo users' tokens. */
export function demoAdminToken(demoTokens: Record<string, string> | undefined): string | undefined {
  return demoTokens ? Object.values(demoTokens)[0] : undefined;
}

/** What `npm start`'s supervisor tells its gateway of the embedded platform, over IPC. */
export type UpstreamMessage =
  | {
      /** Sent when the gateway asks (`waiting`) and each time a platform process is ready. */
      type: 'upstream';
      /** The platform's base URL, ending in `/v1` (the same across its restarts). */
      url: string;
      /** The demo users' tokens, for GraphiQL (never printed). */
      demoTokens?: Record<string, string>;
      process: ProcessStatus;
    }
  /** Sent whenever the platform's process changes state (it ended, it restarts). */
  | { type: 'upstream-status'; process: ProcessStatus };

/** The supervised process as health checks show it. */
export interface ProcessStatus {
  /** `starting` until the first ready message, `running` while it serves, `restarting` between an exit and the next ready message. */
  state: 'starting' | 'running' | 'restarting' | 'stopped';
  /** Its process id, while one is alive. */
  pid?: number;
  /** Restarts since the gateway started. */
  restarts: number;
  /** How the last process ended (`killed by SIGKILL`, `exit code 1`, `killed by SIGABRT, heap limit reached`), once one has. */
  lastExit?: string;
}

export interface SupervisorOptions {
  /** What the log lines call the process (`embedded platform`). */
  name: string;
  /** The module to run: a `.js` file runs under node, a `.ts` file through tsx (`npm run dev`). */
  entry: URL;
  /** The environment of each start (read again at each restart). */
  env: () => NodeJS.ProcessEnv;
  /** V8 old-space limit of the process, in MiB (`--max-old-space-size`). */
  heapMb: number;
  /** Receives one line per restart, naming how the process ended. */
  log: (line: string) => void;
  /** Called at every ready message: the first start and each restart. */
  onReady?: (ready: ReadyMessage) => void;
  /** Called with every other message of the process (`waiting`). */
  onMessage?: (message: ChildMessage) => void;
  /** Called whenever `status()` changes: a process started, became ready, ended, or was stopped. */
  onStatus?: (status: ProcessStatus) => void;
  /** Wait before the first restart after a crash, in milliseconds; it doubles with each crash in a row. @default 100 */
  restartDelayMs?: number;
  /** Longest wait before a restart. @default 10000 */
  maxRestartDelayMs?: number;
  /** A process that served this long ends a crash streak: the next restart waits `restartDelayMs` again. @default 30000 */
  stableAfterMs?: number;
  /** How long a stopped process may take to end before it is killed, in milliseconds. @default 5000 */
  stopGraceMs?: number;
}

/** Bytes of a process's standard error kept to tell why it ended. */
const STDERR_TAIL = 4096;

/**
 * Runs a Node module in a child process of its own and keeps it running: it is restarted with
 * backoff whenever it ends, and killed when this process ends (its IPC channel closes even when
 * this process is killed, and the child exits then: see `src/platform/main.ts`). A fatal error
 * of either process never ends the other.
 */
export class Supervisor {
  private child: ChildProcess | undefined;
  private state: ProcessStatus['state'] = 'stopped';
  private restarts = 0;
  private crashStreak = 0;
  private lastExit: string | undefined;
  private readySince: number | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  constructor(private readonly options: SupervisorOptions) {}

  /** Starts the process; resolves with its first ready message, rejects when it ends before sending one. */
  start(): Promise<ReadyMessage> {
    this.stopping = false;
    process.once('exit', this.killOnExit);
    this.state = 'starting';
    return new Promise((resolve, reject) => this.spawn({ resolve, reject }));
  }

  status(): ProcessStatus {
    return {
      state: this.state,
      ...(this.child?.pid !== undefined && this.child.exitCode === null && this.child.signalCode === null
        ? { pid: this.child.pid }
        : {}),
      restarts: this.restarts,
      ...(this.lastExit !== undefined ? { lastExit: this.lastExit } : {}),
    };
  }

  /**
   * Stops the process (SIGTERM, then SIGKILL after `graceMs`) and restarts it no more. Called again
   * while a stop is under way (a second Ctrl-C), with 0, it kills the process at once.
   */
  async stop(graceMs = this.options.stopGraceMs ?? 5_000): Promise<void> {
    const wasStopped = this.state === 'stopped';
    this.stopping = true;
    this.state = 'stopped';
    clearTimeout(this.restartTimer);
    process.removeListener('exit', this.killOnExit);
    if (!wasStopped) this.changed();
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  /**
   * Restarts the process no more once it ends, and leaves it running: the first step of stopping
   * processes one after the other, when a signal to a whole process group may end one early.
   */
  endRestarts(): void {
    this.stopping = true;
    clearTimeout(this.restartTimer);
  }

  /** Sends `message` to the process over IPC, if one is running; otherwise it is dropped. */
  send(message: UpstreamMessage): void {
    const child = this.child;
    // A process ending meanwhile misses it (the callback keeps that from being an error): its
    // successor asks again.
    if (child?.connected) child.send(message, () => {});
  }

  private changed(): void {
    this.options.onStatus?.(this.status());
  }

  private spawn(first?: { resolve: (ready: ReadyMessage) => void; reject: (error: Error) => void }): void {
    const entry = fileURLToPath(this.options.entry);
    const child = fork(entry, [], {
      env: this.options.env(),
      execArgv: childExecArgv(entry, this.options.heapMb),
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    this.child = child;
    this.changed();
    let stderrTail = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    let failure: string | undefined;
    child.on('message', (message: ChildMessage) => {
      if (message?.type === 'failed') failure = message.reason;
      if (message?.type !== 'ready') {
        this.options.onMessage?.(message);
        return;
      }
      this.state = 'running';
      this.readySince = Date.now();
      this.changed();
      this.options.onReady?.(message);
      first?.resolve(message);
      first = undefined;
    });
    // A failed spawn (no such file, too many processes) also ends in `exit` or here.
    child.once('error', (error) => {
      if (child.exitCode === null && child.signalCode === null && child.pid === undefined)
        this.exited(child, `could not start: ${error.message}`, first);
    });
    child.once('exit', (code, signal) =>
      this.exited(child, failure ?? exitCause(code, signal, stderrTail), first, failure !== undefined),
    );
  }

  /** After an exit: rejects the first start, or schedules a restart. `told`: the process said why it failed. */
  private exited(child: ChildProcess, cause: string, first?: { reject: (error: Error) => void }, told = false): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.lastExit = cause;
    if (first) {
      this.state = 'stopped';
      process.removeListener('exit', this.killOnExit);
      this.changed();
      first.reject(new Error(told ? cause : `The ${this.options.name} ended before it was ready: ${cause}`));
      return;
    }
    if (this.stopping) {
      this.changed();
      return;
    }
    const stable =
      this.readySince !== undefined && Date.now() - this.readySince >= (this.options.stableAfterMs ?? 30_000);
    this.crashStreak = stable ? 1 : this.crashStreak + 1;
    this.readySince = undefined;
    this.restarts += 1;
    this.state = 'restarting';
    this.changed();
    const delay = Math.min(
      this.options.maxRestartDelayMs ?? 10_000,
      (this.options.restartDelayMs ?? 100) * 2 ** (this.crashStreak - 1),
    );
    this.options.log(
      `The ${this.options.name} (pid ${child.pid}) ended: ${cause}; restart ${this.restarts} in ${(delay / 1000).toFixed(1)} s`,
    );
    this.restartTimer = setTimeout(() => this.spawn(), delay);
  }
}

/**
 * Node options of the child: this process's own (source maps, the tsx loader under `npm run
 * dev`) without its heap limit or debugger, then the child's heap limit; tsx is loaded for a
 * `.ts` entry when this process was not started through it, and left out for a compiled one (a
 * script run through tsx starting `dist/`): tsx's loader would read the bundle again, with the
 * child's heap (a platform of 256 MB ran out of it before it was ready).
 */
function childExecArgv(entry: string, heapMb: number): string[] {
  const own = process.execArgv.filter((arg) => !/^--(max-old-space-size|inspect)/.test(arg));
  const inherited = entry.endsWith('.ts') ? own : withoutTsx(own);
  const tsx = entry.endsWith('.ts') && !inherited.some((arg) => arg.includes('tsx')) ? ['--import', 'tsx'] : [];
  const young = inherited.some((arg) => arg.startsWith('--max-semi-space-size')) ? [] : [YOUNG_GENERATION];
  return [...inherited, ...tsx, ...young, `--max-old-space-size=${heapMb}`];
}

/** Node options without those that load tsx: `--import tsx`, and tsx's own `--require`/`--import` of its files. */
export function withoutTsx(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index]!;
    const loads = /^--(import|require|loader|experimental-loader)(=|$)/.exec(arg);
    if (!loads) {
      kept.push(arg);
      continue;
    }
    const value = loads[2] === '=' ? arg.slice(arg.indexOf('=') + 1) : args[index + 1];
    if (loads[2] !== '=') index += 1;
    if (!/(^|[/\\])tsx([/\\]|$)/.test(value ?? '')) kept.push(...(loads[2] === '=' ? [arg] : [arg, value!]));
  }
  return kept;
}

/**
 * The young generation's bound, as Node 20's V8 had it: Node 24's grows it further under a burst of
 * allocations, and a 25,000-paragraph page then took the platform's RSS up by about 90 MB instead
 * of 45-50 (`BENCH_ONLY=rest-25k npx tsx bench/hardening-markdown.ts`), for no gain in time.
 */
const YOUNG_GENERATION = '--max-semi-space-size=16';

/** How a process ended, as a log line tells it; V8 says on standard error when the heap limit was reached. */
export function exitCause(code: number | null, signal: NodeJS.Signals | null, stderrTail = ''): string {
  const base = signal ? `killed by ${signal}` : `exit code ${code}`;
  return /heap limit|heap out of memory/i.test(stderrTail) ? `${base}, heap limit reached` : base;
}

/** What a caller of `superviseEmbeddedPlatform` or `superviseGateway` hears of the process. */
export type SupervisorEvents = Pick<SupervisorOptions, 'onReady' | 'onMessage' | 'onStatus'>;

/** Under tsx (`npm run dev`, the tests) this file is TypeScript, and so are the entries it runs. */
function entryBeside(path: string): URL {
  return new URL(`${path}${extname(fileURLToPath(import.meta.url))}`, import.meta.url);
}

/**
 * Supervises the embedded platform's process (`src/platform/main.ts`), with the environment `env`
 * (`PLATFORM_PORT` aside). It picks its port as `PLATFORM_PORT` says; a restart takes the port the first start got (so `PLATFORM_PORT=0` keeps
 * one upstream URL).
 */
export function superviseEmbeddedPlatform(
  settings: Config,
  log: (line: string) => void,
  events: SupervisorEvents = {},
  env: NodeJS.ProcessEnv = process.env,
): Supervisor {
  let port = String(settings.PLATFORM_PORT);
  return new Supervisor({
    name: 'embedded platform',
    entry: entryBeside('./platform/main'),
    env: () => ({ ...env, PLATFORM_PORT: port }),
    heapMb: settings.PLATFORM_HEAP_MB,
    log,
    ...events,
    onReady: (ready) => {
      port = new URL(ready.url).port;
      events.onReady?.(ready);
    },
  });
}

/** Options of `superviseGateway`. */
export interface GatewaySupervision extends SupervisorEvents {
  /** What the log lines call it. @default gateway */
  name?: string;
  /** Port of its first start (0: one the system picks); its restarts keep the port it got. */
  port: number;
  /** Its environment, `PORT` aside. @default process.env */
  env?: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * Supervises a gateway's process (`src/gateway/main.ts`: `npm start`'s gateway and each replica of
 * `npm run cluster`), with the heap `GATEWAY_HEAP_MB` gives it. A restart takes the port the first
 * start got, so clients and balancers find it where it was. Stopping it leaves it
 * `SHUTDOWN_TIMEOUT_MS` for its operations in flight before it is killed.
 */
export function superviseGateway(settings: Config, options: GatewaySupervision): Supervisor {
  const { name = 'gateway', env = process.env, log, onReady, onMessage, onStatus } = options;
  let port = String(options.port);
  return new Supervisor({
    name,
    entry: entryBeside('./gateway/main'),
    env: () => ({ ...env, PORT: port }),
    heapMb: settings.GATEWAY_HEAP_MB,
    log,
    // Its drain ends within SHUTDOWN_TIMEOUT_MS; the rest (closing Redis, the exporter) within 2 s.
    stopGraceMs: settings.SHUTDOWN_TIMEOUT_MS + 2_000,
    onMessage,
    onStatus,
    onReady: (ready) => {
      port = new URL(ready.url).port;
      onReady?.(ready);
    },
  });
}
