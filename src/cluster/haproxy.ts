import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';

/** A replica as HAProxy's backend lists it. */
export interface BackendServer {
  name: string;
  port: number;
}

/** A server of the backend as HAProxy sees it now (`show stat`). */
export interface ServerState {
  name: string;
  /** `UP`, `DOWN`, `MAINT`, `UP 1/2` (going down), `DOWN 1/2` (coming up), … */
  status: string;
  /** Requests it was sent, and connection failures and retries HAProxy counted for it. */
  requests: number;
  connectionErrors: number;
  retries: number;
  redispatches: number;
}

/** Where the balancer listens and what it balances over. */
export interface BalancerSettings {
  host: string;
  port: number;
  servers: BackendServer[];
  /** The runtime API's Unix socket. */
  socket: string;
}

/**
 * HAProxy's configuration from `deploy/haproxy.cfg` (the one file a deployment edits too), with
 * its `bind`, `server` and `stats socket` lines set to what the cluster picked.
 */
export function balancerConfig(template: string, settings: BalancerSettings): string {
  const lines = template.split('\n').filter((line) => !/^\s+server\s/.test(line));
  const servers = settings.servers.map(({ name, port }) => `    server ${name} 127.0.0.1:${port}`);
  const backend = lines.findIndex((line) => line.startsWith('backend gateways'));
  if (backend < 0) throw new Error('deploy/haproxy.cfg has no `backend gateways` section');
  let end = lines.findIndex((line, index) => index > backend && /^\S/.test(line));
  if (end < 0) end = lines.length;
  while (end > backend && lines[end - 1]!.trim() === '') end -= 1;
  lines.splice(end, 0, ...servers);
  return lines
    .map((line) => line.replace(/^(\s+bind)\s+\S+/, `$1 ${settings.host}:${settings.port}`))
    .map((line) => line.replace(/^(\s+stats socket)\s+\S+/, `$1 ${settings.socket}`))
    .join('\n');
}

/** A running HAProxy. */
export interface Balancer {
  /** HAProxy's process id. */
  pid: number;
  /** The backend's servers as HAProxy sees them now. */
  servers(): Promise<ServerState[]>;
  stop(): Promise<void>;
}

/**
 * Starts `haproxy` (Debian's package) in the foreground on `configFile`, once `haproxy -c` found
 * the file valid; resolves once its runtime API answers.
 */
export async function startBalancer(configFile: string, socket: string): Promise<Balancer> {
  const binary = haproxyBinary();
  await promisify(execFile)(binary, ['-c', '-q', '-f', configFile]).catch((error: Error & { stderr?: string }) => {
    throw new Error(
      (error as { code?: string }).code === 'ENOENT'
        ? 'haproxy is not installed: apt-get install haproxy'
        : `HAProxy refused its configuration: ${error.stderr ?? error.message}`,
    );
  });
  const child: ChildProcess = spawn(binary, ['-db', '-f', configFile], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let waited = 0; ; waited += 50) {
    if (child.exitCode !== null) throw new Error(`HAProxy ended at start: ${stderr}`);
    if (await runtime(socket, 'show info').then(Boolean, () => false)) break;
    if (waited > 10_000) throw new Error(`HAProxy did not start within 10 s: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    pid: child.pid!,
    servers: async () => parseStats(await runtime(socket, 'show stat')),
    async stop() {
      process.removeListener('exit', killOnExit);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `haproxy` on the PATH, or where Debian puts it (`/usr/sbin`, on no user's PATH but root's). */
function haproxyBinary(): string {
  const onPath = (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, 'haproxy')));
  return onPath || !existsSync('/usr/sbin/haproxy') ? 'haproxy' : '/usr/sbin/haproxy';
}

/** Sends one command to HAProxy's runtime API and answers its whole reply. */
function runtime(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let reply = '';
    connection.on('data', (chunk) => (reply += chunk.toString()));
    connection.once('error', reject);
    connection.once('end', () => resolve(reply));
    connection.end(`${command}\n`);
  });
}

/** The servers of `backend gateways` in `show stat`'s CSV. */
function parseStats(csv: string): ServerState[] {
  const [header, ...rows] = csv.trim().split('\n');
  const columns = header!.replace(/^# /, '').split(',');
  const column = (row: string[], name: string) => row[columns.indexOf(name)] ?? '';
  return rows
    .map((line) => line.split(','))
    .filter((row) => column(row, 'pxname') === 'gateways' && !['FRONTEND', 'BACKEND'].includes(column(row, 'svname')))
    .map((row) => ({
      name: column(row, 'svname'),
      status: column(row, 'status'),
      requests: Number(column(row, 'stot')),
      connectionErrors: Number(column(row, 'econ')),
      retries: Number(column(row, 'wretr')),
      redispatches: Number(column(row, 'wredis')),
    }));
}
