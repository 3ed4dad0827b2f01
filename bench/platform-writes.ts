/**
 * What the audit triggers cost a write: single-row writes through the platform's own domain functions (a team
 * created, renamed, deleted: `teams/store.ts`), on a database opened as the platform opens it (`openDatabase`:
 * WAL, `synchronous = FULL`, on disk), as a user's request would make them (`auditAs`), each its own transaction.
 *
 *   npx tsx bench/platform-writes.ts            (BENCH_SMOKE=1: a few rounds, the events checked)
 *
 * Variants, in turn within each run so that the machine's load touches them alike: `none` (the audit triggers
 * dropped from the connection) and `audited` (the triggers and the table of `audit/`). RUNS runs (default 5) of
 * N writes of each kind (default 500): per write, the medians of the runs' wall and CPU time, and the pages it
 * adds to the WAL (counted apart, without check-points: they do not depend on the machine's load, the time an
 * fsync takes does). `PREFILL` events (default 100000, numbered as one sequence) are in the table first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditAs, type AuditContext } from '../src/platform/audit/context.js';
import '../src/platform/audit/events.js';
import { installAuditTriggers } from '../src/platform/audit/triggers.js';
import { newId } from '../src/platform/http.js';
import { type Db, openDatabase } from '../src/platform/store/db.js';
import { deleteTeam, insertTeam, renameTeam } from '../src/platform/teams/store.js';

const SMOKE = process.env.BENCH_SMOKE === '1';
const runs = Number(process.env.RUNS ?? (SMOKE ? 2 : 5));
const writes = Number(process.env.N ?? (SMOKE ? 20 : 500));
const prefill = Number(process.env.PREFILL ?? (SMOKE ? 100 : 100_000));
// The data folder: on disk, as `DATA_DIR` is (a tmpfs would make the commits' syncs free).
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'platform-writes-'));

const CALLER: AuditContext = {
  actor: { type: 'user', id: 'bench-user', label: 'Bench' },
  source: 'api',
  correlationId: 'bench',
  executionId: 'bench',
};

function setUp(db: Db): void {
  const at = new Date().toISOString();
  // A year of events of other organizations first, written as the triggers write them (random ids).
  const insert = db.prepare(
    `INSERT INTO audit_events (id, org_id, seq, occurred_at, action, actor_type, actor_id, actor_label, source,
       target_type, target_id, target_label, correlation_id, execution_id, payload)
     VALUES (?, ?, ?, ?, 'space.updated', 'user', ?, 'Someone', 'api', 'space', ?, 'A space', ?, ?, '{"changed":["title"]}')`,
  );
  const start = Date.now() - 365 * 24 * 3600 * 1000;
  db.transaction(() => {
    for (let i = 0; i < prefill; i++) {
      const id = crypto.randomUUID();
      insert.run(
        id,
        `org-${i % 7}`,
        i + 1,
        new Date(start + i * 300_000).toISOString(),
        `user-${i % 50}`,
        newId(),
        id,
        id,
      );
    }
  })();
  db.prepare('INSERT INTO users (id, display_name, email, created_at) VALUES (?, ?, ?, ?)').run(
    'bench-user',
    'Bench',
    'bench@example.test',
    at,
  );
  db.prepare('INSERT INTO organizations (id, title, created_at) VALUES (?, ?, ?)').run('bench', 'Bench', at);
  db.prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('bench', 'bench-user', 'admin', ?)").run(
    at,
  );
}

const auditTriggers = (db: Db) =>
  db
    .prepare("SELECT name FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE 'audit_%'")
    .pluck(true)
    .all() as string[];

function variant(db: Db, name: 'none' | 'audited'): void {
  for (const trigger of auditTriggers(db)) db.exec(`DROP TRIGGER temp.${trigger}`);
  if (name === 'audited') installAuditTriggers(db);
  db.pragma('wal_checkpoint(TRUNCATE)');
}

type Kind = 'create' | 'rename' | 'delete';
const KINDS = ['create', 'rename', 'delete'] as const;
/** Per write: wall time and CPU time of the process (µs), and pages written to the WAL. */
type Cost = { wall: number; cpu: number; pages: number };

/** The cost of each kind of write: N teams created, renamed, then deleted, one transaction each. */
function round(db: Db, count = writes, countPages = false): Record<Kind, Cost> {
  const ids = Array.from({ length: count }, () => newId());
  const at = new Date().toISOString();
  const measure = (fn: (id: string) => void): Cost => {
    // Counting pages: no check-point may restart the WAL meanwhile (timed rounds keep SQLite's default).
    if (countPages) db.pragma('wal_checkpoint(TRUNCATE)');
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    for (const id of ids) fn(id);
    const wall = Number(process.hrtime.bigint() - started) / 1000 / count;
    const used = process.cpuUsage(cpu);
    const frames = countPages ? (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log : 0;
    return { wall, cpu: (used.user + used.system) / count, pages: frames / count };
  };
  return auditAs(CALLER, () => ({
    create: measure((id) => insertTeam(db, { id, org_id: 'bench', title: `Team ${id}`, created_at: at }, [])),
    rename: measure((id) => renameTeam(db, id, `Renamed ${id}`)),
    delete: measure((id) => deleteTeam(db, id)),
  }));
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const db = openDatabase({ file: join(dir, 'platform.sqlite') });
try {
  setUp(db);
  const names = ['none', 'audited'] as const;
  const results = new Map<string, Record<Kind, Cost[]>>(
    names.map((name) => [name, { create: [], rename: [], delete: [] }]),
  );
  const pages = new Map<string, Record<Kind, Cost>>();
  // A round of each to warm up (statements prepared, pages cached), not counted; then the pages a write adds
  // to the WAL, without check-points (deterministic, unlike the time an fsync takes on a shared disk).
  db.pragma('wal_autocheckpoint = 0');
  for (const name of names) {
    variant(db, name);
    round(db);
    pages.set(name, round(db, 50, true));
  }
  db.pragma('wal_autocheckpoint = 1000');
  for (let run = 0; run < runs; run++) {
    for (const name of names) {
      variant(db, name);
      const before = db.prepare('SELECT count(*) FROM audit_events').pluck(true).get() as number;
      const costs = round(db);
      const after = db.prepare('SELECT count(*) FROM audit_events').pluck(true).get() as number;
      // Each write is one event with the triggers, none without.
      assert.equal(after - before, name === 'none' ? 0 : 3 * writes);
      for (const kind of KINDS) results.get(name)![kind].push(costs[kind]);
    }
  }
  const base = results.get('none')!;
  const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}x`;
  console.log(
    `${writes} writes of each kind x ${runs} runs, ${prefill} events before; per write: wall µs and CPU µs (medians of the runs), WAL pages; ratio to none`,
  );
  for (const [name, kinds] of results) {
    const cells = KINDS.map((kind) => {
      const wall = median(kinds[kind].map((cost) => cost.wall));
      const cpu = median(kinds[kind].map((cost) => cost.cpu));
      const walBase = median(base[kind].map((cost) => cost.wall));
      const cpuBase = median(base[kind].map((cost) => cost.cpu));
      const page = pages.get(name)![kind].pages;
      return `${kind} ${wall.toFixed(0)} (${ratio(wall, walBase)}) cpu ${cpu.toFixed(0)} (${ratio(cpu, cpuBase)}) pages ${page.toFixed(1)}`;
    });
    console.log(`${name.padEnd(10)} ${cells.join(' | ')}`);
  }
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
