import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoFonts } from '../../src/platform/fonts/store.js';
import { defaultCustomization } from '../../src/platform/sites/customization.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { buildSite, type TestSite, writePages } from '../fixtures/sites.js';

/**
 * Site customization on the platform: a site's settings replaced whole and validated (colors,
 * URLs, lengths, fonts of the organization, spaces and pages of the site), a site space's
 * overrides merged over them and cleared, and the published profile answering the effective
 * customization without the AI instructions.
 */

const ORG = 'lumen';
let p: TestPlatform;
let org: TestOrg;
let site: TestSite;
let guide: string;
let other: string;
let pageId: string;
let fontId: string;
let otherOrgFont: string;

const base = () => `/orgs/${ORG}/sites/${site.id}`;
const siteSpace = (space: string) => site.siteSpaces.find((item) => item.space === space)!.id;

/** Valid full settings: the defaults with `changes` over them. */
function settings(changes: Record<string, unknown> = {}) {
  const { title: _, ...defaults } = defaultCustomization({ title: 'x' });
  return { ...defaults, title: 'Lumen Docs', ...changes };
}
const styling = (changes: Record<string, unknown>) => ({
  ...(defaultCustomization({ title: 'x' }).styling as Record<string, unknown>),
  ...changes,
});

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  org = addOrg(p, { id: ORG, members: { ada: 'admin', ed: 'edit', rae: 'read' } });
  addOrg(p, { id: 'elsewhere', members: { ada: 'admin' }, users: { ada: org.user('ada') } });
  guide = await org.space('Guide');
  other = await org.space('Other');
  await writePages(org, guide, [{ title: 'Welcome' }, { title: 'Install' }]);
  const content = await p.api('GET', `/spaces/${guide}/content`, { token: org.token('ada') });
  pageId = (content.body.pages as Array<{ id: string; title: string }>).find((page) => page.title === 'Install')!.id;
  site = await buildSite(org, {
    title: 'Lumen Docs',
    siteSpaces: [{ space: guide }, { space: await org.space('Guide (fr)', { language: 'fr' }), path: 'fr' }],
  });
  seedDemoFonts(p.db, ORG, [{ family: 'Lumen Sans', weights: [400, 700] }], new Date().toISOString());
  seedDemoFonts(p.db, 'elsewhere', [{ family: 'Foreign', weights: [400] }], new Date().toISOString());
  const fontOf = (orgId: string) =>
    p.db.prepare('SELECT id FROM custom_fonts WHERE org_id = ?').pluck(true).get(orgId) as string;
  fontId = fontOf(ORG);
  otherOrgFont = fontOf('elsewhere');
});

afterEach(() => expect(p.violations.splice(0)).toEqual([]));
afterAll(async () => {
  await p?.destroy();
});

const as = (key: string) => ({ token: org.token(key) });

describe('a site’s customization', () => {
  it('answers the defaults, never updated, until an admin replaces them', async () => {
    const before = await p.api('GET', `${base()}/customization`, as('rae'));
    expect(before.status).toBe(200);
    expect(before.body.updatedAt).toBeUndefined();
    expect(before.body.title).toBe('Lumen Docs');
    expect(before.body.styling.primaryColor).toEqual({ light: '#346DDB', dark: '#346DDB' });

    const written = await p.api('PUT', `${base()}/customization`, {
      ...as('ada'),
      body: settings({
        styling: styling({
          primaryColor: { light: '#ff6600', dark: '#f60' },
          font: {
            id: fontId,
            custom: true,
            fontFamily: 'x',
            fontFaces: [{ weight: 400, sources: [{ url: 'https://fonts.test/x.woff2' }] }],
          },
        }),
        header: {
          preset: 'default',
          logo: { light: 'https://cdn.lumen.test/logo.svg', dark: 'https://cdn.lumen.test/logo-dark.svg' },
          links: [
            { title: 'Install', to: { kind: 'page', page: pageId, space: guide }, links: [] },
            { title: 'Status', to: { kind: 'url', url: 'https://status.lumen.test' }, links: [] },
          ],
        },
        footer: { groups: [{ title: 'Product', links: [{ title: 'Guide', to: { kind: 'space', space: guide } }] }] },
        ai: { mode: 'assistant', instructions: 'Answer tersely.' },
        favicon: { emoji: '🔦' },
      }),
    });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body.updatedAt).toEqual(expect.any(String));
    // A custom font is answered as the organization has it (its family and served faces).
    expect(written.body.styling.font).toMatchObject({ id: fontId, custom: true, fontFamily: 'Lumen Sans' });
    expect(written.body.styling.font.fontFaces.map((face: { weight: number }) => face.weight)).toEqual([400, 700]);
    expect(written.body.ai.instructions).toBe('Answer tersely.');

    const read = await p.api('GET', `${base()}/customization`, as('rae'));
    expect(read.body.styling.primaryColor).toEqual({ light: '#ff6600', dark: '#f60' });
    expect(read.body.header.links).toHaveLength(2);
    // The AI instructions are for site admins only.
    expect(read.body.ai).toEqual({ mode: 'assistant' });
  });

  it('lets site admins only write it', async () => {
    const refused = await p.api('PUT', `${base()}/customization`, { ...as('ed'), body: settings() });
    expect(refused.status).toBe(403);
  });

  it.each<[() => Record<string, unknown>, string, string]>([
    [
      () => ({ styling: styling({ primaryColor: { light: 'orange', dark: '#000' } }) }),
      'styling.primaryColor.light',
      'hex color',
    ],
    [() => ({ title: 'x'.repeat(129) }), 'title', 'at most 128 characters'],
    [() => ({ privacyPolicy: { url: 'javascript:alert(1)' } }), 'privacyPolicy.url', 'http or https'],
    [
      () => ({
        styling: styling({
          font: {
            id: otherOrgFont,
            custom: true,
            fontFamily: 'F',
            fontFaces: [{ weight: 400, sources: [{ url: 'https://f.test/f.woff2' }] }],
          },
        }),
      }),
      'styling.font.id',
      'in the organization',
    ],
    [
      () => ({
        footer: { groups: [{ title: 'G', links: [{ title: 'Other', to: { kind: 'space', space: other } }] }] },
      }),
      'footer.groups.0.links.0.to.space',
      'in the site',
    ],
    [
      () => ({
        header: { preset: 'default', links: [{ title: 'Gone', to: { kind: 'page', page: 'nope' }, links: [] }] },
      }),
      'header.links.0.to.page',
      'no page nope in the site',
    ],
    [() => ({ ai: { mode: 'search', suggestions: ['ok?', 'a', 'b', 'c', 'd', 'e'] } }), 'ai.suggestions', 'at most 5'],
    [
      () => ({ socialAccounts: [{ platform: 'github', handle: '@lumen', display: { footer: true, header: false } }] }),
      'socialAccounts.0.handle',
      'without its @',
    ],
  ])('refuses bad settings with a 400 naming the field (%#)', async (changes, field, reason) => {
    const answer = await p.api('PUT', `${base()}/customization`, { ...as('ada'), body: settings(changes()) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(400);
    expect(answer.body.error.message).toContain(`"${field}"`);
    expect(answer.body.error.message).toContain(reason);
  });

  it('refuses more header links than its budget, naming the limit', async () => {
    const links = Array.from({ length: 11 }, (_, i) => ({ title: `L${i}`, to: null, links: [] }));
    const answer = await p.api('PUT', `${base()}/customization`, {
      ...as('ada'),
      body: settings({ header: { preset: 'default', links } }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ limit: 'headerLinks', value: 11, max: 10 });
  });
});

describe('a site space’s overrides', () => {
  it('merge over the site’s, clear with null, and fall back when deleted', async () => {
    const fr = `${base()}/site-spaces/${siteSpace(site.siteSpaces[1]!.space)}/customization`;
    const before = await p.api('GET', fr, as('rae'));
    expect(before.body.styling.primaryColor).toEqual({ light: '#ff6600', dark: '#f60' });
    expect(before.body.internationalization.locale).toBe('en');

    const patched = await p.api('PATCH', fr, {
      ...as('ada'),
      body: { title: 'Docs Lumen', styling: { primaryColor: { light: '#0a0', dark: '#0f0' }, corners: 'straight' } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body).toMatchObject({
      title: 'Docs Lumen',
      styling: { primaryColor: { light: '#0a0', dark: '#0f0' }, corners: 'straight', theme: 'clean' },
    });
    // Untouched settings are the site's.
    expect(patched.body.header.links).toHaveLength(2);
    // The other site space is not affected.
    const en = await p.api('GET', `${base()}/site-spaces/${siteSpace(guide)}/customization`, as('rae'));
    expect(en.body.title).toBe('Lumen Docs');

    const cleared = await p.api('PATCH', fr, { ...as('ada'), body: { styling: { corners: null } } });
    expect(cleared.body.styling.corners).toBe('rounded');
    expect(cleared.body.styling.primaryColor).toEqual({ light: '#0a0', dark: '#0f0' });

    const refused = await p.api('PATCH', fr, {
      ...as('ada'),
      body: { header: { links: [{ title: 'Far', to: { kind: 'page', page: pageId }, links: [] }] } },
    });
    // A page named without its space is looked for in the site space's own space.
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('"header.links.0.to.page"');

    expect((await p.api('DELETE', fr, as('ed'))).status).toBe(403);
    expect((await p.api('DELETE', fr, as('ada'))).status).toBe(205);
    expect((await p.api('DELETE', fr, as('ada'))).status).toBe(204);
    const after = await p.api('GET', fr, as('rae'));
    expect(after.body.title).toBe('Lumen Docs');
    expect(after.body.styling.primaryColor).toEqual({ light: '#ff6600', dark: '#f60' });
  });

  it('answers 404 for a site space of another site', async () => {
    const answer = await p.api('GET', `${base()}/site-spaces/nope/customization`, as('rae'));
    expect(answer.status).toBe(404);
  });
});

describe('the published profile', () => {
  it('answers the effective customization, without the AI instructions', async () => {
    const en = siteSpace(guide);
    await p.api('PATCH', `${base()}/site-spaces/${en}/customization`, {
      ...as('ada'),
      body: { themes: { default: 'dark' } },
    });
    // Read by an admin: even they get no AI instructions in what readers get.
    const profile = await p.api('GET', `${base()}/published`, as('ada'));
    expect(profile.status).toBe(200);
    const { customizations } = profile.body;
    expect(customizations.site.styling.primaryColor).toEqual({ light: '#ff6600', dark: '#f60' });
    expect(customizations.site.ai).toEqual({ mode: 'assistant' });
    expect(customizations.siteSpaces[en].themes).toEqual({ default: 'dark', toggeable: true });
    expect(JSON.stringify(customizations)).not.toContain('Answer tersely');
  });

  it('falls back to the default font when the custom font is deleted', async () => {
    expect((await p.api('DELETE', `/orgs/${ORG}/fonts/${fontId}`, as('ada'))).status).toBe(205);
    const read = await p.api('GET', `${base()}/customization`, as('rae'));
    expect(read.body.styling.font).toBe('Inter');
  });
});
