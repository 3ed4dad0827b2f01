import { z } from 'zod';
import { listConnection, mapNodes } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { GatewayError, isGatewayError } from '../../errors.js';
import { compositeKey, decodeKnownGlobalId, platformKey, readingId, splitKey } from '../kit/ids.js';
import type {
  CustomizationAIMode,
  CustomizationCorners,
  CustomizationDefaultThemeMode,
  CustomizationIconsStyle,
  CustomizationLocale,
  CustomizationPageActionType,
  CustomizationSearchStyle,
  CustomizationTheme,
  PublishedContentSite as PublishedSite,
  ShareLink,
  SiteAdaptiveSchema as AdaptiveSchema,
  SiteCustomizationSettings as Customization,
  SiteExternalLinksTarget,
} from '../../upstream/contract/types.js';
import {
  createShareLink,
  deleteShareLink,
  getAdaptiveSchema,
  getPublishedSite,
  getVisitorAuth,
  listShareLinks,
  listTemplateConditions,
  readShareLinkPage,
  regenerateVisitorAuthKey,
  updateAdaptiveSchema,
  updateShareLink,
  updateVisitorAuth,
  type VisitorAuth as PublishingAuth,
} from '../../upstream/site-access.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { readOnce } from '../content/revision.js';
import { builder } from '../kit/builder.js';
import { linkTo, loadableNode, prime } from '../kit/loaders.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { deletedPayload, objectPayload, payloadType } from '../kit/payloads.js';
import { restBody } from '../kit/mutations.js';
import { restEnum, VISITOR_AUTH_BACKENDS, VisitorAuthBackendEnum } from '../kit/enums.js';
// The description has no enum of backends (each is the tag of a variant of `SitePublishingAuth`).
import { inSite, naming, siteAfter, siteRefInput, siteTarget } from './mutations.js';
import { SiteRef, primeSites, siteArgs, siteKey, type SiteHeld, type SiteRefValue } from './site.js';
import {
  placeStructure,
  siteItemStub,
  SiteSpaceRef,
  SiteStructureUnion,
  type SiteSpaceHeld,
  type SiteStructureHeld,
} from './structure.js';

/**
 * Who may read a published site and as whom: its share links (nodes), its visitor-authentication
 * settings, its adaptive schema, and its published profile as readers get it.
 */

// --- Share links -------------------------------------------------------------------------------

type ShareLinkHeld = ShareLink & { organizationId: string; siteId: string };

const shareLinkKey = (link: { organizationId: string; siteId: string; id: string }) =>
  compositeKey(link.organizationId, link.siteId, link.id);
const place = (link: ShareLink, at: SiteAddress): ShareLinkHeld => ({
  ...link,
  organizationId: at.organizationId,
  siteId: at.siteId,
});

/** The share links of a site, read once per request (a site has few). */
function readShareLinks(ctx: GatewayContext, at: SiteAddress): Promise<ShareLinkHeld[]> {
  return readOnce(ctx, `share-links:${siteKey(at.organizationId, at.siteId)}`, async () => {
    const links: ShareLinkHeld[] = [];
    let page: string | undefined;
    do {
      const answer = await readShareLinkPage(ctx.api, at, page);
      links.push(...answer.items.map((item) => place(item, at)));
      page = answer.next?.page;
    } while (page);
    return links;
  });
}

export const SiteShareLinkRef = loadableNode<ShareLinkHeld>('SiteShareLink', {
  key: shareLinkKey,
  load: async (key, ctx) => {
    const [organizationId, siteId, id] = splitKey(key, 3, 'SiteShareLink') as [string, string, string];
    const found = (await readShareLinks(ctx, { organizationId, siteId })).find((link) => link.id === id);
    if (!found) throw new GatewayError('NOT_FOUND', `No share link ${id} in the site`);
    return found;
  },
});

SiteShareLinkRef.implement({
  description:
    'A share link of a `SHARE_LINK` site: its secret key, which appears only in `url`, lets anyone who has it read the published site. Admins of the organization manage them.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the share link on the platform.' }),
    name: t.string({
      nullable: true,
      description: 'Its name, to tell links apart (at most 50 characters).',
      resolve: (l) => l.name ?? null,
    }),
    active: t.boolean({
      description: 'False when it was turned off: its key no longer opens the site.',
      resolve: (l) => l.active ?? true,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (l) => l.createdAt }),
    url: t.string({
      nullable: true,
      description: 'The published address of the site with its key: what to share.',
      resolve: (l) => l.urls.published ?? null,
    }),
    site: t.field({
      type: SiteRef,
      description: 'The site it opens.',
      extensions: upstream.link,
      resolve: (l, _args, _ctx, info) =>
        linkTo(
          SiteRef,
          siteKey(l.organizationId, l.siteId),
          info,
          () => ({ id: l.siteId, organizationId: l.organizationId }) as SiteHeld,
        ),
    }),
  }),
});

const SiteShareLinkEdge = builder.edgeObject({
  type: SiteShareLinkRef,
  name: 'SiteShareLinkEdge',
  description: 'A share link of a list, with its cursor.',
});

const ShareLinkConnection = builder.connectionObject(
  {
    type: SiteShareLinkRef,
    name: 'SiteShareLinkConnection',
    description: 'A page of share links of a site, with the size of the whole list.',
  },
  SiteShareLinkEdge,
);

// --- Visitor authentication ---------------------------------------------------------------------

const SiteVisitorAuth = builder.objectRef<PublishingAuth>('SiteVisitorAuth').implement({
  description:
    'How visitors of a `VISITOR_AUTH` site (and the claims of adaptive content) are authenticated: tokens (JWT) signed HS256 with `signingKey`, or RS256 with the private key matching `publicKey`. Admins only: it holds a secret.',
  fields: (t) => ({
    backend: t.field({
      type: VisitorAuthBackendEnum,
      description: 'What signs visitor tokens.',
      resolve: (a) => a.backend,
    }),
    signingKey: t.exposeString('privateKey', {
      description: 'The secret that signs HS256 visitor tokens. Keep it on your backend only.',
    }),
    publicKey: t.string({
      nullable: true,
      description: 'RSA public key (PEM) RS256 visitor tokens are verified with, when set.',
      resolve: (a) => a.publicKey ?? null,
    }),
    fallbackUrl: t.string({
      nullable: true,
      description: 'Where visitors without a valid token are sent.',
      resolve: (a) => a.fallbackURL ?? null,
    }),
    logoutUrl: t.string({
      nullable: true,
      description: 'Where visitors are sent to log out of your backend.',
      resolve: (a) => a.logoutURL ?? null,
    }),
    integration: t.string({
      nullable: true,
      description: 'Name of the visitor-authentication integration installed on the site, if any.',
      resolve: (a) => a.integration ?? null,
    }),
  }),
});

// --- Adaptive schema ----------------------------------------------------------------------------

const TemplateCondition = builder
  .objectRef<{ description: string; condition: string }>('SiteAdaptiveTemplateCondition')
  .implement({
    description: 'A ready-made condition for one claim of the adaptive schema.',
    fields: (t) => ({
      description: t.exposeString('description', { description: 'What it checks, from the claim’s description.' }),
      condition: t.exposeString('condition', {
        description: 'The expression, to use as a condition of a section, site space or page.',
      }),
    }),
  });

type AdaptiveHeld = AdaptiveSchema & SiteAddress;

const SiteAdaptiveSchema = builder.objectRef<AdaptiveHeld>('SiteAdaptiveSchema').implement({
  description:
    'What the claims of a site’s visitors may hold: a JSON Schema (draft-07) of boolean, string, number, array and object claims, with `unsigned` for the claims visitors state without signing them. Conditions read them as `visitor.claims.<name>` and `visitor.claims.unsigned.<name>`.',
  fields: (t) => ({
    jsonSchema: t.field({ type: 'JSON', description: 'The schema.', resolve: (a) => a.jsonSchema }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (a) => a.updatedAt }),
    templateConditions: t.field({
      type: [TemplateCondition],
      description: 'Ready-made conditions, one per claim (and per value of an enum claim).',
      extensions: upstream.fetch(1),
      resolve: async (a, _args, ctx) => (await listTemplateConditions(ctx.api, a)).items,
    }),
  }),
});

// --- Published profile --------------------------------------------------------------------------

const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

const ThemeEnum = restEnum('SiteTheme', 'A theme preset of a published site.', {
  clean: 'Modern, with translucency and lightly styled elements.',
  muted: 'Sophisticated, with less contrast between elements.',
  bold: 'High-impact, with prominent colors and strong contrasts.',
  gradient: 'Colorful gradients and splashes of color.',
} satisfies Record<CustomizationTheme, string>);

const CornersEnum = restEnum('SiteCorners', 'The corner style of a published site.', {
  straight: 'Square corners.',
  rounded: 'Slightly rounded corners.',
  circular: 'Fully rounded corners.',
} satisfies Record<CustomizationCorners, string>);

const IconStyleEnum = restEnum('SiteIconStyle', 'The icon style of a published site.', {
  regular: 'Regular icons.',
  solid: 'Solid icons.',
  duotone: 'Two-tone icons.',
  light: 'Light icons.',
  thin: 'Thin icons.',
} satisfies Record<CustomizationIconsStyle, string>);

const SearchStyleEnum = restEnum('SiteSearchStyle', 'The search button of a published site.', {
  prominent: 'A large search bar in the middle of the header.',
  subtle: 'A small search bar in the corner of the header.',
} satisfies Record<CustomizationSearchStyle, string>);

const ThemeModeEnum = restEnum('SiteThemeMode', 'The theme mode readers of a published site start with.', {
  light: 'Light.',
  dark: 'Dark.',
  system: 'As the reader’s system is set.',
} satisfies Record<CustomizationDefaultThemeMode, string>);

const AiModeEnum = restEnum('SiteAiMode', 'The AI features of a published site.', {
  none: 'None.',
  search: 'AI answers in search.',
  assistant: 'An AI assistant readers chat with.',
} satisfies Record<CustomizationAIMode, string>);

const LocaleEnum = restEnum('SiteLocale', 'A language of the interface of a published site.', {
  en: 'English.',
  fr: 'French.',
  es: 'Spanish.',
  zh: 'Chinese.',
  ja: 'Japanese.',
  de: 'German.',
  nl: 'Dutch.',
  no: 'Norwegian.',
  'pt-br': 'Brazilian Portuguese.',
  ru: 'Russian.',
} satisfies Record<CustomizationLocale, string>);

const PageActionEnum = restEnum('SitePageAction', 'An action of the page menu of a published site.', {
  assistant: 'Ask the AI assistant about the page.',
  'external-ai': 'Open the page in an external AI tool.',
  markdown: 'Copy or view the page as markdown.',
  mcp: 'Connect to the site’s MCP server.',
  git: 'Open the page in its Git repository.',
  pdf: 'Export the page as PDF.',
} satisfies Record<CustomizationPageActionType, string>);

const LinkTargetEnum = restEnum('SiteExternalLinksTarget', 'Where external links of a published site open.', {
  self: 'In the current tab.',
  blank: 'In a new tab.',
} satisfies Record<SiteExternalLinksTarget, string>);

const ThemedColor = builder.objectRef<Record<string, unknown>>('ThemedColor').implement({
  description: 'A color for the light and the dark theme.',
  fields: (t) => ({
    light: t.string({ nullable: true, description: 'Hex color in the light theme.', resolve: (c) => text(c.light) }),
    dark: t.string({ nullable: true, description: 'Hex color in the dark theme.', resolve: (c) => text(c.dark) }),
  }),
});

type Styling = NonNullable<Customization['styling']>;

const SiteStyling = builder.objectRef<Styling>('SiteStyling').implement({
  description: 'How the published site looks.',
  fields: (t) => ({
    theme: t.field({
      type: ThemeEnum,
      nullable: true,
      description: 'Theme preset.',
      resolve: (s) => s.theme ?? null,
    }),
    primaryColor: t.field({
      type: ThemedColor,
      nullable: true,
      description: 'Main accent color.',
      resolve: (s) => (s.primaryColor ? record(s.primaryColor) : null),
    }),
    corners: t.field({
      type: CornersEnum,
      nullable: true,
      description: 'Corner style.',
      resolve: (s) => s.corners ?? null,
    }),
    font: t.string({
      nullable: true,
      description: 'Text font (a font name, or the family of a custom font).',
      resolve: (s) => text(s.font) ?? text(record(s.font).fontFamily),
    }),
    monospaceFont: t.string({
      nullable: true,
      description: 'Code font.',
      resolve: (s) => text(s.monospaceFont) ?? text(record(s.monospaceFont).fontFamily),
    }),
    icons: t.field({
      type: IconStyleEnum,
      nullable: true,
      description: 'Icon style.',
      resolve: (s) => s.icons ?? null,
    }),
    search: t.field({
      type: SearchStyleEnum,
      nullable: true,
      description: 'Search button style.',
      resolve: (s) => s.search ?? null,
    }),
  }),
});

export const SiteCustomization = builder.objectRef<Customization>('SiteCustomization').implement({
  description:
    'The effective customization of a published site or site space: the platform’s defaults where nothing was set.',
  fields: (t) => ({
    title: t.string({ nullable: true, description: 'Title shown in the header.', resolve: (c) => text(c.title) }),
    styling: t.field({
      type: SiteStyling,
      description: 'Look: theme, colors, fonts, icons.',
      resolve: (c) => c.styling ?? {},
    }),
    defaultTheme: t.field({
      type: ThemeModeEnum,
      nullable: true,
      description: 'Theme mode readers start with.',
      resolve: (c) => c.themes?.default ?? null,
    }),
    themeToggle: t.boolean({
      description: 'True when readers can switch between light and dark.',
      resolve: (c) => c.themes?.toggeable === true,
    }),
    locale: t.field({
      type: LocaleEnum,
      nullable: true,
      description: 'Language of the interface.',
      resolve: (c) => c.internationalization?.locale ?? null,
    }),
    aiMode: t.field({
      type: AiModeEnum,
      nullable: true,
      description: 'AI features for readers.',
      resolve: (c) => c.ai?.mode ?? null,
    }),
    pageActions: t.field({
      type: [PageActionEnum],
      description: 'Actions of the page menu, in order; the first is the main button.',
      resolve: (c) => c.pageActions?.items ?? [],
    }),
    pagination: t.boolean({
      description: 'True when pages show previous/next links.',
      resolve: (c) => record(c.pagination).enabled === true,
    }),
    feedback: t.boolean({
      description: 'True when readers can rate pages.',
      resolve: (c) => record(c.feedback).enabled === true,
    }),
    trademark: t.boolean({
      description: 'True when the platform’s trademark is shown.',
      resolve: (c) => record(c.trademark).enabled === true,
    }),
    externalLinksTarget: t.field({
      type: LinkTargetEnum,
      nullable: true,
      description: 'Where external links open.',
      resolve: (c) => c.externalLinks?.target ?? null,
    }),
    settings: t.field({
      type: 'JSON',
      description: 'Every setting as the API has it (`SiteCustomizationSettings`).',
      resolve: (c) => c,
    }),
  }),
});

type ProfileHeld = PublishedSite & SiteAddress & { structureHeld: SiteStructureHeld };

const SiteSpaceCustomization = builder
  .objectRef<{ siteSpaceId: string; at: SiteAddress; customization: Customization }>('SiteSpaceCustomization')
  .implement({
    description: 'The effective customization of one site space.',
    fields: (t) => ({
      siteSpace: t.field({
        type: SiteSpaceRef,
        description: 'The site space.',
        extensions: upstream.link,
        resolve: (c, _args, _ctx, info) =>
          linkTo(SiteSpaceRef, compositeKey(c.at.organizationId, c.at.siteId, c.siteSpaceId), info, () =>
            siteItemStub<SiteSpaceHeld>(c.at, c.siteSpaceId),
          ),
      }),
      customization: t.field({
        type: SiteCustomization,
        description: 'Its customization.',
        resolve: (c) => c.customization,
      }),
    }),
  });

/** A script an integration adds to a published site (`SiteIntegrationScript`). */
export const SiteScript = builder.objectRef<PublishedSite['scripts'][number]>('SiteScript').implement({
  description: 'A script an integration adds to the published site.',
  fields: (t) => ({
    url: t.exposeString('script', { description: 'Address of the script.' }),
    contentSecurityPolicy: t.string({
      nullable: true,
      description: 'Content Security Policy it needs.',
      resolve: (s) => s.contentSecurityPolicy ?? null,
    }),
    cookies: t.exposeBoolean('cookies', { description: 'True when it may use cookies.' }),
  }),
});

export const PublishedSiteProfile = builder.objectRef<ProfileHeld>('PublishedSiteProfile').implement({
  description: 'A site as its readers get it: its structure without drafts, its customization, its scripts.',
  fields: (t) => ({
    site: t.field({
      type: SiteRef,
      description: 'The site.',
      resolve: (p, _args, ctx) => primeSites(ctx, p.organizationId, [p.site])[0]!,
    }),
    structure: t.field({
      type: SiteStructureUnion,
      description: 'Its sections and site spaces, as readers see them (drafts left out).',
      resolve: (p) => p.structureHeld,
    }),
    customization: t.field({
      type: SiteCustomization,
      description: 'The customization of the site.',
      resolve: (p) => p.customizations.site,
    }),
    siteSpaceCustomizations: t.field({
      type: [SiteSpaceCustomization],
      description: 'The customization of each site space.',
      resolve: (p) =>
        Object.entries(p.customizations.siteSpaces).map(([siteSpaceId, customization]) => ({
          siteSpaceId,
          at: p,
          customization,
        })),
    }),
    scripts: t.field({ type: [SiteScript], description: 'Scripts integrations add to it.', resolve: (p) => p.scripts }),
  }),
});

// --- Site fields --------------------------------------------------------------------------------

/** Null for a 404 of an optional read (no adaptive schema yet). */
async function orNull<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (error) {
    if (isGatewayError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

builder.objectFields(SiteRef, (t) => ({
  shareLinks: t.connection(
    {
      type: SiteShareLinkRef,
      nullable: true,
      description: 'Its share links (admins); null with FORBIDDEN for others.',
      args: {
        search: t.arg.string({
          description: 'Only the links whose name contains this text, or whose key is this one.',
        }),
      },
      resolve: async (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        const connection = await listConnection(
          args,
          listShareLinks(ctx.api, at, { search: args.search ?? undefined }),
        );
        return mapNodes(connection, (links) => {
          const held = links.map((link) => place(link, at));
          prime(SiteShareLinkRef, ctx, held);
          return held;
        });
      },
    },
    ShareLinkConnection,
  ),
  visitorAuth: t.field({
    type: SiteVisitorAuth,
    nullable: true,
    description: 'How its visitors are authenticated, with the signing key (admins); null with FORBIDDEN for others.',
    extensions: upstream.fetch(1),
    resolve: (s, _args, ctx) => getVisitorAuth(ctx.api, { organizationId: s.organizationId, siteId: s.id }),
  }),
  adaptiveSchema: t.field({
    type: SiteAdaptiveSchema,
    nullable: true,
    description: 'What its visitors’ claims may hold; null when it has none. Editors and admins read it.',
    extensions: upstream.fetch(1),
    resolve: async (s, _args, ctx) => {
      const schema = await orNull(getAdaptiveSchema(ctx.api, { organizationId: s.organizationId, siteId: s.id }));
      return schema && { ...schema, organizationId: s.organizationId, siteId: s.id };
    },
  }),
  published: t.field({
    type: PublishedSiteProfile,
    nullable: true,
    description:
      'The site as its readers get it (`GET …/published`): its published profile. Members read it even unpublished; others only when they could visit the site (public or unlisted, or share-link with `shareKey`). Whether it is live is `isPublished`.',
    args: {
      shareKey: t.arg.string({
        description: 'Key of an active share link, to read a share-link site as its readers do.',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: (s, args, ctx) => readProfile(ctx, { organizationId: s.organizationId, siteId: s.id }, args.shareKey),
  }),
}));

/** The published profile of a site, as the caller (with a share key, or a site visitor's token) may read it. */
async function readProfile(
  ctx: GatewayContext,
  at: SiteAddress,
  shareKey: string | null | undefined,
): Promise<ProfileHeld> {
  const profile = await getPublishedSite(ctx.api, at, { shareKey: shareKey ?? undefined });
  // Not primed: other readers see less than members, and the site's structure field is the member's view.
  return { ...profile, ...at, structureHeld: placeStructure(profile.structure, at.organizationId, at.siteId) };
}

builder.queryFields((t) => ({
  publishedSite: t.field({
    type: PublishedSiteProfile,
    nullable: true,
    description:
      'A site as its readers get it, for readers outside its organization too: a published public or unlisted site, a share-link site with `shareKey`, any published site with the API token of one of its resolved URLs. Null with NOT_FOUND otherwise.',
    args: {
      organizationId: t.arg.id({ required: true, description: 'Platform id or global ID of the organization.' }),
      siteId: t.arg.id({ required: true, description: 'Platform id or global ID of the site.' }),
      shareKey: t.arg.string({ description: 'Key of an active share link of a share-link site.' }),
    },
    extensions: upstream.fetch(1),
    resolve: (_root, args, ctx) =>
      readProfile(ctx, siteArgs(args.organizationId, args.siteId, 'siteId'), args.shareKey),
  }),
}));

// --- Mutations ----------------------------------------------------------------------------------

const linkName = z.string().max(50, 'must be at most 50 characters');
const shareLinkTarget = {
  ...siteTarget,
  siteId: inputField(
    'ID',
    'The site: its global ID, or its platform id with `organizationId`; required unless `shareLinkId` is a global ID.',
    siteRefInput('Site').nullish(),
  ),
  shareLinkId: inputField(
    'ID',
    'The share link: its global ID, or its platform id with `siteId`.',
    z
      .string()
      .trim()
      .min(1, 'must be the id of a share link')
      .transform(
        readingId((value) => {
          const key = platformKey(value, 'SiteShareLink');
          if (key === value || !decodeKnownGlobalId(value))
            return { id: value } as { id: string; organizationId?: string; siteId?: string };
          const [organizationId, siteId, id] = splitKey(key, 3, 'SiteShareLink') as [string, string, string];
          return { id, organizationId, siteId };
        }),
      ),
  ),
};

/** Takes the organization and site a share link's global ID carries. */
function linkInSite<
  T extends {
    organizationId?: string | null;
    siteId?: SiteRefValue | null;
    shareLinkId: { id: string; organizationId?: string; siteId?: string };
  },
>(value: T, ctx: z.core.$RefinementCtx) {
  const { shareLinkId } = value;
  if (shareLinkId.siteId && value.siteId == null) {
    return inSite(
      {
        ...value,
        organizationId: value.organizationId ?? shareLinkId.organizationId,
        siteId: { id: shareLinkId.siteId, organizationId: shareLinkId.organizationId },
      },
      ctx,
    );
  }
  return inSite(value, ctx);
}

const ShareLinkPayload = (name: string, description = 'The share link after the change.') =>
  objectPayload(name, 'shareLink', SiteShareLinkRef, description);

async function shareLinkPayload(ctx: GatewayContext, at: SiteAddress, written: Promise<ShareLink>) {
  const shareLink = place(await written, at);
  prime(SiteShareLinkRef, ctx, [shareLink]);
  return { shareLink };
}

declareMutation('createSiteShareLink', {
  description:
    'Creates a share link of a site: a secret key in its URL that opens a published share-link site (admins).',
  input: 'The site and the name of the link.',
  fields: {
    ...siteTarget,
    name: inputField('String', 'A name to tell links apart (at most 50 characters).', linkName),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'shareLink', SiteShareLinkRef, 'The new share link, with its URL.', {
      type: SiteShareLinkEdge,
      what: 'share link',
      lists: '`Site.shareLinks`',
    }),
  run: (i, ctx) => shareLinkPayload(ctx, i, createShareLink(ctx.api, i, { name: i.name })),
});

declareMutation('updateSiteShareLink', {
  description: 'Renames a share link, or turns it off or on (admins).',
  input: 'The share link and what to change.',
  fields: {
    ...shareLinkTarget,
    name: inputField('String', 'New name (at most 50 characters).', linkName.nullish()),
    active: inputField('Boolean', 'False turns the link off: its key stops opening the site.', z.boolean().nullish()),
  },
  check: (input) => input.transform(linkInSite),
  payload: ShareLinkPayload,
  run: (i, ctx) => {
    return shareLinkPayload(
      ctx,
      i,
      updateShareLink(
        ctx.api,
        i,
        i.shareLinkId.id,
        restBody({ name: i.name, active: i.active }, { required: 'Give a name or active' }),
      ),
    );
  },
});

declareMutation('deleteSiteShareLink', {
  description: 'Deletes a share link: its key stops opening the site at once (admins).',
  input: 'The share link to delete.',
  fields: shareLinkTarget,
  check: (input) => input.transform(linkInSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress }>(name, 'True when the link was deleted, false when it did not exist.', (t) => ({
      site: t.field(siteAfter('The site.')),
    })),
  run: async (i, ctx) => {
    return {
      ...(await deleteShareLink(ctx.api, i, i.shareLinkId.id)),
      at: { organizationId: i.organizationId, siteId: i.siteId },
    };
  },
});

const httpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');

declareMutation('updateSiteVisitorAuth', {
  description:
    'Changes how the visitors of a site are authenticated: the backend, the fallback and logout URLs, the RS256 public key (admins).',
  input: 'The site and its visitor-authentication settings; URLs and key left out stay, null removes them.',
  fields: {
    ...siteTarget,
    backend: inputField(VisitorAuthBackendEnum, 'What signs visitor tokens.', z.enum(VISITOR_AUTH_BACKENDS)),
    fallbackUrl: inputField(
      'String',
      'Where to send visitors without a valid token; null removes it.',
      httpUrl.nullish(),
    ),
    logoutUrl: inputField('String', 'Where to send visitors to log out; null removes it.', httpUrl.nullish()),
    publicKey: inputField(
      'String',
      'RSA public key (PEM, SPKI) to verify RS256 tokens with; null removes it.',
      z.string().max(10_000, 'must be at most 10000 characters').nullish(),
    ),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ visitorAuth: PublishingAuth; at: SiteAddress }>(name, (t) => ({
      visitorAuth: t.field({
        type: SiteVisitorAuth,
        nullable: true,
        description: 'The settings after the change.',
        resolve: (p) => p.visitorAuth ?? null,
      }),
      site: t.field(siteAfter('The site.')),
    })),
  run: async (i, ctx) => {
    const body = restBody(
      { backend: i.backend, fallbackURL: i.fallbackUrl, logoutURL: i.logoutUrl, publicKey: i.publicKey },
      { clearable: ['fallbackURL', 'logoutURL', 'publicKey'] },
    );
    const visitorAuth = await naming({ fallbackURL: 'fallbackUrl', logoutURL: 'logoutUrl' }, () =>
      updateVisitorAuth(ctx.api, i, body),
    );
    return { visitorAuth, at: i };
  },
});

declareMutation('regenerateSiteVisitorAuthKey', {
  description:
    'Replaces the key that signs the HS256 tokens of a site’s visitors: tokens signed with the old key stop working at once (admins).',
  input: 'The site.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ visitorAuth: PublishingAuth; at: SiteAddress }>(name, (t) => ({
      visitorAuth: t.field({
        type: SiteVisitorAuth,
        nullable: true,
        description: 'The settings with the new key.',
        resolve: (p) => p.visitorAuth ?? null,
      }),
      site: t.field(siteAfter('The site.')),
    })),
  run: async (i, ctx) => ({
    visitorAuth: await regenerateVisitorAuthKey(ctx.api, i),
    at: i,
  }),
});

declareMutation('updateSiteAdaptiveSchema', {
  description: 'Replaces the adaptive schema of a site: what its visitors’ claims may hold (admins).',
  input: 'The site and its new schema.',
  fields: {
    ...siteTarget,
    jsonSchema: inputField(
      'JSON',
      'A JSON Schema (draft-07): `{ type: "object", properties: { <claim>: { type, description } … , unsigned?: { … } }, additionalProperties: false }`.',
      z.record(z.string(), z.unknown(), { message: 'must be a JSON Schema object' }),
    ),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ adaptiveSchema: AdaptiveHeld; at: SiteAddress }>(name, (t) => ({
      adaptiveSchema: t.field({
        type: SiteAdaptiveSchema,
        nullable: true,
        description: 'The schema after the change.',
        resolve: (p) => p.adaptiveSchema ?? null,
      }),
      site: t.field(siteAfter('The site.')),
    })),
  run: async (i, ctx) => {
    const data = await updateAdaptiveSchema(ctx.api, i, i.jsonSchema);
    return { adaptiveSchema: { ...data, organizationId: i.organizationId, siteId: i.siteId }, at: i };
  },
});
