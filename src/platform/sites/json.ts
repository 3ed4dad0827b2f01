import { atLeast, type Role } from '../access.js';
import type { Links } from '../links.js';
import type { OrganizationRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { countSiteSpaces, proxyOf, siteLoginUrl, siteRootUrl, type SiteRow } from './store.js';
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
