import { setTimeout as sleep } from 'node:timers/promises';
import { AbandonedRequestError, GatewayError, ResponseTooLargeError } from '../errors.js';
import { RefusedTryError, type UpstreamAnswer, type UpstreamHook } from './hooks.js';

/** Options of `upstreamRetry`. */
export interface RetryOptions {
  /** Retries after the first try. @default 2 */
  maxRetries: number;
  /** Longest wait before the first retry; it doubles with each further retry. @default 50 */
  baseDelayMs: number;
}

/** Statuses after which a GET is tried again: the upstream or a proxy in front of it failed. */
const RETRIED_STATUSES = new Set([502, 503, 504]);

/**
 * Retries of a GET answered 502, 503 or 504 or whose connection was reset or refused, each after a
 * random wait below `baseDelayMs` doubled per retry, all before the call's deadline; a GET answered
 * 429 with `Retry-After` waits that long once. Writes are retried only when the connection was
 * refused: then nothing was sent. When it gives up, the last answer or failure is the call's.
 */
export function upstreamRetry({ maxRetries, baseDelayMs }: RetryOptions): UpstreamHook {
  return {
    name: 'retry',
    async fetch(call, next) {
      if (call.signed) return next(call);
      const { method, signal } = call;
      let waitedForRateLimit = false;
      let last: UpstreamAnswer | GatewayError | undefined;
      for (;;) {
        if (signal?.aborted) throw new AbandonedRequestError(method, call.path);
        let retryable = false;
        let waitMs: number | undefined;
        try {
          const answer = await next(call);
          if (answer.status < 400) return answer;
          last = answer;
          if (method === 'GET' && RETRIED_STATUSES.has(answer.status)) retryable = true;
          else if (method === 'GET' && answer.status === 429 && !waitedForRateLimit) {
            waitMs = parseRetryAfter(headerValue(answer.headers, 'retry-after'));
            retryable = waitMs !== undefined;
            waitedForRateLimit = retryable;
          }
        } catch (error) {
          // A retry refused by the breaker reports what actually happened to this request.
          if (error instanceof RefusedTryError && last !== undefined) return settle(last);
          if (!(error instanceof GatewayError) || error instanceof AbandonedRequestError) throw error;
          if (error instanceof ResponseTooLargeError) throw error;
          last = error;
          // A refused connection carried nothing, so even a write may go again.
          retryable = call.connection === 'reset' ? method === 'GET' : call.connection === 'refused';
        }
        if (!retryable || call.tries > maxRetries) return settle(last);
        const wait = waitMs ?? Math.random() * baseDelayMs * 2 ** (call.tries - 1);
        if (performance.now() + wait >= call.deadline) return settle(last);
        await sleep(wait, undefined, { signal }).catch(() => undefined);
      }
    },
  };
}

function settle(last: UpstreamAnswer | GatewayError): UpstreamAnswer {
  if (last instanceof GatewayError) throw last;
  return last;
}

/**
 * Milliseconds to wait that a `Retry-After` value asks for: delay-seconds or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`; 0 when past). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse reads many formats; only an HTTP date (IMF-fixdate and its obsolete forms) names a weekday or a month.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The first value of a header of an answer. */
export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
