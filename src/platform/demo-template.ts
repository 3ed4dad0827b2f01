import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchUpSearchIndex } from './content/current.js';
import { seedDemoData } from './demo-data.js';
import { loadDemoRepository } from './demo-content/load.js';
import {
  applyDemoRepository,
  type DemoRepositoryRecord,
  demoRepositoryIn,
  recordDemoRepository,
  seedDemoRepository,
} from './git/demo.js';
import { openDatabase, type Db } from './store/db.js';

/**
 * Seeding the demo data set takes most of a second (its markdown converted, its search index
 * built), which a first `npm start` would wait for. `npm ci` (the `prepare` script) seeds it once
 * into this template instead, next to the compiled code; a data folder without a database starts
 * from a copy. A rebuild empties `dist/`, so a template never outlives the code that made it: after
 * a change, a fresh data folder is seeded as before until the next `npm run build -- --demo-template`.
 */
export const DEMO_TEMPLATE_FILE = fileURLToPath(new URL('../demo-template/platform.sqlite', import.meta.url));

/** Seeds a new database and writes it, compacted and standalone (no WAL), to `file`. */
export function writeDemoTemplate(file = DEMO_TEMPLATE_FILE): void {
  const scratch = mkdtempSync(join(tmpdir(), 'demo-template-'));
  try {
    const db = openDatabase({ file: join(scratch, 'platform.sqlite') });
    seedDemoData(db);
    catchUpSearchIndex(db);
    const written = join(scratch, 'template.sqlite');
    db.prepare('VACUUM INTO ?').run(written);
    db.close();
    mkdirSync(dirname(file), { recursive: true });
    copyFileSync(written, `${file}.partial`);
    renameSync(`${file}.partial`, file);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The template's record of its demo repository, beside the repository. */
const recordFile = (template: string) => `${demoRepositoryIn(dirname(template))}.json`;

/**
 * Commits the demo handbook to a repository beside the template (`demo-repos/handbook.git`, by
 * `author`), with a record of the links the database gets to it: a start from the template copies
 * both (`placeDemoRepository`) instead of running git for every revision (a quarter of a second).
 * The template's database itself is left as a seed leaves it.
 */
export async function writeDemoRepository(template: string, author: { name: string; email: string }): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'demo-repository-'));
  try {
    copyFileSync(template, join(scratch, 'platform.sqlite'));
    const db = openDatabase({ file: join(scratch, 'platform.sqlite') });
    try {
      const repository = loadDemoRepository();
      const bare = await seedDemoRepository(db, scratch, author, repository);
      const placed = demoRepositoryIn(dirname(template));
      rmSync(placed, { recursive: true, force: true });
      cpSync(bare, placed, { recursive: true });
      writeFileSync(recordFile(template), JSON.stringify(recordDemoRepository(db, bare, author, repository)));
    } finally {
      db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * Copies the template's demo repository into `dataDir` and links the handbook in `db` (a copy of
 * the template) to it; false when the template has none, or one committed by another author than
 * `author`, and the caller makes one.
 */
export function placeDemoRepository(
  db: Db,
  dataDir: string,
  author: DemoRepositoryRecord['author'],
  template = DEMO_TEMPLATE_FILE,
): boolean {
  const repository = demoRepositoryIn(dirname(template));
  if (!existsSync(recordFile(template)) || !existsSync(repository)) return false;
  const record = JSON.parse(readFileSync(recordFile(template), 'utf8')) as DemoRepositoryRecord;
  if (record.author.name !== author.name || record.author.email !== author.email) return false;
  const placed = demoRepositoryIn(dataDir);
  rmSync(placed, { recursive: true, force: true });
  cpSync(repository, placed, { recursive: true });
  applyDemoRepository(db, record, placed);
  return true;
}

/**
 * Copies the template to `databaseFile` when there is a template and no database yet; true when it
 * did. The copy appears whole or not at all (made aside, then linked), and two processes starting
 * on one empty folder cannot both place one.
 */
export function placeDemoTemplate(databaseFile: string, template = DEMO_TEMPLATE_FILE): boolean {
  if (!existsSync(template) || existsSync(databaseFile)) return false;
  const aside = `${databaseFile}.${process.pid}.template`;
  try {
    copyFileSync(template, aside);
    linkSync(aside, databaseFile);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(aside, { force: true });
  }
}
