import { type Access, atLeast, type Role } from '../access.js';
import type { Links } from '../links.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { countSiteSpaces, proxyOf, siteLoginUrl, siteRootUrl, type SiteRow } from './store.js';
import { spaceJson } from '../spaces/json.js';
import {
  childrenOf,
  defaultSection,
  defaultVariant,
  type ItemPointer,
  requireExternalLink,
  requireGroup,
  requireSection,
  requireSiteSpace,
  type SectionLevelItem,
  sectionSegments,
  type SiteExternalLinkRow,
  type SiteSectionGroupRow,
  type SiteSectionRow,
  type SiteSpaceRow,
  siteSpaceSegments,
  type Structure,
  usesSections,
  variantsOf,
} from './structure.js';
import { signingKey, type ShareLinkRow } from './visitors.js';

/** What a member with `role` in the organization may do with sites. */
function sitePermissions(role: Role | null | undefined) {
  return {
    view: role !== undefined,
    access: role !== undefined && role !== null,
    edit: atLeast(role, 'edit'),
    create: atLeast(role, 'create'),
    admin: atLeast(role, 'admin'),
    installIntegration: atLeast(role, 'admin'),
    viewAdaptiveSchema: atLeast(role, 'edit'),
    editAdaptiveSchema: atLeast(role, 'admin'),
  };
}

/** A site as a member with `role` in its organization sees it (`Site`). */
export function siteJson(db: Db, site: SiteRow, org: OrganizationRow, role: Role | null | undefined, links: Links) {
  const proxy = proxyOf(site);
  return {
    object: 'site' as const,
    id: site.id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    ...(site.hostname ? { hostname: site.hostname } : {}),
    basename: site.basename,
    ...(proxy ? { proxy } : {}),
    visibility: site.visibility,
    defaultLevel:
      site.default_level === 'inherit'
        ? ('inherit' as const)
        : site.default_level === 'guest'
          ? null
          : site.default_level,
    permissions: sitePermissions(role),
    published: site.published === 1,
    siteSpaces: countSiteSpaces(db, site.id),
    createdAt: site.created_at,
    adaptiveContent: { enabled: site.adaptive_content === 1 },
    features: [],
    urls: {
      location: `${links.api}/orgs/${org.id}/sites/${site.id}`,
      app: `${links.app}/o/${org.id}/sites/${site.id}`,
      preview: `${links.app}/o/${org.id}/sites/${site.id}/preview`,
      ...(site.published === 1 ? { published: siteRootUrl(site, org, links) } : {}),
      ...(site.published === 1 && site.visibility === 'visitor-auth'
        ? {
            login: siteLoginUrl(site, org, links),
            logout: site.auth_logout_url ?? siteLoginUrl(site, org, links, 'logout'),
          }
        : {}),
    },
  };
}

/** A share link of a site; its key shows only inside its published URL. */
export function shareLinkJson(row: ShareLinkRow, site: SiteRow, org: OrganizationRow, links: Links) {
  return {
    object: 'share-link' as const,
    id: row.id,
    createdAt: row.created_at,
    ...(row.name !== null ? { name: row.name } : {}),
    active: row.active === 1,
    // The key is a secret of the link; it shows only inside its published URL.
    urls: { published: `${siteRootUrl(site, org, links)}${row.key}/` },
  };
}

/** The visitor-authentication settings of a site (`PublishingAuth`), with its signing key: for admins only. */
export function authJson(db: Db, site: SiteRow) {
  return {
    object: 'publishing-auth' as const,
    backend: site.auth_backend,
    privateKey: signingKey(db, site),
    ...(site.auth_fallback_url ? { fallbackURL: site.auth_fallback_url } : {}),
    ...(site.auth_logout_url ? { logoutURL: site.auth_logout_url } : {}),
    ...(site.auth_public_key ? { publicKey: site.auth_public_key } : {}),
  };
}

// The structure of a site: its site spaces, sections, section groups and external links.

export interface JsonContext {
  access: Access;
  org: OrganizationRow;
  links: Links;
}

function publishedUrl(s: Structure, context: JsonContext, segments: string[]): { published?: string } {
  if (s.site.published !== 1) return {};
  return { published: siteRootUrl(s.site, context.org, context.links) + segments.map(encodeURIComponent).join('/') };
}

const localized = (value: string | null) =>
  value ? { localizedTitle: JSON.parse(value) as Record<string, string> } : {};

export function siteSpaceJson(s: Structure, row: SiteSpaceRow, context: JsonContext) {
  const space = s.spaces.get(row.space_id)!;
  return {
    object: 'site-space' as const,
    id: row.id,
    path: row.path,
    ...(row.section_id ? { section: row.section_id } : {}),
    space: spaceJson(space, context.access.spaceRole(space), context.links),
    title: space.title,
    default: defaultVariant(s, row.section_id)?.id === row.id,
    ...(row.condition ? { condition: row.condition } : {}),
    pageId: row.page_id,
    draft: row.draft === 1,
    hidden: row.hidden === 1,
    urls: publishedUrl(s, context, siteSpaceSegments(s, row)),
  };
}

export function sectionJson(s: Structure, row: SiteSectionRow, context: JsonContext) {
  return {
    object: 'site-section' as const,
    id: row.id,
    title: row.title,
    ...localized(row.localized_title),
    ...(row.description ? { description: row.description } : {}),
    ...(row.localized_description
      ? { localizedDescription: JSON.parse(row.localized_description) as Record<string, string> }
      : {}),
    default: defaultSection(s)?.id === row.id,
    draft: row.draft === 1,
    path: row.path,
    ...(row.condition ? { condition: row.condition } : {}),
    ...(row.group_id ? { sectionGroup: row.group_id } : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    siteSpaces: variantsOf(s, row.id).map((variant) => siteSpaceJson(s, variant, context)),
    urls: publishedUrl(s, context, sectionSegments(s, row)),
  };
}

export type SectionJson = ReturnType<typeof sectionJson>;

/** An external link of a site's structure (`SiteExternalLink`). */
export function externalLinkJson(row: SiteExternalLinkRow) {
  return {
    object: 'site-external-link' as const,
    id: row.id,
    title: row.title,
    ...localized(row.localized_title),
    ...(row.description ? { description: row.description } : {}),
    ...(row.localized_description
      ? { localizedDescription: JSON.parse(row.localized_description) as Record<string, string> }
      : {}),
    ...(row.icon ? { icon: row.icon } : {}),
    url: row.url,
    ...(row.group_id ? { sectionGroup: row.group_id } : {}),
    draft: row.draft === 1,
    ...(row.condition ? { condition: row.condition } : {}),
  };
}
export type ExternalLinkJson = ReturnType<typeof externalLinkJson>;
export interface GroupJson {
  object: 'site-section-group';
  id: string;
  title: string;
  localizedTitle?: Record<string, string>;
  sections: SectionJson[];
  sectionGroup?: string;
  draft: boolean;
  icon?: string;
  children: Array<SectionJson | GroupJson | ExternalLinkJson>;
}

export function groupJson(s: Structure, row: SiteSectionGroupRow, context: JsonContext): GroupJson {
  const children = childrenOf(s, row.id).map((item) => itemJson(s, item, context));
  return {
    object: 'site-section-group',
    id: row.id,
    title: row.title,
    ...localized(row.localized_title),
    sections: children.filter((child): child is SectionJson => child.object === 'site-section'),
    ...(row.parent_id ? { sectionGroup: row.parent_id } : {}),
    draft: row.draft === 1,
    ...(row.icon ? { icon: row.icon } : {}),
    children,
  };
}

function itemJson(
  s: Structure,
  item: SectionLevelItem,
  context: JsonContext,
): SectionJson | GroupJson | ExternalLinkJson {
  switch (item.type) {
    case 'site-section':
      return sectionJson(s, item.row, context);
    case 'site-section-group':
      return groupJson(s, item.row, context);
    case 'site-external-link':
      return externalLinkJson(item.row);
  }
}

export function structureJson(s: Structure, context: JsonContext) {
  if (usesSections(s))
    return { type: 'sections' as const, structure: childrenOf(s, null).map((item) => itemJson(s, item, context)) };
  return { type: 'siteSpaces' as const, structure: variantsOf(s, null).map((row) => siteSpaceJson(s, row, context)) };
}

/** The answer for one item of the structure. */
export function structureItemJson(s: Structure, pointer: ItemPointer, context: JsonContext) {
  if (pointer.type === 'site-space') return siteSpaceJson(s, requireSiteSpace(s, pointer.id), context);
  if (pointer.type === 'site-section') return sectionJson(s, requireSection(s, pointer.id), context);
  if (pointer.type === 'site-external-link') return externalLinkJson(requireExternalLink(s, pointer.id));
  return groupJson(s, requireGroup(s, pointer.id), context);
}
