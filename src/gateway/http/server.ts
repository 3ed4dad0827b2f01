import type { IncomingMessage, ServerResponse } from 'node:http';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import { pino, type Logger } from 'pino';
import { useFairTurns } from '../policy/answer-size.js';
import { createContext, type GatewayContext } from '../context.js';
import { DocumentConverter, type ConverterOptions } from '../conversion/converter.js';
import { useIntrospectionInWorkers } from '../conversion/introspection.js';
import { useOperationCost } from '../policy/cost-plugin.js';
import { useExplain } from '../policy/explain.js';
import { maskExecutionError, useErrorPolicy } from '../policy/error-policy.js';
import { useHealth, type HealthOptions } from './health.js';
import { GatewayError } from '../errors.js';
import { clientAddress } from '../state/client-address.js';
import { wakeOnWrite } from '../live/wake-on-write.js';
import { useAfterWrites } from '../after-writes.js';
import { usePlatformEvents } from '../live/platform-events.js';
import type { Registration } from '../live/event-registration.js';
import { useBatches } from './batches.js';
import { useMultipartSubscriptions } from './multipart-subscriptions.js';
import { useClientAddress } from './client-address.js';
import { useCompressedPages } from './compression.js';
import { useAnswerText } from './answer-text.js';
import { useEventStreams, type EventStreamOptions } from './event-streams.js';
import { OpenConnections, type ConnectionLimits } from './connections.js';
import type { RelayedServerContext } from './relay.js';
import { type DemoTokens, GraphiQLPages, graphiqlOptions, useDemoTabs, withDemoTabs } from './graphiql.js';
import { corsOptions } from './cors.js';
import { useCsrfPrevention } from './csrf.js';
import {
  DEFAULT_LIMITS,
  PARSED_DOCUMENTS_BYTES,
  parsedDocumentCache,
  useInputLimits,
  type GatewayLimits,
} from '../policy/limits.js';
import { RestClient, type RestClientOptions } from '../upstream/client.js';
import type { CircuitBreaker } from '../upstream/breaker.js';
import { upstreamDedupe } from '../upstream/dedupe.js';
import { upstreamResilience, type ResilienceOptions } from '../upstream/resilience.js';
import type { UpstreamHook } from '../upstream/hooks.js';
import type { TracingPlugin } from '../telemetry/tracing.js';
import { schema } from '../schema/index.js';
import { attachLoaders } from '../schema/kit/loaders.js';
import { hookFields } from '../policy/field-hooks.js';
import { useRequestId } from '../telemetry/request-id.js';
import { operationLog } from '../telemetry/log.js';
import { useOperationReports } from '../telemetry/operations.js';
import { createMetrics, type GatewayMetrics } from '../telemetry/metrics.js';
import { DEFAULT_PERSISTED_QUERIES_BYTES, usePersistedDocuments } from '../policy/persisted-operations.js';
import { useHttpCaching } from '../cache/http-caching.js';
import type { KeyValueStore, SharedState } from '../state/store.js';
import { memoryState } from '../state/memory.js';
import { exampleManifest } from '../examples/manifest.js';
import {
  type ResponseCacheOptions,
  entitiesOfParams,
  responseCacheBounds,
  useGatewayResponseCache,
} from '../cache/response-cache.js';
import { redisState } from '../state/redis.js';
import { useRateLimits, type RateLimitOptions } from '../policy/rate-limit.js';
import { LiveHub } from '../live/hub.js';

export interface GatewayOptions {
  /** Base URL of the REST API, ending in `/v1`; ignored when `client` is given. */
  upstreamUrl?: string;
  /**
   * A REST client to use instead of one built from `upstreamUrl` (tests, benchmarks): the gateway
   * runs its hook list around it, time budget, retries and breaker included (`resilience`).
   */
  client?: RestClient;
  /** Options of the REST client built from `upstreamUrl`. */
  clientOptions?: Omit<RestClientOptions, 'baseUrl'>;
  /**
   * Time budget, retries and circuit breaker of every upstream request, hooks of the gateway's
   * list (see `upstream/resilience.ts`); the budget is the client's timeout when left out.
   * @default {}
   */
  resilience?: ResilienceOptions;
  /**
   * Identical GETs in flight at once with the same credentials, from any GraphQL requests, share
   * one platform request (`UPSTREAM_DEDUPE`, see `upstream/dedupe.ts`).
   * @default true
   */
  upstreamDedupe?: boolean;
  /**
   * Serve GraphiQL at `/graphql`, a tab per example. `demoTokens` are the embedded demo platform's
   * users' tokens, the first an admin: never in the page, they are offered (a tab per user, the
   * first user's token in every example) to the page opened in a browser on this machine only,
   * which asks for them (`useDemoTabs`); leave them out for any other upstream.
   * @default { enabled: true }
   */
  graphiql?: { enabled: boolean; demoTokens?: DemoTokens };
  /**
   * Origins (`https://app.example.com`) whose pages may read the gateway's answers (`CORS_ORIGINS`),
   * never with credentials; none by default: no CORS header at all (see `corsOptions`).
   * @default []
   */
  corsOrigins?: readonly string[];
  /**
   * Refuse GraphQL requests a browser may send from any site without a preflight unless they carry
   * a CSRF header (`CSRF_PREVENTION`, see `useCsrfPrevention`). @default true
   */
  csrfPrevention?: boolean;
  /** Bounds on requests and operations; each left out takes its default (`DEFAULT_LIMITS`). */
  limits?: Partial<GatewayLimits>;
  /** What the supervisor of the upstream's process knows of it, for `/ready` (see `HealthOptions`). */
  upstreamProcess?: HealthOptions['upstreamProcess'];
  /** Logger for unexpected errors. @default console */
  logger?: Pick<Console, 'error' | 'info'>;
  /** Where each operation's JSON line goes (see `operationLog`). @default a silent logger */
  operationLog?: Logger;
  /**
   * Answer `GET /metrics` (Prometheus text) on the gateway's own port; false when another server
   * serves them (`gateway.metrics.listener`, `METRICS_PORT`). @default true
   */
  metricsOnMainPort?: boolean;
  /**
   * Persisted operations: the manifest's documents (besides the built-in examples), whether only
   * they run (`PERSISTED_ONLY`), and where registered ones are kept (in memory by default).
   */
  persistedOperations?: {
    manifest?: ReadonlyMap<string, string>;
    persistedOnly?: boolean;
    store?: KeyValueStore;
    /** Most bytes of registered documents kept, in memory or in Redis (`PERSISTED_QUERIES_MB`). @default 8388608 */
    maxBytes?: number;
    /** Largest document a client may register (`MAX_PERSISTED_QUERY_BYTES`). @default 131072 */
    maxDocumentBytes?: number;
  };
  /**
   * Redis (`REDIS_URL`) for the state replicas share: the response cache, registered persisted
   * operations, rate-limit budgets and the election of subscription pollers. Left out, all of it
   * stays in this process's memory.
   */
  redisUrl?: string;
  /**
   * Proxies in front of the gateway that append the address they got each request from to
   * `X-Forwarded-For` (`TRUSTED_PROXIES`): the client address is the one the outermost saw. @default 0
   */
  trustedProxies?: number;
  /** Cost-based rate limits per caller (`RATE_LIMIT_*`); none when left out. */
  rateLimits?: RateLimitOptions;
  /**
   * Keep answers for `ttlMs` (`RESPONSE_CACHE_TTL_MS`), `maxBytes` of them at most (`RESPONSE_CACHE_MB`),
   * none over `maxEntryBytes` (a sixteenth of `maxBytes` by default); off when left out.
   */
  responseCache?: Pick<ResponseCacheOptions, 'ttlMs' | 'maxBytes' | 'maxEntryBytes'>;
  /**
   * Subscriptions: milliseconds between two polls of a followed resource (`SUBSCRIPTION_POLL_MS`),
   * and of one whose changes the platform's events report (`SUBSCRIPTION_PUSHED_POLL_MS`), the most open at once (`MAX_SUBSCRIPTIONS`) and per caller (`MAX_SUBSCRIPTIONS_PER_CALLER`).
   * @default { pollMs: 2000, pushedPollMs: 30000, maxSubscriptions: 10000, maxPerCaller: 1000 }
   */
  subscriptions?: { pollMs?: number; pushedPollMs?: number; maxSubscriptions?: number; maxPerCaller?: number };
  /** GraphQL over SSE's single-connection mode: how long, and how many, streams may wait reserved. */
  eventStreams?: EventStreamOptions;
  /**
   * Connections that stay open (WebSockets, the event streams of `/graphql/stream`): how many one
   * client address holds (`MAX_CONNECTIONS_PER_ADDRESS`) and how long one may run no operation
   * (`CONNECTION_IDLE_TIMEOUT_MS`). @default { maxPerAddress: 100, idleMs: 60000 }
   */
  connections?: Partial<ConnectionLimits>;
  /**
   * Refuse introspection (`__schema`, `__type`) to callers without a token, with UNAUTHENTICATED
   * (`INTROSPECTION_REQUIRES_TOKEN`). GraphiQL and code generators introspect: with it on, they
   * send a token. @default false
   */
  introspectionRequiresToken?: boolean;
  /**
   * The gateway's conversions of documents to markdown and text: worker threads for large ones,
   * the byte budget of the cache of immutable ones (see `ConverterOptions`).
   */
  conversions?: ConverterOptions;
  /**
   * OpenTelemetry traces (`useTracing`, made where OpenTelemetry is loaded: only when traces are
   * exported): a plugin of the chain, its spans of upstream calls hooks around the upstream fetch.
   */
  tracing?: TracingPlugin;
  /**
   * More yoga or envelop plugins, run after the gateway's own for every request. A plugin with
   * `upstreamHooks` has them run around every upstream call of the gateway.
   */
  plugins?: Plugin[];
}

/**
 * The gateway: one yoga server, whose plugin chain (limits, cost, error policy, health, and any
 * plugin added) runs for every request, whichever way it comes in.
 */
export interface Gateway {
  /** Node's request listener of the gateway: `createServer(gateway.handle)`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The same server for a fetch-API request (tests, embedding). */
  fetch: YogaServerInstance<RelayedServerContext, GatewayContext>['fetch'];
  yoga: YogaServerInstance<RelayedServerContext, GatewayContext>;
  client: RestClient;
  /**
   * The circuit breaker of its upstream requests: `/ready` and the metrics show it; an owner that
   * knows the upstream serves again (the supervisor of a restarted platform) resets it.
   */
  breaker: CircuitBreaker;
  /** Its subscriptions: one poller per followed resource and caller. */
  live: LiveHub;
  /**
   * Takes the platform's events of a registration (`registerForEvents`), instead of the last one's:
   * `POST /platform-events` verifies deliveries with its installations' secrets, and the
   * subscriptions its organizations' events cover poll only as a safety net. Until the first,
   * every delivery is answered 503.
   */
  receiveEvents(registration: Pick<Registration, 'secrets' | 'organizations'>): void;
  /** Its Prometheus metrics. */
  metrics: GatewayMetrics;
  /** Its converter of documents to markdown and text (worker threads, cache, counts). */
  converter: DocumentConverter;
  /** The client behind a connection, as `trustedProxies` says to read it (a transport of its own: WebSocket). */
  clientAddress(peer: IncomingMessage): string | undefined;
  /** The bounds on requests and operations, which every transport applies (a WebSocket's messages too). */
  limits: GatewayLimits;
  /** Origins whose pages may read the gateway's answers (`CORS_ORIGINS`): a WebSocket's upgrade is held to them too. */
  corsOrigins: readonly string[];
  /** The connections open per client address, shared by every transport that keeps one open (see `OpenConnections`). */
  connections: OpenConnections;
  /**
   * Starts stopping: `/ready` answers 503, answers close their connection, and every subscription
   * ends with a last `SHUTTING_DOWN` event. Operations under way go on.
   */
  drain(): void;
  /** Closes the upstream connections. */
  close(): Promise<void>;
}

/** Builds the gateway (GraphQL at `/graphql`) without listening: call `fetch`, or mount `handle` in a Node server. */
export function createGateway(options: GatewayOptions): Gateway {
  if (!options.client && !options.upstreamUrl) throw new Error('createGateway needs upstreamUrl or client');
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // No upstream body may be larger than a whole answer's budget.
  const upstream =
    options.client ??
    new RestClient({ baseUrl: options.upstreamUrl!, maxBodyBytes: limits.maxResponseBytes, ...options.clientOptions });
  const logger = options.logger ?? console;
  const graphiql = options.graphiql ?? { enabled: true };
  const converter = new DocumentConverter(options.conversions);
  const cost = useOperationCost(limits, { introspectionRequiresToken: options.introspectionRequiresToken ?? false });
  const resilience = upstreamResilience({ timeoutMs: upstream.timeoutMs, ...options.resilience });
  const metrics = createMetrics(resilience.breaker);
  const explain = useExplain();
  // The upstream side of the one list of cross-cutting concerns: hooks around the one fetch, first
  // outermost. The plugins' (tracing's spans) come first: like explain, they belong to each GraphQL
  // request; metrics count what is sent, once per request; timeout, retry and breaker act on its
  // tries, next to the client's own fetch.
  const client = upstream.withHooks([
    ...explain.upstreamHooks,
    ...(options.tracing?.upstreamHooks ?? []),
    ...(options.plugins ?? []).flatMap((plugin) => (plugin as UpstreamHooked).upstreamHooks ?? []),
    // Inside the per-request hooks, outside what counts the platform's requests.
    ...(options.upstreamDedupe === false ? [] : [upstreamDedupe()]),
    metrics.upstreamHook,
    ...resilience.hooks,
  ]);
  const state: SharedState =
    options.redisUrl === undefined
      ? memoryState()
      : redisState(options.redisUrl, {
          onStatus: (up, message) => (up ? logger.info(message) : logger.error(message)),
          onError: metrics.sharedStateFailed,
        });
  if (state.replicated) metrics.watchSharedState(state.connected);
  const live = new LiveHub(client, {
    intervalMs: options.subscriptions?.pollMs,
    pushedIntervalMs: options.subscriptions?.pushedPollMs,
    maxSubscriptions: options.subscriptions?.maxSubscriptions,
    maxPerCaller: options.subscriptions?.maxPerCaller,
    shared: state,
  });
  metrics.watchPush(() => live.pushed);
  let draining = false;
  const connections = new OpenConnections(options.connections);
  const eventStreams = useEventStreams(
    (request, serverContext): Promise<Response> | Response => yoga.fetch(request, serverContext),
    options.eventStreams ?? {},
    { maxRequestBytes: limits.maxRequestBytes, connections },
  );
  const trustedProxies = options.trustedProxies ?? 0;
  const persisted = options.persistedOperations ?? {};
  const persistedOnly = persisted.persistedOnly ?? false;
  const persistedDocuments = usePersistedDocuments({
    manifest: new Map([...exampleManifest(), ...(persisted.manifest ?? [])]),
    persistedOnly,
    store: persisted.store ?? state.store('apq:', { maxBytes: persisted.maxBytes ?? DEFAULT_PERSISTED_QUERIES_BYTES }),
    ...(persisted.maxDocumentBytes === undefined ? {} : { maxDocumentBytes: persisted.maxDocumentBytes }),
  });
  const responseCache = options.responseCache
    ? state.responseCache('response-cache:', responseCacheBounds(options.responseCache))
    : undefined;
  const cached = options.responseCache
    ? useGatewayResponseCache({ ...options.responseCache, cache: responseCache })
    : undefined;
  const eventSecrets = new Map<string, string>();
  const graphiqlPages = new GraphiQLPages(async (pageOptions) => {
    const page = (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(pageOptions);
    return graphiql.demoTokens ? withDemoTabs(page, pageOptions) : page;
  });
  const yoga = createYoga<RelayedServerContext, GatewayContext>({
    // The field hooks: the answer budget of every request, explain of those that ask for it.
    schema: hookFields(schema),
    graphqlEndpoint: '/graphql',
    // useInputLimits bounds the body (413 with a coded error, reading no further than the limit).
    // yoga's own bound, on by default since 5.24, pipes every body through a TransformStream and
    // a second Request: it was over half of bare yoga's CPU per read (0.20 ms against 0.083).
    maxRequestBodySize: false,
    // GraphQL over HTTP's persisted documents: `{ "documentId": "<hash>" }` instead of the query.
    extraParamNames: ['documentId'],
    // Batches are bounded by `useBatches`, whose refusals are coded: yoga's own bound is only a backstop.
    batching: { limit: Number.MAX_SAFE_INTEGER },
    // Bounded by the heap the documents take, not by their number (see `parsedDocumentCache`).
    parserAndValidationCache: parsedDocumentCache(PARSED_DOCUMENTS_BYTES),
    landingPage: false,
    // GraphiQL's assets are bundled, so it works without network; they weigh some 40 MB in
    // memory, loaded with the first page asked for.
    renderGraphiQL: graphiqlPages.render,
    // yoga's default would let every origin read every answer, with credentials.
    cors: corsOptions(options.corsOrigins ?? []),
    context: (initial) => {
      const ctx = createContext(client, initial, {
        maxUpstreamRequests: limits.maxUpstreamRequests,
        maxResponseBytes: limits.maxResponseBytes,
        live,
        converter,
      });
      attachLoaders(ctx);
      return ctx;
    },
    graphiql: graphiql.enabled ? graphiqlPages.options(graphiqlOptions({ persistedOnly })) : false,
    maskedErrors: { maskError: (error) => maskExecutionError(error, (message) => logger.error(message)) },
    plugins: [
      useRequestId(),
      useClientAddress(trustedProxies),
      // The platform's signed events: a route of its own, answered before anything reads an operation.
      usePlatformEvents({
        secrets: eventSecrets,
        live,
        ...(responseCache
          ? {
              forgetSpaces: (spaceIds: string[]) =>
                responseCache.invalidate(spaceIds.flatMap((spaceId) => entitiesOfParams({ spaceId }))),
            }
          : {}),
        claims: state.claims('platform-event:', { maxBytes: PLATFORM_EVENT_CLAIMS_BYTES }),
        maxBytes: limits.maxRequestBytes,
        ...(options.rateLimits && options.rateLimits.points > 0
          ? {
              refusals: {
                budgets: state.budgets,
                points: options.rateLimits.points,
                windowMs: options.rateLimits.windowMs,
                failOpen: options.rateLimits.failOpen,
              },
            }
          : {}),
        onDelivery: metrics.platformEvent,
      }),
      // Before any plugin that keeps a record per operation: each operation of a batch is known as one.
      useBatches(limits.maxBatchOperations),
      // Among the first: the times of `explain` count from its onRequest (after the batch's, which knows its operations).
      explain,
      metrics.plugin({ exposed: options.metricsOnMainPort ?? true }),
      ...(graphiql.enabled && graphiql.demoTokens
        ? [useDemoTabs({ persistedOnly, demoTokens: graphiql.demoTokens })]
        : []),
      // GraphiQL's 304s before anything reads the request as an operation; its tags before the compression.
      ...(graphiql.enabled ? [graphiqlPages.plugin()] : []),
      ...persistedDocuments.serve,
      // After the persisted operations (which fill in the document) and before the cache (which may answer).
      useOperationReports([operationLog(options.operationLog ?? pino({ level: 'silent' })), metrics.record]),
      // Before any lane reads the request (the SSE lane's included); its refusals are in the operation log.
      ...(options.csrfPrevention === false ? [] : [useCsrfPrevention()]),
      useInputLimits(limits),
      // Operations that only introspect run in the conversion pool's threads (also wrapped by the cache).
      useIntrospectionInWorkers(converter.pool),
      ...(cached?.plugins ?? []),
      // Once a mutation's writes are answered: the cache forgets what they touched, subscriptions following it hear of it.
      useAfterWrites([...(cached ? [cached.forgetWritten] : []), wakeOnWrite(live)]),
      // Cache-Control on every GraphQL answer; the cache's ETag on the GET answers it holds.
      useHttpCaching({ responseCacheTtlMs: options.responseCache?.ttlMs }),
      // The cost's bound, computed by the plugin before, is what the rate limits reserve.
      cost,
      ...(options.rateLimits && options.rateLimits.points > 0
        ? [
            useRateLimits(
              state.budgets,
              { maxUpstreamRequests: limits.maxUpstreamRequests, ...options.rateLimits },
              state.store('accepted-token:'),
            ),
          ]
        : []),
      // Once the operation is admitted (parsed, validated, within its cost and its caller's budget).
      persistedDocuments.register,
      // @defer and @stream (declared with the schema): the answer comes in parts, over multipart/mixed or SSE.
      useDeferStream(),
      // Subscriptions over HTTP multipart, as Apollo's clients ask for them (`subscriptionSpec=1.0`).
      useMultipartSubscriptions(),
      // GraphQL over SSE's single-connection mode at /graphql/stream: each operation relayed through the chain.
      eventStreams,
      useErrorPolicy(),
      useCompressedPages(),
      useHealth(client, resilience.breaker, {
        draining: () => draining,
        ...(options.upstreamProcess ? { upstreamProcess: options.upstreamProcess } : {}),
      }),
      // A stopping gateway's answers close their connection: the client's next request goes elsewhere.
      { onResponse: ({ response }) => void (draining && response.headers.set('connection', 'close')) },
      // A large answer's serialization in a loop turn of its own: after the other execution hooks.
      useFairTurns(),
      // Bodies passed on as they came are written as they came: after every hook that replaces the result.
      useAnswerText(),
      // Last of the gateway's own, where it has always run: a request refused by an earlier onRequest has no span.
      ...(options.tracing ? [options.tracing] : []),
      ...(options.plugins ?? []),
    ],
    logging: false,
  });
  return {
    handle: (req, res) => void yoga(req, res),
    fetch: yoga.fetch,
    yoga,
    client,
    breaker: resilience.breaker,
    live,
    receiveEvents(registration) {
      eventSecrets.clear();
      for (const [installation, secret] of registration.secrets) eventSecrets.set(installation, secret);
      live.pushFrom(registration.organizations);
    },
    metrics,
    converter,
    clientAddress: (peer) => clientAddress(peer, trustedProxies),
    limits,
    corsOrigins: options.corsOrigins ?? [],
    connections,
    drain() {
      draining = true;
      live.close(
        new GatewayError('SHUTTING_DOWN', 'This gateway is shutting down: subscribe again, another replica serves it'),
      );
      // Streams of the single-connection mode stay open between operations: they end once their last events went.
      setTimeout(() => eventStreams.endStreams(), 500).unref();
    },
    close: async () => {
      live.close();
      await Promise.all([client.close(), state.close(), converter.close()]);
    },
  };
}

/** Bytes of the platform's deliveries remembered against replays (some 20,000 signatures and event ids). */
const PLATFORM_EVENT_CLAIMS_BYTES = 4 * 1024 * 1024;

/** A plugin that also acts around the upstream fetch (see `upstream/hooks.ts`). */
export interface UpstreamHooked {
  upstreamHooks?: readonly UpstreamHook[];
}
