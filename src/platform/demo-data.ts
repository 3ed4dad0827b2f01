import type { Db } from './store/db.js';

/** `{ "<email>": "<token>" }`, the first entry an admin of every demo organization. */
export type DemoTokens = Record<string, string>;

/**
 * Seeds the demo data set the first time it runs on a database, and returns the demo users'
 * tokens (the stored ones on later runs).
 */
export function seedDemoData(_db: Db): DemoTokens {
  return {};
}
