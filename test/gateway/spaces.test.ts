import { encodeGlobalID } from '@pothos/plugin-relay';
import { experimentalExecuteIncrementally, parse, type ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/gateway/context.js';
import { schema } from '../../src/gateway/schema/index.js';
import { clearLoaders } from '../../src/gateway/schema/kit/loaders.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

const NAMES = {
  ada: 'Ada Lovelace',
  cy: 'Cy Tanaka',
  dee: 'Dee Alvarez',
  finn: 'Finn Larsen',
  gus: 'Gus Partner',
  hana: 'Hana Kowalski',
};
type Key = keyof typeof NAMES;
/** The users' e-mails. */
const U = {} as Record<Key, string>;
const users = {} as Record<Key, TestUser>;
/** Northwind's collections (Product > Guides > Advanced, Engineering, Internal) and Southwind's Handbook. */
const C = {} as Record<'product' | 'guides' | 'advanced' | 'engineering' | 'internal' | 'southHandbook', string>;
/** Spaces the tests single out, by their role in them. */
const S = {
  /** Root, private, emoji 📘, English; the oldest. */
  gitSynced: 'Company handbook',
  /** In Product, public. */
  public: 'Release notes',
  /** In Engineering, visitor-auth (custom backend), merge rules requiring cy's review. */
  visitorAuth: 'API reference',
  /** In Engineering, private, 🛠️; finn has a direct `edit` grant. */
  userGrant: 'Runbooks',
  /** In Engineering, private, 🏛️; team Platform has `edit`. */
  teamGrant: 'Architecture decisions',
  /** In Advanced, private and locked. */
  locked: 'Security hardening',
  /** In Guides, share-link, German. */
  shareLink: 'Erste Schritte',
  /** In Engineering, deleted two days ago. */
  deleted: 'SDK changelog',
  /** In Internal, deleted ten days ago: past restoring. */
  expired: 'Meeting notes 2023',
};
/** Northwind's live spaces in tree order (each collection's contents right after it, by position). */
const TREE_SPACES = [
  'Performance tuning',
  'Security hardening',
  'Getting started',
  'Getting started (FR)',
  'Tutorials',
  'Guide de démarrage',
  'Erste Schritte',
  'Product overview',
  'Release notes',
  'Roadmap',
  'Pricing FAQ',
  'API reference',
  'Architecture decisions',
  'Runbooks',
  'Onboarding checklist',
  'Incident postmortems',
  'Company handbook',
  'Status page',
  'Brand guidelines',
  'Petstore API',
];

let g: TestGateway;
let base: string;

/**
 * Northwind Docs: ada admin, cy `review`, dee `edit`, finn `read`, gus a guest (`read` on Guides, `comment` on
 * Tutorials); its collections and spaces (`S`, `TREE_SPACES`, two deleted). Southwind: ada admin, hana, Handbook.
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
    members: { ada: 'admin', cy: 'review', dee: 'edit', finn: 'read', gus: null },
    users,
  });
  const south = addOrg(p, { id: 'southwind', title: 'Southwind', members: { ada: 'admin', hana: 'edit' }, users });
  C.southHandbook = await south.collection('Handbook');
  C.product = await org.collection('Product');
  C.guides = await org.collection('Guides', { parent: C.product });
  C.advanced = await org.collection('Advanced', { parent: C.guides });
  C.engineering = await org.collection('Engineering', { defaultLevel: 'read' });
  C.internal = await org.collection('Internal');
  const platformTeam = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: C.guides }, 'read', { users: ['gus'] });
  const spaces: Array<[string, string | undefined, Record<string, string>?]> = [
    ['Performance tuning', C.advanced, { visibility: 'in-collection' }],
    ['Security hardening', C.advanced],
    ['Getting started', C.guides, { visibility: 'public' }],
    ['Getting started (FR)', C.guides, { language: 'fr' }],
    ['Tutorials', C.guides, { visibility: 'in-collection' }],
    ['Guide de démarrage', C.guides, { visibility: 'unlisted', language: 'fr' }],
    ['Erste Schritte', C.guides, { visibility: 'share-link', language: 'de' }],
    ['Product overview', C.product, { visibility: 'public' }],
    ['Release notes', C.product, { visibility: 'public' }],
    ['Roadmap', C.product, { visibility: 'in-collection' }],
    ['Pricing FAQ', C.product, { visibility: 'share-link' }],
    ['API reference', C.engineering, { visibility: 'visitor-auth' }],
    ['Architecture decisions', C.engineering, { emoji: '🏛️' }],
    ['Runbooks', C.engineering, { emoji: '🛠️' }],
    ['SDK changelog', C.engineering],
    ['Onboarding checklist', C.internal, { visibility: 'in-collection' }],
    ['Incident postmortems', C.internal],
    ['Meeting notes 2023', C.internal],
    ['Company handbook', undefined, { emoji: '📘', language: 'en' }],
    ['Status page', undefined, { visibility: 'public' }],
    ['Brand guidelines', undefined, { visibility: 'unlisted' }],
    ['Petstore API', undefined, { visibility: 'public', language: 'en' }],
  ];
  const ids: Record<string, string> = {};
  for (const [title, parent, settings] of spaces) {
    ids[title] = await org.space(title, { ...(parent ? { parent } : {}), ...settings });
  }
  const patch = async (title: string, body: unknown) =>
    expect((await p.api('PATCH', `/spaces/${ids[title]}`, { body })).status).toBe(200);
  await patch(S.locked, { editMode: 'locked' });
  await patch(S.visitorAuth, {
    mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [users.cy.id] }] },
  });
  // The API has no way to set a space's visitor authentication backend: it is a setting of the platform's store.
  p.db.prepare('UPDATE spaces SET visitor_auth = ? WHERE id = ?').run('{"backend":"custom"}', ids[S.visitorAuth]);
  await org.grant({ space: ids[S.userGrant]! }, 'edit', { users: ['finn'] });
  await org.grant({ space: ids[S.teamGrant]! }, 'edit', { teams: [platformTeam] });
  await org.grant({ space: ids.Tutorials! }, 'comment', { users: ['gus'] });
  for (const [title, days] of [
    [S.deleted, 2],
    [S.expired, 10],
  ] as const) {
    expect((await p.api('DELETE', `/spaces/${ids[title]}`)).status).toBe(205);
    p.db
      .prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?')
      .run(new Date(Date.now() - days * 86_400_000).toISOString(), ids[title]);
  }
});

afterAll(() => g?.destroy());

const row = (title: string) =>
  g.platform.db.prepare('SELECT * FROM spaces WHERE title = ?').get(title) as {
    id: string;
    revision: string;
    share_key: string;
    created_at: string;
    updated_at: string;
    deleted_at: string | null;
  };
const spaceId = (title: string) => row(title).id;
const userId = (email: string) => g.platform.userId(email);
const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });
const gid = (id: string) => encodeGlobalID('Space', id);

/** The parts of an answer a test asserts as a whole: data, errors without locations, upstream count. */
async function run(query: string, variables?: Record<string, unknown>, options?: { token?: string }) {
  const result = await g.gql(query, variables, options);
  return {
    data: result.data,
    errors: result.errors?.map(({ message, path, extensions }) => ({ message, path, extensions })),
    upstream: result.upstream,
  };
}

/** Creates a space through the REST API (test setup, not under test). */
async function restSpace(body: Record<string, unknown>, org = 'northwind'): Promise<string> {
  const answer = await g.platform.api('POST', `/orgs/${org}/spaces`, { body });
  expect(answer.status).toBe(201);
  return answer.body.id as string;
}

const userError = (
  message: string,
  code: string,
  field: string[] | null = null,
  upstreamStatus: number | null = null,
) => ({
  message,
  code,
  field,
  upstreamStatus,
});

describe('Organization.spaces', () => {
  it('lists the live spaces in tree order', async () => {
    const answer = await run(`
      query SpacesOfOrganization { organization(id: "northwind") { spaces { totalCount nodes { title } } } }
    `);
    expect(answer).toEqual({
      data: {
        organization: { spaces: { totalCount: TREE_SPACES.length, nodes: TREE_SPACES.map((title) => ({ title })) } },
      },
      upstream: 2,
    });
  });

  it('pages with first/after through totalCount', async () => {
    const query = `
      query SpacesPage($after: String) {
        organization(id: "northwind") {
          spaces(first: 7, after: $after) {
            totalCount
            pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
            edges { cursor node { title } }
          }
        }
      }
    `;
    const pages: Array<{ totalCount: number; hasNextPage: boolean; hasPreviousPage: boolean; titles: string[] }> = [];
    let after: string | null = null;
    do {
      const result: { data?: any; errors?: unknown; upstream: number } = await g.gql(query, { after });
      expect(result.errors).toBeUndefined();
      expect(result.upstream).toBe(2);
      const connection: any = result.data.organization.spaces;
      expect(connection.pageInfo.startCursor).toBe(connection.edges[0].cursor);
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1).cursor);
      pages.push({
        totalCount: connection.totalCount,
        hasNextPage: connection.pageInfo.hasNextPage,
        hasPreviousPage: connection.pageInfo.hasPreviousPage,
        titles: connection.edges.map((edge: any) => edge.node.title),
      });
      after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
    } while (after);
    expect(pages).toEqual([
      { totalCount: TREE_SPACES.length, hasNextPage: true, hasPreviousPage: false, titles: TREE_SPACES.slice(0, 7) },
      { totalCount: TREE_SPACES.length, hasNextPage: true, hasPreviousPage: true, titles: TREE_SPACES.slice(7, 14) },
      { totalCount: TREE_SPACES.length, hasNextPage: false, hasPreviousPage: true, titles: TREE_SPACES.slice(14) },
    ]);
  });

  it('refuses first: 1001, and paging both ways at once, with BAD_USER_INPUT', async () => {
    expect(
      await run(`query SpacesTooMany { organization(id: "northwind") { title spaces(first: 1001) { totalCount } } }`),
    ).toEqual({
      data: { organization: { title: 'Northwind Docs', spaces: null } },
      errors: [
        {
          message: '`first` must be between 0 and 1000',
          path: ['organization', 'spaces'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
    expect(
      await run(`query SpacesBothWays { organization(id: "northwind") { spaces(first: 1, last: 1) { totalCount } } }`),
    ).toEqual({
      data: { organization: { spaces: null } },
      errors: [
        {
          message: 'Page one way at a time: `first`/`after` forward, or `last`/`before` backward',
          path: ['organization', 'spaces'],
          extensions: { code: 'BAD_USER_INPUT', field: ['first'] },
        },
      ],
      upstream: 1,
    });
  });

  it('shows each member only the spaces they can see', async () => {
    const answer = await run(
      `query SpacesAsGuest { organization(id: "northwind") { spaces { totalCount nodes { title permissions { comment edit } } } } }`,
      undefined,
      as(U.gus),
    );
    expect(answer).toEqual({
      data: {
        organization: {
          spaces: {
            totalCount: 7,
            nodes: [
              { title: 'Performance tuning', permissions: { comment: false, edit: false } },
              { title: 'Security hardening', permissions: { comment: false, edit: false } },
              { title: 'Getting started', permissions: { comment: false, edit: false } },
              { title: 'Getting started (FR)', permissions: { comment: false, edit: false } },
              { title: 'Tutorials', permissions: { comment: true, edit: false } },
              { title: 'Guide de démarrage', permissions: { comment: false, edit: false } },
              { title: 'Erste Schritte', permissions: { comment: false, edit: false } },
            ],
          },
        },
      },
      upstream: 2,
    });
  });
});

describe('space(id:)', () => {
  it('answers every field of a space, with credentials removed from its Git URL', async () => {
    const handbook = row(S.gitSynced);
    // A Git URL with a token in it, as providers hand out for HTTPS clones.
    const gitSync = {
      repoName: 'northwind/handbook',
      installationProvider: 'github',
      integration: 'github',
      url: 'https://x-access-token:ghs_s3cr3tT0k3n@github.test/northwind/handbook.git',
      updatedAt: handbook.updated_at,
    };
    g.platform.db.prepare('UPDATE spaces SET git_sync = ? WHERE id = ?').run(JSON.stringify(gitSync), handbook.id);
    const result = await g.gql(
      `query SpaceFields($id: ID!) {
        space(id: $id) {
          id platformId title emoji visibility editMode language defaultLevel revisionId
          mergeRules { type rules { rule reviewers { id } } }
          urls { location app published public icon }
          gitSync { repoName installationProvider integration url updatedAt }
          visitorAuth { backend }
          counts { comments changeRequests changeRequestsOpen changeRequestsDraft }
          permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review installIntegration }
          createdAt updatedAt deletedAt
          organization { id platformId }
          parent { id }
        }
      }`,
      { id: handbook.id },
    );
    expect(JSON.stringify(result)).not.toContain('ghs_s3cr3tT0k3n');
    expect({ data: result.data, errors: result.errors, upstream: result.upstream }).toEqual({
      data: {
        space: {
          id: gid(handbook.id),
          platformId: handbook.id,
          title: 'Company handbook',
          emoji: '📘',
          visibility: 'PRIVATE',
          editMode: 'LIVE',
          language: 'en',
          defaultLevel: 'INHERIT',
          revisionId: handbook.revision,
          mergeRules: { type: 'INHERIT', rules: [] },
          urls: {
            location: `${base}/v1/spaces/${handbook.id}`,
            app: `${base}/app/s/${handbook.id}`,
            published: `${base}/published/${handbook.id}`,
            public: null,
            icon: null,
          },
          gitSync: {
            repoName: 'northwind/handbook',
            installationProvider: 'GITHUB',
            integration: 'github',
            url: 'https://***@github.test/northwind/handbook.git',
            updatedAt: handbook.updated_at,
          },
          visitorAuth: null,
          counts: { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 },
          permissions: {
            view: true,
            access: true,
            admin: true,
            viewInviteLinks: true,
            edit: true,
            triggerGitSync: true,
            comment: true,
            merge: true,
            review: true,
            installIntegration: true,
          },
          createdAt: handbook.created_at,
          updatedAt: handbook.updated_at,
          deletedAt: null,
          organization: { id: encodeGlobalID('Organization', 'northwind'), platformId: 'northwind' },
          parent: null,
        },
      },
      errors: undefined,
      upstream: 1,
    });
  });

  it('answers merge rules, visitor auth and the public URL of other spaces', async () => {
    const api = spaceId(S.visitorAuth);
    const notes = spaceId(S.public);
    const answer = await run(
      `query SpaceSettings($api: ID!, $notes: ID!) {
        api: space(id: $api) { visibility mergeRules { type rules { rule reviewers { platformId } } } visitorAuth { backend } }
        notes: space(id: $notes) { visibility urls { public } }
      }`,
      { api, notes },
    );
    expect(answer).toEqual({
      data: {
        api: {
          visibility: 'VISITOR_AUTH',
          mergeRules: {
            type: 'RULES',
            rules: [{ rule: 'REQUIRE_SPECIFIC_REVIEWERS', reviewers: [{ platformId: userId(U.cy) }] }],
          },
          visitorAuth: { backend: 'CUSTOM' },
        },
        notes: { visibility: 'PUBLIC', urls: { public: `${base}/published/${notes}` } },
      },
      upstream: 2,
    });
  });

  it('answers ids of its organization and parent from the space alone: 1 request', async () => {
    const id = spaceId(S.userGrant);
    const answer = await run(
      `query SpaceLinkIds($id: ID!) { space(id: $id) { organization { id platformId } parent { id } } }`,
      { id },
    );
    expect(answer).toEqual({
      data: {
        space: {
          organization: { id: encodeGlobalID('Organization', 'northwind'), platformId: 'northwind' },
          parent: { id: encodeGlobalID('Collection', C.engineering) },
        },
      },
      upstream: 1,
    });
  });

  it('fetches its organization and parent concurrently: 3 requests', async () => {
    const id = spaceId(S.userGrant);
    const result = await g.gql(
      `query SpaceLinks($id: ID!) { space(id: $id) { organization { title } parent { title } } }`,
      { id },
    );
    expect({ data: result.data, errors: result.errors, upstream: result.upstream }).toEqual({
      data: { space: { organization: { title: 'Northwind Docs' }, parent: { title: 'Engineering' } } },
      errors: undefined,
      upstream: 3,
    });
    expect(result.upstreamRequests[0]).toBe(`GET /v1/spaces/${id}`);
    expect(result.upstreamRequests.slice(1).sort()).toEqual([
      `GET /v1/collections/${C.engineering}`,
      'GET /v1/orgs/northwind',
    ]);
  });

  it('asks once for the same space requested twice through aliases', async () => {
    const id = spaceId(S.teamGrant);
    const answer = await run(
      `query SpaceTwice($id: ID!, $global: ID!) { a: space(id: $id) { title } b: space(id: $global) { emoji } }`,
      { id, global: gid(id) },
    );
    expect(answer).toEqual({
      data: { a: { title: 'Architecture decisions' }, b: { emoji: '🏛️' } },
      upstream: 1,
    });
  });

  it('reads spaces that came in a list from the list: no request for their by-id lookups', async () => {
    // The spaces of Engineering name Engineering as parent: it is read from the collection list.
    const answer = await run(`
      query SpacesFromLists {
        organization(id: "northwind") {
          collections(nested: false) { nodes { title spaces(first: 5) { nodes { title parent { title } } } } }
        }
      }
    `);
    expect(answer).toEqual({
      data: {
        organization: {
          collections: {
            nodes: [
              {
                title: 'Product',
                spaces: {
                  nodes: ['Product overview', 'Release notes', 'Roadmap', 'Pricing FAQ'].map((title) => ({
                    title,
                    parent: { title: 'Product' },
                  })),
                },
              },
              {
                title: 'Engineering',
                spaces: {
                  nodes: ['API reference', 'Architecture decisions', 'Runbooks'].map((title) => ({
                    title,
                    parent: { title: 'Engineering' },
                  })),
                },
              },
              {
                title: 'Internal',
                spaces: {
                  nodes: ['Onboarding checklist', 'Incident postmortems'].map((title) => ({
                    title,
                    parent: { title: 'Internal' },
                  })),
                },
              },
            ],
          },
        },
      },
      upstream: 5,
    });
  });

  it('serves a by-id lookup from a list read earlier for the same request: no extra request', async () => {
    // Two operations run on one request context, so the second sees what the first primed.
    const ctx = createContext(
      g.gateway.client,
      {
        request: new Request('http://gateway.test/graphql', {
          headers: { authorization: `Bearer ${g.platform.adminToken}` },
        }),
      },
      g.gateway.limits,
    );
    ctx.api.onInvalidate(() => clearLoaders(ctx));
    const id = spaceId(S.userGrant);
    g.platform.app.stats.reset();
    // graphql-js's own `execute` refuses a schema that declares @defer: its incremental entry point runs it whole.
    const run = async (source: string, variableValues?: Record<string, unknown>) =>
      (await experimentalExecuteIncrementally({
        schema,
        contextValue: ctx,
        document: parse(source),
        ...(variableValues ? { variableValues } : {}),
      })) as ExecutionResult;
    const list = await run(`query SpacesList { organization(id: "northwind") { spaces { nodes { id title } } } }`);
    expect(list.errors).toBeUndefined();
    expect(g.platform.app.stats.count).toBe(2);
    g.platform.app.stats.reset();
    const byId = await run(
      `query SpaceById($id: ID!, $global: ID!) {
        space(id: $id) { title parent { id } }
        node(id: $global) { ... on Space { emoji } }
      }`,
      { id, global: gid(id) },
    );
    expect(byId).toEqual({
      data: {
        space: { title: 'Runbooks', parent: { id: encodeGlobalID('Collection', C.engineering) } },
        node: { emoji: '🛠️' },
      },
    });
    expect(g.platform.app.stats.count).toBe(0);
  });

  it('fetches a root space(id:) beside a list in the same operation: root fields start together', async () => {
    const id = spaceId(S.userGrant);
    const result = await g.gql(
      `query SpacesListBesideById($id: ID!) { organization(id: "northwind") { spaces { nodes { id title } } } space(id: $id) { title } }`,
      { id },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.space).toEqual({ title: 'Runbooks' });
    expect(result.data.organization.spaces.nodes).toContainEqual({ id: gid(id), title: 'Runbooks' });
    // The lookup leaves before the list has answered, so the list cannot serve it.
    expect(result.upstream).toBe(3);
    expect(result.upstreamRequests.slice(0, 2).sort()).toEqual([`GET /v1/orgs/northwind`, `GET /v1/spaces/${id}`]);
    expect(result.upstreamRequests[2]).toBe('GET /v1/orgs/northwind/spaces?limit=50');
  });

  it('answers null with NOT_FOUND for a missing space while the rest resolves', async () => {
    const answer = await run(
      `query SpaceMissing($id: ID!) { missing: space(id: "no-such-space") { title } found: space(id: $id) { title } }`,
      { id: spaceId(S.locked) },
    );
    expect(answer).toEqual({
      data: { missing: null, found: { title: 'Security hardening' } },
      errors: [
        { message: 'Space not found', path: ['missing'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } },
      ],
      upstream: 2,
    });
  });

  it('opens a share-link space for an outsider only with its share key', async () => {
    const erste = row(S.shareLink);
    const answer = await run(
      `query SpaceShareKey($id: ID!, $key: String!) {
        withKey: space(id: $id, shareKey: $key) { title visibility language permissions { view access } parent { id } }
        withoutKey: space(id: $id) { title }
      }`,
      { id: gid(erste.id), key: erste.share_key },
      as(U.hana),
    );
    expect(answer).toEqual({
      data: {
        withKey: {
          title: 'Erste Schritte',
          visibility: 'SHARE_LINK',
          language: 'de',
          permissions: { view: true, access: false },
          parent: { id: encodeGlobalID('Collection', C.guides) },
        },
        withoutKey: null,
      },
      errors: [
        { message: 'Space not found', path: ['withoutKey'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } },
      ],
      upstream: 2,
    });
  });

  it('round-trips through node(id:)', async () => {
    const id = spaceId(S.locked);
    const answer = await run(
      `query SpaceNode($id: ID!) { node(id: $id) { __typename id ... on Space { platformId title editMode permissions { edit } } } }`,
      { id: gid(id) },
    );
    expect(answer).toEqual({
      data: {
        node: {
          __typename: 'Space',
          id: gid(id),
          platformId: id,
          title: 'Security hardening',
          editMode: 'LOCKED',
          permissions: { edit: false },
        },
      },
      upstream: 1,
    });
  });

  it('shows a deleted space to its admins with deletedAt', async () => {
    const deleted = row(S.deleted);
    const answer = await run(`query SpaceDeleted($id: ID!) { space(id: $id) { title deletedAt } }`, { id: deleted.id });
    expect(answer).toEqual({
      data: { space: { title: 'SDK changelog', deletedAt: deleted.deleted_at } },
      upstream: 1,
    });
  });
});

describe('space mutations', () => {
  const fields =
    'platformId title emoji visibility editMode language parent { platformId } organization { platformId }';

  it('createSpace creates a space with every setting', async () => {
    const answer = await run(
      `mutation CreateSpace($input: CreateSpaceInput!) { createSpace(input: $input) { space { ${fields} permissions { admin } } userErrors { code } } }`,
      {
        input: {
          organizationId: encodeGlobalID('Organization', 'northwind'),
          title: 'Field notes',
          emoji: '📝',
          parentId: encodeGlobalID('Collection', C.guides),
          language: 'FR',
          editMode: 'LOCKED',
          visibility: 'IN_COLLECTION',
        },
      },
    );
    expect(answer).toEqual({
      data: {
        createSpace: {
          space: {
            platformId: spaceId('Field notes'),
            title: 'Field notes',
            emoji: '📝',
            visibility: 'IN_COLLECTION',
            editMode: 'LOCKED',
            language: 'fr',
            parent: { platformId: C.guides },
            organization: { platformId: 'northwind' },
            permissions: { admin: true },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
  });

  it('createSpace checks its input before any request and reports refusals', async () => {
    const mutation = `mutation CreateSpaceFails($input: CreateSpaceInput!) { createSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`;
    expect(
      await run(mutation, {
        input: { organizationId: 'northwind', title: 'y'.repeat(51), visibility: 'IN_COLLECTION' },
      }),
    ).toEqual({
      data: {
        createSpace: {
          space: null,
          userErrors: [
            userError('title: must be 1 to 50 characters', 'BAD_USER_INPUT', ['title']),
            userError('IN_COLLECTION needs a parentId', 'BAD_USER_INPUT', ['visibility']),
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { organizationId: 'northwind', title: 'Mine' } }, as(U.finn))).toEqual({
      data: {
        createSpace: {
          space: null,
          userErrors: [userError('This needs the create role in the organization', 'FORBIDDEN', null, 403)],
        },
      },
      upstream: 1,
    });
    // An organization the platform does not know is named as the input field it came from.
    const unknown = await run(mutation, { input: { organizationId: 'no-such-organization', title: 'Mine' } });
    expect(unknown.data.createSpace.userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['organizationId'], upstreamStatus: 404 }),
    ]);
  });

  it('updateSpace changes settings; a null emoji removes it', async () => {
    const id = await restSpace({ title: 'To update', emoji: '🧪' });
    const answer = await run(
      `mutation UpdateSpace($input: UpdateSpaceInput!) {
        updateSpace(input: $input) {
          space { title emoji editMode language defaultLevel mergeRules { type rules { reviewers { platformId } } } permissions { edit } }
          userErrors { code }
        }
      }`,
      {
        input: {
          spaceId: gid(id),
          title: 'Updated space',
          emoji: null,
          editMode: 'LOCKED',
          language: 'de',
          defaultLevel: 'COMMENT',
          mergeRules: { type: 'RULES', requiredReviewers: [encodeGlobalID('User', userId(U.cy))] },
        },
      },
    );
    expect(answer).toEqual({
      data: {
        updateSpace: {
          space: {
            title: 'Updated space',
            emoji: null,
            editMode: 'LOCKED',
            language: 'de',
            defaultLevel: 'COMMENT',
            mergeRules: { type: 'RULES', rules: [{ reviewers: [{ platformId: userId(U.cy) }] }] },
            permissions: { edit: false },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
    const inherit = await run(
      `mutation UpdateSpaceInherit($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { editMode mergeRules { type } } userErrors { code } } }`,
      { input: { spaceId: id, editMode: 'LIVE', mergeRules: { type: 'INHERIT' } } },
    );
    expect(inherit).toEqual({
      data: { updateSpace: { space: { editMode: 'LIVE', mergeRules: { type: 'INHERIT' } }, userErrors: [] } },
      upstream: 1,
    });
  });

  it('updateSpace sets merge rules of every kind, in order, and refuses users on rules that name none', async () => {
    const id = await restSpace({ title: 'Rules of every kind' });
    const mutation = `mutation UpdateSpaceRules($input: UpdateSpaceInput!) {
      updateSpace(input: $input) { space { mergeRules { type rules { rule reviewers { platformId } } } } userErrors { message code field upstreamStatus } }
    }`;
    const answer = await run(mutation, {
      input: {
        spaceId: id,
        mergeRules: {
          type: 'RULES',
          rules: [
            { kind: 'REQUIRE_AT_LEAST_ONE_APPROVED_REVIEW' },
            { kind: 'REQUIRE_ONE_OF_SPECIFIC_REVIEWERS', reviewerIds: [userId(U.cy), userId(U.dee)] },
            { kind: 'ALLOW_BYPASS', reviewerIds: [encodeGlobalID('User', userId(U.ada))] },
          ],
        },
      },
    });
    expect(answer.data.updateSpace).toEqual({
      space: {
        mergeRules: {
          type: 'RULES',
          rules: [
            { rule: 'REQUIRE_AT_LEAST_ONE_APPROVED_REVIEW', reviewers: [] },
            {
              rule: 'REQUIRE_ONE_OF_SPECIFIC_REVIEWERS',
              reviewers: [{ platformId: userId(U.cy) }, { platformId: userId(U.dee) }],
            },
            { rule: 'ALLOW_BYPASS', reviewers: [{ platformId: userId(U.ada) }] },
          ],
        },
      },
      userErrors: [],
    });
    const refused = await run(mutation, {
      input: {
        spaceId: id,
        mergeRules: {
          type: 'RULES',
          rules: [{ kind: 'REQUIRE_AUTHOR_TO_MERGE', reviewerIds: [userId(U.cy)] }, { kind: 'ALLOW_BYPASS' }],
        },
      },
    });
    expect(refused).toMatchObject({
      data: {
        updateSpace: {
          space: null,
          userErrors: [
            { code: 'BAD_USER_INPUT', field: ['mergeRules', 'rules', '0', 'reviewerIds'] },
            { code: 'BAD_USER_INPUT', field: ['mergeRules', 'rules', '1', 'reviewerIds'] },
          ],
        },
      },
      upstream: 0,
    });
    // Rules the embedded platform cannot evaluate are refused by it, not silently stored.
    const custom = await run(mutation, {
      input: { spaceId: id, mergeRules: { type: 'RULES', rules: [{ kind: 'CUSTOM' }] } },
    });
    expect(custom.data.updateSpace.userErrors).toMatchObject([{ code: 'BAD_USER_INPUT', upstreamStatus: 400 }]);
  });

  it('updateSpace rejects bad input without a request, and a reader with FORBIDDEN', async () => {
    const mutation = `mutation UpdateSpaceFails($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`;
    const id = spaceId(S.public);
    expect(await run(mutation, { input: { spaceId: id, title: 'z'.repeat(51), editMode: null } })).toEqual({
      data: {
        updateSpace: {
          space: null,
          userErrors: [
            userError('title: must be 1 to 50 characters', 'BAD_USER_INPUT', ['title']),
            userError('editMode: cannot be null', 'BAD_USER_INPUT', ['editMode']),
          ],
        },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { spaceId: id } })).toEqual({
      data: {
        updateSpace: { space: null, userErrors: [userError('Give at least one field to change', 'BAD_USER_INPUT')] },
      },
      upstream: 0,
    });
    expect(await run(mutation, { input: { spaceId: id, title: 'Finn was here' } }, as(U.finn))).toEqual({
      data: {
        updateSpace: {
          space: null,
          userErrors: [
            userError('Changing the title, emoji or language of a space needs the edit role', 'FORBIDDEN', null, 403),
          ],
        },
      },
      upstream: 1,
    });
    expect(row(S.public).id).toBe(id);
  });

  it('deleteSpace answers deleted true, then false; restoreSpace brings the space back', async () => {
    const id = await restSpace({ title: 'Short-lived' });
    const remove = `mutation DeleteSpace($input: DeleteSpaceInput!) { deleteSpace(input: $input) { deleted deletedId userErrors { code } } }`;
    // The global ID of what was deleted, for clients' caches, also when nothing was left to delete.
    expect(await run(remove, { input: { spaceId: gid(id) } })).toEqual({
      data: { deleteSpace: { deleted: true, deletedId: gid(id), userErrors: [] } },
      upstream: 1,
    });
    expect(await run(remove, { input: { spaceId: id } })).toEqual({
      data: { deleteSpace: { deleted: false, deletedId: gid(id), userErrors: [] } },
      upstream: 1,
    });
    expect(await run(remove, { input: { spaceId: spaceId(S.userGrant) } }, as(U.finn))).toEqual({
      data: { deleteSpace: { deleted: false, deletedId: null, userErrors: [{ code: 'FORBIDDEN' }] } },
      upstream: 1,
    });
    expect(await run(remove, { input: { spaceId: '' } })).toEqual({
      data: { deleteSpace: { deleted: false, deletedId: null, userErrors: [{ code: 'BAD_USER_INPUT' }] } },
      upstream: 0,
    });
    const restore = `mutation RestoreSpace($input: RestoreSpaceInput!) { restoreSpace(input: $input) { space { platformId title deletedAt } userErrors { message code field upstreamStatus } } }`;
    expect(await run(restore, { input: { spaceId: gid(id) } })).toEqual({
      data: { restoreSpace: { space: { platformId: id, title: 'Short-lived', deletedAt: null }, userErrors: [] } },
      upstream: 1,
    });
    expect(await run(restore, { input: { spaceId: id } })).toEqual({
      data: { restoreSpace: { space: null, userErrors: [userError('Space is not deleted', 'CONFLICT', null, 409)] } },
      upstream: 1,
    });
  });

  it('restoreSpace of a space deleted more than 7 days ago is NOT_FOUND', async () => {
    const answer = await run(
      `mutation RestoreExpired($input: RestoreSpaceInput!) { restoreSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`,
      { input: { spaceId: spaceId(S.expired) } },
    );
    expect(answer).toEqual({
      data: {
        restoreSpace: {
          space: null,
          userErrors: [userError('Space not found: input field "spaceId"', 'NOT_FOUND', ['spaceId'], 404)],
        },
      },
      upstream: 1,
    });
  });

  it('restoreSpace restores a space deleted two days ago', async () => {
    const answer = await run(
      `mutation RestoreDemo($input: RestoreSpaceInput!) { restoreSpace(input: $input) { space { title deletedAt parent { title } } userErrors { code } } }`,
      { input: { spaceId: spaceId(S.deleted) } },
    );
    expect(answer).toEqual({
      data: {
        restoreSpace: {
          space: { title: 'SDK changelog', deletedAt: null, parent: { title: 'Engineering' } },
          userErrors: [],
        },
      },
      upstream: 2,
    });
  });

  it('duplicateSpace copies a space next to the original', async () => {
    const original = spaceId(S.teamGrant);
    const answer = await run(
      `mutation DuplicateSpace($input: DuplicateSpaceInput!) { duplicateSpace(input: $input) { space { ${fields} } userErrors { code } } }`,
      { input: { spaceId: gid(original) } },
    );
    const copy = spaceId('Architecture decisions (copy)');
    expect(answer).toEqual({
      data: {
        duplicateSpace: {
          space: {
            platformId: copy,
            title: 'Architecture decisions (copy)',
            emoji: '🏛️',
            visibility: 'PRIVATE',
            editMode: 'LIVE',
            language: null,
            parent: { platformId: C.engineering },
            organization: { platformId: 'northwind' },
          },
          userErrors: [],
        },
      },
      upstream: 1,
    });
    expect(copy).not.toBe(original);
    const missing = await run(
      `mutation DuplicateMissing($input: DuplicateSpaceInput!) { duplicateSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`,
      { input: { spaceId: 'no-such-space' } },
    );
    expect(missing).toEqual({
      data: {
        duplicateSpace: {
          space: null,
          userErrors: [userError('Space not found: input field "spaceId"', 'NOT_FOUND', ['spaceId'], 404)],
        },
      },
      upstream: 1,
    });
  });

  it('moveSpace moves into a collection, to the top level and next to a sibling', async () => {
    const id = await restSpace({ title: 'Wanderer' });
    const mutation = `mutation MoveSpace($input: MoveSpaceInput!) { moveSpace(input: $input) { space { title parent { platformId } } userErrors { message code field upstreamStatus } } }`;
    expect(
      await run(mutation, {
        input: {
          spaceId: gid(id),
          parentId: encodeGlobalID('Collection', C.internal),
          position: { before: gid(spaceId('Incident postmortems')) },
        },
      }),
    ).toEqual({
      data: { moveSpace: { space: { title: 'Wanderer', parent: { platformId: C.internal } }, userErrors: [] } },
      upstream: 1,
    });
    const internal = await g.gql(
      `query MovedSpaces { collection(id: "${C.internal}") { spaces { nodes { title } } } }`,
    );
    expect(internal.data.collection.spaces.nodes).toEqual([
      { title: 'Onboarding checklist' },
      { title: 'Wanderer' },
      { title: 'Incident postmortems' },
    ]);
    expect(
      await run(mutation, {
        input: { spaceId: id, parentId: null, position: { after: encodeGlobalID('Collection', C.product) } },
      }),
    ).toEqual({
      data: { moveSpace: { space: { title: 'Wanderer', parent: null }, userErrors: [] } },
      upstream: 1,
    });
  });

  it('moveSpace reports invalid positions and moves that change nothing', async () => {
    const id = spaceId(S.userGrant);
    const mutation = `mutation MoveSpaceFails($input: MoveSpaceInput!) { moveSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`;
    const failure = (error: ReturnType<typeof userError>, upstream: number) => ({
      data: { moveSpace: { space: null, userErrors: [error] } },
      upstream,
    });
    // "Status page" is at the top level, not in Engineering where Runbooks stays.
    const statusPage = spaceId('Status page');
    expect(await run(mutation, { input: { spaceId: id, position: { after: gid(statusPage) } } })).toEqual(
      failure(
        userError(
          `Invalid input field "position.after": ${statusPage} is not a space or collection of the target parent`,
          'BAD_USER_INPUT',
          ['position', 'after'],
          400,
        ),
        1,
      ),
    );
    expect(
      await run(mutation, { input: { spaceId: id, position: { before: gid(statusPage), after: gid(statusPage) } } }),
    ).toEqual(failure(userError('position: give exactly one of before or after', 'BAD_USER_INPUT', ['position']), 0));
    expect(await run(mutation, { input: { spaceId: id } })).toEqual(
      failure(userError('Give parentId, position or both', 'BAD_USER_INPUT'), 0),
    );
    // A new space is the last item of the top level already.
    const newest = await restSpace({ title: 'Already last' });
    expect(await run(mutation, { input: { spaceId: newest, parentId: null } })).toEqual(
      failure(userError('The space is already at that place: nothing to update', 'CONFLICT', null, 409), 1),
    );
    expect(await run(mutation, { input: { spaceId: spaceId('Roadmap'), parentId: null } })).toEqual(
      failure(
        userError(
          'Invalid input field "parentId": a space with in-collection visibility must stay in a collection',
          'BAD_USER_INPUT',
          ['parentId'],
          400,
        ),
        1,
      ),
    );
  });

  it('transferSpace moves a space to another organization', async () => {
    const id = await restSpace({ title: 'Emigrant', parent: C.engineering });
    const answer = await run(
      `mutation TransferSpace($input: TransferSpaceInput!) {
        transferSpace(input: $input) { space { title organization { title } parent { title } } userErrors { code } }
      }`,
      {
        input: {
          spaceId: gid(id),
          organizationId: encodeGlobalID('Organization', 'southwind'),
          parentId: C.southHandbook,
        },
      },
    );
    expect(answer).toEqual({
      data: {
        transferSpace: {
          space: { title: 'Emigrant', organization: { title: 'Southwind' }, parent: { title: 'Handbook' } },
          userErrors: [],
        },
      },
      upstream: 3,
    });
  });

  it('transferSpace to where the space already is is a CONFLICT', async () => {
    const mutation = `mutation TransferSpaceFails($input: TransferSpaceInput!) { transferSpace(input: $input) { space { title } userErrors { message code field upstreamStatus } } }`;
    expect(await run(mutation, { input: { spaceId: spaceId(S.userGrant), organizationId: 'northwind' } })).toEqual({
      data: {
        transferSpace: {
          space: null,
          userErrors: [
            userError(
              'The space is already in that organization and collection: nothing to update',
              'CONFLICT',
              null,
              409,
            ),
          ],
        },
      },
      upstream: 1,
    });
    expect(await run(mutation, { input: { spaceId: spaceId(S.userGrant) } })).toEqual({
      data: {
        transferSpace: {
          space: null,
          userErrors: [userError('Give organizationId, parentId or both', 'BAD_USER_INPUT')],
        },
      },
      upstream: 0,
    });
    expect(
      await run(mutation, { input: { spaceId: spaceId(S.public), organizationId: 'southwind' } }, as(U.dee)),
    ).toEqual({
      data: {
        transferSpace: {
          space: null,
          userErrors: [userError('Transferring a space needs the admin role', 'FORBIDDEN', null, 403)],
        },
      },
      upstream: 1,
    });
  });
});
