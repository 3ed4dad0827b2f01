import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where ports are drawn from when the system does not say where its ephemeral range starts. */
const FALLBACK_EPHEMERAL_START = 32768;
const LOWEST = 10_000;

/**
 * A TCP port free on loopback now, for a server started in another process (which cannot be
 * given port 0 and asked afterwards). It is drawn at random below the system's ephemeral range:
 * a port the kernel handed out for `listen(0)` goes back to the pool that outgoing connections
 * draw from, and one of them could take it before the other process binds it.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralStart();
  for (let attempt = 0; ; attempt += 1) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (await bindable(port)) return port;
    if (attempt === 50) throw new Error(`No free port on 127.0.0.1 between ${LOWEST} and ${end}`);
  }
}

function ephemeralStart(): number {
  try {
    const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const value = Number(start);
    return value > LOWEST + 1_000 ? value : FALLBACK_EPHEMERAL_START;
  } catch {
    return FALLBACK_EPHEMERAL_START;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
