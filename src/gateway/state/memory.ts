import { EventEmitter } from 'node:events';
import { createInMemoryCache } from '@graphql-yoga/plugin-response-cache';
import type { BudgetState, Budgets, Channels, KeyValueStore, Leases, SharedState } from './store.js';

/** Options of `memoryState`. */
export interface MemoryStateOptions {
  /** Most entries of each key-value store (persisted queries). @default 1000 */
  maxEntries?: number;
  /** Most budgets kept (callers seen in their window). @default 100000 */
  maxBudgets?: number;
}

/** The shared state of one gateway process, in its memory: the default without `REDIS_URL`. */
export function memoryState(options: MemoryStateOptions = {}): SharedState {
  const emitter = new EventEmitter().setMaxListeners(0);
  return {
    store: () => memoryStore(options.maxEntries ?? 1000),
    responseCache: () => createInMemoryCache(),
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
 * A store in this process's memory, bounded: past `maxEntries`, the entry used least recently
 * goes first, and an entry past its time is gone when next read.
 */
export function memoryStore(maxEntries: number): KeyValueStore {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  return {
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt <= Date.now()) {
        entries.delete(key);
        return undefined;
      }
      keepRecent(entries, key, entry, maxEntries);
      return entry.value;
    },
    async set(key, value, ttlMs) {
      const expiresAt = ttlMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + ttlMs;
      keepRecent(entries, key, { value, expiresAt }, maxEntries);
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
      if (!budget) return { admitted: true, used: 0, held: 0, taken: 0, resetAt };
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
