import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { limitsFromConfig, loadConfigOrExit } from './config.js';
import { redactSecrets } from './gateway/errors.js';
import { readManifest } from './gateway/policy/manifest.js';
import { superviseEmbeddedPlatform, type ChildMessage, type ReadyMessage, type Supervisor } from './supervisor.js';

/**
 * `npm start`: the gateway on `UPSTREAM_URL`, or, when it is unset, on the embedded platform,
 * run in a process of its own (`src/platform/main.ts`) that this one supervises: restarted when
 * it ends, stopped when this one ends.
 */
const config = loadConfigOrExit();

/** Ends the start with a readable line instead of a stack when a port is taken or refused. */
function failStart(port: number, error: unknown, setting = 'PORT'): never {
  const code = (error as { code?: string }).code;
  const reason =
    code === 'EADDRINUSE'
      ? `port ${port} is already in use`
      : code === 'EACCES'
        ? `port ${port} is not allowed`
        : redactSecrets(String(error));
  console.error(`Cannot start the gateway: ${reason}. Choose another port with ${setting}.`);
  process.exit(1);
}
// A replica of `npm run cluster` (an IPC channel to its supervisor) leaves the start-up lines to the cluster.
const supervised = typeof process.send === 'function';
const quiet = config.LOG_LEVEL === 'silent' || supervised;
// Read before anything starts: a bad manifest stops the start with a message naming it.
const persistedManifest = config.PERSISTED_OPERATIONS_FILE
  ? readManifestOrExit(config.PERSISTED_OPERATIONS_FILE)
  : undefined;
// Restarts of the platform are errors: shown at every level but fatal and silent.
const logRestart = quiet || config.LOG_LEVEL === 'fatal' ? () => {} : (line: string) => console.error(line);

// Loading the gateway's modules (the schema is built as they load) takes about half a second: it
// happens while the embedded platform's process starts, on the other core.
const gatewayModules = Promise.all([
  import('./gateway/http/server.js'),
  import('./gateway/http/websocket.js'),
  import('./gateway/http/drain.js'),
  import('pino'),
]);

/** What to do each time the platform's process is ready (set once the gateway exists). */
let onPlatformReady: () => void = () => {};

let platform: Supervisor | undefined;
let ready: ReadyMessage | undefined;
let upstreamUrl = config.UPSTREAM_URL;
if (!upstreamUrl) {
  platform = superviseEmbeddedPlatform(config, logRestart, () => onPlatformReady());
  ready = await platform.start().catch((error: unknown) => {
    console.error(redactSecrets((error as Error).message));
    process.exit(1);
  });
  upstreamUrl = ready.url;
}

const supervisor = platform;
const [{ createGateway }, { serveWebSockets }, { trackInFlight }, { pino }] = await gatewayModules;
const tracing =
  config.OTEL_EXPORTER_OTLP_ENDPOINT || process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? await startTracing()
    : undefined;
const gateway = createGateway({
  ...(tracing ? { plugins: [tracing.plugin] } : {}),
  upstreamUrl,
  clientOptions: {
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    connections: config.UPSTREAM_CONNECTIONS,
    breakerThreshold: config.UPSTREAM_BREAKER_THRESHOLD,
    breakerCooldownMs: config.UPSTREAM_BREAKER_COOLDOWN_MS,
    // Invalid upstream answers are warnings: shown at LOG_LEVEL warn and below.
    logger: ['debug', 'info', 'warn'].includes(config.LOG_LEVEL) ? console : { warn: () => {} },
  },
  limits: limitsFromConfig(config),
  // Unexpected errors and the shared state's comings and goings, as LOG_LEVEL says.
  logger: {
    error: ['fatal', 'silent'].includes(config.LOG_LEVEL) ? () => {} : console.error,
    info: ['debug', 'info'].includes(config.LOG_LEVEL) ? console.info : () => {},
  },
  metricsOnMainPort: config.METRICS_PORT === undefined,
  ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
  ...(config.RESPONSE_CACHE_TTL_MS ? { responseCache: { ttlMs: config.RESPONSE_CACHE_TTL_MS } } : {}),
  subscriptions: {
    pollMs: config.SUBSCRIPTION_POLL_MS,
    maxSubscriptions: config.MAX_SUBSCRIPTIONS,
    maxPerCaller: config.MAX_SUBSCRIPTIONS_PER_CALLER,
  },
  trustedProxies: config.TRUSTED_PROXIES,
  rateLimits: {
    points: config.RATE_LIMIT_POINTS,
    windowMs: config.RATE_LIMIT_WINDOW_S * 1000,
    failOpen: config.RATE_LIMIT_FAIL_OPEN,
  },
  introspectionRequiresToken: config.INTROSPECTION_REQUIRES_TOKEN,
  persistedOperations: {
    persistedOnly: config.PERSISTED_ONLY,
    ...(persistedManifest ? { manifest: persistedManifest } : {}),
  },
  // One JSON line per operation on stdout, at LOG_LEVEL info and below.
  operationLog: pino({ level: config.LOG_LEVEL }),
  ...(supervisor ? { upstreamProcess: () => supervisor.status() } : {}),
  // The demo users' tokens, only from the embedded platform (never with UPSTREAM_URL): the gateway
  // offers them in GraphiQL to a browser on this machine only.
  graphiql: { enabled: true, ...(ready?.demoTokens ? { demoTokens: ready.demoTokens } : {}) },
});

// A new process serves: requests need not wait for the breaker's cool-down to find it out.
onPlatformReady = () => gateway.client.resetBreaker();

const server = createServer(gateway.handle);
// GraphQL over WebSocket (graphql-transport-ws) on the same port and path.
const webSockets = serveWebSockets(server, gateway, { maxPerConnection: config.MAX_SUBSCRIPTIONS_PER_CONNECTION });
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.PORT, config.HOST, resolve);
}).catch(async (error: unknown) => {
  await platform?.stop();
  failStart(config.PORT, error);
});

const metricsServer = config.METRICS_PORT === undefined ? undefined : await serveMetrics(config.METRICS_PORT);
const { port: servedPort } = server.address() as AddressInfo;

const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
if (!quiet) {
  // The port the server got (PORT=0 asks the system for a free one).
  console.log(`GraphQL gateway: http://${host}:${servedPort}/graphql (GraphiQL in a browser)`);
  console.log(
    `Upstream REST API: ${redactSecrets(upstreamUrl)}${platform ? ` (embedded platform, process ${platform.status().pid})` : ''}`,
  );
  // The tokens stay in their file: a start's output ends up in terminals' scrollback and logs.
  if (ready?.demoTokensFile)
    console.log(`Demo tokens (the first is an admin of every demo organization): ${ready.demoTokensFile}`);
}

// Run as a replica of `npm run cluster`, whose supervisor waits for this message and ends with its channel.
if (supervised) {
  process.send!({ type: 'ready', url: `http://${host}:${servedPort}` } satisfies ChildMessage);
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

const inFlight = trackInFlight(server);
/** How long a stopping gateway waits for a balancer to stop sending before it closes its port. */
const QUIET_BEFORE_CLOSE_MS = 1_000;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    // A second signal while stopping (Ctrl+C again) stops at once.
    if (stopping) process.exit(1);
    stopping = true;
    void stop();
  });
}

/**
 * Stops as a replica behind a balancer should: `/ready` answers 503, the port accepts no more
 * connections (a balancer's retry sends those elsewhere), subscriptions end with a SHUTTING_DOWN
 * event, and the operations under way get `SHUTDOWN_TIMEOUT_MS` to finish before what is left is
 * closed. Then the platform's process stops, and this one exits 0.
 */
async function stop(): Promise<void> {
  if (!quiet) console.log(`Stopping: finishing ${inFlight.count} request(s) in flight…`);
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
  await Promise.all([gateway.close(), platform?.stop(), tracing?.shutdown()]);
  process.exit(0);
}

/** `GET /metrics` on a port of its own (`METRICS_PORT`), so that scrapes need not reach the public port. */
async function serveMetrics(port: number) {
  const { registry } = gateway.metrics;
  const metrics = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void registry.metrics().then((text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text));
  });
  await new Promise<void>((resolve, reject) => {
    metrics.once('error', reject);
    metrics.listen(port, config.HOST, resolve);
  }).catch(async (error: unknown) => {
    await platform?.stop();
    failStart(port, error, 'METRICS_PORT');
  });
  return metrics;
}

function readManifestOrExit(file: string): Map<string, string> {
  try {
    return readManifest(file);
  } catch (error) {
    console.error(`Cannot start the gateway: ${(error as Error).message}`);
    process.exit(1);
  }
}

/** OpenTelemetry, loaded only when traces are exported. */
async function startTracing() {
  const [{ startOtlpTracing }, { useTracing }] = await Promise.all([
    import('./gateway/telemetry/otlp.js'),
    import('./gateway/telemetry/tracing.js'),
  ]);
  const { tracer, shutdown } = startOtlpTracing();
  return { plugin: useTracing(tracer), shutdown };
}
