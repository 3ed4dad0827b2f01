import type { Duplex } from 'node:stream';
import { addressGroup } from '../state/client-address.js';

/** Bounds on the connections that stay open between operations: WebSockets and the event streams of `/graphql/stream`. */
export interface ConnectionLimits {
  /**
   * Most such connections one client address (an IPv6 client's /64, see `addressGroup`) holds open
   * at once (`MAX_CONNECTIONS_PER_ADDRESS`); one more is refused with 429. @default 100
   */
  maxPerAddress: number;
  /**
   * Milliseconds a connection may run no operation before it is closed (`CONNECTION_IDLE_TIMEOUT_MS`);
   * an operation under way (a subscription) holds it off. 0: never. @default 60000
   */
  idleMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { maxPerAddress: 100, idleMs: 60_000 };

/** A refusal as HTTP answers it, for a transport that writes it to a socket as much as one that makes a Response. */
export interface Refusal {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
}

/** Answers `refusal` on a socket whose upgrade is refused, then closes it. */
export function refuseUpgrade(socket: Duplex, refusal: Refusal): void {
  const lines = [
    `HTTP/1.1 ${refusal.status} ${refusal.statusText}`,
    ...Object.entries(refusal.headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(refusal.body)}`,
    'connection: close',
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${lines.join('\r\n')}\r\n\r\n${refusal.body}`);
}

/**
 * The connections open now, counted by client address: each transport that keeps a connection
 * open takes a slot before it accepts one and gives it back when it closes, so that one address
 * cannot hold the gateway's memory with thousands of connections, whichever transports it mixes.
 */
export class OpenConnections {
  readonly limits: ConnectionLimits;
  private readonly byAddress = new Map<string, number>();

  constructor(limits: Partial<ConnectionLimits> = {}) {
    this.limits = { ...DEFAULT_CONNECTION_LIMITS, ...limits };
  }

  /**
   * Takes a slot for a connection from `address`: the function that gives it back (once, however
   * often called), or a refusal (429, `RATE_LIMITED`, `limit: connectionsPerAddress`) when the address
   * holds its most. A connection whose transport cannot tell its address (in-process) takes none.
   */
  open(address: string | undefined): (() => void) | Refusal {
    if (address === undefined) return () => {};
    const group = addressGroup(address);
    const held = this.byAddress.get(group) ?? 0;
    const max = this.limits.maxPerAddress;
    if (held >= max) return tooManyConnections(held + 1, max);
    this.byAddress.set(group, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = (this.byAddress.get(group) ?? 1) - 1;
      if (left > 0) this.byAddress.set(group, left);
      else this.byAddress.delete(group);
    };
  }

  /** Connections open now from `address`'s group. */
  heldBy(address: string): number {
    return this.byAddress.get(addressGroup(address)) ?? 0;
  }
}

function tooManyConnections(value: number, max: number): Refusal {
  const body = {
    errors: [
      {
        message: `This address holds its most open connections (${max}, WebSockets and event streams together): close one first`,
        extensions: { code: 'RATE_LIMITED', limit: 'connectionsPerAddress', value, max },
      },
    ],
  };
  return {
    status: 429,
    statusText: 'Too Many Requests',
    headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '10' },
    body: JSON.stringify(body),
  };
}

/**
 * Calls `onIdle` once a connection has run no operation for `idleMs` (0: never): armed at the
 * start and each time the number of operations under way falls to 0, disarmed while one runs, so
 * a live subscription is never cut.
 */
export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;
  private running = 0;
  private stopped = false;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {
    this.arm();
  }

  /** An operation started on the connection. */
  started(): void {
    this.running += 1;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** An operation of the connection ended. */
  ended(): void {
    this.running = Math.max(0, this.running - 1);
    if (this.running === 0) this.arm();
  }

  /** The connection closed. */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.stopped = true;
  }

  private arm(): void {
    if (this.idleMs <= 0 || this.stopped || this.running !== 0) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running === 0) this.onIdle();
    }, this.idleMs);
    // An idle connection must not hold a stopping process.
    this.timer.unref();
  }
}
