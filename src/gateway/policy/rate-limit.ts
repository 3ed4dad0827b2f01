import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { GatewayContext, RateLimitStatus } from '../context.js';
import { GatewayError } from '../errors.js';
import { addressKeyOf, budgetKeyOf, callerKeyOf } from '../state/caller.js';
import { keepRecent } from '../state/memory.js';
import type { BudgetState, Budgets, KeyValueStore } from '../state/store.js';
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

/** Tokens the platform accepted lately, kept in each replica's memory too (hashes; the least recent go first). */
const MAX_KNOWN_TOKENS = 100_000;

/** An operation's take of its caller's budget. */
interface Reservation {
  key: string;
  points: number;
  state: BudgetState;
  context: GatewayContext;
  /** Whether its caller sent a token (its budget key is the token's, not an address's). */
  token: boolean;
  /** The budget of its client address, charged too when its token is not known to be valid. */
  address?: { key: string; resetAt: number };
  /** Its settlement, once started: the last part and the end of a stream may both ask for it. */
  settlement?: Promise<BudgetState>;
  /** The budget once settled. */
  settled?: BudgetState;
}

/**
 * Cost-based rate limits per caller, as GitHub's GraphQL API has them: each caller (a hash of its
 * token; without one, of its client address) has `points` per window. Before an operation runs,
 * its `maxUpstreamRequests` (the cost plugin's bound, computed from the document) is taken from
 * the budget, atomically across replicas; once answered, it is settled at the upstream requests
 * it actually sent. An answer of the response cache runs nothing and costs nothing. Past the budget, the operation is refused
 * before any upstream request (RATE_LIMITED, `retryAfter`, HTTP 429 and `Retry-After`). Every
 * answer carries `extensions.rateLimit`.
 *
 * Subscriptions take their bound when they start and settle at their first event: later events
 * come from the gateway's shared poll, not from the caller's requests.
 *
 * A made-up token would be a fresh budget: a token not yet seen accepted by the platform spends
 * its client address's budget as well as its own, so that a client minting tokens
 * is held to one budget per address. Once an operation of it succeeds upstream, it spends only
 * its own, on every replica: the others learn it from `accepted`.
 */
export function useRateLimits(
  budgets: Budgets,
  options: RateLimitOptions,
  /** Where replicas tell each other of the tokens the platform accepted (hashes, for a window). */
  accepted?: KeyValueStore,
): Plugin {
  const reservations = new WeakMap<Request, Reservation>();

  const knownTokens = new Map<string, true>();
  const remember = (key: string) => keepRecent(knownTokens, key, true, MAX_KNOWN_TOKENS);

  /** Whether the platform accepted the token of `key`: here, or, as another replica wrote down, elsewhere. */
  async function isKnown(key: string): Promise<boolean> {
    if (knownTokens.has(key)) return true;
    if ((await accepted?.get(key)) !== '1') return false;
    remember(key);
    return true;
  }

  async function reserve(args: ExecutionArgs, refuse: (result: ExecutionResult) => void): Promise<void> {
    const context = args.contextValue as unknown as GatewayContext & { request: Request; cost?: OperationCost };
    const key = budgetKeyOf(context.request);
    const points = context.cost?.maxUpstreamRequests ?? 0;
    const state = await budgets.take(key, points, options.points, options.windowMs);
    if (!state) {
      if (!options.failOpen) refuse({ errors: [unreadableBudget()] });
      return;
    }
    const token = callerKeyOf(context.request) !== 'anonymous';
    const reservation: Reservation = { key, points, state, context, token };
    reservations.set(context.request, reservation);
    context.rateLimit = status(options.points, points, state);
    if (!state.admitted) return refuse({ errors: [spentBudget(options, points, state)] });
    // Even an operation that reserves nothing (introspection) may spend the gateway's own work.
    if (!token) return;
    const address = addressKeyOf(context.request);
    if (!address || (await isKnown(key))) return;
    const addressState = await budgets.take(address, points, options.points, options.windowMs);
    if (addressState?.admitted) {
      reservation.address = { key: address, resetAt: addressState.resetAt };
      return;
    }
    // Unreadable, the token's own budget stands alone when failing open.
    if (!addressState && options.failOpen) return;
    // Refused: the points taken from the token's budget go back.
    const given = await budgets.adjust(key, -points, state.resetAt);
    reservation.state = { ...(given ?? state), admitted: false };
    context.rateLimit = status(options.points, 0, reservation.state);
    refuse({ errors: [addressState ? spentAddressBudget(options, points, addressState) : unreadableBudget()] });
  }

  /** Settles the operation at what it spent, once: the budget it leaves is what the answer reports. */
  function settle(reservation: Reservation): Promise<BudgetState> {
    reservation.settlement ??= (async () => {
      const { usage } = reservation.context.api;
      const delta = spent(reservation.context) - reservation.points;
      if (reservation.token && reservation.state.admitted && usage.accepted && !knownTokens.has(reservation.key)) {
        remember(reservation.key);
        void accepted?.set(reservation.key, '1', options.windowMs);
      }
      const { address } = reservation;
      // A take of nothing started no window: what such an operation spent (the gateway's own work)
      // starts one, whatever is left, instead of adjusting a window that does not exist.
      const charge = (key: string, resetAt: number) =>
        reservation.points === 0 && delta > 0
          ? budgets.take(key, delta, Number.MAX_SAFE_INTEGER, options.windowMs)
          : budgets.adjust(key, delta, resetAt);
      const [settled] = await Promise.all([
        !reservation.state.admitted || delta === 0
          ? reservation.state
          : charge(reservation.key, reservation.state.resetAt),
        address && delta !== 0 ? charge(address.key, address.resetAt) : undefined,
      ]);
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
      if (!last) return status(options.points, spent(reservation.context), reservation.settled ?? reservation.state);
      const settled = await settle(reservation);
      return status(options.points, reservation.state.admitted ? spent(reservation.context) : 0, settled);
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

/** Points an operation spent: its upstream requests and the gateway's own work. */
function spent(context: GatewayContext): number {
  return context.api.usage.sent + context.work.points;
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

/** The refusal of an operation of a token not yet accepted, from an address that spent its budget. */
function spentAddressBudget(options: RateLimitOptions, points: number, state: BudgetState): GatewayError {
  const resetAt = new Date(state.resetAt).toISOString();
  return refusal(
    `Rate limit: operations from this address with tokens the platform has not accepted yet have spent ${options.points} points until ${resetAt}; a token the platform accepted spends its own budget`,
    Math.max(1, Math.ceil((state.resetAt - Date.now()) / 1000)),
    { limit: 'addressPoints', value: state.used + points, max: options.points },
  );
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
