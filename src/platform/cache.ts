import type { Db } from './store/db.js';

/**
 * The platform's one cache of derived values: decoded JSON of the content store, revision
 * contents, the search sections of documents… Every such cache is a namespace of one
 * least-recently-used store bounded in bytes (`PLATFORM_CACHE_MB`), so the memory the platform
 * keeps grows with neither what it has read nor the number of caches: reading the next value
 * drops the values least recently used, whatever namespace they belong to.
 *
 * The bytes of an entry are an estimate given by whoever puts it (`jsonHeapBytes`,
 * `textHeapBytes`); an entry larger than a quarter of the budget is not kept at all, so one big
 * document never flushes everything else.
 */

/** Default budget of the cache, in MiB. */
export const DEFAULT_CACHE_MB = 48;

/** A least-recently-used map whose entries weigh what their `bytes` say, at most `maxBytes` in all. */
export class ByteLru<K, V> {
  private readonly entries = new Map<K, { value: V; bytes: number }>();
  private total = 0;

  constructor(private maxBytes: number) {}

  /** The value under `key`, now the most recently used; undefined when it is not kept. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map order is insertion order: the most recently used go last, the first are dropped first.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key`, weighing `bytes`, and drops the least recently used past the budget. */
  set(key: K, value: V, bytes: number): void {
    this.delete(key);
    if (bytes > this.maxBytes / 4) return;
    this.entries.set(key, { value, bytes });
    this.total += bytes;
    this.evict();
  }

  delete(key: K): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
  }

  /** Changes the budget (dropping what no longer fits). */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    this.evict();
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  /** Entries and bytes kept. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.total };
  }

  private evict(): void {
    for (const [key, entry] of this.entries) {
      if (this.total <= this.maxBytes) return;
      this.entries.delete(key);
      this.total -= entry.bytes;
    }
  }
}

const shared = new ByteLru<string, unknown>(DEFAULT_CACHE_MB * 1024 * 1024);

/** Sets the budget of the platform's cache, in MiB. */
export function setCacheBudget(megabytes: number): void {
  shared.resize(megabytes * 1024 * 1024);
}

/** Entries and bytes the platform's cache keeps (for tests and measurements). */
export function cacheSize(): { entries: number; bytes: number } {
  return shared.size;
}

const databaseIds = new WeakMap<Db, number>();
let nextDatabaseId = 0;

/** A namespace of the platform's cache, for values derived from a database. */
export interface CacheNamespace<V> {
  get(db: Db, key: string): V | undefined;
  set(db: Db, key: string, value: V, bytes: number): void;
}

/** A namespace `name` of the shared cache; keys are per database, so two databases never share an entry. */
export function cacheNamespace<V>(name: string): CacheNamespace<V> {
  const prefix = (db: Db) => {
    let id = databaseIds.get(db);
    if (id === undefined) {
      id = nextDatabaseId += 1;
      databaseIds.set(db, id);
    }
    return `${name}:${id}:`;
  };
  return {
    get: (db, key) => shared.get(prefix(db) + key) as V | undefined,
    set: (db, key, value, bytes) => shared.set(prefix(db) + key, value, bytes),
  };
}

/**
 * Heap taken by a value parsed from `textBytes` of JSON: about twice its text (measured on
 * documents: objects, arrays and short strings), rounded up.
 */
export const jsonHeapBytes = (textBytes: number) => 2 * textBytes + 64;

/** Heap taken by strings of `chars` characters in all (two bytes a character at most), plus `objects` small objects. */
export const textHeapBytes = (chars: number, objects = 1) => 2 * chars + 64 * objects;
