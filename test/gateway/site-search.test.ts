import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { buildSite, type TestSite, writePages } from '../fixtures/sites.js';

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
  for (const title of SPACES) spaceIds[title] = await org.space(title);
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
  await writePages(org, spaceId('Changelog'), [{ title: 'Widget 2.0', markdown: 'A new widget.' }]);
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
