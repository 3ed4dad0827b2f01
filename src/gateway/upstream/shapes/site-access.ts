import { z } from 'zod';
import { S } from '../contract/schemas.js';
import { dateTime, url, VISITOR_AUTH_BACKENDS } from './common.js';
import { collection } from './collections.js';
import { space } from './spaces.js';
import { site, siteStructure } from './sites.js';

/**
 * Shapes of who may read a published site (share links, visitor authentication, the adaptive
 * schema), of its published profile, and of the URL lookups (`/urls/published`, `/urls/content`,
 * `/urls/embed`).
 */

export const shareLink = z.object({
  object: z.literal('share-link'),
  id: z.string(),
  createdAt: dateTime,
  name: z.string().nullish(),
  active: z.boolean().nullish(),
  urls: z.object({ published: url.nullish() }),
});
export type ShareLink = z.infer<typeof shareLink>;

export const publishingAuth = z.object({
  object: z.literal('publishing-auth'),
  backend: z.enum(VISITOR_AUTH_BACKENDS),
  privateKey: z.string(),
  fallbackURL: url.nullish(),
  logoutURL: url.nullish(),
  integration: z.string().nullish(),
  /** This platform's addition: the RSA public key (PEM) RS256 visitor tokens verify with. */
  publicKey: z.string().nullish(),
});
export type PublishingAuth = z.infer<typeof publishingAuth>;

export const adaptiveSchema = z.object({
  object: z.literal('site-adaptive-schema'),
  jsonSchema: z.record(z.string(), z.unknown()),
  updatedAt: dateTime,
});
export type AdaptiveSchema = z.infer<typeof adaptiveSchema>;

export const templateConditions = z.object({
  items: z.array(z.object({ description: z.string(), condition: z.string() })),
});

export const SITE_THEMES = ['clean', 'muted', 'bold', 'gradient'] as const;
export const SITE_CORNERS = ['straight', 'rounded', 'circular'] as const;
export const SITE_ICON_STYLES = ['regular', 'solid', 'duotone', 'light', 'thin'] as const;
export const SITE_SEARCH_STYLES = ['prominent', 'subtle'] as const;
export const SITE_THEME_MODES = ['light', 'dark', 'system'] as const;
export const SITE_AI_MODES = ['none', 'search', 'assistant'] as const;
export const SITE_LOCALES = ['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru'] as const;
export const SITE_PAGE_ACTIONS = ['assistant', 'external-ai', 'markdown', 'mcp', 'git', 'pdf'] as const;
export const SITE_LINK_TARGETS = ['self', 'blank'] as const;

/**
 * The customization settings of a site or site space (`SiteCustomizationSettings`): the closed
 * sets the graph has enums for are checked, every other setting is kept as it is.
 */
const customization = z.looseObject({
  styling: z
    .looseObject({
      theme: z.enum(SITE_THEMES).nullish(),
      corners: z.enum(SITE_CORNERS).nullish(),
      icons: z.enum(SITE_ICON_STYLES).nullish(),
      search: z.enum(SITE_SEARCH_STYLES).nullish(),
    })
    .nullish(),
  themes: z.looseObject({ default: z.enum(SITE_THEME_MODES).nullish() }).nullish(),
  internationalization: z.looseObject({ locale: z.enum(SITE_LOCALES).nullish() }).nullish(),
  ai: z.looseObject({ mode: z.enum(SITE_AI_MODES).nullish() }).nullish(),
  pageActions: z.looseObject({ items: z.array(z.enum(SITE_PAGE_ACTIONS)).nullish() }).nullish(),
  externalLinks: z.looseObject({ target: z.enum(SITE_LINK_TARGETS).nullish() }).nullish(),
});
export type Customization = z.infer<typeof customization>;

export const publishedSite = z.object({
  object: z.literal('published-content-site'),
  site,
  structure: siteStructure,
  customizations: z.object({
    site: customization,
    siteSpaces: z.record(z.string(), customization),
  }),
  scripts: z.array(z.object({ script: url, contentSecurityPolicy: z.string().nullish(), cookies: z.boolean() })),
});
export type PublishedSite = z.infer<typeof publishedSite>;

export const REDIRECT_TARGETS = ['application', 'content', 'external'] as const;

export const publishedContent = z.object({
  site: z.string(),
  siteSection: z.string().nullish(),
  siteSpace: z.string(),
  space: z.string(),
  changeRequest: z.string().nullish(),
  revision: z.string().nullish(),
  pathname: z.string(),
  basePath: z.string(),
  siteBasePath: z.string(),
  apiToken: z.string(),
  organization: z.string(),
  shareKey: z.string().nullish(),
  complete: z.boolean(),
  contextId: z.string().nullish(),
  canonicalUrl: z.string(),
  preview: z.boolean().nullish(),
});
export type PublishedContent = z.infer<typeof publishedContent>;

export const contentRedirect = z.object({
  target: z.enum(REDIRECT_TARGETS),
  redirect: z.string(),
  site: z.string().nullish(),
});
export type ContentRedirect = z.infer<typeof contentRedirect>;

/** `POST /urls/published`: a redirect (it has `target`) or the content. */
export const publishedLookup = z.union([contentRedirect, publishedContent]);

/** `GET /urls/content`: a collection, or a space with a change request and a page. */
export const contentLookup = z.union([
  z.object({ collection }),
  z.object({
    space,
    changeRequest: z.lazy(() => S.ChangeRequest).nullish(),
    page: z.lazy(() => S.RevisionPage).nullish(),
  }),
]);

export const EMBED_TYPES = ['link', 'rich', 'integration'] as const;

export const embed = z.object({
  type: z.enum(EMBED_TYPES),
  title: z.string(),
  site: z.string(),
  icon: z.string().nullish(),
  html: z.string().nullish(),
  integration: z.string().nullish(),
});
export type Embed = z.infer<typeof embed>;
