/**
 * Shared state of the gateway (automatic persisted queries today; the response cache, the
 * subscription fan-out and rate limits are meant to sit here too) behind one small interface:
 * in memory for one process, and the same interface over Redis for replicas.
 */
export interface KeyValueStore {
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key`, for `ttlMs` when given. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
}

/**
 * A store in this process's memory, bounded: past `maxEntries`, the entry used least recently
 * goes first, and an entry past its time is gone when next read.
 */
export function memoryStore(maxEntries: number): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= Date.now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    async set(key, value, ttlMs) {
      entries.delete(key);
      entries.set(key, { value, expiresAt: ttlMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttlMs });
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value!);
    },
  };
}
