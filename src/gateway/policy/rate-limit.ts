import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors.js';
import { partsOf } from '../request-parts.js';
import { callerOf } from '../state/caller.js';
import { keepRecent } from '../state/memory.js';
import type { BudgetState, Budgets, KeyValueStore } from '../state/store.js';
import { getCurrentUser } from '../upstream/users.js';
import { DEFAULT_LIMITS } from './limits.js';

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
  /**
   * Most upstream requests one operation sends (`MAX_UPSTREAM_REQUESTS`): the most it reserves,
   * whatever its `maxUpstreamRequests`. @default 1000
   */
  maxUpstreamRequests?: number;
  /**
   * Checks with the platform (`GET /user`) of tokens it has not accepted yet, per client address
   * and window of their own, once that address spent its budget for such tokens: how a valid token
   * gets in from an address that a flood of made-up ones spent. @default { checks: 10, windowMs: 60000 }
   */
  tokenChecks?: { checks: number; windowMs: number };
}

/** Tokens the platform accepted lately, kept in each replica's memory too (hashes; the least recent go first). */
const MAX_KNOWN_TOKENS = 100_000;

/** Checks of new tokens per client address and minute, once its budget for them is spent. */
const TOKEN_CHECKS = { checks: 10, windowMs: 60_000 };

/** What the holds of operations under way tell a refused caller to wait: they settle within moments. */
const HELD_RETRY_S = 1;

/** An operation's take of its caller's budget. */
interface Reservation {
  key: string;
  /** Its caller's budget as it admitted it: `taken` is what it reserved. */
  state: BudgetState;
  context: GatewayContext;
  /** Whether its caller sent a token (its budget key is the token's, not an address's). */
  token: boolean;
  /** The budget of its client address for unverified tokens, charged too when its token is not known to be valid. */
  address?: { key: string; taken: number; resetAt: number };
  /** What it was charged though refused: the check of its token it sent. */
  chargedWhenRefused?: number;
  /** Its settlement, once started: the last part and the end of a stream may both ask for it. */
  settlement?: Promise<BudgetState>;
  /** The budget once settled. */
  settled?: BudgetState;
}

/** A caller's budget as the graph shows it: `rateLimit` and `extensions.rateLimit`. */
export interface RateLimitStatus {
  /** Points per window. */
  limit: number;
  /**
   * Points of this operation: in `rateLimit`, what it reserved (its `maxUpstreamRequests`, at most
   * what was left); in `extensions.rateLimit`, what it was charged (its `upstreamRequests` and its
   * `gatewayPoints`).
   */
  cost: number;
  /** Points left in the window (0 when nothing is, the budget below zero included). */
  remaining: number;
  /** When the budget is whole again (ISO 8601). */
  resetAt: string;
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** The operation's take of its caller's budget (see `useRateLimits`), once it reserved one. */
    reservation?: Reservation | undefined;
    /** The caller's budget after this operation's reservation, when rate limits are on (the graph's `rateLimit`). */
    rateLimit?: RateLimitStatus | undefined;
    /** The budget the answer's `extensions.rateLimit` reported last: its `X-RateLimit-*` headers say the same. */
    reportedBudget?: BudgetState | undefined;
    /** When it was reported, in the order of the gateway's reports: a batch's last one is its caller's budget after it. */
    reportedAt?: number | undefined;
  }
}

/**
 * Cost-based rate limits per caller: each caller (a hash of its token; without one, of its client
 * address) has `points` per window, spent in upstream requests and the gateway's own work.
 *
 * An operation is admitted while its caller's budget has something left, on any replica
 * atomically. It reserves its `maxUpstreamRequests` (at most `maxUpstreamRequests` of the
 * options, what one operation can send), or what is left when that is less; once answered, it is
 * settled at what it actually spent, and the rest of its reservation goes back. The one admitted
 * with less left than it spends takes the budget below zero, by at most that one operation: its
 * reservation held all that was left, so nothing else was admitted meanwhile. While nothing is
 * left, operations are refused before any upstream request (RATE_LIMITED, `retryAfter`, HTTP 429
 * and `Retry-After`): until the window ends, or for a moment when only the reservations of
 * operations under way hold the rest. An answer of the response cache runs nothing and costs
 * nothing. Every answer carries `extensions.rateLimit`, and the same in headers as GitHub sends
 * them (`X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset` in epoch seconds); an answer in parts
 * sends its headers with the first part: the budget as its reservation left it.
 *
 * Subscriptions reserve their bound when they start (their first read included) and settle at
 * their first event. A later event comes from the gateway's shared poll, which costs its
 * subscribers nothing, but what it reads for itself (its links, its fields' own reads, its
 * conversions) is charged once it resolved, as an operation's would be: its `rateLimit` tells
 * what that event cost and what is left after it. Once nothing is left, the next event ends the
 * subscription with RATE_LIMITED before it reads anything (see `spentForEvents`).
 *
 * A made-up token would be a fresh budget: a token not yet seen accepted by the platform also
 * spends a budget of its client address for such tokens, so that a client minting tokens is held
 * to one budget per address (apart from the address's callers without a token). Once that is
 * spent, a new token is checked with the platform (`GET /user`, one request of its operation)
 * under a small allowance of checks per address and minute: accepted, it runs; otherwise it is
 * refused. Once an operation of a token succeeds upstream, the token spends only its own budget,
 * on every replica: the others learn it from `accepted`.
 */
export function useRateLimits(
  budgets: Budgets,
  options: RateLimitOptions,
  /** Where replicas tell each other of the tokens the platform accepted (hashes, for a window). */
  accepted?: KeyValueStore,
): Plugin {
  const maxPoints = options.maxUpstreamRequests ?? DEFAULT_LIMITS.maxUpstreamRequests;
  const tokenChecks = options.tokenChecks ?? TOKEN_CHECKS;

  const knownTokens = new Map<string, true>();
  const remember = (key: string) => keepRecent(knownTokens, key, true, MAX_KNOWN_TOKENS);

  /** Whether the platform accepted the token of `key`: here, or, as another replica wrote down, elsewhere. */
  async function isKnown(key: string): Promise<boolean> {
    if (knownTokens.has(key)) return true;
    if ((await accepted?.get(key)) !== '1') return false;
    remember(key);
    return true;
  }

  /** Writes down that the platform accepted the token of `key`, here and for the other replicas. */
  function accept(key: string): void {
    if (knownTokens.has(key)) return;
    remember(key);
    void accepted?.set(key, '1', options.windowMs);
  }

  async function reserve(args: ExecutionArgs, refuse: (result: ExecutionResult) => void): Promise<void> {
    const context = args.contextValue as unknown as GatewayContext;
    const caller = callerOf(context, context.request);
    const key = caller.budgetKey;
    const points = Math.min(context.cost?.maxUpstreamRequests ?? 0, maxPoints);
    const state = await budgets.take(key, points, options.points, options.windowMs);
    if (!state) {
      if (!options.failOpen) refuse({ errors: [unreadableBudget()] });
      return;
    }
    const token = caller.key !== 'anonymous';
    const reservation: Reservation = { key, state, context, token };
    context.reservation = reservation;
    context.rateLimit = status(options.points, state.taken, state);
    if (!state.admitted) return refuse({ errors: [spentBudget(options, points, state)] });
    // A token the platform accepted spends its own budget alone: nothing to hash for it.
    if (!token || knownTokens.has(key)) return;
    const address = caller.addressKey('unverified');
    if (!address || (await isKnown(key))) return;
    const addressState = await budgets.take(address, points, options.points, options.windowMs);
    if (addressState?.admitted) {
      reservation.address = { key: address, taken: addressState.taken, resetAt: addressState.resetAt };
      return;
    }
    // Unreadable, the token's own budget stands alone when failing open.
    if (!addressState && options.failOpen) return;
    const refusal = addressState ? await check(context, key, addressState) : unreadableBudget();
    if (!refusal) return;
    // Refused: what the token's budget reserved goes back, but for what its check sent.
    reservation.chargedWhenRefused = spent(context);
    const given = await budgets.adjust(key, reservation.chargedWhenRefused - state.taken, state.resetAt, state.taken);
    reservation.state = { ...(given ?? state), admitted: false, taken: 0 };
    context.rateLimit = status(options.points, 0, reservation.state);
    refuse({ errors: [refusal] });
  }

  /**
   * Asks the platform whether it accepts the token of an operation from an address that spent its
   * budget for new tokens, under the address's allowance of checks: undefined when it does (the
   * token is known from then on), the refusal otherwise. The check is a request of the operation
   * (counted in its cost and bound, and shared with the `viewer` it may read).
   */
  async function check(
    context: GatewayContext,
    key: string,
    spentAddress: BudgetState,
  ): Promise<GatewayError | undefined> {
    const checksKey = callerOf(context, context.request).addressKey('token-checks')!;
    const checks = await budgets.take(checksKey, 1, tokenChecks.checks, tokenChecks.windowMs);
    if (!checks) return options.failOpen ? undefined : unreadableBudget();
    if (!checks.admitted) return spentAddressBudget(options, spentAddress, checks, false);
    // The cost is shared by every run of the document: this run's bound is a copy.
    if (context.cost) context.cost = { ...context.cost, maxUpstreamRequests: context.cost.maxUpstreamRequests + 1 };
    await getCurrentUser(context.api).catch(() => undefined);
    const { accepted: valid } = context.api.usage;
    // A check the platform passed costs the address's allowance nothing: only made-up tokens spend it.
    void budgets.adjust(checksKey, valid ? -1 : 0, checks.resetAt, 1);
    if (!valid) return spentAddressBudget(options, spentAddress, checks, true);
    accept(key);
    return undefined;
  }

  /** Settles the operation at what it spent, once: the budget it leaves is what the answer reports. */
  function settle(reservation: Reservation): Promise<BudgetState> {
    reservation.settlement ??= (async () => {
      const points = spent(reservation.context);
      const { state, address } = reservation;
      if (reservation.token && state.admitted && reservation.context.api.usage.accepted) accept(reservation.key);
      const [settled] = await Promise.all([
        !state.admitted || (state.taken === 0 && points === 0)
          ? state
          : budgets.adjust(reservation.key, points - state.taken, state.resetAt, state.taken),
        address && (address.taken > 0 || points > 0)
          ? budgets.adjust(address.key, points - address.taken, address.resetAt, address.taken)
          : undefined,
      ]);
      reservation.settled = settled ?? state;
      // What a subscription's next event is admitted on (see `spentForEvents`).
      if (state.admitted) reservation.context.rateLimit = status(options.points, points, reservation.settled);
      return reservation.settled;
    })();
    return reservation.settlement;
  }

  /**
   * Charges a subscription's later event what it spent (its own reads: the shared poll costs it
   * nothing), in the window under way: its report, which the next event's admission reads too.
   */
  async function charge(reservation: Reservation): Promise<RateLimitStatus | undefined> {
    const { key, context } = reservation;
    const points = spent(context);
    // A look starts no window: the points spent then start the one it answered.
    const look = await budgets.take(key, 0, options.points, options.windowMs);
    if (!look) return undefined;
    const charged = points > 0 ? ((await budgets.adjust(key, points, look.resetAt)) ?? look) : look;
    context.rateLimit = status(options.points, points, charged);
    return context.rateLimit;
  }

  /** `extensions.rateLimit` of an answer: what it spent, and what is left. */
  async function report(
    request: Request,
    serverContext: object,
    last: boolean,
    laterEvent = false,
  ): Promise<RateLimitStatus | undefined> {
    const parts = partsOf(serverContext);
    const reservation = parts.reservation;
    if (reservation) {
      if (laterEvent && reservation.state.admitted) return charge(reservation);
      // A part of an answer in parts before its last: what it spent so far, against its reservation.
      if (!last) return status(options.points, spent(reservation.context), reservation.settled ?? reservation.state);
      const settled = await settle(reservation);
      const cost = reservation.state.admitted ? spent(reservation.context) : (reservation.chargedWhenRefused ?? 0);
      parts.reportedBudget = settled;
      parts.reportedAt = reports += 1;
      return status(options.points, cost, settled);
    }
    // Nothing ran (an answer of the cache, a refusal before execution): no point spent; the budget as it is.
    const state = await budgets.take(callerOf(serverContext, request).budgetKey, 0, options.points, options.windowMs);
    parts.reportedBudget = state;
    parts.reportedAt = reports += 1;
    return state && status(options.points, 0, state);
  }

  return {
    onExecute: ({ args, setResultAndStopExecution }) => reserve(args, setResultAndStopExecution),
    onSubscribe: ({ args, setResultAndStopExecution }) => reserve(args, setResultAndStopExecution),
    // Each operation's answer, a batch's included, reports its own reservation.
    async onExecutionResult({ request, result, setResult, context }) {
      if (!result) return;
      if (!isAsyncIterable(result)) {
        setResult(withReport(result, await report(request, context, true)));
        return;
      }
      let events = 0;
      setResult(
        mapAsyncIterator(
          result,
          async (payload: ExecutionResult & { hasNext?: boolean }) => {
            events += 1;
            const subscription = payload.hasNext === undefined;
            const last = subscription ? events === 1 : !payload.hasNext;
            return withReport(payload, await report(request, context, last, subscription && events > 1));
          },
          undefined,
          () => {
            const reservation = partsOf(context).reservation;
            if (reservation) void settle(reservation);
          },
        ),
      );
    },
    // An answer no operation made (a request refused before its parameters were read, a persisted
    // id not found): the caller's budget as it stands.
    // Not async: an answer an operation made (nearly all) was reported, and goes on without a promise.
    onResultProcess({ request, result, setResult, serverContext }) {
      if (isAsyncIterable(result)) return undefined;
      // A public answer (see `useHttpCaching`), which a shared cache replays to everyone: no caller's budget goes with it.
      if (partsOf(serverContext).httpCaching?.shared) {
        const { rateLimit: _budget, ...extensions } = (result as ExecutionResult).extensions ?? {};
        setResult({
          ...(result as ExecutionResult),
          extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
        });
        return undefined;
      }
      const answers = Array.isArray(result) ? result : [result];
      if (answers.every(hasReport)) return undefined;
      return report(request, serverContext, true).then((looked) => {
        const reported = answers.map((one) => (hasReport(one) ? one : withReport(one, looked)));
        setResult(Array.isArray(result) ? reported : reported[0]!);
      });
    },
    onResponse({ response, serverContext }) {
      const parts = partsOf(serverContext);
      if (parts.httpCaching?.shared) return;
      // A single answer was reported before it left; one in parts leaves before its first part is reported.
      const state =
        parts.reportedBudget ??
        latestOfBatch(parts.batch?.items) ??
        parts.reservation?.settled ??
        parts.reservation?.state;
      if (state) setRateLimitHeaders(response.headers, options.points, state);
    },
  };
}

/**
 * The refusal of a subscription's next event once its caller's budget is spent (as the settlement
 * of its first event, or the charge of its last, left it, until that window ends): the event would
 * read the upstream on that budget. Undefined when something is left, or rate limits are off.
 */
export function spentForEvents(context: { rateLimit?: RateLimitStatus | undefined }): GatewayError | undefined {
  const budget = context.rateLimit;
  if (!budget || budget.remaining > 0) return undefined;
  const resetAt = Date.parse(budget.resetAt);
  if (resetAt <= Date.now()) return undefined;
  return refusal(
    `Rate limit: your ${budget.limit} points are spent until ${budget.resetAt}; this subscription ends, subscribe again then`,
    secondsUntil(resetAt),
    { limit: 'rateLimitPoints', value: budget.limit - budget.remaining + 1, max: budget.limit },
  );
}

/** Reports made so far by this process: the order of `RequestParts.reportedAt`. */
let reports = 0;

/**
 * The caller's budget after a batch: each operation reported its own, all of one caller's budget
 * (a batch has one caller), so the one reported last says what is left once all settled.
 */
function latestOfBatch(items: readonly object[] | undefined): BudgetState | undefined {
  let latest: { state: BudgetState; at: number } | undefined;
  for (const item of items ?? []) {
    const { reportedBudget: state, reportedAt: at = 0 } = partsOf(item);
    if (state && (!latest || at > latest.at)) latest = { state, at };
  }
  return latest?.state;
}

/** Headers of an answer the rate limits settled, as GitHub names them. */
export const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
];

/**
 * The caller's budget in headers, agreeing with `extensions.rateLimit`: the limit, what is left,
 * what is used (the limit less what is left, as GitHub counts it) and when the window ends (epoch
 * seconds, rounded up: the budget is whole at that second).
 */
function setRateLimitHeaders(headers: Headers, limit: number, state: BudgetState): void {
  const remaining = Math.max(0, limit - state.used);
  headers.set('x-ratelimit-limit', String(limit));
  headers.set('x-ratelimit-remaining', String(remaining));
  headers.set('x-ratelimit-used', String(limit - remaining));
  headers.set('x-ratelimit-reset', String(Math.ceil(state.resetAt / 1000)));
}

/** Points an operation spent: its upstream requests and the gateway's own work. */
function spent(context: GatewayContext): number {
  return context.api.usage.sent + context.work.points;
}

function hasReport(result: ExecutionResult): boolean {
  return result.extensions?.rateLimit !== undefined;
}

function withReport<R extends ExecutionResult>(result: R, rateLimit: RateLimitStatus | undefined): R {
  return rateLimit ? { ...result, extensions: { ...result.extensions, rateLimit } } : result;
}

function status(limit: number, cost: number, state: BudgetState): RateLimitStatus {
  return {
    limit,
    cost,
    remaining: Math.max(0, limit - state.used),
    resetAt: isoTime(state.resetAt),
  };
}

/** The last time written out, and its text: every request of a window ends it at the same time. */
let lastTime = { time: Number.NaN, text: '' };

/** `time` (ms since the epoch) as ISO 8601 text, written once per distinct value in a row. */
function isoTime(time: number): string {
  if (lastTime.time !== time) lastTime = { time, text: new Date(time).toISOString() };
  return lastTime.text;
}

/**
 * The refusal of an operation when its caller's budget has nothing left: spent until the window
 * ends, or held for a moment by the reservations of its operations under way.
 */
function spentBudget(options: RateLimitOptions, points: number, state: BudgetState): GatewayError {
  const value = state.used + Math.min(points, 1);
  const budget = { limit: 'rateLimitPoints', value, max: options.points };
  if (value - state.held <= options.points) {
    return refusal(
      `Rate limit: your operations under way hold what is left of your ${options.points} points until they are answered: try again in a moment`,
      HELD_RETRY_S,
      budget,
    );
  }
  const resetAt = new Date(state.resetAt).toISOString();
  return refusal(
    `Rate limit: your ${options.points} points are spent (${state.used - state.held} so far in this window) until ${resetAt}`,
    secondsUntil(state.resetAt),
    budget,
  );
}

/**
 * The refusal of an operation of a token not yet accepted, from an address that spent its budget
 * for such tokens: the platform did not accept it when checked (`checked`), or the address has no
 * check left until `checks` is whole again.
 */
function spentAddressBudget(
  options: RateLimitOptions,
  address: BudgetState,
  checks: BudgetState,
  checked: boolean,
): GatewayError {
  const resetAt = new Date(address.resetAt).toISOString();
  const why = checked
    ? 'the platform did not accept this token when asked'
    : `no more of them are checked with the platform until ${new Date(checks.resetAt).toISOString()}`;
  return refusal(
    `Rate limit: operations from this address with tokens the platform has not accepted yet have spent ${options.points} points until ${resetAt}, and ${why}; a token the platform accepted spends its own budget`,
    secondsUntil(checks.resetAt),
    { limit: 'addressPoints', value: address.used + 1, max: options.points },
  );
}

function secondsUntil(time: number): number {
  return Math.max(1, Math.ceil((time - Date.now()) / 1000));
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
