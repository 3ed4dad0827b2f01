import type { Access } from '../access.js';
import { badRequest, conflict, laterThan, newId, notFound, now, type PageWindow } from '../http.js';
import type { OrganizationRow, SpaceRow } from '../rows.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { slugify } from '../../document/model.js';
import { SITE_TYPES, SITE_VISIBILITIES } from '../contract/enums.js';

/**
 * Docs sites as stored. A site is created unpublished, of type `basic`, with a basename derived
 * from its title and unique in its organization; its structure (site spaces, sections, section
 * groups) lives in `structure.ts`.
 */

export { SITE_TYPES, SITE_VISIBILITIES };

export interface SiteRow {
  id: string;
  org_id: string;
  type: (typeof SITE_TYPES)[number];
  title: string;
  visibility: (typeof SITE_VISIBILITIES)[number];
  hostname: string | null;
  basename: string;
  proxy: string | null;
  default_level: string;
  published: number;
  adaptive_content: number;
  default_site_space: string | null;
  default_site_section: string | null;
  created_at: string;
  updated_at: string;
  auth_backend: 'custom' | 'integration';
  auth_private_key: string | null;
  auth_public_key: string | null;
  auth_fallback_url: string | null;
  auth_logout_url: string | null;
  adaptive_schema: string | null;
  adaptive_schema_updated_at: string | null;
}

/** A site of an organization, or a 404. */
export function requireSite(db: Db, orgId: string, siteId: string): SiteRow {
  const site = db.prepare('SELECT * FROM sites WHERE id = ? AND org_id = ?').get(siteId, orgId) as SiteRow | undefined;
  if (!site) throw notFound('Site');
  return site;
}

export function reloadSite(db: Db, siteId: string): SiteRow {
  return db.prepare('SELECT * FROM sites WHERE id = ?').get(siteId) as SiteRow;
}

/** A basename of the organization no other site has, from `wanted` (`-2`, `-3`, … appended). */
export function freeBasename(db: Db, orgId: string, wanted: string): string {
  const taken = new Set(
    db.prepare('SELECT lower(basename) FROM sites WHERE org_id = ?').pluck(true).all(orgId) as string[],
  );
  const base = (slugify(wanted) || 'site').slice(0, 90);
  let name = base;
  for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base}-${n}`;
  return name;
}

/** Refuses a basename another site of the organization has (compared without case, as URLs are). */
export function requireFreeBasename(db: Db, orgId: string, basename: string, except: string): void {
  const other = db
    .prepare('SELECT id FROM sites WHERE org_id = ? AND lower(basename) = lower(?) AND id <> ?')
    .get(orgId, basename, except);
  if (other) throw conflict(`Another site of the organization already has the basename "${basename}"`);
}

/** Creates an unpublished site; returns its row. */
export function insertSite(
  db: Db,
  orgId: string,
  fields: { type?: SiteRow['type']; title?: string; visibility?: SiteRow['visibility'] },
): SiteRow {
  const at = now();
  const id = newId();
  const title = fields.title ?? 'Untitled site';
  db.prepare(
    `INSERT INTO sites (id, org_id, type, title, visibility, basename, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    orgId,
    fields.type ?? 'basic',
    title,
    fields.visibility ?? 'public',
    freeBasename(db, orgId, title),
    at,
    at,
  );
  return reloadSite(db, id);
}

/** Deletes a site; an organization whose default content it was no longer has one. */
export function deleteSite(db: Db, orgId: string, siteId: string): boolean {
  return db.transaction(() => {
    const { changes } = db.prepare('DELETE FROM sites WHERE id = ? AND org_id = ?').run(siteId, orgId);
    if (changes > 0) {
      db.prepare(
        "UPDATE organizations SET default_content = NULL WHERE id = ? AND json_extract(default_content, '$.site') = ?",
      ).run(orgId, siteId);
    }
    return changes > 0;
  })();
}

export function touchSite(db: Db, siteId: string): void {
  const at = db.prepare('SELECT updated_at FROM sites WHERE id = ?').pluck(true).get(siteId) as string | undefined;
  if (at) db.prepare('UPDATE sites SET updated_at = ? WHERE id = ?').run(laterThan(at), siteId);
}

/** The stored proxy of a site: the public origin and the address the platform serves it from. */
export function proxyOf(site: Pick<SiteRow, 'proxy'>): { origin: string; target: string } | null {
  return site.proxy ? (JSON.parse(site.proxy) as { origin: string; target: string }) : null;
}

/**
 * The root address of a site as readers reach it, ending with `/`: its custom hostname, its proxy
 * origin, or the organization's published address with the site's basename.
 */
export function siteRootUrl(site: SiteRow, org: OrganizationRow, links: Links): string {
  if (site.hostname) return `https://${site.hostname}/`;
  const proxy = proxyOf(site);
  if (proxy) return `https://${proxy.origin}/`;
  return `${links.published}/${encodeURIComponent(org.hostname ?? org.id)}/${encodeURIComponent(site.basename)}/`;
}

/** Where a visitor of a visitor-auth site signs in (and out): under the site's own address. */
export function siteLoginUrl(
  site: SiteRow,
  org: OrganizationRow,
  links: Links,
  action: 'login' | 'logout' = 'login',
): string {
  return `${siteRootUrl(site, org, links)}~gitbook/auth/${action}`;
}

/** A space of the organization the caller can read, or a 400 naming `field`. */
export function requireOrgSpace(db: Db, access: Access, orgId: string, spaceId: string, field: string): SpaceRow {
  const space = db.prepare('SELECT * FROM spaces WHERE id = ? AND deleted_at IS NULL').get(spaceId) as
    | SpaceRow
    | undefined;
  if (!space || space.org_id !== orgId || access.spaceRole(space) === null) {
    throw badRequest(`Invalid body field "${field}": no space ${spaceId} in the organization`);
  }
  return space;
}

/** The site spaces of a site whose space is not deleted. */
export function countSiteSpaces(db: Db, siteId: string): number {
  return db
    .prepare(
      'SELECT COUNT(*) FROM site_spaces ss JOIN spaces s ON s.id = ss.space_id WHERE ss.site_id = ? AND s.deleted_at IS NULL',
    )
    .pluck(true)
    .get(siteId) as number;
}

export function findSite(db: Db, orgId: string, siteId: string): SiteRow | undefined {
  return db.prepare('SELECT * FROM sites WHERE id = ? AND org_id = ?').get(siteId, orgId) as SiteRow | undefined;
}

export function findSiteById(db: Db, siteId: string): SiteRow | undefined {
  return db.prepare('SELECT * FROM sites WHERE id = ?').get(siteId) as SiteRow | undefined;
}

export interface SiteFilter {
  /** Sites showing this space. */
  space?: string | undefined;
  /** Part of the title, any case. */
  title?: string | undefined;
  published?: boolean | undefined;
  type?: string | string[] | undefined;
}

/** One page of the sites of an organization, oldest first, and their count. */
export function listSites(
  db: Db,
  orgId: string,
  filter: SiteFilter,
  window: PageWindow,
): { rows: SiteRow[]; count: number } {
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  if (filter.space) {
    where.push('id IN (SELECT site_id FROM site_spaces WHERE space_id = ?)');
    params.push(filter.space);
  }
  if (filter.title) {
    where.push("lower(title) LIKE lower(?) ESCAPE '\\'");
    params.push(`%${filter.title.replace(/[\\%_]/g, '\\$&')}%`);
  }
  if (filter.published !== undefined) {
    where.push('published = ?');
    params.push(filter.published ? 1 : 0);
  }
  if (filter.type) {
    const types = [filter.type].flat();
    where.push(`type IN (${types.map(() => '?').join(', ')})`);
    params.push(...types);
  }
  const count = db
    .prepare(`SELECT COUNT(*) FROM sites WHERE ${where.join(' AND ')}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM sites WHERE ${where.join(' AND ')} ORDER BY created_at, id LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as SiteRow[];
  return { rows, count };
}

/** Whether a site other than `except` has this custom hostname. */
export function hostnameTakenBySite(db: Db, hostname: string, except: string): boolean {
  return db.prepare('SELECT 1 FROM sites WHERE hostname = ? AND id <> ?').get(hostname, except) !== undefined;
}

/** Whether a site other than `except` is served through a proxy at this origin (lowercase). */
export function proxyOriginTaken(db: Db, origin: string, except: string): boolean {
  return (
    db
      .prepare("SELECT 1 FROM sites WHERE lower(json_extract(proxy, '$.origin')) = ? AND id <> ?")
      .get(origin, except) !== undefined
  );
}

/** Writes the defined entries of `columns` to a site (`null` clears a column). */
export function updateSiteColumns(db: Db, siteId: string, columns: Record<string, unknown>): void {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  db.prepare(`UPDATE sites SET ${entries.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
    ...entries.map(([, value]) => value),
    siteId,
  );
}

/** The page a site space opens on, if it sets one. */
export function siteSpaceHomePage(db: Db, siteSpaceId: string): string | null {
  return (
    (db.prepare('SELECT page_id FROM site_spaces WHERE id = ?').pluck(true).get(siteSpaceId) as string | null) ?? null
  );
}
