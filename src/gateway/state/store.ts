import type { Cache } from '@graphql-yoga/plugin-response-cache';

/**
 * The state of the gateway that replicas share, behind one small interface: in this process's
 * memory for one gateway (`memoryState`), in Redis for replicas (`redisState`, `REDIS_URL`). The
 * gateway is otherwise stateless. Each part fails soft: when the store cannot be reached, a read
 * is a miss, a write is skipped, and the parts that must decide (rate limits, leases) answer
 * `undefined` so that their caller chooses.
 */
export interface SharedState {
  /**
   * A key-value store under `prefix`: within `bounds` when given (automatic persisted queries);
   * without, bounded in entries in memory, and by its entries' times in Redis (accepted tokens).
   */
  store(prefix: string, bounds?: StoreBounds): KeyValueStore;
  /** The response cache's entries and their entities, within `bounds`. */
  responseCache(prefix: string, bounds: StoreBounds): ResponseCacheStore;
  /**
   * Keys that may each be claimed once while they last (the platform's event deliveries already
   * taken): within `bounds` in memory, by their times in Redis.
   */
  claims(prefix: string, bounds: StoreBounds): Claims;
  /** Budgets of points per caller and window (cost-based rate limits). */
  readonly budgets: Budgets;
  /** Leases that elect one holder among replicas (one poller per followed resource). */
  readonly leases: Leases;
  /** Messages to every replica (subscription events). */
  readonly channels: Channels;
  /** Whether other processes may share this state (Redis): leases and channels then matter. */
  readonly replicated: boolean;
  /** Whether the store answers now. */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * What a store keeps at most, in bytes of its entries: a key, its value and `ENTRY_OVERHEAD_BYTES`
 * (the index that finds and ages it), so that many small entries are bounded as few large ones are.
 */
export interface StoreBounds {
  /** Most bytes of all entries: past it, the entries used least recently go first. */
  maxBytes: number;
  /** Largest entry kept; a larger one is not written. @default maxBytes */
  maxEntryBytes?: number;
}

/** Bytes an entry costs beyond its key and value: the index entries that find it, age it and count it. */
export const ENTRY_OVERHEAD_BYTES = 128;

/** The response cache's store: the plugin's `Cache`, and forgetting all of it at once. */
export interface ResponseCacheStore extends Cache {
  /** Forgets every entry (a change of who may read what: see `useGatewayResponseCache`). */
  clear(): Promise<void>;
}

export interface KeyValueStore {
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` under `key`, for `ttlMs` when given. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
}

/** Keys claimed once (see `SharedState.claims`). */
export interface Claims {
  /**
   * Claims `key` for `ttlMs`, atomically among replicas: true the first time, false while an earlier
   * claim of it lasts. While Redis cannot be reached, this process's own claims answer.
   */
  claim(key: string, ttlMs: number): Promise<boolean>;
}

/** A caller's budget in its current window, after a take or a settlement. */
export interface BudgetState {
  /** Whether the operation was admitted (always true for a settlement). */
  admitted: boolean;
  /**
   * Points spent in the window, the reservations of operations under way included: more than the
   * limit once an operation spent more than was left when it was admitted.
   */
  used: number;
  /** Points that operations under way reserved and have not settled yet: part of `used`. */
  held: number;
  /** Points this take reserved (0 for a refusal, a look at the budget, or a settlement). */
  taken: number;
  /** When the window ends and the budget is whole again (milliseconds since the epoch). */
  resetAt: number;
}

export interface Budgets {
  /**
   * Admits an operation that may spend up to `points` of `key`'s budget of `limit` per
   * `windowMs`, atomically: while something is left (`used < limit`; for `points` 0, while the
   * budget is not overspent), it reserves as much of `points` as is left and holds it until
   * `adjust` settles it; otherwise it takes nothing (`admitted: false`). A window starts with the
   * first take of points after the last one ended (taking 0 only looks). `undefined` when the store
   * cannot be reached.
   */
  take(key: string, points: number, limit: number, windowMs: number): Promise<BudgetState | undefined>;
  /**
   * Settles a take made in the window ending at `resetAt`: adds `points` to what was spent in it
   * (negative gives back what an operation reserved and did not spend; `used` never goes below 0),
   * and releases the `released` points it held. Nothing changes when that window is over. After a
   * look (a take of nothing, which starts no window), points spent start the window it answered. Answers
   * the caller's budget as it is then, or `undefined` when the store cannot be reached.
   */
  adjust(key: string, points: number, resetAt: number, released?: number): Promise<BudgetState | undefined>;
}

export interface Leases {
  /**
   * Takes the lease `name` for `holder`, or extends it when `holder` has it, for `ttlMs`: true when
   * `holder` holds it now, false when another does, `undefined` when the store cannot be reached.
   * A holder that dies stops extending it, and the lease moves on once its time is over.
   */
  hold(name: string, holder: string, ttlMs: number): Promise<boolean | undefined>;
  /** Gives the lease up when `holder` has it, so that another may take it at once. */
  release(name: string, holder: string): Promise<void>;
}

export interface Channels {
  /** Sends `message` to every subscriber of `channel`, in every replica. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls `listener` with each message of `channel` from the time its subscription is `ready`. */
  subscribe(channel: string, listener: (message: string) => void): ChannelSubscription;
  /**
   * Calls `listener` each time the channels are back after their connection was lost: messages
   * sent meanwhile never arrived (never, in one process). Answers how to stop.
   */
  onReconnect(listener: () => void): () => void;
}

export interface ChannelSubscription {
  /** Settles once messages sent from now on reach the listener (at once in memory; a round trip to Redis). */
  ready: Promise<void>;
  close(): void;
}
