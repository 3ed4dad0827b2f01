import { join } from 'node:path';
import { loadConfig, type Config } from '../config.js';
import type { ChildMessage } from '../supervisor.js';
import { DEMO_TEMPLATE_FILE } from './demo-template.js';
import { startPlatform, type RunningPlatform, type StartPlatformOptions } from './server.js';

/**
 * The embedded platform's process: started by `npm start` (src/main.ts supervises it and talks
 * to it over IPC) or alone by `npm run platform`. Its settings come from the environment.
 */
const supervised = typeof process.send === 'function';

const config = await (async () => {
  try {
    return loadConfig();
  } catch (error) {
    return fail((error as Error).message, 2);
  }
})();

/** The platform's options as the settings give them. */
function platformOptions(config: Config): StartPlatformOptions {
  // Under the gateway, a line per request only at `debug`; alone, Fastify's levels as they are.
  const requestLogs = supervised ? config.LOG_LEVEL === 'debug' : config.LOG_LEVEL !== 'silent';
  return {
    dataDir: config.DATA_DIR,
    seed: config.PLATFORM_DEMO_DATA,
    demoTemplate: DEMO_TEMPLATE_FILE,
    host: config.PLATFORM_HOST,
    port: config.PLATFORM_PORT,
    delayMs: config.PLATFORM_DELAY_MS,
    cacheMb: config.PLATFORM_CACHE_MB,
    allowPrivateUrls: config.PLATFORM_ALLOW_PRIVATE_URLS,
    eventReceivers: config.PLATFORM_EVENT_RECEIVERS ?? [],
    gitAllowLocal: config.GIT_ALLOW_LOCAL,
    gitCaFile: config.GIT_SSL_CA_FILE,
    gitAuthor: { name: config.GIT_AUTHOR_NAME, email: config.GIT_AUTHOR_EMAIL },
    translatorUrl: config.TRANSLATOR_URL,
    translatorApiKey: config.TRANSLATOR_API_KEY,
    openapiRefreshHours: config.OPENAPI_REFRESH_HOURS,
    deliveryTimeoutMs: config.INTEGRATION_DELIVERY_TIMEOUT_MS,
    deliveryRetryBaseMs: config.INTEGRATION_DELIVERY_RETRY_BASE_MS,
    importBudgets: {
      maxPages: config.IMPORT_MAX_PAGES,
      maxBytes: config.IMPORT_MAX_BYTES,
      timeoutMs: config.IMPORT_TIMEOUT_MS,
    },
    auditRetentionDays: config.AUDIT_RETENTION_DAYS,
    logger: requestLogs ? { level: config.LOG_LEVEL } : false,
  };
}

/** Reports a start that failed (to the supervisor, or on standard error) and exits. */
async function fail(reason: string, exitCode = 1): Promise<never> {
  if (supervised) {
    // Exiting at once could drop the message: the exit waits for it to be sent.
    await new Promise((resolve) => process.send!({ type: 'failed', reason } satisfies ChildMessage, resolve));
  } else {
    console.error(reason);
  }
  process.exit(exitCode);
}

/** A readable reason instead of a stack when the port is taken or refused. */
function startFailure(error: unknown): string {
  const code = (error as { code?: string }).code;
  const port = config.PLATFORM_PORT;
  if (code === 'EADDRINUSE')
    return `Cannot start the embedded platform: port ${port} is already in use. Choose another port with PLATFORM_PORT.`;
  if (code === 'EACCES')
    return `Cannot start the embedded platform: port ${port} is not allowed. Choose another port with PLATFORM_PORT.`;
  return `Cannot start the embedded platform: ${(error as Error)?.message ?? String(error)}`;
}

let platform: RunningPlatform | undefined;
let closing = false;
/** Closes the server and the database (the WAL is checkpointed), within 5 s, then exits. */
function shutdown(): void {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(0), 5_000).unref();
  void (platform?.close() ?? Promise.resolve()).finally(() => process.exit(0));
}

// Set before the start, which may take a while (a first seed): an end meanwhile exits at once
// (SQLite's transactions are atomic, and a seed is one transaction).
process.once('SIGTERM', shutdown);
if (supervised) {
  // The gateway decides when this process ends: a Ctrl-C reaches both, and the gateway stops it.
  process.on('SIGINT', () => {});
  // The channel closes when the gateway ends, however it ends (kill -9, a crash): never outlive it.
  process.once('disconnect', shutdown);
  // It may have closed while the modules were loading, before anyone listened.
  if (!process.connected) shutdown();
} else {
  process.once('SIGINT', shutdown);
}

try {
  platform = await startPlatform(platformOptions(config));
} catch (error) {
  platform = await fail(startFailure(error));
}

const seeded = Object.keys(platform.tokens).length > 0;
const demoTokensFile = seeded ? join(config.DATA_DIR, 'demo-tokens.json') : undefined;
if (supervised) {
  process.send!({
    type: 'ready',
    url: platform.url,
    ...(seeded ? { demoTokens: platform.tokens, demoTokensFile } : {}),
  } satisfies ChildMessage);
} else {
  console.log(`Platform API on ${platform.url}`);
  if (demoTokensFile) console.log(`Demo tokens (the first is an admin of every demo organization): ${demoTokensFile}`);
}
