import { AbandonedRequestError, ResponseTooLargeError } from '../errors.js';
import { RefusedTryError, type UpstreamHook } from './hooks.js';

/** The circuit breaker of the upstream origin, as health checks show it. */
export interface BreakerStatus {
  /**
   * `closed`: requests go out; `open`: they fail fast; `half-open`: the cool-down is over and
   * the next request (or the one under way) is the probe that closes or reopens it.
   */
  state: 'closed' | 'open' | 'half-open';
  /** Failed tries in a row; a success resets it. */
  consecutiveFailures: number;
  /** When an open breaker lets a probe through (epoch milliseconds); undefined when closed. */
  reopensAt: number | undefined;
}

/** Permission for one try; the probe is the one try let through when an open breaker cools down. */
export interface Ticket {
  probe: boolean;
}

const ADMITTED: Ticket = Object.freeze({ probe: false });

/**
 * Counts failed tries in a row against one origin; at the threshold it opens: tries are refused
 * for the cool-down, then one probe goes out, whose success closes it and failure reopens it.
 * Wall-clock time, so that `reopensAt` can be shown.
 */
export class CircuitBreaker {
  private failures = 0;
  private openUntil: number | undefined;
  private probing = false;

  /**
   * @param threshold failed tries in a row (connection errors, timeouts, 5xx answers; 4xx answers are not failures) that open it
   * @param cooldownMs how long an open breaker refuses tries before letting a probe through
   */
  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
  ) {}

  status(): BreakerStatus {
    const state = this.openUntil === undefined ? 'closed' : Date.now() < this.openUntil ? 'open' : 'half-open';
    return { state, consecutiveFailures: this.failures, reopensAt: this.openUntil };
  }

  /** A ticket for one try, or undefined when the breaker refuses it. */
  admit(): Ticket | undefined {
    if (this.openUntil === undefined) return ADMITTED;
    if (this.probing || Date.now() < this.openUntil) return undefined;
    this.probing = true;
    return { probe: true };
  }

  /** Closes it at once (the owner knows the upstream serves again). */
  reset(): void {
    this.failures = 0;
    this.openUntil = undefined;
    this.probing = false;
  }

  succeeded(ticket: Ticket): void {
    // A try admitted before the breaker opened proves less than the probe: only the probe closes it.
    if (this.openUntil !== undefined && !ticket.probe) return;
    this.failures = 0;
    this.openUntil = undefined;
    this.probing = false;
  }

  /** A try whose answer nobody waited for: a probe frees the way for the next one. */
  released(ticket: Ticket): void {
    if (ticket.probe) this.probing = false;
  }

  failed(ticket: Ticket): void {
    this.failures += 1;
    if (ticket.probe) {
      this.probing = false;
      this.openUntil = Date.now() + this.cooldownMs;
    } else if (this.openUntil === undefined && this.failures >= this.threshold) {
      this.openUntil = Date.now() + this.cooldownMs;
    }
  }

  /** Why a request was not sent, and when the upstream will be tried again. */
  refusal(method: string, path: string): RefusedTryError {
    const { consecutiveFailures, reopensAt } = this.status();
    const wait = reopensAt === undefined ? 0 : reopensAt - Date.now();
    const next =
      wait > 0
        ? `it will be tried again at ${new Date(reopensAt!).toISOString()} (in ${(wait / 1000).toFixed(1)} s)`
        : 'a trial request is under way, and it will be tried again once that one answers';
    return new RefusedTryError(
      `The platform is failing (${consecutiveFailures} failed requests in a row), so ${method} ${path} was not sent: ${next}`,
    );
  }
}

/**
 * The breaker around each try: refused at once while it is open (RefusedTryError, which a retry
 * turns into what happened to the tries before it); an answer of 500 or more, a timeout or a lost
 * connection counts as a failure, any other answer (a body too large included) as a success, and
 * a try whose client went away as neither.
 */
export function upstreamBreaker(breaker: CircuitBreaker): UpstreamHook {
  return {
    name: 'circuit breaker',
    async fetch(call, next) {
      if (call.signed) return next(call);
      const ticket = breaker.admit();
      if (!ticket) throw breaker.refusal(call.method, call.path);
      try {
        const answer = await next(call);
        if (answer.status >= 500) breaker.failed(ticket);
        else breaker.succeeded(ticket);
        return answer;
      } catch (error) {
        // Nobody waits for the answer: it says nothing of the upstream's health either way.
        if (error instanceof AbandonedRequestError) breaker.released(ticket);
        // The upstream answered; the answer is larger than this request may read.
        else if (error instanceof ResponseTooLargeError) breaker.succeeded(ticket);
        else breaker.failed(ticket);
        throw error;
      }
    },
  };
}
