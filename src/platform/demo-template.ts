import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catchUpSearchIndex } from './content/current.js';
import { seedDemoData } from './demo-data.js';
import { openDatabase } from './store/db.js';

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
