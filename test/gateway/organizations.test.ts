import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { createGateway } from '../../src/gateway/http/server.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

let g: TestGateway;
/** ada and finn of Northwind, hana of Southwind, ivy of no organization but of Northwind's e-mail domain. */
const users = {} as Record<'ada' | 'finn' | 'hana' | 'ivy', TestUser>;

/**
 * Northwind Docs (plan pro, product docs, e-mail domain northwind.test, default role `read`): ada admin, finn
 * `read`; two sites, the first its default content; agent instructions by ada; an invite link. Southwind: ada
 * admin, hana `edit`.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  const p = g.platform;
  users.ada = addUser(p, 'ada', { email: 'ada@northwind.test', name: 'Ada Lovelace' });
  users.finn = addUser(p, 'finn', { email: 'finn@northwind.test' });
  users.hana = addUser(p, 'hana', { email: 'hana@southwind.test' });
  users.ivy = addUser(p, 'ivy', { email: 'ivy@northwind.test' });
  const org = addOrg(p, {
    id: 'northwind',
    title: 'Northwind Docs',
    members: { ada: 'admin', finn: 'read' },
    users,
    emailDomains: ['northwind.test'],
    plan: 'pro',
    defaultRole: 'read',
  });
  addOrg(p, { id: 'southwind', title: 'Southwind', members: { ada: 'admin', hana: 'edit' }, users });
  p.db.prepare("UPDATE organizations SET use_case = 'productDocs' WHERE id = 'northwind'").run();
  const space = await org.space('Getting started', { visibility: 'public' });
  const docs = await org.site('Docs', { spaces: [space] });
  await org.site('Partners', { spaces: [space] });
  const ok = async (method: string, path: string, body: unknown) =>
    expect((await p.api(method, path, { body })).status, `${method} ${path}`).toBe(200);
  await ok('PATCH', '/orgs/northwind', { defaultContent: { type: 'site', site: docs } });
  const text = 'Answer in a friendly tone.';
  const leaf = { object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] };
  const paragraph = { object: 'block', type: 'paragraph', key: 'p1', isVoid: false, data: {}, nodes: [leaf] };
  await ok('PUT', '/orgs/northwind/agent-instructions', {
    instructions: { object: 'document', data: { schemaVersion: 1 }, nodes: [paragraph] },
  });
  // The API makes no invite links: they are rows of the platform's store.
  p.db
    .prepare("INSERT INTO link_invites (id, org_id, role, created_at) VALUES ('invite-1', 'northwind', 'read', ?)")
    .run(new Date().toISOString());
});
afterAll(() => g.destroy());

describe('organizations', () => {
  it('lists the viewer organizations as a connection with totalCount and cursors', async () => {
    const first = await g.gql(
      `{ organizations(first: 1) { totalCount edges { cursor node { platformId title } } pageInfo { hasNextPage hasPreviousPage endCursor } } }`,
    );
    expect(first.errors).toBeUndefined();
    expect(first.data.organizations.totalCount).toBe(2);
    expect(first.data.organizations.edges.map((e: any) => e.node)).toEqual([
      { platformId: 'northwind', title: 'Northwind Docs' },
    ]);
    expect(first.data.organizations.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const after = first.data.organizations.pageInfo.endCursor;
    const second = await g.gql(
      `query ($after: String) { organizations(first: 5, after: $after) { nodes { platformId } pageInfo { hasNextPage hasPreviousPage } } }`,
      { after },
    );
    expect(second.data.organizations).toEqual({
      nodes: [{ platformId: 'southwind' }],
      pageInfo: { hasNextPage: false, hasPreviousPage: true },
    });
    expect(second.upstream).toBe(1);
  });

  it('rejects oversized pages both ways and foreign cursors before calling upstream', async () => {
    const result = await g.gql(`{ a: organizations(last: 1001) { totalCount } }`);
    expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: ['last'] } });
    const big = await g.gql(`{ organizations(first: 1001) { totalCount } }`);
    expect(big.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: ['first'] } });
    const cursor = await g.gql(`{ organizations(after: "not-a-cursor") { totalCount } }`);
    expect(cursor.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: ['after'] } });
    const backCursor = await g.gql(`{ organizations(before: "not-a-cursor") { edges { cursor } } }`);
    expect(backCursor.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: ['before'] } });
    // Asked only for its count, a backward page still has its cursor checked.
    const countedBack = await g.gql(`{ organizations(before: "not-a-cursor") { totalCount } }`);
    expect(countedBack.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: ['before'] } });
    expect(result.upstream + big.upstream + cursor.upstream + backCursor.upstream + countedBack.upstream).toBe(0);
  });

  it('answers a lookup with the platform id or the global ID, and null + NOT_FOUND for a missing one', async () => {
    const globalId = encodeGlobalID('Organization', 'southwind');
    const result = await g.gql(
      `query ($g: ID!) { byId: organization(id: "northwind") { id title } byGlobal: organization(id: $g) { platformId } missing: organization(id: "nope") { title } }`,
      { g: globalId },
    );
    expect(result.data).toEqual({
      byId: { id: encodeGlobalID('Organization', 'northwind'), title: 'Northwind Docs' },
      byGlobal: { platformId: 'southwind' },
      missing: null,
    });
    expect(result.errors).toEqual([
      expect.objectContaining({ path: ['missing'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }),
    ]);
    expect(result.upstream).toBe(3);
  });

  it('answers the closed sets of the platform as enums', async () => {
    const result = await g.gql(`{ organization(id: "northwind") {
      type useCase communityType plan billing { interval } trial { status decision } blocked { source } defaultContent { type }
    } }`);
    expect(result.errors).toBeUndefined();
    expect(result.data.organization).toEqual({
      type: 'BUSINESS',
      useCase: 'PRODUCT_DOCS',
      communityType: null,
      plan: 'PRO',
      billing: { interval: 'MONTHLY' },
      trial: { status: 'NONE', decision: null },
      blocked: null,
      defaultContent: { type: 'SITE' },
    });
  });

  it('makes each distinct GET once across aliases and reuses objects from lists', async () => {
    const result = await g.gql(`{
      a: organization(id: "northwind") { title }
      b: organization(id: "northwind") { plan }
      organizations { nodes { platformId } }
      again: organizations { totalCount }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data.a.title).toBe('Northwind Docs');
    expect(result.upstreamRequests.sort()).toEqual(['GET /v1/orgs/northwind', 'GET /v1/orgs?limit=50']);

    const primed = await g.gql(`{ organizations { nodes { platformId } } }`);
    expect(primed.upstream).toBe(1);
  });

  it('fetches any node again through node(id:) and nodes(ids:)', async () => {
    const result = await g.gql(
      `query ($a: ID!, $u: ID!, $x: ID!) {
      node(id: $a) { __typename id ... on Organization { title } }
      nodes(ids: [$u, $x]) { __typename ... on User { displayName } }
    }`,
      {
        a: encodeGlobalID('Organization', 'northwind'),
        u: (await g.gql('{ viewer { id } }')).data.viewer.id,
        x: encodeGlobalID('Organization', 'missing'),
      },
    );
    expect(result.data.node).toEqual({
      __typename: 'Organization',
      id: encodeGlobalID('Organization', 'northwind'),
      title: 'Northwind Docs',
    });
    expect(result.data.nodes).toEqual([{ __typename: 'User', displayName: 'Ada Lovelace' }, null]);
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('finds organizations by e-mail domain for people of that domain', async () => {
    const ivy = users.ivy.token;
    const result = await g.gql(
      `{ organizationsByEmailDomain(domain: "NORTHWIND.test") { platformId title } }`,
      {},
      { token: ivy },
    );
    expect(result.data).toEqual({ organizationsByEmailDomain: [{ platformId: 'northwind', title: 'Northwind Docs' }] });
  });

  it('resolves merge-rule reviewers and agent instructions with their author', async () => {
    const result = await g.gql(`{ organization(id: "northwind") {
      permissions { admin listMembers createContent }
      agentInstructions { instructions { text } updatedBy { displayName } organization { platformId } }
      urls { location }
    } }`);
    expect(result.errors).toBeUndefined();
    expect(result.data.organization.permissions).toEqual({ admin: true, listMembers: true, createContent: true });
    expect(result.data.organization.agentInstructions).toEqual({
      instructions: { text: 'Answer in a friendly tone.' },
      updatedBy: { displayName: 'Ada Lovelace' },
      organization: { platformId: 'northwind' },
    });
    expect(result.data.organization.urls.location).toMatch(/\/v1\/orgs\/northwind$/);
    expect(result.upstream).toBe(3);
  });
});

describe('organization mutations', () => {
  it('updates settings, validating input before any upstream call', async () => {
    const bad = await g.gql(
      `mutation { updateOrganization(input: { organizationId: "northwind", title: "x", emailDomains: ["not a domain"] }) { organization { title } userErrors { code field message } } }`,
    );
    expect(bad.data.updateOrganization).toEqual({
      organization: null,
      userErrors: [
        { code: 'BAD_USER_INPUT', field: ['title'], message: 'title: must be 2 to 255 characters' },
        {
          code: 'BAD_USER_INPUT',
          field: ['emailDomains', '0'],
          message: 'emailDomains.0: must be a domain such as example.com',
        },
      ],
    });
    expect(bad.upstream).toBe(0);

    const script = await g.gql(
      `mutation { updateOrganization(input: { organizationId: "northwind", logo: "javascript:alert(1)" }) { userErrors { code field message } } }`,
    );
    expect(script.data.updateOrganization.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['logo'], message: 'logo: must be an http(s) URL' },
    ]);
    expect(script.upstream).toBe(0);

    const empty = await g.gql(
      `mutation { updateOrganization(input: { organizationId: "northwind" }) { userErrors { code message } } }`,
    );
    expect(empty.data.updateOrganization.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', message: 'Give at least one field to change' },
    ]);
    expect(empty.upstream).toBe(0);

    const ok = await g.gql(`mutation {
      updateOrganization(input: { organizationId: "northwind", title: "Northwind Documentation", defaultRole: COMMENT,
        mergeRules: { type: RULES, requiredReviewers: ["${(await g.gql('{ viewer { platformId } }')).data.viewer.platformId}"] } }) {
        organization { title defaultRole mergeRules { type rules { rule reviewers { displayName } } } }
        userErrors { code }
      } }`);
    expect(ok.data.updateOrganization).toEqual({
      organization: {
        title: 'Northwind Documentation',
        defaultRole: 'COMMENT',
        mergeRules: {
          type: 'RULES',
          rules: [{ rule: 'REQUIRE_SPECIFIC_REVIEWERS', reviewers: [{ displayName: 'Ada Lovelace' }] }],
        },
      },
      userErrors: [],
    });
    const reread = await g.gql(`{ organization(id: "northwind") { title defaultRole } }`);
    expect(reread.data.organization).toEqual({ title: 'Northwind Documentation', defaultRole: 'COMMENT' });
  });

  it('sets the default site by its global ID or its platform id, and removes it with null', async () => {
    const sites = await g.gql(
      `{ organization(id: "northwind") { defaultContent { siteId } sites(first: 2) { nodes { id platformId } } } }`,
    );
    const [first, second] = sites.data.organization.sites.nodes;
    const set = `mutation ($site: ID) { updateOrganization(input: { organizationId: "northwind", defaultContentSiteId: $site }) {
      organization { defaultContent { siteId } } userErrors { code field message } } }`;
    const byGlobalId = await g.gql(set, { site: second.id });
    expect(byGlobalId.data.updateOrganization.organization.defaultContent).toEqual({ siteId: second.platformId });
    const byPlatformId = await g.gql(set, { site: first.platformId });
    expect(byPlatformId.data.updateOrganization.organization.defaultContent).toEqual({ siteId: first.platformId });
    const space = encodeGlobalID('Space', 'any');
    const wrongType = await g.gql(set, { site: space });
    expect([wrongType.data.updateOrganization.userErrors, wrongType.upstream]).toEqual([
      [
        {
          code: 'BAD_USER_INPUT',
          field: ['defaultContentSiteId'],
          message: 'Expected the id of a Site, got the global ID of a Space',
        },
      ],
      0,
    ]);
    const removed = await g.gql(set, { site: null });
    expect(removed.data.updateOrganization.organization.defaultContent).toBeNull();
    await g.gql(set, { site: sites.data.organization.defaultContent.siteId });
  });

  it('reports a read member changing settings as FORBIDDEN and a stranger as NOT_FOUND', async () => {
    const finn = await g.gql(
      `mutation { updateOrganization(input: { organizationId: "northwind", ai: false }) { organization { ai } userErrors { code upstreamStatus } } }`,
      {},
      { token: users.finn.token },
    );
    expect(finn.data.updateOrganization).toEqual({
      organization: null,
      userErrors: [{ code: 'FORBIDDEN', upstreamStatus: 403 }],
    });
    const hana = await g.gql(
      `mutation { updateOrganization(input: { organizationId: "northwind", ai: false }) { userErrors { code } } }`,
      {},
      { token: users.hana.token },
    );
    expect(hana.data.updateOrganization.userErrors).toEqual([{ code: 'NOT_FOUND' }]);
  });

  it('replaces agent instructions from plain text', async () => {
    const result =
      await g.gql(`mutation { updateAgentInstructions(input: { organizationId: "northwind", instructions: { text: "Be brief.\\nCite sources." } }) {
      agentInstructions { instructions { text } updatedBy { displayName } } userErrors { code } } }`);
    expect(result.data.updateAgentInstructions).toEqual({
      agentInstructions: {
        instructions: { text: 'Be brief.\nCite sources.' },
        updatedBy: { displayName: 'Ada Lovelace' },
      },
      userErrors: [],
    });
    const both = await g.gql(
      `mutation { updateAgentInstructions(input: { organizationId: "northwind", instructions: { text: "a", json: {} } }) { userErrors { code field message } } }`,
    );
    expect(both.data.updateAgentInstructions.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['instructions'], message: 'instructions: give exactly one of text or json' },
    ]);
    expect(both.upstream).toBe(0);
  });

  it('joins an organization by e-mail domain, and refuses other domains', async () => {
    const ivy = await g.gql(
      `mutation { joinOrganization(input: { organizationId: "northwind" }) { organization { platformId permissions { view admin } } userErrors { code } } }`,
      {},
      { token: users.ivy.token },
    );
    expect(ivy.data.joinOrganization).toEqual({
      organization: { platformId: 'northwind', permissions: { view: true, admin: false } },
      userErrors: [],
    });
    const hana = await g.gql(
      `mutation { joinOrganization(input: { organizationId: "northwind" }) { organization { platformId } userErrors { code upstreamStatus } } }`,
      {},
      { token: users.hana.token },
    );
    expect(hana.data.joinOrganization).toEqual({
      organization: null,
      userErrors: [{ code: 'BAD_USER_INPUT', upstreamStatus: 400 }],
    });
  });

  it('revokes an invite link: deleted, then nothing to delete', async () => {
    const invite = g.platform.db.prepare("SELECT id FROM link_invites WHERE org_id = 'northwind'").get() as {
      id: string;
    };
    const query = `mutation ($id: ID!) { deleteOrganizationInvite(input: { organizationId: "northwind", inviteId: $id }) { deleted userErrors { code } } }`;
    expect((await g.gql(query, { id: invite.id })).data.deleteOrganizationInvite).toEqual({
      deleted: true,
      userErrors: [],
    });
    expect((await g.gql(query, { id: invite.id })).data.deleteOrganizationInvite).toEqual({
      deleted: false,
      userErrors: [],
    });
  });
});

describe('transport failures', () => {
  it('answers UNAUTHENTICATED without a token or with an unknown one', async () => {
    const none = await g.gql(`{ organization(id: "northwind") { title } }`, {}, { token: null });
    expect(none.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', upstreamStatus: 401 });
    const bad = await g.gql(`{ organization(id: "northwind") { title } }`, {}, { token: 'made-up' });
    expect(bad.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', upstreamStatus: 401 });
  });

  it('answers UPSTREAM_UNAVAILABLE when the upstream cannot be reached, without leaking credentials', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 1));
      });
    });
    const down = createGateway({
      upstreamUrl: `http://user:hunter2@127.0.0.1:${port}/v1`,
      graphiql: { enabled: false },
    });
    const response = await down.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ query: '{ viewer { displayName } }' }),
    });
    const text = await response.text();
    await down.close();
    expect(JSON.parse(text).errors[0].extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(text).not.toContain('hunter2');
  });

  it('refuses operations that are too deep before calling upstream', async () => {
    let deep = 'title';
    for (let level = 0; level < 8; level += 1) deep = `agentInstructions { organization { ${deep} } }`;
    deep = `{ organization(id: "northwind") { ${deep} } }`;
    const result = await g.gql(deep);
    expect(result.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT' } });
    expect(result.errors?.[0]?.message).toMatch(/^Query too deep/);
    expect(result.upstream).toBe(0);
  });
});
