import type { Db } from './db.js';

/** Tables whose rows PATCH routes update through `updateRow`. */
export type UpdatableTable = 'organizations' | 'collections' | 'spaces';

/**
 * Writes the defined entries of `columns` (column name to value: `undefined` leaves a column as it
 * is, `null` clears it) to the row with that id. Returns false when there was nothing to write.
 */
export function updateRow(db: Db, table: UpdatableTable, id: string, columns: Record<string, unknown>): boolean {
  const set = Object.entries(columns).filter(([, value]) => value !== undefined);
  if (set.length === 0) return false;
  db.prepare(`UPDATE ${table} SET ${set.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
    ...set.map(([, value]) => value),
    id,
  );
  return true;
}
