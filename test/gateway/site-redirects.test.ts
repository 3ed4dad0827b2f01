import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { buildSite, type TestSite, visitorToken, writePages } from '../fixtures/sites.js';

/**
 * Site redirects end to end: the six REST operations through the graph (`Site.redirects`,
 * `Site.redirect`, the four mutations), and the published-URL resolution honouring them (live on a
 * published site, drafts in a preview, exact before the longest wildcard, `captureWildcard`).
 */

const ORG = 'northwind';
const SITES = {
  /** Public, published, the organization's default content, basename `docs`: sections Getting started (variants
   * `en`, `fr`), Product, and Release notes and Status in a group Resources; redirects `/changelog` (permanent, to
   * Release notes) and `/guides/*` (to Product, the rest of the path kept). */
  docs: 'Northwind Docs',
  /** Share-link, published: Pricing FAQ and Erste Schritte (`de`), a share link Partners. */
  partners: 'Partner Portal',
  /** Visitor-auth, published on `api.northwind.test`: API reference (`reference`) and Runbooks (`beta`). */
  api: 'Northwind API',
  /** Unpublished: Roadmap. */
  draft: 'Northwind Labs',
};
const SPACES = [
  'Getting started',
  'Guide de démarrage',
  'Product overview',
  'Release notes',
  'Status page',
  'Pricing FAQ',
  'Erste Schritte',
  'API reference',
  'Runbooks',
  'Roadmap',
];

let g: TestGateway;
/** The platform's published address. */
let pub: string;
const users = {} as Record<'ada' | 'dee' | 'finn' | 'hana', TestUser>;
const spaceIds: Record<string, string> = {};
const built: Record<string, TestSite> = {};

/** Northwind: ada admin, dee `edit`, finn `read`; hana belongs to no organization. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  pub = `${new URL(g.platform.url).origin}/published`;
  for (const key of ['ada', 'dee', 'finn', 'hana'] as const) users[key] = addUser(g.platform, key);
  const org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', dee: 'edit', finn: 'read' }, users });
  for (const title of SPACES) spaceIds[title] = await org.space(title);
  await writePages(org, spaceId('Getting started'), [{ title: 'Welcome' }, { title: 'Install' }]);
  built[SITES.docs] = await buildSite(org, {
    title: SITES.docs,
    basename: 'docs',
    defaultContent: true,
    sections: [
      {
        title: 'Getting started',
        space: spaceId('Getting started'),
        variantPath: 'en',
        variants: [{ space: spaceId('Guide de démarrage'), path: 'fr' }],
      },
      { title: 'Product', space: spaceId('Product overview') },
      { title: 'Release notes', space: spaceId('Release notes') },
      { title: 'Status', space: spaceId('Status page') },
    ],
    groups: [{ title: 'Resources', sections: ['Release notes', 'Status'] }],
    redirects: [
      { source: '/changelog', to: { section: 'Release notes' }, permanent: true },
      { source: '/guides/*', to: { section: 'Product' }, captureWildcard: true },
    ],
  });
  built[SITES.partners] = await buildSite(org, {
    title: SITES.partners,
    visibility: 'share-link',
    siteSpaces: [{ space: spaceId('Pricing FAQ') }, { space: spaceId('Erste Schritte'), path: 'de' }],
    shareLinks: ['Partners'],
  });
  built[SITES.api] = await buildSite(org, {
    title: SITES.api,
    visibility: 'visitor-auth',
    hostname: 'api.northwind.test',
    siteSpaces: [
      { space: spaceId('API reference'), path: 'reference' },
      { space: spaceId('Runbooks'), path: 'beta' },
    ],
  });
  built[SITES.draft] = await buildSite(org, {
    title: SITES.draft,
    siteSpaces: [{ space: spaceId('Roadmap') }],
    publish: false,
  });
});
afterAll(() => g.destroy());

const spaceId = (title: string) => spaceIds[title]!;
const siteId = (title: string) => built[title]!.id;
const basename = (title: string) => built[title]!.basename;
const siteGid = (title: string) => encodeGlobalID('Site', `${ORG}/${siteId(title)}`);
const sectionId = (site: string, title: string) => built[site]!.sections[title]!;
const siteSpaceId = (site: string, space: string) =>
  built[site]!.siteSpaces.find((item) => item.space === spaceId(space))!.id;
const redirectId = (site: string, source: string, draft = false) =>
  (
    g.platform.db
      .prepare('SELECT id FROM site_redirects WHERE site_id = ? AND source = ? AND draft = ?')
      .get(siteId(site), source, Number(draft)) as { id: string } | undefined
  )?.id;
const redirectGid = (site: string, id: string) => encodeGlobalID('SiteRedirect', `${ORG}/${siteId(site)}/${id}`);
/** Requests with the site ids as the titles of their sites. */
const named = (requests: string[]) =>
  requests.map((request) =>
    Object.values(SITES).reduce((text, title) => text.split(siteId(title)).join(`<${title}>`), request),
  );

async function ok<T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) {
  const result = await g.gql<T>(query, variables, options);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result;
}

const RESOLVE = `query Resolve($url: String!) {
  resolveUrl(url: $url) {
    __typename
    ... on ContentRedirect { target url }
    ... on PublishedContent { pathname section { title } }
  }
}`;
const resolve = async (url: string, token?: string) =>
  (await g.gql(RESOLVE, { url }, token ? { token } : {})).data?.resolveUrl;

const REDIRECT_FIELDS = `platformId source draft permanent captureWildcard
  destination {
    __typename
    ... on SiteRedirectSectionDestination { section { title } }
    ... on SiteRedirectSiteSpaceDestination { siteSpace { path } }
    ... on SiteRedirectPageDestination { pageId siteSpace { path } page { title } }
    ... on SiteRedirectExternalDestination { url }
  }`;

describe('reading the redirects of a site', () => {
  it('lists the live ones with their destinations: the site, its redirects and its structure, once each', async () => {
    const result = await ok(
      `query($id: ID!) { node(id: $id) { ... on Site { redirects(orderBy: SOURCE) { totalCount nodes { ${REDIRECT_FIELDS} site { title } } } } } }`,
      { id: siteGid(SITES.docs) },
    );
    expect(result.data.node.redirects).toEqual({
      totalCount: 2,
      nodes: [
        {
          platformId: redirectId(SITES.docs, '/changelog'),
          source: '/changelog',
          draft: false,
          permanent: true,
          captureWildcard: false,
          destination: { __typename: 'SiteRedirectSectionDestination', section: { title: 'Release notes' } },
          site: { title: SITES.docs },
        },
        {
          platformId: redirectId(SITES.docs, '/guides/*'),
          source: '/guides/*',
          draft: false,
          permanent: false,
          captureWildcard: true,
          destination: { __typename: 'SiteRedirectSectionDestination', section: { title: 'Product' } },
          site: { title: SITES.docs },
        },
      ],
    });
    expect(named(result.upstreamRequests).sort()).toEqual([
      'GET /v1/orgs/northwind/sites/<Northwind Docs>',
      'GET /v1/orgs/northwind/sites/<Northwind Docs>/redirects?limit=50&orderBy=source',
      'GET /v1/orgs/northwind/sites/<Northwind Docs>/structure',
    ]);
  });

  it('finds the redirect of a path: exact, else the longest wildcard prefix, with what it matched appended', async () => {
    const query = `query($id: ID!, $source: String!) { node(id: $id) { ... on Site {
      redirect(source: $source) { targetUrl redirect { source } } } } }`;
    const guides = await ok(query, { id: siteGid(SITES.docs), source: '/guides/setup/install' });
    expect(guides.data.node.redirect).toEqual({
      targetUrl: `${pub}/northwind/docs/product/setup/install`,
      redirect: { source: '/guides/*' },
    });
    expect(named(guides.upstreamRequests)).toEqual([
      'GET /v1/orgs/northwind/sites/<Northwind Docs>',
      `GET /v1/orgs/northwind/sites/<Northwind Docs>/redirect?source=${encodeURIComponent('/guides/setup/install')}`,
    ]);
    const changelog = await ok(query, { id: siteGid(SITES.docs), source: '/changelog' });
    expect(changelog.data.node.redirect).toEqual({
      targetUrl: `${pub}/northwind/docs/release-notes`,
      redirect: { source: '/changelog' },
    });

    const none = await g.gql(query, { id: siteGid(SITES.docs), source: '/nothing/here' });
    expect(none.data?.node.redirect).toBeNull();
    expect(none.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('refetches a redirect by its global ID', async () => {
    const id = redirectId(SITES.docs, '/changelog')!;
    const result = await ok(`query($id: ID!) { node(id: $id) { ... on SiteRedirect { source permanent } } }`, {
      id: redirectGid(SITES.docs, id),
    });
    expect(result.data.node).toEqual({ source: '/changelog', permanent: true });
    expect(named(result.upstreamRequests)).toEqual([
      'GET /v1/orgs/northwind/sites/<Northwind Docs>/redirects?draft=false&limit=1000',
    ]);
  });

  it('lets readers of a published site look a path up, members only list them', async () => {
    const docs = siteId(SITES.docs);
    // Not a member of Acme: the published public site's redirects by source, not the list.
    const hana = users.hana.token;
    const found = await g.platform.api('GET', `/orgs/northwind/sites/${docs}/redirect`, {
      token: hana,
      query: { source: '/changelog' },
    });
    expect(found.status).toBe(200);
    expect(found.body.target).toBe(`${pub}/northwind/docs/release-notes`);
    expect((await g.platform.api('GET', `/orgs/northwind/sites/${docs}/redirects`, { token: hana })).status).toBe(404);
    // An unpublished site is no one's to look up but its members'.
    const labs = siteId(SITES.draft);
    expect(
      (await g.platform.api('GET', `/orgs/northwind/sites/${labs}/redirect`, { token: hana, query: { source: '/a' } }))
        .status,
    ).toBe(404);
    // A reader may list; writing needs the create role.
    expect(
      (await g.platform.api('GET', `/orgs/northwind/sites/${docs}/redirects`, { token: users.finn.token })).status,
    ).toBe(200);
    const refused = await g.gql(
      `mutation($site: ID!) { createSiteRedirect(input: { siteId: $site, source: "/x", destination: { url: "https://example.com" } }) {
        redirect { source } userErrors { code field } } }`,
      { site: siteGid(SITES.docs) },
      { token: users.dee.token },
    );
    expect(refused.data?.createSiteRedirect).toEqual({
      redirect: null,
      userErrors: [{ code: 'FORBIDDEN', field: null }],
    });
  });
});

describe('writing redirects', () => {
  const CREATE = `mutation($input: CreateSiteRedirectInput!) {
    createSiteRedirect(input: $input) { redirect { ${REDIRECT_FIELDS} } redirectEdge { node { source } }
      userErrors { message code field } } }`;

  it('creates one to a page named by its path', async () => {
    const result = await ok(CREATE, {
      input: {
        siteId: siteGid(SITES.docs),
        source: '//welcome-old/',
        destination: { pagePath: { spaceId: spaceId('Getting started'), path: '' } },
        permanent: true,
      },
    });
    const landing = await g.platform.api('GET', `/spaces/${spaceId('Getting started')}/content/path`);
    expect(result.data.createSiteRedirect.redirect).toEqual({
      platformId: redirectId(SITES.docs, '/welcome-old'),
      source: '/welcome-old',
      draft: false,
      permanent: true,
      captureWildcard: false,
      destination: {
        __typename: 'SiteRedirectPageDestination',
        pageId: landing.body.id,
        siteSpace: { path: 'en' },
        page: { title: landing.body.title },
      },
    });
    expect(result.data.createSiteRedirect.redirectEdge).toEqual({ node: { source: '/welcome-old' } });
    expect(named(result.upstreamRequests).sort()).toEqual([
      'GET /v1/orgs/northwind/sites/<Northwind Docs>/structure',
      `GET /v1/spaces/${spaceId('Getting started')}/content/pages`,
      'POST /v1/orgs/northwind/sites/<Northwind Docs>/redirects',
    ]);
    // The site's default section's default variant is its root: the page's path alone.
    expect(await resolve(`${pub}/northwind/docs/welcome-old`)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/${landing.body.path}`,
    });
  });

  it('refuses a second live redirect of a source, a bad source and a destination outside the site', async () => {
    const docs = siteGid(SITES.docs);
    const errors = async (input: Record<string, unknown>) => {
      const result = await g.gql(CREATE, { input: { siteId: docs, ...input } });
      expect(result.errors).toBeUndefined();
      return { userErrors: result.data.createSiteRedirect.userErrors, upstream: result.upstream };
    };
    expect(await errors({ source: '/Changelog', destination: { url: 'https://example.com' } })).toEqual({
      userErrors: [{ message: 'A live redirect for /Changelog already exists', code: 'CONFLICT', field: null }],
      upstream: 1,
    });
    expect(await errors({ source: '/a*b', destination: { url: 'https://example.com' } })).toMatchObject({
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['source'] }],
      upstream: 1,
    });
    // A section of another site, by its platform id (its global ID would be refused before any request).
    const product = sectionId(SITES.docs, 'Product');
    const labs = await g.gql(CREATE, {
      input: { siteId: siteGid(SITES.draft), source: '/x', destination: { section: product } },
    });
    expect(labs.data.createSiteRedirect.userErrors).toEqual([
      {
        message: `Invalid input field "destination.section": no section ${product} in the site`,
        code: 'BAD_USER_INPUT',
        field: ['destination', 'section'],
      },
    ]);
    const global = await g.gql(CREATE, {
      input: {
        siteId: siteGid(SITES.draft),
        source: '/x',
        destination: { section: encodeGlobalID('SiteSection', `${ORG}/${siteId(SITES.docs)}/${product}`) },
      },
    });
    expect(global.data.createSiteRedirect.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['destination'] },
    ]);
    expect(global.upstream).toBe(0);
  });

  it('refuses what the input checks, before any request', async () => {
    const result = await g.gql(CREATE, {
      input: { siteId: siteGid(SITES.docs), source: '/x', destination: { url: 'ftp://example.com/file' } },
    });
    expect(result.data.createSiteRedirect.userErrors).toEqual([
      {
        message: 'destination.url: must be an http or https URL',
        code: 'BAD_USER_INPUT',
        field: ['destination', 'url'],
      },
    ]);
    expect(result.upstream).toBe(0);
  });

  it('names the destination field the platform refuses, as the input has it', async () => {
    const result = await g.gql(CREATE, {
      input: {
        siteId: siteGid(SITES.docs),
        source: '/elsewhere',
        destination: { page: { siteSpaceId: siteSpaceId(SITES.docs, 'Getting started'), pageId: 'no-such-page' } },
      },
    });
    expect(result.data.createSiteRedirect.userErrors).toEqual([
      {
        message: `Invalid input field "destination.page.pageId": no page no-such-page in the site space ${siteSpaceId(SITES.docs, 'Getting started')}`,
        code: 'BAD_USER_INPUT',
        field: ['destination', 'page', 'pageId'],
      },
    ]);
  });

  it('updates, publishes a draft over the live redirect, and deletes', async () => {
    const docs = siteGid(SITES.docs);
    const created = await ok(CREATE, {
      input: { siteId: docs, source: '/changelog', draft: true, destination: { url: 'https://status.acme.test/' } },
    });
    const draftId = created.data.createSiteRedirect.redirect.platformId;
    // The published site keeps the live one.
    expect(await resolve(`${pub}/northwind/docs/changelog`)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/release-notes`,
    });
    const drafts = await ok(
      `query($id: ID!) { node(id: $id) { ... on Site { redirects(draft: true) { nodes { source draft } } } } }`,
      { id: docs },
    );
    expect(drafts.data.node.redirects.nodes).toEqual([{ source: '/changelog', draft: true }]);

    const published = await ok(
      `mutation($id: ID!) { updateSiteRedirect(input: { redirectId: $id, draft: false, captureWildcard: true }) {
        redirect { platformId source draft captureWildcard } userErrors { code } } }`,
      { id: redirectGid(SITES.docs, draftId) },
    );
    expect(published.data.updateSiteRedirect.redirect).toEqual({
      platformId: draftId,
      source: '/changelog',
      draft: false,
      captureWildcard: true,
    });
    expect(named(published.upstreamRequests)).toEqual([
      `PATCH /v1/orgs/northwind/sites/<Northwind Docs>/redirects/${draftId}`,
    ]);
    expect(await resolve(`${pub}/northwind/docs/changelog`)).toEqual({
      __typename: 'ContentRedirect',
      target: 'EXTERNAL',
      url: 'https://status.acme.test/',
    });

    const DELETE = `mutation($id: ID!) { deleteSiteRedirect(input: { redirectId: $id }) { deleted deletedId site { title } userErrors { code } } }`;
    const deleted = await ok(DELETE, { id: redirectGid(SITES.docs, draftId) });
    expect(deleted.data.deleteSiteRedirect).toEqual({
      deleted: true,
      deletedId: redirectGid(SITES.docs, draftId),
      site: { title: SITES.docs },
      userErrors: [],
    });
    expect((await ok(DELETE, { id: redirectGid(SITES.docs, draftId) })).data.deleteSiteRedirect.deleted).toBe(false);
    // Nothing redirects the path any more: the site resolves it as a page path.
    expect(await resolve(`${pub}/northwind/docs/changelog`)).toEqual({
      __typename: 'PublishedContent',
      pathname: 'changelog',
      section: { title: 'Getting started' },
    });
  });
});

describe('upsertSiteRedirects', () => {
  const UPSERT = `mutation($input: UpsertSiteRedirectsInput!) { upsertSiteRedirects(input: $input) {
    results { status source draft error redirect { source draft destination { __typename } } }
    userErrors { message code field } } }`;

  it('creates, updates, deletes and publishes in one request, with a result per item', async () => {
    const labs = siteGid(SITES.draft);
    const space = siteSpaceId(SITES.draft, 'Roadmap');
    const result = await ok(UPSERT, {
      input: {
        siteId: labs,
        redirects: [
          { source: '/old/*', destination: { siteSpace: space }, captureWildcard: true },
          { source: '/old/*', intent: 'DRAFT', destination: { url: 'https://next.acme.test' }, captureWildcard: true },
          { source: '/old/*', destination: { url: 'https://old.acme.test' } },
          { source: '/gone', destination: null },
          { source: '/never', intent: 'PUBLISH' },
          { source: '/bad', destination: { section: 'no-such-section' } },
        ],
      },
    });
    expect(result.data.upsertSiteRedirects).toEqual({
      results: [
        {
          status: 'CREATED',
          source: '/old/*',
          draft: false,
          error: null,
          redirect: { source: '/old/*', draft: false, destination: { __typename: 'SiteRedirectExternalDestination' } },
        },
        {
          status: 'CREATED',
          source: '/old/*',
          draft: true,
          error: null,
          redirect: { source: '/old/*', draft: true, destination: { __typename: 'SiteRedirectExternalDestination' } },
        },
        {
          status: 'UPDATED',
          source: '/old/*',
          draft: false,
          error: null,
          redirect: { source: '/old/*', draft: false, destination: { __typename: 'SiteRedirectExternalDestination' } },
        },
        { status: 'ERROR', source: '/gone', draft: false, error: 'No live redirect for /gone', redirect: null },
        { status: 'ERROR', source: '/never', draft: true, error: 'No draft redirect for /never', redirect: null },
        {
          status: 'ERROR',
          source: '/bad',
          draft: false,
          error: 'Invalid body field "redirects.5.destination.siteSectionId": no section no-such-section in the site',
          redirect: null,
        },
      ],
      userErrors: [],
    });
    // The write, then the live and draft lists once each for the redirects the results name.
    expect(named(result.upstreamRequests)).toEqual([
      'PUT /v1/orgs/northwind/sites/<Northwind Labs>/redirects',
      'GET /v1/orgs/northwind/sites/<Northwind Labs>/redirects?draft=false&limit=1000',
      'GET /v1/orgs/northwind/sites/<Northwind Labs>/redirects?draft=true&limit=1000',
    ]);

    // The unpublished site, previewed by a member: the draft redirect comes first, with the suffix.
    expect(await resolve(`${pub}/northwind/${basename(SITES.draft)}/old/a/b`)).toEqual({
      __typename: 'ContentRedirect',
      target: 'EXTERNAL',
      url: 'https://next.acme.test/a/b',
    });
    const publish = await ok(UPSERT, { input: { siteId: labs, redirects: [{ source: '/old/*', intent: 'PUBLISH' }] } });
    expect(publish.data.upsertSiteRedirects.results).toMatchObject([{ status: 'PUBLISHED', draft: false }]);
    expect(
      g.platform.db.prepare('SELECT COUNT(*) AS n FROM site_redirects WHERE site_id = ?').get(siteId(SITES.draft)),
    ).toEqual({
      n: 1,
    });
    // Deleting a live one; the unpublished site without its redirect is the site space again.
    const removed = await ok(UPSERT, { input: { siteId: labs, redirects: [{ source: '/old/*', destination: null }] } });
    expect(removed.data.upsertSiteRedirects.results).toMatchObject([{ status: 'DELETED', source: '/old/*' }]);
    expect(await resolve(`${pub}/northwind/${basename(SITES.draft)}/old/a/b`)).toMatchObject({
      __typename: 'PublishedContent',
    });
  });

  it('takes at most 500 redirects: the graph before any request, the platform naming the limit', async () => {
    const redirects = Array.from({ length: 501 }, (_, index) => ({
      source: `/r${index}`,
      destination: { url: 'https://example.com' },
    }));
    const result = await g.gql(UPSERT, { input: { siteId: siteGid(SITES.draft), redirects } });
    expect(result.data.upsertSiteRedirects.userErrors).toEqual([
      { message: 'redirects: must hold at most 500 redirects', code: 'BAD_USER_INPUT', field: ['redirects'] },
    ]);
    expect(result.upstream).toBe(0);
    const direct = await g.platform.api('PUT', `/orgs/northwind/sites/${siteId(SITES.draft)}/redirects`, {
      body: {
        redirects: redirects.map((item) => ({ ...item, destination: { kind: 'external', url: item.destination.url } })),
      },
    });
    expect(direct.status).toBe(400);
    expect(direct.body.error).toMatchObject({ limit: 'redirects', value: 501, max: 500 });
  });
});

describe('the published-URL resolution', () => {
  it('matches a bare wildcard and escaped sources, and never redirects a path to itself', async () => {
    const docs = siteId(SITES.docs);
    const product = sectionId(SITES.docs, 'Product');
    const answer = await g.platform.api('PUT', `/orgs/northwind/sites/${docs}/redirects`, {
      body: {
        redirects: [
          { source: '/rel*', captureWildcard: true, destination: { kind: 'external', url: 'https://acme.test/rel' } },
          { source: '/caf%c3%a9', destination: { kind: 'external', url: 'https://acme.test/coffee' } },
          { source: '/product/*', destination: { kind: 'site-section', siteSectionId: product } },
        ],
      },
    });
    expect(
      answer.body.results.map((result: { status: string; source: string }) => [result.status, result.source]),
    ).toEqual([
      ['created', '/rel*'],
      ['created', '/caf%C3%A9'],
      ['created', '/product/*'],
    ]);
    const published = async (path: string) =>
      (await g.platform.api('GET', '/urls/published', { query: { url: `${pub}/northwind/docs/${path}` } })).body;
    expect(await published('release/v2')).toEqual({
      target: 'external',
      site: docs,
      redirect: 'https://acme.test/release/v2',
    });
    expect(await published('caf%C3%A9')).toEqual({
      target: 'external',
      site: docs,
      redirect: 'https://acme.test/coffee',
    });
    // `/product/*` leads `/product/x` to the section, and `/product` (the section itself) nowhere.
    expect(await published('product/x')).toEqual({ target: 'content', redirect: `${pub}/northwind/docs/product` });
    expect(await published('product')).toMatchObject({ siteSection: product, pathname: '' });
    const removed = await g.platform.api('PUT', `/orgs/northwind/sites/${docs}/redirects`, {
      body: { redirects: [{ source: '/product/*', destination: null }] },
    });
    expect(removed.body.results).toEqual([{ status: 'deleted', source: '/product/*', draft: false }]);
  });

  it('redirects only readers the site lets in: under the share key, after the visitor token', async () => {
    await ok(
      `mutation($partners: ID!, $de: ID!, $api: ID!) {
        a: createSiteRedirect(input: { siteId: $partners, source: "/faq-de", destination: { siteSpace: $de } }) { userErrors { code } }
        b: createSiteRedirect(input: { siteId: $api, source: "/old", destination: { url: "https://example.com/new" } }) { userErrors { code } }
      }`,
      {
        partners: siteGid(SITES.partners),
        de: siteSpaceId(SITES.partners, 'Erste Schritte'),
        api: siteGid(SITES.api),
      },
    );
    const key = built[SITES.partners]!.shareKeys.Partners!;
    const hana = users.hana.token;
    expect(await resolve(`${pub}/northwind/${basename(SITES.partners)}/${key}/faq-de`, hana)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/${basename(SITES.partners)}/${key}/de`,
    });
    const withoutKey = await g.gql(
      RESOLVE,
      { url: `${pub}/northwind/${basename(SITES.partners)}/faq-de` },
      { token: hana },
    );
    expect(withoutKey.data?.resolveUrl).toBeNull();
    expect(withoutKey.errors?.[0]?.extensions).toMatchObject({ upstreamStatus: 403 });
    // A visitor-auth site checks the visitor first: no token, no redirect.
    const anonymous = await g.gql(RESOLVE, { url: 'https://api.northwind.test/old' }, { token: hana });
    expect(anonymous.data?.resolveUrl).toBeNull();
    expect(anonymous.errors?.[0]?.extensions).toMatchObject({ upstreamStatus: 401 });
    const visitor = await g.gql(
      `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on ContentRedirect { target url } } }`,
      { url: 'https://api.northwind.test/old', token: await visitorToken(built[SITES.api]!.signingKey!, {}) },
      { token: hana },
    );
    expect(visitor.data?.resolveUrl).toEqual({ target: 'EXTERNAL', url: 'https://example.com/new' });
  });

  it('redirects an exact path and a wildcard prefix of a published site, for anyone', async () => {
    const hana = users.hana.token;
    expect(await resolve(`${pub}/northwind/docs/guides/setup/install`, hana)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/product/setup/install`,
    });
    // `/guides/*` also takes `/guides` itself, with nothing to append.
    expect(await resolve(`${pub}/northwind/docs/guides`, hana)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/product`,
    });
    // A longer wildcard wins over a shorter one; an exact source over both.
    const docs = siteGid(SITES.docs);
    await ok(
      `mutation($site: ID!, $space: ID!) { upsertSiteRedirects(input: { siteId: $site, redirects: [
        { source: "/guides/api/*", destination: { siteSpace: $space } },
        { source: "/guides/api/keys", destination: { url: "https://keys.acme.test" } }
      ] }) { userErrors { code } } }`,
      { site: docs, space: siteSpaceId(SITES.docs, 'Guide de démarrage') },
    );
    expect(await resolve(`${pub}/northwind/docs/guides/api/errors`, hana)).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/getting-started/fr`,
    });
    expect(await resolve(`${pub}/northwind/docs/GUIDES/API/KEYS`, hana)).toEqual({
      __typename: 'ContentRedirect',
      target: 'EXTERNAL',
      url: 'https://keys.acme.test',
    });
    // A path no redirect names is the site's as before.
    expect(await resolve(`${pub}/northwind/docs/product/overview`, hana)).toEqual({
      __typename: 'PublishedContent',
      pathname: 'overview',
      section: { title: 'Product' },
    });
  });
});
