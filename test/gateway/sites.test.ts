import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { buildSite, writePages } from '../fixtures/sites.js';

const SITES = {
  /** Premium, public, published, Northwind's default content, basename `docs`: sections Getting started (variants
   * `en`, `fr`), Product, and Release notes and Status in a group Resources. */
  docs: 'Northwind Docs',
  /** Share-link, published: Pricing FAQ and Erste Schritte (`de`). */
  partners: 'Partner Portal',
  /** Ultimate, visitor-auth, adaptive, published on `api.northwind.test`: API reference (`reference`) and Runbooks
   * (`beta`, for visitors with `betaAccess`). */
  api: 'Northwind API',
  /** Unpublished: Roadmap. */
  draft: 'Northwind Labs',
  /** Southwind's, published on `developers.southwind.test`. */
  globex: 'Southwind Developers',
};

let g: TestGateway;
/** Northwind: ada admin, finn `read`. Southwind: ada admin. */
const users = {} as Record<'ada' | 'finn', TestUser>;
const spaceIds: Record<string, string> = {};
const idOf = (title: string) => spaceIds[title]!;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'finn'] as const) users[key] = addUser(g.platform, key);
  const org = addOrg(g.platform, { id: 'northwind', members: { ada: 'admin', finn: 'read' }, users });
  const south = addOrg(g.platform, { id: 'southwind', members: { ada: 'admin' }, users });
  for (const title of [
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
    'Architecture decisions',
    'Company handbook',
    'Tutorials',
  ]) {
    spaceIds[title] = await org.space(title);
  }
  // Home pages: the first page of each space.
  await writePages(org, idOf('Getting started'), [{ title: 'Welcome' }, { title: 'Install' }]);
  await writePages(org, idOf('Guide de démarrage'), [{ title: 'Bienvenue' }]);
  await buildSite(org, {
    title: SITES.docs,
    type: 'premium',
    basename: 'docs',
    defaultContent: true,
    sections: [
      {
        title: 'Getting started',
        icon: 'rocket',
        space: idOf('Getting started'),
        variantPath: 'en',
        localizedTitle: { fr: 'Premiers pas' },
        variants: [{ space: idOf('Guide de démarrage'), path: 'fr' }],
      },
      { title: 'Product', icon: 'box', space: idOf('Product overview') },
      { title: 'Release notes', icon: 'megaphone', space: idOf('Release notes') },
      { title: 'Status', icon: 'signal', space: idOf('Status page') },
    ],
    groups: [{ title: 'Resources', icon: 'folder', sections: ['Release notes', 'Status'] }],
  });
  await buildSite(org, {
    title: SITES.partners,
    visibility: 'share-link',
    siteSpaces: [{ space: idOf('Pricing FAQ') }, { space: idOf('Erste Schritte'), path: 'de' }],
  });
  await buildSite(org, {
    title: SITES.api,
    type: 'ultimate',
    visibility: 'visitor-auth',
    hostname: 'api.northwind.test',
    adaptiveSchema: {
      type: 'object',
      properties: { betaAccess: { type: 'boolean', description: 'Has access to beta features' } },
      additionalProperties: false,
    },
    siteSpaces: [
      { space: idOf('API reference'), path: 'reference' },
      { space: idOf('Runbooks'), path: 'beta', condition: 'visitor.claims.betaAccess == true' },
    ],
  });
  await buildSite(org, { title: SITES.draft, siteSpaces: [{ space: idOf('Roadmap') }], publish: false });
  await buildSite(south, {
    title: SITES.globex,
    hostname: 'developers.southwind.test',
    siteSpaces: [{ space: await south.space('Developer portal') }],
  });
});
afterAll(() => g.destroy());

/** Platform id of the site with that title. */
const siteId = (title: string) =>
  (g.platform.db.prepare('SELECT id FROM sites WHERE title = ?').get(title) as { id: string }).id;
const siteGid = (title: string, org = 'northwind') => encodeGlobalID('Site', `${org}/${siteId(title)}`);
const itemGid = (typename: string, site: string, id: string, org = 'northwind') =>
  encodeGlobalID(typename, `${org}/${siteId(site)}/${id}`);
const spaceGid = (title: string) => encodeGlobalID('Space', idOf(title));

/** A whole answer with the platform's address, which changes from run to run, as `http://platform`. */
const stable = (value: unknown) =>
  JSON.parse(JSON.stringify(value).split(new URL(g.platform.url).origin).join('http://platform'));
/** The upstream requests of an answer, with site ids as the titles of their sites. */
const requestsOf = (result: { upstreamRequests: string[] }) =>
  result.upstreamRequests.map((request) =>
    Object.values(SITES).reduce((text, title) => text.split(siteId(title)).join(`<${title}>`), request),
  );

/** Runs an operation that must succeed with no errors and no user errors; returns its data. */
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

const STRUCTURE = `
  structure {
    __typename
    ... on SiteSectionsStructure {
      items {
        __typename
        ... on SiteSection { title path default icon localizedTitle siteSpaces { path default space { title } } }
        ... on SiteSectionGroup { title icon children { __typename ... on SiteSection { title path siteSpaces { path space { title } } } } }
      }
    }
    ... on SiteSpacesStructure { siteSpaces { path default condition space { title } } }
  }`;

describe('reading sites', () => {
  it("lists an organization's sites with their structures: one request per structure, the spaces inside them", async () => {
    const result = await g.gql(`{
      organization(id: "northwind") {
        sites {
          totalCount
          nodes { title type visibility isPublished hostname basename siteSpaceCount defaultLevel adaptiveContent { enabled } urls { published } ${STRUCTURE} }
        }
      }
    }`);
    expect(result.errors).toBeUndefined();
    // The platform lists sites in an order of its own: compared sorted.
    expect(requestsOf(result).sort()).toEqual(
      [
        'GET /v1/orgs/northwind',
        'GET /v1/orgs/northwind/sites?limit=50',
        `GET /v1/orgs/northwind/sites/<${SITES.api}>/structure`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/structure`,
        `GET /v1/orgs/northwind/sites/<${SITES.partners}>/structure`,
        `GET /v1/orgs/northwind/sites/<${SITES.draft}>/structure`,
      ].sort(),
    );
    result.data.organization.sites.nodes.sort((a: { title: string }, b: { title: string }) =>
      a.title.localeCompare(b.title),
    );
    expect(stable(result.data)).toMatchInlineSnapshot(`
      {
        "organization": {
          "sites": {
            "nodes": [
              {
                "adaptiveContent": {
                  "enabled": true,
                },
                "basename": "northwind-api",
                "defaultLevel": "INHERIT",
                "hostname": "api.northwind.test",
                "isPublished": true,
                "siteSpaceCount": 2,
                "structure": {
                  "__typename": "SiteSpacesStructure",
                  "siteSpaces": [
                    {
                      "condition": null,
                      "default": true,
                      "path": "reference",
                      "space": {
                        "title": "API reference",
                      },
                    },
                    {
                      "condition": "visitor.claims.betaAccess == true",
                      "default": false,
                      "path": "beta",
                      "space": {
                        "title": "Runbooks",
                      },
                    },
                  ],
                },
                "title": "Northwind API",
                "type": "ULTIMATE",
                "urls": {
                  "published": "https://api.northwind.test/",
                },
                "visibility": "VISITOR_AUTH",
              },
              {
                "adaptiveContent": {
                  "enabled": false,
                },
                "basename": "docs",
                "defaultLevel": "INHERIT",
                "hostname": null,
                "isPublished": true,
                "siteSpaceCount": 5,
                "structure": {
                  "__typename": "SiteSectionsStructure",
                  "items": [
                    {
                      "__typename": "SiteSection",
                      "default": true,
                      "icon": "rocket",
                      "localizedTitle": {
                        "fr": "Premiers pas",
                      },
                      "path": "getting-started",
                      "siteSpaces": [
                        {
                          "default": true,
                          "path": "en",
                          "space": {
                            "title": "Getting started",
                          },
                        },
                        {
                          "default": false,
                          "path": "fr",
                          "space": {
                            "title": "Guide de démarrage",
                          },
                        },
                      ],
                      "title": "Getting started",
                    },
                    {
                      "__typename": "SiteSection",
                      "default": false,
                      "icon": "box",
                      "localizedTitle": null,
                      "path": "product",
                      "siteSpaces": [
                        {
                          "default": true,
                          "path": "product-overview",
                          "space": {
                            "title": "Product overview",
                          },
                        },
                      ],
                      "title": "Product",
                    },
                    {
                      "__typename": "SiteSectionGroup",
                      "children": [
                        {
                          "__typename": "SiteSection",
                          "path": "release-notes",
                          "siteSpaces": [
                            {
                              "path": "release-notes",
                              "space": {
                                "title": "Release notes",
                              },
                            },
                          ],
                          "title": "Release notes",
                        },
                        {
                          "__typename": "SiteSection",
                          "path": "status",
                          "siteSpaces": [
                            {
                              "path": "status-page",
                              "space": {
                                "title": "Status page",
                              },
                            },
                          ],
                          "title": "Status",
                        },
                      ],
                      "icon": "folder",
                      "title": "Resources",
                    },
                  ],
                },
                "title": "Northwind Docs",
                "type": "PREMIUM",
                "urls": {
                  "published": "http://platform/published/northwind/docs/",
                },
                "visibility": "PUBLIC",
              },
              {
                "adaptiveContent": {
                  "enabled": false,
                },
                "basename": "northwind-labs",
                "defaultLevel": "INHERIT",
                "hostname": null,
                "isPublished": false,
                "siteSpaceCount": 1,
                "structure": {
                  "__typename": "SiteSpacesStructure",
                  "siteSpaces": [
                    {
                      "condition": null,
                      "default": true,
                      "path": "roadmap",
                      "space": {
                        "title": "Roadmap",
                      },
                    },
                  ],
                },
                "title": "Northwind Labs",
                "type": "BASIC",
                "urls": {
                  "published": null,
                },
                "visibility": "PUBLIC",
              },
              {
                "adaptiveContent": {
                  "enabled": false,
                },
                "basename": "partner-portal",
                "defaultLevel": "INHERIT",
                "hostname": null,
                "isPublished": true,
                "siteSpaceCount": 2,
                "structure": {
                  "__typename": "SiteSpacesStructure",
                  "siteSpaces": [
                    {
                      "condition": null,
                      "default": true,
                      "path": "pricing-faq",
                      "space": {
                        "title": "Pricing FAQ",
                      },
                    },
                    {
                      "condition": null,
                      "default": false,
                      "path": "de",
                      "space": {
                        "title": "Erste Schritte",
                      },
                    },
                  ],
                },
                "title": "Partner Portal",
                "type": "BASIC",
                "urls": {
                  "published": "http://platform/published/northwind/partner-portal/",
                },
                "visibility": "SHARE_LINK",
              },
            ],
            "totalCount": 4,
          },
        },
      }
    `);
  });

  it('leads from the organization’s default content to its site, for free when only its keys are asked', async () => {
    const keys = await g.gql(
      `{ organization(id: "northwind") { defaultContent { type siteId site { id platformId } } } }`,
    );
    expect(keys.errors).toBeUndefined();
    expect(keys.data.organization.defaultContent).toEqual({
      type: 'SITE',
      siteId: siteId(SITES.docs),
      site: { id: siteGid(SITES.docs), platformId: siteId(SITES.docs) },
    });
    expect(keys.upstream).toBe(1);
    const full = await g.gql(
      `{ organization(id: "northwind") { defaultContent { site { title isPublished organization { id } } } } }`,
    );
    expect(full.data.organization.defaultContent.site).toEqual({
      title: SITES.docs,
      isPublished: true,
      organization: { id: encodeGlobalID('Organization', 'northwind') },
    });
    expect(full.upstream).toBe(2);
  });

  it('filters sites by space, title and published state, and pages through them', async () => {
    const result = await g.gql(
      `query ($space: ID!) {
        organization(id: "northwind") {
          bySpace: sites(spaceId: $space) { totalCount nodes { title } }
          byTitle: sites(title: "PARTNER") { nodes { title } }
          drafts: sites(published: false) { nodes { title } }
          first: sites(first: 2) { pageInfo { hasNextPage endCursor } nodes { title } }
        }
      }`,
      { space: spaceGid('API reference') },
    );
    expect(result.errors).toBeUndefined();
    const org = result.data.organization;
    expect(org.bySpace).toEqual({ totalCount: 1, nodes: [{ title: SITES.api }] });
    expect(org.byTitle.nodes).toEqual([{ title: SITES.partners }]);
    expect(org.drafts.nodes).toEqual([{ title: SITES.draft }]);
    expect(org.first.nodes).toHaveLength(2);
    expect(result.upstream).toBe(5);
    const next = await g.gql(
      `query ($after: String!) { organization(id: "northwind") { sites(first: 5, after: $after) { pageInfo { hasNextPage } nodes { title } } } }`,
      {
        after: org.first.pageInfo.endCursor,
      },
    );
    expect(next.data.organization.sites.pageInfo).toEqual({ hasNextPage: false });
    const all = await ok(`{ organization(id: "northwind") { sites { nodes { title } } } }`);
    expect([...org.first.nodes, ...next.data.organization.sites.nodes]).toEqual(all.organization.sites.nodes);
  });

  it('lists the sites that publish a space', async () => {
    const result = await g.gql(
      `query ($id: ID!) { space(id: $id) { title sites { totalCount nodes { title isPublished } } } }`,
      { id: idOf('Getting started') },
    );
    expect(result.data.space).toEqual({
      title: 'Getting started',
      sites: { totalCount: 1, nodes: [{ title: SITES.docs, isPublished: true }] },
    });
    expect(result.upstream).toBe(2);
  });

  it('looks a site up by platform id or global ID, NOT_FOUND when missing, refusing a site of another organization', async () => {
    const result = await g.gql(
      `query ($id: ID!, $gid: ID!, $globex: ID!) {
        byId: site(organizationId: "northwind", id: $id) { id title permissions { view admin } organization { platformId } }
        byGlobalId: site(organizationId: "northwind", id: $gid) { title }
        missing: site(organizationId: "northwind", id: "no-such-site") { title }
        elsewhere: site(organizationId: "northwind", id: $globex) { title }
      }`,
      { id: siteId(SITES.api), gid: siteGid(SITES.api), globex: siteGid(SITES.globex, 'southwind') },
    );
    expect(result.data).toEqual({
      byId: {
        id: siteGid(SITES.api),
        title: SITES.api,
        permissions: { view: true, admin: true },
        organization: { platformId: 'northwind' },
      },
      byGlobalId: { title: SITES.api },
      missing: null,
      elsewhere: null,
    });
    expect(result.errors!.map((error) => [error.path, error.extensions!.code]).sort()).toEqual([
      [['elsewhere'], 'BAD_USER_INPUT'],
      [['missing'], 'NOT_FOUND'],
    ]);
    // The same site twice is read once; the missing one once; the other organization's not at all.
    expect(result.upstream).toBe(2);
    const reader = await g.gql(
      `query ($id: ID!) { site(organizationId: "northwind", id: $id) { permissions { view access edit create admin } } }`,
      { id: siteId(SITES.api) },
      { token: users.finn.token },
    );
    expect(reader.data.site.permissions).toEqual({
      view: true,
      access: true,
      edit: false,
      create: false,
      admin: false,
    });
  });

  it('lists site spaces (all, defaults, others), sections and section groups as connections', async () => {
    const result = await g.gql(
      `query ($id: ID!) {
        site(organizationId: "northwind", id: $id) {
          all: siteSpaces { totalCount nodes { path default section { title } } }
          defaults: siteSpaces(default: true) { nodes { path } }
          others: siteSpaces(default: false) { nodes { path } }
          sections { totalCount nodes { title path group { title } defaultSiteSpace { path } urls { published } } }
          sectionGroups { totalCount nodes { title children { ... on SiteSection { title } } } }
        }
      }`,
      { id: siteId(SITES.docs) },
    );
    expect(result.errors).toBeUndefined();
    expect(stable(result.data)).toMatchInlineSnapshot(`
      {
        "site": {
          "all": {
            "nodes": [
              {
                "default": true,
                "path": "en",
                "section": {
                  "title": "Getting started",
                },
              },
              {
                "default": false,
                "path": "fr",
                "section": {
                  "title": "Getting started",
                },
              },
              {
                "default": true,
                "path": "product-overview",
                "section": {
                  "title": "Product",
                },
              },
              {
                "default": true,
                "path": "release-notes",
                "section": {
                  "title": "Release notes",
                },
              },
              {
                "default": true,
                "path": "status-page",
                "section": {
                  "title": "Status",
                },
              },
            ],
            "totalCount": 5,
          },
          "defaults": {
            "nodes": [
              {
                "path": "en",
              },
              {
                "path": "product-overview",
              },
              {
                "path": "release-notes",
              },
              {
                "path": "status-page",
              },
            ],
          },
          "others": {
            "nodes": [
              {
                "path": "fr",
              },
            ],
          },
          "sectionGroups": {
            "nodes": [
              {
                "children": [
                  {
                    "title": "Release notes",
                  },
                  {
                    "title": "Status",
                  },
                ],
                "title": "Resources",
              },
            ],
            "totalCount": 1,
          },
          "sections": {
            "nodes": [
              {
                "defaultSiteSpace": {
                  "path": "en",
                },
                "group": null,
                "path": "getting-started",
                "title": "Getting started",
                "urls": {
                  "published": "http://platform/published/northwind/docs/",
                },
              },
              {
                "defaultSiteSpace": {
                  "path": "product-overview",
                },
                "group": null,
                "path": "product",
                "title": "Product",
                "urls": {
                  "published": "http://platform/published/northwind/docs/product",
                },
              },
              {
                "defaultSiteSpace": {
                  "path": "release-notes",
                },
                "group": {
                  "title": "Resources",
                },
                "path": "release-notes",
                "title": "Release notes",
                "urls": {
                  "published": "http://platform/published/northwind/docs/release-notes",
                },
              },
              {
                "defaultSiteSpace": {
                  "path": "status-page",
                },
                "group": {
                  "title": "Resources",
                },
                "path": "status",
                "title": "Status",
                "urls": {
                  "published": "http://platform/published/northwind/docs/status",
                },
              },
            ],
            "totalCount": 4,
          },
        },
      }
    `);
    // The site, its three lists (two filtered views of one), and the structure once for the
    // sections of the site spaces and the groups of the sections.
    expect(requestsOf(result).sort()).toEqual(
      [
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/site-spaces?limit=50`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/site-spaces?default=true&limit=50`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/site-spaces?default=false&limit=50`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/sections?limit=50`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/section-groups?limit=50`,
        `GET /v1/orgs/northwind/sites/<${SITES.docs}>/structure`,
      ].sort(),
    );
  });

  it('answers the links of an item for free when only their keys are asked, and the space from the site’s answer', async () => {
    const result = await g.gql(
      `query ($id: ID!) {
        site(organizationId: "northwind", id: $id) {
          structure { ... on SiteSectionsStructure { sections { platformId group { id platformId } site { id } siteSpaces { section { platformId } site { platformId } space { id platformId title visibility } } } } }
        }
      }`,
      { id: siteId(SITES.docs) },
    );
    expect(result.errors).toBeUndefined();
    const sections = result.data.site.structure.sections;
    expect(sections.map((section: any) => section.siteSpaces.map((item: any) => item.space.title))).toEqual([
      ['Getting started', 'Guide de démarrage'],
      ['Product overview'],
      ['Release notes'],
      ['Status page'],
    ]);
    expect(sections[2].group.id).toBe(itemGid('SiteSectionGroup', SITES.docs, sections[2].group.platformId));
    expect(sections[0].siteSpaces[0].section.platformId).toBe(sections[0].platformId);
    expect(result.upstream).toBe(2);
  });

  it('refetches every node by its global ID: items of one site read its structure once', async () => {
    const listed = await ok(
      `query ($id: ID!) {
      site(organizationId: "northwind", id: $id) {
        id
        structure { ... on SiteSectionsStructure { items { ... on SiteSection { id siteSpaces { id } } ... on SiteSectionGroup { id } } } }
      }
    }`,
      { id: siteId(SITES.docs) },
    );
    const [section, , group] = listed.site.structure.items;
    const variant = section.siteSpaces[1];
    const site = await g.gql(`query ($id: ID!) { node(id: $id) { ... on Site { title } } }`, { id: listed.site.id });
    expect(site.data.node).toEqual({ title: SITES.docs });
    expect(site.upstream).toBe(1);
    for (const [id, expected] of [
      [variant.id, { __typename: 'SiteSpace', path: 'fr', space: { title: 'Guide de démarrage' } }],
      [
        section.id,
        { __typename: 'SiteSection', title: 'Getting started', siteSpaces: [{ path: 'en' }, { path: 'fr' }] },
      ],
      [
        group.id,
        {
          __typename: 'SiteSectionGroup',
          title: 'Resources',
          children: [{ title: 'Release notes' }, { title: 'Status' }],
        },
      ],
    ] as const) {
      const node = await g.gql(
        `query ($id: ID!) {
          node(id: $id) {
            __typename
            ... on SiteSpace { path space { title } }
            ... on SiteSection { title siteSpaces { path } }
            ... on SiteSectionGroup { title children { ... on SiteSection { title } } }
          }
        }`,
        { id },
      );
      expect(node.data.node).toEqual(expected);
      expect(requestsOf(node)).toEqual([`GET /v1/orgs/northwind/sites/<${SITES.docs}>/structure`]);
    }
    const together = await g.gql(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on SiteSpace { section { title site { title } } } ... on SiteSection { path } ... on SiteSectionGroup { parent { title } } } }`,
      { ids: [variant.id, section.id, group.id] },
    );
    expect(together.data.nodes).toEqual([
      { id: variant.id, section: { title: 'Getting started', site: { title: SITES.docs } } },
      { id: section.id, path: 'getting-started' },
      { id: group.id, parent: null },
    ]);
    // The structure once for the three, and the site for its title.
    expect(together.upstream).toBe(2);
    const missing = await g.gql(`query ($id: ID!) { node(id: $id) { id } }`, {
      id: itemGid('SiteSection', SITES.docs, 'gone'),
    });
    expect(missing.data.node).toBeNull();
    expect(missing.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('gives a site space its home page: the first page of its space, read from its page tree', async () => {
    const result = await g.gql(
      `query ($id: ID!) {
        site(organizationId: "northwind", id: $id) {
          structure { ... on SiteSectionsStructure { items { ... on SiteSection { siteSpaces { pageId homePage { title } } } } } }
        }
      }`,
      { id: siteId(SITES.docs) },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.site.structure.items[0].siteSpaces).toEqual([
      { pageId: null, homePage: { title: 'Welcome' } },
      { pageId: null, homePage: { title: 'Bienvenue' } },
    ]);
    // The site, its structure, then the page tree of the space of each site space of the two sections at the root.
    expect(result.upstream).toBe(2 + 3);
  });

  it('costs sites like every connection: their `first` times their parent, a page and a structure per site', async () => {
    const result = await g.gql(`{
      organization(id: "northwind") {
        sites(first: 10) { nodes { structure { __typename } siteSpaces(first: 5) { nodes { path space { title } section { title } site { id } } } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.extensions!.cost).toMatchObject({
      nodes: 10 + 10 * 5,
      // The organization, its page of sites, a structure and a page of site spaces per site, a
      // section per site space (the site link asks only its keys).
      maxUpstreamRequests: 1 + 1 + 10 + 10 + 10 * 5,
      // The sections of the site spaces come with the structures read anyway.
      upstreamRequests: 2 + 4 + 4,
    });
  });

  it('shows members the sites of their organization only', async () => {
    const result = await g.gql(
      `{ organization(id: "southwind") { sites { nodes { title hostname urls { published } ${STRUCTURE} } } } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(stable(result.data)).toMatchInlineSnapshot(`
      {
        "organization": {
          "sites": {
            "nodes": [
              {
                "hostname": "developers.southwind.test",
                "structure": {
                  "__typename": "SiteSpacesStructure",
                  "siteSpaces": [
                    {
                      "condition": null,
                      "default": true,
                      "path": "developer-portal",
                      "space": {
                        "title": "Developer portal",
                      },
                    },
                  ],
                },
                "title": "Southwind Developers",
                "urls": {
                  "published": "https://developers.southwind.test/",
                },
              },
            ],
          },
        },
      }
    `);
    const foreign = await g.gql(`query ($id: ID!) { site(organizationId: "southwind", id: $id) { title } }`, {
      id: siteId(SITES.docs),
    });
    expect(foreign.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });
});

// --- Writes --------------------------------------------------------------------------------------

const ITEM = `fragment Item on SiteSection { path default siteSpaces { path default } }`;
const OUTLINE = `
  structure {
    ... on SiteSectionsStructure {
      items { ...Item ... on SiteSectionGroup { title children { ...Item ... on SiteSectionGroup { title children { ...Item } } } } }
    }
    ... on SiteSpacesStructure { siteSpaces { path default } }
  }`;

type OutlineItem = {
  path?: string;
  default?: boolean;
  title?: string;
  siteSpaces?: OutlineItem[];
  children?: OutlineItem[];
};

/** A structure as `[path*, …]` for site spaces, `{ path*: [variants] }` for sections, `{ 'group:Title': [children] }` for groups. */
function outline(structure: { items?: OutlineItem[]; siteSpaces?: OutlineItem[] }): unknown {
  const item = (node: OutlineItem): unknown => {
    if (node.children) return { [`group:${node.title}`]: node.children.map(item) };
    const name = `${node.path}${node.default ? '*' : ''}`;
    return node.siteSpaces ? { [name]: node.siteSpaces.map(item) } : name;
  };
  return structure.items ? { sections: structure.items.map(item) } : { siteSpaces: structure.siteSpaces!.map(item) };
}

async function outlineOf(site: string): Promise<unknown> {
  const data = await ok(`query ($id: ID!) { node(id: $id) { ... on Site { ${OUTLINE} } } } ${ITEM}`, { id: site });
  return outline(data.node.structure);
}

/** A new site of Northwind with these spaces at its root; its global ID. */
async function newSite(title: string, spaces: string[] = []): Promise<string> {
  const data = await ok(
    `mutation ($title: String!, $spaces: [ID!]) { createSite(input: { organizationId: "northwind", title: $title, spaceIds: $spaces }) { site { id } userErrors { code } } }`,
    {
      title,
      spaces: spaces.map(spaceGid),
    },
  );
  return data.createSite.site.id;
}

/** The global IDs of the site spaces at the root of a site, in order. */
async function rootSiteSpaces(site: string): Promise<string[]> {
  const data = await ok(
    `query ($id: ID!) { node(id: $id) { ... on Site { structure { ... on SiteSpacesStructure { siteSpaces { id } } } } } }`,
    { id: site },
  );
  return data.node.structure.siteSpaces.map((item: { id: string }) => item.id);
}

/** Runs a mutation expected to answer user errors; returns them with the number of upstream requests. */
async function refused(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) {
  const result = await g.gql(query, variables, options);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  const payload = Object.values(result.data as Record<string, { userErrors: unknown[] }>)[0]!;
  return { userErrors: payload.userErrors, upstream: result.upstream };
}

describe('writing sites', () => {
  it('creates a site with spaces, configures, publishes, unpublishes and deletes it', async () => {
    const created = await g.gql(
      `mutation ($spaces: [ID!]) {
        createSite(input: { organizationId: "northwind", title: "Handbook", visibility: UNLISTED, spaceIds: $spaces }) {
          site { title type visibility isPublished basename siteSpaceCount urls { published } ${OUTLINE} }
          userErrors { code }
        }
      } ${ITEM}`,
      { spaces: [spaceGid('Release notes'), idOf('Architecture decisions')] },
    );
    expect(created.errors).toBeUndefined();
    expect({
      ...created.data.createSite,
      site: { ...created.data.createSite.site, structure: outline(created.data.createSite.site.structure) },
    }).toEqual({
      site: {
        title: 'Handbook',
        type: 'BASIC',
        visibility: 'UNLISTED',
        isPublished: false,
        basename: 'handbook',
        siteSpaceCount: 2,
        urls: { published: null },
        structure: { siteSpaces: ['release-notes*', 'architecture-decisions'] },
      },
      userErrors: [],
    });
    // The write, then the structure it asked for: the new site itself came with the write.
    expect(created.upstream).toBe(2);
    const site = siteGid('Handbook');

    const updated = await g.gql(
      `mutation ($site: ID!) {
        updateSite(input: { siteId: $site, title: "Handbook site", basename: "handbook-site", proxy: "https://example.com/handbook/", adaptiveContent: true, defaultLevel: READ }) {
          site { title basename proxy { origin } adaptiveContent { enabled } defaultLevel }
          userErrors { code }
        }
      }`,
      { site },
    );
    expect(updated.data.updateSite).toEqual({
      site: {
        title: 'Handbook site',
        basename: 'handbook-site',
        proxy: { origin: 'example.com/handbook' },
        adaptiveContent: { enabled: true },
        defaultLevel: 'READ',
      },
      userErrors: [],
    });
    expect(updated.upstream).toBe(1);
    const cleared = await ok(
      `mutation ($site: ID!) { updateSite(input: { organizationId: "northwind", siteId: $site, proxy: null, defaultLevel: null }) { site { proxy { origin } defaultLevel } userErrors { code } } }`,
      { site: siteId('Handbook site') },
    );
    expect(cleared.updateSite.site).toEqual({ proxy: null, defaultLevel: null });

    const published = await g.gql(
      `mutation ($site: ID!) { publishSite(input: { siteId: $site }) { site { isPublished urls { published } } checkoutSessionId userErrors { code } } }`,
      { site },
    );
    expect(stable(published.data.publishSite)).toEqual({
      site: { isPublished: true, urls: { published: 'http://platform/published/northwind/handbook-site/' } },
      checkoutSessionId: null,
      userErrors: [],
    });
    expect(published.upstream).toBe(1);
    const listed = await ok(
      `{ organization(id: "northwind") { sites(title: "handbook", published: true) { nodes { id } } } }`,
    );
    expect(listed.organization.sites.nodes).toEqual([{ id: site }]);
    const unpublished = await ok(
      `mutation ($site: ID!) { unpublishSite(input: { siteId: $site }) { site { isPublished urls { published } } userErrors { code } } }`,
      { site },
    );
    expect(unpublished.unpublishSite.site).toEqual({ isPublished: false, urls: { published: null } });

    const deleted = await g.gql(
      `mutation ($site: ID!) { deleteSite(input: { siteId: $site }) { deleted deletedId userErrors { code } } }`,
      { site },
    );
    // The site's own global ID: the one its queries returned, which a normalized cache holds.
    expect(deleted.data.deleteSite).toEqual({ deleted: true, deletedId: site, userErrors: [] });
    expect(deleted.upstream).toBe(1);
    expect(
      (
        await ok(`mutation ($site: ID!) { deleteSite(input: { siteId: $site }) { deleted userErrors { code } } }`, {
          site,
        })
      ).deleteSite.deleted,
    ).toBe(false);
    const gone = await g.gql(`query ($site: ID!) { node(id: $site) { id } }`, { site });
    expect(gone.errors![0]!.extensions!.code).toBe('NOT_FOUND');
  });

  it('refuses bad input before any request, and answers refusals of the platform as user errors', async () => {
    const site = await newSite('Refusals', ['Release notes']);
    const docsSpace = (
      await ok(`query ($id: ID!) { node(id: $id) { ... on Site { siteSpaces(first: 1) { nodes { id } } } } }`, {
        id: siteGid(SITES.docs),
      })
    ).node.siteSpaces.nodes[0].id;
    const cases: Array<[string, Record<string, unknown>, unknown, number, string?]> = [
      [
        `createSite(input: { organizationId: "northwind", title: "x" })`,
        {},
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `createSite(input: { organizationId: "northwind", spaceIds: ["nope"] })`,
        {},
        [{ code: 'BAD_USER_INPUT', field: ['spaceIds', '0'], upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSite(input: { siteId: $site })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: null, upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $site, title: null })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $site, basename: "a/b" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['basename'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $site, proxy: "example.com" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['proxy'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: "${siteId('Refusals')}", title: "Refused" })`,
        {},
        [{ code: 'BAD_USER_INPUT', field: ['organizationId'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { organizationId: "southwind", siteId: $site, title: "Refused" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['siteId'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $space, title: "Refused" })`,
        { space: spaceGid('Release notes') },
        [{ code: 'BAD_USER_INPUT', field: ['siteId'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $site, defaultSiteSpaceId: $other })`,
        { site, other: docsSpace },
        [{ code: 'BAD_USER_INPUT', field: ['defaultSiteSpaceId'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSite(input: { siteId: $site, basename: "docs" })`,
        { site },
        [{ code: 'CONFLICT', field: null, upstreamStatus: 409 }],
        1,
      ],
      [
        `updateSite(input: { organizationId: "northwind", siteId: "no-such-site", title: "Missing" })`,
        {},
        [{ code: 'NOT_FOUND', field: ['siteId'], upstreamStatus: 404 }],
        1,
      ],
      [
        `publishSite(input: { siteId: $site })`,
        { site },
        [{ code: 'FORBIDDEN', field: null, upstreamStatus: 403 }],
        1,
        users.finn.token,
      ],
    ];
    for (const [call, variables, expected, requests, user] of cases) {
      const declared = Object.keys(variables)
        .map((name) => `$${name}: ID!`)
        .join(', ');
      const answer = await refused(
        `mutation ${declared ? `(${declared})` : ''} { ${call} { userErrors { code field upstreamStatus } } }`,
        variables,
        user ? { token: user } : {},
      );
      expect(answer, call).toEqual({ userErrors: expected, upstream: requests });
    }
  });

  it('adds, updates, moves and removes site spaces', async () => {
    const site = await newSite('Site spaces', ['Getting started', 'Architecture decisions']);
    const added = await g.gql(
      `mutation ($site: ID!, $space: ID!) { addSpaceToSite(input: { siteId: $site, spaceId: $space, draft: true }) { siteSpace { path default draft title site { siteSpaceCount } } userErrors { code } } }`,
      { site, space: idOf('Runbooks') },
    );
    expect(added.data.addSpaceToSite).toEqual({
      siteSpace: { path: 'runbooks', default: false, draft: true, title: 'Runbooks', site: { siteSpaceCount: 3 } },
      userErrors: [],
    });
    // The write, then the site it asked for.
    expect(added.upstream).toBe(2);
    const fresh = await g.gql(
      `mutation ($site: ID!) { addSpaceToSite(input: { siteId: $site, spaceId: null, title: "Brand new docs" }) { siteSpace { path space { title organization { platformId } } } userErrors { code } } }`,
      { site },
    );
    expect(fresh.data.addSpaceToSite.siteSpace).toEqual({
      path: 'brand-new-docs',
      space: { title: 'Brand new docs', organization: { platformId: 'northwind' } },
    });
    expect(fresh.upstream).toBe(1);
    const [first, second, third, fourth] = await rootSiteSpaces(site);

    const updated = await g.gql(
      `mutation ($item: ID!) { updateSiteSpace(input: { siteSpaceId: $item, condition: "visitor.claims.beta == true", hidden: true, path: "adr" }) { siteSpace { path condition hidden } userErrors { code } } }`,
      { item: second },
    );
    expect(updated.data.updateSiteSpace).toEqual({
      siteSpace: { path: 'adr', condition: 'visitor.claims.beta == true', hidden: true },
      userErrors: [],
    });
    expect(updated.upstream).toBe(1);
    const unconditioned = await ok(
      `mutation ($item: ID!) { updateSiteSpace(input: { siteSpaceId: $item, condition: null }) { siteSpace { path condition } userErrors { code } } }`,
      { item: second },
    );
    expect(unconditioned.updateSiteSpace.siteSpace).toEqual({ path: 'adr', condition: null });

    const pages = await ok(`query ($id: ID!) { space(id: $id) { content { pages { __typename id title } } } }`, {
      id: idOf('Getting started'),
    });
    const page = pages.space.content.pages.findLast(
      (item: { __typename: string }) => item.__typename === 'DocumentPage',
    );
    expect(page.title).not.toBe('Welcome');
    const home = await g.gql(
      `mutation ($item: ID!, $page: ID!) { updateSiteSpace(input: { siteSpaceId: $item, pageId: $page }) { siteSpace { homePage { id title } } userErrors { code } } }`,
      {
        item: first,
        page: page.id,
      },
    );
    expect(home.data.updateSiteSpace.siteSpace).toEqual({ homePage: { id: page.id, title: page.title } });
    // The write, then the page tree of its space.
    expect(home.upstream).toBe(2);

    const moved = await g.gql(
      `mutation ($item: ID!, $anchor: ID!) { moveSiteSpace(input: { siteSpaceId: $item, before: $anchor }) { siteSpace { path site { ${OUTLINE} } } userErrors { code } } } ${ITEM}`,
      { item: fourth, anchor: first },
    );
    expect(moved.data.moveSiteSpace.siteSpace.path).toBe('brand-new-docs');
    expect(outline(moved.data.moveSiteSpace.siteSpace.site.structure)).toEqual({
      siteSpaces: ['brand-new-docs', 'getting-started*', 'adr', 'runbooks'],
    });
    // The move, then the structure after it: the site link needs only the site's address.
    expect(moved.upstream).toBe(2);
    const ids = await ok(
      `query ($id: ID!) { node(id: $id) { ... on Site { platformId siteSpaces { nodes { id platformId } } } } }`,
      { id: site },
    );
    const platformIdOf = (gid: string) =>
      ids.node.siteSpaces.nodes.find((item: { id: string }) => item.id === gid).platformId;
    // Platform ids, with the site's.
    await ok(
      `mutation ($site: ID!, $item: ID!, $anchor: ID!) { moveSiteSpace(input: { organizationId: "northwind", siteId: $site, siteSpaceId: $item, after: $anchor }) { siteSpace { path } userErrors { code } } }`,
      {
        site: ids.node.platformId,
        item: platformIdOf(first!),
        anchor: platformIdOf(third!),
      },
    );
    expect(await outlineOf(site)).toEqual({ siteSpaces: ['brand-new-docs', 'adr', 'runbooks', 'getting-started*'] });
    const last = await ok(
      `mutation ($item: ID!) { moveSiteSpace(input: { siteSpaceId: $item }) { siteSpace { path } userErrors { code } } }`,
      { item: fourth },
    );
    expect(last.moveSiteSpace.siteSpace.path).toBe('brand-new-docs');
    expect(await outlineOf(site)).toEqual({ siteSpaces: ['adr', 'runbooks', 'getting-started*', 'brand-new-docs'] });

    const removed = await g.gql(
      `mutation ($item: ID!) { deleteSiteSpace(input: { siteSpaceId: $item }) { deleted site { siteSpaceCount ${OUTLINE} } userErrors { code } } } ${ITEM}`,
      { item: first },
    );
    expect({ ...removed.data.deleteSiteSpace, site: outline(removed.data.deleteSiteSpace.site.structure) }).toEqual({
      deleted: true,
      site: { siteSpaces: ['adr*', 'runbooks', 'brand-new-docs'] },
      userErrors: [],
    });
    // The delete, the site (for its count), its structure.
    expect(removed.upstream).toBe(3);
    expect(
      (
        await ok(
          `mutation ($item: ID!) { deleteSiteSpace(input: { siteSpaceId: $item }) { deleted userErrors { code } } }`,
          { item: first },
        )
      ).deleteSiteSpace.deleted,
    ).toBe(false);
  });

  it('refuses bad site space writes before any request, and answers the platform’s refusals as user errors', async () => {
    const site = await newSite('Site space refusals', ['Getting started', 'Architecture decisions']);
    const other = await newSite('Other site', ['Runbooks']);
    const [first, second] = await rootSiteSpaces(site);
    const [foreign] = await rootSiteSpaces(other);
    const cases: Array<[string, Record<string, unknown>, unknown, number]> = [
      [
        `addSpaceToSite(input: { siteId: $site })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['spaceId'], upstreamStatus: null }],
        0,
      ],
      [
        `addSpaceToSite(input: { siteId: $site, spaceId: null, pageId: "p" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['pageId'], upstreamStatus: null }],
        0,
      ],
      [
        `addSpaceToSite(input: { siteId: $site, spaceId: "${idOf('Runbooks')}", title: "Named" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `addSpaceToSite(input: { siteId: $site, spaceId: "${idOf('Runbooks')}", siteSectionId: "nope" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['siteSectionId'], upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item, condition: "${'x'.repeat(1025)}" })`,
        { item: first },
        [{ code: 'BAD_USER_INPUT', field: ['condition'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item, condition: "alert(1)" })`,
        { item: first },
        [{ code: 'BAD_USER_INPUT', field: ['condition'], upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item, path: "a/b" })`,
        { item: first },
        [{ code: 'BAD_USER_INPUT', field: ['path'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item, path: "~changes" })`,
        { item: first },
        [{ code: 'BAD_USER_INPUT', field: ['path'], upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item, path: "ARCHITECTURE-DECISIONS" })`,
        { item: first },
        [{ code: 'CONFLICT', field: null, upstreamStatus: 409 }],
        1,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: $item })`,
        { item: first },
        [{ code: 'BAD_USER_INPUT', field: null, upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSpace(input: { siteId: $site, siteSpaceId: "nope", hidden: true })`,
        { site },
        [{ code: 'NOT_FOUND', field: ['siteSpaceId'], upstreamStatus: 404 }],
        1,
      ],
      [
        `updateSiteSpace(input: { siteSpaceId: "nope", hidden: true })`,
        {},
        [{ code: 'BAD_USER_INPUT', field: ['siteId'], upstreamStatus: null }],
        0,
      ],
      [
        `moveSiteSpace(input: { siteSpaceId: $item, before: $anchor, after: $anchor })`,
        { item: first, anchor: second },
        [{ code: 'BAD_USER_INPUT', field: ['after'], upstreamStatus: null }],
        0,
      ],
      [
        `moveSiteSpace(input: { siteSpaceId: $item, before: $anchor })`,
        { item: first, anchor: foreign },
        [{ code: 'BAD_USER_INPUT', field: ['before'], upstreamStatus: null }],
        0,
      ],
      [
        `moveSiteSpace(input: { siteSpaceId: $item, before: $anchor })`,
        { item: first, anchor: first },
        [{ code: 'BAD_USER_INPUT', field: null, upstreamStatus: 400 }],
        1,
      ],
      [
        `moveSiteSpace(input: { siteSpaceId: $item, before: $anchor })`,
        { item: first, anchor: site },
        [{ code: 'BAD_USER_INPUT', field: ['before'], upstreamStatus: null }],
        0,
      ],
    ];
    for (const [call, variables, expected, requests] of cases) {
      const declared = Object.keys(variables)
        .map((name) => `$${name}: ID!`)
        .join(', ');
      const answer = await refused(
        `mutation ${declared ? `(${declared})` : ''} { ${call} { userErrors { code field upstreamStatus } } }`,
        variables,
      );
      expect(answer, call).toEqual({ userErrors: expected, upstream: requests });
    }
    expect(await outlineOf(site)).toEqual({ siteSpaces: ['getting-started*', 'architecture-decisions'] });
  });

  it('adds sections (wrapping the root site spaces first), updates, groups, moves and deletes them', async () => {
    const site = await newSite('Product docs', ['Release notes', 'Architecture decisions']);
    const created = await g.gql(
      `mutation ($site: ID!, $space: ID!) {
        createSiteSection(input: { siteId: $site, spaceId: $space, title: "Handbook", icon: "book" }) {
          siteSection { title path default icon group { id } siteSpaces { path default space { title } } site { ${OUTLINE} } }
          userErrors { code }
        }
      } ${ITEM}`,
      { site, space: spaceGid('Company handbook') },
    );
    const section = created.data.createSiteSection.siteSection;
    expect({ ...section, site: outline(section.site.structure) }).toEqual({
      title: 'Handbook',
      path: 'handbook',
      default: false,
      icon: 'book',
      group: null,
      siteSpaces: [{ path: 'company-handbook', default: true, space: { title: 'Company handbook' } }],
      site: {
        sections: [
          { 'product-docs*': ['release-notes*', 'architecture-decisions'] },
          { handbook: ['company-handbook*'] },
        ],
      },
    });
    // The write, then the structure.
    expect(created.upstream).toBe(2);
    const ids = await ok(
      `query ($id: ID!) { node(id: $id) { ... on Site { platformId structure { ... on SiteSectionsStructure { sections { id platformId title siteSpaces { id } } } } } } }`,
      { id: site },
    );
    const [wrapper, handbook] = ids.node.structure.sections;
    const fresh = await ok(
      `mutation ($site: ID!) { createSiteSection(input: { siteId: $site, spaceId: null, title: "Fresh section", draft: true }) { siteSection { id title draft siteSpaces { space { title } } } userErrors { code } } }`,
      { site },
    );
    expect(fresh.createSiteSection.siteSection).toMatchObject({
      title: 'Fresh section',
      draft: true,
      siteSpaces: [{ space: { title: 'Fresh section' } }],
    });
    const freshId = fresh.createSiteSection.siteSection.id;
    // A variant in a section, named by its global ID (which carries the site), and one by platform ids.
    const variant = await g.gql(
      `mutation ($section: ID!, $space: ID!) { addSpaceToSite(input: { siteSectionId: $section, spaceId: $space }) { siteSpace { path section { title } } userErrors { code } } }`,
      { section: handbook.id, space: spaceGid('Runbooks') },
    );
    expect(variant.data.addSpaceToSite).toEqual({
      siteSpace: { path: 'runbooks', section: { title: 'Handbook' } },
      userErrors: [],
    });
    // The write, then the structure for its section.
    expect(variant.upstream).toBe(2);
    await ok(
      `mutation ($site: ID!, $section: ID!, $space: ID!) { addSpaceToSite(input: { organizationId: "northwind", siteId: $site, siteSectionId: $section, spaceId: $space }) { siteSpace { path } userErrors { code } } }`,
      {
        site: ids.node.platformId,
        section: handbook.platformId,
        space: idOf('Tutorials'),
      },
    );

    const updated = await g.gql(
      `mutation ($section: ID!, $default: ID!) {
        updateSiteSection(input: {
          siteSectionId: $section, title: "Company", path: "company", description: "How we work", icon: null,
          localizedTitle: { fr: "Entreprise" }, condition: "visitor.claims.staff == true", defaultSiteSpaceId: $default
        }) {
          siteSection { title path description icon localizedTitle condition defaultSiteSpace { path } siteSpaces { path default } }
          userErrors { code }
        }
      }`,
      {
        section: handbook.id,
        default: (
          await ok(`query ($id: ID!) { node(id: $id) { ... on SiteSection { siteSpaces { id } } } }`, {
            id: handbook.id,
          })
        ).node.siteSpaces[1].id,
      },
    );
    expect(updated.data.updateSiteSection).toEqual({
      siteSection: {
        title: 'Company',
        path: 'company',
        description: 'How we work',
        icon: null,
        localizedTitle: { fr: 'Entreprise' },
        condition: 'visitor.claims.staff == true',
        defaultSiteSpace: { path: 'runbooks' },
        siteSpaces: [
          { path: 'company-handbook', default: false },
          { path: 'runbooks', default: true },
          { path: 'tutorials', default: false },
        ],
      },
      userErrors: [],
    });
    expect(updated.upstream).toBe(1);

    const group = await g.gql(
      `mutation ($site: ID!, $sections: [ID!]) {
        createSiteSectionGroup(input: { siteId: $site, title: "Internal", icon: "lock", siteSectionIds: $sections }) {
          siteSectionGroup { id title icon parent { id } children { ... on SiteSection { title group { title } } } }
          userErrors { code }
        }
      }`,
      { site, sections: [freshId, handbook.id] },
    );
    expect(group.data.createSiteSectionGroup.siteSectionGroup).toMatchObject({
      title: 'Internal',
      icon: 'lock',
      parent: null,
      children: [
        { title: 'Fresh section', group: { title: 'Internal' } },
        { title: 'Company', group: { title: 'Internal' } },
      ],
    });
    // The write: the group's sections came with it, and they name it.
    expect(group.upstream).toBe(1);
    const outer = group.data.createSiteSectionGroup.siteSectionGroup.id;
    const inner = (
      await ok(
        `mutation ($site: ID!, $parent: ID!) { createSiteSectionGroup(input: { siteId: $site, title: "Nested", parentId: $parent }) { siteSectionGroup { id parent { title } } userErrors { code } } }`,
        {
          site,
          parent: outer,
        },
      )
    ).createSiteSectionGroup.siteSectionGroup;
    expect(inner.parent).toEqual({ title: 'Internal' });
    await ok(
      `mutation ($section: ID!, $group: ID!) { updateSiteSection(input: { siteSectionId: $section, siteSectionGroupId: $group }) { siteSection { group { title } } userErrors { code } } }`,
      {
        section: freshId,
        group: inner.id,
      },
    );
    const renamed = await ok(
      `mutation ($group: ID!) { updateSiteSectionGroup(input: { siteSectionGroupId: $group, title: "Deep", localizedTitle: { de: "Tief" }, icon: "layers", draft: true }) { siteSectionGroup { title localizedTitle icon draft } userErrors { code } } }`,
      { group: inner.id },
    );
    expect(renamed.updateSiteSectionGroup.siteSectionGroup).toEqual({
      title: 'Deep',
      localizedTitle: { de: 'Tief' },
      icon: 'layers',
      draft: true,
    });
    expect(await outlineOf(site)).toEqual({
      sections: [
        { 'product-docs*': ['release-notes*', 'architecture-decisions'] },
        {
          'group:Internal': [
            { company: ['company-handbook', 'runbooks*', 'tutorials'] },
            { 'group:Deep': [{ 'fresh-section': ['fresh-section*'] }] },
          ],
        },
      ],
    });

    // Groups and sections of a level are siblings: a group goes before a section, a section after another.
    const movedGroup = await g.gql(
      `mutation ($group: ID!, $anchor: ID!) { moveSiteSectionGroup(input: { siteSectionGroupId: $group, before: $anchor }) { siteSectionGroup { title } userErrors { code } } }`,
      {
        group: outer,
        anchor: wrapper.id,
      },
    );
    expect(movedGroup.data.moveSiteSectionGroup).toEqual({ siteSectionGroup: { title: 'Internal' }, userErrors: [] });
    expect(movedGroup.upstream).toBe(1);
    const lastInGroup = await g.gql(
      `mutation ($section: ID!) { moveSiteSection(input: { siteSectionId: $section }) { siteSection { title } userErrors { code } } }`,
      { section: handbook.id },
    );
    expect(lastInGroup.data.moveSiteSection).toEqual({ siteSection: { title: 'Company' }, userErrors: [] });
    expect(lastInGroup.upstream).toBe(1);
    const sorted = await g.gql(
      `mutation ($item: ID!, $anchor: ID!) { sortSiteStructure(input: { itemId: $item, after: $anchor }) { siteSectionGroup { title } siteSection { title } siteSpace { path } site { ${OUTLINE} } userErrors { code } } } ${ITEM}`,
      { item: inner.id, anchor: handbook.id },
    );
    expect({ ...sorted.data.sortSiteStructure, site: outline(sorted.data.sortSiteStructure.site.structure) }).toEqual({
      siteSectionGroup: { title: 'Deep' },
      siteSection: null,
      siteSpace: null,
      site: {
        sections: [
          {
            'group:Internal': [
              { company: ['company-handbook', 'runbooks*', 'tutorials'] },
              { 'group:Deep': [{ 'fresh-section': ['fresh-section*'] }] },
            ],
          },
          { 'product-docs*': ['release-notes*', 'architecture-decisions'] },
        ],
      },
      userErrors: [],
    });
    // The sort, then the structure after it.
    expect(sorted.upstream).toBe(2);
    // The item by its platform id and kind, next to a section named by its global ID.
    const byPlatformId = await ok(
      `mutation ($site: ID!, $item: ID!, $anchor: ID!) { sortSiteStructure(input: { organizationId: "northwind", siteId: $site, itemId: $item, itemKind: SITE_SECTION_GROUP, after: $anchor }) { siteSectionGroup { title } userErrors { code } } }`,
      {
        site: ids.node.platformId,
        item: (await ok(`query ($id: ID!) { node(id: $id) { ... on SiteSectionGroup { platformId } } }`, { id: outer }))
          .node.platformId,
        anchor: wrapper.id,
      },
    );
    expect(byPlatformId.sortSiteStructure.siteSectionGroup).toEqual({ title: 'Internal' });
    const kindless = await refused(
      `mutation ($site: ID!) { sortSiteStructure(input: { organizationId: "northwind", siteId: $site, itemId: "x" }) { userErrors { code field } } }`,
      { site: ids.node.platformId },
    );
    expect(kindless).toEqual({ userErrors: [{ code: 'BAD_USER_INPUT', field: ['itemKind'] }], upstream: 0 });
    // moveSiteSection puts a section next to a section only: sortSiteStructure does the rest.
    const nextToGroup = await refused(
      `mutation ($section: ID!, $anchor: ID!) { moveSiteSection(input: { siteSectionId: $section, before: $anchor }) { userErrors { code field } } }`,
      {
        section: handbook.id,
        anchor: inner.id,
      },
    );
    expect(nextToGroup).toEqual({ userErrors: [{ code: 'BAD_USER_INPUT', field: ['before'] }], upstream: 0 });
    const spaceSorted = await ok(
      `mutation ($item: ID!) { sortSiteStructure(input: { itemId: $item }) { siteSpace { path default } userErrors { code } } }`,
      { item: wrapper.siteSpaces[0].id },
    );
    expect(spaceSorted.sortSiteStructure.siteSpace).toEqual({ path: 'release-notes', default: true });
    expect(await outlineOf(site)).toEqual({
      sections: [
        { 'product-docs*': ['architecture-decisions', 'release-notes*'] },
        {
          'group:Internal': [
            { company: ['company-handbook', 'runbooks*', 'tutorials'] },
            { 'group:Deep': [{ 'fresh-section': ['fresh-section*'] }] },
          ],
        },
      ],
    });

    const ungrouped = await g.gql(
      `mutation ($group: ID!) { deleteSiteSectionGroup(input: { siteSectionGroupId: $group }) { deleted site { ${OUTLINE} } userErrors { code } } } ${ITEM}`,
      { group: outer },
    );
    expect({
      ...ungrouped.data.deleteSiteSectionGroup,
      site: outline(ungrouped.data.deleteSiteSectionGroup.site.structure),
    }).toEqual({
      deleted: true,
      site: {
        sections: [
          { 'product-docs*': ['architecture-decisions', 'release-notes*'] },
          { company: ['company-handbook', 'runbooks*', 'tutorials'] },
          { 'group:Deep': [{ 'fresh-section': ['fresh-section*'] }] },
        ],
      },
      userErrors: [],
    });
    expect(ungrouped.upstream).toBe(2);
    const removed = await g.gql(
      `mutation ($section: ID!) { deleteSiteSection(input: { siteSectionId: $section }) { deleted site { ${OUTLINE} } userErrors { code } } } ${ITEM}`,
      { section: wrapper.id },
    );
    expect({ ...removed.data.deleteSiteSection, site: outline(removed.data.deleteSiteSection.site.structure) }).toEqual(
      {
        deleted: true,
        site: {
          sections: [
            { 'company*': ['company-handbook', 'runbooks*', 'tutorials'] },
            { 'group:Deep': [{ 'fresh-section': ['fresh-section*'] }] },
          ],
        },
        userErrors: [],
      },
    );
    expect(
      (
        await ok(
          `mutation ($section: ID!) { deleteSiteSection(input: { siteSectionId: $section }) { deleted userErrors { code } } }`,
          { section: wrapper.id },
        )
      ).deleteSiteSection.deleted,
    ).toBe(false);
    expect(
      (
        await ok(
          `mutation ($group: ID!) { deleteSiteSectionGroup(input: { siteSectionGroupId: $group }) { deleted userErrors { code } } }`,
          { group: outer },
        )
      ).deleteSiteSectionGroup.deleted,
    ).toBe(false);
  });

  it('refuses bad section and group writes before any request, and answers the platform’s refusals as user errors', async () => {
    const flat = await newSite('Flat site', ['Release notes']);
    const site = await newSite('Section refusals', ['Release notes']);
    const created = await ok(
      `mutation ($site: ID!, $space: ID!) { createSiteSection(input: { siteId: $site, spaceId: $space, title: "Second" }) { siteSection { id siteSpaces { id } } userErrors { code } } }`,
      {
        site,
        space: spaceGid('Runbooks'),
      },
    );
    const section = created.createSiteSection.siteSection;
    const group = (
      await ok(
        `mutation ($site: ID!) { createSiteSectionGroup(input: { siteId: $site, title: "Group" }) { siteSectionGroup { id } userErrors { code } } }`,
        { site },
      )
    ).createSiteSectionGroup.siteSectionGroup.id;
    const cases: Array<[string, Record<string, unknown>, unknown, number, string?]> = [
      [
        `createSiteSection(input: { siteId: $site, spaceId: null, title: "x" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `createSiteSection(input: { siteId: $site, spaceId: null, icon: "${'i'.repeat(51)}" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['icon'], upstreamStatus: null }],
        0,
      ],
      [
        `createSiteSection(input: { siteId: $site, spaceId: null, siteSectionGroupId: "nope" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['siteSectionGroupId'], upstreamStatus: 400 }],
        1,
      ],
      [
        `createSiteSection(input: { siteId: $site, spaceId: null })`,
        { site },
        [{ code: 'FORBIDDEN', field: null, upstreamStatus: 403 }],
        1,
        users.finn.token,
      ],
      [
        `updateSiteSection(input: { siteSectionId: $section, localizedTitle: "Titre" })`,
        { section: section.id },
        [{ code: 'BAD_USER_INPUT', field: ['localizedTitle'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSection(input: { siteSectionId: $section, localizedTitle: { FR_fr: "Titre" } })`,
        { section: section.id },
        [{ code: 'BAD_USER_INPUT', field: ['localizedTitle', 'FR_fr'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSection(input: { siteSectionId: $section, description: "${'d'.repeat(257)}" })`,
        { section: section.id },
        [{ code: 'BAD_USER_INPUT', field: ['description'], upstreamStatus: null }],
        0,
      ],
      [
        `updateSiteSection(input: { siteSectionId: $section, path: "section-refusals" })`,
        { section: section.id },
        [{ code: 'CONFLICT', field: null, upstreamStatus: 409 }],
        1,
      ],
      [
        `updateSiteSection(input: { siteSectionId: $section, defaultSiteSpaceId: "nope" })`,
        { section: section.id },
        [{ code: 'BAD_USER_INPUT', field: ['defaultSiteSpaceId'], upstreamStatus: 400 }],
        1,
      ],
      [
        `deleteSiteSpace(input: { siteSpaceId: $item })`,
        { item: section.siteSpaces[0].id },
        [{ code: 'CONFLICT', field: null, upstreamStatus: 409 }],
        1,
      ],
      [
        `createSiteSectionGroup(input: { siteId: $site, title: "" })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `createSiteSectionGroup(input: { siteId: $site, title: "Group", siteSectionIds: ["nope"] })`,
        { site },
        [{ code: 'BAD_USER_INPUT', field: ['siteSectionIds', '0'], upstreamStatus: 400 }],
        1,
      ],
      [
        `createSiteSectionGroup(input: { siteId: $site, title: "Group" })`,
        { site: flat },
        [{ code: 'BAD_USER_INPUT', field: null, upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSiteSectionGroup(input: { siteSectionGroupId: $group, parentId: $group })`,
        { group },
        [{ code: 'BAD_USER_INPUT', field: ['parentId'], upstreamStatus: 400 }],
        1,
      ],
      [
        `updateSiteSectionGroup(input: { siteSectionGroupId: $group, title: null })`,
        { group },
        [{ code: 'BAD_USER_INPUT', field: ['title'], upstreamStatus: null }],
        0,
      ],
      [
        `moveSiteSectionGroup(input: { siteId: $site, siteSectionGroupId: "nope" })`,
        { site },
        [{ code: 'NOT_FOUND', field: ['siteSectionGroupId'], upstreamStatus: 404 }],
        1,
      ],
      [
        `sortSiteStructure(input: { itemId: $group, itemKind: SITE_SPACE })`,
        { group },
        [{ code: 'BAD_USER_INPUT', field: ['itemKind'], upstreamStatus: null }],
        0,
      ],
    ];
    for (const [call, variables, expected, requests, user] of cases) {
      const declared = Object.keys(variables)
        .map((name) => `$${name}: ID!`)
        .join(', ');
      const answer = await refused(
        `mutation ${declared ? `(${declared})` : ''} { ${call} { userErrors { code field upstreamStatus } } }`,
        variables,
        user ? { token: user } : {},
      );
      expect(answer, call).toEqual({ userErrors: expected, upstream: requests });
    }
  });

  it('reads what a write changed later in the same operation, never what it read before', async () => {
    const site = await newSite('Fresh reads', ['Release notes', 'Runbooks']);
    const [first, second] = await rootSiteSpaces(site);
    const result = await g.gql(
      `mutation ($site: ID!, $item: ID!, $anchor: ID!) {
        updateSite(input: { siteId: $site, title: "Fresh reads again" }) { site { title ${OUTLINE} } }
        sortSiteStructure(input: { itemId: $item, before: $anchor }) { site { title ${OUTLINE} } }
      } ${ITEM}`,
      { site, item: second, anchor: first },
    );
    expect(result.errors).toBeUndefined();
    expect(outline(result.data.updateSite.site.structure)).toEqual({ siteSpaces: ['release-notes*', 'runbooks'] });
    expect(outline(result.data.sortSiteStructure.site.structure)).toEqual({
      siteSpaces: ['runbooks', 'release-notes*'],
    });
    expect(result.data.sortSiteStructure.site.title).toBe('Fresh reads again');
    // The update and the structure; the sort, the site (for its title) and the structure again.
    expect(result.upstream).toBe(5);
  });
});
