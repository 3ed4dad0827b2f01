import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors.js';
import { isBatchItem, partsOf } from '../request-parts.js';
import { callerOf } from '../state/caller.js';
import { exceededLimit, NO_COST, operationCost, type OperationCost } from './cost.js';
import type { GatewayLimits } from './limits.js';

/** `extensions.cost` of every answer. */
export interface CostReport {
  /** Upper bound of the objects the answer could hold, computed before it ran. */
  nodes: number;
  /**
   * Upper bound of the upstream requests, computed before it ran. For a subscription's later
   * events, which get what it follows from the shared poll, the bound of each event's own requests.
   */
  maxUpstreamRequests: number;
  /**
   * Present and true when `maxUpstreamRequests` assumed 10 items for a list whose length only the
   * answer tells (a revision's pages, a page's children, …) and whose items make requests: a
   * longer list can make more.
   */
  estimated?: true;
  /**
   * Subscriptions the operation holds open (1 for a subscription), counted against
   * `MAX_SUBSCRIPTIONS`. In each event of a subscription, the other figures are that event's
   * (its duration from the new version's arrival to its answer).
   */
  subscriptions?: number;
  /** Upstream requests actually sent. */
  upstreamRequests: number;
  /**
   * Points of the work the gateway did by itself (see `GatewayWork`): introspection, conversions,
   * registered documents, a point per started 64 KiB of each. Present when not 0; rate limits
   * charge it beside `upstreamRequests`.
   */
  gatewayPoints?: number;
  /** Requests the per-request caches saved (repeated reads, loads of objects already at hand). */
  dedupedRequests: number;
  /** Time the gateway spent on the request, from its arrival to its answer, in milliseconds. */
  durationMs: number;
}

/** Options of `useOperationCost` besides the limits. */
export interface OperationCostOptions {
  /**
   * Refuse operations that read the schema (`__schema`, `__type`) from callers without a token
   * (no `Authorization` header), with UNAUTHENTICATED (`INTROSPECTION_REQUIRES_TOKEN`). `__typename`
   * stays open. @default false
   */
  introspectionRequiresToken?: boolean;
}

/** What the cost plugin follows of a request for its `extensions.cost`. */
interface Costing {
  /** `performance.now()` when the request arrived. */
  arrivedAt: number;
  /** Whether it runs a subscription: each event's time counts from the event's start. */
  subscription?: boolean;
  /** Payloads of its answer reported so far: a subscription's later events have a bound of their own. */
  payloads?: number;
  /** The context of the operation it admitted (none when nothing ran: a cache hit, a refusal before execution). */
  admitted?: GatewayContext;
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** The operation's cost, computed before it runs (see `useOperationCost`); absent when it did not get that far. */
    cost?: OperationCost | undefined;
    /** What `useOperationCost` follows of the request for its report. */
    costing?: Costing | undefined;
  }
}

/**
 * The cost model of the gateway, as a yoga plugin: before an operation runs, its cost is computed
 * from the document and the variables, and an operation over a limit is refused without any
 * upstream request; an operation whose answer outgrows its byte budget while it runs (see
 * `ResponseBudget`) is answered with that error alone; every answer then carries `extensions.cost`, and a request with
 * `x-explain: 1` also `extensions.explain` (each upstream request and the fields it served).
 */
export function useOperationCost(limits: GatewayLimits, options: OperationCostOptions = {}): Plugin {
  /** Computes the operation's cost before it runs, and refuses it, with nothing run, past a limit. */
  function admit(args: ExecutionArgs, refuse: (result: ExecutionResult) => void): void {
    const ctx = args.contextValue as unknown as GatewayContext;
    if (ctx.costing) ctx.costing.admitted = ctx;
    const cost = operationCost(
      args.schema,
      args.document,
      args.operationName,
      args.variableValues as Record<string, unknown>,
    );
    if (!cost) return;
    ctx.cost = cost;
    const refused =
      options.introspectionRequiresToken && cost.introspection && callerOf(ctx, ctx.request).key === 'anonymous'
        ? anonymousIntrospection()
        : exceededLimit(cost, limits);
    if (refused) refuse({ errors: [refused] });
  }
  return {
    onRequest({ serverContext }) {
      partsOf(serverContext).costing = { arrivedAt: performance.now() };
    },
    onExecute: ({ args, setResultAndStopExecution }) => admit(args, setResultAndStopExecution),
    onSubscribe({ args, setResultAndStopExecution }) {
      const costing = partsOf(args.contextValue as object).costing;
      if (costing) costing.subscription = true;
      admit(args, setResultAndStopExecution);
    },
    onParams({ context }) {
      // An operation of a batch keeps its own record, timed from the request's arrival.
      if (!isBatchItem(context)) return;
      const parts = partsOf(context);
      parts.costing = { arrivedAt: parts.costing?.arrivedAt ?? performance.now() };
    },
    // Each operation's answer, a batch's included, with the operation's own context.
    onExecutionResult({ result, setResult, context }) {
      if (!result) return;
      const costing = partsOf(context).costing;
      if (isResult(result)) setResult(withCost(costing, result));
      // @defer and @stream: each payload carries the running cost; the last one the explanation.
      else if (isAsyncIterable(result))
        setResult(mapAsyncIterator(result, (payload: IncrementalPayload) => withCost(costing, payload)));
    },
    // An answer no operation made (a request refused before its parameters were read, a persisted id
    // not found) gets its report here: nothing ran, nothing was sent.
    onResultProcess({ result, setResult, serverContext }) {
      const costing = partsOf(serverContext).costing;
      if (Array.isArray(result))
        setResult(result.map((one) => (hasCost(one) ? one : withCost(undefined, one as ExecutionResult))));
      else if (isResult(result) && !hasCost(result)) setResult(withCost(costing, result));
    },
  };

  /** Where an answer's time counts from: the request's arrival, or, in a subscription, its event's start. */
  function startOf(costing: Costing | undefined, ctx: GatewayContext | undefined): number {
    if (ctx && costing?.subscription) return ctx.api.startedAt;
    return costing?.arrivedAt ?? performance.now();
  }

  function withCost<R extends IncrementalPayload>(costing: Costing | undefined, result: R): R {
    const ctx = costing?.admitted;
    const cost = ctx?.cost ?? NO_COST;
    if (costing) costing.payloads = (costing.payloads ?? 0) + 1;
    const later = costing?.subscription === true && (costing.payloads ?? 0) > 1;
    const report: CostReport = {
      nodes: cost.nodes,
      // A later event of a subscription gets what it follows from the shared poll: its bound is the rest.
      maxUpstreamRequests: cost.maxUpstreamRequests - (later ? cost.followRequests : 0),
      ...(cost.estimated ? { estimated: true as const } : {}),
      ...(costing?.subscription ? { subscriptions: 1 } : {}),
      upstreamRequests: ctx?.api.usage.sent ?? 0,
      ...(ctx && ctx.work.points > 0 ? { gatewayPoints: ctx.work.points } : {}),
      dedupedRequests: ctx?.api.usage.deduped ?? 0,
      durationMs: Math.round((performance.now() - startOf(costing, ctx)) * 100) / 100,
    };
    const extensions: Record<string, unknown> = { ...result.extensions, cost: report };
    if (ctx?.trace && result.hasNext !== true) extensions.explain = ctx.trace.report();
    // Past the byte budget, what resolved is dropped: the answer is the one error naming the limit.
    const exceeded = ctx?.responseBudget?.exceeded;
    if (exceeded) {
      return (result.hasNext === undefined
        ? { data: null, errors: [exceeded], extensions }
        : { errors: [exceeded], extensions, hasNext: result.hasNext }) as unknown as R;
    }
    return { ...result, extensions };
  }
}

/** The refusal of an operation reading the schema without a token, when introspection needs one. */
function anonymousIntrospection(): GatewayError {
  const error = new GatewayError(
    'UNAUTHENTICATED',
    'This gateway answers introspection (__schema, __type) to callers with a token only: send `Authorization: Bearer <token>` (in GraphiQL, in the Headers pane, then re-fetch the schema with Shift-Ctrl-R)',
  );
  error.extensions.reason = 'INTROSPECTION_REQUIRES_TOKEN';
  return error;
}

/** One payload of an answer: the whole answer, or a part of an incremental one (`hasNext` set). */
type IncrementalPayload = ExecutionResult & { hasNext?: boolean };

function hasCost(result: unknown): boolean {
  return (result as ExecutionResult).extensions?.cost !== undefined;
}

function isResult(value: unknown): value is ExecutionResult {
  return typeof value === 'object' && value !== null && !(Symbol.asyncIterator in value);
}
