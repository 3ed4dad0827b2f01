import type { Access } from '../access.js';
import { demand } from '../access.js';
import { badRequest, conflict, laterThan, notFoundInBody } from '../http.js';
import type { CollectionRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { byPosition } from './order.js';
import { pointerId, type MovePosition } from '../schemas.js';

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

const sameItem = (a: Pick<Sibling, 'kind' | 'id'>, b: Pick<Sibling, 'kind' | 'id'>) =>
  a.kind === b.kind && a.id === b.id;

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
  const unchanged = current.length === order.length && current.every((sibling, i) => sameItem(sibling, order[i]!));
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
