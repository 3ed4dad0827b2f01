import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSpaceIndex } from '../../src/platform/content/search.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { buildSite, type TestSite, visitorToken, writePages } from '../fixtures/sites.js';

/**
 * What a site offers beyond its structure, end to end: duplicating a site space, a publishing
 * preview URL, search across the site's site spaces with visitors' claims honoured (and its
 * prewarm), a space's oEmbed lookups, and the template of an empty site.
 */

const ORG = 'contoso';
const SITES = {
  /** Visitor-auth, published on `docs.contoso.test`: sections Guide (variants `en`, `fr`), Reference (a page
   * only `beta` visitors see) and Beta (a section only `beta` visitors see). */
  docs: 'Contoso Docs',
  /** Public, published: Changelog at its root. */
  open: 'Contoso Open',
};
const SPACES = ['Guide', 'Guide FR', 'Reference', 'Beta notes', 'Changelog'];

let g: TestGateway;
let org: TestOrg;
const users = {} as Record<'ada' | 'finn' | 'hana', TestUser>;
const spaceIds: Record<string, string> = {};
const built: Record<string, TestSite> = {};

/** Contoso: ada admin, finn `read`; hana belongs to no organization. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'finn', 'hana'] as const) users[key] = addUser(g.platform, key);
  org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', finn: 'read' }, users });
  for (const title of SPACES) spaceIds[title] = await org.space(title, title === 'Guide FR' ? { language: 'fr' } : {});
  await writePages(org, spaceId('Guide'), [
    { title: 'Install the widget', markdown: 'Run the widget installer, then restart.' },
    { title: 'Configure', markdown: 'Settings of the widget live in a file.' },
  ]);
  await writePages(org, spaceId('Guide FR'), [{ title: 'Installer le widget', markdown: 'Lancez l’installeur.' }]);
  await writePages(org, spaceId('Reference'), [
    { title: 'Widget API', markdown: 'Every widget call, documented.' },
    { title: 'Widget internals', markdown: 'How the widget works inside.', condition: 'visitor.claims.beta == true' },
  ]);
  await writePages(org, spaceId('Beta notes'), [{ title: 'Widget beta', markdown: 'The widget of tomorrow.' }]);
  await writePages(org, spaceId('Changelog'), [
    { title: 'Widget 2.0', markdown: 'A new widget.' },
    { title: 'Widget 3.0', markdown: 'The next widget.', condition: 'visitor.claims.beta == true' },
  ]);
  built[SITES.docs] = await buildSite(org, {
    title: SITES.docs,
    visibility: 'visitor-auth',
    hostname: 'docs.contoso.test',
    sections: [
      {
        title: 'Guide',
        space: spaceId('Guide'),
        variantPath: 'en',
        variants: [{ space: spaceId('Guide FR'), path: 'fr' }],
      },
      { title: 'Reference', space: spaceId('Reference') },
      { title: 'Beta', space: spaceId('Beta notes'), condition: 'visitor.claims.beta == true' },
    ],
  });
  built[SITES.open] = await buildSite(org, { title: SITES.open, siteSpaces: [{ space: spaceId('Changelog') }] });
});
afterAll(() => g.destroy());

const spaceId = (title: string) => spaceIds[title]!;
const siteId = (title: string) => built[title]!.id;
const siteGid = (title: string) => encodeGlobalID('Site', `${ORG}/${siteId(title)}`);
const siteSpaceOf = (site: string, space: string) =>
  built[site]!.siteSpaces.find((item) => item.space === spaceId(space))!.id;
const siteSpaceGid = (site: string, id: string) => encodeGlobalID('SiteSpace', `${ORG}/${siteId(site)}/${id}`);
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

const STRUCTURE = `query($id: ID!) { node(id: $id) { ... on Site { structure { __typename
  ... on SiteSectionsStructure { sections { title siteSpaces { path draft space { title } } } } } } } }`;

describe('duplicating a space', () => {
  it('makes a copy its search finds at once, as any space whose revision moved', async () => {
    const made = await ok(
      `mutation($id: ID!) { duplicateSpace(input: { spaceId: $id }) { space { id title } userErrors { code } } }`,
      { id: spaceId('Guide') },
    );
    const copy = made.data.duplicateSpace.space;
    expect(copy.title).toBe('Guide (copy)');
    const found = await ok(
      `query($id: ID!) { node(id: $id) { ... on Space { search(query: "widget") { nodes { title } } } } }`,
      {
        id: copy.id,
      },
    );
    // Both pages of Guide speak of the widget.
    const titles = found.data.node.search.nodes.map((page: { title: string }) => page.title);
    expect(titles.sort()).toEqual(['Configure', 'Install the widget']);
    await ok(`mutation($id: ID!) { deleteSpace(input: { spaceId: $id }) { deleted userErrors { code } } }`, {
      id: copy.id,
    });
  });
});

describe('duplicating a site space', () => {
  it('puts a copy of a variant right after it, in the same section, with its space copied', async () => {
    const original = siteSpaceOf(SITES.docs, 'Guide');
    const result = await ok(
      `mutation($id: ID!) { duplicateSiteSpace(input: { siteSpaceId: $id }) {
        siteSpace { path draft space { title content { pages { title } } } }
        siteSpaceEdge { node { platformId } }
        userErrors { code }
      } }`,
      { id: siteSpaceGid(SITES.docs, original) },
    );
    const copy = result.data.duplicateSiteSpace;
    expect(copy.siteSpace).toEqual({
      path: 'guide-copy',
      draft: false,
      space: { title: 'Guide (copy)', content: { pages: [{ title: 'Install the widget' }, { title: 'Configure' }] } },
    });
    const written = named(result.upstreamRequests).filter((line) => !line.startsWith('GET'));
    expect(written).toEqual([`POST /v1/orgs/contoso/sites/<Contoso Docs>/site-spaces/${original}/duplicate`]);
    const structure = await ok(STRUCTURE, { id: siteGid(SITES.docs) });
    expect(structure.data.node.structure.sections[0]).toEqual({
      title: 'Guide',
      siteSpaces: [
        { path: 'en', draft: false, space: { title: 'Guide' } },
        { path: 'guide-copy', draft: false, space: { title: 'Guide (copy)' } },
        { path: 'fr', draft: false, space: { title: 'Guide FR' } },
      ],
    });
    // Cleaning up: the copy goes, so the other tests see the site as built.
    await ok(`mutation($id: ID!) { deleteSiteSpace(input: { siteSpaceId: $id }) { deleted userErrors { code } } }`, {
      id: siteSpaceGid(SITES.docs, copy.siteSpaceEdge.node.platformId),
    });
  });

  it('gives the only variant of a section a new section right after its own, as a draft when asked', async () => {
    const original = siteSpaceOf(SITES.docs, 'Reference');
    const result = await ok(
      `mutation($id: ID!) { duplicateSiteSpace(input: { siteSpaceId: $id, draft: true }) {
        siteSpace { platformId draft section { title draft } } userErrors { code } } }`,
      { id: siteSpaceGid(SITES.docs, original) },
    );
    const copy = result.data.duplicateSiteSpace.siteSpace;
    expect(copy).toMatchObject({ draft: true, section: { title: 'Reference (copy)', draft: true } });
    const structure = await ok(STRUCTURE, { id: siteGid(SITES.docs) });
    expect(structure.data.node.structure.sections.map((section: { title: string }) => section.title)).toEqual([
      'Guide',
      'Reference',
      'Reference (copy)',
      'Beta',
    ]);
    const sectionId = g.platform.db
      .prepare('SELECT section_id FROM site_spaces WHERE id = ?')
      .pluck(true)
      .get(copy.platformId) as string;
    await g.platform.api('DELETE', `/orgs/${ORG}/sites/${siteId(SITES.docs)}/sections/${sectionId}`, {
      token: users.ada.token,
    });
  });

  it('refuses readers of the organization and unknown site spaces with user errors', async () => {
    const mutation = `mutation($id: ID!) { duplicateSiteSpace(input: { siteSpaceId: $id }) {
      siteSpace { path } userErrors { code field } } }`;
    const reader = await g.gql<any>(
      mutation,
      { id: siteSpaceGid(SITES.docs, siteSpaceOf(SITES.docs, 'Guide')) },
      { token: users.finn.token },
    );
    expect(reader.data.duplicateSiteSpace).toEqual({
      siteSpace: null,
      userErrors: [{ code: 'FORBIDDEN', field: null }],
    });
    const unknown = await g.gql<any>(mutation, { id: siteSpaceGid(SITES.docs, 'nope') });
    expect(unknown.data.duplicateSiteSpace).toEqual({
      siteSpace: null,
      userErrors: [{ code: 'NOT_FOUND', field: ['siteSpaceId'] }],
    });
  });
});

describe('the publishing preview of a site', () => {
  const PREVIEW = `query($id: ID!, $siteSpace: ID, $claims: JSON, $draft: Boolean, $target: String) {
    node(id: $id) { ... on Site { publishingPreview(siteSpaceId: $siteSpace, claims: $claims, draft: $draft, target: $target) { url expiresAt } } } }`;
  const CONTENT = `query($id: ID!) { node(id: $id) { ... on Space { title content { pages { title } } } } }`;

  it('gives a URL of the site space with a visitor token for the claims, that reads their view', async () => {
    const beta = siteSpaceOf(SITES.docs, 'Reference');
    const result = await ok(PREVIEW, {
      id: siteGid(SITES.docs),
      siteSpace: siteSpaceGid(SITES.docs, beta),
      claims: { beta: true, team: "R&D 'core'" },
    });
    const asked = new URLSearchParams({ claims: "(beta:!t,team:'R&D !'core!'')", siteSpace: beta });
    expect(named(result.upstreamRequests)).toEqual([
      'GET /v1/orgs/contoso/sites/<Contoso Docs>',
      `GET /v1/orgs/contoso/sites/<Contoso Docs>/publishing/preview?${asked}`,
    ]);
    const url = new URL(result.data.node.publishingPreview.url);
    expect(`${url.origin}${url.pathname}`).toBe('https://docs.contoso.test/reference');
    const token = url.searchParams.get('token')!;
    const asPreview = await ok(CONTENT, { id: encodeGlobalID('Space', spaceId('Reference')) }, { token });
    expect(asPreview.data.node.content.pages.map((page: { title: string }) => page.title)).toEqual([
      'Widget API',
      'Widget internals',
    ]);
    // Without the claims, the page only beta visitors see is not in the view.
    const plain = await ok(PREVIEW, { id: siteGid(SITES.docs), siteSpace: beta });
    const plainToken = new URL(plain.data.node.publishingPreview.url).searchParams.get('token')!;
    const asPlain = await ok(CONTENT, { id: encodeGlobalID('Space', spaceId('Reference')) }, { token: plainToken });
    expect(asPlain.data.node.content.pages.map((page: { title: string }) => page.title)).toEqual(['Widget API']);
  });

  it('previews the default site space at the site root, and an address under the site as the target', async () => {
    const root = await ok(PREVIEW, { id: siteGid(SITES.open) });
    const url = new URL(root.data.node.publishingPreview.url);
    expect(url.pathname).toBe(`/published/${ORG}/${built[SITES.open]!.basename}/`);
    expect(Date.parse(root.data.node.publishingPreview.expiresAt)).toBeGreaterThan(Date.now() + 59 * 60 * 1000);
    const target = await ok(PREVIEW, { id: siteGid(SITES.docs), target: 'https://docs.contoso.test/en/configure' });
    expect(new URL(target.data.node.publishingPreview.url).pathname).toBe('/en/configure');
  });

  it('refuses a site space of another site, a target outside the site, claims that are no object, and non-members', async () => {
    const refusal = async (variables: Record<string, unknown>, token?: string) => {
      const result = await g.gql<any>(PREVIEW, { id: siteGid(SITES.docs), ...variables }, token ? { token } : {});
      expect(result.data?.node?.publishingPreview ?? null).toBeNull();
      return result.errors?.map((error) => [error.extensions?.code, error.message]);
    };
    expect(await refusal({ siteSpace: siteSpaceOf(SITES.open, 'Changelog') })).toEqual([
      ['BAD_USER_INPUT', expect.stringContaining(`no site space ${siteSpaceOf(SITES.open, 'Changelog')} in the site`)],
    ]);
    expect(await refusal({ target: 'https://evil.test/en' })).toEqual([
      ['BAD_USER_INPUT', expect.stringContaining('must be an address under the site')],
    ]);
    expect(await refusal({ claims: [1, 2] })).toEqual([['BAD_USER_INPUT', 'claims must be an object']]);
    expect(await refusal({}, users.hana.token)).toEqual([['NOT_FOUND', expect.any(String)]]);
  });
});

describe('searching a site', () => {
  const RESULTS = `totalCount nodes { title siteSpace { path } pages { title rank } }`;
  const SITE_SEARCH = `query($id: ID!, $query: String!, $mode: SiteSearchMode, $current: ID, $restrictTo: SiteSearchRestriction, $ids: [ID!]) {
    node(id: $id) { ... on Site { search(query: $query, mode: $mode, currentSiteSpaceId: $current, restrictTo: $restrictTo, siteSpaceIds: $ids) { ${RESULTS} } } } }`;
  const PROFILE_SEARCH = `query($site: ID!, $query: String!) {
    publishedSite(organizationId: "${ORG}", siteId: $site) { search(query: $query) { ${RESULTS} } } }`;
  type Result = { title: string; siteSpace: { path: string } | null; pages: Array<{ title: string; rank: number }> };

  /** The results by space, and a check that ranks number the pages across the site, spaces in the order of their best. */
  function byTitle(connection: { totalCount: number; nodes: Result[] }) {
    const ranks = connection.nodes.flatMap((node) => node.pages.map((page) => page.rank)).sort((a, b) => a - b);
    expect(ranks).toEqual(ranks.map((_, index) => index + 1));
    const best = connection.nodes.map((node) => Math.min(...node.pages.map((page) => page.rank)));
    expect(best).toEqual([...best].sort((a, b) => a - b));
    expect(connection.totalCount).toBe(connection.nodes.length);
    return Object.fromEntries(
      connection.nodes.map((node) => [
        node.title,
        { siteSpace: node.siteSpace?.path, pages: node.pages.map((p) => p.title).sort() },
      ]),
    );
  }

  async function visitor(claims: Record<string, unknown>) {
    const jwt = await visitorToken(built[SITES.docs]!.signingKey!, claims);
    const resolved = await ok(
      `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent { apiToken } } }`,
      { url: 'https://docs.contoso.test/', token: jwt },
    );
    const token = resolved.data.resolveUrl.apiToken as string;
    expect(token).toMatch(/^eyJ/);
    return token;
  }

  it('finds, for members, the pages of every site space the site publishes, ranked across them', async () => {
    const result = await ok(SITE_SEARCH, { id: siteGid(SITES.docs), query: 'widget' });
    expect(byTitle(result.data.node.search)).toEqual({
      Guide: { siteSpace: 'en', pages: ['Configure', 'Install the widget'] },
      'Guide FR': { siteSpace: 'fr', pages: ['Installer le widget'] },
      Reference: { siteSpace: 'reference', pages: ['Widget API', 'Widget internals'] },
      'Beta notes': { siteSpace: 'beta-notes', pages: ['Widget beta'] },
    });
    expect(named(result.upstreamRequests)).toEqual([
      'GET /v1/orgs/contoso/sites/<Contoso Docs>',
      'POST /v1/orgs/contoso/sites/<Contoso Docs>/search?limit=50',
      'GET /v1/orgs/contoso/sites/<Contoso Docs>/structure',
    ]);
  });

  it('honours a visitor’s claims as resolveUrl does: sections, site spaces and pages they do not open are not found', async () => {
    const plain = await ok(PROFILE_SEARCH, { site: siteId(SITES.docs), query: 'widget' }, { token: await visitor({}) });
    expect(byTitle(plain.data.publishedSite.search)).toEqual({
      Guide: { siteSpace: 'en', pages: ['Configure', 'Install the widget'] },
      'Guide FR': { siteSpace: 'fr', pages: ['Installer le widget'] },
      Reference: { siteSpace: 'reference', pages: ['Widget API'] },
    });
    const beta = await ok(
      PROFILE_SEARCH,
      { site: siteId(SITES.docs), query: 'widget' },
      { token: await visitor({ beta: true }) },
    );
    expect(byTitle(beta.data.publishedSite.search)).toEqual({
      Guide: { siteSpace: 'en', pages: ['Configure', 'Install the widget'] },
      'Guide FR': { siteSpace: 'fr', pages: ['Installer le widget'] },
      Reference: { siteSpace: 'reference', pages: ['Widget API', 'Widget internals'] },
      'Beta notes': { siteSpace: 'beta-notes', pages: ['Widget beta'] },
    });
    // Hidden text is not found either: nothing but the hidden page has "inside".
    const inside = await ok(
      PROFILE_SEARCH,
      { site: siteId(SITES.docs), query: 'inside' },
      { token: await visitor({}) },
    );
    expect(inside.data.publishedSite.search).toEqual({ totalCount: 0, nodes: [] });
  });

  it('searches a public site for readers outside its organization as a visitor without claims, and nothing of a visitor-auth site', async () => {
    const open = await ok(PROFILE_SEARCH, { site: siteId(SITES.open), query: 'widget' }, { token: users.hana.token });
    expect(byTitle(open.data.publishedSite.search)).toEqual({
      Changelog: { siteSpace: 'changelog', pages: ['Widget 2.0'] },
    });
    const closed = await g.gql<any>(
      PROFILE_SEARCH,
      { site: siteId(SITES.docs), query: 'widget' },
      { token: users.hana.token },
    );
    expect(closed.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('narrows the scope: the default site spaces in the current one’s language, the others, specific ones', async () => {
    const fr = siteSpaceOf(SITES.docs, 'Guide FR');
    const scoped = async (variables: Record<string, unknown>) =>
      Object.keys(
        byTitle((await ok(SITE_SEARCH, { id: siteGid(SITES.docs), query: 'widget', ...variables })).data.node.search),
      ).sort();
    expect(await scoped({ mode: 'DEFAULT' })).toEqual(['Beta notes', 'Guide', 'Reference']);
    expect(await scoped({ mode: 'DEFAULT', current: siteSpaceGid(SITES.docs, fr) })).toEqual([
      'Beta notes',
      'Guide FR',
      'Reference',
    ]);
    expect(await scoped({ mode: 'DEFAULT', current: fr, restrictTo: 'OTHER_SITE_SPACES' })).toEqual([
      'Beta notes',
      'Reference',
    ]);
    expect(await scoped({ mode: 'SPECIFIC', ids: [fr, siteSpaceOf(SITES.docs, 'Reference')] })).toEqual([
      'Guide FR',
      'Reference',
    ]);
    const other = await g.gql<any>(SITE_SEARCH, {
      id: siteGid(SITES.docs),
      query: 'widget',
      mode: 'SPECIFIC',
      ids: [siteSpaceOf(SITES.open, 'Changelog')],
    });
    expect(other.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
      ['BAD_USER_INPUT', expect.stringContaining(`no site space ${siteSpaceOf(SITES.open, 'Changelog')} in the site`)],
    ]);
  });

  it('prewarms: a space whose index is behind is indexed by a job', async () => {
    removeSpaceIndex(g.platform.db, spaceId('Changelog'));
    // A member searches the store's index (a reader outside the organization, their view's).
    const search = () => ok(SITE_SEARCH, { id: siteGid(SITES.open), query: 'widget' });
    expect((await search()).data.node.search.totalCount).toBe(0);
    const prewarm = await ok(
      `mutation($id: ID!) { prewarmSiteSearch(input: { siteId: $id }) { accepted userErrors { code } } }`,
      { id: siteGid(SITES.open) },
      { token: users.hana.token },
    );
    expect(prewarm.data.prewarmSiteSearch.accepted).toBe(true);
    expect(named(prewarm.upstreamRequests)).toEqual(['POST /v1/orgs/contoso/sites/<Contoso Open>/search/prewarm']);
    await g.platform.app.jobs.drain();
    // A site visitor may prewarm too: their views of the site's spaces are indexed ahead.
    const asVisitor = await ok(
      `mutation($id: ID!) { prewarmSiteSearch(input: { siteId: $id }) { accepted userErrors { code } } }`,
      { id: siteGid(SITES.docs) },
      { token: await visitor({ beta: true }) },
    );
    expect(asVisitor.data.prewarmSiteSearch.accepted).toBe(true);
    expect(byTitle((await search()).data.node.search)).toEqual({
      Changelog: { siteSpace: 'changelog', pages: ['Widget 2.0', 'Widget 3.0'] },
    });
  });
});

describe('the oEmbed of a URL in a space', () => {
  const EMBED = `query($id: ID!, $url: String!) { node(id: $id) { ... on Space { embed(url: $url) { type title site icon html } } } }`;
  let server: Server;
  let origin: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url!);
      if (request.url === '/article') {
        response.setHeader('content-type', 'text/html; charset=utf-8');
        response.end(
          `<html><head><title>Fallback title</title><meta property="og:site_name" content="Loopback news">
          <link rel="icon" href="/favicon.png">
          <link rel="alternate" type="application/json+oembed" href="/oembed?url=article"></head><body>Hi</body></html>`,
        );
      } else if (request.url === '/oembed?url=article') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            type: 'rich',
            title: 'The widget, explained',
            provider_name: 'Loopback',
            html: '<script>alert(1)</script>',
          }),
        );
      } else if (request.url === '/plain') {
        response.setHeader('content-type', 'text/html');
        response.end('<html><head><title>  A plain\n page </title></head></html>');
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const space = () => encodeGlobalID('Space', spaceId('Guide'));

  it('answers known video providers from the URL alone, with an iframe it writes', async () => {
    const result = await ok(EMBED, { id: space(), url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3' });
    expect(result.data.node.embed).toEqual({
      type: 'RICH',
      title: 'YouTube video',
      site: 'YouTube',
      icon: null,
      html: expect.stringContaining('src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"'),
    });
    expect(result.upstreamRequests).toEqual([
      `GET /v1/spaces/${spaceId('Guide')}`,
      `GET /v1/spaces/${spaceId('Guide')}/embed?url=${encodeURIComponent('https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=3')}`,
    ]);
  });

  it('reads a page through the outbound guard: its oEmbed title and provider as a link, never its HTML; kept for the next ask', async () => {
    const url = `${origin}/article`;
    const first = await ok(EMBED, { id: space(), url });
    expect(first.data.node.embed).toEqual({
      type: 'LINK',
      title: 'The widget, explained',
      site: 'Loopback',
      icon: `${origin}/favicon.png`,
      html: null,
    });
    expect(hits).toEqual(['/article', '/oembed?url=article']);
    await ok(EMBED, { id: space(), url });
    expect(hits).toHaveLength(2);
    const plain = await ok(EMBED, { id: space(), url: `${origin}/plain` });
    expect(plain.data.node.embed).toMatchObject({ type: 'LINK', title: 'A plain page', site: '127.0.0.1' });
  });

  it('answers a link titled with the URL when nothing can be read, and refuses what is no http URL or no reader', async () => {
    const missing = await ok(EMBED, { id: space(), url: `${origin}/gone` });
    expect(missing.data.node.embed).toMatchObject({ type: 'LINK', title: `${origin}/gone`, site: '127.0.0.1' });
    const bad = await g.gql<any>(EMBED, { id: space(), url: 'ftp://example.test/file' });
    expect(bad.errors?.map((error) => [error.extensions?.code, error.message])).toEqual([
      ['BAD_USER_INPUT', 'Invalid query field "url": must be an absolute http or https URL'],
    ]);
    const stranger = await g.gql<any>(EMBED, { id: space(), url: `${origin}/plain` }, { token: users.hana.token });
    expect(stranger.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });
});

describe('the template of an empty site', () => {
  const APPLY = `mutation($id: ID!) { applyTemplateToSite(input: { siteId: $id }) {
    applied site { structure { ... on SiteSectionsStructure { sections { title icon siteSpaces { space { title content { pages { title } } } } } } } }
    userErrors { code message } } }`;

  it('fills an empty site with a section per new space, each with its template’s pages', async () => {
    const empty = await org.site('Contoso Starter', { publish: false });
    const site = encodeGlobalID('Site', `${ORG}/${empty}`);
    const result = await ok(APPLY, { id: site });
    const { sections } = result.data.applyTemplateToSite.site.structure;
    expect(sections.map((section: any) => [section.title, section.icon, section.siteSpaces[0].space.title])).toEqual([
      ['Getting started', 'rocket', 'Getting started'],
      ['API reference', 'code', 'API reference'],
      ['Changelog', 'megaphone', 'Changelog'],
    ]);
    expect(sections[0].siteSpaces[0].space.content.pages.length).toBeGreaterThan(1);
    expect(result.upstreamRequests.filter((line: string) => !line.startsWith('GET'))).toEqual([
      `POST /v1/orgs/${ORG}/sites/${empty}/template`,
    ]);
    // Applied once: the site has content now.
    const again = await g.gql<any>(APPLY, { id: site });
    expect(again.data.applyTemplateToSite).toMatchObject({
      applied: false,
      userErrors: [{ code: 'CONFLICT', message: expect.stringContaining('already has content') }],
    });
  });

  it('refuses readers of the organization', async () => {
    const result = await g.gql<any>(APPLY, { id: siteGid(SITES.open) }, { token: users.finn.token });
    expect(result.data.applyTemplateToSite.userErrors.map((error: { code: string }) => error.code)).toEqual([
      'FORBIDDEN',
    ]);
  });
});
