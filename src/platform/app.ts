import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { Access } from './access.js';
import { ApiError } from './http.js';
import type { UserRow } from './rows.js';
import type { Links } from './serialize.js';
import type { Db } from './store/db.js';
import { collectionRoutes } from './routes/collections.js';
import { memberRoutes } from './routes/members.js';
import { organizationRoutes } from './routes/organizations.js';
import { spaceRoutes } from './routes/spaces.js';
import { teamRoutes } from './routes/teams.js';
import { userRoutes } from './routes/users.js';

/** What a route handler knows about the caller. */
export interface RequestContext {
  db: Db;
  user: UserRow;
  access: Access;
  links: Links;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
  interface FastifyInstance {
    /** Requests answered since start (or the last `resetStats`), for tests and benchmarks. */
    stats: PlatformStats;
  }
}

export interface PlatformStats {
  /** Number of requests received. */
  count: number;
  /** `METHOD /path?query` of each request, in arrival order. */
  requests: string[];
  /** Every answered request with its status, in answer order. */
  answers: Array<{ method: string; url: string; status: number }>;
  reset(): void;
}

export interface CreatePlatformOptions {
  /** Open database (see `openDatabase`). */
  db: Db;
  /**
   * Fastify logger setting.
   * @default false
   */
  logger?: FastifyServerOptions['logger'];
  /**
   * Milliseconds every request waits before it is handled, to imitate a remote API.
   * @default 0
   */
  delayMs?: number;
  /**
   * Called with every answer just before it is sent (errors, 404s and bodiless answers
   * included), for tests that check answers against the API description. Must not throw.
   */
  onAnswer?: (answer: PlatformAnswer) => void;
}

/** One answer of the platform, as `CreatePlatformOptions.onAnswer` sees it. */
export interface PlatformAnswer {
  method: string;
  /** Path and query as requested. */
  url: string;
  /** Route pattern that handled the request (`/v1/orgs/:organizationId`); undefined when no route matched. */
  route: string | undefined;
  status: number;
  /** The `content-type` header of the answer, if any. */
  contentType: string | undefined;
  /** The body as sent; undefined when there is none. */
  body: string | undefined;
}

/**
 * The token of an `Authorization: Bearer <token>` header, else a 401 that says what is wrong
 * without repeating the header, which may hold a credential.
 */
export function bearerToken(header: string | string[] | undefined): string {
  const value = typeof header === 'string' ? header.trim() : '';
  if (value === '') throw new ApiError(401, 'Missing authorization: send "Authorization: Bearer <token>"');
  const [scheme = '', ...rest] = value.split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') {
    throw new ApiError(401, 'Unsupported authorization scheme: only Bearer tokens are accepted; send "Authorization: Bearer <token>"');
  }
  if (rest.length !== 1) {
    throw new ApiError(401, 'Malformed authorization: send "Authorization: Bearer <token>" with a single token');
  }
  return rest[0]!;
}

function requestForLog(request: { method: string; url: string }) {
  const index = request.url.indexOf('?');
  return { method: request.method, url: index === -1 ? request.url : `${request.url.slice(0, index)}?…` };
}

/** Builds the embedded platform: the REST API of `platform-api.md` under `/v1`. Does not listen. */
export function createPlatform({ db, logger = false, delayMs = 0, onAnswer }: CreatePlatformOptions): FastifyInstance {
  const app = Fastify({
    // Query strings may carry share keys and visitor tokens: logs show the path only.
    logger: logger === false ? false : { ...(typeof logger === 'object' ? logger : {}), serializers: { req: requestForLog } },
    // A repeated query key arrives as an array of its values; parseQuery answers 400 naming the
    // parameter unless the endpoint takes a list, and endpoints ignore parameters they do not read.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    bodyLimit: 5 * 1024 * 1024,
  });

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
  app.decorateRequest('ctx', null as unknown as RequestContext);

  // Bodies may be empty even with a JSON content type (for example POST .../restore).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, 'Invalid body: not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request) => {
    stats.count += 1;
    stats.requests.push(`${request.method} ${request.url}`);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
  });

  // Recorded before the answer leaves, so a client that got its answer finds it here.
  app.addHook('onSend', async (request, reply, payload) => {
    stats.answers.push({ method: request.method, url: request.url, status: reply.statusCode });
    if (onAnswer) {
      const type = reply.getHeader('content-type');
      onAnswer({
        method: request.method,
        url: request.url,
        route: request.routeOptions.url,
        status: reply.statusCode,
        contentType: typeof type === 'string' ? type : undefined,
        body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined,
      });
    }
    return payload;
  });

  const findToken = db.prepare(
    'SELECT u.* FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token = ?',
  );

  app.addHook('preHandler', async (request) => {
    const user = findToken.get(bearerToken(request.headers.authorization)) as UserRow | undefined;
    if (!user) throw new ApiError(401, 'Invalid or revoked API token');
    const origin = `${request.protocol}://${request.host}`;
    request.ctx = {
      db,
      user,
      access: new Access(db, user),
      links: { api: `${origin}/v1`, app: `${origin}/app`, published: `${origin}/published` },
    };
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.status === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(error.status).send({ error: { code: error.status, message: error.message } });
    }
    const { statusCode: status, message } = error as { statusCode?: number; message?: string };
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: { code: status, message: message ?? 'Bad request' } });
    }
    request.log.error({ err: error }, 'unhandled platform error');
    return reply.code(500).send({ error: { code: 500, message: 'Internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 404, message: `No route ${request.method} ${request.url.split('?')[0]}` } }),
  );

  app.register(
    async (v1) => {
      organizationRoutes(v1);
      memberRoutes(v1);
      teamRoutes(v1);
      collectionRoutes(v1);
      spaceRoutes(v1);
      userRoutes(v1);
    },
    { prefix: '/v1' },
  );

  return app;
}
