import { loadConfig } from '../config.js';
import { startPlatform } from './server.js';

/** `npm run platform`: the embedded platform alone. */
const config = loadConfig();
const platform = await startPlatform({
  dataDir: config.DATA_DIR,
  host: config.PLATFORM_HOST,
  port: config.PLATFORM_PORT,
  delayMs: config.PLATFORM_DELAY_MS,
  cacheMb: config.PLATFORM_CACHE_MB,
  allowPrivateUrls: config.PLATFORM_ALLOW_PRIVATE_URLS,
  gitAllowLocal: config.GIT_ALLOW_LOCAL,
  gitCaFile: config.GIT_SSL_CA_FILE,
  gitAuthor: { name: config.GIT_AUTHOR_NAME, email: config.GIT_AUTHOR_EMAIL },
  translatorUrl: config.TRANSLATOR_URL,
  translatorApiKey: config.TRANSLATOR_API_KEY,
  openapiRefreshHours: config.OPENAPI_REFRESH_HOURS,
  logger: config.LOG_LEVEL === 'silent' ? false : { level: config.LOG_LEVEL },
});
const [adminEmail, adminToken] = Object.entries(platform.tokens)[0] ?? [];
console.log(`Platform API on ${platform.url}`);
if (adminToken) console.log(`Demo admin ${adminEmail}: Authorization: Bearer ${adminToken} (all demo tokens in ${config.DATA_DIR}/demo-tokens.json)`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void platform.close().then(() => process.exit(0));
  });
}
