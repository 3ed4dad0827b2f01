import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrations } from './migrations.js';

export type Db = Database.Database;

export interface OpenDatabaseOptions {
  /** Path of the SQLite file, or `:memory:`. */
  file: string;
}

/**
 * Opens the platform's database: WAL journal, foreign keys on, `synchronous = FULL` so a
 * committed write survives a crash or `kill -9`, and every pending migration applied: the core's,
 * then those of every module that declared its tables.
 */
export function openDatabase({ file }: OpenDatabaseOptions): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  migrateModules(db);
  cacheStatements(db);
  return db;
}

/**
 * A value that changes whenever anything is written to the database, through this connection
 * (rows changed, counted by SQLite, rolled back or not) or committed by another: what is
 * derived from the data may be kept while it stays the same.
 */
export function writeVersion(db: Db): string {
  const changes = db.prepare('SELECT total_changes()').pluck(true).get() as number;
  const others = db.prepare('PRAGMA data_version').pluck(true).get() as number;
  return `${changes}:${others}`;
}

/**
 * A map of what is derived from the database under `name` (tree orders, rows, answers' JSON), empty
 * again after the next write (`writeVersion`) or once it holds more than `limit` entries: read it,
 * derive what is missing, keep it. What it holds is shared by every request until then: read-only.
 */
export function keptUntilWrite<V>(db: Db, name: string, limit: number): Map<string, V> {
  let maps = keptMaps.get(db);
  if (!maps) {
    maps = new Map();
    keptMaps.set(db, maps);
  }
  const version = writeVersion(db);
  let kept = maps.get(name);
  if (kept?.version !== version || kept.values.size > limit) {
    kept = { version, values: new Map() };
    maps.set(name, kept);
  }
  return kept.values as Map<string, V>;
}

const keptMaps = new WeakMap<Db, Map<string, { version: string; values: Map<string, unknown> }>>();

/** Most compiled statements kept (texts with `IN (?, ?, …)` lists vary with the list's length). */
const MAX_CACHED_STATEMENTS = 1000;

/**
 * Makes `db.prepare` compile each distinct SQL text once: the routes prepare their statements
 * where they use them, and compiling is most of the cost of a small query. The least recently
 * used statements are dropped past MAX_CACHED_STATEMENTS. A statement whose mode is changed
 * (`pluck`, `raw`, `expand`) keeps it, so such callers must set the mode they want on every use.
 */
function cacheStatements(db: Db): void {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, ReturnType<Db['prepare']>>();
  db.prepare = ((source: string) => {
    let statement = statements.get(source);
    if (statement) {
      statements.delete(source);
    } else {
      statement = prepare(source);
      if (statements.size >= MAX_CACHED_STATEMENTS) statements.delete(statements.keys().next().value!);
    }
    statements.set(source, statement);
    return statement;
  }) as Db['prepare'];
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (let version = current; version < migrations.length; version += 1) {
    const apply = db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    });
    apply();
  }
}

/**
 * Declares the tables a module of the platform owns (a group added after the core, such as a
 * site's redirects): its migrations in order, beside the code that reads them, so that a new group
 * is its own file and the line that registers its routes. Called as the module is imported, as
 * the gateway's schema modules add their types: the code that reads a table imports its module,
 * so every open database has it (`openDatabase`, or `migrateModules` for one opened before).
 * Migration N moves the module from version N to N + 1 (`module_schema`); never edit one that has
 * shipped: append.
 */
export function declareTables(module: string, migrations: readonly string[]): void {
  if (moduleTables.has(module)) throw new Error(`Tables of module ${module} are declared twice`);
  moduleTables.set(module, migrations);
}

/**
 * Applies the pending migrations of every module that declared its tables, each in a transaction
 * with its new version: a crash between two leaves the module at the last one applied.
 */
export function migrateModules(db: Db): void {
  const applied = db.prepare('SELECT version FROM module_schema WHERE module = ?').pluck(true);
  const record = db.prepare(
    `INSERT INTO module_schema (module, version) VALUES (?, ?)
     ON CONFLICT (module) DO UPDATE SET version = excluded.version`,
  );
  for (const [module, migrations] of moduleTables) {
    const current = (applied.get(module) as number | undefined) ?? 0;
    for (let version = current; version < migrations.length; version += 1) {
      db.transaction(() => {
        db.exec(migrations[version]!);
        record.run(module, version + 1);
      })();
    }
  }
  for (const setup of connectionSetups.values()) setup(db);
}

const moduleTables = new Map<string, readonly string[]>();

/**
 * Declares what a module sets up on every connection once the tables are migrated (SQL functions,
 * temporary triggers): run by `migrateModules`, so again for a connection that meets a module
 * imported since; `setup` must be idempotent.
 */
export function declareConnectionSetup(module: string, setup: (db: Db) => void): void {
  if (connectionSetups.has(module)) throw new Error(`Connection setup of module ${module} is declared twice`);
  connectionSetups.set(module, setup);
}

const connectionSetups = new Map<string, (db: Db) => void>();
