import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { GatewayContext, RateLimitStatus } from '../context.js';
import { GatewayError } from '../errors.js';
import { budgetKeyOf } from '../state/caller.js';
import type { BudgetState, Budgets } from '../state/store.js';
import type { OperationCost } from './cost.js';

/** Options of `useRateLimits`. */
export interface RateLimitOptions {
  /** Points per caller and window (`RATE_LIMIT_POINTS`). */
  points: number;
  /** Length of a window, in milliseconds (`RATE_LIMIT_WINDOW_S` × 1000). */
  windowMs: number;
  /**
   * When the budgets cannot be read (Redis is down): admit operations unmetered (true), or refuse
   * them with RATE_LIMITED (false) (`RATE_LIMIT_FAIL_OPEN`).
   */
  failOpen: boolean;
}

/** An operation's take of its caller's budget. */
interface Reservation {
  key: string;
  points: number;
  state: BudgetState;
  context: GatewayContext;
  /** Its settlement, once started: the last part and the end of a stream may both ask for it. */
  settlement?: Promise<BudgetState>;
  /** The budget once settled. */
  settled?: BudgetState;
}

/**
 * Cost-based rate limits per caller, as GitHub's GraphQL API has them: each caller (a hash of its
 * token; without one, of its client address) has `points` per window. Before an operation runs, its `maxUpstreamRequests` (the cost
 * plugin's bound, computed from the document) is taken from the budget, atomically across
 * replicas; once answered, it is settled at the upstream requests it actually sent. An answer of
 * the response cache runs nothing and costs nothing. Past the budget, the operation is refused
 * before any upstream request (RATE_LIMITED, `retryAfter`, HTTP 429 and `Retry-After`). Every
 * answer carries `extensions.rateLimit`.
 *
 * Subscriptions take their bound when they start and settle at their first event: later events
 * come from the gateway's shared poll, not from the caller's requests.
 */
export function useRateLimits(budgets: Budgets, options: RateLimitOptions): Plugin {
  const reservations = new WeakMap<Request, Reservation>();

  async function reserve(args: ExecutionArgs, refuse: (result: ExecutionResult) => void): Promise<void> {
    const context = args.contextValue as unknown as GatewayContext & { request: Request; cost?: OperationCost };
    const key = budgetKeyOf(context.request);
    const points = context.cost?.maxUpstreamRequests ?? 0;
    const state = await budgets.take(key, points, options.points, options.windowMs);
    if (!state) {
      if (!options.failOpen) refuse({ errors: [unreadableBudget()] });
      return;
    }
    reservations.set(context.request, { key, points, state, context });
    context.rateLimit = status(options.points, points, state);
    if (!state.admitted) refuse({ errors: [spentBudget(options, points, state)] });
  }

  /** Settles the operation at what it spent, once: the budget it leaves is what the answer reports. */
  function settle(reservation: Reservation): Promise<BudgetState> {
    reservation.settlement ??= (async () => {
      const delta = reservation.context.api.usage.sent - reservation.points;
      const settled =
        !reservation.state.admitted || delta === 0
          ? reservation.state
          : await budgets.adjust(reservation.key, delta, reservation.state.resetAt);
      reservation.settled = settled ?? reservation.state;
      return reservation.settled;
    })();
    return reservation.settlement;
  }

  /** `extensions.rateLimit` of an answer: what it spent, and what is left. */
  async function report(request: Request, last: boolean): Promise<RateLimitStatus | undefined> {
    const reservation = reservations.get(request);
    if (reservation) {
      // A subscription's later events report the budget as it was settled at the first.
      if (!last)
        return status(options.points, reservation.context.api.usage.sent, reservation.settled ?? reservation.state);
      const settled = await settle(reservation);
      return status(options.points, reservation.state.admitted ? reservation.context.api.usage.sent : 0, settled);
    }
    // Nothing ran (an answer of the cache, a refusal before execution): no point spent; the budget as it is.
    const state = await budgets.take(budgetKeyOf(request), 0, options.points, options.windowMs);
    return state && status(options.points, 0, state);
  }

  return {
    onExecute: ({ args, setResultAndStopExecution }) => reserve(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => reserve(args, setResultAndStopExecution),
    async onResultProcess({ request, result, setResult }) {
      if (Array.isArray(result)) return;
      if (!isAsyncIterable(result)) {
        setResult(withReport(result, await report(request, true)));
        return;
      }
      // Answers in parts settle with their last part; subscriptions with their first event.
      let events = 0;
      setResult(
        mapAsyncIterator(
          result,
          async (payload: ExecutionResult & { hasNext?: boolean }) => {
            events += 1;
            const last = payload.hasNext === undefined ? events === 1 : !payload.hasNext;
            return withReport(payload, await report(request, last));
          },
          undefined,
          // An answer cut short (the client went away before its last part or first event) is settled too.
          () => {
            const reservation = reservations.get(request);
            if (reservation) void settle(reservation);
          },
        ),
      );
    },
  };
}

function withReport<R extends ExecutionResult>(result: R, rateLimit: RateLimitStatus | undefined): R {
  return rateLimit ? { ...result, extensions: { ...result.extensions, rateLimit } } : result;
}

function status(limit: number, cost: number, state: BudgetState): RateLimitStatus {
  return {
    limit,
    cost,
    remaining: Math.max(0, limit - state.used),
    resetAt: new Date(state.resetAt).toISOString(),
  };
}

/** The refusal of an operation whose bound is more than what is left of its caller's budget. */
function spentBudget(options: RateLimitOptions, points: number, state: BudgetState): GatewayError {
  const remaining = Math.max(0, options.points - state.used);
  const resetAt = new Date(state.resetAt).toISOString();
  const message =
    points > options.points
      ? `This operation may make up to ${points} upstream requests, more than a whole budget of ${options.points} points: ask for fewer objects (smaller first arguments, fewer nested connections)`
      : `Rate limit: this operation needs up to ${points} points and ${remaining} of ${options.points} are left until ${resetAt}`;
  return refusal(message, Math.max(1, Math.ceil((state.resetAt - Date.now()) / 1000)), {
    limit: 'rateLimitPoints',
    value: state.used + points,
    max: options.points,
  });
}

/** The refusal when the budgets cannot be read and `RATE_LIMIT_FAIL_OPEN` is off. */
function unreadableBudget(): GatewayError {
  return refusal('Rate limits cannot be checked right now (the shared state is unreachable): try again shortly', 1);
}

function refusal(message: string, retryAfter: number, budget?: GatewayError['budget']): GatewayError {
  const error = new GatewayError('RATE_LIMITED', message, { retryAfter, budget });
  // Read by yoga for the answer's status and headers, and left out of the answer's body.
  error.extensions.http = { status: 429, headers: { 'retry-after': String(retryAfter) } };
  return error;
}
