import { createHash } from 'node:crypto';
import { cacheNamespace, jsonHeapBytes } from '../cache.js';
import type { Db } from '../store/db.js';

/**
 * Content-addressed storage: bytes are stored once under their SHA-256 (hex), whoever stores
 * them and however often. Revisions, documents and files are built on it, so content that two
 * revisions (or two spaces) share is stored once.
 */

/** The SHA-256 of `bytes`, in hex. */
export function hashOf(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Stores `bytes` (once) and returns their hash. */
export function putBlob(db: Db, bytes: Uint8Array | string): string {
  const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes);
  const hash = hashOf(data);
  db.prepare('INSERT OR IGNORE INTO blobs (hash, size, data) VALUES (?, ?, ?)').run(hash, data.length, data);
  return hash;
}

/** The bytes stored under `hash`, or undefined. */
export function getBlob(db: Db, hash: string): Buffer | undefined {
  return db.prepare('SELECT data FROM blobs WHERE hash = ?').pluck(true).get(hash) as Buffer | undefined;
}

/**
 * JSON with object keys sorted, so that equal values have equal bytes (and one hash) whatever
 * order their keys were written in. `undefined` properties are left out, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortedKeys(value));
}

/**
 * `value` with every object's keys in sorted order, for `JSON.stringify` to write as it is: an
 * object whose keys are in order already is used as it is (so is an array whose items are), and
 * only the others are copied, one level at a time. A large document holds hundreds of thousands
 * of objects: a sorted copy of all of them would double what it holds in memory while it is
 * written. (`JSON.stringify` leaves out `undefined` properties itself.)
 */
function sortedKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = sortedKeys(value[i]);
      if (item === value[i]) continue;
      copy ??= value.slice();
      copy[i] = item;
    }
    return copy ?? value;
  }
  const source = value as Record<string, unknown>;
  const keys = Object.keys(source);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! < keys[i]!;
  if (!inOrder) keys.sort();
  let copy: Record<string, unknown> | undefined = inOrder ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = sortedKeys(source[key]);
    if (copy === undefined && item !== source[key]) {
      copy = {};
      for (const before of keys.slice(0, i)) copy[before] = source[before];
    }
    if (copy !== undefined) copy[key] = item;
  }
  return copy ?? source;
}

/** Stores a JSON value (canonical form) and returns its hash. */
export function putJson(db: Db, value: unknown): string {
  return putBlob(db, canonicalJson(value));
}

/** Decoded JSON values by hash, with the size of their text: they never change. */
const decoded = cacheNamespace<{ value: unknown; bytes: number }>('json');

/**
 * The JSON value stored under `hash` (frozen, shared by every caller: never mutate it), or
 * undefined. Decoded values are kept in the platform's cache, since a value under a hash never
 * changes.
 */
export function getJson<T>(db: Db, hash: string): T | undefined {
  return getSizedJson<T>(db, hash)?.value;
}

/** `getJson` with the size of the stored text, for callers that keep what they build from the value. */
export function getSizedJson<T>(db: Db, hash: string): { value: T; bytes: number } | undefined {
  const known = decoded.get(db, hash);
  if (known) return known as { value: T; bytes: number };
  const bytes = getBlob(db, hash);
  if (!bytes) return undefined;
  const entry = { value: deepFreeze(JSON.parse(bytes.toString('utf8')) as unknown), bytes: bytes.length };
  decoded.set(db, hash, entry, jsonHeapBytes(bytes.length));
  return entry as { value: T; bytes: number };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
