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
 * committed write survives a crash or `kill -9`, and every pending migration applied.
 */
export function openDatabase({ file }: OpenDatabaseOptions): Db {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
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
