import type { SpaceRow } from '../rows.js';
import { defaultCustomization, writeSiteCustomization, writeSiteSpaceOverrides } from '../sites/customization.js';
import { insertRedirect } from '../sites/redirects.js';
import { addExternalLink } from '../sites/external-links.js';
import { DEMO_SITE_SECRETS, DEMO_SITES } from '../sites/demo.js';
import { insertSite, reloadSite, type SiteRow } from '../sites/store.js';
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

/**
 * Seeds the customization of the demo sites that have one (`sites.json`), after the custom fonts it names: the
 * site's settings over the defaults, and its site spaces' overrides. Spaces are named by title, fonts by family.
 */
export function seedDemoCustomizations(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  data: DemoSites = loadDemoSites(),
): void {
  for (const site of data.sites) {
    if (!site.customization) continue;
    const row = db.prepare('SELECT * FROM sites WHERE org_id = ? AND title = ?').get(site.org, site.title) as
      | SiteRow
      | undefined;
    if (!row) throw new Error(`No demo site "${site.title}"`);
    const resolve = (value: unknown, key?: string): unknown => {
      if (Array.isArray(value)) return value.map((item) => resolve(item));
      if (!value || typeof value !== 'object') return value;
      const object = value as Record<string, unknown>;
      if (typeof object.customFont === 'string') {
        const id = db
          .prepare('SELECT id FROM custom_fonts WHERE org_id = ? AND font_family = ?')
          .pluck(true)
          .get(site.org, object.customFont) as string | undefined;
        if (!id)
          throw new Error(`Demo site "${site.title}" names the font "${object.customFont}", which is no demo font`);
        return { id, custom: true, fontFamily: object.customFont, fontFaces: [] };
      }
      const out = Object.fromEntries(Object.entries(object).map(([k, v]) => [k, resolve(v, k)]));
      if (key === 'to' && typeof out.space === 'string') {
        const id = spaceIds.get(out.space);
        if (!id) throw new Error(`Demo site "${site.title}" names the space "${out.space}", which is no demo space`);
        out.space = id;
      }
      return out;
    };
    const { title: _, ...defaults } = defaultCustomization(row);
    const given = resolve(site.customization.settings) as Record<string, Record<string, unknown>>;
    const settings: Record<string, unknown> = { ...defaults };
    for (const [key, value] of Object.entries(given)) {
      const before = defaults[key];
      settings[key] =
        before && typeof before === 'object' && !Array.isArray(before) && !Array.isArray(value)
          ? { ...before, ...value }
          : value;
    }
    writeSiteCustomization(db, row.id, settings, row.created_at);
    const s = loadStructure(db, row);
    for (const [title, overrides] of Object.entries(site.customization.siteSpaces ?? {})) {
      const siteSpace = s.siteSpaces.find((item) => item.space_id === spaceIds.get(title));
      if (!siteSpace) throw new Error(`Demo site "${site.title}" has no site space of "${title}"`);
      writeSiteSpaceOverrides(db, row.id, siteSpace.id, resolve(overrides) as Record<string, unknown>, row.created_at);
    }
  }
}
