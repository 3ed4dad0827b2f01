import type { Access } from '../access.js';
import { demand } from '../access.js';
import { badRequest, conflict, laterThan, notFoundInBody } from '../http.js';
import type { CollectionRow, SpaceRow } from '../rows.js';
import { writeVersion, type Db } from '../store/db.js';
import { pointerId, type MovePosition } from './schemas.js';

/**
 * Collections and spaces share one ordering per parent: the siblings of an item are the
 * collections and the non-deleted spaces with the same organization and parent collection
 * (`null`: the organization's root).
 */
export interface Sibling {
  kind: 'collection' | 'space';
  id: string;
  position: number;
}

const sameItem = (a: Pick<Sibling, 'kind' | 'id'>, b: Pick<Sibling, 'kind' | 'id'>) => a.kind === b.kind && a.id === b.id;

// One collator for every comparison: `localeCompare` builds one per call.
const collate = new Intl.Collator().compare;

function byPosition<T extends { position: number; created_at: string; id: string }>(a: T, b: T): number {
  if (a.position !== b.position) return a.position - b.position;
  // Timestamps are ISO 8601 in one format: their text sorts as their time.
  if (a.created_at !== b.created_at) return a.created_at < b.created_at ? -1 : 1;
  return collate(a.id, b.id);
}

/** The siblings under `parentId` (`null`: root) of an organization, in display order. */
export function siblingsOf(db: Db, orgId: string, parentId: string | null): Sibling[] {
  const rows = db
    .prepare(
      `SELECT 'collection' AS kind, id, position, created_at FROM collections WHERE org_id = ? AND parent_id IS ?
       UNION ALL
       SELECT 'space' AS kind, id, position, created_at FROM spaces WHERE org_id = ? AND parent_id IS ? AND deleted_at IS NULL`,
    )
    .all(orgId, parentId, orgId, parentId) as Array<Sibling & { created_at: string }>;
  return rows.sort(byPosition).map(({ kind, id, position }) => ({ kind, id, position }));
}

/** The position that puts a new item after every existing sibling (deleted spaces included). */
export function endPosition(db: Db, orgId: string, parentId: string | null): number {
  const { max } = db
    .prepare(
      `SELECT MAX(position) AS max FROM (
         SELECT position FROM collections WHERE org_id = ? AND parent_id IS ?
         UNION ALL SELECT position FROM spaces WHERE org_id = ? AND parent_id IS ?)`,
    )
    .get(orgId, parentId, orgId, parentId) as { max: number | null };
  return max === null ? 1 : Math.floor(max) + 1;
}

export interface Placement {
  /** The siblings of the target parent in their new order, the moved item included. */
  order: Sibling[];
  /** False when the item already sits at that place under that parent. */
  changed: boolean;
}

/**
 * Where `item` lands under `parentId`: next to the sibling named by `position`, or last.
 * A pointer that is the item itself, or not one of the target parent's children, is a 400.
 */
export function planPlacement(
  db: Db,
  orgId: string,
  parentId: string | null,
  item: Pick<Sibling, 'kind' | 'id'>,
  position?: MovePosition,
): Placement {
  const current = siblingsOf(db, orgId, parentId);
  const others = current.filter((sibling) => !sameItem(sibling, item));
  const moved: Sibling = { ...item, position: 0 };
  let index = others.length;
  if (position) {
    const pointer = pointerId(position);
    if (pointer.id === item.id) {
      throw badRequest(`Invalid body field "position.${pointer.placement}": cannot place an item next to itself`);
    }
    const at = others.findIndex((sibling) => sibling.id === pointer.id);
    if (at < 0) {
      throw badRequest(
        `Invalid body field "position.${pointer.placement}": ${pointer.id} is not a space or collection of the target parent`,
      );
    }
    index = pointer.placement === 'before' ? at : at + 1;
  }
  const order = [...others.slice(0, index), moved, ...others.slice(index)];
  const unchanged =
    current.length === order.length && current.every((sibling, i) => sameItem(sibling, order[i]!));
  return { order, changed: !unchanged };
}

/** Writes positions 1..n for an ordered sibling list (only the rows whose position changes). */
export function applyOrder(db: Db, order: Sibling[]): void {
  const setCollection = db.prepare('UPDATE collections SET position = ? WHERE id = ?');
  const setSpace = db.prepare('UPDATE spaces SET position = ? WHERE id = ?');
  order.forEach((sibling, i) => {
    const position = i + 1;
    if (sibling.position === position) return;
    (sibling.kind === 'collection' ? setCollection : setSpace).run(position, sibling.id);
  });
}

/**
 * Moves a collection or space of `orgId` under `parentId` (`null`: root), next to the sibling
 * named by `position` or last, and bumps its `updated_at`. A move that changes nothing is a 409.
 */
export function moveItem(
  db: Db,
  kind: Sibling['kind'],
  item: { id: string; org_id: string; updated_at: string },
  parentId: string | null,
  position?: MovePosition,
): void {
  const placement = planPlacement(db, item.org_id, parentId, { kind, id: item.id }, position);
  if (!placement.changed) throw conflict(`The ${kind} is already at that place: nothing to update`);
  const table = kind === 'collection' ? 'collections' : 'spaces';
  db.transaction(() => {
    db.prepare(`UPDATE ${table} SET parent_id = ?, updated_at = ? WHERE id = ?`).run(
      parentId,
      laterThan(item.updated_at),
      item.id,
    );
    applyOrder(db, placement.order);
  })();
}

/**
 * Loads the collection new content is put in, named by the body field `field`: it must belong to
 * `orgId` and be visible to the caller (else 404), who needs at least `create` on it (else 403).
 */
export function requireTargetCollection(
  access: Access,
  orgId: string,
  collectionId: string,
  field = 'parent',
): CollectionRow {
  const collection = access.db
    .prepare('SELECT * FROM collections WHERE id = ? AND org_id = ?')
    .get(collectionId, orgId) as CollectionRow | undefined;
  const role = collection ? access.collectionRole(collection) : null;
  if (!collection || role === null) throw notFoundInBody('Parent collection', field, collectionId);
  demand(role, 'create', 'Adding content to this collection');
  return collection;
}

/**
 * Every collection and non-deleted space of an organization in tree order: the children of
 * each parent by position, each collection followed by its own content (depth first).
 */
export function treeOrder(db: Db, orgId: string): Tree {
  // Every list of spaces or collections and every role computation starts here: the order is
  // kept until the next write to the database.
  let cached = trees.get(db);
  if (!cached) {
    cached = new Map();
    trees.set(db, cached);
  }
  const version = writeVersion(db);
  const hit = cached.get(orgId);
  if (hit?.version === version) return hit.tree;
  const tree = computeTreeOrder(db, orgId);
  if (cached.size >= MAX_CACHED_TREES) cached.clear();
  cached.set(orgId, { version, tree });
  return tree;
}

/** Collections and spaces of an organization in tree order; shared by every caller until a write, so read-only. */
export interface Tree {
  readonly collections: readonly TreeRow[];
  readonly spaces: readonly TreeRow[];
}

/** Organizations whose tree is kept at once (per database). */
const MAX_CACHED_TREES = 200;
const trees = new WeakMap<Db, Map<string, { version: string; tree: Tree }>>();

function computeTreeOrder(db: Db, orgId: string): Tree {
  // Only what ordering and the access rules read: whole rows cost several times as much, and a
  // page needs them for its own items alone (see `rowsById`).
  const collections = db
    .prepare(`SELECT ${TREE_COLUMNS} FROM collections WHERE org_id = ?`)
    .all(orgId) as TreeRow[];
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
export type TreeRow = Pick<CollectionRow & SpaceRow, 'id' | 'org_id' | 'parent_id' | 'default_level' | 'position' | 'created_at'>;

/**
 * Whole rows of `table` by id, for the items of one page. Rows read are kept (frozen, shared by
 * every caller) until the next write to the database, so paging through a list that does not
 * change reads each row once.
 */
export function rowsById<R extends { id: string }>(db: Db, table: 'collections' | 'spaces', ids: readonly string[]): Map<string, R> {
  let tables = rowCaches.get(db);
  if (!tables) {
    tables = new Map();
    rowCaches.set(db, tables);
  }
  const version = writeVersion(db);
  let cache = tables.get(table);
  if (cache?.version !== version || cache.rows.size > MAX_CACHED_ROWS) {
    cache = { version, rows: new Map() };
    tables.set(table, cache);
  }
  const found = new Map<string, R>();
  const missing: string[] = [];
  for (const id of ids) {
    const row = cache.rows.get(id);
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
    cache.rows.set(row.id as string, row);
    found.set(row.id as string, row as R);
  }
  return found;
}

/** Rows kept per table and database before the cache starts over. */
const MAX_CACHED_ROWS = 20_000;
const rowCaches = new WeakMap<Db, Map<string, { version: string; rows: Map<string, Readonly<Record<string, unknown>>> }>>();
const columnNames = new WeakMap<object, string[]>();

/** Ids of a collection and of every collection nested in it, at any depth. */
export function collectionSubtree(db: Db, collectionId: string): string[] {
  const rows = db
    .prepare(
      `WITH RECURSIVE tree(id) AS (
         SELECT ? UNION SELECT c.id FROM collections c JOIN tree t ON c.parent_id = t.id)
       SELECT id FROM tree`,
    )
    .all(collectionId) as Array<{ id: string }>;
  return rows.map((row) => row.id);
}
