import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg } from '../fixtures/org.js';

let g: TestGateway;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  addOrg(g.platform, { id: 'north', members: { alice: 'admin', bob: 'read' } });
});
afterAll(() => g.destroy());

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

describe('apiInfo (GET /v1/, getApiInformation)', () => {
  it('answers the platform’s release and build date in one request, for any member', async () => {
    for (const token of [undefined, await tokenOf('bob')]) {
      const result = await g.gql('{ apiInfo { version build } }', {}, token ? { token } : {});
      expect(result.errors).toBeUndefined();
      expect(result.data.apiInfo.version).toBe(PACKAGE_VERSION);
      expect(new Date(result.data.apiInfo.build).toISOString()).toBe(result.data.apiInfo.build);
      expect(result.upstreamRequests).toEqual(['GET /v1/']);
    }
  });

  it('needs a token, as every other read', async () => {
    const result = await g.gql('{ apiInfo { version } }', {}, { token: null });
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(result.data).toBeNull();
    const answer = await g.platform.api('GET', '/', { token: '' });
    expect(answer.status).toBe(401);
  });
});

async function tokenOf(key: string): Promise<string> {
  return g.platform.db
    .prepare('SELECT token FROM api_tokens WHERE user_id = ? ORDER BY created_at DESC LIMIT 1')
    .pluck(true)
    .get(`user-${key}`) as string;
}
