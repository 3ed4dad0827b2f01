import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/app.js';
import { openDatabase } from '../../src/platform/store/db.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
let origin: string;

beforeAll(async () => {
  p = await startTestPlatform();
  origin = new URL(p.url).origin;
});
afterAll(async () => {
  await p?.destroy();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${origin}${path}`, { headers });
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as unknown) : undefined,
    cacheControl: response.headers.get('cache-control'),
  };
}

describe('health checks', () => {
  it('answer without a token, or with a bad one, outside /v1', async () => {
    expect(await get('/health')).toEqual({ status: 200, body: { status: 'ok' }, cacheControl: 'no-store' });
    expect(await get('/ready')).toEqual({ status: 200, body: { status: 'ready' }, cacheControl: 'no-store' });
    expect((await get('/health', { authorization: 'Bearer revoked' })).status).toBe(200);
    expect((await get('/ready', { authorization: 'Basic x' })).status).toBe(200);
    expect((await get('/health/?probe=1')).status).toBe(200);
    const head = await fetch(`${origin}/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    // Not API routes: under /v1 they do not exist, and the API still wants a token.
    expect(await get('/v1/health', { authorization: `Bearer ${p.adminToken}` })).toMatchObject({
      status: 404,
      body: { error: { code: 404 } },
    });
    expect(await get('/v1/user')).toMatchObject({ status: 401, body: { error: { code: 401 } } });
  });

  it('do not count in the stats of API requests', async () => {
    p.app.stats.reset();
    await get('/health');
    await get('/ready');
    await get('/health/');
    await get('/ready?x=1');
    expect(p.app.stats.count).toBe(0);
    expect(p.app.stats.requests).toEqual([]);
    await p.api('GET', '/user');
    expect(p.app.stats.count).toBe(1);
    expect(p.app.stats.requests).toEqual(['GET /v1/user']);
  });

  it('/ready answers 503 saying why when the database does not answer, /health still 200', async () => {
    const db = openDatabase({ file: ':memory:' });
    const app = createPlatform({ db });
    try {
      expect((await app.inject({ method: 'GET', url: '/ready' })).json()).toEqual({ status: 'ready' });
      db.close();
      const down = await app.inject({ method: 'GET', url: '/ready' });
      expect(down.statusCode).toBe(503);
      expect(down.json()).toEqual({
        error: { code: 503, message: 'Not ready: the database does not answer (The database connection is not open)' },
      });
      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(200);
      expect(health.json()).toEqual({ status: 'ok' });
    } finally {
      await app.close();
      if (db.open) db.close();
    }
  });
});
