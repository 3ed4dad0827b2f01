import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient, type Exchange } from '../../src/gateway/upstream/client.js';
import { reportExchanges } from '../../src/gateway/upstream/hooks.js';
import { criticalPath } from '../../src/gateway/upstream/critical-path.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Counts the round trips of nested queries: with a delay before every upstream answer, calls
 * that go out together overlap, and `depth` is the number of sequential waves.
 */
const DELAY_MS = 60;
let platform: TestPlatform;
let gateway: Gateway;
const exchanges: Exchange[] = [];

beforeAll(async () => {
  platform = await startTestPlatform({ delayMs: DELAY_MS });
  const client = new RestClient({
    baseUrl: platform.url,
    hooks: [reportExchanges((exchange) => exchanges.push(exchange))],
  });
  gateway = createGateway({ client, graphiql: { enabled: false } });
});
afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

async function roundTrips(query: string, variables: Record<string, unknown> = {}) {
  exchanges.length = 0;
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { errors?: unknown };
  expect(result.errors).toBeUndefined();
  return { requests: exchanges.length, depth: criticalPath(exchanges).depth };
}

describe('independent upstream calls go out together', () => {
  it('sibling root fields cost one round trip', async () => {
    expect(
      await roundTrips(
        '{ viewer { displayName } a: organization(id: "acme") { title } b: organization(id: "globex") { title } }',
      ),
    ).toEqual({
      requests: 3,
      depth: 1,
    });
  });

  it('a list and the links of its items cost one round trip per level', async () => {
    expect(
      await roundTrips(`{ organizations(first: 10) { nodes { title spaces(first: 10) { nodes { title } } } } }`),
    ).toEqual({ requests: 3, depth: 2 });
  });

  it('an organization dashboard costs three round trips whatever its number of requests', async () => {
    const result = await roundTrips(`{ organization(id: "acme") {
      members(first: 50) { nodes { user { displayName } } }
      teams(first: 20) { nodes { members(first: 20) { nodes { member { user { displayName } } } } } }
      collections(first: 50) { nodes { parent { title } } }
      spaces(first: 50) { nodes { title visibility } }
    } }`);
    expect(result).toEqual({ requests: 8, depth: 3 });
  });
});
