import { DEFAULT_CACHE_MB, setCacheBudget } from './cache.js';
import { catchUpSearchIndex } from './content/current.js';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { seedDemoRepository } from './git/demo.js';
import { loadDemoRepository } from './demo-content/load.js';
import { createPlatform, DEFAULT_GIT_AUTHOR, type CreatePlatformOptions } from './app.js';
import { isSeeded, seedDemoData, type DemoTokens } from './demo-data.js';
import { placeDemoRepository, placeDemoTemplate } from './demo-template.js';
import { openDatabase, type Db } from './store/db.js';

export interface StartPlatformOptions {
  /** Folder of the SQLite file (`platform.sqlite`) and of `demo-tokens.json`. */
  dataDir: string;
  /** @default 127.0.0.1 */
  host?: string;
  /** 0 picks a free port. @default 4010 */
  port?: number;
  /** Seed the demo data set when the database has never been seeded. @default true */
  seed?: boolean;
  /**
   * A seeded database to start from when `dataDir` holds none (see `demo-template.ts`); without
   * one, or when it is missing, the demo data set is seeded in place.
   */
  demoTemplate?: string;
  /** Delay before each request is handled, in milliseconds. @default 0 */
  delayMs?: number;
  /** @default false */
  logger?: FastifyServerOptions['logger'];
  /** See `CreatePlatformOptions.allowPrivateUrls`. @default false */
  allowPrivateUrls?: boolean;
  /** See `CreatePlatformOptions.eventReceivers`. @default [] */
  eventReceivers?: readonly string[];
  /** See `CreatePlatformOptions.gitAllowLocal`. @default false */
  gitAllowLocal?: boolean;
  /** See `CreatePlatformOptions.gitAuthor`. */
  gitAuthor?: { name: string; email: string };
  /** See `CreatePlatformOptions.gitCaFile`. */
  gitCaFile?: string | undefined;
  /** See `CreatePlatformOptions.translatorUrl`. */
  translatorUrl?: string | undefined;
  /** See `CreatePlatformOptions.translatorApiKey`. */
  translatorApiKey?: string | undefined;
  /** See `CreatePlatformOptions.translatorTimeoutMs`. */
  translatorTimeoutMs?: number | undefined;
  /** See `CreatePlatformOptions.openapiRefreshHours`. @default 6 */
  openapiRefreshHours?: number;
  /** See `CreatePlatformOptions.openapiFetchTimeoutMs`. @default 30000 */
  openapiFetchTimeoutMs?: number;
  /** See `CreatePlatformOptions.deliveryTimeoutMs`. @default 10000 */
  deliveryTimeoutMs?: number;
  /** See `CreatePlatformOptions.deliveryRetryBaseMs`. @default 2000 */
  deliveryRetryBaseMs?: number;
  /** See `CreatePlatformOptions.onAnswer`. */
  onAnswer?: CreatePlatformOptions['onAnswer'];
  /** See `CreatePlatformOptions.dnsServer`. */
  dnsServer?: string | undefined;
  /** See `CreatePlatformOptions.hostingTarget`. */
  hostingTarget?: string | undefined;
  /** See `CreatePlatformOptions.importBudgets`. */
  importBudgets?: CreatePlatformOptions['importBudgets'];
  /** See `CreatePlatformOptions.auditRetentionDays`. @default 365 */
  auditRetentionDays?: number;
  /** MiB the platform's cache keeps (`cache.ts`). @default 48 */
  cacheMb?: number;
}

export interface RunningPlatform {
  app: FastifyInstance;
  db: Db;
  /** Base URL of the API, ending in `/v1`. */
  url: string;
  /** Demo tokens by e-mail (empty when not seeded). The first is an admin of every demo organization. */
  tokens: DemoTokens;
  close(): Promise<void>;
}

/** Opens (or creates) the database in `dataDir`, seeds it once, and listens. */
export async function startPlatform(options: StartPlatformOptions): Promise<RunningPlatform> {
  mkdirSync(options.dataDir, { recursive: true });
  setCacheBudget(options.cacheMb ?? DEFAULT_CACHE_MB);
  const databaseFile = join(options.dataDir, 'platform.sqlite');
  const seed = options.seed !== false;
  const fromTemplate =
    seed && options.demoTemplate !== undefined && placeDemoTemplate(databaseFile, options.demoTemplate);
  const db = openDatabase({ file: databaseFile });
  // A template's data is as new to this folder as a seed: its repository is made here.
  const freshSeed = fromTemplate || (seed && !isSeeded(db));
  const tokens = seed ? seedDemoData(db) : {};
  catchUpSearchIndex(db);
  if (Object.keys(tokens).length > 0) {
    writeFileSync(join(options.dataDir, 'demo-tokens.json'), `${JSON.stringify(tokens, null, 2)}\n`, { mode: 0o600 });
  }
  // The demo handbook lives in a local repository too: a copy of the template's, when its commits have this
  // platform's author; otherwise made here. Without git, it keeps its example remote.
  const author = options.gitAuthor ?? DEFAULT_GIT_AUTHOR;
  if (freshSeed && !(fromTemplate && placeDemoRepository(db, options.dataDir, author, options.demoTemplate))) {
    await seedDemoRepository(db, options.dataDir, author, loadDemoRepository()).catch((error: unknown) => {
      process.emitWarning(`The demo Git repository was not created: ${(error as Error).message}`);
    });
  }
  const app = createPlatform({
    db,
    delayMs: options.delayMs ?? 0,
    logger: options.logger ?? false,
    allowPrivateUrls: options.allowPrivateUrls ?? false,
    eventReceivers: options.eventReceivers ?? [],
    gitAllowLocal: options.gitAllowLocal ?? false,
    ...(options.gitAuthor ? { gitAuthor: options.gitAuthor } : {}),
    gitCaFile: options.gitCaFile,
    translatorUrl: options.translatorUrl,
    translatorApiKey: options.translatorApiKey,
    translatorTimeoutMs: options.translatorTimeoutMs,
    ...(options.openapiRefreshHours !== undefined ? { openapiRefreshHours: options.openapiRefreshHours } : {}),
    ...(options.openapiFetchTimeoutMs !== undefined ? { openapiFetchTimeoutMs: options.openapiFetchTimeoutMs } : {}),
    ...(options.deliveryTimeoutMs !== undefined ? { deliveryTimeoutMs: options.deliveryTimeoutMs } : {}),
    ...(options.deliveryRetryBaseMs !== undefined ? { deliveryRetryBaseMs: options.deliveryRetryBaseMs } : {}),
    onAnswer: options.onAnswer,
    dnsServer: options.dnsServer,
    hostingTarget: options.hostingTarget,
    importBudgets: options.importBudgets,
    ...(options.auditRetentionDays !== undefined ? { auditRetentionDays: options.auditRetentionDays } : {}),
  });
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 4010 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    app,
    db,
    url: `http://${urlHost}:${port}/v1`,
    tokens,
    async close() {
      await app.close();
      db.close();
    },
  };
}
