import { type ChildProcess, spawn } from 'node:child_process';

/** A redis-server (Debian's package) on a loopback port, kept in memory only. */
export interface RedisServer {
  url: string;
  /** Its process id while it runs. */
  readonly pid: number | undefined;
  /** Stops it at once (SIGKILL, as if it went down). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
}

/**
 * Starts `redis-server` on `port` of 127.0.0.1 without persistence: what the gateway keeps there
 * (cached answers, budgets, leases) is worth nothing after a restart. Resolves once it accepts
 * connections; a missing package is named in the error.
 */
export async function startRedisServer(port: number): Promise<RedisServer> {
  let child: ChildProcess | undefined;
  const killOnExit = () => child?.kill('SIGKILL');

  async function start(): Promise<void> {
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    child = server;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      server.once('error', (error) =>
        reject(new Error(`redis-server could not start (is the redis-server package installed?): ${error.message}`)),
      );
      server.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output.slice(-500)}`)));
      const read = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-2_000);
        if (!output.includes('Ready to accept connections')) return;
        // Its log is read no further once it serves (drained, so that it never blocks on a full pipe).
        server.stdout!.off('data', read).resume();
        resolve();
      };
      server.stdout!.on('data', read);
    });
    process.once('exit', killOnExit);
  }

  async function stop(): Promise<void> {
    const server = child;
    child = undefined;
    process.removeListener('exit', killOnExit);
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGKILL');
    });
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    stop,
    start,
  };
}
