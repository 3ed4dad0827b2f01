import type { RateLimitStatus } from '../policy/rate-limit.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';

const RateLimit = builder.objectRef<RateLimitStatus>('RateLimit').implement({
  description:
    "The caller's budget of points (cost-based rate limits, as in docs/cost-and-explain.md): an operation is admitted while something is left, reserves its `maxUpstreamRequests` (at most what is left, and what one operation can send) and is charged what it actually spent: its upstream requests and the gateway's own work. The operation admitted last may take the budget below zero by at most itself; while nothing is left, operations are refused with RATE_LIMITED. An answer from the response cache costs nothing. Budgets are per token (a hash of it), shared by every replica of the gateway.",
  fields: (t) => ({
    limit: t.exposeInt('limit', { description: 'Points per window (`RATE_LIMIT_POINTS`).' }),
    cost: t.exposeInt('cost', {
      description:
        "Points this operation reserved: its `maxUpstreamRequests`, or what was left (or what one operation can send) when that is less. What it was charged in the end is in the answer's `extensions.rateLimit.cost`.",
    }),
    remaining: t.exposeInt('remaining', {
      description: 'Points left in the window, after this reservation; 0 when nothing is left.',
    }),
    resetAt: t.field({
      type: 'DateTime',
      description: 'When the window ends and the budget is whole again.',
      resolve: (status) => status.resetAt,
    }),
  }),
});

builder.queryFields((t) => ({
  rateLimit: t.field({
    type: RateLimit,
    nullable: true,
    description:
      "Your budget of points, after this operation's reservation; costs no upstream request. Null when the gateway has no rate limits (`RATE_LIMIT_POINTS=0`) or cannot read the budgets right now.",
    extensions: upstream.free,
    resolve: (_root, _args, ctx) => ctx.rateLimit ?? null,
  }),
}));
