import { isIP } from 'node:net';
import { z } from 'zod';
import type { GatewayLimits } from './gateway/policy/limits.js';

const port = z.coerce
  .number({ message: 'must be a port number from 0 to 65535' })
  .int('must be a port number from 0 to 65535')
  .min(0, 'must be a port number from 0 to 65535')
  .max(65535, 'must be a port number from 0 to 65535');
const host = z.string().min(1);
/** A switch: `1` or `true` is on, `0` or `false` off; unset, `byDefault`. */
const flag = (byDefault: '0' | '1' = '0') =>
  z
    .enum(['0', '1', 'false', 'true'])
    .default(byDefault)
    .transform((value) => value === '1' || value === 'true');

/**
 * The origin an entry of `CORS_ORIGINS` names, as browsers write it in `Origin` (`https://app.example.com`;
 * a trailing slash allowed); undefined for anything else: a path, a wildcard, credentials, another scheme.
 */
function originOf(entry: string): string | undefined {
  if (entry.includes('*')) return undefined;
  const url = URL.parse(entry);
  if (!url) return undefined;
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return bare && (url.protocol === 'http:' || url.protocol === 'https:') && /^https?:\/\/[^/]+\/?$/i.test(entry)
    ? url.origin
    : undefined;
}

/**
 * An entry of `PLATFORM_EVENT_RECEIVERS` as the platform compares it (`href`); undefined for
 * anything but an absolute http(s) URL on an IP address or `localhost` (a name another resolver could
 * point elsewhere would let the platform's connections reach what the operator did not name),
 * without credentials or fragment.
 */
export function eventReceiverOf(entry: string): string | undefined {
  const url = URL.parse(entry);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isIP(host) === 0 && host !== 'localhost') return undefined;
  return url.username || url.password || entry.includes('#') ? undefined : url.href;
}

/**
 * A comma-separated list, each entry read by `read` (undefined: refused, naming it as not `what`,
 * with an example), kept once each in the form `read` gives; credentials in a refused entry are
 * not repeated.
 */
function commaList(read: (entry: string) => string | undefined, what: string, example: string) {
  return z.string().transform((value, ctx) => {
    const entries: string[] = [];
    for (const entry of value.split(',').map((item) => item.trim())) {
      const parsed = read(entry);
      if (parsed === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry.slice(0, 100).replace(/\/\/[^/]*@/, '//***@')}" is not ${what}: write each as ${example}`,
        });
        return z.NEVER;
      }
      if (!entries.includes(parsed)) entries.push(parsed);
    }
    return entries;
  });
}

/**
 * Every setting the project reads from the environment, parsed in one place.
 * The README's settings table lists the same names and defaults.
 */
export const configSchema = z.object({
  /** Port of the GraphQL gateway. @default 4000 */
  PORT: port.default(4000),
  /** Interface the gateway listens on. @default 127.0.0.1 */
  HOST: host.default('127.0.0.1'),
  /**
   * Base URL of the REST API, ending in `/v1`. When unset, the embedded platform is
   * started and used.
   */
  UPSTREAM_URL: z
    .url({ message: 'UPSTREAM_URL must be an absolute http(s) URL ending in /v1' })
    .refine((value) => /^https?:/.test(value) && /\/v1\/?$/.test(value), {
      message: 'UPSTREAM_URL must be an absolute http(s) URL ending in /v1',
    })
    .optional(),
  /** Milliseconds one upstream request may take, its retries and their waits included. @default 10000 */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Failed upstream tries in a row (connection errors, timeouts, 5xx) that open the circuit breaker. @default 5 */
  UPSTREAM_BREAKER_THRESHOLD: z.coerce.number().int().positive().default(5),
  /** Milliseconds the open circuit breaker fails requests fast before letting one probe through. @default 5000 */
  UPSTREAM_BREAKER_COOLDOWN_MS: z.coerce.number().int().positive().default(5_000),
  /** Keep-alive connections per upstream origin. @default 64 */
  UPSTREAM_CONNECTIONS: z.coerce.number().int().positive().default(64),
  /**
   * Identical GETs in flight at once with the same credentials (`Authorization`), from any GraphQL
   * requests, share one platform request; never writes, never past its answer. `0` sends each. @default 1
   */
  UPSTREAM_DEDUPE: flag('1'),
  /**
   * Where the platform reaches this gateway's receiver of its signed events (`https://gateway.example.com/platform-events`):
   * with `UPSTREAM_EVENTS_TOKEN`, the gateway registers there at start (see `registerForEvents`) and
   * subscriptions hear of changes when they happen. `npm start` sets it to the gateway's loopback address.
   */
  UPSTREAM_EVENTS_URL: z
    .url({ message: 'UPSTREAM_EVENTS_URL must be an absolute http(s) URL' })
    .refine((value) => /^https?:/.test(value), { message: 'UPSTREAM_EVENTS_URL must be an absolute http(s) URL' })
    .optional(),
  /**
   * A token of an admin of the organizations whose events the gateway takes: it publishes the
   * integration `UPSTREAM_EVENTS_INTEGRATION`, installs it on them and reads its signing secrets. `npm
   * start` uses the demo admin's.
   */
  UPSTREAM_EVENTS_TOKEN: z.string().min(1).optional(),
  /** Name of the integration that delivers the platform's events to the gateway. @default graphql-gateway */
  UPSTREAM_EVENTS_INTEGRATION: z
    .string()
    .regex(/^[a-z0-9-]{2,64}$/, 'UPSTREAM_EVENTS_INTEGRATION must be 2 to 64 lowercase letters, digits or "-"')
    .default('graphql-gateway'),
  /** Port of the embedded platform. @default 4010 */
  PLATFORM_PORT: port.default(4010),
  /** Interface the embedded platform listens on. @default 127.0.0.1 */
  PLATFORM_HOST: host.default('127.0.0.1'),
  /**
   * V8 old-space limit of the embedded platform's process, in MiB: past it, that process dies
   * alone and the gateway restarts it. @default 256
   */
  PLATFORM_HEAP_MB: z.coerce
    .number({ message: 'must be a number of MiB' })
    .int('must be a whole number')
    .min(64, 'must be at least 64')
    .max(65_536, 'must be at most 65536')
    .default(256),
  /**
   * V8 old-space limit of the gateway's process, in MiB (`npm start`'s and each replica of
   * `npm run cluster`): past it, that process dies alone and its supervisor restarts it. @default 192
   */
  GATEWAY_HEAP_MB: z.coerce
    .number({ message: 'must be a number of MiB' })
    .int('must be a whole number')
    .min(64, 'must be at least 64')
    .max(65_536, 'must be at most 65536')
    .default(192),
  /** Milliseconds the embedded platform waits before handling each request, to imitate a remote API. @default 0 */
  PLATFORM_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /**
   * MiB of memory the embedded platform keeps for values it derived from its database (decoded
   * documents, revision contents, search sections), least recently used dropped first. @default 48
   */
  PLATFORM_CACHE_MB: z.coerce.number().int().min(1).max(4096).default(48),
  /**
   * Seed the demo data set into the embedded platform's database at its first start (`1`), or start it with what
   * its database holds (`0`: empty in a new `DATA_DIR`, no demo tokens), for a platform run for real and for
   * tests that build their own data. @default 1
   */
  PLATFORM_DEMO_DATA: flag('1'),
  /**
   * Let the embedded platform fetch files and OpenAPI sources from private and loopback addresses,
   * and deliver integration events there (`1`): for local demos whose servers run on this machine.
   * Otherwise such URLs are refused, OpenAPI sources and integration endpoints when they are
   * saved. @default 0
   */
  PLATFORM_ALLOW_PRIVATE_URLS: flag(),
  /**
   * URLs (absolute `http` or `https`, without credentials or fragment; comma-separated) that may be
   * integration endpoints and development tunnels of the embedded platform, and receive its
   * deliveries and render calls, although they are `http`, loopback or private: the gateway's own
   * receiver of events on this machine. Each exactly as written, query included; no other URL is let
   * through by them, and PLATFORM_ALLOW_PRIVATE_URLS stays off. Unset, none.
   */
  PLATFORM_EVENT_RECEIVERS: commaList(
    eventReceiverOf,
    'a receiver',
    'an absolute http or https URL on an IP address or localhost, without credentials or fragment, such as http://127.0.0.1:4000/platform-events',
  ).optional(),
  /**
   * Let Git Sync of the embedded platform use `file://` and `http://` URLs, local paths and
   * private or loopback addresses (`1`): for local demos and tests. Otherwise only `https://`
   * repositories on public addresses, through the outbound guard. @default 0
   */
  GIT_ALLOW_LOCAL: flag(),
  /** A PEM file of certificates Git Sync trusts for https remotes besides the system's (a private CA). */
  GIT_SSL_CA_FILE: z.string().min(1).optional(),
  /** Author name of the commits Git Sync exports. @default Docs platform */
  GIT_AUTHOR_NAME: z.string().min(1).max(200).default('Docs platform'),
  /** Author e-mail of the commits Git Sync exports. @default docs-platform@localhost */
  GIT_AUTHOR_EMAIL: z.string().min(3).max(200).default('docs-platform@localhost'),
  /**
   * Base URL of a LibreTranslate-compatible service for translation runs of the embedded
   * platform (`POST {url}/translate`). Unset: runs pseudo-localize, offline.
   */
  TRANSLATOR_URL: z
    .url({ message: 'TRANSLATOR_URL must be an absolute http(s) URL' })
    .refine((value) => /^https?:/.test(value), { message: 'TRANSLATOR_URL must be an absolute http(s) URL' })
    .optional(),
  /** API key sent to the translation service, if it needs one. */
  TRANSLATOR_API_KEY: z.string().min(1).max(500).optional(),
  /**
   * Hours between two checks of an OpenAPI specification whose source is a URL, in the embedded
   * platform (fractions allowed). @default 6
   */
  OPENAPI_REFRESH_HOURS: z.coerce
    .number({ message: 'must be a number of hours' })
    .positive('must be more than 0')
    .max(24 * 365, 'must be at most a year')
    .default(6),
  /**
   * Milliseconds one delivery of an event to an integration's endpoint may take, in the embedded
   * platform. @default 10000
   */
  INTEGRATION_DELIVERY_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a number of milliseconds' })
    .int('must be a whole number')
    .min(100, 'must be at least 100')
    .max(300_000, 'must be at most 300000')
    .default(10_000),
  /**
   * Milliseconds before the second attempt at delivering an event to an integration's endpoint
   * (the third waits twice as long), in the embedded platform. @default 2000
   */
  INTEGRATION_DELIVERY_RETRY_BASE_MS: z.coerce
    .number({ message: 'must be a number of milliseconds' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(3_600_000, 'must be at most an hour')
    .default(2_000),
  /** Pages one content import run of the embedded platform imports at most. @default 100 */
  IMPORT_MAX_PAGES: z.coerce
    .number({ message: 'must be a number of pages' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .default(100),
  /**
   * Bytes one content import run of the embedded platform reads at most: pages fetched, files, and
   * what their archives inflate to. @default 20971520
   */
  IMPORT_MAX_BYTES: z.coerce
    .number({ message: 'must be a number of bytes' })
    .int('must be a whole number')
    .min(1024, 'must be at least 1024')
    .max(1024 * 1024 * 1024, 'must be at most 1073741824')
    .default(20 * 1024 * 1024),
  /** Milliseconds the crawl of a website by one content import run may take. @default 120000 */
  IMPORT_TIMEOUT_MS: z.coerce
    .number({ message: 'must be a number of milliseconds' })
    .int('must be a whole number')
    .min(1000, 'must be at least 1000')
    .max(3_600_000, 'must be at most an hour')
    .default(120_000),
  /**
   * Days the embedded platform keeps an organization's audit events; older ones are deleted by an
   * hourly job. @default 365
   */
  AUDIT_RETENTION_DAYS: z.coerce
    .number({ message: 'must be a number of days' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(36_500, 'must be at most 36500')
    .default(365),
  /** Folder holding the embedded platform's SQLite database and demo tokens. @default .data */
  DATA_DIR: z.string().min(1).default('.data'),
  /**
   * Largest GraphQL request body in bytes, on every transport; larger ones are answered 413, and a
   * larger WebSocket message closes its connection (1009). @default 1048576
   */
  MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** Largest multipart GraphQL request (a file upload) in bytes; its operation alone stays within MAX_REQUEST_BYTES. @default 10551296 */
  MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024 + 64 * 1024),
  /** Most tokens the GraphQL parser reads in one document. @default 10000 */
  MAX_QUERY_TOKENS: z.coerce.number().int().min(100).default(10_000),
  /** Most objects an operation's answer may hold, counted before it runs. @default 500000 */
  MAX_QUERY_NODES: z.coerce.number().int().positive().default(500_000),
  /** Deepest nesting of fields in an operation. @default 15 */
  MAX_QUERY_DEPTH: z.coerce.number().int().min(2).default(15),
  /** Most aliased fields in an operation. @default 100 */
  MAX_QUERY_ALIASES: z.coerce.number().int().min(0).default(100),
  /** Most root fields in an operation. @default 50 */
  MAX_ROOT_FIELDS: z.coerce.number().int().positive().default(50),
  /** Most operations in one batched request (a JSON array, as Apollo's BatchHttpLink sends); 0 turns batching off. @default 10 */
  MAX_BATCH_OPERATIONS: z.coerce.number().int().min(0).max(100).default(10),
  /** Most upstream requests one operation makes; further ones fail alone. @default 1000 */
  MAX_UPSTREAM_REQUESTS: z.coerce.number().int().positive().default(1000),
  /**
   * Most bytes of one GraphQL answer, and, apart, of the upstream bodies read for it (one body
   * included); past either, the answer is one coded error. @default 8388608
   */
  MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(8 * 1024 * 1024),
  /**
   * Redis for the state gateway replicas share (`redis://[user:password@]host:port[/db]`): the
   * response cache, registered persisted operations, rate-limit budgets and the election of
   * subscription pollers with their events. Unset, all of it stays in the process's memory.
   */
  REDIS_URL: z
    .url({ message: 'REDIS_URL must be a redis:// or rediss:// URL' })
    .refine((value) => /^rediss?:\/\//.test(value), { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
    .optional(),
  /**
   * Keep GraphQL answers for this many milliseconds, per operation, variables and caller (a hash of
   * its Authorization header); unset, nothing is kept. Mutations through the gateway forget what
   * they change.
   */
  RESPONSE_CACHE_TTL_MS: z.coerce.number().int().positive().max(86_400_000).optional(),
  /**
   * MiB of answers the response cache keeps at most, in this process (or in Redis, for every replica
   * together): past it, the least recently used go first (in Redis, those ending soonest); an answer
   * over a sixteenth of it is not kept. @default 32
   */
  RESPONSE_CACHE_MB: z.coerce
    .number({ message: 'must be a number of MiB' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(65_536, 'must be at most 65536')
    .default(32),
  /**
   * Milliseconds between two polls of a resource a subscription follows; subscribers of one resource
   * with one token share each poll. @default 2000
   */
  SUBSCRIPTION_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(2000),
  /**
   * Milliseconds between two polls of a resource whose changes the platform's events report (a
   * space's content), while the gateway takes its organization's events: the safety net under the
   * pushed events. @default 30000
   */
  SUBSCRIPTION_PUSHED_POLL_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /** Most subscriptions open at once in this gateway; past it, a new one is refused with RATE_LIMITED. @default 10000 */
  MAX_SUBSCRIPTIONS: z.coerce.number().int().positive().default(10_000),
  /**
   * Most subscriptions one caller (a token; without one, a client address) holds open at once in this
   * gateway; past it, a new one is refused with RATE_LIMITED. @default 1000
   */
  MAX_SUBSCRIPTIONS_PER_CALLER: z.coerce.number().int().positive().default(1000),
  /** Most operations one WebSocket connection runs at once; past it, one more is refused with RATE_LIMITED. @default 100 */
  MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().positive().default(100),
  /**
   * Most connections one client address (an IPv6 client's /64) holds open at once: WebSockets and
   * event streams of `/graphql/stream` together; one more is refused with 429 RATE_LIMITED. @default 100
   */
  MAX_CONNECTIONS_PER_ADDRESS: z.coerce.number().int().positive().max(1_000_000).default(100),
  /**
   * Milliseconds a WebSocket or an event stream of `/graphql/stream` may run no operation before it
   * is closed; one that runs a subscription never is. 0: never. @default 60000
   */
  CONNECTION_IDLE_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(60_000),
  /** Milliseconds a WebSocket has after its upgrade to send `connection_init`; then it is closed (4408). @default 3000 */
  WEBSOCKET_INIT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(3_000),
  /**
   * Milliseconds between two pings of each WebSocket; a peer that has not answered one by the next
   * is dropped. 0: no pings. @default 12000
   */
  WEBSOCKET_PING_MS: z.coerce.number().int().min(0).max(3_600_000).default(12_000),
  /**
   * Points per token and window, spent in upstream requests and the gateway's own work: an operation
   * is admitted while something is left, reserves its `maxUpstreamRequests` (at most what is left)
   * and is charged what it spent; while nothing is left, RATE_LIMITED with Retry-After. 0 turns rate
   * limits off. @default 5000
   */
  RATE_LIMIT_POINTS: z.coerce.number().int().min(0).default(5000),
  /** Seconds of a rate-limit window, from a token's first operation in it. @default 3600 */
  RATE_LIMIT_WINDOW_S: z.coerce.number().int().positive().max(86_400).default(3600),
  /** `1`: while the budgets cannot be read (Redis down), operations run unmetered; `0`: refused with RATE_LIMITED. @default 1 */
  RATE_LIMIT_FAIL_OPEN: flag('1'),
  /**
   * Milliseconds a stopping gateway (SIGTERM, SIGINT) gives its operations in flight to finish
   * before it closes what is left and exits. @default 10000
   */
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * Proxies in front of the gateway, each appending the address it got a request from to
   * `X-Forwarded-For` (HAProxy's `option forwardfor`): the client is the address the outermost saw.
   * 0 trusts no header: the client is the connection's peer. Set it only when no client can reach
   * the gateway but through them. @default 0
   */
  TRUSTED_PROXIES: z.coerce.number().int().min(0).max(10).default(0),
  /**
   * Origins (`scheme://host[:port]`, comma-separated) whose pages may read the gateway's answers:
   * CORS headers, preflights included, for these exactly, never with credentials (clients send
   * their token as `Authorization`). Unset, no CORS header at all: only same-origin pages and
   * clients that are not browsers read the answers.
   */
  CORS_ORIGINS: commaList(originOf, 'an origin', 'scheme://host[:port], such as https://app.example.com').optional(),
  /**
   * Refuse a GraphQL request a browser may send from any site without a preflight (a GET, or a
   * POST of `text/plain`, a form or multipart) unless it carries a header that shows it was
   * preflighted (`x-graphql-csrf`, `apollo-require-preflight`, …). `0` only for a deployment whose
   * browser clients cannot send one and that no browser credentials (cookies) authenticate. @default 1
   */
  CSRF_PREVENTION: flag('1'),
  /** Gateways `npm run cluster` starts behind HAProxy. @default 3 */
  CLUSTER_REPLICAS: z.coerce.number().int().min(1).max(16).default(3),
  /**
   * Port of the first replica of `npm run cluster` on 127.0.0.1, the next ones following (`4001`: 4001, 4002,
   * 4003); `0`, free ports the cluster picks. @default 0
   */
  CLUSTER_BASE_PORT: port.default(0),
  /** Port of the redis-server `npm run cluster` starts on 127.0.0.1 (none with `REDIS_URL`); `0`, a free one. @default 0 */
  REDIS_PORT: port.default(0),
  /**
   * A manifest of persisted operations (`{ "<hash>": "<document>" }`, as graphql-codegen's client
   * preset writes it): clients may send a document's id (`documentId`) instead of its text.
   */
  PERSISTED_OPERATIONS_FILE: z.string().min(1).optional(),
  /** `1`: run only the persisted operations (the manifest and the built-in examples); any other document is refused. @default 0 */
  PERSISTED_ONLY: flag(),
  /**
   * MiB of documents registered as automatic persisted queries kept at most, in this process (or in
   * Redis, for every replica together); past it, the least recently used go first. @default 8
   */
  PERSISTED_QUERIES_MB: z.coerce
    .number({ message: 'must be a number of MiB' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(65_536, 'must be at most 65536')
    .default(8),
  /**
   * Largest document a client may register as an automatic persisted query, in bytes; a larger one
   * is refused with a coded error (it still runs sent as text alone). @default 131072
   */
  MAX_PERSISTED_QUERY_BYTES: z.coerce
    .number({ message: 'must be a number of bytes' })
    .int('must be a whole number')
    .min(1024, 'must be at least 1024')
    .max(16 * 1024 * 1024, 'must be at most 16777216')
    .default(128 * 1024),
  /**
   * `1`: answer introspection (`__schema`, `__type`) only to callers with a token; without one,
   * UNAUTHENTICATED. GraphiQL and code generators introspect, so they must send one then. Either
   * way introspection counts in the answer's byte budget and is charged in points by its size.
   * @default 0
   */
  INTROSPECTION_REQUIRES_TOKEN: flag(),
  /**
   * Export traces over OTLP/HTTP to this collector (`http://collector:4318`); the other standard
   * variables (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`,
   * `OTEL_TRACES_SAMPLER_ARG`) apply too. Unset, nothing of OpenTelemetry is loaded.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ message: 'must be an http(s) URL' }).optional(),
  /** The `service.name` of the gateway's traces. @default docs-graphql-gateway */
  OTEL_SERVICE_NAME: z.string().min(1).default('docs-graphql-gateway'),
  /**
   * Port of a server of its own for `GET /metrics` (Prometheus text), on `HOST`; unset, the metrics
   * are served at `/metrics` on the gateway's port.
   */
  METRICS_PORT: port.optional(),
  /** Log level of both servers: fatal, error, warn, info, debug, silent. @default info */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent']).default('info'),
});

export type Config = z.infer<typeof configSchema>;

/** The gateway's limits as the settings give them. */
export function limitsFromConfig(config: Config): GatewayLimits {
  return {
    maxRequestBytes: config.MAX_REQUEST_BYTES,
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    maxTokens: config.MAX_QUERY_TOKENS,
    maxNodes: config.MAX_QUERY_NODES,
    maxDepth: config.MAX_QUERY_DEPTH,
    maxAliases: config.MAX_QUERY_ALIASES,
    maxRootFields: config.MAX_ROOT_FIELDS,
    maxUpstreamRequests: config.MAX_UPSTREAM_REQUESTS,
    maxResponseBytes: config.MAX_RESPONSE_BYTES,
    maxBatchOperations: config.MAX_BATCH_OPERATIONS,
  };
}

/** Parses the environment; throws one readable error naming every bad setting. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/** The settings of a command (`npm start`, `npm run cluster`): a bad one ends it with its message and code 2. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}
