import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitsFromConfig, loadConfigOrExit } from '../config.js';
import { type ChildMessage, demoAdminToken, type ProcessStatus, type UpstreamMessage } from '../supervisor.js';
import { redactSecrets } from './errors.js';
import { readManifest } from './policy/manifest.js';

/**
 * The gateway's process: run by `npm start` (src/main.ts supervises it, restarts it when it dies,
 * and tells it over IPC where the embedded platform is and how its process is doing) and by each
 * replica of `npm run cluster`. With `UPSTREAM_URL` it needs no supervisor: `node
 * dist/gateway/main.js` serves alone, and prints its start-up lines itself.
 */
const config = loadConfigOrExit();
// Run by a supervisor (an IPC channel to it): it prints the start-up lines and decides when this process ends.
const supervised = typeof process.send === 'function';

let stopping = false;
/** What a signal does: until the gateway serves, nothing is left to finish. */
let stop: () => Promise<void> = async () => process.exit(0);
// A Ctrl-C reaches every process of the terminal: a supervised gateway waits for its supervisor's SIGTERM.
for (const signal of supervised ? (['SIGTERM'] as const) : (['SIGINT', 'SIGTERM'] as const)) {
  process.on(signal, () => {
    if (stopping) {
      // A second signal while stopping (Ctrl+C again) stops at once. A supervised gateway leaves
      // that to its supervisor (which kills it): its second SIGTERM is that of the supervisor
      // stopping it, after a signal to the whole process group.
      if (!supervised) process.exit(1);
      return;
    }
    stopping = true;
    void stop();
  });
}
if (supervised) {
  process.on('SIGINT', () => {});
  // The channel closes when the supervisor ends, however it ends (kill -9, a crash): never outlive it.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** Ends the start with a readable line instead of a stack when a port is taken or refused. */
async function failStart(port: number, error: unknown, setting = 'PORT'): Promise<never> {
  const code = (error as { code?: string }).code;
  const reason =
    code === 'EADDRINUSE'
      ? `port ${port} is already in use`
      : code === 'EACCES'
        ? `port ${port} is not allowed`
        : redactSecrets(String(error));
  return fail(`Cannot start the gateway: ${reason}. Choose another port with ${setting}.`);
}

/** Reports a start that failed (to the supervisor, which prints it once, or on standard error) and exits 1. */
async function fail(reason: string): Promise<never> {
  if (supervised && process.connected) {
    // Exiting at once could drop the message: the exit waits for it to be sent.
    await new Promise((resolve) => process.send!({ type: 'failed', reason } satisfies ChildMessage, resolve));
  } else {
    console.error(reason);
  }
  process.exit(1);
}

const quiet = config.LOG_LEVEL === 'silent';
// Read before anything starts: a bad manifest stops the start with a message naming it.
const persistedManifest = config.PERSISTED_OPERATIONS_FILE
  ? await readManifestOrExit(config.PERSISTED_OPERATIONS_FILE)
  : undefined;

// Loading the gateway's modules (the schema is built as they load) takes about half a second: under
// `npm start` it happens while the embedded platform's process starts, on the other core.
const gatewayModules = Promise.all([
  import('./http/server.js'),
  import('./http/websocket.js'),
  import('./http/drain.js'),
  import('pino'),
]);

/** The embedded platform's process as `npm start`'s supervisor last told it (none with `UPSTREAM_URL`). */
let platformStatus: ProcessStatus | undefined;
/** What to do each time a platform process is ready again (set once the gateway exists). */
let onPlatformReady: () => void = () => {};

/**
 * The embedded platform's URL and demo tokens, from the supervisor, which answers once the
 * platform is ready; its later messages follow the platform's process.
 */
function embeddedPlatform(): Promise<Extract<UpstreamMessage, { type: 'upstream' }>> {
  return new Promise((resolve) => {
    let first = true;
    process.on('message', (message: UpstreamMessage) => {
      if (message?.type !== 'upstream' && message?.type !== 'upstream-status') return;
      platformStatus = message.process;
      if (message.type !== 'upstream') return;
      if (first) resolve(message);
      else onPlatformReady();
      first = false;
    });
    process.send!({ type: 'waiting' } satisfies ChildMessage);
  });
}

if (!config.UPSTREAM_URL && !supervised)
  await fail('Cannot start the gateway: UPSTREAM_URL is unset. `npm start` runs it with the embedded platform.');
const ready = config.UPSTREAM_URL ? undefined : await embeddedPlatform();
const upstreamUrl = config.UPSTREAM_URL ?? ready!.url;
const supervisor = ready ? { status: () => platformStatus! } : undefined;

// pino is CommonJS: its `default` is the function, however the module is loaded (bundled or not).
const [{ createGateway }, { serveWebSockets }, { trackInFlight }, { default: pino }] = await gatewayModules;
/** Unexpected errors, the shared state's comings and goings and the registration for events, as LOG_LEVEL says. */
const logger = {
  error: ['fatal', 'silent'].includes(config.LOG_LEVEL) ? () => {} : console.error,
  info: ['debug', 'info'].includes(config.LOG_LEVEL) ? console.info : () => {},
};
const tracing =
  config.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? await startTracing()
    : undefined;
const gateway = createGateway({
  ...(tracing ? { tracing: tracing.plugin } : {}),
  upstreamUrl,
  clientOptions: {
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    connections: config.UPSTREAM_CONNECTIONS,
    // Invalid upstream answers are warnings: shown at LOG_LEVEL warn and below.
    logger: ['debug', 'info', 'warn'].includes(config.LOG_LEVEL) ? console : { warn: () => {} },
  },
  resilience: {
    breakerThreshold: config.UPSTREAM_BREAKER_THRESHOLD,
    breakerCooldownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
  },
  upstreamDedupe: config.UPSTREAM_DEDUPE,
  limits: limitsFromConfig(config),
  logger,
  metricsOnMainPort: config.METRICS_PORT === undefined,
  ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  ...(config.RESPONSE_CACHE_TTL_MS
    ? { responseCache: { ttlMs: config.RESPONSE_CACHE_TTL_MS, maxBytes: config.RESPONSE_CACHE_MB * 1024 * 1024 } }
    : {}),
  subscriptions: {
    pollMs: config.SUBSCRIPTION_POLL_MS,
    pushedPollMs: config.SUBSCRIPTION_PUSHED_POLL_MS,
    maxSubscriptions: config.MAX_SUBSCRIPTIONS,
    maxPerCaller: config.MAX_SUBSCRIPTIONS_PER_CALLER,
  },
  connections: { maxPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS, idleMs: config.CONNECTION_IDLE_TIMEOUT_MS },
  trustedProxies: config.TRUSTED_PROXIES,
  corsOrigins: config.CORS_ORIGINS ?? [],
  csrfPrevention: config.CSRF_PREVENTION,
  introspectionRequiresToken: config.INTROSPECTION_REQUIRES_TOKEN,
  rateLimits: {
    points: config.RATE_LIMIT_POINTS,
    windowMs: config.RATE_LIMIT_WINDOW_S * 1000,
    failOpen: config.RATE_LIMIT_FAIL_OPEN,
  },
  persistedOperations: {
    persistedOnly: config.PERSISTED_ONLY,
    maxBytes: config.PERSISTED_QUERIES_MB * 1024 * 1024,
    maxDocumentBytes: config.MAX_PERSISTED_QUERY_BYTES,
    ...(persistedManifest ? { manifest: persistedManifest } : {}),
  },
  // One JSON line per operation on stdout, at LOG_LEVEL info and below.
  operationLog: pino({ level: config.LOG_LEVEL }),
  ...(supervisor ? { upstreamProcess: () => supervisor.status() } : {}),
  // The demo users' tokens, only from the embedded platform (never with UPSTREAM_URL): the gateway
  // offers them in GraphiQL to a browser on this machine only.
  graphiql: { enabled: true, ...(ready?.demoTokens ? { demoTokens: ready.demoTokens } : {}) },
});

// A new process serves: requests need not wait for the breaker's cool-down to find it out; its
// installations (a database reset since) are read again.
onPlatformReady = () => {
  gateway.breaker.reset();
  void events?.register({ publish: true });
};

const server = createServer(gateway.handle);
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.PORT, config.HOST, resolve);
}).catch((error: unknown) => failStart(config.PORT, error));
// GraphQL over WebSocket (graphql-transport-ws) on the same port and path; attached once the port is
// the gateway's, so that a port taken ends the start with one line, not the WebSocket server's error too.
const webSockets = serveWebSockets(server, gateway, {
  maxPerConnection: config.MAX_SUBSCRIPTIONS_PER_CONNECTION,
  initTimeoutMs: config.WEBSOCKET_INIT_TIMEOUT_MS,
  pingMs: config.WEBSOCKET_PING_MS,
});

const metricsServer = config.METRICS_PORT === undefined ? undefined : await serveMetrics(config.METRICS_PORT);
const { port: servedPort } = server.address() as AddressInfo;

const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
if (!quiet && !supervised) {
  // The port the server got (PORT=0 asks the system for a free one).
  console.log(`GraphQL gateway: http://${host}:${servedPort}/graphql (GraphiQL in a browser)`);
  console.log(`Upstream REST API: ${redactSecrets(upstreamUrl)}`);
}

// The supervisor waits for this message: it prints the start-up lines, and restarts this process on that port.
if (supervised) process.send!({ type: 'ready', url: `http://${host}:${servedPort}` } satisfies ChildMessage);

// The platform's events, once the receiver listens (see `EventRegistrar`).
const eventsToken = config.UPSTREAM_EVENTS_TOKEN ?? demoAdminToken(ready?.demoTokens);
const events =
  config.UPSTREAM_EVENTS_URL && eventsToken
    ? new (await import('./live/event-registrar.js')).EventRegistrar(gateway, {
        token: eventsToken,
        receiverUrl: config.UPSTREAM_EVENTS_URL,
        integration: config.UPSTREAM_EVENTS_INTEGRATION,
        pollMs: config.SUBSCRIPTION_POLL_MS,
        logger,
      })
    : undefined;
void events?.register();

const inFlight = trackInFlight(server);
/** How long a stopping gateway waits for a balancer to stop sending before it closes its port. */
const QUIET_BEFORE_CLOSE_MS = 1_000;
stop = drainAndExit;

/**
 * Stops as a replica behind a balancer should: `/ready` answers 503, the port accepts no more
 * connections (a balancer's retry sends those elsewhere), subscriptions end with a SHUTTING_DOWN
 * event, and the operations under way get `SHUTDOWN_TIMEOUT_MS` to finish before what is left is
 * closed. Then this process exits 0 (and `npm start`'s supervisor stops the platform's).
 */
async function drainAndExit(): Promise<void> {
  if (['debug', 'info'].includes(config.LOG_LEVEL))
    console.log(`Stopping: finishing ${inFlight.count} request(s) in flight…`);
  const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
  gateway.drain();
  // A connection a balancer opened just as the port closed would be reset under its request, and a
  // POST is not retried: the port closes once the balancer, seeing /ready 503, sent nothing for a
  // second (its health checks every 500 ms, out after 2 failures), or at once without traffic.
  await inFlight.quiet(QUIET_BEFORE_CLOSE_MS, Math.min(QUIET_BEFORE_CLOSE_MS * 3, config.SHUTDOWN_TIMEOUT_MS));
  server.close();
  await webSockets.close();
  const finished = await inFlight.idle(Math.max(0, deadline - Date.now()));
  if (!finished && !quiet)
    console.error(`Stopped after SHUTDOWN_TIMEOUT_MS (${config.SHUTDOWN_TIMEOUT_MS} ms) with requests unfinished`);
  server.closeAllConnections();
  metricsServer?.close();
  await Promise.all([gateway.close(), tracing?.shutdown()]);
  process.exit(0);
}

/** `GET /metrics` on a port of its own (`METRICS_PORT`), so that scrapes need not reach the public port. */
async function serveMetrics(port: number) {
  const metrics = createServer(gateway.metrics.listener);
  await new Promise<void>((resolve, reject) => {
    metrics.once('error', reject);
    metrics.listen(port, config.HOST, resolve);
  }).catch((error: unknown) => failStart(port, error, 'METRICS_PORT'));
  return metrics;
}

async function readManifestOrExit(file: string): Promise<Map<string, string>> {
  try {
    return readManifest(file);
  } catch (error) {
    return fail(`Cannot start the gateway: ${(error as Error).message}`);
  }
}

/** OpenTelemetry, loaded only when traces are exported. */
async function startTracing() {
  const [{ startOtlpTracing }, { useTracing }] = await Promise.all([
    import('./telemetry/otlp.js'),
    import('./telemetry/tracing.js'),
  ]);
  const { tracer, shutdown } = startOtlpTracing();
  return { plugin: useTracing(tracer), shutdown };
}
