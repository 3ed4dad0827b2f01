import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/platform/sites/redirects.js';
import { declareTables, migrateModules, openDatabase } from '../../src/platform/store/db.js';
import { migrations } from '../../src/platform/store/migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'module-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const moduleVersion = (db: Database.Database, module: string) =>
  db.prepare('SELECT version FROM module_schema WHERE module = ?').pluck(true).get(module);

/** The table of redirects as version 17 of the core's migrations created it, before it became a module's. */
const SHIPPED_REDIRECTS_TABLE = `
  CREATE TABLE site_redirects (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    match_key TEXT NOT NULL,
    wildcard INTEGER NOT NULL CHECK (wildcard IN (0, 1)),
    draft INTEGER NOT NULL CHECK (draft IN (0, 1)),
    capture_wildcard INTEGER NOT NULL DEFAULT 0,
    permanent INTEGER NOT NULL DEFAULT 0,
    destination TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT,
    UNIQUE (site_id, match_key, draft)
  );
  CREATE INDEX site_redirects_by_site ON site_redirects(site_id, draft, wildcard);`;

describe('tables a module owns (declareTables)', () => {
  it('are made in a new database, with the module at its last migration', () => {
    const db = openDatabase({ file: ':memory:' });
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(moduleVersion(db, 'site-redirects')).toBe(1);
    expect(db.prepare("SELECT name FROM sqlite_schema WHERE name = 'site_redirects'").pluck(true).get()).toBe(
      'site_redirects',
    );
    db.close();
  });

  it('keep the rows of a database that had the table from the core, before it moved to its module', () => {
    const file = join(dir, 'shipped.sqlite');
    const old = new Database(file);
    old.pragma('foreign_keys = OFF');
    for (const migration of migrations.slice(0, 16)) old.exec(migration);
    old.exec(SHIPPED_REDIRECTS_TABLE);
    old.pragma('user_version = 17');
    old
      .prepare(
        `INSERT INTO site_redirects (id, site_id, source, match_key, wildcard, draft, destination, created_at)
         VALUES ('r1', 'site-1', '/old', '/old', 0, 0, '{"kind":"url","url":"https://example.test/"}', '2026-01-01')`,
      )
      .run();
    old.close();

    const db = openDatabase({ file });
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(moduleVersion(db, 'site-redirects')).toBe(1);
    expect(db.prepare('SELECT id, source FROM site_redirects').all()).toEqual([{ id: 'r1', source: '/old' }]);
    db.close();
  });

  it('apply each migration once, to a database opened before the module was declared too', () => {
    const file = join(dir, 'notes.sqlite');
    const before = openDatabase({ file });
    declareTables('test-notes', [
      'CREATE TABLE test_notes (id TEXT PRIMARY KEY)',
      'ALTER TABLE test_notes ADD COLUMN body TEXT',
    ]);
    expect(moduleVersion(before, 'test-notes')).toBeUndefined();
    migrateModules(before);
    expect(moduleVersion(before, 'test-notes')).toBe(2);
    before.prepare("INSERT INTO test_notes (id, body) VALUES ('n1', 'kept')").run();
    before.close();

    const again = openDatabase({ file });
    expect(again.prepare('SELECT body FROM test_notes').pluck(true).all()).toEqual(['kept']);
    expect(moduleVersion(again, 'test-notes')).toBe(2);
    again.close();
    expect(() => declareTables('test-notes', [])).toThrow('Tables of module test-notes are declared twice');
  });
});
