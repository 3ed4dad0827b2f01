import type { UpstreamHook } from './hooks.js';

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
