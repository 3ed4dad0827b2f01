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

/**
 * Budgets in memory. Past `maxBudgets` callers, the budget touched least recently is forgotten:
 * a forgotten caller starts a whole budget, which is the worst an attacker minting callers gets.
 */
function memoryBudgets(maxBudgets: number): Budgets {
  const budgets = new Map<string, { used: number; resetAt: number }>();
  const touch = (key: string, budget: { used: number; resetAt: number }) => {
    budgets.delete(key);
    budgets.set(key, budget);
    if (budgets.size > maxBudgets) budgets.delete(budgets.keys().next().value!);
  };
  return {
    async take(key, points, limit, windowMs): Promise<BudgetState> {
      const now = Date.now();
      const current = budgets.get(key);
      const budget = current && current.resetAt > now ? current : { used: 0, resetAt: now + windowMs };
      // Taking nothing (a look at the budget) starts no window.
      if (points === 0 && budget !== current) return { admitted: true, used: 0, resetAt: budget.resetAt };
      const admitted = budget.used + points <= limit;
      if (admitted) budget.used += points;
      touch(key, budget);
      return { admitted, used: budget.used, resetAt: budget.resetAt };
    },
    async adjust(key, points, resetAt): Promise<BudgetState> {
      const budget = budgets.get(key);
      if (!budget) return { admitted: true, used: 0, resetAt };
      if (budget.resetAt === resetAt) budget.used = Math.max(0, budget.used + points);
      return { admitted: true, used: budget.used, resetAt: budget.resetAt };
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
