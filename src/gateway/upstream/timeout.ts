import type { UpstreamHook } from './hooks.js';

/** Milliseconds an upstream request may take by default: the pool's timeouts and the request's budget. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/**
 * The time budget of one upstream request: every try and every wait between tries within
 * `timeoutMs` in all (connection, headers and body); the fetch ends a try at the deadline with
 * UPSTREAM_TIMEOUT, and a retry does not start past it.
 */
export function upstreamTimeout(timeoutMs: number): UpstreamHook {
  return {
    name: 'timeout',
    fetch(call, next) {
      call.timeoutMs = timeoutMs;
      call.deadline = performance.now() + timeoutMs;
      return next(call);
    },
  };
}
