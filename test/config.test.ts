import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      PORT: 4000,
      HOST: '127.0.0.1',
      UPSTREAM_TIMEOUT_MS: 10_000,
      UPSTREAM_CONNECTIONS: 64,
      PLATFORM_PORT: 4010,
      PLATFORM_HOST: '127.0.0.1',
      PLATFORM_DELAY_MS: 0,
      DATA_DIR: '.data',
      LOG_LEVEL: 'info',
    });
  });

  it('reads every setting and treats empty values as unset', () => {
    const config = loadConfig({ PORT: '8080', UPSTREAM_URL: 'https://api.example.test/v1', LOG_LEVEL: 'debug', HOST: '' });
    expect(config).toMatchObject({ PORT: 8080, UPSTREAM_URL: 'https://api.example.test/v1', LOG_LEVEL: 'debug', HOST: '127.0.0.1' });
  });

  it('names every bad setting in one error', () => {
    expect(() => loadConfig({ PORT: 'abc', UPSTREAM_URL: 'ftp://x/v2', LOG_LEVEL: 'loud' })).toThrow(
      /PORT: must be a port number from 0 to 65535[\s\S]*UPSTREAM_URL: UPSTREAM_URL must be an absolute http\(s\) URL ending in \/v1[\s\S]*LOG_LEVEL/,
    );
  });
});
