import { z } from 'zod';
import { dateTime, role, url } from './common.js';
import { space } from './spaces.js';

/** Who can read a published site. */
export const SITE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth'] as const;
/** Plans of a site. */
export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const;

const siteType = z.enum(SITE_TYPES);

/** Text in other languages than the default one, by language code. */
const localized = z.record(z.string(), z.string());

export const site = z.object({
  object: z.literal('site'),
  id: z.string(),
  type: siteType,
  appliedType: siteType.nullish(),
  title: z.string(),
  hostname: z.string().nullish(),
  basename: z.string().nullish(),
  proxy: z.object({ origin: z.string(), target: url }).nullish(),
  visibility: z.enum(SITE_VISIBILITIES),
  /** `null`: members get guest access. */
  defaultLevel: z.union([role, z.literal('inherit')]).nullish(),
  permissions: z
    .object({
      view: z.boolean(),
      access: z.boolean(),
      edit: z.boolean(),
      create: z.boolean(),
      admin: z.boolean(),
      installIntegration: z.boolean(),
      viewAdaptiveSchema: z.boolean(),
      editAdaptiveSchema: z.boolean(),
    })
    .partial(),
  published: z.boolean(),
  /** Number of site spaces. */
  siteSpaces: z.number().int().nonnegative(),
  createdAt: dateTime,
  adaptiveContent: z.object({ enabled: z.boolean() }).nullish(),
  urls: z.object({
    location: url.nullish(),
    app: url.nullish(),
    published: url.nullish(),
    preview: url.nullish(),
    login: url.nullish(),
    logout: url.nullish(),
  }),
});
export type Site = z.infer<typeof site>;

/**
 * What `POST …/publish` may answer instead of the site: a checkout session to complete when the
 * organization's plan must be upgraded first.
 */
export const publishResult = z.union([site, z.object({ type: z.literal('checkout'), sessionId: z.string() })]);

const itemUrls = z.object({ published: url.nullish() }).nullish();

export const siteSpace = z.object({
  object: z.literal('site-space'),
  id: z.string(),
  path: z.string(),
  section: z.string().nullish(),
  space,
  title: z.string(),
  localizedTitle: localized.nullish(),
  default: z.boolean().nullish(),
  condition: z.string().nullish(),
  pageId: z.string().nullish(),
  draft: z.boolean().nullish(),
  hidden: z.boolean().nullish(),
  urls: itemUrls,
});
export type SiteSpace = z.infer<typeof siteSpace>;

export const siteSection = z.object({
  object: z.literal('site-section'),
  id: z.string(),
  title: z.string(),
  localizedTitle: localized.nullish(),
  description: z.string().nullish(),
  localizedDescription: localized.nullish(),
  default: z.boolean().nullish(),
  draft: z.boolean().nullish(),
  path: z.string(),
  condition: z.string().nullish(),
  sectionGroup: z.string().nullish(),
  icon: z.string().nullish(),
  siteSpaces: z.array(siteSpace),
  urls: itemUrls,
});
export type SiteSection = z.infer<typeof siteSection>;

/** A link to another address among the sections of a site (the embedded platform keeps none). */
export const siteExternalLink = z.object({
  object: z.literal('site-external-link'),
  id: z.string(),
  title: z.string(),
  localizedTitle: localized.nullish(),
  description: z.string().nullish(),
  localizedDescription: localized.nullish(),
  icon: z.string().nullish(),
  url,
  sectionGroup: z.string().nullish(),
  draft: z.boolean().nullish(),
  condition: z.string().nullish(),
});
export type SiteExternalLink = z.infer<typeof siteExternalLink>;

export interface SiteSectionGroup {
  object: 'site-section-group';
  id: string;
  title: string;
  localizedTitle?: Record<string, string> | null | undefined;
  sectionGroup?: string | null | undefined;
  draft?: boolean | null | undefined;
  icon?: string | null | undefined;
  children: SectionLevelItem[];
}

/** An item of the sections structure: a section, a group of them, or an external link. */
export type SectionLevelItem = SiteSection | SiteSectionGroup | SiteExternalLink;

// The `sections` the platform also answers for a group are its sections among `children`.
export const siteSectionGroup: z.ZodType<SiteSectionGroup, unknown> = z.lazy(() =>
  z.object({
    object: z.literal('site-section-group'),
    id: z.string(),
    title: z.string(),
    localizedTitle: localized.nullish(),
    sectionGroup: z.string().nullish(),
    draft: z.boolean().nullish(),
    icon: z.string().nullish(),
    children: z.array(sectionLevelItem),
  }),
);

export const sectionLevelItem: z.ZodType<SectionLevelItem, unknown> = z.lazy(() =>
  z.union([siteSection, siteSectionGroup, siteExternalLink]),
);

/** A site's structure: sections (and groups) at its root, or site spaces without sections. */
export const siteStructure = z.discriminatedUnion('type', [
  z.object({ type: z.literal('sections'), structure: z.array(sectionLevelItem) }),
  z.object({ type: z.literal('siteSpaces'), structure: z.array(siteSpace) }),
]);
export type SiteStructure = z.infer<typeof siteStructure>;

/** What `PATCH …/structure/sort` answers: the item it moved. */
export const sortedItem = z.union([siteSpace, siteSection, siteSectionGroup]);
