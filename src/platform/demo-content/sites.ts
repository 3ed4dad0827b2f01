import type { SpaceRow } from '../rows.js';
import { insertRedirect } from '../sites/redirects.js';
import { addExternalLink } from '../sites/external-links.js';
import { DEMO_SITE_SECRETS, DEMO_SITES } from '../sites/demo.js';
import { insertSite, reloadSite } from '../sites/store.js';
import {
  addGroup,
  addSection,
  addSiteSpace,
  loadStructure,
  reloadStructure,
  requireSection,
  updateSection,
  updateSiteSpace,
  variantsOf,
} from '../sites/structure.js';
import { newId, withStableIds } from '../http.js';
import type { Db } from '../store/db.js';
import { type DemoSites, loadDemoSites } from './load.js';

/**
 * Seeds the demo sites (`sites.json`) on top of the demo spaces (`spaceIds` by title), through the sites domain as
 * an editor would build them: each site's sections (with their variants and groups) or site spaces, share links,
 * adaptive content, publication; then their creation dates, days apart; then their redirects (last, so that the
 * ids made before them stay as they were).
 */
export function seedDemoSites(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  ago: (days: number) => string,
  data: DemoSites = loadDemoSites(),
): void {
  checkNames(data);
  const space = (title: string) => {
    const row = db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceIds.get(title)) as SpaceRow | undefined;
    if (!row) throw new Error(`Demo sites name the space "${title}", which is no demo space`);
    return row;
  };
  const seeded = data.sites.map((site) => {
    const row = insertSite(db, site.org, {
      title: site.title,
      ...(site.type ? { type: site.type } : {}),
      ...(site.visibility ? { visibility: site.visibility } : {}),
    });
    if (site.basename) db.prepare('UPDATE sites SET basename = ? WHERE id = ?').run(site.basename, row.id);
    let s = loadStructure(db, reloadSite(db, row.id));
    const sections = new Map<string, string>();
    for (const section of site.sections ?? []) {
      const id = addSection(db, s, { space: space(section.space), title: section.title, icon: section.icon });
      sections.set(section.title, id);
      s = reloadStructure(db, s);
      for (const variant of section.variants ?? []) {
        addSiteSpace(db, s, {
          space: space(variant.space),
          sectionId: id,
          ...(variant.path ? { path: variant.path } : {}),
        });
        s = reloadStructure(db, s);
      }
      if (section.path) updateSiteSpace(db, s, variantsOf(s, id)[0]!, { path: section.path });
      if (section.localizedTitle)
        updateSection(db, s, requireSection(s, id), { localizedTitle: section.localizedTitle });
      if (section.path || section.localizedTitle) s = reloadStructure(db, s);
    }
    const section = (title: string) => {
      const id = sections.get(title);
      if (!id) throw new Error(`Demo site "${site.title}" names the section "${title}", which it has not`);
      return id;
    };
    const groups = new Map<string, string>();
    for (const group of site.groups ?? []) {
      groups.set(
        group.title,
        addGroup(db, s, { title: group.title, icon: group.icon, sections: group.sections.map(section) }),
      );
      s = reloadStructure(db, s);
    }
    // Ids of a sequence of their own: the links leave the ids of what is seeded after them as they were.
    withStableIds(`demo-site-links-${site.title}`, () => {
      for (const link of site.externalLinks ?? []) {
        const parent = link.group === undefined ? undefined : groups.get(link.group);
        if (link.group !== undefined && !parent)
          throw new Error(`Demo site "${site.title}" names the group "${link.group}", which it has not`);
        addExternalLink(db, s, { title: link.title, url: link.url, icon: link.icon, parent });
        s = reloadStructure(db, s);
      }
    });
    for (const siteSpace of site.siteSpaces ?? []) {
      addSiteSpace(db, s, { space: space(siteSpace.space), ...(siteSpace.path ? { path: siteSpace.path } : {}) });
      s = reloadStructure(db, s);
    }
    (site.siteSpaces ?? []).forEach((siteSpace, index) => {
      if (siteSpace.condition) updateSiteSpace(db, s, variantsOf(s, null)[index]!, { condition: siteSpace.condition });
    });
    for (const link of site.shareLinks ?? []) {
      db.prepare(
        'INSERT INTO site_share_links (id, site_id, key, name, active, created_at) VALUES (?, ?, ?, ?, 1, ?)',
      ).run(newId(), row.id, link.key, link.name, row.created_at);
    }
    if (site.adaptive) {
      db.prepare(
        'UPDATE sites SET adaptive_content = 1, adaptive_schema = ?, adaptive_schema_updated_at = ?, auth_private_key = ? WHERE id = ?',
      ).run(JSON.stringify(site.adaptive.schema), row.created_at, site.adaptive.signingKey, row.id);
    }
    if (site.published) {
      db.prepare('UPDATE sites SET published = 1, hostname = ? WHERE id = ?').run(site.hostname ?? null, row.id);
    }
    if (site.defaultContent) {
      db.prepare('UPDATE organizations SET default_content = ? WHERE id = ?').run(
        JSON.stringify({ type: 'site', site: row.id }),
        site.org,
      );
    }
    return { site, id: row.id, section };
  });
  for (const { site, id } of seeded) {
    const at = ago(site.createdDaysAgo);
    db.prepare('UPDATE sites SET created_at = ?, updated_at = ? WHERE id = ?').run(at, at, id);
  }
  for (const { site, id, section } of seeded) {
    for (const { section: title, ...redirect } of site.redirects ?? []) {
      insertRedirect(db, id, { ...redirect, destination: { kind: 'site-section', siteSectionId: section(title) } });
    }
  }
}

/** The names `DEMO_SITES` and `DEMO_SITE_SECRETS` give (tests and docs use them) must be those of the data. */
function checkNames(data: DemoSites): void {
  const titles = new Set(data.sites.map((site) => site.title));
  for (const title of Object.values(DEMO_SITES)) {
    if (!titles.has(title)) throw new Error(`DEMO_SITES names "${title}", which is no demo site`);
  }
  if (!data.sites.some((site) => site.shareLinks?.some((link) => link.key === DEMO_SITE_SECRETS.shareKey)))
    throw new Error('DEMO_SITE_SECRETS.shareKey is the key of no demo share link');
  if (!data.sites.some((site) => site.adaptive?.signingKey === DEMO_SITE_SECRETS.visitorSigningKey))
    throw new Error('DEMO_SITE_SECRETS.visitorSigningKey signs for no demo site');
}
