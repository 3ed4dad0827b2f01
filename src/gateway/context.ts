// The context sits at the gateway's top level, beside errors.ts, because every role reads it: the
// HTTP front builds it per request, the policy plugins and the schema's resolvers read it, and
// the upstream layer hangs off it (`api`). Under any one of those folders the others would reach
// into it.
import { initContextCache } from '@pothos/core';
import { DocumentConverter, RequestConversions } from './conversion/converter.js';
import { ResponseBudget } from './upstream/response-budget.js';
import { GatewayWork } from './gateway-work.js';
import type { LiveHub } from './live/hub.js';
import type { RestClient } from './upstream/client.js';
import { RequestApi } from './upstream/request.js';
import type { RequestParts } from './request-parts.js';

/** Per-request context of every resolver: the request's parts, and what `createContext` builds. */
export interface GatewayContext extends RequestParts {
  api: RequestApi;
  /** The request's byte budget (its answer and the upstream bodies read for it). */
  responseBudget: ResponseBudget;
  /** What the gateway works on by itself for the request (conversions, introspection, registrations), in points. */
  work: GatewayWork;
  /** The request's conversions of documents to markdown and text: each once, counted in `work`. */
  conversions: RequestConversions;
  /** The gateway's subscriptions: one poller per resource and caller. */
  live?: LiveHub | undefined;
}

/** Options of `createContext`. */
export interface ContextOptions {
  /** Most upstream requests of the operation (the limits' `maxUpstreamRequests`). */
  maxUpstreamRequests: number;
  /** Most bytes of the answer, and of the upstream bodies read for it (the limits' `maxResponseBytes`). */
  maxResponseBytes: number;
  /** The gateway's subscriptions, for the subscription fields. */
  live?: LiveHub;
  /** The gateway's converter of documents (its worker threads and cache). @default one shared by the process */
  converter?: DocumentConverter;
}

let sharedConverter: DocumentConverter | undefined;

/** The converter of contexts made without one: made with the first, with the default options. */
function defaultConverter(): DocumentConverter {
  sharedConverter ??= new DocumentConverter();
  return sharedConverter;
}

/**
 * Builds the context of one GraphQL request on `parts` (its server context, with what the plugins
 * added from its first hook): its own caches, the caller's credentials, its id, span, trace of
 * `explain` and the signal of its client going away (all go with every upstream call).
 */
export function createContext(client: RestClient, parts: RequestParts, options: ContextOptions): GatewayContext {
  const { request } = parts;
  const responseBudget = new ResponseBudget(options.maxResponseBytes);
  const caller = {
    authorization: request.headers.get('authorization') ?? undefined,
    requestId: parts.requestId,
    signal: request.signal,
    span: parts.span,
  };
  const api = new RequestApi(client, caller, options.maxUpstreamRequests, parts.trace, responseBudget);
  const work = new GatewayWork();
  const conversions = new RequestConversions(options.converter ?? defaultConverter(), {
    work,
    responseBudget,
    signal: request.signal,
  });
  // On the request's context itself, beside the parts the plugins added to it: yoga's GraphQL
  // context is that object. Its context cache keys the per-request loaders, the same for every
  // hook and resolver of the request (clearing them after a write included).
  return Object.assign(parts, {
    ...initContextCache(),
    api,
    responseBudget,
    work,
    conversions,
    live: options.live,
  });
}
