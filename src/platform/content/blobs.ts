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
  return JSON.stringify(value, sortedKeys);
}

/**
 * `JSON.stringify`'s replacer giving each object with its keys sorted: a copy of one object at a
 * time, written at once and dropped (a sorted copy of the whole value would double what a large
 * document holds in memory while it is written), and none of an object whose keys are in order.
 */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  let inOrder = true;
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! < keys[i]!;
  if (inOrder) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of keys.sort()) sorted[key] = (value as Record<string, unknown>)[key];
  return sorted;
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
