import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { atLeast } from '../access.js';
import { loadRevision } from '../content/revisions.js';
import { pageIndex } from '../content/pages.js';
import { LANGUAGES } from '../contract/enums.js';
import { fontJson } from '../fonts/json.js';
import type { FontRow } from '../fonts/store.js';
import { badRequest, now, overLimit, parseBody, sendDeleted } from '../http.js';
import type { Links } from '../links.js';
import { declareTables, type Db } from '../store/db.js';
import { siteOf, type SiteParams } from './requests.js';
import { touchSite, type SiteRow } from './store.js';
import { requireSiteSpace, type SiteSpaceRow, type Structure } from './structure.js';

/**
 * The customization of a docs site (`SiteCustomizationSettings`): what its readers see of its
 * title, styling, fonts, header and footer links, favicon and logo, themes, feedback, AI,
 * trademark and the rest. A site's settings are replaced whole (`PUT`); a site space overrides
 * some of them (`PATCH`, a `null` clears one), merged over the site's. What readers get (the
 * published profile, the URL resolution) is the effective customization: the platform's defaults
 * under the site's settings under the site space's overrides, custom fonts as the organization
 * has them now, without the AI instructions (site admins only).
 */

declareTables('site-customization', [
  `
  CREATE TABLE IF NOT EXISTS site_customizations (
    site_id TEXT PRIMARY KEY REFERENCES sites(id) ON DELETE CASCADE,
    settings TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS site_space_customizations (
    site_space_id TEXT PRIMARY KEY REFERENCES site_spaces(id) ON DELETE CASCADE,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    overrides TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS site_space_customizations_by_site ON site_space_customizations(site_id);
  `,
]);

type Settings = Record<string, unknown>;

const DEFAULT_FONT = 'Inter';
const DEFAULT_MONOSPACE_FONT = 'IBMPlexMono';

/**
 * The customization of a site when nobody changed it: the platform's defaults for every setting
 * the API requires (`SiteCustomizationSettings` without `updatedAt`, which marks a customization
 * that was never updated).
 */
export function defaultCustomization(site: Pick<SiteRow, 'title'>, locale = 'en'): Settings {
  const color = (light: string, dark = light) => ({ light, dark });
  const codeTheme = { light: 'default-light', dark: 'default-dark' };
  return {
    title: site.title,
    styling: {
      theme: 'clean',
      primaryColor: color('#346DDB'),
      infoColor: color('#787878'),
      successColor: color('#00C950'),
      warningColor: color('#FE9A00'),
      dangerColor: color('#FB2C36'),
      corners: 'rounded',
      depth: 'subtle',
      links: 'default',
      font: DEFAULT_FONT,
      monospaceFont: DEFAULT_MONOSPACE_FONT,
      codeTheme: { default: codeTheme, openapi: codeTheme },
      background: 'plain',
      icons: 'regular',
      sidebar: { background: 'default', list: 'default' },
      search: 'subtle',
    },
    internationalization: {
      locale: ['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru'].includes(locale) ? locale : 'en',
    },
    favicon: {},
    header: { preset: 'default', links: [] },
    footer: { groups: [] },
    themes: { default: 'light', toggeable: true },
    feedback: { enabled: false },
    ai: { mode: 'search' },
    advancedCustomization: { enabled: false },
    trademark: { enabled: true },
    externalLinks: { target: 'self' },
    pagination: { enabled: true },
    pageActions: { items: ['markdown', 'pdf'] },
    privacyPolicy: {},
    socialPreview: {},
    socialAccounts: [],
    insights: { trackingCookie: true },
  };
}

// ---------------------------------------------------------------------------------------------
// Limits and input
// ---------------------------------------------------------------------------------------------

/** Budgets of lists the description leaves open. */
export const CUSTOMIZATION_LIMITS = {
  /** Links of the header. */
  headerLinks: 10,
  /** Links of one header link's menu, and of one footer group. */
  menuLinks: 20,
  /** Groups of the footer. */
  footerGroups: 10,
  /** Faces of one font, and sources of one face. */
  fontFaces: 20,
  fontSources: 4,
} as const;

const max = (n: number) => `must be at most ${n} characters`;
const text = (n: number) => z.string().max(n, max(n));
const id = z.string().min(1, 'is required').max(100, max(100));
const color = z.string().regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'must be a hex color: #rgb or #rrggbb');
const themedColor = z.strictObject({ light: color, dark: color });
const url = z
  .string()
  .max(2048, max(2048))
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');
const themedUrl = z.strictObject({ light: url, dark: url });
const localized = (n: number) => z.partialRecord(z.enum(LANGUAGES), text(n));
const emoji = z
  .string()
  .max(50, max(50))
  .regex(
    /^(?:[0-9a-fA-F]{4,6}(?:-[0-9a-fA-F]{4,6})*|(?=.*\p{Extended_Pictographic})(?:\p{Extended_Pictographic}|\p{Emoji_Component}|\u200d|\ufe0f)+)$/u,
    'must be an emoji, or its code point in hexadecimal',
  );
const favicon = z.union([z.strictObject({ icon: themedUrl }), z.strictObject({ emoji }), z.strictObject({})]);

/** Where a link leads (`ContentRef`): what it names in the platform is checked by `checkReferences`. */
const contentRef = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('url'), url }),
    z.strictObject({ kind: z.literal('page'), page: id, space: id.optional() }),
    z.strictObject({ kind: z.literal('anchor'), anchor: text(200), page: id.optional(), space: id.optional() }),
    z.strictObject({ kind: z.literal('space'), space: id }),
    z.strictObject({ kind: z.literal('file'), file: id, space: id.optional() }),
    z.strictObject({ kind: z.literal('user'), user: id }),
    z.strictObject({ kind: z.literal('collection'), collection: id }),
    z.strictObject({ kind: z.literal('reusable-content'), reusableContent: id, space: id.optional() }),
    z.strictObject({ kind: z.literal('tag'), tag: id, space: id.optional() }),
    z.strictObject({ kind: z.literal('openapi'), spec: id }),
  ],
  { message: 'must be a content reference (kind url, page, anchor, space, …)' },
);
type ContentRef = z.infer<typeof contentRef>;

const contentLink = z.strictObject({ title: text(64), localizedTitle: localized(64).optional(), to: contentRef });
const counted = <T extends z.ZodType>(item: T, limit: number) => z.array(item).max(limit, `must hold at most ${limit}`);
const headerItem = z.strictObject({
  title: z.string().min(1, 'is required').max(64, max(64)),
  localizedTitle: localized(64).optional(),
  style: z.enum(['link', 'button-primary', 'button-secondary']).optional(),
  to: contentRef.nullable(),
  links: counted(contentLink, CUSTOMIZATION_LIMITS.menuLinks),
  condition: text(1024).optional(),
});
const footerGroup = z.strictObject({
  title: z.string().min(1, 'is required').max(64, max(64)),
  localizedTitle: localized(64).optional(),
  links: counted(contentLink, CUSTOMIZATION_LIMITS.menuLinks),
});
const announcement = z.strictObject({
  enabled: z.boolean(),
  message: z.string().min(2, 'must be at least 2 characters').max(128, max(128)),
  localizedMessage: localized(128).optional(),
  link: contentLink.optional(),
  style: z.enum(['info', 'warning', 'danger', 'success']),
});

/** A font given by its definition: only the organization's custom fonts (`checkReferences`). */
const fontDefinition = z.strictObject({
  id,
  custom: z.boolean(),
  fontFamily: z.string().min(1, 'is required').max(50, max(50)),
  fontFaces: z
    .array(
      z.strictObject({
        weight: z.number().int().min(1).max(1000),
        sources: z
          .array(z.strictObject({ url, format: z.enum(['woff2', 'woff']).optional() }))
          .min(1, 'must hold at least one source')
          .max(CUSTOMIZATION_LIMITS.fontSources, `must hold at most ${CUSTOMIZATION_LIMITS.fontSources}`),
      }),
    )
    .min(1, 'must hold at least one font face')
    .max(CUSTOMIZATION_LIMITS.fontFaces, `must hold at most ${CUSTOMIZATION_LIMITS.fontFaces}`),
});
// Names of fonts and enum values are the gate's to check (the description's enums).
const font = z.union([z.string().max(50, max(50)), fontDefinition], {
  message: 'must be a font name or the definition of a custom font of the organization',
});
const codeTheme = z.strictObject({ light: z.string(), dark: z.string() });
const socialAccount = z.strictObject({
  platform: z.string(),
  handle: z
    .string()
    .min(1, 'is required')
    .max(128, max(128))
    .refine((value) => !value.startsWith('@'), 'must be given without its @'),
  display: z.strictObject({ footer: z.boolean(), header: z.boolean() }),
});

/** A site's settings, replaced whole (`SiteCustomizationSettingsInput`). */
const settingsInput = z.strictObject({
  title: z.string().min(2, 'must be at least 2 characters').max(128, max(128)).optional(),
  localizedTitle: localized(128).optional(),
  styling: z.strictObject({
    theme: z.string(),
    primaryColor: themedColor,
    tint: z.strictObject({ color: themedColor }).optional(),
    infoColor: themedColor,
    successColor: themedColor,
    warningColor: themedColor,
    dangerColor: themedColor,
    corners: z.string(),
    depth: z.string(),
    links: z.string(),
    font,
    headingFont: font.nullable().optional(),
    monospaceFont: font,
    background: z.string(),
    icons: z.string(),
    codeTheme: z.strictObject({ default: codeTheme, openapi: codeTheme }),
    sidebar: z.strictObject({ background: z.string(), list: z.string() }),
    search: z.string(),
  }),
  internationalization: z.strictObject({ locale: z.string() }),
  favicon,
  header: z.strictObject({
    preset: z.string(),
    logo: themedUrl.optional(),
    primaryLink: contentRef.optional(),
    backgroundColor: themedColor.optional(),
    linkColor: themedColor.optional(),
    links: z.array(headerItem),
  }),
  footer: z.strictObject({
    logo: themedUrl.optional(),
    groups: z.array(footerGroup),
    copyright: text(512).optional(),
  }),
  announcement: announcement.optional(),
  themes: z.strictObject({ default: z.string(), toggeable: z.boolean() }),
  feedback: z.strictObject({ enabled: z.boolean() }),
  ai: z.strictObject({
    mode: z.string(),
    greeting: text(256).optional(),
    localizedGreeting: localized(128).optional(),
    suggestions: z
      .array(z.string().min(3, 'must be at least 3 characters').max(64, max(64)))
      .max(5, 'must hold at most 5')
      .optional(),
    instructions: text(10_000).optional(),
  }),
  advancedCustomization: z.strictObject({ enabled: z.boolean() }),
  pageActions: z.strictObject({ items: z.array(z.string()).max(6, 'must hold at most 6') }),
  externalLinks: z.strictObject({ target: z.string() }),
  pagination: z.strictObject({ enabled: z.boolean() }),
  trademark: z.strictObject({ enabled: z.boolean() }),
  privacyPolicy: z.strictObject({ url: url.optional() }),
  socialPreview: z.strictObject({ url: url.optional() }),
  socialAccounts: z.array(socialAccount).max(10, 'must hold at most 10'),
  insights: z.strictObject({ trackingCookie: z.boolean() }),
});

const cleared = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** What a site space overrides (the `PATCH` body): a field left out stays, `null` clears its override. */
const overridesInput = z.strictObject({
  title: cleared(z.string().min(2, 'must be at least 2 characters').max(128, max(128))),
  localizedTitle: cleared(localized(128)),
  styling: z
    .strictObject({
      theme: cleared(z.string()),
      primaryColor: cleared(themedColor),
      infoColor: cleared(themedColor),
      successColor: cleared(themedColor),
      warningColor: cleared(themedColor),
      dangerColor: cleared(themedColor),
      tint: cleared(z.strictObject({ color: themedColor })),
      corners: cleared(z.string()),
      depth: cleared(z.string()),
      links: cleared(z.string()),
      icons: cleared(z.string()),
      sidebar: z.strictObject({ background: cleared(z.string()), list: cleared(z.string()) }).optional(),
      search: cleared(z.string()),
      background: cleared(z.string()),
      codeTheme: z.strictObject({ default: cleared(codeTheme), openapi: cleared(codeTheme) }).optional(),
    })
    .optional(),
  internationalization: z.strictObject({ locale: z.string().nullable() }).optional(),
  favicon: cleared(favicon),
  announcement: announcement.optional(),
  header: z
    .strictObject({
      preset: cleared(z.string()),
      logo: cleared(themedUrl),
      primaryLink: cleared(contentRef),
      backgroundColor: cleared(themedColor),
      linkColor: cleared(themedColor),
      links: cleared(z.array(headerItem)),
    })
    .optional(),
  footer: z
    .strictObject({ logo: cleared(themedUrl), groups: cleared(z.array(footerGroup)), copyright: cleared(text(512)) })
    .optional(),
  themes: z.strictObject({ default: cleared(z.string()), toggeable: cleared(z.boolean()) }).optional(),
  feedback: z.strictObject({ enabled: z.boolean().nullable() }).optional(),
  externalLinks: z.strictObject({ target: z.string().nullable() }).optional(),
  pagination: z.strictObject({ enabled: z.boolean().nullable() }).optional(),
  trademark: z.strictObject({ enabled: z.boolean().nullable() }).optional(),
  privacyPolicy: z.strictObject({ url: cleared(url) }).optional(),
  socialPreview: z.strictObject({ url: cleared(url) }).optional(),
});

/** Objects of the settings whose fields a site space overrides one by one; anything else is overridden whole. */
const BRANCHES = new Set([
  'styling',
  'styling.sidebar',
  'styling.codeTheme',
  'internationalization',
  'header',
  'footer',
  'themes',
  'feedback',
  'externalLinks',
  'pagination',
  'trademark',
  'privacyPolicy',
  'socialPreview',
]);

const isObject = (value: unknown): value is Settings =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Applies a `PATCH` body to stored overrides: a value sets its override, `null` removes it. */
function patchOverrides(stored: Settings, body: Settings, at = ''): Settings {
  const out: Settings = { ...stored };
  for (const [key, value] of Object.entries(body)) {
    if (value === undefined) continue;
    const path = at ? `${at}.${key}` : key;
    if (value === null) delete out[key];
    else if (BRANCHES.has(path) && isObject(value)) {
      const merged = patchOverrides(isObject(out[key]) ? out[key] : {}, value, path);
      if (Object.keys(merged).length > 0) out[key] = merged;
      else delete out[key];
    } else out[key] = value;
  }
  return out;
}

/** Settings with a site space's overrides over them. */
function applyOverrides(base: Settings, overrides: Settings, at = ''): Settings {
  const out: Settings = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const path = at ? `${at}.${key}` : key;
    out[key] =
      BRANCHES.has(path) && isObject(value) ? applyOverrides(isObject(out[key]) ? out[key] : {}, value, path) : value;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// What the settings name: the organization's fonts, the site's spaces and pages
// ---------------------------------------------------------------------------------------------

function customFont(db: Db, orgId: string, fontId: string): FontRow | undefined {
  return db.prepare('SELECT * FROM custom_fonts WHERE id = ? AND org_id = ?').get(fontId, orgId) as FontRow | undefined;
}

function hasPage(db: Db, s: Structure, spaceId: string, pageId: string): boolean {
  const space = s.spaces.get(spaceId);
  const revision = space && loadRevision(db, space.id, space.revision);
  return revision ? pageIndex(revision.content).byId.has(pageId) : false;
}

/**
 * Checks what settings name: a font given by definition is a custom font of the organization,
 * a space is one the site shows, a page is in one of them (in `ownSpace`, a site space's, when
 * the reference names no space; else in any space of the site). A 400 naming the field otherwise.
 */
function checkReferences(db: Db, s: Structure, settings: Settings, ownSpace?: string): void {
  const refuse = (field: string, reason: string) => badRequest(`Invalid body field "${field}": ${reason}`);
  const styling = isObject(settings.styling) ? settings.styling : {};
  for (const key of ['font', 'headingFont', 'monospaceFont']) {
    const value = styling[key];
    if (!isObject(value)) continue;
    if (value.custom !== true || !customFont(db, s.site.org_id, String(value.id)))
      throw refuse(`styling.${key}.id`, `no custom font ${String(value.id)} in the organization`);
  }
  const checkRef = (ref: ContentRef | null | undefined, field: string) => {
    if (!ref) return;
    if (ref.kind === 'space' && !s.spaces.has(ref.space))
      throw refuse(`${field}.space`, `no space ${ref.space} in the site`);
    if ((ref.kind === 'page' || ref.kind === 'anchor') && ref.page !== undefined) {
      const pageId = ref.page;
      if (ref.space !== undefined) {
        if (!s.spaces.has(ref.space)) throw refuse(`${field}.space`, `no space ${ref.space} in the site`);
        if (!hasPage(db, s, ref.space, pageId))
          throw refuse(`${field}.page`, `no page ${pageId} in space ${ref.space}`);
      } else if (
        ownSpace !== undefined
          ? !hasPage(db, s, ownSpace, pageId)
          : ![...s.spaces.keys()].some((space) => hasPage(db, s, space, pageId))
      )
        throw refuse(
          `${field}.page`,
          `no page ${pageId} in ${ownSpace !== undefined ? `space ${ownSpace}` : 'the site'}`,
        );
    }
  };
  const header = isObject(settings.header) ? settings.header : {};
  checkRef(header.primaryLink as ContentRef | undefined, 'header.primaryLink');
  const items = Array.isArray(header.links) ? (header.links as Array<z.infer<typeof headerItem>>) : [];
  if (items.length > CUSTOMIZATION_LIMITS.headerLinks)
    throw overLimit(
      `Invalid body field "header.links": at most ${CUSTOMIZATION_LIMITS.headerLinks} links, got ${items.length}`,
      { limit: 'headerLinks', value: items.length, max: CUSTOMIZATION_LIMITS.headerLinks },
      400,
    );
  items.forEach((item, i) => {
    checkRef(item.to, `header.links.${i}.to`);
    item.links.forEach((link, j) => {
      checkRef(link.to, `header.links.${i}.links.${j}.to`);
    });
  });
  const footer = isObject(settings.footer) ? settings.footer : {};
  const groups = Array.isArray(footer.groups) ? (footer.groups as Array<z.infer<typeof footerGroup>>) : [];
  if (groups.length > CUSTOMIZATION_LIMITS.footerGroups)
    throw overLimit(
      `Invalid body field "footer.groups": at most ${CUSTOMIZATION_LIMITS.footerGroups} groups, got ${groups.length}`,
      { limit: 'footerGroups', value: groups.length, max: CUSTOMIZATION_LIMITS.footerGroups },
      400,
    );
  groups.forEach((group, i) => {
    group.links.forEach((link, j) => {
      checkRef(link.to, `footer.groups.${i}.links.${j}.to`);
    });
  });
  const banner = settings.announcement as z.infer<typeof announcement> | undefined;
  checkRef(banner?.link?.to, 'announcement.link.to');
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

interface SiteCustomizationRow {
  site_id: string;
  settings: string;
  updated_at: string;
}
interface SiteSpaceCustomizationRow {
  site_space_id: string;
  site_id: string;
  overrides: string;
  updated_at: string;
}

const storedOf = (db: Db, siteId: string) =>
  db.prepare('SELECT * FROM site_customizations WHERE site_id = ?').get(siteId) as SiteCustomizationRow | undefined;
const overridesOf = (db: Db, siteSpaceId: string) =>
  db.prepare('SELECT * FROM site_space_customizations WHERE site_space_id = ?').get(siteSpaceId) as
    | SiteSpaceCustomizationRow
    | undefined;

/** Stores a site's settings (already checked), replacing any before them. */
export function writeSiteCustomization(db: Db, siteId: string, settings: Settings, at = now()): void {
  db.prepare(
    `INSERT INTO site_customizations (site_id, settings, updated_at) VALUES (?, ?, ?)
     ON CONFLICT (site_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
  ).run(siteId, JSON.stringify(settings), at);
}

/** Stores a site space's overrides (already merged with those before them); none left removes its row. */
export function writeSiteSpaceOverrides(
  db: Db,
  siteId: string,
  siteSpaceId: string,
  overrides: Settings,
  at = now(),
): void {
  if (Object.keys(overrides).length === 0) {
    db.prepare('DELETE FROM site_space_customizations WHERE site_space_id = ?').run(siteSpaceId);
    return;
  }
  db.prepare(
    `INSERT INTO site_space_customizations (site_space_id, site_id, overrides, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (site_space_id) DO UPDATE SET overrides = excluded.overrides, updated_at = excluded.updated_at`,
  ).run(siteSpaceId, siteId, JSON.stringify(overrides), at);
}

/** A custom font as the organization has it now; a font it no longer has falls back to `fallback`. */
function currentFont(db: Db, links: Links, orgId: string, value: unknown, fallback: string | null) {
  if (!isObject(value)) return value;
  const row = customFont(db, orgId, String(value.id));
  if (!row) return fallback;
  const { permissions: _, ...definition } = fontJson(db, row, links, false);
  return definition;
}

/** How the settings are shown: current custom fonts, and the AI instructions for site admins only. */
function shown(db: Db, links: Links, orgId: string, settings: Settings, admin: boolean): Settings {
  const styling = { ...(settings.styling as Settings) };
  styling.font = currentFont(db, links, orgId, styling.font, DEFAULT_FONT);
  styling.monospaceFont = currentFont(db, links, orgId, styling.monospaceFont, DEFAULT_MONOSPACE_FONT);
  if (styling.headingFont !== undefined) styling.headingFont = currentFont(db, links, orgId, styling.headingFont, null);
  const ai = { ...(settings.ai as Settings) };
  if (!admin) delete ai.instructions;
  return { ...settings, styling, ai };
}

/** The site's own settings over the defaults (the locale of `language` when the site set none), with `updatedAt`. */
function siteSettings(db: Db, site: SiteRow, language?: string): Settings {
  const row = storedOf(db, site.id);
  const base = defaultCustomization(site, language);
  if (!row) return base;
  return { ...base, ...(JSON.parse(row.settings) as Settings), updatedAt: row.updated_at };
}

/** A site space's effective settings: its overrides over the site's; `updatedAt` is the later of both. */
function siteSpaceSettings(db: Db, s: Structure, row: SiteSpaceRow): Settings {
  const base = siteSettings(db, s.site, s.spaces.get(row.space_id)?.language ?? undefined);
  const own = overridesOf(db, row.id);
  if (!own) return base;
  const merged = applyOverrides(base, JSON.parse(own.overrides) as Settings);
  const at = typeof base.updatedAt === 'string' && base.updatedAt > own.updated_at ? base.updatedAt : own.updated_at;
  return { ...merged, updatedAt: at };
}

/**
 * The effective customization of a site and of each of its site spaces in `s`, as its readers get
 * it (the published profile): never the AI instructions.
 */
export function publishedCustomizations(db: Db, links: Links, s: Structure) {
  const org = s.site.org_id;
  return {
    site: shown(db, links, org, siteSettings(db, s.site), false),
    siteSpaces: Object.fromEntries(
      s.siteSpaces.map((row) => [row.id, shown(db, links, org, siteSpaceSettings(db, s, row), false)]),
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

type SiteSpaceParams = SiteParams & { siteSpaceId: string };

/**
 * The customization of a docs site and of its site spaces: members read it (site admins with the
 * AI instructions), site admins (the organization's admins) change it.
 */
export function siteCustomizationRoutes(app: FastifyInstance): void {
  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/customization', async (request) => {
    const { site, role } = siteOf(request, request.params, 'read');
    const { db, links } = request.ctx;
    return shown(db, links, site.org_id, siteSettings(db, site), atLeast(role, 'admin'));
  });

  app.put<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/customization', async (request) => {
    const body = parseBody(settingsInput, request.body) as Settings;
    const { site, s } = siteOf(request, request.params, 'admin');
    const { db, links } = request.ctx;
    checkReferences(db, s, body);
    db.transaction(() => {
      writeSiteCustomization(db, site.id, body);
      touchSite(db, site.id);
    })();
    return shown(db, links, site.org_id, siteSettings(db, site), true);
  });

  const siteSpacePath = '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/customization';

  app.get<{ Params: SiteSpaceParams }>(siteSpacePath, async (request) => {
    const { site, s, role } = siteOf(request, request.params, 'read');
    const row = requireSiteSpace(s, request.params.siteSpaceId);
    const { db, links } = request.ctx;
    return shown(db, links, site.org_id, siteSpaceSettings(db, s, row), atLeast(role, 'admin'));
  });

  app.patch<{ Params: SiteSpaceParams }>(siteSpacePath, async (request) => {
    const body = parseBody(overridesInput, request.body) as Settings;
    const { site, s } = siteOf(request, request.params, 'admin');
    const row = requireSiteSpace(s, request.params.siteSpaceId);
    const { db, links } = request.ctx;
    checkReferences(db, s, body, row.space_id);
    db.transaction(() => {
      const before = overridesOf(db, row.id);
      const overrides = patchOverrides(before ? (JSON.parse(before.overrides) as Settings) : {}, body);
      writeSiteSpaceOverrides(db, site.id, row.id, overrides);
      touchSite(db, site.id);
    })();
    return shown(db, links, site.org_id, siteSpaceSettings(db, s, row), true);
  });

  app.delete<{ Params: SiteSpaceParams }>(siteSpacePath, async (request, reply) => {
    const { site, s } = siteOf(request, request.params, 'admin');
    const row = requireSiteSpace(s, request.params.siteSpaceId);
    const { db } = request.ctx;
    const deleted = db.transaction(() => {
      const gone = db.prepare('DELETE FROM site_space_customizations WHERE site_space_id = ?').run(row.id).changes > 0;
      if (gone) touchSite(db, site.id);
      return gone;
    })();
    return sendDeleted(reply, deleted);
  });
}
