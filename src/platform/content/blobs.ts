import { createHash } from 'node:crypto';
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
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined) sorted[key] = sortKeys(item);
  }
  return sorted;
}

/** Stores a JSON value (canonical form) and returns its hash. */
export function putJson(db: Db, value: unknown): string {
  return putBlob(db, canonicalJson(value));
}

/** Decoded JSON values kept by hash: they never change. */
const MAX_DECODED = 20_000;
const decoded = new WeakMap<Db, Map<string, unknown>>();

/**
 * The JSON value stored under `hash` (frozen, shared by every caller: never mutate it), or
 * undefined. Decoded values are kept, since a value under a hash never changes.
 */
export function getJson<T>(db: Db, hash: string): T | undefined {
  let cache = decoded.get(db);
  if (!cache) {
    cache = new Map();
    decoded.set(db, cache);
  }
  const known = cache.get(hash);
  if (known !== undefined) {
    // Most recently used last: the oldest entries are dropped first.
    cache.delete(hash);
    cache.set(hash, known);
    return known as T;
  }
  const bytes = getBlob(db, hash);
  if (!bytes) return undefined;
  const value = deepFreeze(JSON.parse(bytes.toString('utf8')) as unknown);
  if (cache.size >= MAX_DECODED) cache.delete(cache.keys().next().value!);
  cache.set(hash, value);
  return value as T;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
