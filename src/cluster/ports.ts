import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The ephemeral range when the system does not say (Linux's default). */
const DEFAULT_EPHEMERAL: readonly [number, number] = [32768, 60999];
/** Ports below it are left to services. */
const LOWEST = 10_000;
/** Smallest stretch of ports worth drawing from. */
const ENOUGH = 1_000;

/**
 * A TCP port free on `host` now (loopback by default), for a server started in another process
 * (which cannot be given port 0 and asked afterwards). It is drawn at random outside the system's
 * ephemeral range: a port the kernel handed out for `listen(0)` goes back to the pool that
 * outgoing connections draw from, and one of them could take it before the other process binds it.
 */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [low, high] = stretchOutsideEphemeral();
  for (let attempt = 0; ; attempt += 1) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await bindable(port, host)) return port;
    if (attempt === 50) throw new Error(`No free port on ${host} between ${low} and ${high}`);
  }
}

/** Ports [low, high) below the ephemeral range, or above it when too few are below. */
function stretchOutsideEphemeral(): [number, number] {
  const [start, end] = ephemeralRange();
  if (start - LOWEST >= ENOUGH) return [LOWEST, start];
  if (65_535 - end >= ENOUGH) return [end + 1, 65_536];
  // The whole space is ephemeral: nothing is safe, any port will do.
  return [LOWEST, 65_536];
}

function ephemeralRange(): readonly [number, number] {
  try {
    const [start, end] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return start! > 0 && end! >= start! ? [start!, end!] : DEFAULT_EPHEMERAL;
  } catch {
    return DEFAULT_EPHEMERAL;
  }
}

/** Throws, naming `setting`, when `port` of `host` (loopback by default) is taken now (or not allowed). */
export async function assertFree(port: number, setting: string, host = '127.0.0.1'): Promise<void> {
  if (!(await bindable(port, host)))
    throw new Error(`port ${port} is already in use. Choose another port with ${setting}.`);
}

/** Whether a server could listen on `port` of `host` now: the interface the process to start will bind. */
function bindable(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
