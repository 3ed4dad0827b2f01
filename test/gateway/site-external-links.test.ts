import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { buildSite, type TestSite, visitorToken } from '../fixtures/sites.js';

/**
 * External links of a site's structure end to end: the three REST writes through their mutations, the links in
 * the structure in order with sections and groups (sorted, moved into and out of groups, left in place when their
 * group goes), and readers' views: drafts left out, adaptive conditions against the visitor's claims, as for
 * sections, in the published profile (`publishedSite`, and with the API token `resolveUrl` gives a visitor).
 */

const ORG = 'contoso';
let g: TestGateway;
let org: TestOrg;
let docs: TestSite;
let portal: TestSite;
let simple: TestSite;

/** Contoso: ada admin, dee `edit`; hana is in no organization. Docs: sections Guides, Reference, Changelog (in a
 * group More); Portal: visitor-auth, section Guides; Simple: site spaces at its root. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', dee: 'edit' } });
  addOrg(g.platform, { id: 'elsewhere', members: { hana: 'admin' } });
  const space = (title: string) => org.space(title);
  const [guides, reference, changelog, handbook] = await Promise.all(
    ['Guides', 'Reference', 'Changelog', 'Handbook'].map(space),
  );
  docs = await buildSite(org, {
    title: 'Docs',
    basename: 'docs',
    sections: [
      { title: 'Guides', space: guides! },
      { title: 'Reference', space: reference! },
      { title: 'Changelog', space: changelog! },
    ],
    groups: [{ title: 'More', sections: ['Changelog'] }],
  });
  portal = await buildSite(org, {
    title: 'Portal',
    basename: 'portal',
    visibility: 'visitor-auth',
    sections: [{ title: 'Guides', space: guides! }],
  });
  simple = await buildSite(org, { title: 'Simple', siteSpaces: [{ space: handbook! }] });
});
afterAll(() => g.destroy());

const siteGid = (site: TestSite) => encodeGlobalID('Site', `${ORG}/${site.id}`);
const groupId = (site: TestSite, title: string) =>
  g.platform.db
    .prepare('SELECT id FROM site_section_groups WHERE site_id = ? AND title = ?')
    .pluck(true)
    .get(site.id, title) as string;
const linkId = (site: TestSite, title: string) =>
  g.platform.db
    .prepare('SELECT id FROM site_external_links WHERE site_id = ? AND title = ?')
    .pluck(true)
    .get(site.id, title) as string;
const linkGid = (site: TestSite, title: string) =>
  encodeGlobalID('SiteExternalLink', `${ORG}/${site.id}/${linkId(site, title)}`);
const named = (requests: string[]) =>
  requests.map((request) =>
    [docs, portal, simple].reduce((text, site) => text.split(site.id).join(`<${site.title}>`), request),
  );

async function ok<T = any>(query: string, variables: Record<string, unknown> = {}, token?: string) {
  const result = await g.gql<T>(query, variables, token ? { token } : {});
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result as typeof result & { data: any };
}

const ADD = `mutation($input: AddExternalLinkToSiteInput!) {
  addExternalLinkToSite(input: $input) {
    siteExternalLink { id platformId title url description icon draft condition localizedTitle group { title } site { title } }
    userErrors { message code field }
  }
}`;
const UPDATE = `mutation($input: UpdateSiteExternalLinkInput!) {
  updateSiteExternalLink(input: $input) {
    siteExternalLink { title url draft condition group { title } }
    userErrors { message code field }
  }
}`;
/** A structure's items, each as `Title` or `Title -> url`, groups with what they hold. */
const STRUCTURE = `structure { ... on SiteSectionsStructure { items { ...Item
  ... on SiteSectionGroup { children { ...Item ... on SiteSectionGroup { children { ...Item } } } } } } }`;
const ITEM = `fragment Item on SiteStructureItem {
  __typename ... on SiteSection { title } ... on SiteSectionGroup { title } ... on SiteExternalLink { title url } }`;
const READ = `query($id: ID!) { node(id: $id) { ... on Site { ${STRUCTURE} } } } ${ITEM}`;

type Item = { __typename: string; title: string; url?: string; children?: Item[] };
/** Items as short strings: `Guides`, `Status -> https://…`, `[More: Changelog, …]`. */
const outline = (items: Item[]): string[] =>
  items.map((item) =>
    item.children
      ? `[${item.title}: ${outline(item.children).join(', ')}]`
      : item.url
        ? `${item.title} -> ${item.url}`
        : item.title,
  );
const structureOf = async (site: TestSite) =>
  outline((await ok(READ, { id: siteGid(site) })).data.node.structure.items);

describe('adding and changing external links', () => {
  it('adds a link last at the root and one in a group, in one request each', async () => {
    const status = await ok(ADD, {
      input: {
        siteId: siteGid(docs),
        title: 'Status',
        url: 'https://status.contoso.test/',
        description: 'Is it up?',
        icon: 'signal',
        localizedTitle: { fr: 'État' },
      },
    });
    expect(status.data.addExternalLinkToSite.siteExternalLink).toEqual({
      id: linkGid(docs, 'Status'),
      platformId: linkId(docs, 'Status'),
      title: 'Status',
      url: 'https://status.contoso.test/',
      description: 'Is it up?',
      icon: 'signal',
      draft: false,
      condition: null,
      localizedTitle: { fr: 'État' },
      group: null,
      site: { title: 'Docs' },
    });
    expect(named(status.upstreamRequests)).toEqual([
      'POST /v1/orgs/contoso/sites/<Docs>/external-links',
      'GET /v1/orgs/contoso/sites/<Docs>',
    ]);

    const more = encodeGlobalID('SiteSectionGroup', `${ORG}/${docs.id}/${groupId(docs, 'More')}`);
    // The group's global ID names the site: no siteId needed.
    const forum = await ok(ADD, { input: { parentId: more, title: 'Forum', url: 'http://forum.contoso.test/q?a=1' } });
    expect(forum.data.addExternalLinkToSite.siteExternalLink).toMatchObject({
      title: 'Forum',
      group: { title: 'More' },
    });
    // The write, the structure for its group's title, the site for its title.
    expect(named(forum.upstreamRequests)).toEqual([
      'POST /v1/orgs/contoso/sites/<Docs>/external-links',
      expect.stringMatching(/^GET /),
      expect.stringMatching(/^GET /),
    ]);
    expect(named(forum.upstreamRequests).slice(1).sort()).toEqual([
      'GET /v1/orgs/contoso/sites/<Docs>',
      'GET /v1/orgs/contoso/sites/<Docs>/structure',
    ]);

    expect(await structureOf(docs)).toEqual([
      'Guides',
      'Reference',
      '[More: Changelog, Forum -> http://forum.contoso.test/q?a=1]',
      'Status -> https://status.contoso.test/',
    ]);
  });

  it('sorts a link among sections and groups, and moves it into and out of groups', async () => {
    const sorted = await ok(
      `mutation($input: SortSiteStructureInput!) { sortSiteStructure(input: $input) {
        siteExternalLink { title } siteSection { title } userErrors { message code field } } }`,
      {
        input: {
          itemId: linkGid(docs, 'Status'),
          before: encodeGlobalID('SiteSection', `${ORG}/${docs.id}/${docs.sections.Reference}`),
        },
      },
    );
    expect(sorted.data.sortSiteStructure).toEqual({
      siteExternalLink: { title: 'Status' },
      siteSection: null,
      userErrors: [],
    });
    expect(await structureOf(docs)).toEqual([
      'Guides',
      'Status -> https://status.contoso.test/',
      'Reference',
      '[More: Changelog, Forum -> http://forum.contoso.test/q?a=1]',
    ]);

    // Out of its group (last at the root), then back into it (last there).
    const out = await ok(UPDATE, { input: { siteExternalLinkId: linkGid(docs, 'Forum'), parentId: null } });
    expect(out.data.updateSiteExternalLink.siteExternalLink).toMatchObject({ title: 'Forum', group: null });
    expect(out.upstream).toBe(1);
    expect(await structureOf(docs)).toEqual([
      'Guides',
      'Status -> https://status.contoso.test/',
      'Reference',
      '[More: Changelog]',
      'Forum -> http://forum.contoso.test/q?a=1',
    ]);
    await ok(UPDATE, {
      input: { siteExternalLinkId: linkGid(docs, 'Status'), parentId: groupId(docs, 'More'), title: 'Uptime' },
    });
    expect(await structureOf(docs)).toEqual([
      'Guides',
      'Reference',
      '[More: Changelog, Uptime -> https://status.contoso.test/]',
      'Forum -> http://forum.contoso.test/q?a=1',
    ]);
  });

  it('keeps a group’s links in its place when the group is deleted', async () => {
    const site = await buildSite(org, {
      title: 'Scratch',
      sections: [
        { title: 'One', space: await org.space('One') },
        { title: 'Two', space: await org.space('Two') },
      ],
      groups: [{ title: 'Box', sections: ['One'] }],
    });
    const box = groupId(site, 'Box');
    await ok(ADD, { input: { siteId: siteGid(site), parentId: box, title: 'Inside', url: 'https://in.test' } });
    // Box came after Two; what it held takes its place, in order.
    expect(await structureOf(site)).toEqual(['Two', '[Box: One, Inside -> https://in.test]']);
    await ok(
      `mutation($input: DeleteSiteSectionGroupInput!) { deleteSiteSectionGroup(input: $input) { deleted userErrors { code } } }`,
      { input: { siteSectionGroupId: encodeGlobalID('SiteSectionGroup', `${ORG}/${site.id}/${box}`) } },
    );
    expect(await structureOf(site)).toEqual(['Two', 'One', 'Inside -> https://in.test']);
  });

  it('refetches a link by its global ID from the site’s structure', async () => {
    const result = await ok(
      `query($id: ID!) { node(id: $id) { ... on SiteExternalLink { title url site { title } } } }`,
      {
        id: linkGid(docs, 'Forum'),
      },
    );
    expect(result.data.node).toEqual({
      title: 'Forum',
      url: 'http://forum.contoso.test/q?a=1',
      site: { title: 'Docs' },
    });
    expect(named(result.upstreamRequests).sort()).toEqual([
      'GET /v1/orgs/contoso/sites/<Docs>',
      'GET /v1/orgs/contoso/sites/<Docs>/structure',
    ]);
  });

  it('deletes a link: deleted, then nothing left to delete', async () => {
    const id = linkGid(docs, 'Forum');
    const DELETE = `mutation($input: DeleteSiteExternalLinkInput!) { deleteSiteExternalLink(input: $input) {
      deleted deletedId userErrors { code } } }`;
    const first = await ok(DELETE, { input: { siteExternalLinkId: id } });
    expect(first.data.deleteSiteExternalLink).toEqual({ deleted: true, deletedId: id, userErrors: [] });
    expect(first.upstream).toBe(1);
    const again = await ok(DELETE, { input: { siteExternalLinkId: id } });
    expect(again.data.deleteSiteExternalLink).toEqual({ deleted: false, deletedId: id, userErrors: [] });
    expect(await structureOf(docs)).toEqual([
      'Guides',
      'Reference',
      '[More: Changelog, Uptime -> https://status.contoso.test/]',
    ]);
  });
});

describe('the REST operations', () => {
  it('answers a created link with its location, an update with 204 when asked, and sorts links by type', async () => {
    const base = `/orgs/${ORG}/sites/${docs.id}`;
    const created = await g.platform.api('POST', `${base}/external-links`, {
      body: { title: 'Blog', url: 'https://blog.contoso.test/', condition: 'visitor.claims.beta == true' },
    });
    expect(created.status).toBe(201);
    expect(created.headers?.get('location')).toBe(`${g.platform.url}${base}/external-links/${created.body.id}`);
    expect(created.body).toEqual({
      object: 'site-external-link',
      id: created.body.id,
      title: 'Blog',
      url: 'https://blog.contoso.test/',
      draft: false,
      condition: 'visitor.claims.beta == true',
    });
    const minimal = await g.platform.api('PATCH', `${base}/external-links/${created.body.id}`, {
      body: { condition: null, description: 'News' },
      headers: { prefer: 'return=minimal' },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.headers?.get('preference-applied')).toBe('return=minimal');
    const sorted = await g.platform.api('PATCH', `${base}/structure/sort`, {
      body: {
        item: { type: 'site-external-link', id: created.body.id },
        position: { before: { type: 'site-section', id: docs.sections.Guides } },
      },
    });
    expect(sorted.status).toBe(200);
    expect(sorted.body).toMatchObject({ object: 'site-external-link', title: 'Blog', description: 'News' });
    expect(sorted.body.condition).toBeUndefined();
    expect((await structureOf(docs))[0]).toBe('Blog -> https://blog.contoso.test/');
    expect((await g.platform.api('DELETE', `${base}/external-links/${created.body.id}`)).status).toBe(205);
  });
});

describe('refusals', () => {
  it('refuses an address that is not http(s) before any upstream call, and the platform refuses it too', async () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,hi', '/relative', 'ftp://files.test/']) {
      const result = await g.gql(
        `mutation($input: AddExternalLinkToSiteInput!) { addExternalLinkToSite(input: $input) { siteExternalLink { id } userErrors { code field } } }`,
        { input: { siteId: siteGid(docs), title: 'Bad', url } },
      );
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      expect(result.data?.addExternalLinkToSite).toEqual({
        siteExternalLink: null,
        userErrors: [{ code: 'BAD_USER_INPUT', field: ['url'] }],
      });
      expect(result.upstream).toBe(0);
      const direct = await g.platform.api('POST', `/orgs/${ORG}/sites/${docs.id}/external-links`, {
        body: { title: 'Bad', url },
      });
      expect(direct.status).toBe(400);
      expect(direct.body.error.message).toMatch(/^Invalid body field "url": /);
    }
    const changed = await g.platform.api(
      'PATCH',
      `/orgs/${ORG}/sites/${docs.id}/external-links/${linkId(docs, 'Uptime')}`,
      {
        body: { url: 'javascript:alert(1)' },
      },
    );
    expect(changed.status).toBe(400);
    expect(changed.body.error.message).toBe('Invalid body field "url": must be an http or https URL');
  });

  it('refuses a site whose site spaces are at its root, a parent that is no group, and writers below create', async () => {
    const rooted = await g.gql(ADD, { input: { siteId: siteGid(simple), title: 'Blog', url: 'https://blog.test' } });
    expect(rooted.data?.addExternalLinkToSite.userErrors).toEqual([
      {
        message: 'The site lists its site spaces without sections: external links need a site organized in sections',
        code: 'BAD_USER_INPUT',
        field: null,
      },
    ]);
    const section = await g.gql(ADD, {
      input: { siteId: siteGid(docs), title: 'Blog', url: 'https://blog.test', parentId: docs.sections.Guides },
    });
    expect(section.data?.addExternalLinkToSite.userErrors).toEqual([
      {
        message: `Invalid input field "parentId": no section group ${docs.sections.Guides} in the site`,
        code: 'BAD_USER_INPUT',
        field: ['parentId'],
      },
    ]);
    const editor = await g.gql(
      ADD,
      { input: { siteId: siteGid(docs), title: 'Blog', url: 'https://blog.test' } },
      { token: org.token('dee') },
    );
    expect(editor.data?.addExternalLinkToSite.userErrors).toEqual([
      expect.objectContaining({ code: 'FORBIDDEN', field: null }),
    ]);
    const missing = await g.gql(UPDATE, {
      input: { siteId: siteGid(docs), siteExternalLinkId: 'nope', title: 'Gone' },
    });
    expect(missing.data?.updateSiteExternalLink.userErrors).toEqual([
      {
        message: 'Site external link not found: input field "siteExternalLinkId"',
        code: 'NOT_FOUND',
        field: ['siteExternalLinkId'],
      },
    ]);
  });
});

describe('what readers see', () => {
  const PROFILE = `query($org: ID!, $site: ID!) { publishedSite(organizationId: $org, siteId: $site) { ${STRUCTURE} } } ${ITEM}`;

  it('leaves drafts out of the published profile until they are live', async () => {
    await ok(ADD, { input: { siteId: siteGid(docs), title: 'Preview', url: 'https://preview.test', draft: true } });
    const outsider = g.platform.db
      .prepare("SELECT t.token FROM api_tokens t JOIN members m ON m.user_id = t.user_id WHERE m.org_id = 'elsewhere'")
      .pluck(true)
      .get() as string;
    const read = async () =>
      outline((await ok(PROFILE, { org: ORG, site: docs.id }, outsider)).data.publishedSite.structure.items);
    expect(await read()).toEqual(['Guides', 'Reference', '[More: Changelog, Uptime -> https://status.contoso.test/]']);
    // Members see drafts in the structure.
    expect(await structureOf(docs)).toContain('Preview -> https://preview.test');
    await ok(UPDATE, { input: { siteExternalLinkId: linkGid(docs, 'Preview'), draft: false } });
    expect(await read()).toEqual([
      'Guides',
      'Reference',
      '[More: Changelog, Uptime -> https://status.contoso.test/]',
      'Preview -> https://preview.test',
    ]);
  });

  it('shows a link with a condition to the visitors whose claims meet it, as a section’s (resolveUrl’s token)', async () => {
    const portalGroup = await g.platform.api('POST', `/orgs/${ORG}/sites/${portal.id}/section-groups`, {
      body: { title: 'Partners' },
    });
    await ok(ADD, {
      input: {
        siteId: siteGid(portal),
        title: 'Partner desk',
        url: 'https://partners.test',
        condition: 'visitor.claims.partner == true',
        parentId: portalGroup.body.id,
      },
    });
    await ok(ADD, { input: { siteId: siteGid(portal), title: 'Support', url: 'https://support.test' } });
    const asVisitor = async (claims: Record<string, unknown>) => {
      const jwtToken = await visitorToken(portal.signingKey!, claims);
      const { urls } = (await g.platform.api('GET', `/orgs/${ORG}/sites/${portal.id}`)).body;
      const resolved = await ok(
        `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent { apiToken } } }`,
        { url: urls.published, token: jwtToken },
      );
      const profile = await ok(PROFILE, { org: ORG, site: portal.id }, resolved.data.resolveUrl.apiToken);
      return outline(profile.data.publishedSite.structure.items);
    };
    // The group holds nothing this visitor may see: it goes too.
    expect(await asVisitor({})).toEqual(['Guides', 'Support -> https://support.test']);
    expect(await asVisitor({ partner: true })).toEqual([
      'Guides',
      '[Partners: Partner desk -> https://partners.test]',
      'Support -> https://support.test',
    ]);
  });
});
