import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { writePages } from '../fixtures/sites.js';

const acme = 'northwind';
const globex = 'southwind';
/** The spaces the sites show, by role; their titles give the site spaces' paths. */
const S = {
  public: 'Release notes',
  teamGrant: 'Architecture decisions',
  gitSynced: 'Company handbook',
  locked: 'Security hardening',
  userGrant: 'Runbooks',
};
const spaceIds: Record<string, string> = {};
const idOf = (title: string) => spaceIds[title]!;

let p: TestPlatform;
const sites = `/orgs/${acme}/sites`;
const site = (id: string) => `${sites}/${id}`;
/** ada admin of both organizations; in Northwind ben `create`, dee `edit`, finn `read`. */
const users = {} as Record<'ada' | 'ben' | 'dee' | 'finn', TestUser>;

async function ok(
  method: string,
  path: string,
  options: Parameters<TestPlatform['api']>[2] = {},
  status = method === 'POST' && !path.endsWith('/publish') && !path.endsWith('/unpublish') && !path.endsWith('/move')
    ? 201
    : 200,
) {
  const answer = await p.api(method, path, options);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer.body;
}

async function newSite(title: string, spaces: string[] = []) {
  return ok('POST', sites, { body: { title, spaces: spaces.map(idOf) } });
}

/** `[type, title or path, default, children…]` of a site's structure, for whole-shape assertions. */
async function outline(siteId: string): Promise<unknown> {
  const structure = await ok('GET', `${site(siteId)}/structure`);
  const item = (node: any): unknown => {
    if (node.object === 'site-space') return `${node.path}${node.default ? '*' : ''}`;
    if (node.object === 'site-section')
      return { [`${node.path}${node.default ? '*' : ''}`]: node.siteSpaces.map(item) };
    return { [`group:${node.title}`]: node.children.map(item) };
  };
  return { [structure.type]: structure.structure.map(item) };
}

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const key of ['ada', 'ben', 'dee', 'finn'] as const) users[key] = addUser(p, key);
  const org = addOrg(p, { id: acme, members: { ada: 'admin', ben: 'create', dee: 'edit', finn: 'read' }, users });
  addOrg(p, { id: globex, members: { ada: 'admin' }, users });
  for (const title of Object.values(S)) spaceIds[title] = await org.space(title);
  // A site space's home page is one of its space's pages.
  await writePages(org, idOf(S.gitSynced), [{ title: 'Welcome' }, { title: 'Policies' }]);
});

afterAll(async () => {
  await p?.destroy();
});

describe('sites', () => {
  it('creates an unpublished basic site with a basename from its title, unique in the organization', async () => {
    const first = await ok('POST', sites, { body: { title: 'Developer Portal' } });
    expect(first).toMatchObject({
      object: 'site',
      type: 'basic',
      title: 'Developer Portal',
      basename: 'developer-portal',
      published: false,
      visibility: 'public',
      siteSpaces: 0,
    });
    expect(first.urls.published).toBeUndefined();
    const second = await ok('POST', sites, { body: { title: 'Developer portal' } });
    expect(second.basename).toBe('developer-portal-2');
    const defaults = await ok('POST', sites, { body: {} });
    expect(defaults).toMatchObject({ title: 'Untitled site', type: 'basic' });
  });

  it('publishes at the organization address with the basename, and unpublishes', async () => {
    const created = await newSite('Handbook site', [S.public]);
    const published = await ok('POST', `${site(created.id)}/publish`);
    expect(published.published).toBe(true);
    expect(published.urls.published).toMatch(/\/published\/[^/]+\/handbook-site\/$/);
    const [siteSpace] = (await ok('GET', `${site(created.id)}/site-spaces`)).items;
    expect(siteSpace.urls.published).toBe(published.urls.published);
    const unpublished = await ok('POST', `${site(created.id)}/unpublish`);
    expect(unpublished.published).toBe(false);
    expect(unpublished.urls.published).toBeUndefined();
    expect((await ok('GET', `${site(created.id)}/site-spaces`)).items[0].urls).toEqual({});
  });

  it('lists sites by space, title and published state, a page at a time', async () => {
    const withSpace = await newSite('Filter by space', [S.teamGrant]);
    const published = await newSite('Filter published');
    await ok('POST', `${site(published.id)}/publish`);
    const bySpace = await ok('GET', sites, { query: { space: idOf(S.teamGrant) } });
    expect(bySpace.items.map((item: any) => item.id)).toEqual([withSpace.id]);
    const byTitle = await ok('GET', sites, { query: { title: 'filter' } });
    expect(byTitle.items.map((item: any) => item.title)).toEqual(['Filter by space', 'Filter published']);
    const onlyPublished = await ok('GET', sites, { query: { published: true } });
    expect(onlyPublished.items.every((item: any) => item.published)).toBe(true);
    expect(onlyPublished.items.map((item: any) => item.id)).toContain(published.id);
    const all = await ok('GET', sites);
    const firstPage = await ok('GET', sites, { query: { limit: 2 } });
    expect(firstPage.items).toHaveLength(2);
    expect(firstPage.count).toBe(all.count);
    const secondPage = await ok('GET', sites, { query: { limit: 2, page: firstPage.next.page } });
    expect(secondPage.items[0].id).toBe(all.items[2].id);
  });

  it('updates title, visibility, basename and proxy; refuses a taken basename and bad values, naming the field', async () => {
    const created = await newSite('Settings site');
    const other = await newSite('Other settings site');
    const updated = await ok('PATCH', site(created.id), {
      body: { title: 'Settings', visibility: 'share-link', basename: 'settings', proxy: 'https://example.com/docs/' },
    });
    expect(updated).toMatchObject({
      title: 'Settings',
      visibility: 'share-link',
      basename: 'settings',
      proxy: { origin: 'example.com/docs' },
    });
    expect(updated.proxy.target).toMatch(new RegExp(`/proxy/${created.id}$`));
    await ok('POST', `${site(created.id)}/publish`);
    expect((await ok('GET', site(created.id))).urls.published).toBe('https://example.com/docs/');
    expect((await ok('PATCH', site(created.id), { body: { proxy: null } })).proxy).toBeUndefined();

    const taken = await p.api('PATCH', site(other.id), { body: { basename: 'SETTINGS' } });
    expect(taken.status).toBe(409);
    for (const [body, field] of [
      [{ title: 'x' }, 'title'],
      [{ basename: 'a/b' }, 'basename'],
      [{ proxy: 'example.com' }, 'proxy'],
      [{ visibility: 'secret' }, 'visibility'],
      [{ hostname: 'docs' }, 'hostname'],
    ] as const) {
      const answer = await p.api('PATCH', site(other.id), { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(field);
    }
    expect((await p.api('PATCH', site(other.id), { body: {} })).status).toBe(400);
  });

  it('takes a custom hostname, unique among all sites, and publishes there', async () => {
    const created = await newSite('Hostname site');
    const updated = await ok('PATCH', site(created.id), { body: { hostname: 'Help.Example.com' } });
    expect(updated.hostname).toBe('help.example.com');
    expect((await ok('POST', `${site(created.id)}/publish`)).urls.published).toBe('https://help.example.com/');
    const other = await newSite('Other hostname site');
    expect((await p.api('PATCH', site(other.id), { body: { hostname: 'help.example.com' } })).status).toBe(409);
    const bad = await p.api('PATCH', site(other.id), { body: { hostname: 'localhost' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('hostname');
    expect((await ok('PATCH', site(created.id), { body: { hostname: null } })).hostname).toBeUndefined();
  });

  it('lets members read sites, and only admins create, change, publish and delete them', async () => {
    const created = await newSite('Permissions site', [S.public]);
    const reader = users.finn.token;
    expect((await p.api('GET', site(created.id), { token: reader })).body.permissions).toMatchObject({
      view: true,
      edit: false,
      admin: false,
    });
    expect((await p.api('GET', sites, { token: reader })).status).toBe(200);
    expect((await p.api('POST', sites, { token: users.ben.token, body: {} })).status).toBe(403);
    expect((await p.api('PATCH', site(created.id), { token: users.ben.token, body: { title: 'Nope' } })).status).toBe(
      403,
    );
    expect((await p.api('POST', `${site(created.id)}/publish`, { token: reader })).status).toBe(403);
    expect((await p.api('DELETE', site(created.id), { token: reader })).status).toBe(403);
    // Creators change the structure.
    expect(
      (
        await p.api('POST', `${site(created.id)}/site-spaces`, {
          token: users.ben.token,
          body: { spaceId: idOf(S.teamGrant) },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await p.api('POST', `${site(created.id)}/site-spaces`, {
          token: users.dee.token,
          body: { spaceId: idOf(S.teamGrant) },
        })
      ).status,
    ).toBe(403);
    // Another organization's site is not found.
    expect((await p.api('GET', `/orgs/${globex}/sites/${created.id}`)).status).toBe(404);
  });

  it("is the organization's default content only when it is one of its sites, and stops being it when deleted", async () => {
    const created = await newSite('Default content site');
    const refused = await p.api('PATCH', `/orgs/${globex}`, {
      body: { defaultContent: { type: 'site', site: created.id } },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toContain('defaultContent.site');
    const org = await ok('PATCH', `/orgs/${acme}`, { body: { defaultContent: { type: 'site', site: created.id } } });
    expect(org.defaultContent).toEqual({ type: 'site', site: created.id });
    expect((await p.api('DELETE', site(created.id))).status).toBe(205);
    expect((await p.api('DELETE', site(created.id))).status).toBe(204);
    expect((await ok('GET', `/orgs/${acme}`)).defaultContent).toBeUndefined();
  });
});

describe('site spaces', () => {
  it('adds spaces with paths from their titles, unique among siblings without case; the first is the default', async () => {
    const created = await newSite('Paths site', [S.public, S.teamGrant]);
    const list = await ok('GET', `${site(created.id)}/site-spaces`);
    expect(list.items.map((item: any) => [item.path, item.default, item.title])).toEqual([
      ['release-notes', true, S.public],
      ['architecture-decisions', false, S.teamGrant],
    ]);
    const again = await ok('POST', `${site(created.id)}/site-spaces`, { body: { spaceId: idOf(S.public) } });
    expect(again.path).toBe('release-notes-2');
    const clash = await p.api('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.public), path: 'Release-Notes' },
    });
    expect(clash.status).toBe(409);
    const bad = await p.api('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.public), path: '~changes' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('path');
    const foreign = await p.api('POST', `${site(created.id)}/site-spaces`, { body: { spaceId: 'nope' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toContain('spaceId');
    expect((await ok('GET', site(created.id))).siteSpaces).toBe(3);
    expect(
      (await ok('GET', `${site(created.id)}/site-spaces`, { query: { default: true } })).items.map(
        (item: any) => item.path,
      ),
    ).toEqual(['release-notes']);
    expect((await ok('GET', `${site(created.id)}/site-spaces`, { query: { default: false } })).count).toBe(2);
  });

  it('creates a new space for spaceId null', async () => {
    const created = await newSite('New space site');
    const added = await ok('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: null, title: 'Brand new docs' },
    });
    expect(added.space).toMatchObject({ title: 'Brand new docs', organization: acme });
    expect(added.path).toBe('brand-new-docs');
    const refused = await p.api('POST', `${site(created.id)}/site-spaces`, { body: { spaceId: null, pageId: 'x' } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('pageId');
  });

  it('updates path, condition (unset keeps it, null removes it), hidden, draft, space and home page', async () => {
    const created = await newSite('Update site', [S.public, S.teamGrant]);
    const [, second] = (await ok('GET', `${site(created.id)}/site-spaces`)).items;
    const url = `${site(created.id)}/site-spaces/${second.id}`;
    const conditioned = await ok('PATCH', url, {
      body: { condition: 'visitor.claims.beta == true', hidden: true, draft: true },
    });
    expect(conditioned).toMatchObject({ condition: 'visitor.claims.beta == true', hidden: true, draft: true });
    expect((await ok('PATCH', url, { body: { path: 'adr' } })).condition).toBe('visitor.claims.beta == true');
    expect((await ok('PATCH', url, { body: { condition: null } })).condition).toBeUndefined();
    for (const [condition, message] of [
      ['visitor.claims.constructor', 'constructor'],
      ['alert(1)', 'condition'],
      ['x'.repeat(1025), '1024'],
    ] as const) {
      const answer = await p.api('PATCH', url, { body: { condition } });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain(message);
    }
    expect((await p.api('PATCH', url, { body: { path: 'release-notes' } })).status).toBe(409);

    const spaceId = idOf(S.gitSynced);
    const tree = await ok('GET', `/spaces/${spaceId}/content`);
    const page = tree.pages.find((item: any) => item.type === 'document');
    const moved = await ok('PATCH', url, { body: { spaceId, pageId: page.id } });
    expect(moved).toMatchObject({ title: S.gitSynced, pageId: page.id, path: 'adr' });
    expect(moved.space.id).toBe(spaceId);
    const wrongPage = await p.api('PATCH', url, { body: { pageId: 'no-such-page' } });
    expect(wrongPage.status).toBe(400);
    expect(wrongPage.body.error.message).toContain('pageId');
    // A new space without a home page forgets the old one's.
    expect((await ok('PATCH', url, { body: { spaceId: idOf(S.teamGrant) } })).pageId).toBeNull();
  });

  it('moves the default to the next site space when it is deleted, and leaves out site spaces of deleted spaces', async () => {
    const spaceToDelete = await ok('POST', `/orgs/${acme}/spaces`, { body: { title: 'Short-lived' } });
    const created = await ok('POST', sites, {
      body: { title: 'Delete site', spaces: [idOf(S.public), spaceToDelete.id, idOf(S.teamGrant)] },
    });
    const [first] = (await ok('GET', `${site(created.id)}/site-spaces`)).items;
    expect((await p.api('DELETE', `${site(created.id)}/site-spaces/${first.id}`)).status).toBe(205);
    expect((await p.api('DELETE', `${site(created.id)}/site-spaces/${first.id}`)).status).toBe(204);
    expect(await outline(created.id)).toEqual({ siteSpaces: ['short-lived*', 'architecture-decisions'] });
    expect((await p.api('DELETE', `/spaces/${spaceToDelete.id}`)).status).toBe(205);
    expect(await outline(created.id)).toEqual({ siteSpaces: ['architecture-decisions*'] });
    expect((await ok('GET', site(created.id))).siteSpaces).toBe(1);
    await ok('POST', `/spaces/${spaceToDelete.id}/restore`, {}, 200);
    expect(await outline(created.id)).toEqual({ siteSpaces: ['short-lived*', 'architecture-decisions'] });
  });

  it('sets the default site space of the root from the site', async () => {
    const created = await newSite('Default space site', [S.public, S.teamGrant]);
    const [, second] = (await ok('GET', `${site(created.id)}/site-spaces`)).items;
    await ok('PATCH', site(created.id), { body: { defaultSiteSpace: second.id } });
    expect(await outline(created.id)).toEqual({ siteSpaces: ['release-notes', 'architecture-decisions*'] });
    const other = await newSite('Other default site', [S.public]);
    const [foreign] = (await ok('GET', `${site(other.id)}/site-spaces`)).items;
    const refused = await p.api('PATCH', site(created.id), { body: { defaultSiteSpace: foreign.id } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('defaultSiteSpace');
  });
});

describe('sections and section groups', () => {
  it('wraps root site spaces into a first section when a section is added, so a site never mixes both', async () => {
    const created = await newSite('Product docs', [S.public, S.teamGrant]);
    const section = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.gitSynced), title: 'Handbook', icon: 'book' },
    });
    expect(section).toMatchObject({
      object: 'site-section',
      title: 'Handbook',
      path: 'handbook',
      default: false,
      icon: 'book',
    });
    expect(section.siteSpaces.map((item: any) => [item.path, item.default, item.section])).toEqual([
      ['company-handbook', true, section.id],
    ]);
    expect(await outline(created.id)).toEqual({
      sections: [
        { 'product-docs*': ['release-notes*', 'architecture-decisions'] },
        { handbook: ['company-handbook*'] },
      ],
    });
    // New site spaces go to the default section unless another is named.
    await ok('POST', `${site(created.id)}/site-spaces`, { body: { spaceId: idOf(S.locked) } });
    await ok('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.userGrant), sectionId: section.id, path: 'v2' },
    });
    expect(await outline(created.id)).toEqual({
      sections: [
        { 'product-docs*': ['release-notes*', 'architecture-decisions', 'security-hardening'] },
        { handbook: ['company-handbook*', 'v2'] },
      ],
    });
    const unknown = await p.api('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.userGrant), sectionId: 'nope' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('sectionId');
    expect((await ok('GET', site(created.id))).siteSpaces).toBe(5);
  });

  it('builds published URLs of sections and variants from the defaults', async () => {
    const created = await newSite('URL layout', [S.public, S.teamGrant]);
    const api = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.gitSynced), title: 'API' },
    });
    await ok('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.userGrant), sectionId: api.id, path: 'v2' },
    });
    const root = (await ok('POST', `${site(created.id)}/publish`)).urls.published;
    const urls = (await ok('GET', `${site(created.id)}/site-spaces`)).items.map((item: any) =>
      item.urls.published.slice(root.length),
    );
    expect(urls).toEqual(['', 'url-layout/architecture-decisions', 'api', 'api/v2']);
    const sections = (await ok('GET', `${site(created.id)}/sections`)).items.map((item: any) =>
      item.urls.published.slice(root.length),
    );
    expect(sections).toEqual(['', 'api']);
  });

  it('updates a section, its default variant, its group; refuses taken paths and unknown ids', async () => {
    const created = await newSite('Section updates', [S.public]);
    const second = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.teamGrant), title: 'Second' },
    });
    await ok('POST', `${site(created.id)}/site-spaces`, {
      body: { spaceId: idOf(S.userGrant), sectionId: second.id },
    });
    const variants = (await ok('GET', `${site(created.id)}/sections`)).items[1].siteSpaces;
    const url = `${site(created.id)}/sections/${second.id}`;
    const updated = await ok('PATCH', url, {
      body: {
        title: 'Reference',
        path: 'reference',
        description: 'All of it',
        localizedTitle: { fr: 'Référence' },
        condition: 'visitor.claims.pro',
        defaultSiteSpace: variants[1].id,
      },
    });
    expect(updated).toMatchObject({
      title: 'Reference',
      path: 'reference',
      description: 'All of it',
      localizedTitle: { fr: 'Référence' },
      condition: 'visitor.claims.pro',
    });
    expect(updated.siteSpaces.map((item: any) => item.default)).toEqual([false, true]);
    expect((await p.api('PATCH', url, { body: { path: 'SECTION-UPDATES' } })).status).toBe(409);
    const foreignVariant = await p.api('PATCH', url, { body: { defaultSiteSpace: 'nope' } });
    expect(foreignVariant.status).toBe(400);
    expect(foreignVariant.body.error.message).toContain('defaultSiteSpace');
    expect((await ok('PATCH', url, { body: { description: null } })).description).toBeUndefined();
    // The only variant of a section cannot be deleted alone.
    const first = (await ok('GET', `${site(created.id)}/sections`)).items[0];
    expect((await p.api('DELETE', `${site(created.id)}/site-spaces/${first.siteSpaces[0].id}`)).status).toBe(409);
    // Deleting the default section makes the next one the default.
    expect((await p.api('DELETE', `${site(created.id)}/sections/${first.id}`)).status).toBe(205);
    expect(await outline(created.id)).toEqual({
      sections: [{ 'reference*': ['architecture-decisions', 'runbooks*'] }],
    });
    await ok('PATCH', site(created.id), {
      body: { defaultSiteSpace: (await ok('GET', `${site(created.id)}/site-spaces`)).items[0].id },
    });
    expect(await outline(created.id)).toEqual({
      sections: [{ 'reference*': ['architecture-decisions*', 'runbooks'] }],
    });
  });

  it('groups sections, nests groups, refuses cycles, and gives a deleted group’s children its place', async () => {
    const created = await newSite('Grouped', [S.public]);
    const b = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.teamGrant), title: 'Beta' },
    });
    const c = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.userGrant), title: 'Gamma' },
    });
    const outer = await ok('POST', `${site(created.id)}/section-groups`, {
      body: { title: 'Outer', sections: [c.id, b.id] },
    });
    expect(outer.children.map((child: any) => child.title)).toEqual(['Gamma', 'Beta']);
    expect(outer.sections.map((child: any) => child.id)).toEqual([c.id, b.id]);
    const inner = await ok('POST', `${site(created.id)}/section-groups`, {
      body: { title: 'Inner', parent: outer.id, icon: 'folder' },
    });
    expect(inner).toMatchObject({ sectionGroup: outer.id, icon: 'folder', children: [] });
    await ok('PATCH', `${site(created.id)}/sections/${b.id}`, { body: { siteSectionGroupId: inner.id } });
    expect(await outline(created.id)).toEqual({
      sections: [
        { 'grouped*': ['release-notes*'] },
        { 'group:Outer': [{ gamma: ['runbooks*'] }, { 'group:Inner': [{ beta: ['architecture-decisions*'] }] }] },
      ],
    });
    const cycle = await p.api('PATCH', `${site(created.id)}/section-groups/${outer.id}`, {
      body: { parentSectionGroupId: inner.id },
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.message).toContain('parentSectionGroupId');
    expect((await ok('GET', `${site(created.id)}/section-groups`)).items.map((group: any) => group.title)).toEqual([
      'Outer',
      'Inner',
    ]);
    expect((await p.api('DELETE', `${site(created.id)}/section-groups/${outer.id}`)).status).toBe(205);
    expect(await outline(created.id)).toEqual({
      sections: [
        { 'grouped*': ['release-notes*'] },
        { gamma: ['runbooks*'] },
        { 'group:Inner': [{ beta: ['architecture-decisions*'] }] },
      ],
    });
    const root = await ok('PATCH', `${site(created.id)}/section-groups/${inner.id}`, {
      body: { title: 'Renamed', parentSectionGroupId: null },
    });
    expect(root).toMatchObject({ title: 'Renamed' });
    expect(root.sectionGroup).toBeUndefined();
  });

  it('refuses groups on a site that lists site spaces without sections', async () => {
    const created = await newSite('Flat', [S.public]);
    const answer = await p.api('POST', `${site(created.id)}/section-groups`, { body: { title: 'Group' } });
    expect(answer.status).toBe(400);
  });
});

describe('order', () => {
  it('sorts siblings with structure/sort and the deprecated moves, which agree', async () => {
    const created = await newSite('Order', [S.public, S.teamGrant, S.userGrant]);
    const ids = (await ok('GET', `${site(created.id)}/site-spaces`)).items.map((item: any) => item.id);
    const sorted = await ok('PATCH', `${site(created.id)}/structure/sort`, {
      body: { item: { type: 'site-space', id: ids[2] }, position: { before: { type: 'site-space', id: ids[0] } } },
    });
    expect(sorted).toMatchObject({ object: 'site-space', id: ids[2] });
    expect(await outline(created.id)).toEqual({ siteSpaces: ['runbooks', 'release-notes*', 'architecture-decisions'] });
    await ok('POST', `${site(created.id)}/site-spaces/${ids[2]}/move`, {
      body: { position: { after: { type: 'site-space', siteSpace: ids[1] } } },
    });
    expect(await outline(created.id)).toEqual({ siteSpaces: ['release-notes*', 'architecture-decisions', 'runbooks'] });
    await ok('POST', `${site(created.id)}/site-spaces/${ids[0]}/move`, { body: {} });
    expect(await outline(created.id)).toEqual({ siteSpaces: ['architecture-decisions', 'runbooks', 'release-notes*'] });
    const minimal = await p.api('PATCH', `${site(created.id)}/structure/sort`, {
      headers: { prefer: 'return=minimal' },
      body: { item: { type: 'site-space', id: ids[0] }, position: { after: { type: 'site-space', id: ids[1] } } },
    });
    expect(minimal.status).toBe(204);
    expect(minimal.headers?.get('preference-applied')).toBe('return=minimal');
    expect(await outline(created.id)).toEqual({ siteSpaces: ['architecture-decisions', 'release-notes*', 'runbooks'] });

    const notSibling = await p.api('PATCH', `${site(created.id)}/structure/sort`, {
      body: { item: { type: 'site-space', id: ids[0] }, position: { before: { type: 'site-section', id: ids[1] } } },
    });
    expect(notSibling.status).toBe(400);
    const itself = await p.api('POST', `${site(created.id)}/site-spaces/${ids[0]}/move`, {
      body: { position: { before: { type: 'site-space', siteSpace: ids[0] } } },
    });
    expect(itself.status).toBe(400);
    const missing = await p.api('PATCH', `${site(created.id)}/structure/sort`, {
      body: { item: { type: 'site-space', id: 'nope' } },
    });
    expect(missing.status).toBe(404);
  });

  it('sorts sections and groups among each other, not across levels', async () => {
    const created = await newSite('Sections order', [S.public]);
    const b = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.teamGrant), title: 'Beta' },
    });
    const group = await ok('POST', `${site(created.id)}/section-groups`, { body: { title: 'Group' } });
    const c = await ok('POST', `${site(created.id)}/sections`, {
      body: { spaceId: idOf(S.userGrant), title: 'Gamma', siteSectionGroupId: group.id },
    });
    const first = (await ok('GET', `${site(created.id)}/sections`)).items[0];
    await ok('PATCH', `${site(created.id)}/structure/sort`, {
      body: {
        item: { type: 'site-section-group', id: group.id },
        position: { before: { type: 'site-section', id: first.id } },
      },
    });
    expect(await outline(created.id)).toEqual({
      sections: [
        { 'group:Group': [{ gamma: ['runbooks*'] }] },
        { 'sections-order*': ['release-notes*'] },
        { beta: ['architecture-decisions*'] },
      ],
    });
    await ok('POST', `${site(created.id)}/sections/${b.id}/move`, {
      body: { position: { before: { type: 'site-section', siteSection: first.id } } },
    });
    await ok('POST', `${site(created.id)}/section-groups/${group.id}/move`, {
      body: { position: { after: { type: 'site-section', id: first.id } } },
    });
    expect(await outline(created.id)).toEqual({
      sections: [
        { beta: ['architecture-decisions*'] },
        { 'sections-order*': ['release-notes*'] },
        { 'group:Group': [{ gamma: ['runbooks*'] }] },
      ],
    });
    const across = await p.api('POST', `${site(created.id)}/sections/${c.id}/move`, {
      body: { position: { before: { type: 'site-section', siteSection: b.id } } },
    });
    expect(across.status).toBe(400);
    expect(across.body.error.message).toContain('not a sibling');
  });
});
