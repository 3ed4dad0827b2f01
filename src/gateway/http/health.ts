import type { Plugin } from 'graphql-yoga';
import { redactSecrets } from '../errors.js';
import type { BreakerStatus, CircuitBreaker } from '../upstream/breaker.js';
import type { PingResult, RestClient } from '../upstream/client.js';
import { pingThrough } from '../upstream/resilience.js';
import type { ProcessStatus } from '../../supervisor.js';

/** Options of `useHealth`. */
export interface HealthOptions {
  /**
   * Milliseconds `/ready` waits for the upstream's answer.
   * @default the client's timeout, at most 2000
   */
  readyTimeoutMs?: number;
  /**
   * What the supervisor of the upstream's process knows of it (`npm start` runs the embedded
   * platform in a process of its own): while it is not running, `/ready` answers 503 naming why,
   * without a ping.
   */
  upstreamProcess?: () => UpstreamProcessStatus;
  /** Whether the gateway is stopping: `/ready` then answers 503 at once, for balancers to send no more. */
  draining?: () => boolean;
}

/** The upstream's process as its supervisor sees it (shown in `/ready` as `process`). */
export type UpstreamProcessStatus = ProcessStatus;

/** The body of a `/ready` answer. */
export interface Readiness {
  /** `ready` (200) or `unavailable` (503). */
  status: 'ready' | 'unavailable';
  /** Why the gateway is not ready; absent when it is. */
  reason?: string;
  upstream: { reachable: boolean; status?: number; durationMs: number; reason?: string };
  breaker: { state: BreakerStatus['state']; consecutiveFailures: number; reopensAt?: string };
  /** The upstream's process, when the gateway supervises it. */
  process?: UpstreamProcessStatus;
}

/**
 * Health endpoints of the gateway:
 * - `GET /health`: the process is up; always 200 `{"status":"ok"}` (it replaces the empty
 *   answer of yoga's built-in health check).
 * - `GET /ready`: 200 `{"status":"ready", upstream, breaker}` when the upstream answers a GET of
 *   its base URL below 500 within a short timeout and the circuit breaker is closed; otherwise
 *   503 `{"status":"unavailable", reason, upstream, breaker}`. The upstream's URL is never shown.
 *   With a supervised upstream process (`upstreamProcess`), the body also has `process`, and a
 *   process that is not running makes it 503 without a ping. A stopping gateway (`draining`)
 *   answers 503 `{"status":"unavailable", reason}` at once.
 */
export function useHealth(client: RestClient, breaker: CircuitBreaker, options: HealthOptions = {}): Plugin {
  return {
    onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== '/ready' || (request.method !== 'GET' && request.method !== 'HEAD')) return;
      if (options.draining?.()) return endResponse(json(fetchAPI, DRAINING, 503));
      return readiness(client, breaker, options.readyTimeoutMs, options.upstreamProcess?.()).then((body) =>
        endResponse(json(fetchAPI, body, body.status === 'ready' ? 200 : 503)),
      );
    },
    // yoga's built-in check answers `/health` before any plugin sees the request, with an empty
    // body; its answer is replaced here.
    onResponse({ request, setResponse, fetchAPI }) {
      // Every answer passes here: a URL is parsed only for one that may be the check's.
      if (request.url.includes('/health') && new URL(request.url, 'http://localhost').pathname === '/health')
        setResponse(json(fetchAPI, { status: 'ok' }, 200));
    },
  };
}

const DRAINING = {
  status: 'unavailable',
  reason: 'The gateway is shutting down: it finishes the operations under way and accepts no more',
};

/**
 * Pings the upstream through the circuit breaker of its requests (the ping is the breaker's
 * probe once its cool-down is over), unless its supervised process is known not to run.
 */
export async function readiness(
  client: RestClient,
  circuit: CircuitBreaker,
  timeoutMs?: number,
  process?: UpstreamProcessStatus,
): Promise<Readiness> {
  if (process && process.state !== 'running') return processDown(circuit, process);
  const ping: PingResult = await pingThrough(circuit, client, timeoutMs);
  const breaker = circuit.status();
  const upstream: Readiness['upstream'] = {
    reachable: ping.reachable,
    ...(ping.status !== undefined ? { status: ping.status } : {}),
    durationMs: Math.round(ping.durationMs * 10) / 10,
    ...(ping.reason !== undefined ? { reason: redactSecrets(ping.reason) } : {}),
  };
  const shownBreaker = showBreaker(breaker);
  const shownProcess = process ? { process } : {};
  if (breaker.state !== 'closed') {
    const now =
      breaker.state === 'open'
        ? `requests fail fast until ${shownBreaker.reopensAt}`
        : 'a trial request is under way, and requests fail fast until it answers';
    return {
      status: 'unavailable',
      reason: `The platform is failing: the circuit breaker opened after ${breaker.consecutiveFailures} failed requests in a row; ${now}`,
      upstream,
      breaker: shownBreaker,
      ...shownProcess,
    };
  }
  if (!ping.reachable) {
    return {
      status: 'unavailable',
      reason: `The platform is not reachable: ${upstream.reason ?? 'no answer'}`,
      upstream,
      breaker: shownBreaker,
      ...shownProcess,
    };
  }
  return { status: 'ready', upstream, breaker: shownBreaker, ...shownProcess };
}

/** The answer while the upstream's process is starting, restarting or stopped. */
function processDown(circuit: CircuitBreaker, process: UpstreamProcessStatus): Readiness {
  const why =
    process.state === 'restarting'
      ? `its process ended (${process.lastExit ?? 'cause unknown'}) and is restarting (restart ${process.restarts})`
      : process.state === 'starting'
        ? 'its process is starting'
        : 'its process is stopped';
  return {
    status: 'unavailable',
    reason: `The platform is not running: ${why}`,
    upstream: { reachable: false, durationMs: 0, reason: 'not asked: the process is not running' },
    breaker: showBreaker(circuit.status()),
    process,
  };
}

function showBreaker(breaker: BreakerStatus): Readiness['breaker'] {
  return {
    state: breaker.state,
    consecutiveFailures: breaker.consecutiveFailures,
    ...(breaker.reopensAt !== undefined ? { reopensAt: new Date(breaker.reopensAt).toISOString() } : {}),
  };
}

function json(fetchAPI: { Response: typeof Response }, body: unknown, status: number): Response {
  return new fetchAPI.Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}
