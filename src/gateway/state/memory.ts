import { EventEmitter } from 'node:events';
import type { ExecutionResult } from 'graphql';
import {
  type BudgetState,
  type Budgets,
  type Channels,
  type Claims,
  ENTRY_OVERHEAD_BYTES,
  type KeyValueStore,
  type Leases,
  type ResponseCacheStore,
  type SharedState,
  type StoreBounds,
} from './store.js';

/** Options of `memoryState`. */
export interface MemoryStateOptions {
  /** Most entries of each key-value store given no bounds in bytes (accepted tokens). @default 1000 */
  maxEntries?: number;
  /** Most budgets kept (callers seen in their window). @default 100000 */
  maxBudgets?: number;
}

/** The shared state of one gateway process, in its memory: the default without `REDIS_URL`. */
export function memoryState(options: MemoryStateOptions = {}): SharedState {
  const emitter = new EventEmitter().setMaxListeners(0);
  return {
    store: (_prefix, bounds) => memoryStore(bounds ?? { maxEntries: options.maxEntries ?? 1000 }),
    responseCache: (_prefix, bounds) => memoryResponseCache(bounds),
    claims: (_prefix, bounds) => memoryClaims(bounds),
    budgets: memoryBudgets(options.maxBudgets ?? 100_000),
    leases: LOCAL_LEASES,
    channels: localChannels(emitter),
    replicated: false,
    connected: () => true,
    close: async () => {
      emitter.removeAllListeners();
    },
  };
}

/**
 * Puts `key` at the most recent end of `map`, and forgets the least recent entry past `max`: the
 * bound of every map of this process's state (a caller minting keys ages out the oldest).
 */
export function keepRecent<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

/**
 * A map of this process bounded in bytes (and, if asked, in entries), each entry weighing what its
 * writer says: past a bound, the entries used least recently go first (`onForget` hears of each
 * entry that goes, however it goes). The bound of every store and cache that grows with what
 * clients send.
 */
export class RecentBytes<K, V> {
  readonly #entries = new Map<K, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(
    /** Most bytes of all entries. */
    readonly maxBytes: number,
    readonly options: {
      /** Largest entry kept. @default maxBytes */
      maxEntryBytes?: number;
      /** Most entries. @default no bound */
      maxEntries?: number;
      onForget?: (key: K, value: V) => void;
    } = {},
  ) {}

  /** Bytes of the entries kept. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The value of `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** Keeps `value` under `key`, weighing `bytes`; false (and nothing kept) when it is over the largest entry. */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    if (bytes > Math.min(this.options.maxEntryBytes ?? this.maxBytes, this.maxBytes)) return false;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    const maxEntries = this.options.maxEntries ?? Number.POSITIVE_INFINITY;
    while (this.#bytes > this.maxBytes || this.#entries.size > maxEntries)
      this.delete(this.#entries.keys().next().value!);
    return true;
  }

  delete(key: K): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    this.options.onForget?.(key, entry.value);
  }

  clear(): void {
    for (const key of [...this.#entries.keys()]) this.delete(key);
  }
}

/** How much a store in memory keeps: entries, bytes (see `StoreBounds`), or both. */
export interface MemoryStoreBounds extends Partial<StoreBounds> {
  /** Most entries. @default no bound */
  maxEntries?: number;
}

/** A store in memory, and what it holds now. */
export interface MemoryStore extends KeyValueStore {
  /** Bytes of its entries (keys, values and `ENTRY_OVERHEAD_BYTES` each). */
  readonly bytes: number;
}

/**
 * A store in this process's memory, bounded: past `maxEntries` or `maxBytes`, the entries used
 * least recently go first; an entry over `maxEntryBytes` is not kept; an entry past its time is
 * gone when next read.
 */
export function memoryStore(bounds: MemoryStoreBounds): MemoryStore {
  const entries = new RecentBytes<string, { value: string; expiresAt: number }>(
    bounds.maxBytes ?? Number.POSITIVE_INFINITY,
    {
      ...(bounds.maxEntryBytes === undefined ? {} : { maxEntryBytes: bounds.maxEntryBytes }),
      ...(bounds.maxEntries === undefined ? {} : { maxEntries: bounds.maxEntries }),
    },
  );
  return {
    get bytes() {
      return entries.bytes;
    },
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.value;
    },
    async set(key, value, ttlMs) {
      const expiresAt = ttlMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttlMs;
      entries.set(key, { value, expiresAt }, Buffer.byteLength(key) + Buffer.byteLength(value) + ENTRY_OVERHEAD_BYTES);
    },
  };
}

/** Claims in memory, and what they hold now. */
export interface MemoryClaims extends Claims {
  /** Bytes of the claims kept (keys and `ENTRY_OVERHEAD_BYTES` each). */
  readonly bytes: number;
}

/**
 * Claims in this process's memory, bounded: past `maxBytes`, the claims made least recently go
 * first (each weighs its key and `ENTRY_OVERHEAD_BYTES`).
 */
export function memoryClaims(bounds: StoreBounds): MemoryClaims {
  const ends = new RecentBytes<string, number>(bounds.maxBytes);
  return {
    get bytes() {
      return ends.bytes;
    },
    async claim(key, ttlMs) {
      const now = Date.now();
      if ((ends.get(key) ?? 0) > now) return false;
      ends.set(key, now + ttlMs, Buffer.byteLength(key) + ENTRY_OVERHEAD_BYTES);
      return true;
    },
  };
}

/** The response cache in memory, and what it holds now. */
export interface MemoryResponseCache extends ResponseCacheStore {
  /** Bytes of its entries: their JSON, ids and index (see `memoryResponseCache`). */
  readonly bytes: number;
}

/**
 * The response cache in this process's memory, within `bounds`: each answer kept as its JSON (what
 * it weighs is then what it holds, and a hit hands out a copy of its own), with an index of the
 * entries holding each object and type, so that an invalidation forgets exactly those. An entry
 * counts its id, its JSON, `ENTRY_OVERHEAD_BYTES`, and its id again for each object or type it is
 * indexed under, with that object's name; past `maxBytes` the least recently used go first, and
 * an answer over `maxEntryBytes` is not kept.
 */
export function memoryResponseCache(bounds: StoreBounds): MemoryResponseCache {
  /** The entries holding each object (`Type:id`) and type (`Type`). */
  const holders = new Map<string, Set<string>>();
  const entries = new RecentBytes<string, { text: string; expiresAt: number; holders: string[] }>(bounds.maxBytes, {
    ...(bounds.maxEntryBytes === undefined ? {} : { maxEntryBytes: bounds.maxEntryBytes }),
    onForget(id, entry) {
      for (const holder of entry.holders) {
        const ids = holders.get(holder);
        ids?.delete(id);
        if (ids?.size === 0) holders.delete(holder);
      }
    },
  });
  return {
    get bytes() {
      return entries.bytes;
    },
    get(id) {
      const entry = entries.get(id);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        entries.delete(id);
        return undefined;
      }
      return JSON.parse(entry.text) as ExecutionResult;
    },
    set(id, data, entities, ttl) {
      const text = JSON.stringify(data);
      const names = new Set<string>();
      for (const entity of entities) {
        names.add(entity.typename);
        if (entity.id !== undefined) names.add(`${entity.typename}:${entity.id}`);
      }
      let bytes = Buffer.byteLength(id) + Buffer.byteLength(text) + ENTRY_OVERHEAD_BYTES;
      for (const name of names) bytes += Buffer.byteLength(name) + id.length;
      const expiresAt = Number.isFinite(ttl) ? Date.now() + ttl : Number.POSITIVE_INFINITY;
      if (!entries.set(id, { text, expiresAt, holders: [...names] }, bytes)) return;
      for (const name of names) {
        const ids = holders.get(name);
        if (ids) ids.add(id);
        else holders.set(name, new Set([id]));
      }
    },
    invalidate(entities) {
      for (const { typename, id } of entities) {
        for (const entry of [...(holders.get(id === undefined ? typename : `${typename}:${id}`) ?? [])]) {
          entries.delete(entry);
        }
      }
    },
    async clear() {
      entries.clear();
    },
  };
}

/**
 * Budgets in memory. Past `maxBudgets` callers, the budget touched least recently is forgotten:
 * a forgotten caller starts a whole budget, which is the worst an attacker minting callers gets.
 */
function memoryBudgets(maxBudgets: number): Budgets {
  const budgets = new Map<string, { used: number; held: number; resetAt: number }>();
  return {
    async take(key, points, limit, windowMs): Promise<BudgetState> {
      const now = Date.now();
      const current = budgets.get(key);
      const budget = current && current.resetAt > now ? current : { used: 0, held: 0, resetAt: now + windowMs };
      // Taking nothing (a look at the budget) starts no window.
      if (points === 0 && budget !== current)
        return { admitted: true, used: 0, held: 0, taken: 0, resetAt: budget.resetAt };
      const left = limit - budget.used;
      const admitted = left >= Math.min(points, 1);
      const taken = admitted ? Math.min(points, left) : 0;
      budget.used += taken;
      budget.held += taken;
      keepRecent(budgets, key, budget, maxBudgets);
      return { admitted, used: budget.used, held: budget.held, taken, resetAt: budget.resetAt };
    },
    async adjust(key, points, resetAt, released = 0): Promise<BudgetState> {
      const budget = budgets.get(key);
      const now = Date.now();
      if (!budget || budget.resetAt <= now) {
        // A look started no window: what the operation spent starts the one the look answered.
        if (points <= 0 || resetAt <= now) return { admitted: true, used: 0, held: 0, taken: 0, resetAt };
        keepRecent(budgets, key, { used: points, held: 0, resetAt }, maxBudgets);
        return { admitted: true, used: points, held: 0, taken: 0, resetAt };
      }
      if (budget.resetAt === resetAt) {
        budget.used = Math.max(0, budget.used + points);
        budget.held = Math.max(0, budget.held - released);
      }
      return { admitted: true, used: budget.used, held: budget.held, taken: 0, resetAt: budget.resetAt };
    },
  };
}

/** One process is always the holder of every lease. */
const LOCAL_LEASES: Leases = {
  hold: async () => true,
  release: async () => {},
};

function localChannels(emitter: EventEmitter): Channels {
  return {
    async publish(channel, message) {
      emitter.emit(channel, message);
    },
    subscribe(channel, listener) {
      emitter.on(channel, listener);
      return { ready: Promise.resolve(), close: () => emitter.off(channel, listener) };
    },
    // Messages in one process are never lost.
    onReconnect: () => () => {},
  };
}
