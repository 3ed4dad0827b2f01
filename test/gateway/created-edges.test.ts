import { getNamedType, isObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema/index.js';
import { minimalWoff2 } from '../../src/platform/fonts/woff.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';

let g: TestGateway;
/** Global IDs of demo objects the creates below write into. */
const demo: Record<string, string> = {};

beforeAll(async () => {
  g = await startTestGateway();
  const read = await ok(`{
    organization(id: "acme") { sites(first: 100) { nodes { id title } } }
    integration(name: "video-embeds") { installations { nodes { id organization { platformId } } } }
    analytics: integration(name: "acme-analytics") { installations { nodes { id } } }
    space(id: "${g.platform.spaceId('Getting started')}") { id changeRequest(id: "2") { id } comments(first: 1) { nodes { id } } }
  }`);
  const site = (title: string) => read.organization.sites.nodes.find((node: any) => node.title === title).id;
  demo.docs = site('Acme Docs');
  demo.portal = site('Acme Partner Portal');
  demo.videoInstallation = read.integration.installations.nodes.find(
    (node: any) => node.organization.platformId === 'acme',
  ).id;
  demo.analyticsInstallation = read.analytics.installations.nodes[0].id;
  demo.gettingStarted = read.space.id;
  demo.changeRequest2 = read.space.changeRequest.id;
  demo.comment = read.space.comments.nodes[0].id;
  const docsSpaces = await ok(
    `query ($id: ID!) { node(id: $id) { ... on Site { siteSpaces(first: 1) { nodes { id } } } } }`,
    {
      id: demo.docs,
    },
  );
  demo.docsSiteSpace = docsSpaces.node.siteSpaces.nodes[0].id;
  // An integration of its own to install, and a font file to make a font of.
  await ok(`mutation {
    publishIntegration(input: { name: "edge-probe", organizationId: "acme", title: "Edge probe", description: "Installed by a test.",
      script: "export default {}", scopes: [], visibility: PUBLIC, target: ALL }) { integration { name } userErrors { code message } }
  }`);
  demo.fontKey = await upload(minimalWoff2('Edge Sans', 400));
  demo.markdownKey = await upload(
    new TextEncoder().encode('# Edge probe\n'),
    'IMPORT_FILE',
    'edge.md',
    'text/markdown',
  );
});

afterAll(() => g?.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) =>
  expectOk<T>(g, query, variables, token ? { token } : {});

/** Uploads a file (a font unless told) with `uploadFile` (a GraphQL multipart request) and answers its storage key. */
async function upload(
  bytes: Uint8Array,
  kind = 'CUSTOMIZATION_FONT',
  name = 'edge.woff2',
  type = 'font/woff2',
): Promise<string> {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: `mutation($file: Upload!) { uploadFile(input: { organizationId: "acme", kind: ${kind}, file: $file }) { file { key } userErrors { message } } }`,
      variables: { file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([new Uint8Array(bytes)], { type }), name);
  const response = await g.gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    // A multipart request needs a CSRF header, as Apollo Client's upload link sends it.
    headers: { authorization: `Bearer ${g.platform.adminToken}`, 'apollo-require-preflight': 'true' },
    body: form,
  });
  const body = (await response.json()) as any;
  expect(body.data.uploadFile.userErrors).toEqual([]);
  return body.data.uploadFile.file.key;
}

interface Connection {
  totalCount: number;
  pageInfo: { hasNextPage: boolean };
  edges: Array<{ cursor: string; node: unknown }>;
}

/**
 * A create and a list that holds what it makes. The mutation selects the new edge as `edge` and
 * the object as `made`, each with `identity`; the list query takes `$first` and `$after`.
 */
interface Create {
  mutation: string;
  variables?: () => Record<string, unknown>;
  token?: string;
  list: string;
  listVariables?: () => Record<string, unknown>;
  at: (data: any) => Connection;
}

const PAGE = (identity: string) => `totalCount pageInfo { hasNextPage } edges { cursor node { ${identity} } }`;
const ID = PAGE('id');

const CREATES: Record<string, Create> = {
  duplicateSiteSpace: {
    mutation: `mutation ($id: ID!) { duplicateSiteSpace(input: { siteSpaceId: $id }) {
      made: siteSpace { id } edge: siteSpaceEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: demo.docsSiteSpace }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { siteSpaces(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.docs }),
    at: (data) => data.node.siteSpaces,
  },
  postComment: {
    mutation: `mutation ($id: ID!) { postComment(input: { spaceId: $id, body: { text: "Edge probe" } }) {
      made: comment { id } edge: commentEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: demo.gettingStarted }),
    list: `query ($id: ID!, $first: Int, $after: String) { space(id: $id) { comments(first: $first, after: $after) { ${ID} } } }`,
    listVariables: () => ({ id: demo.gettingStarted }),
    at: (data) => data.space.comments,
  },
  postCommentReply: {
    mutation: `mutation ($id: ID!) { postCommentReply(input: { commentId: $id, body: { text: "Edge probe" } }) {
      made: reply { id } edge: replyEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: demo.comment }),
    list: `query ($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on Comment { replies(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ id: demo.comment }),
    at: (data) => data.node.replies,
  },
  createSpace: {
    mutation: `mutation { createSpace(input: { organizationId: "acme", title: "Edge probe", parentId: "col-product" }) {
      made: space { id } edge: spaceEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { spaces(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.spaces,
  },
  duplicateSpace: {
    mutation: `mutation ($id: ID!) { duplicateSpace(input: { spaceId: $id }) {
      made: space { id } edge: spaceEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: g.platform.spaceId('Release notes') }),
    list: `query ($first: Int, $after: String) { collection(id: "col-product") { spaces(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.collection.spaces,
  },
  createChangeRequest: {
    mutation: `mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Edge probe" }) {
      made: changeRequest { id } edge: changeRequestEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: demo.gettingStarted }),
    list: `query ($id: ID!, $first: Int, $after: String) { space(id: $id) { changeRequests(status: DRAFT, first: $first, after: $after) { ${ID} } } }`,
    listVariables: () => ({ id: demo.gettingStarted }),
    at: (data) => data.space.changeRequests,
  },
  createCollection: {
    mutation: `mutation { createCollection(input: { organizationId: "acme", title: "Edge probe", parentId: "col-product" }) {
      made: collection { id } edge: collectionEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { collections(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.collections,
  },
  createTeam: {
    mutation: `mutation { createTeam(input: { organizationId: "acme", title: "Edge probe" }) {
      made: team { id } edge: teamEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { teams(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.teams,
  },
  createSite: {
    mutation: `mutation { createSite(input: { organizationId: "acme", title: "Edge probe" }) {
      made: site { id } edge: siteEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { sites(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.sites,
  },
  addSpaceToSite: {
    mutation: `mutation ($site: ID!, $space: ID!) { addSpaceToSite(input: { siteId: $site, spaceId: $space }) {
      made: siteSpace { id } edge: siteSpaceEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ site: demo.portal, space: g.platform.spaceId('Runbooks') }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { siteSpaces(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.portal }),
    at: (data) => data.node.siteSpaces,
  },
  createSiteSection: {
    mutation: `mutation ($site: ID!, $space: ID!) { createSiteSection(input: { siteId: $site, spaceId: $space, title: "Edge probe" }) {
      made: siteSection { id } edge: siteSectionEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ site: demo.docs, space: g.platform.spaceId('Company handbook') }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { sections(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.docs }),
    at: (data) => data.node.sections,
  },
  createSiteSectionGroup: {
    mutation: `mutation ($site: ID!) { createSiteSectionGroup(input: { siteId: $site, title: "Edge probe" }) {
      made: siteSectionGroup { id } edge: siteSectionGroupEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ site: demo.docs }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { sectionGroups(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.docs }),
    at: (data) => data.node.sectionGroups,
  },
  createSiteRedirect: {
    mutation: `mutation ($site: ID!) { createSiteRedirect(input: { siteId: $site, source: "/edge-probe", destination: { url: "https://example.test/edge" } }) {
      made: redirect { id } edge: redirectEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ site: demo.docs }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { redirects(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.docs }),
    at: (data) => data.node.redirects,
  },
  createSiteShareLink: {
    mutation: `mutation ($site: ID!) { createSiteShareLink(input: { siteId: $site, name: "Edge probe" }) {
      made: shareLink { id } edge: shareLinkEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ site: demo.portal }),
    list: `query ($site: ID!, $first: Int, $after: String) { node(id: $site) { ... on Site { shareLinks(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ site: demo.portal }),
    at: (data) => data.node.shareLinks,
  },
  createCustomFont: {
    mutation: `mutation ($key: String!) { createCustomFont(input: { organizationId: "acme", fontFamily: "Edge Sans", fontFaces: [{ weight: 400, storageKey: $key }] }) {
      made: font { id } edge: fontEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ key: demo.fontKey }),
    list: `query ($first: Int, $after: String) { organization(id: "acme") { fonts(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.fonts,
  },
  createOrganizationInvite: {
    mutation: `mutation { createOrganizationInvite(input: { organizationId: "acme", role: READ }) {
      made: invite { id } edge: inviteEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { invites(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.invites,
  },
  startImportRun: {
    mutation: `mutation ($space: ID!, $key: String!) { startImportRun(input: { organizationId: "acme", spaceId: $space, files: [$key] }) {
      made: importRun { id } edge: importRunEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ space: demo.gettingStarted, key: demo.markdownKey }),
    list: `query ($first: Int, $after: String) { organization(id: "acme") { importRuns(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.importRuns,
  },
  createSamlProvider: {
    mutation: `mutation { createSamlProvider(input: { organizationId: "acme", label: "Edge probe" }) {
      made: provider { id } edge: providerEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { samlProviders(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.samlProviders,
  },
  createTranslation: {
    mutation: `mutation ($space: ID!) { createTranslation(input: { organizationId: "acme", language: ES, source: { spaceId: $space, language: EN } }) {
      made: translation { id } edge: translationEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ space: demo.gettingStarted }),
    list: `query ($first: Int, $after: String) { organization(id: "acme") { translations(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.translations,
  },
  createOpenApiSpec: {
    mutation: `mutation { createOpenApiSpec(input: { organizationId: "acme", slug: "edge-probe", source: { text: "openapi: 3.1.0\\ninfo:\\n  title: Edge\\n  version: '1'\\npaths: {}\\n" } }) {
      made: spec { id } edge: specEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { organization(id: "acme") { openApiSpecs(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.organization.openApiSpecs,
  },
  installIntegration: {
    mutation: `mutation { installIntegration(input: { integrationName: "edge-probe", organizationId: "acme" }) {
      made: installation { id } edge: installationEdge { cursor node { id } } userErrors { code message } } }`,
    list: `query ($first: Int, $after: String) { integration(name: "edge-probe") { installations(first: $first, after: $after) { ${ID} } } }`,
    at: (data) => data.integration.installations,
  },
  installIntegrationOnSpace: {
    mutation: `mutation ($id: ID!, $space: ID!) { installIntegrationOnSpace(input: { installationId: $id, spaceId: $space }) {
      made: spaceInstallation { space { id } } edge: spaceInstallationEdge { cursor node { space { id } } } userErrors { code message } } }`,
    variables: () => ({ id: demo.videoInstallation, space: demo.gettingStarted }),
    list: `query ($first: Int, $after: String) { integration(name: "video-embeds") { spaceInstallations(first: $first, after: $after) { ${PAGE('space { id }')} } } }`,
    at: (data) => data.integration.spaceInstallations,
  },
  installIntegrationOnSite: {
    mutation: `mutation ($id: ID!, $site: ID!) { installIntegrationOnSite(input: { installationId: $id, siteId: $site }) {
      made: siteInstallation { site { id } } edge: siteInstallationEdge { cursor node { site { id } } } userErrors { code message } } }`,
    variables: () => ({ id: demo.analyticsInstallation, site: demo.portal }),
    list: `query ($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on IntegrationInstallation { siteInstallations(first: $first, after: $after) { ${PAGE('site { id }')} } } } }`,
    listVariables: () => ({ id: demo.analyticsInstallation }),
    at: (data) => data.node.siteInstallations,
  },
  submitChangeRequestReview: {
    mutation: `mutation ($id: ID!) { submitChangeRequestReview(input: { changeRequestId: $id, status: APPROVED }) {
      made: review { id } edge: reviewEdge { cursor node { id } } userErrors { code message } } }`,
    variables: () => ({ id: demo.changeRequest2 }),
    token: 'cy@acme.test',
    list: `query ($id: ID!, $first: Int, $after: String) { node(id: $id) { ... on ChangeRequest { reviews(first: $first, after: $after) { ${ID} } } } }`,
    listVariables: () => ({ id: demo.changeRequest2 }),
    at: (data) => data.node.reviews,
  },
};

/** Every mutation whose payload has a `…Edge` field, read from the schema. */
const WITH_EDGES = Object.values(schema.getMutationType()!.getFields())
  .filter((field) => {
    const payload = getNamedType(field.type);
    return isObjectType(payload) && Object.keys(payload.getFields()).some((name) => name.endsWith('Edge'));
  })
  .map((field) => field.name)
  .sort();

describe('the new edge of a create', () => {
  it('is tested below for every mutation that answers one', () => {
    expect(WITH_EDGES).toEqual(Object.keys(CREATES).sort());
  });

  it.each(Object.entries(CREATES))(
    '%s answers the new object as an edge whose cursor resumes right after it in its list',
    async (name, create) => {
      const made = (await ok(create.mutation, create.variables?.(), create.token && g.platform.token(create.token)))[
        name
      ];
      expect(made.edge.node).toEqual(made.made);

      const list = async (first: number, after: string | null) => {
        const result = await g.gql(create.list, { ...create.listVariables?.(), first, after });
        return { result, connection: result.data ? create.at(result.data) : null };
      };
      const whole = (await list(1000, null)).connection!;
      const index = whole.edges.findIndex((edge) => JSON.stringify(edge.node) === JSON.stringify(made.edge.node));
      expect(index, 'the new object in its list').toBeGreaterThanOrEqual(0);

      const { result, connection } = await list(2, made.edge.cursor);
      expect(result.errors).toBeUndefined();
      expect(connection).toEqual({
        totalCount: whole.totalCount,
        pageInfo: { hasNextPage: index + 3 < whole.edges.length },
        edges: whole.edges.slice(index + 1, index + 3),
      });
    },
  );
});

describe('the cursor of a new edge', () => {
  it('costs the create nothing, and reads the list from its start only when it is used', async () => {
    const made = await g.gql(`mutation { createSpace(input: { organizationId: "acme", title: "Edge cost" }) {
      spaceEdge { cursor node { id title } } userErrors { code } } }`);
    expect(made.errors).toBeUndefined();
    expect(made.upstreamRequests).toEqual(['POST /v1/orgs/acme/spaces']);
    const after = (made.data as any).createSpace.spaceEdge.cursor;

    // The organization, and one page of the list: the page that holds the space serves what follows it.
    const resumed = await g.gql(
      `query ($after: String) { organization(id: "acme") { spaces(first: 2, after: $after) { nodes { title } } } }`,
      { after },
    );
    expect(resumed.errors).toBeUndefined();
    expect(resumed.upstreamRequests).toEqual(['GET /v1/orgs/acme', 'GET /v1/orgs/acme/spaces?limit=1000']);
    // Its bound holds while the space is among the first 1000 of the list: an estimate.
    expect(resumed.extensions?.cost).toMatchObject({ upstreamRequests: 2, maxUpstreamRequests: 3, estimated: true });

    const elsewhere = await g.gql(
      `query ($after: String) { collection(id: "col-internal") { spaces(first: 2, after: $after) { nodes { title } } } }`,
      { after },
    );
    expect(elsewhere.data).toEqual({ collection: null });
    expect(elsewhere.errors).toMatchObject([
      {
        message: '`after` names an item this list does not hold',
        path: ['collection', 'spaces'],
        extensions: { code: 'BAD_USER_INPUT', field: ['after'] },
      },
    ]);
  });
});
