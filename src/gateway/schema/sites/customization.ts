import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import * as op from '../../upstream/contract/operations.js';
import type {
  ContentRef,
  CustomizationFontDefinition,
  SiteCustomizationSettings as Customization,
  Space,
} from '../../upstream/contract/types.js';
import { deleteOf } from '../../upstream/operation.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { PageInterface } from '../content/page.js';
import { lightRevision, readOnce, treeIndex, type PageHeld } from '../content/revision.js';
import { CustomFontNode } from '../fonts.js';
import { builder } from '../kit/builder.js';
import { compositeKey } from '../kit/ids.js';
import { linkTo, loadOrThrow } from '../kit/loaders.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { deletedPayload, objectPayload } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { SpaceNode } from '../spaces.js';
import { SiteCustomization } from './access.js';
import { inSite, siteAfter, siteSpaceTarget, siteTarget } from './mutations.js';
import { SiteRef } from './site.js';
import { SiteSpaceRef, siteItemKey, siteItemStub, type SiteSpaceHeld } from './structure.js';

/**
 * The customization of a docs site in the graph: `Site.customization` and
 * `SiteSpace.customization` (the effective settings, which of them a site space overrides, and
 * links to the custom fonts, spaces and pages they name), and the mutations that replace a
 * site's settings, override a site space's and drop those overrides.
 */

type CustomizationHeld = {
  settings: Customization;
  at: SiteAddress;
  /** The site space's, for a site space's customization. */
  siteSpaceId?: string;
  /** The space a page reference without its space is in (a site space's). */
  ownSpaceId?: string;
  /** Paths of the settings the site space sets otherwise than the site. */
  overridden: string[];
};

/** Objects whose fields a site space overrides one by one (as the platform merges them); others are one setting. */
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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The settings of `own` that differ from `base`, as dotted paths, in the order of `own`. */
function differences(own: Record<string, unknown>, base: Record<string, unknown>, at = ''): string[] {
  const out: string[] = [];
  for (const key of new Set([...Object.keys(own), ...Object.keys(base)])) {
    if (!at && key === 'updatedAt') continue;
    const path = at ? `${at}.${key}` : key;
    const [a, b] = [own[key], base[key]];
    if (BRANCHES.has(path) && isObject(a) && isObject(b)) out.push(...differences(a, b, path));
    else if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
  }
  return out;
}

/** A site's customization, read once per request (a site space's compares with it). */
const readSiteCustomization = (ctx: GatewayContext, at: SiteAddress) =>
  readOnce(ctx, `customization:${compositeKey(at.organizationId, at.siteId)}`, () =>
    ctx.api.read(op.getSiteCustomizationById, at),
  );

// --- Links --------------------------------------------------------------------------------------

type LinkHeld = { place: string; title: string | null; to: ContentRef; spaceId: string | null };

/** Every content reference of the header, footer and announcement, with where it is. */
function linksOf(c: CustomizationHeld): LinkHeld[] {
  const s = c.settings;
  const out: LinkHeld[] = [];
  const add = (place: string, title: string | null | undefined, to: ContentRef | null | undefined) => {
    if (!to) return;
    const named = 'space' in to && typeof to.space === 'string' ? to.space : undefined;
    out.push({ place, title: title ?? null, to, spaceId: named ?? c.ownSpaceId ?? null });
  };
  add('header.primaryLink', null, s.header?.primaryLink);
  (s.header?.links ?? []).forEach((item, i) => {
    add(`header.links.${i}`, item.title, item.to);
    (item.links ?? []).forEach((link, j) => {
      add(`header.links.${i}.links.${j}`, link.title, link.to);
    });
  });
  (s.footer?.groups ?? []).forEach((group, i) => {
    (group.links ?? []).forEach((link, j) => {
      add(`footer.groups.${i}.links.${j}`, link.title, link.to);
    });
  });
  add('announcement.link', s.announcement?.link?.title, s.announcement?.link?.to);
  return out;
}

const SiteCustomizationLink = builder.objectRef<LinkHeld>('SiteCustomizationLink').implement({
  description: 'A link of a site’s header, footer or announcement, and what it leads to.',
  fields: (t) => ({
    place: t.exposeString('place', {
      description:
        'Where it is in the settings: `header.links.0`, `header.links.0.links.1`, `footer.groups.0.links.2`…',
    }),
    title: t.string({
      nullable: true,
      description: 'Its title (none for the header’s primary link).',
      resolve: (l) => l.title,
    }),
    kind: t.string({
      description: 'What it leads to, as the API names it: `url`, `space`, `page`, `anchor`…',
      resolve: (l) => l.to.kind,
    }),
    url: t.string({
      nullable: true,
      description: 'The address, for a link to a URL.',
      resolve: (l) => (l.to.kind === 'url' ? l.to.url : null),
    }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space it leads to, or the space of the page it leads to.',
      extensions: upstream.link,
      resolve: (l, _args, _ctx, info) =>
        l.spaceId && (l.to.kind === 'space' || l.to.kind === 'page' || l.to.kind === 'anchor')
          ? linkTo(SpaceNode, l.spaceId, info, () => ({ id: l.spaceId }) as Space)
          : null,
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description: 'The page it leads to, in the current content of its space; null when it is no longer there.',
      // The space (for its current revision), then its page tree.
      extensions: upstream.fetch(2),
      resolve: async (l, _args, ctx): Promise<PageHeld | null> => {
        const pageId = l.to.kind === 'page' || l.to.kind === 'anchor' ? l.to.page : undefined;
        if (!pageId || !l.spaceId) return null;
        const space = await loadOrThrow(SpaceNode, ctx, l.spaceId);
        const index = await treeIndex(ctx, lightRevision(space.id, space.revision, true));
        return index.byId.get(pageId) ?? null;
      },
    }),
  }),
});

// --- The effective customization ----------------------------------------------------------------

const FONT_SETTINGS = ['font', 'headingFont', 'monospaceFont'] as const;

const SiteCustomizationState = builder.objectRef<CustomizationHeld>('SiteCustomizationState').implement({
  description:
    'The customization of a site or of one of its site spaces: the effective settings (the platform’s defaults, the site’s, a site space’s overrides), which settings the site space overrides, and what the settings name.',
  fields: (t) => ({
    settings: t.field({
      type: SiteCustomization,
      description: 'The effective settings, typed; `settings.settings` has every one as the API answers it.',
      resolve: (c) => c.settings,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the settings (or the site space’s overrides) last changed; null when never customized.',
      resolve: (c) => c.settings.updatedAt ?? null,
    }),
    overridden: t.stringList({
      description:
        'The settings a site space sets otherwise than its site, as paths (`title`, `styling.primaryColor`, `header.links`); empty for a site.',
      resolve: (c) => c.overridden,
    }),
    fonts: t.field({
      type: [CustomFontNode],
      description: 'The organization’s custom fonts the styling uses (text, headings, code), in that order.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) =>
        FONT_SETTINGS.flatMap((key) => {
          const font = c.settings.styling?.[key];
          if (!isObject(font) || font.custom !== true) return [];
          const definition = font as CustomizationFontDefinition;
          return [
            linkTo(CustomFontNode, compositeKey(c.at.organizationId, definition.id), info, () => ({
              ...definition,
              organizationId: c.at.organizationId,
            })),
          ];
        }),
    }),
    links: t.field({
      type: [SiteCustomizationLink],
      description: 'The links of the header, the footer and the announcement, in that order.',
      resolve: linksOf,
    }),
    site: t.field(siteAfter('The site.')),
    siteSpace: t.field({
      type: SiteSpaceRef,
      nullable: true,
      description: 'The site space, for a site space’s customization.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) =>
        c.siteSpaceId
          ? linkTo(SiteSpaceRef, siteItemKey({ ...c.at, id: c.siteSpaceId }), info, () =>
              siteItemStub<SiteSpaceHeld>(c.at, c.siteSpaceId!),
            )
          : null,
    }),
  }),
});

const siteHeld = (settings: Customization, at: SiteAddress): CustomizationHeld => ({ settings, at, overridden: [] });

builder.objectFields(SiteRef, (t) => ({
  customization: t.field({
    type: SiteCustomizationState,
    nullable: true,
    description:
      'Its customization (members; the AI instructions for site admins only); null with FORBIDDEN for others.',
    extensions: upstream.fetch(1),
    resolve: async (s, _args, ctx) => {
      const at = { organizationId: s.organizationId, siteId: s.id };
      return siteHeld(await readSiteCustomization(ctx, at), at);
    },
  }),
}));

builder.objectFields(SiteSpaceRef, (t) => ({
  customization: t.field({
    type: SiteCustomizationState,
    nullable: true,
    description:
      'Its effective customization (members): its overrides over the site’s settings, and which settings it overrides; null with FORBIDDEN for others.',
    // The site space's settings and the site's, read together.
    extensions: upstream.fetch(2),
    resolve: async (s, _args, ctx) => {
      const at = { organizationId: s.organizationId, siteId: s.siteId };
      const [own, site] = await Promise.all([
        ctx.api.read(op.getSiteSpaceCustomizationById, { ...at, siteSpaceId: s.id }),
        readSiteCustomization(ctx, at),
      ]);
      return {
        settings: own,
        at,
        siteSpaceId: s.id,
        ownSpaceId: s.space?.id,
        overridden: differences(own as Record<string, unknown>, site as Record<string, unknown>),
      };
    },
  }),
}));

// --- Mutations ----------------------------------------------------------------------------------

const settingsObject = (what: string) => z.record(z.string(), z.unknown(), { message: `must be an object of ${what}` });

/** The platform's refusals of a body field, named in the input's JSON field. */
/** A refusal of the body names a setting under `field`; others (a path parameter not found) keep their mapping. */
const under = (field: string) => (restField: string[] | null, code: string) =>
  restField && code === 'BAD_USER_INPUT' ? [field, ...restField] : undefined;

declareMutation('updateSiteCustomization', {
  description:
    'Replaces the customization of a site (site admins): every setting of `SiteCustomizationSettingsInput`, whole; what is left out goes back to its default. Colors, addresses, lengths, custom fonts (of the organization) and the spaces and pages links name are checked.',
  input: 'The site and its settings.',
  fields: {
    ...siteTarget,
    settings: inputField(
      'JSON',
      'Every setting, as the API takes them (`SiteCustomizationSettingsInput`): `styling`, `header`, `footer`, `themes`, `ai`…',
      settingsObject('settings'),
    ),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'customization', SiteCustomizationState, 'The site’s customization after the change.'),
  inputPath: under('settings'),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    const { data } = await ctx.api.write(op.updateSiteCustomizationById, at, { body: i.settings as never });
    return { customization: siteHeld(data, at) };
  },
});

declareMutation('overrideSiteSpaceCustomization', {
  description:
    'Overrides settings of the site’s customization for one site space (site admins), field by field: what is left out stays, a null drops that override (the site’s setting applies again).',
  input: 'The site space and its overrides.',
  fields: {
    ...siteSpaceTarget,
    overrides: inputField(
      'JSON',
      'The settings to override, as the API takes them: `title`, `styling.primaryColor`, `header.links`…; null clears one.',
      settingsObject('overrides'),
    ),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'customization', SiteCustomizationState, 'The site space’s customization after the change.'),
  // The write, and the site's own settings it is merged over (read meanwhile).
  extensions: upstream.fetch(2),
  inputPath: under('overrides'),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    const siteSpaceId = i.siteSpaceId.id;
    const [{ data }, site] = await Promise.all([
      ctx.api.write(op.overrideSiteSpaceCustomizationById, { ...at, siteSpaceId }, { body: i.overrides as never }),
      readSiteCustomization(ctx, at),
    ]);
    return {
      customization: {
        settings: data,
        at,
        siteSpaceId,
        overridden: differences(data as Record<string, unknown>, site as Record<string, unknown>),
      },
    };
  },
});

declareMutation('deleteSiteSpaceCustomization', {
  description: 'Drops every override of one site space (site admins): it shows the site’s customization again.',
  input: 'The site space.',
  fields: siteSpaceTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress; siteSpaceId: string }>(
      name,
      'True when overrides were dropped, false when it had none.',
      (t) => ({ site: t.field(siteAfter('The site.')) }),
    ),
  run: async (i, ctx) => ({
    ...(await deleteOf(ctx.api, op.deleteSiteSpaceCustomizationById, { ...i, siteSpaceId: i.siteSpaceId.id })),
    at: { organizationId: i.organizationId, siteId: i.siteId },
    siteSpaceId: i.siteSpaceId.id,
  }),
});
