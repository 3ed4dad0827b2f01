import { badRequest, conflict, newId, notFound, notFoundInBody, now } from '../http.js';
import type { SpaceRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { slugify } from '../../document/model.js';
import { loadRevision } from '../content/revisions.js';
import { pageIndex } from '../content/pages.js';
import { reloadSite, touchSite, type SiteRow } from './store.js';

/**
 * The structure of a docs site. A site lists its site spaces at its root, or uses sections
 * (each holding one or more site spaces, its variants), optionally inside section groups, which
 * nest; never both. Sections and groups share one order per parent; site spaces one order per
 * section (or the root). Every level with items has exactly one default: the stored one while it
 * exists, else the first in order, so deleting a default always leaves a valid one.
 *
 * Site spaces whose space is deleted drop out of the structure and come back with it.
 *
 * External links (a title and an http(s) address) sit among the sections and groups of a
 * sectioned site, at its root or in a group, in the same order; they hold nothing.
 */

// A link's group is moved out by `removeGroup` before the group goes; `SET NULL` only covers a
// group deleted otherwise (with its site, when the link goes too).
declareTables('site-external-links', [
  `
  CREATE TABLE IF NOT EXISTS site_external_links (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    group_id TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
    title TEXT NOT NULL,
    localized_title TEXT,
    description TEXT,
    localized_description TEXT,
    icon TEXT,
    url TEXT NOT NULL,
    condition TEXT,
    draft INTEGER NOT NULL DEFAULT 0 CHECK (draft IN (0, 1)),
    position INTEGER NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS site_external_links_by_site ON site_external_links(site_id, group_id);
  `,
]);

export interface SiteSpaceRow {
  id: string;
  site_id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  condition: string | null;
  hidden: number;
  draft: number;
  page_id: string | null;
  position: number;
  created_at: string;
}

export interface SiteSectionRow {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  localized_title: string | null;
  description: string | null;
  localized_description: string | null;
  path: string;
  icon: string | null;
  condition: string | null;
  draft: number;
  default_site_space: string | null;
  position: number;
  created_at: string;
}

export interface SiteSectionGroupRow {
  id: string;
  site_id: string;
  parent_id: string | null;
  title: string;
  localized_title: string | null;
  icon: string | null;
  draft: number;
  position: number;
  created_at: string;
}

export interface SiteExternalLinkRow {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  localized_title: string | null;
  description: string | null;
  localized_description: string | null;
  icon: string | null;
  url: string;
  condition: string | null;
  draft: number;
  position: number;
  created_at: string;
}

export type StructureItemType = 'site-space' | 'site-section' | 'site-section-group' | 'site-external-link';

/** A child of the site's root or of a section group, in a sections structure. */
export type SectionLevelItem =
  | { type: 'site-section'; row: SiteSectionRow }
  | { type: 'site-section-group'; row: SiteSectionGroupRow }
  | { type: 'site-external-link'; row: SiteExternalLinkRow };

/** Everything of one site's structure, read at once. */
export interface Structure {
  site: SiteRow;
  sections: SiteSectionRow[];
  groups: SiteSectionGroupRow[];
  links: SiteExternalLinkRow[];
  /** Site spaces whose space is not deleted. */
  siteSpaces: SiteSpaceRow[];
  spaces: Map<string, SpaceRow>;
}

const byOrder = (
  a: { position: number; created_at: string; id: string },
  b: { position: number; created_at: string; id: string },
) => a.position - b.position || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);

export function loadStructure(db: Db, site: SiteRow): Structure {
  const sections = (db.prepare('SELECT * FROM site_sections WHERE site_id = ?').all(site.id) as SiteSectionRow[]).sort(
    byOrder,
  );
  const groups = (
    db.prepare('SELECT * FROM site_section_groups WHERE site_id = ?').all(site.id) as SiteSectionGroupRow[]
  ).sort(byOrder);
  const links = (
    db.prepare('SELECT * FROM site_external_links WHERE site_id = ?').all(site.id) as SiteExternalLinkRow[]
  ).sort(byOrder);
  const spaceRows = db
    .prepare(
      'SELECT s.* FROM spaces s WHERE s.deleted_at IS NULL AND s.id IN (SELECT space_id FROM site_spaces WHERE site_id = ?)',
    )
    .all(site.id) as SpaceRow[];
  const spaces = new Map(spaceRows.map((space) => [space.id, space]));
  const siteSpaces = (db.prepare('SELECT * FROM site_spaces WHERE site_id = ?').all(site.id) as SiteSpaceRow[])
    .filter((row) => spaces.has(row.space_id))
    .sort(byOrder);
  return { site, sections, groups, links, siteSpaces, spaces };
}

export const usesSections = (s: Structure) => s.sections.length > 0 || s.groups.length > 0 || s.links.length > 0;

/** The sections, groups and external links directly under a group (`null`: the root), in order. */
export function childrenOf(s: Structure, groupId: string | null): SectionLevelItem[] {
  const items: Array<SectionLevelItem & { order: SectionLevelItem['row'] }> = [
    ...s.sections
      .filter((row) => row.group_id === groupId)
      .map((row) => ({ type: 'site-section' as const, row, order: row })),
    ...s.groups
      .filter((row) => row.parent_id === groupId)
      .map((row) => ({ type: 'site-section-group' as const, row, order: row })),
    ...s.links
      .filter((row) => row.group_id === groupId)
      .map((row) => ({ type: 'site-external-link' as const, row, order: row })),
  ];
  return items.sort((a, b) => byOrder(a.order, b.order)).map(({ type, row }) => ({ type, row }) as SectionLevelItem);
}

/** Every section, depth first in display order. */
export function orderedSections(s: Structure): SiteSectionRow[] {
  const out: SiteSectionRow[] = [];
  const walk = (groupId: string | null) => {
    for (const item of childrenOf(s, groupId)) {
      if (item.type === 'site-section') out.push(item.row);
      else if (item.type === 'site-section-group') walk(item.row.id);
    }
  };
  walk(null);
  return out;
}

export function defaultSection(s: Structure): SiteSectionRow | undefined {
  return s.sections.find((row) => row.id === s.site.default_site_section) ?? orderedSections(s)[0];
}

/** The site spaces of a section (`null`: the root of a site without sections), in order. */
export function variantsOf(s: Structure, sectionId: string | null): SiteSpaceRow[] {
  return s.siteSpaces.filter((row) => row.section_id === sectionId);
}

/** The default site space of a section (`null`: of the site's root). */
export function defaultVariant(s: Structure, sectionId: string | null): SiteSpaceRow | undefined {
  const variants = variantsOf(s, sectionId);
  const stored =
    sectionId === null ? s.site.default_site_space : s.sections.find((row) => row.id === sectionId)?.default_site_space;
  return variants.find((row) => row.id === stored) ?? variants[0];
}

/**
 * The path segments of a site space under the site's root, as readers' URLs have them: the
 * default variant of the default section is the root; a section's default variant is the
 * section's path; any other variant adds its own path.
 */
export function siteSpaceSegments(s: Structure, row: SiteSpaceRow): string[] {
  const isDefaultVariant = defaultVariant(s, row.section_id)?.id === row.id;
  if (row.section_id === null) return isDefaultVariant ? [] : [row.path];
  const section = s.sections.find((item) => item.id === row.section_id)!;
  const isDefaultSection = defaultSection(s)?.id === section.id;
  if (isDefaultVariant) return isDefaultSection ? [] : [section.path];
  return [section.path, row.path];
}

export function sectionSegments(s: Structure, row: SiteSectionRow): string[] {
  return defaultSection(s)?.id === row.id ? [] : [row.path];
}

// ---------------------------------------------------------------------------------------------
// Lookups
// ---------------------------------------------------------------------------------------------

const ITEM_NAMES = {
  'site-space': 'Site space',
  'site-section': 'Site section',
  'site-section-group': 'Site section group',
  'site-external-link': 'Site external link',
};

function rowsOf(s: Structure, type: StructureItemType): ReadonlyArray<{ id: string }> {
  switch (type) {
    case 'site-space':
      return s.siteSpaces;
    case 'site-section':
      return s.sections;
    case 'site-section-group':
      return s.groups;
    case 'site-external-link':
      return s.links;
  }
}

/** Checks that the item a request body names (in its `field`) is in the structure: a 404 naming the field otherwise. */
export function requireItem(s: Structure, item: ItemPointer, field: string): void {
  if (!rowsOf(s, item.type).some((row) => row.id === item.id))
    throw notFoundInBody(ITEM_NAMES[item.type], field, item.id);
}

export function requireSiteSpace(s: Structure, id: string): SiteSpaceRow {
  const row = s.siteSpaces.find((item) => item.id === id);
  if (!row) throw notFound('Site space');
  return row;
}

export function requireSection(s: Structure, id: string): SiteSectionRow {
  const row = s.sections.find((item) => item.id === id);
  if (!row) throw notFound('Site section');
  return row;
}

export function requireGroup(s: Structure, id: string): SiteSectionGroupRow {
  const row = s.groups.find((item) => item.id === id);
  if (!row) throw notFound('Site section group');
  return row;
}

export function requireExternalLink(s: Structure, id: string): SiteExternalLinkRow {
  const row = s.links.find((item) => item.id === id);
  if (!row) throw notFound('Site external link');
  return row;
}

/** A section or group named in a body, or a 400 naming `field`. */
function sectionInBody(s: Structure, id: string, field: string): SiteSectionRow {
  const row = s.sections.find((item) => item.id === id);
  if (!row) throw badRequest(`Invalid body field "${field}": no section ${id} in the site`);
  return row;
}

export function groupInBody(s: Structure, id: string, field: string): SiteSectionGroupRow {
  const row = s.groups.find((item) => item.id === id);
  if (!row) throw badRequest(`Invalid body field "${field}": no section group ${id} in the site`);
  return row;
}

/** Refuses a custom home page that is not a document page of the space's current content. */
export function requireHomePage(db: Db, space: SpaceRow, pageId: string, field: string): void {
  const revision = loadRevision(db, space.id, space.revision);
  const placed = revision ? pageIndex(revision.content).byId.get(pageId) : undefined;
  if (placed?.page.type !== 'document') {
    throw badRequest(`Invalid body field "${field}": no document page ${pageId} in space ${space.id}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Writes (each in one transaction; the caller reloads the structure after)
// ---------------------------------------------------------------------------------------------

/** Lower-cased paths taken among the site spaces of a section (or the root), but `except`. */
function takenVariantPaths(db: Db, siteId: string, sectionId: string | null, except?: string): Set<string> {
  const rows = db
    .prepare('SELECT path FROM site_spaces WHERE site_id = ? AND section_id IS ? AND id IS NOT ?')
    .pluck(true)
    .all(siteId, sectionId, except ?? null) as string[];
  return new Set(rows.map((path) => path.toLowerCase()));
}

function takenSectionPaths(db: Db, siteId: string, except?: string): Set<string> {
  const rows = db
    .prepare('SELECT path FROM site_sections WHERE site_id = ? AND id IS NOT ?')
    .pluck(true)
    .all(siteId, except ?? null) as string[];
  return new Set(rows.map((path) => path.toLowerCase()));
}

function freePath(taken: Set<string>, wanted: string, fallback: string): string {
  const base = (slugify(wanted) || fallback).slice(0, 90);
  let path = base;
  for (let n = 2; taken.has(path.toLowerCase()); n += 1) path = `${base}-${n}`;
  return path;
}

function endOf(db: Db, table: (typeof TABLES)[StructureItemType], where: string, ...params: unknown[]): number {
  const max = db
    .prepare(`SELECT MAX(position) FROM ${table} WHERE ${where}`)
    .pluck(true)
    .get(...params) as number | null;
  return max === null ? 0 : max + 1;
}

/** The next position among the sections, groups and links under `groupId` (`null`: the root). */
export function endOfSectionLevel(db: Db, siteId: string, groupId: string | null): number {
  return Math.max(
    endOf(db, 'site_sections', 'site_id = ? AND group_id IS ?', siteId, groupId),
    endOf(db, 'site_section_groups', 'site_id = ? AND parent_id IS ?', siteId, groupId),
    endOf(db, 'site_external_links', 'site_id = ? AND group_id IS ?', siteId, groupId),
  );
}

export interface NewSiteSpace {
  space: SpaceRow;
  path?: string;
  sectionId?: string;
  draft?: boolean;
  pageId?: string;
}

/**
 * Adds a space to a site: at the root of a site without sections, else to the given section or
 * the default one. The first site space of a level becomes its default.
 */
export function addSiteSpace(db: Db, s: Structure, input: NewSiteSpace): string {
  let sectionId: string | null = null;
  if (usesSections(s)) {
    const section = input.sectionId ? sectionInBody(s, input.sectionId, 'sectionId') : defaultSection(s);
    if (!section)
      throw badRequest(
        'Invalid body field "sectionId": the site has section groups but no section to add the space to',
      );
    sectionId = section.id;
  } else if (input.sectionId) {
    throw badRequest('Invalid body field "sectionId": the site has no sections');
  }
  return db.transaction(() => insertSiteSpace(db, s.site, sectionId, input))();
}

function insertSiteSpace(db: Db, site: SiteRow, sectionId: string | null, input: NewSiteSpace): string {
  const taken = takenVariantPaths(db, site.id, sectionId);
  if (input.path !== undefined && taken.has(input.path.toLowerCase())) {
    throw conflict(
      `Another site space ${sectionId ? 'of the section' : 'of the site'} already has the path "${input.path}"`,
    );
  }
  const id = newId();
  db.prepare(
    `INSERT INTO site_spaces (id, site_id, section_id, space_id, path, draft, page_id, position, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    site.id,
    sectionId,
    input.space.id,
    input.path ?? freePath(taken, input.space.title, 'space'),
    input.draft ? 1 : 0,
    input.pageId ?? null,
    endOf(db, 'site_spaces', 'site_id = ? AND section_id IS ?', site.id, sectionId),
    now(),
  );
  written(db, site.id);
  return id;
}

export interface SiteSpaceChanges {
  path?: string;
  condition?: string | null;
  hidden?: boolean;
  draft?: boolean;
  space?: SpaceRow;
  pageId?: string | null;
}

export function updateSiteSpace(db: Db, s: Structure, row: SiteSpaceRow, changes: SiteSpaceChanges): void {
  if (
    changes.path !== undefined &&
    takenVariantPaths(db, s.site.id, row.section_id, row.id).has(changes.path.toLowerCase())
  ) {
    throw conflict(
      `Another site space ${row.section_id ? 'of the section' : 'of the site'} already has the path "${changes.path}"`,
    );
  }
  const columns: Record<string, unknown> = {
    path: changes.path,
    space_id: changes.space?.id,
    hidden: changes.hidden === undefined ? undefined : Number(changes.hidden),
    draft: changes.draft === undefined ? undefined : Number(changes.draft),
    // Left out, these stay; null (or an empty condition) removes them.
    condition: changes.condition === undefined ? undefined : changes.condition?.trim() || null,
    page_id: changes.pageId,
  };
  // A new space without a new home page: the old one belongs to the old space.
  if (changes.space && changes.space.id !== row.space_id && changes.pageId === undefined) columns.page_id = null;
  setColumns(db, 'site_spaces', row.id, columns);
  written(db, s.site.id);
}

/**
 * Removes a site space. The only variant of a section cannot go (the section would be empty):
 * delete the section instead.
 */
export function removeSiteSpace(db: Db, s: Structure, id: string): boolean {
  const row = db.prepare('SELECT * FROM site_spaces WHERE id = ? AND site_id = ?').get(id, s.site.id) as
    | SiteSpaceRow
    | undefined;
  if (!row) return false;
  if (row.section_id && variantsOf(s, row.section_id).every((variant) => variant.id === row.id)) {
    throw conflict('This site space is the only one of its section: delete the section instead');
  }
  db.transaction(() => {
    db.prepare('DELETE FROM site_spaces WHERE id = ?').run(row.id);
    written(db, s.site.id);
  })();
  return true;
}

export interface NewSection {
  space: SpaceRow;
  title?: string | null;
  icon?: string | null;
  draft?: boolean;
  pageId?: string;
  groupId?: string;
}

/**
 * Adds a section holding one site space. On a site that lists site spaces at its root, those
 * first move into a section of their own (titled after the site, and the default one), so the
 * site never mixes both structures.
 */
export function addSection(db: Db, s: Structure, input: NewSection): string {
  const group = input.groupId ? groupInBody(s, input.groupId, 'siteSectionGroupId') : null;
  return db.transaction(() => {
    if (!usesSections(s) && s.siteSpaces.length > 0) {
      const wrapper = insertSection(db, s.site, { title: sectionTitle(s.site.title), groupId: null });
      db.prepare('UPDATE site_spaces SET section_id = ? WHERE site_id = ? AND section_id IS NULL').run(
        wrapper,
        s.site.id,
      );
      db.prepare('UPDATE site_sections SET default_site_space = ? WHERE id = ?').run(
        defaultVariant(s, null)?.id ?? null,
        wrapper,
      );
      db.prepare('UPDATE sites SET default_site_section = ?, default_site_space = NULL WHERE id = ?').run(
        wrapper,
        s.site.id,
      );
    }
    const title = input.title ?? sectionTitle(input.space.title);
    const id = insertSection(db, s.site, {
      title,
      icon: input.icon ?? null,
      draft: input.draft,
      groupId: group?.id ?? null,
    });
    insertSiteSpace(db, s.site, id, { space: input.space, draft: input.draft, pageId: input.pageId });
    return id;
  })();
}

/** A section title (2 to 128 characters) from another title. */
function sectionTitle(from: string): string {
  const title = from.trim().slice(0, 128);
  return title.length >= 2 ? title : 'Section';
}

function insertSection(
  db: Db,
  site: SiteRow,
  fields: { title: string; icon?: string | null; draft?: boolean; groupId: string | null },
): string {
  const id = newId();
  db.prepare(
    `INSERT INTO site_sections (id, site_id, group_id, title, path, icon, draft, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    site.id,
    fields.groupId,
    fields.title,
    freePath(takenSectionPaths(db, site.id), fields.title, 'section'),
    fields.icon ?? null,
    fields.draft ? 1 : 0,
    endOfSectionLevel(db, site.id, fields.groupId),
    now(),
  );
  written(db, site.id);
  return id;
}

export interface SectionChanges {
  title?: string;
  localizedTitle?: Record<string, string>;
  description?: string | null;
  localizedDescription?: Record<string, string>;
  path?: string;
  icon?: string | null;
  condition?: string | null;
  draft?: boolean;
  defaultSiteSpace?: string;
  groupId?: string | null;
}

export function updateSection(db: Db, s: Structure, row: SiteSectionRow, changes: SectionChanges): void {
  if (changes.path !== undefined && takenSectionPaths(db, s.site.id, row.id).has(changes.path.toLowerCase())) {
    throw conflict(`Another section of the site already has the path "${changes.path}"`);
  }
  if (
    changes.defaultSiteSpace !== undefined &&
    !variantsOf(s, row.id).some((variant) => variant.id === changes.defaultSiteSpace)
  ) {
    throw badRequest(`Invalid body field "defaultSiteSpace": no site space ${changes.defaultSiteSpace} in the section`);
  }
  const group =
    changes.groupId === undefined || changes.groupId === null
      ? changes.groupId
      : groupInBody(s, changes.groupId, 'siteSectionGroupId');
  db.transaction(() => {
    const moved = group !== undefined && (group?.id ?? null) !== row.group_id;
    setColumns(db, 'site_sections', row.id, {
      title: changes.title,
      localized_title: changes.localizedTitle === undefined ? undefined : JSON.stringify(changes.localizedTitle),
      description: changes.description === undefined ? undefined : changes.description || null,
      localized_description:
        changes.localizedDescription === undefined ? undefined : JSON.stringify(changes.localizedDescription),
      path: changes.path,
      icon: changes.icon,
      condition: changes.condition === undefined ? undefined : changes.condition?.trim() || null,
      draft: changes.draft === undefined ? undefined : Number(changes.draft),
      default_site_space: changes.defaultSiteSpace,
      // Moved to another group (or the root), it goes last there.
      group_id: moved ? (group?.id ?? null) : undefined,
      position: moved ? endOfSectionLevel(db, s.site.id, group?.id ?? null) : undefined,
    });
    written(db, s.site.id);
  })();
}

/** Removes a section and its site spaces; the next section becomes the default if it was. */
export function removeSection(db: Db, s: Structure, id: string): boolean {
  return db.transaction(() => {
    const { changes } = db.prepare('DELETE FROM site_sections WHERE id = ? AND site_id = ?').run(id, s.site.id);
    if (changes > 0) written(db, s.site.id);
    return changes > 0;
  })();
}

export interface NewGroup {
  title: string;
  icon?: string | null;
  draft?: boolean;
  parentId?: string;
  sections?: string[];
}

/** Adds a section group (sections listed in `sections` move into it, in that order). */
export function addGroup(db: Db, s: Structure, input: NewGroup): string {
  if (!usesSections(s) && s.siteSpaces.length > 0) {
    throw badRequest('The site lists its site spaces without sections: add a section before grouping sections');
  }
  const parent = input.parentId ? groupInBody(s, input.parentId, 'parent') : null;
  const sections = (input.sections ?? []).map((id, index) => sectionInBody(s, id, `sections.${index}`));
  return db.transaction(() => {
    const id = newId();
    db.prepare(
      `INSERT INTO site_section_groups (id, site_id, parent_id, title, icon, draft, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      s.site.id,
      parent?.id ?? null,
      input.title,
      input.icon ?? null,
      input.draft ? 1 : 0,
      endOfSectionLevel(db, s.site.id, parent?.id ?? null),
      now(),
    );
    sections.forEach((section, index) => {
      db.prepare('UPDATE site_sections SET group_id = ?, position = ? WHERE id = ?').run(id, index, section.id);
    });
    written(db, s.site.id);
    return id;
  })();
}

export interface GroupChanges {
  title?: string;
  localizedTitle?: Record<string, string>;
  icon?: string | null;
  draft?: boolean;
  parentId?: string | null;
}

export function updateGroup(db: Db, s: Structure, row: SiteSectionGroupRow, changes: GroupChanges): void {
  const parent =
    changes.parentId === undefined || changes.parentId === null
      ? changes.parentId
      : groupInBody(s, changes.parentId, 'parentSectionGroupId');
  if (parent) {
    // A group cannot go into itself or into one of its own descendants.
    for (
      let at: SiteSectionGroupRow | undefined = parent;
      at;
      at = s.groups.find((group) => group.id === at!.parent_id)
    ) {
      if (at.id === row.id)
        throw badRequest(
          'Invalid body field "parentSectionGroupId": a group cannot be nested inside itself or its own groups',
        );
    }
  }
  db.transaction(() => {
    const moved = parent !== undefined && (parent?.id ?? null) !== row.parent_id;
    setColumns(db, 'site_section_groups', row.id, {
      title: changes.title,
      localized_title: changes.localizedTitle === undefined ? undefined : JSON.stringify(changes.localizedTitle),
      icon: changes.icon,
      draft: changes.draft === undefined ? undefined : Number(changes.draft),
      parent_id: moved ? (parent?.id ?? null) : undefined,
      position: moved ? endOfSectionLevel(db, s.site.id, parent?.id ?? null) : undefined,
    });
    written(db, s.site.id);
  })();
}

/** Removes a group; its sections and groups take its place in its parent, in their order. */
export function removeGroup(db: Db, s: Structure, id: string): boolean {
  const row = s.groups.find((group) => group.id === id);
  if (!row) return false;
  db.transaction(() => {
    const siblings = childrenOf(s, row.parent_id);
    const children = childrenOf(s, row.id);
    const order = siblings.flatMap((item) =>
      item.type === 'site-section-group' && item.row.id === row.id ? children : [item],
    );
    for (const item of children) {
      const column = item.type === 'site-section-group' ? 'parent_id' : 'group_id';
      db.prepare(`UPDATE ${TABLES[item.type]} SET ${column} = ? WHERE id = ?`).run(row.parent_id, item.row.id);
    }
    db.prepare('DELETE FROM site_section_groups WHERE id = ?').run(row.id);
    renumber(
      db,
      order.map((item) => ({ type: item.type, id: item.row.id })),
    );
    written(db, s.site.id);
  })();
  return true;
}

// ---------------------------------------------------------------------------------------------
// Order
// ---------------------------------------------------------------------------------------------

export interface ItemPointer {
  type: StructureItemType;
  id: string;
}

export interface ItemPosition {
  before?: ItemPointer;
  after?: ItemPointer;
}

const TABLES = {
  'site-space': 'site_spaces',
  'site-section': 'site_sections',
  'site-section-group': 'site_section_groups',
  'site-external-link': 'site_external_links',
} as const satisfies Record<StructureItemType, string>;

function renumber(db: Db, order: ItemPointer[]): void {
  order.forEach((item, index) => {
    db.prepare(`UPDATE ${TABLES[item.type]} SET position = ? WHERE id = ?`).run(index, item.id);
  });
}

/** The siblings of an item (itself included), in order, or a 404 when there is no such item. */
function siblingsOf(s: Structure, item: ItemPointer): ItemPointer[] {
  if (item.type === 'site-space') {
    const row = requireSiteSpace(s, item.id);
    return variantsOf(s, row.section_id).map((variant) => ({ type: 'site-space', id: variant.id }));
  }
  const parent =
    item.type === 'site-section'
      ? requireSection(s, item.id).group_id
      : item.type === 'site-external-link'
        ? requireExternalLink(s, item.id).group_id
        : requireGroup(s, item.id).parent_id;
  return childrenOf(s, parent).map((child) => ({ type: child.type, id: child.row.id }));
}

const same = (a: ItemPointer, b: ItemPointer) => a.type === b.type && a.id === b.id;

/**
 * Moves an item among its siblings: right before or after another sibling, or last without a
 * position. A pointer that is not a sibling, or the item itself, is a 400.
 */
export function moveItem(db: Db, s: Structure, item: ItemPointer, position: ItemPosition = {}): void {
  const siblings = siblingsOf(s, item);
  if (position.before && position.after) throw badRequest('Invalid move position: give "before" or "after", not both');
  const anchor = position.before ?? position.after;
  const rest = siblings.filter((sibling) => !same(sibling, item));
  let index = rest.length;
  if (anchor) {
    const at = rest.findIndex((sibling) => same(sibling, anchor));
    if (at < 0) {
      throw badRequest(
        same(anchor, item)
          ? 'Invalid move position: an item cannot be placed next to itself'
          : `Invalid move position: ${anchor.type} ${anchor.id} is not a sibling of ${item.type} ${item.id} in the site's structure`,
      );
    }
    index = position.before ? at : at + 1;
  }
  rest.splice(index, 0, item);
  db.transaction(() => {
    renumber(db, rest);
    written(db, s.site.id);
  })();
}

// ---------------------------------------------------------------------------------------------
// Site defaults
// ---------------------------------------------------------------------------------------------

/**
 * Sets the site's default section, or its default site space: at the root of a site without
 * sections, in the default section of a site with them.
 */
export function setSiteDefaults(
  db: Db,
  s: Structure,
  changes: { defaultSiteSpace?: string; defaultSiteSection?: string },
): void {
  if (changes.defaultSiteSection !== undefined && !s.sections.some((row) => row.id === changes.defaultSiteSection)) {
    throw badRequest(`Invalid body field "defaultSiteSection": no section ${changes.defaultSiteSection} in the site`);
  }
  if (changes.defaultSiteSpace !== undefined) {
    const sectionId = usesSections(s) ? (changes.defaultSiteSection ?? defaultSection(s)?.id ?? null) : null;
    if (!variantsOf(s, sectionId).some((row) => row.id === changes.defaultSiteSpace)) {
      throw badRequest(
        `Invalid body field "defaultSiteSpace": no site space ${changes.defaultSiteSpace} ${sectionId ? "in the site's default section" : 'at the root of the site'}`,
      );
    }
    if (sectionId)
      db.prepare('UPDATE site_sections SET default_site_space = ? WHERE id = ?').run(
        changes.defaultSiteSpace,
        sectionId,
      );
    else db.prepare('UPDATE sites SET default_site_space = ? WHERE id = ?').run(changes.defaultSiteSpace, s.site.id);
  }
  if (changes.defaultSiteSection !== undefined)
    db.prepare('UPDATE sites SET default_site_section = ? WHERE id = ?').run(changes.defaultSiteSection, s.site.id);
}

/**
 * Ends every write of the structure, here and in its other modules (inside their transactions):
 * a level whose stored default is gone gets its first item as the default, so the default stays
 * put when siblings are sorted. Site spaces of deleted spaces keep their place as the stored
 * default (they come back with their space); readers skip them meanwhile.
 */
export function written(db: Db, siteId: string): void {
  const firstOf = (sql: string, ...params: unknown[]) =>
    (db
      .prepare(sql)
      .pluck(true)
      .get(...params) as string | undefined) ?? null;
  const site = reloadSite(db, siteId);
  const sections = db
    .prepare('SELECT id, default_site_space FROM site_sections WHERE site_id = ?')
    .all(siteId) as Array<{ id: string; default_site_space: string | null }>;
  const has = (sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) !== undefined;
  if (!site.default_site_section || !sections.some((row) => row.id === site.default_site_section)) {
    const first = sections.length ? (orderedSections(loadStructure(db, site))[0]?.id ?? null) : null;
    db.prepare('UPDATE sites SET default_site_section = ? WHERE id = ?').run(first, siteId);
  }
  const variantSql =
    'SELECT id FROM site_spaces WHERE site_id = ? AND section_id IS ? ORDER BY position, created_at, id LIMIT 1';
  if (
    !site.default_site_space ||
    !has('SELECT 1 FROM site_spaces WHERE id = ? AND section_id IS NULL', site.default_site_space)
  ) {
    db.prepare('UPDATE sites SET default_site_space = ? WHERE id = ?').run(firstOf(variantSql, siteId, null), siteId);
  }
  for (const section of sections) {
    if (
      !section.default_site_space ||
      !has('SELECT 1 FROM site_spaces WHERE id = ? AND section_id = ?', section.default_site_space, section.id)
    ) {
      db.prepare('UPDATE site_sections SET default_site_space = ? WHERE id = ?').run(
        firstOf(variantSql, siteId, section.id),
        section.id,
      );
    }
  }
  touchSite(db, siteId);
}

/** Reloads the structure after a write. */
export function reloadStructure(db: Db, s: Structure): Structure {
  return loadStructure(db, reloadSite(db, s.site.id));
}

/** Sets the columns whose value is not undefined. */
export function setColumns(db: Db, table: string, id: string, columns: Record<string, unknown>): void {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return;
  db.prepare(`UPDATE ${table} SET ${entries.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
    ...entries.map(([, value]) => value),
    id,
  );
}

/** The structure as readers of the published site see it: without draft items. */
export function withoutDrafts(s: Structure): Structure {
  const groups = s.groups.filter((row) => row.draft === 0);
  const kept = new Set(groups.map((row) => row.id));
  const groupShown = (id: string | null): boolean =>
    id === null || (kept.has(id) && groupShown(s.groups.find((row) => row.id === id)!.parent_id));
  const sections = s.sections.filter((row) => row.draft === 0 && groupShown(row.group_id));
  const sectionIds = new Set(sections.map((row) => row.id));
  const siteSpaces = s.siteSpaces.filter(
    (row) => row.draft === 0 && (row.section_id === null || sectionIds.has(row.section_id)),
  );
  const links = s.links.filter((row) => row.draft === 0 && groupShown(row.group_id));
  return { ...s, groups: groups.filter((row) => groupShown(row.id)), sections, links, siteSpaces };
}
