import type { CollectionRow, SpaceRow } from '../rows.js';
import { keptUntilWrite, type Db } from '../store/db.js';

/**
 * The content tree of an organization: its collections and spaces in display order, and the
 * whole rows of the items a page shows. Both are kept, per database, until the next write.
 */

// One collator for every comparison: `localeCompare` builds one per call.
const collate = new Intl.Collator().compare;

/** Display order of siblings: by position, then creation time, then id. */
export function byPosition<T extends { position: number; created_at: string; id: string }>(a: T, b: T): number {
  if (a.position !== b.position) return a.position - b.position;
  // Timestamps are ISO 8601 in one format: their text sorts as their time.
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return collate(a.id, b.id);
}

/**
 * Every collection and non-deleted space of an organization in tree order: the children of
 * each parent by position, each collection followed by its own content (depth first).
 */
export function treeOrder(db: Db, orgId: string): Tree {
  // Every list of spaces or collections and every role computation starts here: the order is
  // kept until the next write to the database.
  const kept = keptUntilWrite<Tree>(db, 'tree order', MAX_CACHED_TREES);
  let tree = kept.get(orgId);
  if (!tree) {
    tree = computeTreeOrder(db, orgId);
    kept.set(orgId, tree);
  }
  return tree;
}

/** Collections and spaces of an organization in tree order; shared by every caller until a write, so read-only. */
export interface Tree {
  readonly collections: readonly TreeRow[];
  readonly spaces: readonly TreeRow[];
}

/** Organizations whose tree is kept at once (per database). */
const MAX_CACHED_TREES = 200;

function computeTreeOrder(db: Db, orgId: string): Tree {
  // Only what ordering and the access rules read: whole rows cost several times as much, and a
  // page needs them for its own items alone (see `rowsById`).
  const collections = db.prepare(`SELECT ${TREE_COLUMNS} FROM collections WHERE org_id = ?`).all(orgId) as TreeRow[];
  const spaces = db
    .prepare(`SELECT ${TREE_COLUMNS} FROM spaces WHERE org_id = ? AND deleted_at IS NULL`)
    .all(orgId) as TreeRow[];
  type Node = { kind: 'collection'; row: TreeRow } | { kind: 'space'; row: TreeRow };
  const children = new Map<string | null, Node[]>();
  const add = (node: Node) => {
    const list = children.get(node.row.parent_id) ?? [];
    list.push(node);
    children.set(node.row.parent_id, list);
  };
  for (const row of collections) add({ kind: 'collection', row });
  for (const row of spaces) add({ kind: 'space', row });
  const result = { collections: [] as TreeRow[], spaces: [] as TreeRow[] };
  const walk = (parentId: string | null) => {
    const nodes = (children.get(parentId) ?? []).sort((a, b) => byPosition(a.row, b.row));
    for (const node of nodes) {
      if (node.kind === 'space') {
        result.spaces.push(node.row);
      } else {
        result.collections.push(node.row);
        walk(node.row.id);
      }
    }
  };
  walk(null);
  for (const row of [...result.collections, ...result.spaces]) Object.freeze(row);
  return Object.freeze({ collections: Object.freeze(result.collections), spaces: Object.freeze(result.spaces) });
}

const TREE_COLUMNS = 'id, org_id, parent_id, default_level, position, created_at';

/** What `treeOrder` reads of a collection or a space. */
export type TreeRow = Pick<
  CollectionRow & SpaceRow,
  'id' | 'org_id' | 'parent_id' | 'default_level' | 'position' | 'created_at'
>;

/**
 * Whole rows of `table` by id, for the items of one page. Rows read are kept (frozen, shared by
 * every caller) until the next write to the database, so paging through a list that does not
 * change reads each row once.
 */
export function rowsById<R extends { id: string }>(
  db: Db,
  table: 'collections' | 'spaces',
  ids: readonly string[],
): Map<string, R> {
  const cache = keptUntilWrite<Readonly<Record<string, unknown>>>(db, `rows of ${table}`, MAX_CACHED_ROWS);
  const found = new Map<string, R>();
  const missing: string[] = [];
  for (const id of ids) {
    const row = cache.get(id);
    if (row) found.set(id, row as R);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const statement = db.prepare(`SELECT * FROM ${table} WHERE id IN (SELECT value FROM json_each(?))`);
  let names = columnNames.get(statement);
  if (!names) {
    names = statement.columns().map((column) => column.name);
    columnNames.set(statement, names);
  }
  // Rows read as arrays and made objects here: a third cheaper, for wide rows, than the objects
  // the driver builds.
  for (const values of statement.raw(true).all(JSON.stringify(missing)) as unknown[][]) {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < names.length; index += 1) row[names[index]!] = values[index];
    Object.freeze(row);
    cache.set(row.id as string, row);
    found.set(row.id as string, row as R);
  }
  return found;
}

/** Rows kept per table and database before the cache starts over. */
const MAX_CACHED_ROWS = 20_000;
const columnNames = new WeakMap<object, string[]>();
