import { z } from 'zod';
import { dateTime, url } from './common.js';
import { changeRequest } from './change-requests.js';
import { collection } from './collections.js';
import { revisionPage } from './content.js';
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

export const VISITOR_AUTH_BACKENDS = ['custom', 'integration'] as const;

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

export const publishedSite = z.object({
  object: z.literal('published-content-site'),
  site,
  structure: siteStructure,
  customizations: z.object({
    site: z.record(z.string(), z.unknown()),
    siteSpaces: z.record(z.string(), z.record(z.string(), z.unknown())),
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
  z.object({ space, changeRequest: changeRequest.nullish(), page: revisionPage.nullish() }),
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
