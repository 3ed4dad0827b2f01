import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/db.js';

/**
 * Signed URLs: links the platform hands out that work without an API token (a file's download
 * URL, a PDF valid for an hour), and that nobody can forge or alter. The key is made on first
 * use and kept in the database, so URLs stay valid across restarts.
 */

const KEY_NAME = 'url-signing-key';
const keys = new WeakMap<Db, Buffer>();

function signingKey(db: Db): Buffer {
  let key = keys.get(db);
  if (key) return key;
  const stored = db.prepare('SELECT value FROM meta WHERE key = ?').pluck(true).get(KEY_NAME) as string | undefined;
  if (stored) {
    key = Buffer.from(stored, 'base64');
  } else {
    key = randomBytes(32);
    // Another process may have made one meanwhile: the stored key wins.
    db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(KEY_NAME, key.toString('base64'));
    key = Buffer.from(db.prepare('SELECT value FROM meta WHERE key = ?').pluck(true).get(KEY_NAME) as string, 'base64');
  }
  keys.set(db, key);
  return key;
}

/** The signature of `parts` (joined unambiguously), URL-safe. */
export function sign(db: Db, parts: readonly string[]): string {
  return createHmac('sha256', signingKey(db)).update(JSON.stringify(parts)).digest('base64url');
}

/**
 * A 32-byte key for one `purpose` (encrypting integration secrets, signing event deliveries…),
 * derived from the platform's stored key: one secret to keep, and no key serves two purposes.
 */
export function derivedKey(db: Db, purpose: string): Buffer {
  // Signatures cover a JSON array (it starts with "["): a derivation never collides with one.
  return createHmac('sha256', signingKey(db)).update(`derived-key:${purpose}`).digest();
}

/** True when `signature` is the signature of `parts`. */
export function verify(db: Db, parts: readonly string[], signature: string | undefined): boolean {
  if (typeof signature !== 'string') return false;
  const expected = Buffer.from(sign(db, parts));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
