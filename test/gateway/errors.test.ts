import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restConnection } from '../../src/gateway/connections.js';
import { createGateway } from '../../src/gateway/server.js';
import { DEMO } from '../../src/platform/demo-data.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

let g: TestGateway;
let spaceIds: Record<string, string>;
beforeAll(async () => {
  g = await startTestGateway();
  const rows = g.platform.db.prepare('SELECT id, title FROM spaces').all() as Array<{ id: string; title: string }>;
  spaceIds = Object.fromEntries(rows.map((row) => [row.title, row.id]));
});
afterAll(() => g.destroy());

async function post(body: string, logged: string[] = []) {
  const gateway = createGateway({
    upstreamUrl: g.platform.url,
    graphiql: { enabled: false },
    logger: { error: (message: string) => logged.push(message), info: () => {} },
  });
  const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${g.platform.adminToken}` },
    body,
  });
  const text = await response.text();
  await gateway.close();
  return { status: response.status, body: JSON.parse(text), text };
}

describe('errors clients cause', () => {
  it('are BAD_USER_INPUT, keep the GraphQL reason, and are not logged as failures', async () => {
    const logged: string[] = [];
    const cases = await Promise.all([
      post('{"query": "{ viewer { nope } }"}', logged),
      post('{"query": "{ viewer { "}', logged),
      post(JSON.stringify({ query: 'query ($f: Int) { organizations(first: $f) { totalCount } }', variables: { f: 'x' } }), logged),
      post(JSON.stringify({ query: '{ node(id: "garbage") { id } }' }), logged),
    ]);
    expect(cases.map((c) => c.body.errors[0].extensions)).toEqual([
      { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' },
      { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_PARSE_FAILED' },
      { code: 'BAD_USER_INPUT' },
      { code: 'BAD_USER_INPUT' },
    ]);
    expect(cases[3]!.body.errors[0].message).toBe('Invalid global ID: garbage');
    expect(logged).toEqual([]);
  });

  it('never echo the request body of malformed JSON', async () => {
    const result = await post('{"query": "{ viewer { id } }", "variables": {"url": "https://bot:ghp_SECRET@git.test/x"');
    expect(result.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' });
    expect(result.text).not.toContain('ghp_SECRET');
  });
});

describe('partial answers', () => {
  it('a guest listing organizations gets them, with agentInstructions null and FORBIDDEN', async () => {
    const result = await g.gql(`{ organizations { nodes { platformId agentInstructions { updatedAt } } } }`, {}, { token: g.platform.token(DEMO.users.gus) });
    expect(result.data).toEqual({ organizations: { nodes: [{ platformId: 'acme', agentInstructions: null }] } });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['organizations', 'nodes', 0, 'agentInstructions'], 'FORBIDDEN']]);
  });

  it('an outsider reading a public space gets it, with its organization null', async () => {
    const ivy = g.platform.token(DEMO.users.ivy);
    const result = await g.gql(`query ($id: ID!) { space(id: $id) { title organization { title } } }`, { id: spaceIds[DEMO.spaces.public] }, { token: ivy });
    expect(result.data).toEqual({ space: { title: DEMO.spaces.public, organization: null } });
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('organizations found by e-mail domain do not stand in for the ones the caller may read', async () => {
    const ivy = g.platform.token(DEMO.users.ivy);
    const result = await g.gql(
      `query ($id: ID!) { organizationsByEmailDomain(domain: "acme.test") { title } space(id: $id) { organization { title } } }`,
      { id: spaceIds[DEMO.spaces.public] },
      { token: ivy },
    );
    expect(result.data).toEqual({ organizationsByEmailDomain: [{ title: 'Acme Docs' }], space: { organization: null } });
  });
});

describe('restConnection', () => {
  it('stops following an upstream that keeps answering empty pages or the same token', async () => {
    let calls = 0;
    const looping = await restConnection({ first: 5 }, async () => {
      calls += 1;
      return { count: 10, items: [], next: { page: 'same' } };
    });
    expect(looping.edges).toEqual([]);
    expect(calls).toBe(1);

    calls = 0;
    const repeating = await restConnection({ first: 5 }, async (page) => {
      calls += 1;
      return { count: 10, items: [page ?? 'start'], next: { page: 'again' } };
    });
    expect(repeating.edges.map((edge) => edge.node)).toEqual(['start', 'again']);
    expect(calls).toBe(2);
  });
});
