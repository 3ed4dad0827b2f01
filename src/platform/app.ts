import { maxHeaderSize, STATUS_CODES, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type ConnectionError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import { authenticate, type RequestContext } from './context.js';
import { ApiError } from './http.js';
import type { Db } from './store/db.js';
import { collectionRoutes } from './collections/routes.js';
import { HEALTH_PATHS, healthRoutes } from './health/routes.js';
import { memberRoutes } from './members/routes.js';
import { organizationRoutes } from './organizations/routes.js';
import {
  contentRoutes,
  DOWNLOAD_ROUTE,
  downloadRoutes,
  PDF_ROUTE,
  pdfDownloadRoutes,
  pdfRoutes,
} from './content/routes.js';
import { searchRoutes } from './content/search-routes.js';
import { changeRequestRoutes } from './change-requests/routes.js';
import { changeRequestContentRoutes } from './change-requests/content-routes.js';
import { gitRoutes } from './git/routes.js';
import { siteRoutes } from './sites/routes.js';
import { siteAccessRoutes } from './sites/access-routes.js';
import { urlRoutes } from './urls/routes.js';
import { samlRoutes } from './sso/routes.js';
import { fontRoutes, UPLOAD_ROUTE, uploadRoutes } from './fonts/routes.js';
import { OPENAPI_DOWNLOAD_ROUTE, openAPIDownloadRoutes, openAPIRoutes } from './openapi/routes.js';
import { computedRoutes } from './openapi/computed-routes.js';
import { registerConversations, queuePendingClustering } from './conversations/resume.js';
import { conversationRoutes } from './conversations/routes.js';
import {
  DEFAULT_FETCH_TIMEOUT_MS,
  DEFAULT_REFRESH_HOURS,
  registerOpenAPI,
  type OpenAPIRefresher,
} from './openapi/store.js';
import { registerGitSync } from './git/sync.js';
import { translationRoutes } from './translations/routes.js';
import { integrationAssetRoutes, integrationRoutes } from './integrations/routes.js';
import { ASSET_ROUTE } from './integrations/store.js';
import {
  DEFAULT_DELIVERY_RETRY_BASE_MS,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  registerIntegrations,
} from './integrations/delivery.js';
import { registerTranslations } from './translations/run.js';
import { watchTranslationSources } from './translations/store.js';
import { createTranslator } from './translations/translator.js';
import { JobQueue } from './jobs.js';
import { SpecReader } from './openapi/reader.js';
import { spaceRoutes } from './spaces/routes.js';
import { teamRoutes } from './teams/routes.js';
import { userRoutes } from './users/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests answered since start (or the last `resetStats`), for tests and benchmarks. */
    stats: PlatformStats;
    /** The queue of background work (Git sync…); tests wait for it with `jobs.drain()`. */
    jobs: JobQueue;
    /** The schedule of OpenAPI URL checks; tests enqueue the checks due with `openapiRefresher.checkDue(at)`. */
    openapiRefresher: OpenAPIRefresher;
    /** Where OpenAPI texts are parsed and validated (a worker thread); tests count its `readings`. */
    openapiReader: SpecReader;
  }
}

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
   * Let callers make the platform fetch from private and loopback addresses (files inserted by
   * URL): for demo and test runs, where every server is local. Never in production.
   * @default false
   */
  allowPrivateUrls?: boolean;
  /**
   * Let Git Sync use `file://` and `http://` URLs and local paths (demo and test runs, whose
   * repositories are on this machine); otherwise only `https://`.
   * @default false
   */
  gitAllowLocal?: boolean;
  /** Author and committer of the commits Git Sync exports. @default Docs platform <docs-platform@localhost> */
  gitAuthor?: { name: string; email: string };
  /** Certificates (a PEM file) Git Sync trusts for https remotes besides the system's: a private CA. */
  gitCaFile?: string | undefined;
  /**
   * Base URL of a LibreTranslate-compatible service that translation runs call
   * (`POST {url}/translate`); without it, runs pseudo-localize (offline).
   */
  translatorUrl?: string | undefined;
  /** API key sent to that service, if it needs one. Never logged nor shown in errors. */
  translatorApiKey?: string | undefined;
  /** Time one request to the translator may take, in milliseconds. @default 30000 */
  translatorTimeoutMs?: number | undefined;
  /**
   * Hours between two checks of an OpenAPI specification's URL source (fractions allowed).
   * @default 6
   */
  openapiRefreshHours?: number;
  /**
   * Milliseconds an OpenAPI URL source has to answer before its processing fails with `FETCH_TIMEOUT`.
   * @default 30000
   */
  openapiFetchTimeoutMs?: number;
  /**
   * Milliseconds one delivery of an event to an integration's endpoint may take.
   * @default 10000
   */
  deliveryTimeoutMs?: number;
  /**
   * Milliseconds before the second attempt at delivering an event (the third waits twice as long).
   * @default 2000
   */
  deliveryRetryBaseMs?: number;
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
 * Deepest nesting of arrays and objects in a JSON body. Validation and serialization recurse per
 * level, and a body nested thousands of levels deep would overflow the stack; real documents
 * nest a few dozen levels at most.
 */
const MAX_BODY_DEPTH = 256;

/** Largest request body, in bytes (routes that take files set their own). */
const BODY_LIMIT = 5 * 1024 * 1024;

/** Whether JSON text nests arrays and objects deeper than `max` (strings skipped), without parsing it. */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i += 1;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > max) return true;
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return false;
}

/** Longest path parameter (an id) the router takes; a longer one is answered 414. */
const MAX_PARAM_LENGTH = 500;

/** Node's refusals of requests it cannot read, by error code: status and what to tell the client. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    `Request header fields too large: the request line and headers may take at most ${maxHeaderSize} bytes`,
  ],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'Chunk extensions too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request timeout: the request did not arrive in time'],
  HPE_INVALID_METHOD: [400, 'Malformed request: invalid method'],
  HPE_INVALID_URL: [400, 'Malformed request: invalid request target'],
  HPE_INVALID_VERSION: [400, 'Malformed request: invalid HTTP version'],
  HPE_INVALID_HEADER_TOKEN: [400, 'Malformed request: invalid header'],
  HPE_INVALID_CONTENT_LENGTH: [400, 'Malformed request: invalid Content-Length'],
  HPE_UNEXPECTED_CONTENT_LENGTH: [400, 'Malformed request: both Content-Length and Transfer-Encoding'],
  HPE_INVALID_TRANSFER_ENCODING: [400, 'Malformed request: invalid Transfer-Encoding'],
  HPE_INVALID_CHUNK_SIZE: [400, 'Malformed request: invalid chunk size'],
};

/**
 * A whole HTTP/1.1 answer in the platform's error shape that closes the connection, for a raw
 * socket; without its body when it answers a HEAD request.
 */
function rawErrorAnswer(status: number, message: string, head = false): string {
  const body = JSON.stringify({ error: { code: status, message } });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${head ? '' : body}`
  );
}

/**
 * Answers, in the platform's error shape, a request Node could not parse (headers too large, a
 * malformed request line or header, a timeout), then closes the connection, as Node would.
 */
function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // An answer already under way on this connection must not be corrupted by a second one.
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const [status, message] = CLIENT_ERRORS[error.code] ?? [400, 'Malformed HTTP request'];
    // The packet being parsed starts with the request line unless the request came in pieces.
    const packet: unknown = error.rawPacket;
    const head = Buffer.isBuffer(packet) && packet.subarray(0, 5).toString('latin1') === 'HEAD ';
    socket.end(rawErrorAnswer(status, message, head));
  }
  socket.destroySoon();
}

function requestForLog(request: { method: string; url: string }) {
  const index = request.url.indexOf('?');
  return { method: request.method, url: index === -1 ? request.url : `${request.url.slice(0, index)}?…` };
}

/** Author and committer of exported commits unless configured. */
export const DEFAULT_GIT_AUTHOR = { name: 'Docs platform', email: 'docs-platform@localhost' };

/** Builds the embedded platform: the REST API of `platform-api.md` under `/v1`. Does not listen. */
export function createPlatform({
  db,
  logger = false,
  delayMs = 0,
  allowPrivateUrls = false,
  gitAllowLocal = false,
  gitAuthor = DEFAULT_GIT_AUTHOR,
  gitCaFile,
  translatorUrl,
  translatorApiKey,
  translatorTimeoutMs,
  openapiRefreshHours = DEFAULT_REFRESH_HOURS,
  openapiFetchTimeoutMs = DEFAULT_FETCH_TIMEOUT_MS,
  deliveryTimeoutMs = DEFAULT_DELIVERY_TIMEOUT_MS,
  deliveryRetryBaseMs = DEFAULT_DELIVERY_RETRY_BASE_MS,
  onAnswer,
}: CreatePlatformOptions): FastifyInstance {
  const app = Fastify({
    // Query strings may carry share keys and visitor tokens: logs show the path only.
    logger:
      logger === false ? false : { ...(typeof logger === 'object' ? logger : {}), serializers: { req: requestForLog } },
    // A repeated query key arrives as an array of its values; parseQuery answers 400 naming the
    // parameter unless the endpoint takes a list, and endpoints ignore parameters they do not read.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: BODY_LIMIT,
    // What Node and the router refuse before any route runs is answered in the error shape too.
    clientErrorHandler: answerClientError,
    frameworkErrors: (error, _request, reply) => {
      const [status, message] =
        error.code === 'FST_ERR_BAD_URL'
          ? [400, 'Invalid URL: the path is not valid percent-encoded UTF-8']
          : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
            ? [414, `URI too long: a path parameter may have at most ${MAX_PARAM_LENGTH} characters`]
            : [error.statusCode ?? 400, error.message];
      (reply as FastifyReply).code(status).send({ error: { code: status, message } });
    },
    // Node answers an HTTP/1.1 request without Host with a bare 400; the onRequest hook answers it instead.
    http: { requireHostHeader: false },
  });
  // Node answers an unsupported Expect header with a bare 417 unless someone listens.
  app.server.on('checkExpectation', (_request, response: ServerResponse) => {
    const body = JSON.stringify({
      error: { code: 417, message: 'Expectation failed: only "Expect: 100-continue" is supported' },
    });
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  // Node closes a CONNECT (a proxy tunnel) without a word unless someone listens.
  app.server.on('connect', (_request, socket: Socket) => {
    socket.on('error', () => undefined);
    socket.end(rawErrorAnswer(405, 'Method not allowed: the platform is no proxy'));
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
    if (nestsDeeperThan(text, MAX_BODY_DEPTH)) {
      return done(
        new ApiError(400, `Invalid body: arrays and objects nest deeper than ${MAX_BODY_DEPTH} levels`),
        undefined,
      );
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new ApiError(400, 'Invalid body: not valid JSON'), undefined);
    }
  });

  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError(400, 'Missing Host header: every HTTP/1.1 request must send one');
    }
    // Health checks are not API calls: tests count the requests of the API alone.
    if (HEALTH_PATHS.has(request.routeOptions.url ?? '')) return;
    stats.count += 1;
    record(stats.requests, `${request.method} ${request.url}`);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
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
        contentType: typeof type === 'string' ? type : undefined,
        body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined,
      });
    }
    // Encoded once here: given a string, Node would measure its UTF-8 length and then encode it,
    // two passes over the text (a page of 100 spaces spent a fifth of its time on them).
    return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  });

  // Health checks, signed downloads and signed uploads need no token.
  app.addHook(
    'preHandler',
    authenticate(
      db,
      new Set([...HEALTH_PATHS, DOWNLOAD_ROUTE, PDF_ROUTE, UPLOAD_ROUTE, OPENAPI_DOWNLOAD_ROUTE, ASSET_ROUTE]),
    ),
  );

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof ApiError) {
      if (error.status === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(error.status).send({ error: { code: error.status, message: error.message, ...error.limit } });
    }
    const { statusCode: status, message, code } = error as { statusCode?: number; message?: string; code?: string };
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      // Named like every other budget: the route's body limit, and the size the request announced.
      const max = request.routeOptions.bodyLimit ?? BODY_LIMIT;
      const announced = Number(request.headers['content-length']);
      const value = Number.isFinite(announced) && announced > max ? announced : max + 1;
      return reply.code(413).send({
        error: {
          code: 413,
          message: `The request body is larger than ${max} bytes`,
          limit: 'requestBytes',
          value,
          max,
        },
      });
    }
    if (status && status >= 400 && status < 500) {
      return reply.code(status).send({ error: { code: status, message: message ?? 'Bad request' } });
    }
    request.log.error({ err: error }, 'unhandled platform error');
    return reply.code(500).send({ error: { code: 500, message: 'Internal error' } });
  });

  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send({ error: { code: 404, message: `No route ${request.method} ${request.url.split('?')[0]}` } }),
  );

  // Background work: started once the server is ready, stopped (running jobs finished) on close.
  const jobs = new JobQueue(db);
  registerGitSync(jobs, { author: gitAuthor, caFile: gitCaFile, allowLocal: gitAllowLocal });
  registerConversations(jobs);
  registerTranslations(
    jobs,
    createTranslator({ url: translatorUrl, apiKey: translatorApiKey, timeoutMs: translatorTimeoutMs }),
  );
  // A new revision of a translation's source runs it, from the start (runs asked before
  // start wait in the queue).
  const stopWatching = watchTranslationSources(db, jobs);
  // OpenAPI texts are read in a worker thread, started at the first one and stopped on close.
  const openapiReader = new SpecReader();
  const openapiRefresher = registerOpenAPI(jobs, db, {
    allowPrivateUrls,
    reader: openapiReader,
    fetchTimeoutMs: openapiFetchTimeoutMs,
    refreshMs: openapiRefreshHours * 60 * 60 * 1000,
  });
  // Events of integrations, delivered to their endpoints with the URLs of this server.
  const stopIntegrations = registerIntegrations(jobs, db, {
    allowPrivateUrls,
    timeoutMs: deliveryTimeoutMs,
    retryBaseMs: deliveryRetryBaseMs,
    origin: () => {
      const address = app.server.address();
      if (!address || typeof address === 'string') return 'http://localhost';
      const host =
        address.address === '0.0.0.0' || address.address === '::'
          ? 'localhost'
          : address.family === 'IPv6'
            ? `[${address.address}]`
            : address.address;
      return `http://${host}:${address.port}`;
    },
  });
  app.decorate('jobs', jobs);
  app.decorate('openapiRefresher', openapiRefresher);
  app.decorate('openapiReader', openapiReader);
  app.addHook('onReady', async () => {
    jobs.start();
    queuePendingClustering(db, jobs);
    openapiRefresher.start();
  });
  app.addHook('onClose', async () => {
    stopWatching();
    stopIntegrations();
    openapiRefresher.stop();
    await jobs.stop();
    await openapiReader.close();
  });

  healthRoutes(app, db);
  downloadRoutes(app, db);
  pdfDownloadRoutes(app, db);
  uploadRoutes(app, db);
  openAPIDownloadRoutes(app, db);
  integrationAssetRoutes(app, db);

  app.register(
    async (v1) => {
      organizationRoutes(v1);
      memberRoutes(v1);
      teamRoutes(v1);
      collectionRoutes(v1);
      spaceRoutes(v1);
      contentRoutes(v1);
      changeRequestRoutes(v1);
      changeRequestContentRoutes(v1, { allowPrivateUrls });
      gitRoutes(v1, { queue: jobs, allowLocal: gitAllowLocal });
      siteRoutes(v1);
      siteAccessRoutes(v1);
      urlRoutes(v1);
      samlRoutes(v1);
      fontRoutes(v1);
      translationRoutes(v1, { queue: jobs });
      openAPIRoutes(v1, { queue: jobs });
      computedRoutes(v1);
      conversationRoutes(v1);
      integrationRoutes(v1, { allowPrivateUrls });
      searchRoutes(v1);
      pdfRoutes(v1);
      userRoutes(v1);
    },
    { prefix: '/v1' },
  );

  return app;
}
