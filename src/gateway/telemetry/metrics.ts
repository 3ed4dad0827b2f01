import type { RequestListener } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { partsOf, type RequestParts } from '../request-parts.js';
import type { CircuitBreaker } from '../upstream/breaker.js';
import { exchangeOf, type UpstreamHook } from '../upstream/hooks.js';
import type { OperationReport, OperationSink } from './operations.js';

/** Distinct operation names kept as label values; the rest are counted as `(other)`. */
const MAX_OPERATION_NAMES = 100;
const BREAKER_STATES = { closed: 0, 'half-open': 1, open: 2 } as const;

/** The gateway's Prometheus metrics, in a registry of its own (several gateways may share a process). */
export interface GatewayMetrics {
  registry: Registry;
  /** Takes each operation's report (see `useOperationReports`). */
  record: OperationSink;
  /** Counts a command to the shared state (Redis) that failed. */
  sharedStateFailed(operation: string): void;
  /** Reports whether the shared state answers, as `graphql_gateway_shared_state_up`. */
  watchSharedState(connected: () => boolean): void;
  /** Counts a delivery of the platform's events to `POST /platform-events`, by type and outcome. */
  platformEvent(type: string, outcome: string): void;
  /** Reports how many organizations' events the gateway takes now, as `graphql_gateway_platform_events_organizations`. */
  watchPush(organizations: () => number): void;
  /** Counts each request sent to the platform, with its duration and retries (inside the sharing of reads in flight). */
  upstreamHook: UpstreamHook;
  /** Counts requests in flight and, unless `exposed` is false, answers `GET` and `HEAD /metrics`. */
  plugin(options: { exposed: boolean }): Plugin;
  /** Answers `GET` and `HEAD /metrics` and nothing else (404): a server of its own (`METRICS_PORT`). */
  listener: RequestListener;
}

/** What `/metrics` answers: `GET` the registry's text, `HEAD` its headers alone, as HTTP has it for every GET. */
async function metricsAnswer(
  registry: Registry,
  method: string,
): Promise<{ body: string | null; contentType: string }> {
  const contentType = registry.contentType;
  return { body: method === 'HEAD' ? null : await registry.metrics(), contentType };
}

const servesMetrics = (method: string | undefined, pathname: string | undefined) =>
  pathname === '/metrics' && (method === 'GET' || method === 'HEAD');

/**
 * Operations by name, type and outcome with their durations; upstream requests by method, route
 * template and status, with their durations and retries; the circuit breaker's state; requests in
 * flight; and Node's default metrics (event-loop lag, heap, GC, handles).
 */
export function createMetrics(breaker: Pick<CircuitBreaker, 'status'>): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry });

  const operations = new Counter({
    name: 'graphql_gateway_operations_total',
    help: 'GraphQL operations answered, by operation name, type and outcome (success, error, refused, rate_limited, client_gone, not_modified).',
    labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
    registers,
  });
  const operationSeconds = new Histogram({
    name: 'graphql_gateway_operation_duration_seconds',
    help: 'Time from the arrival of a GraphQL request to its answer, by operation type.',
    labelNames: ['operation_type'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  const upstream = new Counter({
    name: 'graphql_gateway_upstream_requests_total',
    help: 'Requests sent to the REST API, by method, route template and status (0: no answer).',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  });
  const upstreamSeconds = new Histogram({
    name: 'graphql_gateway_upstream_request_duration_seconds',
    help: 'Time of one upstream request, its retries included, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers,
  });
  const retries = new Counter({
    name: 'graphql_gateway_upstream_retries_total',
    help: 'Retries of upstream requests, by route template.',
    labelNames: ['route'] as const,
    registers,
  });
  new Gauge({
    name: 'graphql_gateway_upstream_breaker_state',
    help: 'State of the circuit breaker in front of the REST API: 0 closed, 1 half-open, 2 open.',
    registers,
    collect() {
      this.set(BREAKER_STATES[breaker.status().state]);
    },
  });
  const cacheLookups = new Counter({
    name: 'graphql_gateway_response_cache_total',
    help: 'Lookups of the response cache, by result (hit, miss); none while the cache is off.',
    labelNames: ['result'] as const,
    registers,
  });
  const inFlight = new Gauge({
    name: 'graphql_gateway_requests_in_flight',
    help: 'HTTP requests the gateway is answering now.',
    registers,
  });
  /** A request counted in flight is no longer: once, whether its answer left or its client went away first. */
  const leaves = (parts: Partial<RequestParts>) => {
    if (!parts.inFlight) return;
    parts.inFlight = false;
    inFlight.dec();
  };

  const sharedStateErrors = new Counter({
    name: 'graphql_gateway_shared_state_errors_total',
    help: 'Commands to the shared state (Redis) that failed, by operation; the request went on without it.',
    labelNames: ['operation'] as const,
    registers,
  });

  const platformEvents = new Counter({
    name: 'graphql_gateway_platform_events_total',
    help: "Deliveries of the platform's events, by type (those the gateway acts on; `other`) and outcome (accepted, ignored, duplicate, not_ready, unsigned, unknown_installation, expired, bad_signature, replayed, too_large, malformed, rate_limited).",
    labelNames: ['type', 'outcome'] as const,
    registers,
  });

  const names = new Set<string>();
  function nameLabel(report: OperationReport): string {
    const name = report.operationName;
    if (name === null) return '(anonymous)';
    if (names.has(name) || names.size < MAX_OPERATION_NAMES) {
      names.add(name);
      return name;
    }
    return '(other)';
  }

  const upstreamHook: UpstreamHook = {
    name: 'metrics',
    async fetch(call, next) {
      try {
        return await next(call);
      } finally {
        const exchange = exchangeOf(call);
        const route = exchange.route;
        upstream.inc({ method: exchange.method, route, status: String(exchange.status ?? 0) });
        upstreamSeconds.observe({ method: exchange.method, route }, (exchange.endedAt - exchange.startedAt) / 1000);
        if (exchange.retries > 0) retries.inc({ route }, exchange.retries);
      }
    },
  };

  return {
    registry,
    upstreamHook,
    sharedStateFailed: (operation) => sharedStateErrors.inc({ operation }),
    platformEvent: (type, outcome) => platformEvents.inc({ type, outcome }),
    watchPush(organizations) {
      new Gauge({
        name: 'graphql_gateway_platform_events_organizations',
        help: "Organizations whose events the platform delivers to this gateway now (0: none registered, or its deliveries fail): their spaces' content is polled only as a safety net.",
        registers,
        collect() {
          this.set(organizations());
        },
      });
    },
    watchSharedState(connected) {
      new Gauge({
        name: 'graphql_gateway_shared_state_up',
        help: 'Whether the shared state (Redis) answers: 1 yes, 0 no.',
        registers,
        collect() {
          this.set(connected() ? 1 : 0);
        },
      });
    },
    record(report) {
      const type = report.operationType ?? 'none';
      operations.inc({ operation_name: nameLabel(report), operation_type: type, outcome: outcomeOf(report) });
      operationSeconds.observe({ operation_type: type }, report.durationMs / 1000);
      if (report.cacheHit !== null) cacheLookups.inc({ result: report.cacheHit ? 'hit' : 'miss' });
    },
    plugin({ exposed }) {
      return {
        onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
          if (exposed && servesMetrics(request.method, url.pathname)) {
            return metricsAnswer(registry, request.method).then(({ body, contentType }) =>
              endResponse(new fetchAPI.Response(body, { headers: { 'content-type': contentType } })),
            );
          }
          const parts = partsOf(serverContext);
          parts.inFlight = true;
          inFlight.inc();
          // A client that leaves gets no onResponse.
          request.signal?.addEventListener('abort', () => leaves(parts), { once: true });
        },
        onResponse: ({ serverContext }) => leaves(partsOf(serverContext)),
      };
    },
    listener(req, res) {
      if (!servesMetrics(req.method, req.url?.split('?')[0])) {
        res.writeHead(404).end();
        return;
      }
      void metricsAnswer(registry, req.method!).then(({ body, contentType }) =>
        res.writeHead(200, { 'content-type': contentType }).end(body ?? undefined),
      );
    },
  };
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** Whether the request is counted in `graphql_gateway_requests_in_flight` (see `plugin`). */
    inFlight?: boolean | undefined;
  }
}

function outcomeOf(report: OperationReport): string {
  if (report.status === 499) return 'client_gone';
  // Refused for the caller's budget (429): apart from other refusals, for alerts on spent budgets.
  if (report.status === 429) return 'rate_limited';
  // A revalidation answered 304 (the client's copy still holds): nothing ran, nothing was refused.
  if (report.status === 304) return 'not_modified';
  if (report.operationType === null || report.status >= 400) return 'refused';
  return report.errorCodes.length > 0 ? 'error' : 'success';
}
