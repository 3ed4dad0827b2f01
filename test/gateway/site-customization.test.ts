import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoFonts } from '../../src/platform/fonts/store.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { buildSite, type TestSite, writePages } from '../fixtures/sites.js';

/**
 * Site customization end to end: `Site.customization` and `SiteSpace.customization` (effective
 * settings, what a site space overrides, links to fonts, spaces and pages), the three mutations
 * with their user errors, and `resolveUrl` answering the customization a visitor sees.
 */

const ORG = 'lumen';
let g: TestGateway;
let org: TestOrg;
let site: TestSite;
let guide: string;
let fontId: string;
let pageId: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', ed: 'edit' } });
  guide = await org.space('Guide');
  await writePages(org, guide, [{ title: 'Welcome' }, { title: 'Install' }]);
  const content = await g.platform.api('GET', `/spaces/${guide}/content`, { token: org.token('ada') });
  pageId = (content.body.pages as Array<{ id: string; title: string }>).find((page) => page.title === 'Install')!.id;
  site = await buildSite(org, {
    title: 'Lumen Docs',
    siteSpaces: [{ space: guide }, { space: await org.space('Guide FR'), path: 'fr' }],
  });
  seedDemoFonts(g.platform.db, ORG, [{ family: 'Lumen Sans', weights: [400] }], new Date().toISOString());
  fontId = g.platform.db.prepare('SELECT id FROM custom_fonts WHERE org_id = ?').pluck(true).get(ORG) as string;
});
afterAll(() => g.destroy());

const siteGid = () => encodeGlobalID('Site', `${ORG}/${site.id}`);
const frGid = () => encodeGlobalID('SiteSpace', `${ORG}/${site.id}/${site.siteSpace('fr')}`);
const as = (key: string) => ({ token: org.token(key) });

const SETTINGS = `
  settings { title styling { primaryColor { light dark } font } }
  updatedAt overridden
  fonts { fontFamily }
  links { place title kind url space { title } page { title } }
`;

describe('writing and reading a customization', () => {
  it('replaces a site’s settings, answering links to the font, space and page they name', async () => {
    const defaults = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Site { customization { settings { settings } } } } }`,
      { id: siteGid() },
      as('ada'),
    );
    const settings = { ...(defaults.data.node.customization.settings.settings as Record<string, any>) };
    delete settings.updatedAt;
    settings.styling = {
      ...settings.styling,
      primaryColor: { light: '#ff6600', dark: '#f60' },
      font: {
        id: fontId,
        custom: true,
        fontFamily: 'x',
        fontFaces: [{ weight: 400, sources: [{ url: 'https://f.test/a.woff2' }] }],
      },
    };
    settings.header = {
      preset: 'default',
      links: [
        { title: 'Install', to: { kind: 'page', page: pageId, space: guide }, links: [] },
        { title: 'Home', to: { kind: 'url', url: 'https://lumen.test' }, links: [] },
      ],
    };
    const written = await g.gql(
      `mutation($input: UpdateSiteCustomizationInput!) {
        updateSiteCustomization(input: $input) { customization { ${SETTINGS} } userErrors { code field message } }
      }`,
      { input: { siteId: siteGid(), settings } },
      as('ada'),
    );
    expect(written.errors).toBeUndefined();
    // The write; the page link's space and page tree; the font (the answer's fields are read from it).
    expect(written.upstream).toBe(1 + 2 + 1);
    const { customization, userErrors } = written.data.updateSiteCustomization;
    expect(userErrors).toEqual([]);
    expect({ ...customization, updatedAt: typeof customization.updatedAt }).toEqual({
      settings: {
        title: 'Lumen Docs',
        styling: { primaryColor: { light: '#ff6600', dark: '#f60' }, font: 'Lumen Sans' },
      },
      updatedAt: 'string',
      overridden: [],
      fonts: [{ fontFamily: 'Lumen Sans' }],
      links: [
        {
          place: 'header.links.0',
          title: 'Install',
          kind: 'page',
          url: null,
          space: { title: 'Guide' },
          page: { title: 'Install' },
        },
        { place: 'header.links.1', title: 'Home', kind: 'url', url: 'https://lumen.test', space: null, page: null },
      ],
    });
  });

  it('answers the platform’s refusals as user errors naming the field of the input', async () => {
    const result = await g.gql(
      `mutation($input: OverrideSiteSpaceCustomizationInput!) {
        overrideSiteSpaceCustomization(input: $input) { customization { overridden } userErrors { code field message } }
      }`,
      { input: { siteSpaceId: frGid(), overrides: { styling: { primaryColor: { light: 'red', dark: '#000' } } } } },
      as('ada'),
    );
    expect(result.data.overrideSiteSpaceCustomization).toEqual({
      customization: null,
      userErrors: [
        {
          code: 'BAD_USER_INPUT',
          field: ['overrides', 'styling', 'primaryColor', 'light'],
          message: expect.stringContaining('must be a hex color'),
        },
      ],
    });
    const refused = await g.gql(
      `mutation($input: DeleteSiteSpaceCustomizationInput!) { deleteSiteSpaceCustomization(input: $input) { deleted userErrors { code } } }`,
      { input: { siteSpaceId: frGid() } },
      as('ed'),
    );
    expect(refused.data.deleteSiteSpaceCustomization.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
  });

  it('overrides a site space, says what it overrides, and falls back once the overrides are deleted', async () => {
    const written = await g.gql(
      `mutation($input: OverrideSiteSpaceCustomizationInput!) {
        overrideSiteSpaceCustomization(input: $input) { customization { ${SETTINGS} siteSpace { path } } userErrors { message } }
      }`,
      {
        input: {
          siteSpaceId: frGid(),
          overrides: { title: 'Lumen FR', styling: { primaryColor: { light: '#00a', dark: '#00f' } } },
        },
      },
      as('ada'),
    );
    expect(written.data.overrideSiteSpaceCustomization.userErrors).toEqual([]);
    expect(written.data.overrideSiteSpaceCustomization.customization).toMatchObject({
      settings: { title: 'Lumen FR', styling: { primaryColor: { light: '#00a' }, font: 'Lumen Sans' } },
      overridden: ['title', 'styling.primaryColor'],
      siteSpace: { path: 'fr' },
    });

    const read = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Site { customization { overridden }
        siteSpaces(first: 5) { nodes { path customization { overridden settings { title } } } } } } }`,
      { id: siteGid() },
      as('ed'),
    );
    expect(read.errors).toBeUndefined();
    // The site, its customization (read once, shared), its site spaces, each site space's customization.
    expect(read.upstream).toBe(1 + 1 + 1 + 2);
    expect(read.data.node).toEqual({
      customization: { overridden: [] },
      siteSpaces: {
        nodes: [
          { path: 'guide', customization: { overridden: [], settings: { title: 'Lumen Docs' } } },
          {
            path: 'fr',
            customization: { overridden: ['title', 'styling.primaryColor'], settings: { title: 'Lumen FR' } },
          },
        ],
      },
    });

    const resolved = await g.gql(
      `query($url: String!) { resolveUrl(url: $url) { ... on PublishedContent { customization { title styling { primaryColor { light } } } } } }`,
      { url: `${new URL(g.platform.url).origin}/published/${ORG}/${site.basename}/fr` },
      as('ada'),
    );
    expect(resolved.errors).toBeUndefined();
    expect(resolved.data.resolveUrl.customization).toEqual({
      title: 'Lumen FR',
      styling: { primaryColor: { light: '#00a' } },
    });

    const deleted = await g.gql(
      `mutation($input: DeleteSiteSpaceCustomizationInput!) { deleteSiteSpaceCustomization(input: $input) { deleted deletedId userErrors { code } } }`,
      { input: { siteSpaceId: frGid() } },
      as('ada'),
    );
    expect(deleted.data.deleteSiteSpaceCustomization).toEqual({ deleted: true, deletedId: null, userErrors: [] });
    expect(deleted.upstream).toBe(1);
    const after = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on SiteSpace { customization { overridden settings { title } } } } }`,
      { id: frGid() },
      as('ada'),
    );
    expect(after.data.node.customization).toEqual({ overridden: [], settings: { title: 'Lumen Docs' } });
  });
});
