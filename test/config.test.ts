import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema, limitsFromConfig, loadConfig } from '../src/config.js';
import { DEFAULT_LIMITS } from '../src/gateway/policy/limits.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      PORT: 4000,
      HOST: '127.0.0.1',
      UPSTREAM_TIMEOUT_MS: 10_000,
      UPSTREAM_BREAKER_THRESHOLD: 5,
      UPSTREAM_BREAKER_COOLDOWN_MS: 5_000,
      UPSTREAM_CONNECTIONS: 64,
      UPSTREAM_DEDUPE: true,
      UPSTREAM_EVENTS_INTEGRATION: 'graphql-gateway',
      PLATFORM_PORT: 4010,
      PLATFORM_HOST: '127.0.0.1',
      PLATFORM_HEAP_MB: 256,
      GATEWAY_HEAP_MB: 192,
      PLATFORM_DELAY_MS: 0,
      PLATFORM_CACHE_MB: 48,
      PLATFORM_DEMO_DATA: true,
      OTEL_SERVICE_NAME: 'docs-graphql-gateway',
      PERSISTED_ONLY: false,
      INTROSPECTION_REQUIRES_TOKEN: false,
      PLATFORM_ALLOW_PRIVATE_URLS: false,
      GIT_ALLOW_LOCAL: false,
      GIT_AUTHOR_NAME: 'Docs platform',
      GIT_AUTHOR_EMAIL: 'docs-platform@localhost',
      OPENAPI_REFRESH_HOURS: 6,
      INTEGRATION_DELIVERY_TIMEOUT_MS: 10_000,
      INTEGRATION_DELIVERY_RETRY_BASE_MS: 2_000,
      IMPORT_MAX_PAGES: 100,
      IMPORT_MAX_BYTES: 20_971_520,
      IMPORT_TIMEOUT_MS: 120_000,
      AUDIT_RETENTION_DAYS: 365,
      DATA_DIR: '.data',
      LOG_LEVEL: 'info',
      MAX_BATCH_OPERATIONS: 10,
      MAX_REQUEST_BYTES: 1_048_576,
      MAX_UPLOAD_BYTES: 10_551_296,
      MAX_QUERY_TOKENS: 10_000,
      MAX_QUERY_NODES: 500_000,
      MAX_QUERY_DEPTH: 15,
      MAX_QUERY_ALIASES: 100,
      MAX_ROOT_FIELDS: 50,
      MAX_UPSTREAM_REQUESTS: 1000,
      SUBSCRIPTION_POLL_MS: 2000,
      SUBSCRIPTION_PUSHED_POLL_MS: 30_000,
      MAX_SUBSCRIPTIONS: 10000,
      MAX_SUBSCRIPTIONS_PER_CALLER: 1000,
      MAX_SUBSCRIPTIONS_PER_CONNECTION: 100,
      MAX_CONNECTIONS_PER_ADDRESS: 100,
      CONNECTION_IDLE_TIMEOUT_MS: 60_000,
      WEBSOCKET_INIT_TIMEOUT_MS: 3_000,
      WEBSOCKET_PING_MS: 12_000,
      RATE_LIMIT_POINTS: 5000,
      RATE_LIMIT_WINDOW_S: 3600,
      RATE_LIMIT_FAIL_OPEN: true,
      SHUTDOWN_TIMEOUT_MS: 10_000,
      TRUSTED_PROXIES: 0,
      CSRF_PREVENTION: true,
      CLUSTER_REPLICAS: 3,
      CLUSTER_BASE_PORT: 0,
      REDIS_PORT: 0,
      MAX_RESPONSE_BYTES: 8_388_608,
      RESPONSE_CACHE_MB: 32,
      PERSISTED_QUERIES_MB: 8,
      MAX_PERSISTED_QUERY_BYTES: 131_072,
    });
    expect(limitsFromConfig(loadConfig({}))).toEqual(DEFAULT_LIMITS);
  });

  it('reads every setting and treats empty values as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      UPSTREAM_URL: 'https://api.example.test/v1',
      LOG_LEVEL: 'debug',
      HOST: '',
      OPENAPI_REFRESH_HOURS: '0.5',
      CORS_ORIGINS: 'https://App.example.test/, http://localhost:3000,https://app.example.test',
      PLATFORM_EVENT_RECEIVERS:
        'http://127.0.0.1:4000/platform-events, HTTP://127.0.0.1:4000/platform-events,https://10.0.0.5/in?key=1',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      UPSTREAM_URL: 'https://api.example.test/v1',
      LOG_LEVEL: 'debug',
      HOST: '127.0.0.1',
      OPENAPI_REFRESH_HOURS: 0.5,
      // Origins as browsers write them, once each.
      CORS_ORIGINS: ['https://app.example.test', 'http://localhost:3000'],
      // As the platform compares them (parsed), once each, query kept.
      PLATFORM_EVENT_RECEIVERS: ['http://127.0.0.1:4000/platform-events', 'https://10.0.0.5/in?key=1'],
    });
  });

  it('names every bad setting in one error', () => {
    expect(() => loadConfig({ PORT: 'abc', UPSTREAM_URL: 'ftp://x/v2', LOG_LEVEL: 'loud' })).toThrow(
      /PORT: must be a port number from 0 to 65535[\s\S]*UPSTREAM_URL: UPSTREAM_URL must be an absolute http\(s\) URL ending in \/v1[\s\S]*LOG_LEVEL/,
    );
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: '0' })).toThrow(/AUDIT_RETENTION_DAYS: must be at least 1/);
    // An origin is all CORS_ORIGINS takes: no wildcard, path or credentials (never repeated).
    for (const [value, shown] of [
      ['*', '*'],
      ['https://app.example.test/api', 'https://app.example.test/api'],
      ['https://app.example.test,null', 'null'],
      ['https://user:secret@app.example.test', 'https://***@app.example.test'],
    ])
      expect(() => loadConfig({ CORS_ORIGINS: value }), value).toThrow(
        `CORS_ORIGINS: "${shown}" is not an origin: write each as scheme://host[:port], such as https://app.example.com`,
      );
    // A receiver is an absolute http(s) URL on an IP address or localhost, without credentials (never repeated) or fragment.
    for (const [value, shown] of [
      ['/platform-events', '/platform-events'],
      ['ftp://127.0.0.1/events', 'ftp://127.0.0.1/events'],
      ['http://127.0.0.1:4000/events#top', 'http://127.0.0.1:4000/events#top'],
      ['http://127.0.0.1:4000/events,', ''],
      ['http://user:secret@127.0.0.1:4000/events', 'http://***@127.0.0.1:4000/events'],
      ['http://gateway.internal:4000/events', 'http://gateway.internal:4000/events'],
    ])
      expect(() => loadConfig({ PLATFORM_EVENT_RECEIVERS: value }), value).toThrow(
        `PLATFORM_EVENT_RECEIVERS: "${shown}" is not a receiver: write each as an absolute http or https URL on an IP address or localhost, without credentials or fragment, such as http://127.0.0.1:4000/platform-events`,
      );
  });
});

/** The rows of the README's settings table: name and default as written (`unset` for none). */
function readmeSettings(): Array<{ name: string; written: string }> {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const section = readme.split(/^## Settings$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [name = '', written = ''] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return { name: name.replaceAll('`', ''), written: written.replaceAll('`', '') };
    });
}

/** The `@default` of each setting's doc comment in `src/config.ts`. */
function documentedDefaults(): Map<string, string> {
  const source = readFileSync(new URL('../src/config.ts', import.meta.url), 'utf8');
  const defaults = new Map<string, string>();
  for (const [, comment = '', name = ''] of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*([A-Z][A-Z0-9_]*):/g)) {
    const written = /@default (.+?)\s*(?:\*\/|\n|$)/.exec(comment.replace(/\n\s*\* ?/g, '\n'))?.[1];
    if (written) defaults.set(name, written);
  }
  return defaults;
}

describe("the README's settings table", () => {
  const rows = readmeSettings();
  const names = Object.keys(configSchema.shape);

  it('lists every setting of src/config.ts once', () => {
    expect(rows.map((row) => row.name).sort()).toEqual([...names].sort());
  });

  it('gives each setting the default src/config.ts applies and documents', () => {
    const applied = loadConfig({}) as Record<string, unknown>;
    const documented = documentedDefaults();
    const shape = configSchema.shape as Record<string, { parse: (value: unknown) => unknown }>;
    for (const { name, written } of rows) {
      if (written === 'unset') {
        expect(applied[name], name).toBeUndefined();
        expect(documented.has(name), name).toBe(false);
      } else {
        expect(shape[name]?.parse(written), name).toEqual(applied[name]);
        expect(documented.get(name), name).toBe(written);
      }
    }
  });
});
