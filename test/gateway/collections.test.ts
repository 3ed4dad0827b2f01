import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

const NAMES = {
  ada: 'Ada Lovelace',
  ben: 'Ben Okafor',
  cy: 'Cy Tanaka',
  dee: 'Dee Alvarez',
  eve: 'Eve Martin',
  finn: 'Finn Larsen',
  gus: 'Gus Partner',
  hana: 'Hana Kowalski',
};
type Key = keyof typeof NAMES;
/** The users' e-mails. */
const U = {} as Record<Key, string>;
const users = {} as Record<Key, TestUser>;
/**
 * Northwind's collections in tree order: Product > Guides (gus has `read`) > Advanced, Engineering (`defaultLevel:
 * read`; team Writers has `edit`), Internal (team Reviewers has `review`).
 */
const C = {} as Record<'product' | 'guides' | 'advanced' | 'engineering' | 'internal', string>;
/** Northwind's teams: Writers (owner ben; dee, eve), Reviewers (owner cy; finn), Platform (owner dee). */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;

let g: TestGateway;
let base: string;

/**
 * Northwind Docs: ada admin, ben `create`, cy `review`, dee `edit`, eve `comment`, finn `read`, gus a guest; the
 * spaces of its collections (a deleted one in each of Product and Engineering) and a root space after them.
 * Southwind: ada admin, hana `edit`.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  base = g.platform.url.replace(/\/v1$/, '');
  const p = g.platform;
  for (const [key, name] of Object.entries(NAMES) as Array<[Key, string]>) {
    users[key] = addUser(p, key, { name });
    U[key] = users[key].email;
  }
  const org = addOrg(p, {
    id: 'northwind',
    title: 'Northwind Docs',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  addOrg(p, { id: 'southwind', title: 'Southwind', members: { ada: 'admin', hana: 'edit' }, users });
  C.product = await org.collection('Product', { description: 'Everything customers read about the product' });
  C.guides = await org.collection('Guides', {
    parent: C.product,
    description: 'Step-by-step guides for new and returning users',
  });
  C.advanced = await org.collection('Advanced', { parent: C.guides });
  C.engineering = await org.collection('Engineering', {
    description: 'APIs, SDKs and how the platform is built',
    defaultLevel: 'read',
  });
  C.internal = await org.collection('Internal');
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: C.engineering }, 'edit', { teams: [T.writers] });
  await org.grant({ collection: C.internal }, 'review', { teams: [T.reviewers] });
  await org.grant({ collection: C.guides }, 'read', { users: ['gus'] });
  const spaces: Array<[string, string | undefined, string?]> = [
    ['Product overview', C.product, 'public'],
    ['Release notes', C.product, 'public'],
    ['Old pricing', C.product],
    ['Roadmap', C.product, 'in-collection'],
    ['Pricing FAQ', C.product, 'share-link'],
    ['Getting started', C.guides, 'public'],
    ['Getting started (FR)', C.guides],
    ['Tutorials', C.guides, 'in-collection'],
    ['Guide de démarrage', C.guides, 'unlisted'],
    ['Erste Schritte', C.guides, 'share-link'],
    ['Performance tuning', C.advanced, 'in-collection'],
    ['Security hardening', C.advanced],
    ['API reference', C.engineering, 'visitor-auth'],
    ['Architecture decisions', C.engineering],
    ['Runbooks', C.engineering],
    ['SDK changelog', C.engineering],
    ['Onboarding checklist', C.internal, 'in-collection'],
    ['Incident postmortems', C.internal],
    ['Company handbook', undefined],
  ];
  for (const [title, parent, visibility] of spaces) {
    const id = await org.space(title, { ...(parent ? { parent } : {}), ...(visibility ? { visibility } : {}) });
    if (title === 'Old pricing' || title === 'SDK changelog') {
      expect((await p.api('DELETE', `/spaces/${id}`)).status).toBe(205);
    }
  }
});

afterAll(() => g?.destroy());

const userId = (email: string) => g.platform.userId(email);
const spaceId = (title: string) => g.platform.spaceId(title);
const collectionIdByTitle = (title: string) => g.platform.collectionId(title);
const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });

/** The parts of an answer a test asserts as a whole: data, errors without locations, upstream count. */
async function run(query: string, variables?: Record<string, unknown>, options?: { token?: string }) {
  const result = await g.gql(query, variables, options);
  return {
    data: result.data,
    errors: result.errors?.map(({ message, path, extensions }) => ({ message, path, extensions })),
    upstream: result.upstream,
  };
}

/** Creates a collection through the REST API (test setup, not under test). */
async function restCollection(title: string, parent?: string): Promise<string> {
  const answer = await g.platform.api('POST', '/orgs/northwind/collections', {
    body: { title, ...(parent ? { parent } : {}) },
  });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

const NOT_FOUND = (path: Array<string | number>, what = 'Collection') => ({
  message: `${what} not found`,
  path,
  extensions: { code: 'NOT_FOUND', upstreamStatus: 404 },
});

describe('Organization.collections', () => {
  it('lists the collections in tree order, nested ones included by default', async () => {
    const answer = await run(`
      query CollectionsTree {
        organization(id: "northwind") {
          collections {
            totalCount
            pageInfo { hasNextPage hasPreviousPage }
            nodes {
              platformId
              title
              description
              defaultLevel
              parent { platformId }
              organization { platformId }
              permissions { view admin create viewInviteLinks }
            }
          }
        }
      }
    `);
    const all = { view: true, admin: true, create: true, viewInviteLinks: true };
    const northwind = { platformId: 'northwind' };
    expect(answer).toEqual({
      data: {
        organization: {
          collections: {
            totalCount: 5,
            pageInfo: { hasNextPage: false, hasPreviousPage: false },
            nodes: [
              {
                platformId: C.product,
                title: 'Product',
                description: 'Everything customers read about the product',
                defaultLevel: 'INHERIT',
                parent: null,
                organization: northwind,
                permissions: all,
              },
              {
                platformId: C.guides,
                title: 'Guides',
                description: 'Step-by-step guides for new and returning users',
                defaultLevel: 'INHERIT',
                parent: { platformId: C.product },
                organization: northwind,
                permissions: all,
              },
              {
                platformId: C.advanced,
                title: 'Advanced',
                description: null,
                defaultLevel: 'INHERIT',
                parent: { platformId: C.guides },
                organization: northwind,
                permissions: all,
              },
              {
                platformId: C.engineering,
                title: 'Engineering',
                description: 'APIs, SDKs and how the platform is built',
                defaultLevel: 'READ',
                parent: null,
                organization: northwind,
                permissions: all,
              },
              {
                platformId: C.internal,
                title: 'Internal',
                description: null,
                defaultLevel: 'INHERIT',
                parent: null,
                organization: northwind,
                permissions: all,
              },
            ],
          },
        },
      },
      upstream: 2,
    });
  });

  it('lists only the top level with nested: false', async () => {
    const answer = await run(`
      query CollectionsTopLevel {
        organization(id: "northwind") { collections(nested: false) { totalCount nodes { title } } }
      }
    `);
    expect(answer).toEqual({
      data: {
        organization: {
          collections: {
            totalCount: 3,
            nodes: [{ title: 'Product' }, { title: 'Engineering' }, { title: 'Internal' }],
          },
        },
      },
      upstream: 2,
    });
  });

  it('costs one request per list: parent ids come free and the spaces of each collection cost one call', async () => {
    const result = await g.gql(`
      query CollectionsWithSpaces {
        organization(id: "northwind") {
          collections {
            nodes { id title parent { id } spaces { nodes { id parent { id } } } }
          }
        }
      }
    `);
    expect(result.errors).toBeUndefined();
    const nodes = result.data.organization.collections.nodes as any[];
    expect(nodes.map((node) => [node.title, node.parent?.id ?? null, node.spaces.nodes.length])).toEqual([
      ['Product', null, 4],
      ['Guides', encodeGlobalID('Collection', C.product), 5],
      ['Advanced', encodeGlobalID('Collection', C.guides), 2],
      ['Engineering', null, 3],
      ['Internal', null, 2],
    ]);
    for (const node of nodes) {
      for (const space of node.spaces.nodes) expect(space.parent).toEqual({ id: node.id });
    }
    expect(nodes[0].spaces.nodes[1]).toEqual({
      id: encodeGlobalID('Space', spaceId('Release notes')),
      parent: { id: encodeGlobalID('Collection', C.product) },
    });
    expect(result.upstream).toBe(7);
    expect([...result.upstreamRequests].sort()).toEqual(
      [
        `GET /v1/collections/${C.advanced}/spaces?limit=50`,
        `GET /v1/collections/${C.engineering}/spaces?limit=50`,
        `GET /v1/collections/${C.guides}/spaces?limit=50`,
        `GET /v1/collections/${C.internal}/spaces?limit=50`,
        `GET /v1/collections/${C.product}/spaces?limit=50`,
        'GET /v1/orgs/northwind',
        'GET /v1/orgs/northwind/collections?limit=50&nested=true',
      ].sort(),
    );
  });

  it('serves a parent that arrived in the same list from the list: no extra request', async () => {
    const answer = await run(`
      query CollectionsParents {
        organization(id: "northwind") { collections(first: 20) { nodes { title parent { title description } } } }
      }
    `);
    expect(answer).toEqual({
      data: {
        organization: {
          collections: {
            nodes: [
              { title: 'Product', parent: null },
              {
                title: 'Guides',
                parent: { title: 'Product', description: 'Everything customers read about the product' },
              },
              {
                title: 'Advanced',
                parent: { title: 'Guides', description: 'Step-by-step guides for new and returning users' },
              },
              { title: 'Engineering', parent: null },
              { title: 'Internal', parent: null },
            ],
          },
        },
      },
      upstream: 2,
    });
  });

  it('pages with first/after, reporting totalCount on every page', async () => {
    const query = `
      query CollectionsPage($after: String) {
        organization(id: "northwind") {
          collections(first: 2, after: $after) {
            totalCount
            pageInfo { hasNextPage hasPreviousPage endCursor }
            edges { cursor node { title } }
          }
        }
      }
    `;
    const titles: string[] = [];
    let after: string | null = null;
    const pages: Array<{ totalCount: number; hasNextPage: boolean; hasPreviousPage: boolean; count: number }> = [];
    do {
      const result: { data?: any; errors?: unknown; upstream: number } = await g.gql(query, { after });
      expect(result.errors).toBeUndefined();
      expect(result.upstream).toBe(2);
      const connection: any = result.data.organization.collections;
      titles.push(...connection.edges.map((edge: any) => edge.node.title));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      pages.push({
        totalCount: connection.totalCount,
        hasNextPage: connection.pageInfo.hasNextPage,
        hasPreviousPage: connection.pageInfo.hasPreviousPage,
        count: connection.edges.length,
      });
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
    } while (after);
    expect(titles).toEqual(['Product', 'Guides', 'Advanced', 'Engineering', 'Internal']);
    expect(pages).toEqual([
      { totalCount: 5, hasNextPage: true, hasPreviousPage: false, count: 2 },
      { totalCount: 5, hasNextPage: true, hasPreviousPage: true, count: 2 },
      { totalCount: 5, hasNextPage: false, hasPreviousPage: true, count: 1 },
    ]);
  });

  it('refuses first: 1001, and paging both ways at once, with BAD_USER_INPUT', async () => {
    const tooMany = await run(
      `query CollectionsTooMany { organization(id: "northwind") { collections(first: 1001) { totalCount } } }`,
    );
    expect(tooMany).toEqual({
      data: { organization: { collections: null } },
      errors: [
        {
          message: '`first` must be between 0 and 1000',
          path: ['organization', 'collections'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
    const spaces = await run(
      `query CollectionSpacesTooMany { collection(id: "${C.guides}") { title spaces(first: 1001) { totalCount } } }`,
    );
    expect(spaces).toEqual({
      data: { collection: null },
      errors: [
        {
          message: '`first` must be between 0 and 1000',
          path: ['collection', 'spaces'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
    const aggregate = await run(
      `query CollectionAccessTooMany { collection(id: "${C.guides}") { accessibleBy(role: READ, first: 1001) { totalCount } } }`,
    );
    expect(aggregate).toEqual({
      data: { collection: null },
      errors: [
        {
          message: '`first` must be between 0 and 1000',
          path: ['collection', 'accessibleBy'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
    const backwards = await run(
      `query CollectionsBothWays { collection(id: "${C.guides}") { users(first: 1, last: 1) { totalCount } } }`,
    );
    expect(backwards).toEqual({
      data: { collection: null },
      errors: [
        {
          message: 'Page one way at a time: `first`/`after` forward, or `last`/`before` backward',
          path: ['collection', 'users'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
  });
});

describe('collection(id:)', () => {
  it('answers every field of a collection in one request', async () => {
    const answer = await run(`
      query CollectionFields {
        collection(id: "${C.engineering}") {
          id
          platformId
          title
          description
          defaultLevel
          urls { location app }
          permissions { view admin viewInviteLinks create }
          organization { id platformId }
          parent { id }
        }
      }
    `);
    expect(answer).toEqual({
      data: {
        collection: {
          id: encodeGlobalID('Collection', C.engineering),
          platformId: C.engineering,
          title: 'Engineering',
          description: 'APIs, SDKs and how the platform is built',
          defaultLevel: 'READ',
          urls: {
            location: `${base}/v1/collections/${C.engineering}`,
            app: `${base}/app/o/northwind/c/${C.engineering}`,
          },
          permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
          organization: { id: encodeGlobalID('Organization', 'northwind'), platformId: 'northwind' },
          parent: null,
        },
      },
      upstream: 1,
    });
  });

  it('follows organization and parent links with one request each', async () => {
    const answer = await run(`
      query CollectionLinks { collection(id: "${C.advanced}") { title parent { title parent { title } } organization { title } } }
    `);
    expect(answer).toEqual({
      data: {
        collection: {
          title: 'Advanced',
          parent: { title: 'Guides', parent: { title: 'Product' } },
          organization: { title: 'Northwind Docs' },
        },
      },
      upstream: 4,
    });
  });

  it('shows a guest only what they were granted: null with NOT_FOUND for the rest, which still resolves', async () => {
    const answer = await run(
      `
      query CollectionAsGuest {
        guides: collection(id: "${C.guides}") { title permissions { view admin create } }
        engineering: collection(id: "${C.engineering}") { title }
        missing: collection(id: "no-such-collection") { title }
      }
    `,
      undefined,
      as(U.gus),
    );
    expect(answer).toEqual({
      data: {
        guides: { title: 'Guides', permissions: { view: true, admin: false, create: false } },
        engineering: null,
        missing: null,
      },
      errors: [NOT_FOUND(['engineering']), NOT_FOUND(['missing'])],
      upstream: 3,
    });
  });

  it('accepts a global ID and round-trips through node(id:)', async () => {
    const id = encodeGlobalID('Collection', C.guides);
    const answer = await run(
      `
      query CollectionNode($id: ID!) {
        node(id: $id) { __typename id ... on Collection { platformId title } }
        byGlobalId: collection(id: $id) { platformId }
      }
    `,
      { id },
    );
    expect(answer).toEqual({
      data: {
        node: { __typename: 'Collection', id, platformId: C.guides, title: 'Guides' },
        byGlobalId: { platformId: C.guides },
      },
      upstream: 1,
    });
  });

  it('lists the spaces of a collection page by page', async () => {
    const query = `
      query CollectionSpaces($after: String) {
        collection(id: "${C.product}") {
          spaces(first: 3, after: $after) {
            totalCount
            pageInfo { hasNextPage }
            nodes { title visibility parent { platformId } }
          }
        }
      }
    `;
    const first = await run(query);
    const product = { platformId: C.product };
    expect(first).toEqual({
      data: {
        collection: {
          spaces: {
            totalCount: 4,
            pageInfo: { hasNextPage: true },
            nodes: [
              { title: 'Product overview', visibility: 'PUBLIC', parent: product },
              { title: 'Release notes', visibility: 'PUBLIC', parent: product },
              { title: 'Roadmap', visibility: 'IN_COLLECTION', parent: product },
            ],
          },
        },
      },
      upstream: 2,
    });
    const cursor = (
      await g.gql(
        `query CollectionSpacesCursor { collection(id: "${C.product}") { spaces(first: 3) { pageInfo { endCursor } } } }`,
      )
    ).data.collection.spaces.pageInfo.endCursor;
    const second = await run(query, { after: cursor });
    expect(second).toEqual({
      data: {
        collection: {
          spaces: {
            totalCount: 4,
            pageInfo: { hasNextPage: false },
            nodes: [{ title: 'Pricing FAQ', visibility: 'SHARE_LINK', parent: product }],
          },
        },
      },
      upstream: 2,
    });
  });

  it('lists direct user grants (users) and everyone with access (accessibleBy, with a role filter)', async () => {
    const answer = await run(`
      query CollectionPermissionLists {
        guides: collection(id: "${C.guides}") {
          users { totalCount nodes { role user { displayName email } } }
        }
        engineering: collection(id: "${C.engineering}") {
          users { totalCount }
          editors: accessibleBy(role: EDIT) { totalCount nodes { role user { displayName } } }
          everyone: accessibleBy { totalCount nodes { role user { email } } }
        }
      }
    `);
    expect(answer).toEqual({
      data: {
        guides: {
          users: { totalCount: 1, nodes: [{ role: 'READ', user: { displayName: 'Gus Partner', email: U.gus } }] },
        },
        engineering: {
          users: { totalCount: 0 },
          editors: {
            totalCount: 3,
            nodes: [
              { role: 'EDIT', user: { displayName: 'Ben Okafor' } },
              { role: 'EDIT', user: { displayName: 'Dee Alvarez' } },
              { role: 'EDIT', user: { displayName: 'Eve Martin' } },
            ],
          },
          everyone: {
            totalCount: 6,
            nodes: [
              { role: 'ADMIN', user: { email: U.ada } },
              { role: 'EDIT', user: { email: U.ben } },
              { role: 'READ', user: { email: U.cy } },
              { role: 'EDIT', user: { email: U.dee } },
              { role: 'EDIT', user: { email: U.eve } },
              { role: 'READ', user: { email: U.finn } },
            ],
          },
        },
      },
      upstream: 6,
    });
  });

  it('answers users of a collection the caller cannot see with null and NOT_FOUND', async () => {
    const answer = await run(
      `query CollectionUsersHidden { collection(id: "${C.internal}") { users { totalCount } accessibleBy { totalCount } spaces { totalCount } } viewer { email } }`,
      undefined,
      as(U.gus),
    );
    expect(answer).toEqual({
      data: { collection: null, viewer: { email: U.gus } },
      errors: [NOT_FOUND(['collection'])],
      upstream: 2,
    });
  });
});

describe('collection mutations', () => {
  const payload =
    'collection { platformId title description defaultLevel parent { platformId } organization { platformId } } userErrors { message code field upstreamStatus }';

  it('createCollection creates at the top level or inside a collection given by global ID', async () => {
    const top = await run(
      `mutation CreateTop($input: CreateCollectionInput!) { createCollection(input: $input) { ${payload} } }`,
      { input: { organizationId: encodeGlobalID('Organization', 'northwind'), title: '  Top level  ' } },
    );
    const topId = collectionIdByTitle('Top level');
    expect(top).toEqual({
      data: {
        createCollection: {
          collection: {
            platformId: topId,
            title: 'Top level',
            description: null,
            defaultLevel: 'INHERIT',
            parent: null,
            organization: { platformId: 'northwind' },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
    const nested = await run(
      `mutation CreateNested($input: CreateCollectionInput!) { createCollection(input: $input) { ${payload} } }`,
      { input: { organizationId: 'northwind', title: 'Nested', parentId: encodeGlobalID('Collection', topId) } },
    );
    expect(nested).toEqual({
      data: {
        createCollection: {
          collection: {
            platformId: collectionIdByTitle('Nested'),
            title: 'Nested',
            description: null,
            defaultLevel: 'INHERIT',
            parent: { platformId: topId },
            organization: { platformId: 'northwind' },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
  });

  it('createCollection rejects a title over 50 characters before any request, and a reader with FORBIDDEN', async () => {
    const long = await run(
      `mutation CreateLong($input: CreateCollectionInput!) { createCollection(input: $input) { ${payload} } }`,
      { input: { organizationId: 'northwind', title: 'x'.repeat(51) } },
    );
    expect(long).toEqual({
      data: {
        createCollection: {
          collection: null,
          userErrors: [
            {
              message: 'title: must be 1 to 50 characters',
              code: 'BAD_USER_INPUT',
              field: ['title'],
              upstreamStatus: null,
            },
          ],
        },
      },
      upstream: 0,
    });
    const reader = await run(
      `mutation CreateAsReader($input: CreateCollectionInput!) { createCollection(input: $input) { ${payload} } }`,
      { input: { organizationId: 'northwind', title: 'Not allowed' } },
      as(U.finn),
    );
    expect(reader).toEqual({
      data: {
        createCollection: {
          collection: null,
          userErrors: [
            {
              message: 'This needs the create role in the organization',
              code: 'FORBIDDEN',
              field: null,
              upstreamStatus: 403,
            },
          ],
        },
      },
      upstream: 1,
    });
  });

  it('updateCollection changes title, description and default level; null removes the description', async () => {
    const id = await restCollection('To update');
    const updated = await run(
      `mutation UpdateCollection($input: UpdateCollectionInput!) { updateCollection(input: $input) { ${payload} } }`,
      { input: { collectionId: id, title: 'Updated', description: 'Short text', defaultLevel: 'EDIT' } },
    );
    expect(updated).toEqual({
      data: {
        updateCollection: {
          collection: {
            platformId: id,
            title: 'Updated',
            description: 'Short text',
            defaultLevel: 'EDIT',
            parent: null,
            organization: { platformId: 'northwind' },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
    const cleared = await run(
      `mutation ClearDescription($input: UpdateCollectionInput!) { updateCollection(input: $input) { collection { title description } userErrors { code } } }`,
      { input: { collectionId: encodeGlobalID('Collection', id), description: null } },
    );
    expect(cleared).toEqual({
      data: { updateCollection: { collection: { title: 'Updated', description: null }, userErrors: [] } },
      upstream: 1,
    });
  });

  it('updateCollection reports bad input without a request, and upstream refusals as userErrors', async () => {
    const mutation = `mutation UpdateCollectionFails($input: UpdateCollectionInput!) { updateCollection(input: $input) { collection { title } userErrors { message code field upstreamStatus } } }`;
    expect(
      await run(mutation, {
        input: { collectionId: C.internal, title: '', description: 'd'.repeat(101), defaultLevel: null },
      }),
    ).toEqual({
      data: {
        updateCollection: {
          collection: null,
          userErrors: [
            {
              message: 'title: must be 1 to 50 characters',
              code: 'BAD_USER_INPUT',
              field: ['title'],
              upstreamStatus: null,
            },
            {
              message: 'description: must be at most 100 characters',
              code: 'BAD_USER_INPUT',
              field: ['description'],
              upstreamStatus: null,
            },
            {
              message: 'defaultLevel: cannot be null',
              code: 'BAD_USER_INPUT',
              field: ['defaultLevel'],
              upstreamStatus: null,
            },
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { collectionId: C.internal } })).toEqual({
      data: {
        updateCollection: {
          collection: null,
          userErrors: [
            { message: 'Give at least one field to change', code: 'BAD_USER_INPUT', field: null, upstreamStatus: null },
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { collectionId: 'no-such-collection', title: 'X' } })).toEqual({
      data: {
        updateCollection: {
          collection: null,
          userErrors: [
            {
              message: 'Collection not found: input field "collectionId"',
              code: 'NOT_FOUND',
              field: ['collectionId'],
              upstreamStatus: 404,
            },
          ],
        },
      },
      upstream: 1,
    });
    expect(await run(mutation, { input: { collectionId: C.product, title: 'Mine now' } }, as(U.finn))).toEqual({
      data: {
        updateCollection: {
          collection: null,
          userErrors: [
            {
              message: 'Updating a collection needs the admin role',
              code: 'FORBIDDEN',
              field: null,
              upstreamStatus: 403,
            },
          ],
        },
      },
      upstream: 1,
    });
  });

  it('deleteCollection answers deleted true, then false', async () => {
    const id = await restCollection('To delete');
    const mutation = `mutation DeleteCollection($input: DeleteCollectionInput!) { deleteCollection(input: $input) { deleted userErrors { code } } }`;
    expect(await run(mutation, { input: { collectionId: encodeGlobalID('Collection', id) } })).toEqual({
      data: { deleteCollection: { deleted: true, userErrors: [] } },
      upstream: 1,
    });
    expect(await run(mutation, { input: { collectionId: id } })).toEqual({
      data: { deleteCollection: { deleted: false, userErrors: [] } },
      upstream: 1,
    });
    expect(await run(mutation, { input: { collectionId: ' ' } })).toEqual({
      data: { deleteCollection: { deleted: false, userErrors: [{ code: 'BAD_USER_INPUT' }] } },
      upstream: 0,
    });
    expect(await run(mutation, { input: { collectionId: C.engineering } }, as(U.dee))).toEqual({
      data: { deleteCollection: { deleted: false, userErrors: [{ code: 'FORBIDDEN' }] } },
      upstream: 1,
    });
  });

  it('moveCollection moves into a collection, to the top level, and next to a sibling', async () => {
    const a = await restCollection('Move A');
    const b = await restCollection('Move B');
    const mutation = `mutation MoveCollection($input: MoveCollectionInput!) { moveCollection(input: $input) { collection { platformId parent { platformId } } userErrors { message code field upstreamStatus } } }`;
    expect(await run(mutation, { input: { collectionId: b, parentId: encodeGlobalID('Collection', a) } })).toEqual({
      data: { moveCollection: { collection: { platformId: b, parent: { platformId: a } }, userErrors: [] } },
      upstream: 1,
    });
    expect(
      await run(mutation, {
        input: {
          collectionId: encodeGlobalID('Collection', b),
          parentId: null,
          position: { before: encodeGlobalID('Collection', C.product) },
        },
      }),
    ).toEqual({
      data: { moveCollection: { collection: { platformId: b, parent: null }, userErrors: [] } },
      upstream: 1,
    });
    const top = await g.gql(
      `query MovedOrder { organization(id: "northwind") { collections(nested: false) { nodes { title } } } }`,
    );
    const order = (top.data.organization.collections.nodes as Array<{ title: string }>).map((node) => node.title);
    expect(order.filter((title) => ['Move A', 'Move B', 'Product', 'Engineering', 'Internal'].includes(title))).toEqual(
      ['Move B', 'Product', 'Engineering', 'Internal', 'Move A'],
    );
    // A space is a sibling like any collection: put A right after the "Company handbook" space.
    expect(
      await run(mutation, {
        input: { collectionId: a, position: { after: encodeGlobalID('Space', spaceId('Company handbook')) } },
      }),
    ).toEqual({
      data: { moveCollection: { collection: { platformId: a, parent: null }, userErrors: [] } },
      upstream: 1,
    });
  });

  it('moveCollection reports invalid positions, moves into itself and moves that change nothing', async () => {
    const a = await restCollection('Move C');
    const mutation = `mutation MoveCollectionFails($input: MoveCollectionInput!) { moveCollection(input: $input) { collection { platformId } userErrors { message code field upstreamStatus } } }`;
    const failure = (
      message: string,
      code: string,
      field: string[] | null,
      upstreamStatus: number | null,
      upstream: number,
    ) => ({
      data: { moveCollection: { collection: null, userErrors: [{ message, code, field, upstreamStatus }] } },
      upstream,
    });
    // "Guides" is not at the top level, where A stays.
    expect(await run(mutation, { input: { collectionId: a, position: { before: C.guides } } })).toEqual(
      failure(
        `Invalid input field "position.before": ${C.guides} is not a space or collection of the target parent`,
        'BAD_USER_INPUT',
        ['position', 'before'],
        400,
        1,
      ),
    );
    expect(
      await run(mutation, { input: { collectionId: a, position: { before: C.product, after: C.internal } } }),
    ).toEqual(failure('position: give exactly one of before or after', 'BAD_USER_INPUT', ['position'], null, 0));
    expect(await run(mutation, { input: { collectionId: a, position: {} } })).toEqual(
      failure('position: give exactly one of before or after', 'BAD_USER_INPUT', ['position'], null, 0),
    );
    expect(await run(mutation, { input: { collectionId: a } })).toEqual(
      failure('Give parentId, position or both', 'BAD_USER_INPUT', null, null, 0),
    );
    expect(await run(mutation, { input: { collectionId: C.product, parentId: C.advanced } })).toEqual(
      failure(
        'Invalid input field "parentId": cannot move a collection into itself or one of its descendants',
        'BAD_USER_INPUT',
        ['parentId'],
        400,
        1,
      ),
    );
    expect(await run(mutation, { input: { collectionId: a, parentId: null } })).toEqual(
      failure('The collection is already at that place: nothing to update', 'CONFLICT', null, 409, 1),
    );
  });

  it('transferCollection moves a collection with its spaces to another organization', async () => {
    const id = await restCollection('To transfer');
    const space = await g.platform.api('POST', '/orgs/northwind/spaces', {
      body: { title: 'Travels along', parent: id },
    });
    expect(space.status).toBe(201);
    const answer = await run(
      `mutation TransferCollection($input: TransferCollectionInput!) {
        transferCollection(input: $input) {
          collection { platformId parent { id } organization { title } spaces { nodes { title organization { platformId } } } }
          userErrors { code }
        }
      }`,
      {
        input: {
          collectionId: encodeGlobalID('Collection', id),
          organizationId: encodeGlobalID('Organization', 'southwind'),
        },
      },
    );
    expect(answer).toEqual({
      data: {
        transferCollection: {
          collection: {
            platformId: id,
            parent: null,
            organization: { title: 'Southwind' },
            spaces: { nodes: [{ title: 'Travels along', organization: { platformId: 'southwind' } }] },
          },
          userErrors: [],
        },
      },
      upstream: 3,
    });
  });

  it('transferCollection to its own organization is a CONFLICT, to an unknown one NOT_FOUND', async () => {
    const mutation = `mutation TransferCollectionFails($input: TransferCollectionInput!) { transferCollection(input: $input) { collection { platformId } userErrors { message code field upstreamStatus } } }`;
    expect(await run(mutation, { input: { collectionId: C.internal, organizationId: 'northwind' } })).toEqual({
      data: {
        transferCollection: {
          collection: null,
          userErrors: [
            {
              message: 'The collection already belongs to that organization',
              code: 'CONFLICT',
              field: null,
              upstreamStatus: 409,
            },
          ],
        },
      },
      upstream: 1,
    });
    expect(await run(mutation, { input: { collectionId: C.internal, organizationId: 'initech' } })).toEqual({
      data: {
        transferCollection: {
          collection: null,
          userErrors: [
            {
              message: 'Target organization not found: input field "organizationId" ("initech")',
              code: 'NOT_FOUND',
              field: ['organizationId'],
              upstreamStatus: 404,
            },
          ],
        },
      },
      upstream: 1,
    });
  });
});

describe('collection permissions', () => {
  const usersOf = 'collection { users { nodes { role user { email } } } }';

  it('inviteToCollection grants users (global or platform ids) and teams (global or platform ids) a role', async () => {
    const id = await restCollection('Shared');
    const answer = await run(
      `mutation Invite($input: InviteToCollectionInput!) { inviteToCollection(input: $input) { ${usersOf} userErrors { code } } }`,
      {
        input: {
          collectionId: encodeGlobalID('Collection', id),
          role: 'COMMENT',
          userIds: [encodeGlobalID('User', userId(U.finn)), userId(U.eve)],
          teamIds: [encodeGlobalID('Team', `northwind/${T.reviewers}`), T.platform],
        },
      },
    );
    expect(answer).toEqual({
      data: {
        inviteToCollection: {
          collection: {
            users: {
              nodes: [
                { role: 'COMMENT', user: { email: U.eve } },
                { role: 'COMMENT', user: { email: U.finn } },
              ],
            },
          },
          userErrors: [],
        },
      },
      upstream: 3,
    });
    const teams = g.platform.db
      .prepare(
        `SELECT principal_id AS team, role FROM content_permissions
         WHERE content_type = 'collection' AND content_id = ? AND principal_type = 'team' ORDER BY principal_id`,
      )
      .all(id);
    expect(teams).toEqual(
      [
        { team: T.platform, role: 'comment' },
        { team: T.reviewers, role: 'comment' },
      ].sort((a, b) => (a.team < b.team ? -1 : 1)),
    );

    const removed = await run(
      `mutation InviteNull($input: InviteToCollectionInput!) { inviteToCollection(input: $input) { ${usersOf} userErrors { code } } }`,
      { input: { collectionId: id, role: null, userIds: [userId(U.finn)] } },
    );
    expect(removed).toEqual({
      data: {
        inviteToCollection: {
          collection: { users: { nodes: [{ role: 'COMMENT', user: { email: U.eve } }] } },
          userErrors: [],
        },
      },
      upstream: 3,
    });
  });

  it('inviteToCollection checks its input before any request and reports unknown teams', async () => {
    const mutation = `mutation InviteFails($input: InviteToCollectionInput!) { inviteToCollection(input: $input) { collection { platformId } userErrors { message code field upstreamStatus } } }`;
    expect(await run(mutation, { input: { collectionId: C.guides, userIds: [userId(U.finn)] } })).toEqual({
      data: {
        inviteToCollection: {
          collection: null,
          userErrors: [
            {
              message: 'role: is required: a role, or null to remove the direct grants',
              code: 'BAD_USER_INPUT',
              field: ['role'],
              upstreamStatus: null,
            },
          ],
        },
      },
      upstream: 0,
    });
    expect(
      await run(mutation, {
        input: {
          collectionId: C.guides,
          role: 'READ',
          userIds: [],
          teamIds: [encodeGlobalID('Team', 'not-a-composite-key')],
        },
      }),
    ).toEqual({
      data: {
        inviteToCollection: {
          collection: null,
          userErrors: [
            {
              message: 'teamIds.0: is not the id of a team',
              code: 'BAD_USER_INPUT',
              field: ['teamIds', '0'],
              upstreamStatus: null,
            },
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { collectionId: C.guides, role: 'READ' } })).toEqual({
      data: {
        inviteToCollection: {
          collection: null,
          userErrors: [
            {
              message: 'userIds: give at least one user or team',
              code: 'BAD_USER_INPUT',
              field: ['userIds'],
              upstreamStatus: null,
            },
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { collectionId: C.guides, role: 'READ', teamIds: ['team-nobody'] } })).toEqual({
      data: {
        inviteToCollection: {
          collection: null,
          userErrors: [
            {
              message: 'Team not found: input field "teamIds.0" ("team-nobody")',
              code: 'NOT_FOUND',
              field: ['teamIds', '0'],
              upstreamStatus: 404,
            },
          ],
        },
      },
      upstream: 1,
    });
  });

  it('updateCollectionUserPermission changes or removes a direct grant', async () => {
    const id = await restCollection('Granted');
    const mutation = `mutation SetGrant($input: UpdateCollectionUserPermissionInput!) {
      updateCollectionUserPermission(input: $input) { ${usersOf} user { email } userErrors { message code field upstreamStatus } }
    }`;
    expect(
      await run(mutation, {
        input: { collectionId: id, userId: encodeGlobalID('User', userId(U.dee)), role: 'ADMIN' },
      }),
    ).toEqual({
      data: {
        updateCollectionUserPermission: {
          collection: { users: { nodes: [{ role: 'ADMIN', user: { email: U.dee } }] } },
          user: { email: U.dee },
          userErrors: [],
        },
      },
      upstream: 4,
    });
    expect(await run(mutation, { input: { collectionId: id, userId: userId(U.dee), role: null } })).toEqual({
      data: {
        updateCollectionUserPermission: {
          collection: { users: { nodes: [] } },
          user: { email: U.dee },
          userErrors: [],
        },
      },
      upstream: 4,
    });
    expect(await run(mutation, { input: { collectionId: id, userId: 'no-such-user', role: 'READ' } })).toEqual({
      data: {
        updateCollectionUserPermission: {
          collection: null,
          user: null,
          userErrors: [
            {
              message: 'User not found: input field "userId"',
              code: 'NOT_FOUND',
              field: ['userId'],
              upstreamStatus: 404,
            },
          ],
        },
      },
      upstream: 1,
    });
  });

  it('removeCollectionUser answers deleted true, then false', async () => {
    const id = await restCollection('Revoked');
    const grant = await g.platform.api('PATCH', `/collections/${id}/permissions/users/${userId(U.cy)}`, {
      body: { role: 'edit' },
    });
    expect(grant.status).toBe(204);
    const mutation = `mutation RemoveGrant($input: RemoveCollectionUserInput!) { removeCollectionUser(input: $input) { deleted userErrors { message code field upstreamStatus } } }`;
    const input = { collectionId: id, userId: encodeGlobalID('User', userId(U.cy)) };
    expect(await run(mutation, { input })).toEqual({
      data: { removeCollectionUser: { deleted: true, userErrors: [] } },
      upstream: 1,
    });
    expect(await run(mutation, { input })).toEqual({
      data: { removeCollectionUser: { deleted: false, userErrors: [] } },
      upstream: 1,
    });
    expect(await run(mutation, { input }, as(U.eve))).toEqual({
      data: {
        removeCollectionUser: {
          deleted: false,
          userErrors: [
            {
              message: 'Managing collection permissions needs the admin role',
              code: 'FORBIDDEN',
              field: null,
              upstreamStatus: 403,
            },
          ],
        },
      },
      upstream: 1,
    });
  });
});
