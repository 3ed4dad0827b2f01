import { encodeGlobalID } from '@pothos/plugin-relay';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restConnection } from '../../src/gateway/schema/kit/connections.js';
import { DEFAULT_LIMITS } from '../../src/gateway/policy/limits.js';
import { RestClient } from '../../src/gateway/upstream/client.js';
import { createGateway } from '../../src/gateway/http/server.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';

let g: TestGateway;
/** "North Docs" (domain north.test): admin alice, finn (`read`), gus a guest; a public space. */
let north: TestOrg;
/** Of North's e-mail domain, a member of nothing. */
let ivy: TestUser;
/** The public space's id. */
let announcements: string;
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  north = addOrg(g.platform, {
    id: 'north',
    title: 'North Docs',
    emailDomains: ['north.test'],
    members: { alice: 'admin', finn: 'read', gus: null },
  });
  ivy = addUser(g.platform, 'ivy', { email: 'ivy@north.test' });
  announcements = await north.space('Announcements', { visibility: 'public' });
});
afterAll(() => g.destroy());

async function post(body: string, logged: string[] = []) {
  const gateway = createGateway({
    upstreamUrl: g.platform.url,
    graphiql: { enabled: false },
    logger: { error: (message: string) => logged.push(message), info: () => {} },
  });
  const response = await gateway.fetch('http://gateway.test/graphql', {
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
      post(
        JSON.stringify({ query: 'query ($f: Int) { organizations(first: $f) { totalCount } }', variables: { f: 'x' } }),
        logged,
      ),
      post(JSON.stringify({ query: '{ node(id: "garbage") { id } }' }), logged),
    ]);
    expect(cases.map((c) => c.body.errors[0].extensions)).toEqual([
      { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_VALIDATION_FAILED' },
      { code: 'BAD_USER_INPUT', reason: 'GRAPHQL_PARSE_FAILED' },
      { code: 'BAD_USER_INPUT' },
      { code: 'BAD_USER_INPUT' },
    ]);
    expect(cases[3]!.body.errors[0].message).toBe('"garbage" is not a global ID (the `id` field of a node)');
    expect(logged).toEqual([]);
  });

  it('never echo the request body of malformed JSON', async () => {
    const result = await post(
      '{"query": "{ viewer { id } }", "variables": {"url": "https://bot:ghp_SECRET@git.test/x"',
    );
    expect(result.body.errors[0].extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' });
    expect(result.text).not.toContain('ghp_SECRET');
  });
});

describe('partial answers', () => {
  it('a guest listing organizations gets them, with agentInstructions null and FORBIDDEN', async () => {
    const result = await g.gql(
      `{ organizations { nodes { platformId agentInstructions { updatedAt } } } }`,
      {},
      { token: north.token('gus') },
    );
    expect(result.data).toEqual({ organizations: { nodes: [{ platformId: 'north', agentInstructions: null }] } });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['organizations', 'nodes', 0, 'agentInstructions'], 'FORBIDDEN'],
    ]);
  });

  it('an outsider reading a public space gets it, with its organization null', async () => {
    const result = await g.gql(
      `query ($id: ID!) { space(id: $id) { title organization { title } } }`,
      { id: announcements },
      { token: ivy.token },
    );
    expect(result.data).toEqual({ space: { title: 'Announcements', organization: null } });
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('organizations found by e-mail domain do not stand in for the ones the caller may read', async () => {
    const result = await g.gql(
      `query ($id: ID!) { organizationsByEmailDomain(domain: "north.test") { title } space(id: $id) { organization { title } } }`,
      { id: announcements },
      { token: ivy.token },
    );
    expect(result.data).toEqual({
      organizationsByEmailDomain: [{ title: 'North Docs' }],
      space: { organization: null },
    });
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

  it('pages backward through at most 10 pages of 1000, and refuses a list longer than that', async () => {
    // A list of `total` items `{ id: n }`, paged by offset tokens as the platform pages.
    const list = (total: number) => {
      let calls = 0;
      const fetchPage = async (page: string | undefined, limit: number) => {
        calls += 1;
        const start = Number(page ?? 0);
        const items = Array.from({ length: Math.max(0, Math.min(limit, total - start)) }, (_, i) => ({
          id: start + i,
        }));
        return { count: total, items, ...(start + limit < total ? { next: { page: String(start + limit) } } : {}) };
      };
      return { fetchPage, calls: () => calls };
    };
    const within = list(10_000);
    const last = await restConnection({ last: 3 }, within.fetchPage);
    expect(last.edges.map((edge) => edge.node)).toEqual([{ id: 9997 }, { id: 9998 }, { id: 9999 }]);
    expect(last.pageInfo).toMatchObject({ hasPreviousPage: true, hasNextPage: false });
    expect(within.calls()).toBe(10);
    const beyond = list(10_001);
    await expect(restConnection({ last: 3 }, beyond.fetchPage)).rejects.toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: ['last'] },
    });
    expect(beyond.calls()).toBe(10);
  });
});

describe('ids from clients', () => {
  it('nodes(ids:) answers each id on its own, and a bad one does not take the rest down', async () => {
    const result = await g.gql(`query ($ids: [ID!]!) { nodes(ids: $ids) { __typename id } viewer { displayName } }`, {
      ids: [
        encodeGlobalID('Organization', 'north'),
        'bad',
        encodeGlobalID('Nope', 'x'),
        encodeGlobalID('Organization', 'missing'),
      ],
    });
    expect(result.data).toEqual({
      nodes: [{ __typename: 'Organization', id: encodeGlobalID('Organization', 'north') }, null, null, null],
      viewer: { displayName: 'Alice' },
    });
    expect(result.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['nodes', 1], 'BAD_USER_INPUT'],
      [['nodes', 2], 'BAD_USER_INPUT'],
      [['nodes', 3], 'NOT_FOUND'],
    ]);
  });

  it('refuses the global ID of another type, names the field, and calls nothing upstream', async () => {
    const spaceGlobalId = encodeGlobalID('Space', announcements);
    const result = await g.gql(
      `mutation ($id: ID!) { deleteCollection(input: { collectionId: $id }) { deleted userErrors { code field message } } }`,
      { id: spaceGlobalId },
    );
    expect(result.data.deleteCollection).toEqual({
      deleted: false,
      userErrors: [
        {
          code: 'BAD_USER_INPUT',
          field: ['collectionId'],
          message: 'Expected the id of a Collection, got the global ID of a Space',
        },
      ],
    });
    expect(result.upstream).toBe(0);
    const lookup = await g.gql(`query ($id: ID!) { collection(id: $id) { title } }`, { id: spaceGlobalId });
    expect(lookup.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(lookup.upstream).toBe(0);
  });

  it('takes a Member global ID where a user id is expected', async () => {
    const members = await g.gql(
      `{ organization(id: "north") { members(search: "finn") { nodes { id platformId } } } }`,
    );
    const finn = members.data.organization.members.nodes[0];
    const result = await g.gql(
      `query ($id: ID!) { member(organizationId: "north", userId: $id) { platformId } user(id: $id) { displayName } }`,
      { id: finn.id },
    );
    expect(result.data).toEqual({ member: { platformId: finn.platformId }, user: { displayName: 'Finn' } });
  });

  it('refuses ids too long to be ids before calling upstream', async () => {
    const result = await g.gql(`query ($id: ID!) { space(id: $id) { title } }`, { id: 'a'.repeat(5000) });
    expect(result.errors?.[0]).toMatchObject({
      message: 'An id of a Space has at most 512 characters',
      extensions: { code: 'BAD_USER_INPUT' },
    });
    expect(result.upstream).toBe(0);
  });

  it('reports a cursor the platform refuses as a bad `after`', async () => {
    const forged = Buffer.from(JSON.stringify({ p: 'abc', i: 1 })).toString('base64url');
    const result = await g.gql(`query ($after: String) { organizations(after: $after) { totalCount } }`, {
      after: forged,
    });
    expect(result.errors?.[0]).toMatchObject({
      message: '`after` is not a cursor of this connection',
      extensions: { code: 'BAD_USER_INPUT', field: ['after'], upstreamStatus: 400 },
    });
  });

  it('keeps the answer of an outsider who lists the content of organizations found by e-mail domain', async () => {
    const result = await g.gql(
      `{ viewer { displayName } organizationsByEmailDomain(domain: "north.test") { title spaces { totalCount } collections { totalCount } } }`,
      {},
      { token: ivy.token },
    );
    expect(result.data).toEqual({
      viewer: { displayName: expect.any(String) },
      organizationsByEmailDomain: [{ title: 'North Docs', spaces: null, collections: null }],
    });
  });
});

describe('what the platform answers', () => {
  const organization = {
    object: 'organization',
    id: 'o1',
    title: 'Mock',
    createdAt: '2026-01-01T00:00:00.000Z',
    emailDomains: [],
    type: 'business',
    inviteLinks: true,
    plan: 'free',
    mergeRules: { type: 'none' },
    trial: { status: 'none', count: 0 },
    // A whole organization of the description: the gateway reads answers with the contract's records.
    permissions: Object.fromEntries(
      [
        'view',
        'access',
        'admin',
        'ownTeam',
        'createContent',
        'createOpenAPISpec',
        'viewBilling',
        'listMembers',
        'listTeams',
        'listIntegrations',
        'listInstallations',
        'installIntegration',
      ].map((flag) => [flag, flag === 'view' || flag === 'access']),
    ),
    urls: {
      location: 'http://upstream.test/v1/orgs/o1',
      app: 'http://app.test/o/o1',
      logo: 'https://bot:hunter2@cdn.test/logo.png?token=abc&size=2',
    },
  };

  async function mockGateway(reply: (path: string) => unknown) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('http://upstream.test')
      .intercept({ path: /.*/, method: 'GET' })
      .reply((options) => ({ statusCode: 200, data: JSON.stringify(reply(options.path)) }))
      .persist();
    const gateway = createGateway({
      client: new RestClient({ baseUrl: 'http://upstream.test/v1', dispatcher: agent }),
      graphiql: { enabled: false },
    });
    return {
      async run(query: string) {
        const response = await gateway.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
          body: JSON.stringify({ query }),
        });
        return (await response.json()) as {
          data?: any;
          errors?: Array<{ path?: unknown[]; extensions?: Record<string, unknown> }>;
        };
      },
      async close() {
        await gateway.close();
        await agent.close();
      },
    };
  }

  it('never carries credentials embedded in the URLs it holds', async () => {
    const mock = await mockGateway(() => organization);
    const result = await mock.run('{ organization(id: "o1") { urls { logo location } } }');
    await mock.close();
    expect(result.data.organization.urls).toEqual({
      logo: 'https://***@cdn.test/logo.png?token=***&size=2',
      location: 'http://upstream.test/v1/orgs/o1',
    });
  });

  it(`stops one operation at ${DEFAULT_LIMITS.maxUpstreamRequests} upstream requests`, async () => {
    const mock = await mockGateway((path) => ({ ...organization, id: path.split('/').pop() }));
    const aliases = Array.from({ length: 11 }, (_, a) => {
      const ids = Array.from({ length: 100 }, (_, i) => `"${encodeGlobalID('Organization', `o${a}-${i}`)}"`).join(', ');
      return `a${a}: nodes(ids: [${ids}]) { id }`;
    });
    const result = await mock.run(`{ ${aliases.join('\n')} }`);
    await mock.close();
    const refused = (result.errors ?? []).filter((e) => e.extensions?.code === 'BAD_USER_INPUT');
    expect(refused.length).toBe(11 * 100 - DEFAULT_LIMITS.maxUpstreamRequests);
    expect(result.errors?.length).toBe(refused.length);
  });
});
