import type { Db } from '../store/db.js';
import { registerAuditFunctions } from './context.js';

/**
 * How the writes to one table are recorded. SQL expressions name the written row `$` (the new row,
 * or the old one of a delete), so that the target and its organization are read from the row itself.
 */
export interface AuditedTable {
  table: string;
  /** The target's type (`space`, `site-redirect`…). */
  target: string;
  /** The target's id. @default `$.id` */
  id?: string;
  /** The target's label when the event is recorded. */
  label?: string;
  /** The organization the event belongs to; a row whose organization is gone (a cascade) records nothing. */
  org: string;
  /** Extra payload fields (`json_object(...)` arguments), allowlisted: never a secret. */
  payload?: string;
  /** The insert's action and its label; false records none. @default `<target>.created` */
  created?: readonly [string, string] | false;
  /** The delete's action and its label; false records none. @default `<target>.deleted` */
  deleted?: readonly [string, string] | false;
  /**
   * Updates recorded: an action, its label, the columns whose change it records (bookkeeping columns
   * never make an event) and an optional condition on `NEW`/`OLD`.
   */
  updates?: ReadonlyArray<{ action: string; label: string; columns: readonly string[]; when?: string }>;
}

const audited = new Map<string, AuditedTable>();

/**
 * Makes every write to the tables of `specs` recorded as an audit event, in the writing statement
 * (so a write that rolls back records nothing): one call per module, beside its `declareTables`.
 */
export function auditTables(specs: readonly AuditedTable[]): void {
  for (const spec of specs) {
    if (audited.has(spec.table)) throw new Error(`Table ${spec.table} is audited twice`);
    audited.set(spec.table, spec);
  }
}

/** Every audited action with its label, in a stable order. */
export function auditActions(): Array<{ id: string; label: string }> {
  const actions = new Map<string, string>();
  for (const spec of audited.values()) {
    for (const [action, label] of actionsOf(spec)) actions.set(action, label);
  }
  return [...actions].map(([id, label]) => ({ id, label })).sort((a, b) => a.id.localeCompare(b.id));
}

function actionsOf(spec: AuditedTable): Array<readonly [string, string]> {
  const noun = spec.target.replaceAll('_', ' ').replace(/^./, (first) => first.toUpperCase());
  const created = spec.created === undefined ? ([`${spec.target}.created`, `${noun} created`] as const) : spec.created;
  const deleted = spec.deleted === undefined ? ([`${spec.target}.deleted`, `${noun} deleted`] as const) : spec.deleted;
  return [
    ...(created ? [created] : []),
    ...(deleted ? [deleted] : []),
    ...(spec.updates ?? []).map((update) => [update.action, update.label] as const),
  ];
}

const quoted = (value: string) => `'${value.replaceAll("'", "''")}'`;
const onRow = (expression: string, row: 'NEW' | 'OLD') => expression.replaceAll('$.', `${row}.`);

/** The statement a trigger runs: one event, skipped when the row's organization is gone. */
function insertEvent(spec: AuditedTable, row: 'NEW' | 'OLD', action: string, changed?: readonly string[]): string {
  const fields = [
    ...(changed
      ? [
          // concat_ws skips the NULLs of the columns that did not change (no table-valued JSON function per row).
          `'changed', json('[' || concat_ws(',', ${changed
            .map((column) => `CASE WHEN OLD.${column} IS NOT NEW.${column} THEN '"${column}"' END`)
            .join(', ')}) || ']')`,
        ]
      : []),
    ...(spec.payload ? [onRow(spec.payload, row)] : []),
  ];
  // `n`: the organization's next number, read from the end of its primary key.
  return `INSERT INTO main.audit_events (org_id, seq, id, occurred_at, action, actor_type, actor_id, actor_label,
      source, target_type, target_id, target_label, correlation_id, execution_id, payload)
    SELECT o, n, audit_id(o, n), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ${quoted(action)}, c ->> '$.t', c ->> '$.i',
      c ->> '$.l', c ->> '$.s', ${quoted(spec.target)}, ${onRow(spec.id ?? '$.id', row)},
      ${spec.label ? onRow(spec.label, row) : 'NULL'}, c ->> '$.c', c ->> '$.e', json_object(${fields.join(', ')})
    FROM (SELECT c, o, (SELECT ifnull(max(seq), 0) + 1 FROM main.audit_events WHERE org_id = o) AS n
      FROM (SELECT audit_context() AS c, ${onRow(spec.org, row)} AS o) WHERE o IS NOT NULL);`;
}

function triggersOf(spec: AuditedTable, columns: ReadonlySet<string>): string[] {
  const name = (suffix: string) => `audit_${spec.table}_${suffix}`;
  const on = `main.${spec.table}`;
  const created = spec.created === undefined ? `${spec.target}.created` : spec.created ? spec.created[0] : false;
  const deleted = spec.deleted === undefined ? `${spec.target}.deleted` : spec.deleted ? spec.deleted[0] : false;
  const sql: string[] = [];
  if (created)
    sql.push(`CREATE TEMP TRIGGER IF NOT EXISTS ${name('insert')} AFTER INSERT ON ${on} BEGIN
      ${insertEvent(spec, 'NEW', created)} END;`);
  if (deleted)
    sql.push(`CREATE TEMP TRIGGER IF NOT EXISTS ${name('delete')} AFTER DELETE ON ${on} BEGIN
      ${insertEvent(spec, 'OLD', deleted)} END;`);
  (spec.updates ?? []).forEach((update, index) => {
    // A column a module adds later (its migration not applied on this connection yet) waits for it.
    if (!update.columns.every((column) => columns.has(column))) return;
    // `UPDATE OF` fires on an assignment even to the same value: only a change records.
    const changed = update.columns.map((column) => `OLD.${column} IS NOT NEW.${column}`).join(' OR ');
    const when = update.when ? `(${changed}) AND (${update.when})` : changed;
    sql.push(`CREATE TEMP TRIGGER IF NOT EXISTS ${name(`update_${index}`)}
      AFTER UPDATE OF ${update.columns.join(', ')} ON ${on} WHEN ${when} BEGIN
      ${insertEvent(spec, 'NEW', update.action, update.columns)} END;`);
  });
  return sql;
}

/**
 * Sets up a connection for auditing: the SQL functions the triggers call, and the triggers, as
 * temporary ones: they live with the connection that registered the functions, so that a database
 * file never holds a trigger that another program opening it could not run.
 */
export function installAuditTriggers(db: Db): void {
  registerAuditFunctions(db);
  const existing = new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck(true).all() as string[],
  );
  db.transaction(() => {
    for (const spec of audited.values()) {
      // A module whose tables are declared but not yet migrated on this connection gets its triggers next time.
      if (!existing.has(spec.table)) continue;
      const columns = new Set(
        (db.prepare(`PRAGMA table_info(${spec.table})`).all() as Array<{ name: string }>).map((column) => column.name),
      );
      for (const statement of triggersOf(spec, columns)) db.exec(statement);
    }
  })();
}
