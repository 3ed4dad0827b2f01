import { UpstreamUnavailableError } from '../errors.js';
import type { CallName, HttpMethod } from './record.js';

// Upstream concerns (timeout, retry, circuit breaker, metrics, spans, explain, sharing of reads in
// flight) are hooks around the one fetch of `RestClient`, in the style of Hive Gateway's `onFetch`
// plugins: each may act before the fetch, wrap it (call it again, or not at all) and see its outcome.

/** One finished upstream exchange, as observers (metrics, spans, explain, benchmarks) see it. */
export interface Exchange {
  method: HttpMethod;
  /** Path without the query string. */
  path: string;
  status: number | undefined;
  /** `performance.now()` when the first try started and when the last one ended. */
  startedAt: number;
  endedAt: number;
  /** Tries after the first one (retries of an idempotent read). */
  retries: number;
  /** The route template of its operation (`/spaces/{spaceId}`), never the path with its ids: `(other)` without one. */
  route: string;
  /** The operation it called, when it was called through its record (see `record.ts`). */
  operationId?: string | undefined;
}

/** An answer of the upstream, whatever its status, read in full (within the call's `maxBytes`). */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  bytes: number;
}

/**
 * What tracing gives a request's upstream calls: the W3C `traceparent` they carry, and the parent
 * of their spans (opaque here: only the tracing hook reads it, so nothing of OpenTelemetry is
 * loaded when tracing is off).
 */
export interface UpstreamSpan {
  traceparent: string;
  /** Undefined when the trace is not sampled: the call carries its `traceparent` and makes no span. */
  parent: unknown;
}

/** The record of an upstream request in the trace of `explain` (see `trace.ts`): the hook fills in its exchange. */
export interface ExplainedCall {
  exchange?: Exchange | undefined;
}

/**
 * One upstream request on its way through the hooks: what it sends, what it was sent for, and
 * what happened so far. Hooks change only the fields below the line (the innermost fetch counts
 * the tries and notes the times and the status).
 */
export interface UpstreamCall {
  readonly method: HttpMethod;
  /** Path below the base URL without its query string (a signed URL's label: `/download`). */
  readonly path: string;
  /** What is requested: the origin's path with the query, or the whole URL of a signed URL. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly payload: string | Uint8Array | undefined;
  /** Most bytes of body read; past it the call fails with ResponseTooLargeError. */
  readonly maxBytes: number;
  /** The route template metrics and spans name it by. */
  readonly route: string;
  readonly operation: CallName | undefined;
  /**
   * A URL the platform signed (an upload or a download): sent once, without credentials; retry,
   * the breaker and the sharing of reads leave it alone.
   */
  readonly signed: boolean;
  /** A read made after a change it was told of: the sharing of reads in flight gives it a request of its own. */
  readonly fresh: boolean;
  /** The GraphQL request's span, when it is traced. */
  readonly span: UpstreamSpan | undefined;
  /** The record of `explain`, when the GraphQL request is explained. */
  readonly explained: ExplainedCall | undefined;
  /** Aborted when nobody waits for the answer any more: the try under way and waits are abandoned. */
  signal: AbortSignal | undefined;
  /** `performance.now()` past which no try runs (set by the timeout hook). */
  deadline: number;
  /** The time budget that set `deadline`, for the error that says it ran out. */
  timeoutMs: number | undefined;
  tries: number;
  startedAt: number | undefined;
  endedAt: number | undefined;
  /** Status of the last answer; undefined when the last try had none. */
  status: number | undefined;
  /** How the last try lost its connection, if it did: `refused` (nothing was sent) or `reset`. */
  connection: 'refused' | 'reset' | undefined;
}

/** The fetch a hook wraps: the next hook's, or the client's own at the end of the list. */
export type UpstreamFetch = (call: UpstreamCall) => Promise<UpstreamAnswer>;

/** A concern around the one upstream fetch. */
export interface UpstreamHook {
  /** What it is, for readers of a hook list. */
  readonly name: string;
  /**
   * Runs the call: act before `next`, call it (once, again, or not at all: throw or answer
   * instead), see what it answered or threw. Answers of any status resolve; no answer rejects
   * with a coded GatewayError.
   */
  fetch(call: UpstreamCall, next: UpstreamFetch): Promise<UpstreamAnswer>;
}

/** The fetch that runs `hooks` around `fetch`, first hook outermost: composed once, not per call. */
export function withHooks(hooks: readonly UpstreamHook[], fetch: UpstreamFetch): UpstreamFetch {
  let next = fetch;
  for (let index = hooks.length - 1; index >= 0; index -= 1) {
    const hook = hooks[index]!;
    const inner = next;
    next = (call) => hook.fetch(call, inner);
  }
  return next;
}

/** The route of a request sent without its operation: one label for all, never a path holding ids. */
export const UNNAMED_ROUTE = '(other)';

/** The exchange a call made so far (its whole story once it is over). */
export function exchangeOf(call: UpstreamCall): Exchange {
  const now = performance.now();
  return {
    method: call.method,
    path: call.path,
    status: call.status,
    startedAt: call.startedAt ?? now,
    endedAt: call.endedAt ?? now,
    retries: Math.max(0, call.tries - 1),
    route: call.route,
    operationId: call.operation?.operationId,
  };
}

/** A hook that hands `listener` every finished exchange, successful or not (benchmarks and tests count them). */
export function reportExchanges(listener: (exchange: Exchange) => void): UpstreamHook {
  return {
    name: 'report exchanges',
    async fetch(call, next) {
      try {
        return await next(call);
      } finally {
        listener(exchangeOf(call));
      }
    },
  };
}

/**
 * A try a hook refused to send (the open circuit breaker): a retry reports what happened to the
 * tries before it instead.
 */
export class RefusedTryError extends UpstreamUnavailableError {}
