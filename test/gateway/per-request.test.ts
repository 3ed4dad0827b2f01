import { isObjectType, parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayContext } from '../../src/gateway/context.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { schema } from '../../src/gateway/schema/index.js';
import { operationCost } from '../../src/gateway/policy/cost.js';
import { loadableByTypename, loadersOf } from '../../src/gateway/schema/kit/loaders.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * What the gateway does for one request must depend on what the operation touches, not on the
 * size of the schema: these counts stay the same when the schema gains types.
 */
let platform: TestPlatform;
let gateway: Gateway;
let lastContext: GatewayContext | undefined;

const captureContext: Plugin = {
  onExecute({ args }) {
    lastContext = args.contextValue as unknown as GatewayContext;
  },
};

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, plugins: [captureContext] });
});
afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

async function run(query: string, variables: Record<string, unknown> = {}) {
  lastContext = undefined;
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
    body: JSON.stringify({ query, variables }),
  });
  const result = (await response.json()) as { data?: any; errors?: unknown; extensions?: any };
  expect(result.errors).toBeUndefined();
  return { result, ctx: lastContext! };
}

const ONE_OBJECT_READ = 'query ($id: ID!) { space(id: $id) { platformId title visibility } }';

async function firstSpaceId(): Promise<string> {
  const { result } = await run('{ organization(id: "acme") { spaces(first: 1) { nodes { platformId } } } }');
  return result.data.organization.spaces.nodes[0].platformId;
}

describe('per-request work', () => {
  it('the schema declares many loadable node types (what a request must not pay for)', () => {
    const loadable = Object.values(schema.getTypeMap()).filter(
      (type) => isObjectType(type) && loadableByTypename(type.name),
    );
    expect(loadable.length).toBeGreaterThan(20);
  });

  it('a one-object read creates the loader of that one type, whatever the schema holds', async () => {
    const id = await firstSpaceId();
    const { result, ctx } = await run(ONE_OBJECT_READ, { id });
    expect(result.data.space.platformId).toBe(id);
    expect(result.extensions.cost).toMatchObject({ upstreamRequests: 1, dedupedRequests: 0 });
    expect(loadersOf(ctx)).toEqual([loadableByTypename('Space')!.getDataloader(ctx)]);
  });

  it('a read through two types creates their two loaders, and counts the load a loader saved', async () => {
    const id = await firstSpaceId();
    const { result, ctx } = await run(
      'query ($id: ID!) { space(id: $id) { title organization { title } } again: space(id: $id) { title } }',
      { id },
    );
    expect(result.extensions.cost).toMatchObject({ upstreamRequests: 2, dedupedRequests: 1 });
    expect(loadersOf(ctx)).toHaveLength(2);
  });

  it('the cost of a repeated document is walked again only when a variable it reads changes', () => {
    const document = parse(ONE_OBJECT_READ);
    const first = operationCost(schema, document, undefined, { id: 'a' });
    expect(first).toMatchObject({ nodes: 0, maxUpstreamRequests: 1 });
    expect(operationCost(schema, document, undefined, { id: 'b' })).toBe(first);

    const paged = parse(
      'query ($id: ID!, $first: Int) { organization(id: $id) { spaces(first: $first) { nodes { title } } } }',
    );
    const ten = operationCost(schema, paged, undefined, { id: 'a', first: 10 });
    expect(operationCost(schema, paged, undefined, { id: 'b', first: 10 })).toBe(ten);
    expect(operationCost(schema, paged, undefined, { id: 'a', first: 20 })).toMatchObject({ nodes: 20 });
    expect(operationCost(schema, paged, undefined, { id: 'a', first: null })).toMatchObject({ nodes: 50 });
    expect(operationCost(schema, paged, undefined, { id: 'a' })).toMatchObject({ nodes: 50 });
    expect(operationCost(schema, paged, undefined, { id: 'a', first: 10 })).toBe(ten);
  });
});
