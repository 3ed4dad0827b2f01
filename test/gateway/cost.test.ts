import { getIntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { COST_DASHBOARD } from '../fixtures/dashboards.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

let g: TestGateway;

beforeAll(async () => {
  g = await startTestGateway();
});

afterAll(async () => {
  await g.destroy();
});

interface Cost {
  nodes: number;
  maxUpstreamRequests: number;
  upstreamRequests: number;
  dedupedRequests: number;
  durationMs: number;
}

const costOf = (result: { extensions?: Record<string, unknown> }) => result.extensions?.cost as Cost;

interface DashboardData {
  organizations: {
    nodes: Array<{
      title: string;
      spaces: { nodes: Array<{ title: string; organization: { title: string }; parent: { title: string } | null }> };
      members: { nodes: unknown[] };
    }>;
  };
}

describe('extensions.cost', () => {
  it('runs the dashboard with its exact upstream count and cost', async () => {
    const result = await g.gql<DashboardData>(COST_DASHBOARD);
    expect(result.errors).toBeUndefined();
    const organizations = result.data!.organizations.nodes;
    expect(organizations.map((org) => org.title)).toEqual(['Acme Docs', 'Globex']);
    const spaces = organizations.flatMap((org) => org.spaces.nodes);
    const inCollections = spaces.filter((space) => space.parent !== null);
    const collections = new Set(inCollections.map((space) => space.parent!.title));
    expect(collections.size).toBeGreaterThan(3);
    for (const org of organizations)
      for (const space of org.spaces.nodes) expect(space.organization.title).toBe(org.title);

    // The organizations, then per organization its spaces and members, then each distinct
    // collection once: the spaces' organizations were in the first answer.
    expect(result.upstream).toBe(1 + 2 * organizations.length + collections.size);
    expect(costOf(result)).toEqual({
      // 50 organizations, 100 spaces and 20 members each.
      nodes: 50 + 50 * 100 + 50 * 20,
      // One list of organizations, a page of spaces and of members per organization, and two
      // links per space: the bound before deduplication.
      maxUpstreamRequests: 1 + 50 + 50 + 50 * 100 * 2,
      upstreamRequests: result.upstream,
      // Every space's organization was primed by the list, and each collection was read once
      // for all the spaces in it.
      dedupedRequests: spaces.length + inCollections.length - collections.size,
      durationMs: expect.any(Number),
    });
    expect(costOf(result).durationMs).toBeGreaterThan(0);
  });

  it('counts a totalCount-only connection as one request of one item, whatever its first', async () => {
    const result = await g.gql(`{ organizations { nodes { platformId teams(first: 1000) { totalCount } } } }`);
    expect(result.errors).toBeUndefined();
    expect([...result.upstreamRequests].sort()).toEqual([
      'GET /v1/orgs/acme/teams?limit=1',
      'GET /v1/orgs/globex/teams?limit=1',
      'GET /v1/orgs?limit=50',
    ]);
    expect(costOf(result)).toMatchObject({
      nodes: 50,
      maxUpstreamRequests: 51,
      upstreamRequests: 3,
      dedupedRequests: 0,
    });
  });

  it('shares a first page read anyway with a totalCount-only sibling, in either order', async () => {
    for (const query of [
      `{ count: organizations { totalCount } list: organizations(first: 5) { nodes { title } } }`,
      `{ list: organizations(first: 5) { nodes { title } } count: organizations { totalCount } }`,
    ]) {
      const result = await g.gql(query);
      expect(result.errors).toBeUndefined();
      expect(result.upstreamRequests).toEqual(['GET /v1/orgs?limit=5']);
      expect(costOf(result)).toMatchObject({ upstreamRequests: 1, dedupedRequests: 1 });
    }
  });

  it('reads `first` from variables and leaves out what @skip and @include leave out', async () => {
    const result = await g.gql(
      `query ($n: Int!, $no: Boolean!) {
        organizations(first: $n) {
          nodes {
            spaces(first: 7) @include(if: $no) { nodes { title } }
            members(first: 3) @skip(if: $no) { nodes { role } }
          }
        }
      }`,
      { n: 4, no: false },
    );
    expect(result.errors).toBeUndefined();
    expect(costOf(result)).toMatchObject({ nodes: 4 + 4 * 3, maxUpstreamRequests: 1 + 4 });
  });

  it('bounds a page read backward by the pages it may read from the start, and counts its `last`', async () => {
    const last = await g.gql(
      `{ organization(id: "acme") { spaces(last: 2) { nodes { title } pageInfo { startCursor } } } }`,
    );
    expect(last.errors).toBeUndefined();
    // The organization, then at most 10 pages of 1000; one holds the demo's spaces.
    expect(costOf(last)).toMatchObject({ nodes: 2, maxUpstreamRequests: 1 + 10, upstreamRequests: 2 });
    const before = (last.data as any).organization.spaces.pageInfo.startCursor;
    const earlier = await g.gql(
      `query ($before: String) { organization(id: "acme") { spaces(last: 3, before: $before) { nodes { title } } } }`,
      { before },
    );
    expect(earlier.errors).toBeUndefined();
    // And the page `before` names, read again to know its item.
    expect(costOf(earlier)).toMatchObject({ nodes: 3, maxUpstreamRequests: 1 + 1 + 10, upstreamRequests: 3 });
    // Asked only for its count, it reads one item, as forward: no walk to bound.
    const counted = await g.gql(`{ organization(id: "acme") { spaces(last: 2) { totalCount } } }`);
    expect(costOf(counted)).toMatchObject({ maxUpstreamRequests: 2, upstreamRequests: 2 });
  });

  it('counts each id of nodes(ids:) as an object and a request, and a link selecting only ids as free', async () => {
    const spaceId = g.platform.spaceId('Getting started');
    const space = await g.gql(`query ($id: ID!) { space(id: $id) { id } }`, { id: spaceId });
    const globalId = (space.data as { space: { id: string } }).space.id;
    const result = await g.gql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Space { title organization { id platformId } } } }`,
      { ids: [globalId, globalId, globalId] },
    );
    expect(result.errors).toBeUndefined();
    expect(costOf(result)).toMatchObject({ nodes: 3, maxUpstreamRequests: 3, upstreamRequests: 1, dedupedRequests: 2 });
  });

  it('counts a fragment spread twice on the same objects once, as execution merges it', async () => {
    const result = await g.gql(`
      { organizations(first: 10) { nodes { ...Spaces ... on Organization { ...Spaces } } } }
      fragment Spaces on Organization { spaces(first: 5) { nodes { title } } }
    `);
    expect(result.errors).toBeUndefined();
    expect(costOf(result)).toMatchObject({ nodes: 10 + 10 * 5, maxUpstreamRequests: 1 + 10, upstreamRequests: 3 });
  });

  it('says the bound is an estimate when items of a list of unknown length make requests', async () => {
    const spaceId = g.platform.spaceId('Getting started');
    const tree = await g.gql(`query ($id: ID!) { space(id: $id) { content { pages { title kind: __typename } } } }`, {
      id: spaceId,
    });
    expect(tree.errors).toBeUndefined();
    // The tree comes in one answer: its lists cost nothing, whatever their length.
    expect(costOf(tree)).not.toHaveProperty('estimated');
    const documents = await g.gql(
      `query ($id: ID!) { space(id: $id) { content { pages { ... on DocumentPage { document { text } } } } } }`,
      {
        id: spaceId,
      },
    );
    expect(documents.errors).toBeUndefined();
    // The space, its revision, its tree, then one document per page: counted for 10 pages.
    expect(costOf(documents)).toMatchObject({ estimated: true, maxUpstreamRequests: 1 + 1 + 1 + 10 });
  });

  it('is on every answer, a refused or unparsable one included', async () => {
    const broken = await g.gql(`{ organizations { nodes { title }`);
    expect(broken.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(costOf(broken)).toMatchObject({ nodes: 0, maxUpstreamRequests: 0, upstreamRequests: 0, dedupedRequests: 0 });
  });
});

describe('limits', () => {
  it('refuses a query that could return a million objects before any upstream request', async () => {
    const result = await g.gql(`{ organizations(first: 1000) { nodes { spaces(first: 1000) { nodes { title } } } } }`);
    expect(result.upstream).toBe(0);
    expect(result.data).toBeUndefined();
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]).toMatchObject({
      message: expect.stringMatching(
        /can return up to 1001000 objects .* the limit is 500000; give nested connections a smaller `first`/,
      ),
      extensions: { code: 'BAD_USER_INPUT', limit: 'nodes', value: 1_001_000, max: 500_000 },
    });
    expect(costOf(result)).toMatchObject({ nodes: 1_001_000, upstreamRequests: 0 });
  });

  it('refuses more than 15 levels, 100 aliases or 50 root fields, naming the limit and the value', async () => {
    const nest = (levels: number, inner: string) => {
      let deep = inner;
      for (let level = 0; level < levels; level += 1) deep = `agentInstructions { organization { ${deep} } }`;
      return `{ organization(id: "acme") { ${deep} } }`;
    };
    const fits = await g.gql(nest(6, 'agentInstructions { updatedAt }'));
    expect(fits.errors).toBeUndefined();
    const tooDeep = await g.gql(nest(7, 'title'));
    expect(tooDeep.errors?.[0]).toMatchObject({
      message: 'Query too deep: its depth is 16, the limit is 15; nest fewer levels',
      extensions: { code: 'BAD_USER_INPUT', limit: 'depth', value: 16, max: 15 },
    });
    expect(tooDeep.upstream).toBe(0);

    const aliases = Array.from({ length: 101 }, (_, index) => `a${index}: displayName`).join(' ');
    const tooManyAliases = await g.gql(`{ viewer { ${aliases} } }`);
    expect(tooManyAliases.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      limit: 'aliases',
      value: 101,
      max: 100,
    });
    expect(tooManyAliases.upstream).toBe(0);

    const roots = Array.from({ length: 51 }, (_, index) => `v${index}: viewer { displayName }`).join(' ');
    const tooManyRoots = await g.gql(`{ ${roots} }`);
    expect(tooManyRoots.errors?.[0]).toMatchObject({
      message: 'Too many root fields: 51, the limit is 50; split the operation in several',
      extensions: { code: 'BAD_USER_INPUT', limit: 'rootFields', value: 51, max: 50 },
    });
    expect(tooManyRoots.upstream).toBe(0);
    const fiftyRoots = await g.gql(`{ ${roots.replace(/ v50: viewer \{ displayName \}$/, '')} }`);
    expect(fiftyRoots.errors).toBeUndefined();
    expect(fiftyRoots.upstream).toBe(1);
  });

  it('takes its limits from the gateway options', async () => {
    const strict = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      limits: { maxNodes: 100 },
    });
    try {
      const ask = async (first: number) => {
        const response = await strict.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${g.platform.adminToken}` },
          body: JSON.stringify({ query: `{ organizations(first: ${first}) { nodes { title } } }` }),
        });
        return (await response.json()) as { errors?: Array<{ extensions: Record<string, unknown> }> };
      };
      expect((await ask(100)).errors).toBeUndefined();
      expect((await ask(101)).errors?.[0]?.extensions).toMatchObject({ limit: 'nodes', value: 101, max: 100 });
    } finally {
      await strict.close();
    }
  });
});

describe('the byte budget of an answer', () => {
  const ask = async (gateway: ReturnType<typeof createGateway>, query: string) => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${g.platform.adminToken}` },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        data?: unknown;
        errors?: Array<{ message: string; extensions: Record<string, unknown> }>;
      },
    };
  };

  it('counts the answer as it resolves: repeating a small read past the budget is one coded error', async () => {
    const strict = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      limits: { maxResponseBytes: 4096 },
    });
    try {
      const one = await ask(strict, '{ viewer { id displayName email } }');
      expect(one.body.errors).toBeUndefined();
      const fields = Array.from({ length: 50 }, (_, i) => `v${i}: viewer { id displayName email }`).join(' ');
      const many = await ask(strict, `{ ${fields} }`);
      expect(many.status).toBe(200);
      expect(many.body.data).toBeNull();
      expect(many.body.errors).toEqual([
        {
          message: expect.stringMatching(/^Answer too large: it reached \d+ bytes, the limit is 4096; /),
          extensions: { code: 'BAD_USER_INPUT', limit: 'responseBytes', value: expect.any(Number), max: 4096 },
        },
      ]);
      const full = await ask(g.gateway, `{ ${fields} }`);
      expect(full.body.errors).toBeUndefined();
      // The estimate counts at least what the answer holds.
      expect(JSON.stringify(full.body.data).length).toBeGreaterThan(4096);
    } finally {
      await strict.close();
    }
  });

  it('reads upstream bodies within what is left of the budget', async () => {
    const strict = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      limits: { maxResponseBytes: 4096 },
    });
    try {
      const spaces = await ask(strict, '{ organization(id: "acme") { spaces(first: 100) { nodes { id } } } }');
      expect(spaces.body.errors).toEqual([
        {
          message: expect.stringMatching(
            /^Answer too large: the platform's answers this operation needs reached \d+ bytes, the limit is 4096; /,
          ),
          extensions: { code: 'BAD_USER_INPUT', limit: 'responseBytes', value: expect.any(Number), max: 4096 },
        },
      ]);
      expect(spaces.body.data).toBeNull();
    } finally {
      await strict.close();
    }
  });
});

describe('introspection under the limits', () => {
  it('counts the nesting and the aliases of introspection like any field, at no upstream request', async () => {
    // graphql-js refuses `fields` nested past 3 levels itself; type references nest as deep as asked.
    const ofType = (levels: number): string => (levels === 0 ? 'name' : `ofType { ${ofType(levels - 1)} }`);
    const deep = await g.gql(`{ __schema { types { fields { type { ${ofType(12)} } } } } }`);
    expect(deep.data).toBeUndefined();
    expect(deep.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', limit: 'depth', value: 17, max: 15 } }),
    ]);
    const names = Array.from({ length: 101 }, (_, i) => `n${i}: name`).join(' ');
    const aliased = await g.gql(`{ __schema { queryType { ${names} } } }`);
    expect(aliased.errors).toEqual([
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT', limit: 'aliases', value: 101, max: 100 } }),
    ]);
    expect(deep.upstream + aliased.upstream).toBe(0);
  });

  it("admits the introspection query of graphql-js and GraphiQL's (15 levels deep, its type references 9)", async () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
    const ofType = (levels: number): string => (levels === 0 ? '' : ` ofType { name kind${ofType(levels - 1)} }`);
    const graphiql = query.replace(
      /fragment TypeRef on __Type \{[\s\S]*$/,
      `fragment TypeRef on __Type { kind name${ofType(9)} }`,
    );
    for (const document of [query, graphiql]) {
      const result = await g.gql(document);
      expect(result.errors).toBeUndefined();
      expect(costOf(result)).toMatchObject({ maxUpstreamRequests: 0, upstreamRequests: 0 });
    }
  });
});

describe('x-explain: 1', () => {
  it('lists exactly the requests the platform received, with the fields each served', async () => {
    const result = await g.gql<DashboardData>(COST_DASHBOARD, undefined, { headers: { 'x-explain': '1' } });
    expect(result.errors).toBeUndefined();
    const explain = result.extensions?.explain as {
      requests: Array<{
        method: string;
        path: string;
        operation: string | null;
        status: number;
        startMs: number;
        durationMs: number;
        retries: number;
        fields: string[];
        shared: number;
      }>;
      depth: number;
    };
    expect(explain.requests.map((request) => `${request.method} /v1${request.path}`).sort()).toEqual(
      [...result.upstreamRequests].sort(),
    );
    const starts = explain.requests.map((request) => request.startMs);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const request of explain.requests) {
      expect(request).toMatchObject({ method: 'GET', status: 200, retries: 0 });
      expect(request.durationMs).toBeGreaterThan(0);
      expect(request.fields.length).toBeGreaterThan(0);
      expect(request.shared).toBe(request.fields.length);
    }
    const byPath = new Map(explain.requests.map((request) => [request.path, request]));
    // Each names the operation of the API it called, from its record.
    expect(byPath.get('/orgs?limit=50')?.operation).toBe('listOrganizationsForAuthenticatedUser');
    expect(byPath.get('/orgs/acme/spaces?limit=100')?.operation).toBe('listSpacesInOrganizationById');
    expect(explain.requests.every((request) => request.operation !== null)).toBe(true);
    expect(byPath.get('/orgs?limit=50')?.fields).toEqual(['organizations']);
    expect(byPath.get('/orgs/acme/spaces?limit=100')?.fields).toEqual(['organizations.nodes.0.spaces']);
    expect(byPath.get('/orgs/globex/members?limit=20')?.fields).toEqual(['organizations.nodes.1.members']);

    // Each collection request served the `parent` of exactly the spaces in that collection.
    const orgs = result.data!.organizations.nodes;
    const collectionRequests = explain.requests.filter((request) => request.path.startsWith('/collections/'));
    const parentPaths = orgs.flatMap((org, o) =>
      org.spaces.nodes.flatMap((space, s) =>
        space.parent ? [`organizations.nodes.${o}.spaces.nodes.${s}.parent`] : [],
      ),
    );
    expect(collectionRequests.flatMap((request) => request.fields).sort()).toEqual(parentPaths.sort());
    // Organizations, then spaces, then their collections.
    expect(explain.depth).toBe(3);
    expect(JSON.stringify(result.extensions)).not.toContain(g.platform.adminToken);
  });

  it('is left out unless asked for', async () => {
    const result = await g.gql(`{ viewer { displayName } }`);
    expect(result.extensions?.explain).toBeUndefined();
    expect(costOf(result).upstreamRequests).toBe(1);
  });

  it('explains writes and the reads after them, in order, and masks secret query values', async () => {
    const spaceId = g.platform.spaceId('Getting started');
    const result = await g.gql(
      `mutation ($id: ID!) {
        updateSpace(input: { spaceId: $id, title: "Getting started" }) { space { title organization { title } } }
      }`,
      { id: spaceId },
      { headers: { 'x-explain': '1' } },
    );
    expect(result.errors).toBeUndefined();
    const explain = result.extensions?.explain as {
      requests: Array<{ method: string; path: string; fields: string[] }>;
      depth: number;
    };
    expect(explain.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `PATCH /spaces/${spaceId}`,
      expect.stringMatching(/^GET \/orgs\//),
    ]);
    expect(explain.requests[0]!.fields).toEqual(['updateSpace']);
    expect(explain.requests[1]!.fields).toEqual(['updateSpace.space.organization']);
    expect(explain.depth).toBe(2);

    const shared = await g.gql(
      `query ($id: ID!) { space(id: $id, shareKey: "secret-share-key") { title } }`,
      { id: spaceId },
      { headers: { 'x-explain': '1' } },
    );
    const text = JSON.stringify(shared.extensions);
    expect(text).not.toContain('secret-share-key');
    expect(text).toContain('shareKey=***');
  });
});
