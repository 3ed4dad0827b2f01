import { CircuitBreaker, upstreamBreaker } from './breaker.js';
import type { PingResult, RestClient } from './client.js';
import type { UpstreamHook } from './hooks.js';
import { upstreamRetry } from './retry.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS, upstreamTimeout } from './timeout.js';

/** Settings of `upstreamResilience`: the one place of their defaults. */
export interface ResilienceOptions {
  /**
   * Milliseconds one request may take, every try and every wait between tries included
   * (connection, headers and body); past it the request fails with UPSTREAM_TIMEOUT (see `timeout.ts`).
   * A gateway takes its client's timeout (`RestClientOptions.timeoutMs`) when left out.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Retries of a GET answered 502, 503 or 504 or whose connection was reset or refused, each
   * after a random wait below `retryBaseDelayMs` doubled per retry, all within `timeoutMs`.
   * Writes are retried only when the connection was refused: then nothing was sent (see `retry.ts`).
   * @default 2
   */
  maxRetries?: number;
  /** Longest wait before the first retry; it doubles with each further retry. @default 50 */
  retryBaseDelayMs?: number;
  /**
   * Failed tries in a row (connection errors, timeouts, 5xx answers; 4xx answers are not
   * failures) that open the circuit breaker: requests then fail fast with UPSTREAM_UNAVAILABLE
   * for `breakerCooldownMs`, after which one probe request is let through (see `breaker.ts`).
   * @default 5
   */
  breakerThreshold?: number;
  /** Milliseconds an open circuit breaker fails requests fast before letting a probe through. @default 5000 */
  breakerCooldownMs?: number;
}

/** What `upstreamResilience` makes: the hooks, and the breaker they share with whoever reads or resets it. */
export interface UpstreamResilience {
  /**
   * Timeout, retry and breaker, first outermost: the innermost of a hook list, next to the
   * client's own fetch (the budget spans every try, each try passes the breaker).
   */
  readonly hooks: readonly UpstreamHook[];
  /** The breaker of the upstream origin: health and metrics read it, the supervisor resets it. */
  readonly breaker: CircuitBreaker;
}

/**
 * The resilience of upstream requests as hooks around the one fetch (see `hooks.ts`): a time
 * budget per request, retries of what is safe to send again, and a circuit breaker of the origin.
 */
export function upstreamResilience(options: ResilienceOptions = {}): UpstreamResilience {
  const breaker = new CircuitBreaker(options.breakerThreshold ?? 5, options.breakerCooldownMs ?? 5_000);
  return {
    hooks: [
      upstreamTimeout(options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS),
      upstreamRetry({ maxRetries: options.maxRetries ?? 2, baseDelayMs: options.retryBaseDelayMs ?? 50 }),
      upstreamBreaker(breaker),
    ],
    breaker,
  };
}

/**
 * Whether the upstream answers at all (`RestClient.ping`), counted by `breaker` like any request:
 * refused while it is open, the probe once its cool-down is over; an answer below 500 is a
 * success, anything else a failure. Never retried, through no other hook.
 */
export async function pingThrough(
  breaker: CircuitBreaker,
  client: RestClient,
  timeoutMs?: number,
): Promise<PingResult> {
  const ticket = breaker.admit();
  if (!ticket) return { reachable: false, durationMs: 0, reason: 'the circuit breaker is open' };
  let result: PingResult;
  try {
    result = await client.ping(timeoutMs);
  } catch (error) {
    breaker.released(ticket);
    throw error;
  }
  if (result.reachable) breaker.succeeded(ticket);
  else breaker.failed(ticket);
  return result;
}
