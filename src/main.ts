import { createServer } from 'node:http';
import { limitsFromConfig, loadConfig } from './config.js';
import { redactSecrets } from './gateway/errors.js';
import { createGateway } from './gateway/server.js';
import type { RunningPlatform } from './platform/server.js';

/**
 * `npm start`: the gateway on `UPSTREAM_URL`, or, when it is unset, on the embedded platform
 * (started here, with demo data on first start).
 */
const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
})();

function isLoopback(host: string): boolean {
  return /^127\./.test(host) || host === '::1' || host === 'localhost';
}

/** Ends the start with a readable line instead of a stack when a port is taken or refused. */
function failStart(what: string, port: number, error: unknown): never {
  const code = (error as { code?: string }).code;
  const reason =
    code === 'EADDRINUSE' ? `port ${port} is already in use` : code === 'EACCES' ? `port ${port} is not allowed` : redactSecrets(String(error));
  console.error(`Cannot start the ${what}: ${reason}. Choose another port with ${what === 'gateway' ? 'PORT' : 'PLATFORM_PORT'}.`);
  process.exit(1);
}
const quiet = config.LOG_LEVEL === 'silent';

let platform: RunningPlatform | undefined;
let upstreamUrl = config.UPSTREAM_URL;
if (!upstreamUrl) {
  // Loaded only here: a gateway in front of another API never loads Fastify or SQLite.
  const { startPlatform } = await import('./platform/server.js');
  platform = await startPlatform({
    dataDir: config.DATA_DIR,
    host: config.PLATFORM_HOST,
    port: config.PLATFORM_PORT,
    delayMs: config.PLATFORM_DELAY_MS,
    allowPrivateUrls: config.PLATFORM_ALLOW_PRIVATE_URLS,
    gitAllowLocal: config.GIT_ALLOW_LOCAL,
    gitCaFile: config.GIT_SSL_CA_FILE,
    gitAuthor: { name: config.GIT_AUTHOR_NAME, email: config.GIT_AUTHOR_EMAIL },
    translatorUrl: config.TRANSLATOR_URL,
    translatorApiKey: config.TRANSLATOR_API_KEY,
    openapiRefreshHours: config.OPENAPI_REFRESH_HOURS,
    deliveryTimeoutMs: config.INTEGRATION_DELIVERY_TIMEOUT_MS,
    deliveryRetryBaseMs: config.INTEGRATION_DELIVERY_RETRY_BASE_MS,
    logger: quiet || config.LOG_LEVEL === 'info' ? false : { level: config.LOG_LEVEL },
  }).catch((error: unknown) => failStart('embedded platform', config.PLATFORM_PORT, error));
  upstreamUrl = platform.url;
}

const [adminEmail, adminToken] = Object.entries(platform?.tokens ?? {})[0] ?? [];
const gateway = createGateway({
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
  // The page is served to anyone who can reach the gateway: prefill the admin token only when
  // that is this machine alone.
  graphiql: { enabled: true, ...(adminToken && isLoopback(config.HOST) ? { defaultToken: adminToken } : {}) },
});

const server = createServer(gateway.handle);
await new Promise<void>((resolve, reject) => {
  server.once('error', reject);
  server.listen(config.PORT, config.HOST, resolve);
}).catch((error: unknown) => failStart('gateway', config.PORT, error));

const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST;
if (!quiet) {
  console.log(`GraphQL gateway: http://${host}:${config.PORT}/graphql (GraphiQL in a browser)`);
  console.log(`Upstream REST API: ${redactSecrets(upstreamUrl)}${platform ? ' (embedded platform)' : ''}`);
  if (adminToken) {
    console.log(`Demo admin ${adminEmail} token: ${adminToken}`);
    console.log(`All demo tokens: ${config.DATA_DIR}/demo-tokens.json`);
  }
}

let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeAllConnections();
    void Promise.all([gateway.close(), platform?.close()]).then(() => process.exit(0));
  });
}
