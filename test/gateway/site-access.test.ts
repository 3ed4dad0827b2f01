import { generateKeyPairSync } from 'node:crypto';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { buildSite, type TestSite, visitorToken, writePages } from '../fixtures/sites.js';

const ORG = 'northwind';
const SITES = {
  /** Public, published, the organization's default content, basename `docs`: sections Getting started (variants
   * `en`, `fr`), Product, and Release notes in a group Resources. */
  docs: 'Northwind Docs',
  /** Share-link, published: Pricing FAQ and Erste Schritte (`de`), a share link Partners. */
  partners: 'Partner Portal',
  /** Visitor-auth, published on `api.northwind.test` with an adaptive schema: API reference (`reference`) and
   * Runbooks (`beta`, for visitors with `betaAccess`). */
  api: 'Northwind API',
};
/** Spaces the cases name by role. */
const S = { visitorAuth: 'API reference', userGrant: 'Runbooks' };
/** The adaptive schema of the API site: a signed `betaAccess` and `plan`, an unsigned `newsletter`. */
const ADAPTIVE_SCHEMA = {
  type: 'object',
  properties: {
    betaAccess: { type: 'boolean', description: 'Has access to beta features' },
    plan: { type: 'string', enum: ['free', 'pro', 'enterprise'], description: 'Subscription plan' },
    unsigned: {
      type: 'object',
      description: 'Unsigned claims of the site visitor.',
      properties: { newsletter: { type: 'boolean', description: 'Reads the newsletter' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};
/** A paragraph long enough for the markdown of a page to be more than a title. */
const PROSE =
  'Install the command-line tool, sign in with your account and create a first project: each step takes a minute.\n';

let g: TestGateway;
/** The platform's published address. */
let pub: string;
const users = {} as Record<'ada' | 'ben' | 'hana' | 'ivy', TestUser>;
const spaceIds: Record<string, string> = {};
const built: Record<string, TestSite> = {};
/** Northwind's collection Product. */
let product: string;
/** The API site's signing key, and a visitor token signed with it (`betaAccess: true`, `plan: "pro"`). */
let signingKey: string;
let betaToken: string;

/** Northwind: ada admin, ben `create`; hana and ivy belong to no organization. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  pub = `${new URL(g.platform.url).origin}/published`;
  for (const key of ['ada', 'ben', 'hana', 'ivy'] as const) users[key] = addUser(g.platform, key);
  const org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', ben: 'create' }, users });
  product = await org.collection('Product');
  for (const [title, settings] of [
    ['Getting started', { parent: product }],
    ['Guide de démarrage', { language: 'fr' }],
    ['Product overview', {}],
    ['Release notes', {}],
    ['Pricing FAQ', {}],
    ['Erste Schritte', { language: 'de' }],
    [S.visitorAuth, {}],
    [S.userGrant, {}],
  ] as const) {
    spaceIds[title] = await org.space(title, settings);
  }
  await writePages(org, idOf('Getting started'), [
    { title: 'Welcome', markdown: PROSE },
    { title: 'Install', markdown: PROSE },
  ]);
  await writePages(org, idOf('Getting started'), [{ title: 'Upgrade', markdown: PROSE }], { open: true });
  await writePages(org, idOf(S.visitorAuth), [{ title: 'Authentication', markdown: PROSE }]);
  built[SITES.docs] = await buildSite(org, {
    title: SITES.docs,
    basename: 'docs',
    defaultContent: true,
    sections: [
      {
        title: 'Getting started',
        space: idOf('Getting started'),
        variantPath: 'en',
        variants: [{ space: idOf('Guide de démarrage'), path: 'fr' }],
      },
      { title: 'Product', space: idOf('Product overview') },
      { title: 'Release notes', space: idOf('Release notes') },
    ],
    groups: [{ title: 'Resources', sections: ['Release notes'] }],
  });
  built[SITES.partners] = await buildSite(org, {
    title: SITES.partners,
    visibility: 'share-link',
    siteSpaces: [{ space: idOf('Pricing FAQ') }, { space: idOf('Erste Schritte'), path: 'de' }],
    shareLinks: ['Partners'],
  });
  built[SITES.api] = await buildSite(org, {
    title: SITES.api,
    visibility: 'visitor-auth',
    hostname: 'api.northwind.test',
    adaptiveSchema: ADAPTIVE_SCHEMA,
    siteSpaces: [
      { space: idOf(S.visitorAuth), path: 'reference' },
      { space: idOf(S.userGrant), path: 'beta', condition: 'visitor.claims.betaAccess == true' },
    ],
  });
  signingKey = built[SITES.api]!.signingKey!;
  betaToken = await visitorTokenOf({ betaAccess: true, plan: 'pro' });
});
afterAll(() => g.destroy());

const idOf = (title: string) => spaceIds[title]!;
const siteId = (title: string) => built[title]!.id;
const siteGid = (title: string) => encodeGlobalID('Site', `${ORG}/${siteId(title)}`);
const shareKey = () => built[SITES.partners]!.shareKeys.Partners!;

async function ok<T = any>(
  query: string,
  variables: Record<string, unknown> = {},
  options: { token?: string } = {},
): Promise<T> {
  const result = await g.gql<T>(query, variables, options);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result.data as T;
}

/** A visitor token of the API site, signed with its key. */
const visitorTokenOf = (claims: Record<string, unknown>, expiresIn = '1h') =>
  visitorToken(signingKey, claims, expiresIn);

const RESOLVE = `query Resolve($url: String!, $visitor: VisitorInput, $redirectOnError: Boolean) {
  resolveUrl(url: $url, visitor: $visitor, redirectOnError: $redirectOnError) {
    __typename
    ... on PublishedContent {
      pathname basePath siteBasePath canonicalUrl complete shareKey preview
      site { title } section { title path } siteSpace { path } space { title }
    }
    ... on ContentRedirect { target url siteId }
    ... on SpaceContent { space { title } changeRequest { number } page { title } }
    ... on CollectionContent { collection { title } }
  }
}`;

describe('resolveUrl', () => {
  it("goes from a published URL to the page's markdown: the lookup, the space and the page with its markdown, each once", async () => {
    const spaceId = idOf('Getting started');
    const landing = await g.platform.api('GET', `/spaces/${spaceId}/content/path`, { query: { format: 'markdown' } });
    expect(landing.body.markdown.length).toBeGreaterThan(100);
    const url = `${pub}/northwind`;
    const result = await g.gql<any>(
      `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { pathname page { title ... on DocumentPage { markdown } } } } }`,
      { url },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.resolveUrl).toEqual({
      pathname: '',
      page: { title: landing.body.title, markdown: landing.body.markdown },
    });
    // The site's published profile is read for the site space's custom home page, which a URL of its root shows.
    expect(result.upstreamRequests.sort()).toEqual(
      [
        `GET /v1/urls/published?url=${encodeURIComponent(url)}`,
        `GET /v1/spaces/${spaceId}`,
        `GET /v1/orgs/northwind/sites/${siteId(SITES.docs)}/published`,
        `GET /v1/spaces/${spaceId}/content/path?format=markdown`,
      ].sort(),
    );
    const tree = (await g.platform.api('GET', `/spaces/${spaceId}/content`)).body;
    const second = tree.pages.filter((item: { type: string }) => item.type === 'document')[1];
    const page = await g.gql<any>(
      `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { page { title ... on DocumentPage { markdown } } } } }`,
      {
        url: `${pub}/northwind/${second.path}`,
      },
    );
    expect(page.errors).toBeUndefined();
    expect(page.data.resolveUrl.page.title).toBe(second.title);
    // A page below the root: no home page to look for.
    // The space (for the page's revision) and the page are read side by side, after the lookup.
    expect(page.upstreamRequests).toHaveLength(3);
    expect(page.upstreamRequests[0]).toMatch(/^GET \/v1\/urls\/published\?url=/);
    expect(page.upstreamRequests.slice(1).sort()).toEqual(
      [`GET /v1/spaces/${spaceId}`, `GET /v1/spaces/${spaceId}/content/path/${second.path}?format=markdown`].sort(),
    );
  });

  it('reads the page of a change request a URL previews, in its content', async () => {
    const spaceId = idOf('Getting started');
    const request = (await g.platform.api('GET', `/spaces/${spaceId}/change-requests`, { query: { status: 'open' } }))
      .body.items[0];
    const landing = (await g.platform.api('GET', `/spaces/${spaceId}/change-requests/${request.id}/content/path`)).body;
    const data = await ok(
      `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { changeRequest { number } page { id title } } } }`,
      {
        url: `${pub}/northwind/~/changes/${request.number}`,
      },
    );
    expect(data.resolveUrl).toEqual({
      changeRequest: { number: request.number },
      page: { id: expect.any(String), title: landing.title },
    });
  });

  it("shows a site space's custom home page at its root", async () => {
    const spaceId = idOf('Getting started');
    const tree = (await g.platform.api('GET', `/spaces/${spaceId}/content`)).body;
    const second = tree.pages.filter((item: { type: string }) => item.type === 'document')[1];
    const variant = (
      await g.platform.api('GET', `/orgs/northwind/sites/${siteId(SITES.docs)}/site-spaces`)
    ).body.items.find((item: { path: string }) => item.path === 'en');
    await g.platform.api('PATCH', `/orgs/northwind/sites/${siteId(SITES.docs)}/site-spaces/${variant.id}`, {
      body: { pageId: second.id },
    });
    try {
      const data = await ok(
        `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { page { id title } } } }`,
        { url: `${pub}/northwind` },
      );
      expect(data.resolveUrl.page.title).toBe(second.title);
    } finally {
      await g.platform.api('PATCH', `/orgs/northwind/sites/${siteId(SITES.docs)}/site-spaces/${variant.id}`, {
        body: { pageId: null },
      });
    }
  });

  it('resolves the site, section, site space and space of a published URL, as objects', async () => {
    const result = await g.gql<any>(RESOLVE, { url: `${pub}/northwind/product` });
    expect(result.errors).toBeUndefined();
    expect(result.data.resolveUrl).toMatchObject({
      __typename: 'PublishedContent',
      pathname: '',
      basePath: '/published/northwind/product/',
      siteBasePath: '/published/northwind/',
      canonicalUrl: `${pub}/northwind/docs/product`,
      complete: true,
      shareKey: null,
      preview: false,
      site: { title: SITES.docs },
      section: { title: 'Product', path: 'product' },
      space: { title: 'Product overview' },
    });
  });

  it('answers null with NOT_FOUND for a page path no page has, and the rest still resolves', async () => {
    const result = await g.gql<any>(
      `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { pathname space { title } page { title } } } }`,
      {
        url: `${pub}/northwind/no-such-page`,
      },
    );
    expect(result.data.resolveUrl).toEqual({
      pathname: 'no-such-page',
      page: null,
      space: { title: 'Getting started' },
    });
    expect(result.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['resolveUrl', 'page'], 'NOT_FOUND'],
    ]);
  });

  it('resolves the same URL to different site spaces for two visitors, and refuses a bad token on visitor.jwtToken', async () => {
    const url = 'https://api.northwind.test/beta/overview';
    const beta = await ok(RESOLVE, { url, visitor: { jwtToken: betaToken } });
    const regular = await ok(RESOLVE, { url, visitor: { jwtToken: await visitorTokenOf({ betaAccess: false }) } });
    expect(beta.resolveUrl).toMatchObject({
      siteSpace: { path: 'beta' },
      pathname: 'overview',
      space: { title: S.userGrant },
    });
    expect(regular.resolveUrl).toMatchObject({
      siteSpace: { path: 'reference' },
      pathname: 'beta/overview',
      space: { title: S.visitorAuth },
    });

    const expired = await g.gql<any>(RESOLVE, { url, visitor: { jwtToken: await visitorTokenOf({}, '-5m') } });
    expect(expired.data.resolveUrl).toBeNull();
    expect(expired.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['visitor', 'jwtToken'],
      upstreamStatus: 401,
    });
    expect(expired.errors?.[0]?.message).toContain('expired');
    // The caller's own missing or refused credentials are not the visitor's: UNAUTHENTICATED, as `viewer` answers.
    const viewer = await g.gql<any>('{ viewer { id } }', {}, { token: null });
    expect(viewer.errors?.[0]?.extensions).toEqual({ code: 'UNAUTHENTICATED', upstreamStatus: 401 });
    for (const token of [null, 'made-up'])
      for (const visitor of [undefined, { jwtToken: betaToken }]) {
        const refused = await g.gql<any>(RESOLVE, { url, ...(visitor ? { visitor } : {}) }, { token });
        expect(refused.data.resolveUrl).toBeNull();
        expect(refused.errors?.[0]?.extensions).toEqual(viewer.errors?.[0]?.extensions);
      }
    const redirected = await ok(RESOLVE, { url, redirectOnError: true });
    expect(redirected.resolveUrl).toMatchObject({
      __typename: 'ContentRedirect',
      target: 'EXTERNAL',
      url: expect.stringContaining('https://api.northwind.test/~gitbook/auth/login?location='),
    });
    const claims = await g.gql<any>(RESOLVE, {
      url,
      visitor: { jwtToken: betaToken, unsignedClaims: { newsletter: 'yes' } },
    });
    expect(claims.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['visitor', 'unsignedClaims'],
    });
  });

  it('serves readers outside the organization: a visitor-auth page to its markdown, and a share-link site’s profile', async () => {
    const hana = users.hana.token;
    const data = await ok(
      `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent {
        site { title } siteSpace { path } space { title } page { title ... on DocumentPage { markdown } } } } }`,
      { url: 'https://api.northwind.test/', token: betaToken },
      { token: hana },
    );
    expect(data.resolveUrl).toMatchObject({
      site: { title: SITES.api },
      siteSpace: { path: 'reference' },
      space: { title: S.visitorAuth },
    });
    expect(data.resolveUrl.page.markdown.length).toBeGreaterThan(50);
    const profile = `query($id: ID!, $key: String) { publishedSite(organizationId: "northwind", siteId: $id, shareKey: $key) { site { title } structure { ... on SiteSpacesStructure { siteSpaces { path } } } } }`;
    const withKey = await ok(profile, { id: siteId(SITES.partners), key: shareKey() }, { token: hana });
    expect(withKey.publishedSite).toEqual({
      site: { title: SITES.partners },
      structure: { siteSpaces: [{ path: 'pricing-faq' }, { path: 'de' }] },
    });
    const withoutKey = await g.gql<any>(profile, { id: siteId(SITES.partners) }, { token: hana });
    expect(withoutKey.data.publishedSite).toBeNull();
    expect(withoutKey.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    // The site's global ID names it as well; one of another organization is refused before any request.
    const global = encodeGlobalID('Site', `${ORG}/${siteId(SITES.partners)}`);
    const byGlobalId = await ok(profile, { id: global, key: shareKey() }, { token: hana });
    expect(byGlobalId.publishedSite).toEqual(withKey.publishedSite);
    const foreign = await g.gql<any>(profile, { id: encodeGlobalID('Site', 'globex/any') }, { token: hana });
    expect([foreign.data.publishedSite, foreign.errors?.[0]?.extensions?.code, foreign.upstream]).toEqual([
      null,
      'BAD_USER_INPUT',
      0,
    ]);
  });

  it('answers a content redirect for a URL that names a default', async () => {
    const data = await ok(RESOLVE, { url: `${pub}/northwind/docs/getting-started/en/install` });
    expect(data.resolveUrl).toEqual({
      __typename: 'ContentRedirect',
      target: 'CONTENT',
      url: `${pub}/northwind/docs/install`,
      siteId: null,
    });
  });

  it('resolves app URLs of spaces, pages, change requests and collections as the caller', async () => {
    const spaceId = idOf('Getting started');
    const space = (await g.platform.api('GET', `/spaces/${spaceId}`)).body;
    const request = (await g.platform.api('GET', `/spaces/${spaceId}/change-requests`)).body.items[0];
    const collection = (await g.platform.api('GET', `/collections/${product}`)).body;
    const bySpace = await g.gql<any>(RESOLVE, { url: space.urls.app });
    expect(bySpace.data.resolveUrl).toMatchObject({
      __typename: 'SpaceContent',
      space: { title: 'Getting started' },
      changeRequest: null,
    });
    expect(bySpace.data.resolveUrl.page.title).toEqual(expect.any(String));
    expect(bySpace.upstreamRequests).toEqual([
      expect.stringMatching(/^GET \/v1\/urls\/published\?url=/),
      expect.stringMatching(/^GET \/v1\/urls\/content\?url=/),
    ]);
    expect((await ok(RESOLVE, { url: request.urls.app })).resolveUrl).toMatchObject({
      __typename: 'SpaceContent',
      changeRequest: { number: request.number },
    });
    expect((await ok(RESOLVE, { url: collection.urls.app })).resolveUrl).toEqual({
      __typename: 'CollectionContent',
      collection: { title: collection.title },
    });
    const outsider = await g.gql<any>(RESOLVE, { url: collection.urls.app }, { token: users.ivy.token });
    expect(outsider.data.resolveUrl).toBeNull();
    expect(outsider.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('refuses a malformed URL before any upstream call, and a URL the platform cannot read with its reason', async () => {
    const long = await g.gql<any>(RESOLVE, { url: `https://x.test/${'a'.repeat(2100)}` });
    expect(long.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['url'] });
    expect(long.upstream).toBe(0);
    const malformed = await g.gql<any>(RESOLVE, { url: 'not a url' });
    expect(malformed.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
  });

  it('resolves a site on the custom hostname updateSite gives it; a taken hostname is a CONFLICT', async () => {
    const site = siteGid(SITES.docs);
    const set = await ok(
      `mutation($site: ID!) { updateSite(input: { siteId: $site, hostname: "Docs.Northwind.test" }) { site { hostname urls { published } } userErrors { code } } }`,
      { site },
    );
    expect(set.updateSite.site).toEqual({
      hostname: 'docs.northwind.test',
      urls: { published: 'https://docs.northwind.test/' },
    });
    try {
      const data = await ok(RESOLVE, { url: 'https://docs.northwind.test/product' });
      expect(data.resolveUrl).toMatchObject({
        site: { title: SITES.docs },
        section: { path: 'product' },
        canonicalUrl: 'https://docs.northwind.test/product',
      });
      const taken = await g.gql<any>(
        `mutation($site: ID!) { updateSite(input: { siteId: $site, hostname: "api.northwind.test" }) { userErrors { code field } } }`,
        { site },
      );
      expect(taken.data.updateSite.userErrors).toEqual([{ code: 'CONFLICT', field: null }]);
      const bad = await g.gql<any>(
        `mutation($site: ID!) { updateSite(input: { siteId: $site, hostname: "docs" }) { userErrors { code field } } }`,
        { site },
      );
      expect(bad.data.updateSite.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['hostname'] }]);
      expect(bad.upstream).toBe(0);
    } finally {
      await ok(
        `mutation($site: ID!) { updateSite(input: { siteId: $site, hostname: null }) { userErrors { code } } }`,
        { site },
      );
    }
  });

  it('embeds a published page', async () => {
    const data = await ok(`query($url: String!) { embedUrl(url: $url) { type title site icon } }`, {
      url: `${pub}/northwind`,
    });
    expect(data.embedUrl).toMatchObject({ type: 'LINK', site: SITES.docs, title: expect.any(String) });
  });
});

describe('the API token of a resolved URL', () => {
  it('reads the page as the visitor through the graph: their claims decide what the evaluated document holds', async () => {
    const { markdownToDocument } = await import('../../src/document/markdown.js');
    const { putDocument } = await import('../../src/platform/content/revisions.js');
    const { commitContent } = await import('../fixtures/content.js');
    const spaceId = idOf(S.userGrant);
    const markdown = [
      'Everyone sees this.',
      '',
      '{% if visitor.claims.plan == "pro" %}',
      'Pro readers see this.',
      '{% endif %}',
      '',
    ].join('\n');
    const documentId = putDocument(g.platform.db, spaceId, markdownToDocument(markdown).document);
    commitContent(g.platform.db, spaceId, {
      pages: [{ id: 'pg-pro', type: 'document', title: 'Overview', slug: 'overview', documentId, pages: [] }],
      files: [],
      reusableContents: [],
      variables: {},
    });
    const resolved = await ok(
      `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent { apiToken pathname space { id } } } }`,
      {
        url: 'https://api.northwind.test/beta/overview',
        token: betaToken,
      },
    );
    const { apiToken, pathname, space } = resolved.resolveUrl;
    const page = `query($id: ID!, $path: String!) { node(id: $id) { ... on Space { content { page(path: $path) { ... on DocumentPage { document(evaluated: ALL) { text } } } } } } }`;
    const asVisitor = await ok(page, { id: space.id, path: pathname }, { token: apiToken });
    expect(asVisitor.node.content.page.document.text).toContain('Pro readers see this.');
    const asAdmin = await ok(page, { id: space.id, path: pathname });
    expect(asAdmin.node.content.page.document.text).not.toContain('Pro readers see this.');
    const write = await g.gql<any>(
      `mutation($id: ID!) { updateSpace(input: { spaceId: $id, title: "Nope" }) { userErrors { code } } }`,
      { id: space.id },
      { token: apiToken },
    );
    expect(write.data.updateSpace.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
  });
});

describe('share links, visitor authentication, adaptive schema, published profile', () => {
  it('lists, creates, renames, turns off and deletes share links; refetches them by global ID', async () => {
    const site = siteGid(SITES.partners);
    const listed = await ok(
      `query($id: ID!) { node(id: $id) { ... on Site { shareLinks { totalCount nodes { id name active url } } } } }`,
      { id: site },
    );
    expect(listed.node.shareLinks.totalCount).toBe(1);
    expect(listed.node.shareLinks.nodes[0]).toMatchObject({
      name: 'Partners',
      active: true,
      url: expect.stringContaining(shareKey()),
    });

    const created = await ok(
      `mutation($site: ID!) { createSiteShareLink(input: { siteId: $site, name: "Press" }) { shareLink { id name url site { title } } userErrors { code } } }`,
      { site },
    );
    const link = created.createSiteShareLink.shareLink;
    expect(link).toMatchObject({ name: 'Press', site: { title: SITES.partners } });
    const refetched = await ok(`query($id: ID!) { node(id: $id) { ... on SiteShareLink { name active } } }`, {
      id: link.id,
    });
    expect(refetched.node).toEqual({ name: 'Press', active: true });
    const updated = await ok(
      `mutation($id: ID!) { updateSiteShareLink(input: { shareLinkId: $id, active: false }) { shareLink { active } userErrors { code } } }`,
      { id: link.id },
    );
    expect(updated.updateSiteShareLink.shareLink.active).toBe(false);
    const nothing = await g.gql<any>(
      `mutation($id: ID!) { updateSiteShareLink(input: { shareLinkId: $id }) { userErrors { code field } } }`,
      { id: link.id },
    );
    expect(nothing.data.updateSiteShareLink.userErrors[0].code).toBe('BAD_USER_INPUT');
    expect(nothing.upstream).toBe(0);
    const deleted = await ok(
      `mutation($id: ID!) { deleteSiteShareLink(input: { shareLinkId: $id }) { deleted site { title } userErrors { code } } }`,
      { id: link.id },
    );
    expect(deleted.deleteSiteShareLink).toMatchObject({ deleted: true, site: { title: SITES.partners } });
    const denied = await g.gql<any>(
      `mutation($site: ID!) { createSiteShareLink(input: { siteId: $site, name: "x" }) { userErrors { code } } }`,
      { site },
      { token: users.ben.token },
    );
    expect(denied.data.createSiteShareLink.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
  });

  it('shows the visitor-authentication settings to admins only, changes them and regenerates the key', async () => {
    const site = siteGid(SITES.api);
    const read = await ok(
      `query($id: ID!) { node(id: $id) { ... on Site { visibility visitorAuth { backend signingKey fallbackUrl publicKey } } } }`,
      { id: site },
    );
    expect(read.node).toEqual({
      visibility: 'VISITOR_AUTH',
      visitorAuth: {
        backend: 'CUSTOM',
        signingKey: signingKey,
        fallbackUrl: null,
        publicKey: null,
      },
    });
    const other = await g.gql<any>(
      `query($id: ID!) { node(id: $id) { ... on Site { title visitorAuth { signingKey } } } }`,
      { id: site },
      { token: users.ben.token },
    );
    expect(other.data.node).toEqual({ title: SITES.api, visitorAuth: null });
    expect(other.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const updated = await ok(
      `mutation($site: ID!) { updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, fallbackUrl: "https://login.acme.test/" }) { visitorAuth { fallbackUrl } userErrors { code } } }`,
      { site },
    );
    expect(updated.updateSiteVisitorAuth.visitorAuth.fallbackUrl).toBe('https://login.acme.test/');
    const badKey = await g.gql<any>(
      `mutation($site: ID!) { updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, publicKey: "nope" }) { userErrors { code field } } }`,
      { site },
    );
    expect(badKey.data.updateSiteVisitorAuth.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['publicKey'] }]);
    const badUrl = await g.gql<any>(
      `mutation($site: ID!) { updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, fallbackUrl: "ftp://x" }) { userErrors { code field } } }`,
      { site },
    );
    expect(badUrl.data.updateSiteVisitorAuth.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['fallbackUrl'] }]);
    expect(badUrl.upstream).toBe(0);

    // The RS256 key is the embedded platform's addition: outside the contract, still read back.
    const publicKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({
      type: 'spki',
      format: 'pem',
    }) as string;
    const withKey = await ok(
      `mutation($site: ID!, $key: String) { updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, publicKey: $key }) { visitorAuth { publicKey } userErrors { code } } }`,
      { site, key: publicKey },
    );
    expect(withKey.updateSiteVisitorAuth.visitorAuth.publicKey).toBe(publicKey);
    const keyRead = await ok(`query($id: ID!) { node(id: $id) { ... on Site { visitorAuth { publicKey } } } }`, {
      id: site,
    });
    expect(keyRead.node.visitorAuth.publicKey).toBe(publicKey);
    const keyRemoved = await ok(
      `mutation($site: ID!) { updateSiteVisitorAuth(input: { siteId: $site, backend: CUSTOM, publicKey: null }) { visitorAuth { publicKey } userErrors { code } } }`,
      { site },
    );
    expect(keyRemoved.updateSiteVisitorAuth.visitorAuth.publicKey).toBeNull();

    const regenerated = await ok(
      `mutation($site: ID!) { regenerateSiteVisitorAuthKey(input: { siteId: $site }) { visitorAuth { signingKey } userErrors { code } } }`,
      { site },
    );
    expect(regenerated.regenerateSiteVisitorAuthKey.visitorAuth.signingKey).not.toBe(signingKey);
    // The beta token no longer opens the site; give the key back for the other tests.
    const refused = await g.gql<any>(RESOLVE, {
      url: 'https://api.northwind.test/',
      visitor: { jwtToken: betaToken },
    });
    expect(refused.errors?.[0]?.extensions?.field).toEqual(['visitor', 'jwtToken']);
    g.platform.db.prepare('UPDATE sites SET auth_private_key = ? WHERE id = ?').run(signingKey, siteId(SITES.api));
  });

  it('reads and replaces the adaptive schema with its template conditions; a bad schema is a user error on jsonSchema', async () => {
    const site = siteGid(SITES.api);
    const read = await ok(
      `query($id: ID!) { node(id: $id) { ... on Site { adaptiveSchema { jsonSchema templateConditions { condition } } } } }`,
      { id: site },
    );
    expect(read.node.adaptiveSchema.templateConditions.map((item: { condition: string }) => item.condition)).toContain(
      'visitor.claims.betaAccess == true',
    );
    const none = await ok(`query($id: ID!) { node(id: $id) { ... on Site { adaptiveSchema { updatedAt } } } }`, {
      id: siteGid(SITES.docs),
    });
    expect(none.node.adaptiveSchema).toBeNull();
    const jsonSchema = {
      type: 'object',
      properties: { partner: { type: 'boolean', description: 'Is a partner' } },
      additionalProperties: false,
    };
    const replaced = await ok(
      `mutation($site: ID!, $schema: JSON!) { updateSiteAdaptiveSchema(input: { siteId: $site, jsonSchema: $schema }) { adaptiveSchema { jsonSchema templateConditions { description condition } } site { title } userErrors { code } } }`,
      { site: siteGid(SITES.docs), schema: jsonSchema },
    );
    expect(replaced.updateSiteAdaptiveSchema.site).toEqual({ title: SITES.docs });
    expect(replaced.updateSiteAdaptiveSchema.adaptiveSchema).toEqual({
      jsonSchema,
      templateConditions: [{ description: 'Is a partner', condition: 'visitor.claims.partner == true' }],
    });
    const bad = await g.gql<any>(
      `mutation($site: ID!) { updateSiteAdaptiveSchema(input: { siteId: $site, jsonSchema: { type: "array" } }) { userErrors { code field } } }`,
      { site },
    );
    // The description's gate names the field at fault inside the schema.
    expect(bad.data.updateSiteAdaptiveSchema.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['jsonSchema', 'properties'] },
    ]);
  });

  it('reads the published profile, with a share key for someone outside the organization', async () => {
    const query = `query($org: ID!, $id: ID!, $key: String) { site(organizationId: $org, id: $id) { published(shareKey: $key) {
      site { title } structure { __typename ... on SiteSpacesStructure { siteSpaces { path } } }
      customization { title defaultTheme styling { theme corners icons search font } aiMode externalLinksTarget pageActions }
      siteSpaceCustomizations { siteSpace { path } customization { locale } }
      scripts { url }
    } } }`;
    const member = await ok(query, { org: ORG, id: siteId(SITES.partners) });
    expect(member.site.published).toEqual({
      site: { title: SITES.partners },
      structure: { __typename: 'SiteSpacesStructure', siteSpaces: [{ path: 'pricing-faq' }, { path: 'de' }] },
      customization: {
        title: SITES.partners,
        defaultTheme: 'LIGHT',
        styling: { theme: 'CLEAN', corners: 'ROUNDED', icons: 'REGULAR', search: 'SUBTLE', font: 'Inter' },
        aiMode: 'SEARCH',
        externalLinksTarget: 'SELF',
        pageActions: ['MARKDOWN', 'PDF'],
      },
      siteSpaceCustomizations: [
        { siteSpace: { path: 'pricing-faq' }, customization: { locale: 'EN' } },
        { siteSpace: { path: 'de' }, customization: { locale: 'DE' } },
      ],
      scripts: [],
    });
  });
});
