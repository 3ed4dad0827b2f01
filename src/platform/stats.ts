import type { FastifyInstance } from 'fastify';

/** Entries the stats keep: a server that runs for months must not keep every request. */
const RECORDED = 1000;

function record<T>(list: T[], entry: T): void {
  list.push(entry);
  if (list.length > 2 * RECORDED) list.splice(0, list.length - RECORDED);
}

export interface PlatformStats {
  /** Number of requests received. */
  count: number;
  /** `METHOD /path?query` of each request, in arrival order (the last 1,000 at least: older ones are dropped). */
  requests: string[];
  /** Every answered request with its status, in answer order (the last 1,000 at least). */
  answers: Array<{ method: string; url: string; status: number }>;
  reset(): void;
}

/** One answer of the platform, as `CreatePlatformOptions.onAnswer` sees it. */
export interface PlatformAnswer {
  method: string;
  /** Path and query as requested. */
  url: string;
  /** Route pattern that handled the request (`/v1/orgs/:organizationId`); undefined when no route matched. */
  route: string | undefined;
  status: number;
  /** The `user-agent` header of the request, if any: which client asked. */
  userAgent: string | undefined;
  /** The `content-type` header of the answer, if any. */
  contentType: string | undefined;
  /** The body as sent; undefined when there is none. */
  body: string | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests answered since start (or the last `resetStats`), for tests and benchmarks. */
    stats: PlatformStats;
    /** Every route registered (method and URL pattern, prefix included), for the tests' inventory of the API. */
    registeredRoutes: Array<{ method: string; url: string }>;
  }
}

/** Keeps `app.registeredRoutes`: call it before the routes are registered. */
export function recordRoutes(app: FastifyInstance): void {
  const registeredRoutes: FastifyInstance['registeredRoutes'] = [];
  app.decorate('registeredRoutes', registeredRoutes);
  app.addHook('onRoute', ({ method, url }) => {
    for (const one of Array.isArray(method) ? method : [method]) registeredRoutes.push({ method: one, url });
  });
}

/**
 * Keeps `app.stats`: the requests received and the answers sent, except those of the routes in
 * `skip` (health checks are not API calls: tests count the requests of the API alone), and hands
 * every answer to `onAnswer`.
 */
export function recordStats(
  app: FastifyInstance,
  { skip, onAnswer }: { skip: ReadonlySet<string>; onAnswer?: ((answer: PlatformAnswer) => void) | undefined },
): void {
  const stats: PlatformStats = {
    count: 0,
    requests: [],
    answers: [],
    reset() {
      stats.count = 0;
      stats.requests = [];
      stats.answers = [];
    },
  };
  app.decorate('stats', stats);

  app.addHook('onRequest', async (request) => {
    if (skip.has(request.routeOptions.url ?? '')) return;
    stats.count += 1;
    record(stats.requests, `${request.method} ${request.url}`);
  });

  // Recorded before the answer leaves, so a client that got its answer finds it here.
  app.addHook('onSend', async (request, reply, payload) => {
    record(stats.answers, { method: request.method, url: request.url, status: reply.statusCode });
    if (onAnswer) {
      const type = reply.getHeader('content-type');
      onAnswer({
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        status: reply.statusCode,
        userAgent: request.headers['user-agent'],
        contentType: typeof type === 'string' ? type : undefined,
        body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined,
      });
    }
  });
}
