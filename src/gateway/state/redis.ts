import type { Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import { Redis } from 'ioredis';
import { redactSecrets } from '../errors.js';
import type { BudgetState, Channels, SharedState } from './store.js';

/** Commands to Redis, by kind, as failures are counted (`graphql_gateway_shared_state_errors_total`). */
export type StateOperation = 'get' | 'set' | 'invalidate' | 'budget' | 'lease' | 'publish';

/** Options of `redisState`. */
export interface RedisOptions {
  /** Called when Redis goes away or comes back (logs), with a message free of credentials. */
  onStatus?: (up: boolean, message: string) => void;
  /** Called on each command that failed (metrics), with its kind. */
  onError?: (operation: StateOperation) => void;
  /** Most invalidations owed: past it, every cached answer is forgotten instead, once Redis answers. @default 10000 */
  maxOwedInvalidations?: number;
}

/**
 * Admits an operation that may spend up to ARGV[1] points of a budget, in the window that Redis's
 * clock says is current (every replica agrees on it, whatever their own clocks say). KEYS[1]: the
 * budget; ARGV: points, limit, window in milliseconds. While something is left (for 0 points,
 * while the budget is not overspent), reserves as much of the points as is left and holds it;
 * otherwise takes nothing. Answers { admitted (1/0), used, held, taken, resetAt }. Taking 0 points
 * writes nothing.
 */
const TAKE_POINTS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local points, limit = tonumber(ARGV[1]), tonumber(ARGV[2])
local budget = redis.call('HMGET', KEYS[1], 'used', 'held', 'reset')
local used, held, reset = tonumber(budget[1]) or 0, tonumber(budget[2]) or 0, tonumber(budget[3])
if not reset or reset <= now then
  used = 0; held = 0; reset = now + tonumber(ARGV[3])
  -- Taking nothing (a look at the budget) starts no window: a caller who spends nothing costs no key.
  if points == 0 then return { 1, 0, 0, 0, reset } end
end
local left = limit - used
if left < math.min(points, 1) then return { 0, used, held, 0, reset } end
local taken = math.min(points, left)
if taken == 0 then return { 1, used, held, 0, reset } end
used = used + taken; held = held + taken
redis.call('HSET', KEYS[1], 'used', used, 'held', held, 'reset', reset)
redis.call('PEXPIREAT', KEYS[1], reset)
return { 1, used, held, taken, reset }`;

/**
 * Settles a take of the budget KEYS[1] if its window still ends at ARGV[2]: adds ARGV[1] points
 * (negative: gives back) and releases the ARGV[3] points it held.
 */
const ADJUST_POINTS = `
local budget = redis.call('HMGET', KEYS[1], 'used', 'held', 'reset')
local used, held, reset = tonumber(budget[1]) or 0, tonumber(budget[2]) or 0, tonumber(budget[3])
if reset and reset == tonumber(ARGV[2]) then
  used = math.max(0, used + tonumber(ARGV[1]))
  held = math.max(0, held - tonumber(ARGV[3]))
  redis.call('HSET', KEYS[1], 'used', used, 'held', held)
end
return { 1, used, held, 0, reset or tonumber(ARGV[2]) }`;

/** Takes the lease KEYS[1] for ARGV[1] (or extends it when ARGV[1] has it) for ARGV[2] ms: 1 if held. */
const HOLD_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`;

/** Deletes the lease KEYS[1] if ARGV[1] holds it. */
const RELEASE_LEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/**
 * Longest wait for one Redis command. Redis answers in well under a millisecond; a server that
 * stopped answering (stalled, or a network that drops packets without a reset) costs the commands
 * under way this much, and the connection is then dropped: later commands fail at once until a
 * new one is ready.
 */
const COMMAND_TIMEOUT_MS = 1_000;

/** How often invalidations owed since a failure are tried again. */
const OWED_RETRY_MS = 1_000;

interface ScriptedRedis extends Redis {
  takePoints(key: string, points: number, limit: number, windowMs: number): Promise<BudgetReply>;
  adjustPoints(key: string, points: number, resetAt: number, released: number): Promise<BudgetReply>;
  holdLease(key: string, holder: string, ttlMs: number): Promise<number>;
  releaseLease(key: string, holder: string): Promise<number>;
}

/**
 * Shared state in Redis (`REDIS_URL`), for replicas of the gateway. Redis being down never fails a
 * request: a read is a miss, a write is skipped (commands fail at once rather than queue), budgets
 * and leases answer `undefined` for their caller to decide, and the client reconnects on its own.
 * A command Redis does not answer within `COMMAND_TIMEOUT_MS` fails the same way, and drops the
 * connection: until a new one is ready, commands fail at once instead of each waiting. An invalidation
 * that failed is owed, and tried again until Redis takes it (see `redisResponseCache`).
 */
export function redisState(url: string, options: RedisOptions = {}): SharedState {
  const redis = new Redis(url, {
    // Fail at once while disconnected: a request must not wait for Redis.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  }) as ScriptedRedis;
  redis.defineCommand('takePoints', { numberOfKeys: 1, lua: TAKE_POINTS });
  redis.defineCommand('adjustPoints', { numberOfKeys: 1, lua: ADJUST_POINTS });
  redis.defineCommand('holdLease', { numberOfKeys: 1, lua: HOLD_LEASE });
  redis.defineCommand('releaseLease', { numberOfKeys: 1, lua: RELEASE_LEASE });
  let up = false;
  redis.on('ready', () => {
    if (!up) options.onStatus?.(true, 'Redis is connected');
    up = true;
  });
  redis.on('error', (error: Error) => {
    if (up) options.onStatus?.(false, `Redis is unreachable: ${redactSecrets(error.message)}`);
    up = false;
  });
  redis.on('end', () => {
    up = false;
  });
  const failed = (operation: StateOperation) => (error?: unknown) => {
    options.onError?.(operation);
    if (up && error instanceof Error && error.message === 'Command timed out') {
      up = false;
      options.onStatus?.(false, `Redis did not answer within ${COMMAND_TIMEOUT_MS} ms: connecting again`);
      redis.disconnect(true);
      // The pub/sub connection, which waits for its commands, went silent with it: made again too.
      channels.reconnect();
    }
    return undefined;
  };
  const channels = redisChannels(redis, failed('publish'));
  const caches: Array<{ close(): void }> = [];
  return {
    store: (prefix) => ({
      get: (key) => redis.get(prefix + key).then((value) => value ?? undefined, failed('get')),
      set: (key, value, ttlMs) =>
        (ttlMs === undefined ? redis.set(prefix + key, value) : redis.set(prefix + key, value, 'PX', ttlMs)).then(
          () => undefined,
          failed('set'),
        ),
    }),
    responseCache: (prefix) => {
      const cache = redisResponseCache(redis, prefix, failed, options.maxOwedInvalidations ?? 10_000);
      caches.push(cache);
      return cache;
    },
    budgets: {
      take: (key, points, limit, windowMs) =>
        redis.takePoints(`budget:${key}`, points, limit, windowMs).then(budgetState, failed('budget')),
      adjust: (key, points, resetAt, released = 0) =>
        redis.adjustPoints(`budget:${key}`, points, resetAt, released).then(budgetState, failed('budget')),
    },
    leases: {
      hold: (name, holder, ttlMs) =>
        redis
          .holdLease(`lease:${name}`, holder, Math.max(1, Math.round(ttlMs)))
          .then((held) => held === 1, failed('lease')),
      release: (name, holder) => redis.releaseLease(`lease:${name}`, holder).then(() => undefined, failed('lease')),
    },
    channels,
    replicated: true,
    connected: () => up,
    close: async () => {
      for (const cache of caches) cache.close();
      channels.close();
      redis.disconnect();
    },
  };
}

/** What the budget scripts answer: admitted (1/0), used, held, taken, resetAt. */
type BudgetReply = [number, number, number, number, number];

function budgetState([admitted, used, held, taken, resetAt]: BudgetReply): BudgetState {
  return { admitted: admitted === 1, used, held, taken, resetAt };
}

/**
 * Pub/sub over a second connection (a subscribed connection serves nothing else), opened with the
 * first subscription. It queues while disconnected and subscribes again to every channel when it
 * reconnects; the messages sent while it was away are lost, and `onReconnect` tells whoever
 * must catch up.
 */
function redisChannels(redis: Redis, failed: () => undefined): Channels & { close(): void; reconnect(): void } {
  let subscriber: Redis | undefined;
  /** Per channel: its listeners here, and when Redis confirmed the subscription (a failure settles it too). */
  const channels = new Map<string, { listeners: Set<(message: string) => void>; ready: Promise<void> }>();
  const reconnected = new Set<() => void>();
  const connection = (): Redis => {
    if (subscriber) return subscriber;
    // Its commands wait for Redis (no timeout): a subscription is made once Redis can take it.
    subscriber = redis.duplicate({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined });
    subscriber.on('error', () => {}); // Told by the main connection's status.
    let connectedBefore = false;
    subscriber.on('ready', () => {
      if (connectedBefore) for (const listener of reconnected) listener();
      connectedBefore = true;
    });
    subscriber.on('message', (channel: string, message: string) => {
      for (const listener of channels.get(channel)?.listeners ?? []) listener(message);
    });
    return subscriber;
  };
  return {
    publish: (channel, message) => redis.publish(channel, message).then(() => undefined, failed),
    subscribe(channel, listener) {
      let entry = channels.get(channel);
      if (!entry) {
        const ready = connection()
          .subscribe(channel)
          .then(
            () => undefined,
            () => undefined,
          );
        entry = { listeners: new Set(), ready };
        channels.set(channel, entry);
      }
      const current = entry;
      current.listeners.add(listener);
      return {
        ready: current.ready,
        close() {
          current.listeners.delete(listener);
          if (current.listeners.size > 0 || channels.get(channel) !== current) return;
          channels.delete(channel);
          void subscriber?.unsubscribe(channel).catch(() => {});
        },
      };
    },
    onReconnect(listener) {
      reconnected.add(listener);
      return () => reconnected.delete(listener);
    },
    close: () => subscriber?.disconnect(),
    // Its channels are subscribed to again once it is back (ioredis's autoResubscribe).
    reconnect: () => subscriber?.disconnect(true),
  };
}

/** Entries forgotten per command when an invalidation forgets many. */
const INVALIDATION_SLICE = 500;

/** An object an answer holds, as the response cache names it: its type, and its id when it has one. */
type EntityRecord = { typename: string; id?: number | string };

/**
 * The response cache's entries in Redis: each answer under its key with its TTL, and for each
 * entity (type and id) and each type, the set of the entries holding it, so that a mutation
 * forgets exactly those.
 *
 * An invalidation Redis did not take (down, or not answering) is owed: it is tried again as soon
 * as the connection is ready, then every `OWED_RETRY_MS` until it is done, and meanwhile this
 * replica reads no entry, so that an answer cached before a mutation is not served after Redis is
 * back. Past `maxOwed` entities, every entry is forgotten instead. What a process owed
 * when it ended is lost: those entries end with their TTL.
 */
function redisResponseCache(
  redis: Redis,
  prefix: string,
  failed: (operation: StateOperation) => (error?: unknown) => undefined,
  maxOwed: number,
): Cache & { close(): void } {
  const entryKey = (id: string) => `${prefix}entry:${id}`;
  const holdersKey = ({ typename, id }: EntityRecord) =>
    id === undefined ? `${prefix}type:${typename}` : `${prefix}entity:${typename}:${id}`;
  /** Invalidations owed, by the key of their holders' set; `all` once there were too many. */
  const owed = new Map<string, EntityRecord>();
  let owedAll = false;
  let retry: NodeJS.Timeout | undefined;

  /** Forgets every entry holding `entity`, and the set of them. */
  async function forget(entity: EntityRecord): Promise<void> {
    const key = holdersKey(entity);
    const holders = await redis.zrange(key, 0, -1);
    // In slices: one command for a large set would hold Redis, and overflow the arguments.
    for (let start = 0; start < holders.length; start += INVALIDATION_SLICE)
      await redis.unlink(...holders.slice(start, start + INVALIDATION_SLICE).map(entryKey));
    await redis.unlink(key);
  }

  /** Forgets every entry and set of this cache (owed invalidations past `maxOwed`). */
  async function forgetAll(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', INVALIDATION_SLICE);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  function owe(entities: Iterable<EntityRecord>): void {
    for (const entity of entities) owed.set(holdersKey(entity), entity);
    if (owed.size > maxOwed) {
      owedAll = true;
      owed.clear();
    }
    retry ??= setInterval(() => void settleOwed(), OWED_RETRY_MS).unref();
  }

  /** The run of `settleOwed` under way, if any. */
  let settling: Promise<void> | undefined;
  /** Tries the owed invalidations again, one run at a time; what fails stays owed. */
  function settleOwed(): Promise<void> {
    settling ??= settleOnce().finally(() => {
      settling = undefined;
    });
    return settling;
  }

  async function settleOnce(): Promise<void> {
    if (owedAll) {
      // Cleared first: a forget-all owed again while this one scans stays owed.
      owedAll = false;
      try {
        await forgetAll();
      } catch (error) {
        owedAll = true;
        failed('invalidate')(error);
        return;
      }
    }
    for (const [key, entity] of owed) {
      try {
        await forget(entity);
        owed.delete(key);
      } catch (error) {
        failed('invalidate')(error);
        return;
      }
    }
    if (owed.size === 0 && !owedAll) {
      clearInterval(retry);
      retry = undefined;
    }
  }

  redis.on('ready', () => {
    if (owedAll || owed.size > 0) void settleOwed();
  });

  return {
    get: (id) =>
      owedAll || owed.size > 0
        ? Promise.resolve(undefined)
        : redis
            .get(entryKey(id))
            .then((text) => (text === null ? undefined : (JSON.parse(text) as ExecutionResult)), failed('get')),
    set(id, data, entities, ttl) {
      const batch = redis.multi();
      const text = JSON.stringify(data);
      const ms = Number.isFinite(ttl) ? Math.max(1, Math.round(ttl)) : undefined;
      if (ms === undefined) batch.set(entryKey(id), text);
      else batch.set(entryKey(id), text, 'PX', ms);
      const holders = new Set(
        [...entities].flatMap((entity) => [holdersKey(entity), holdersKey({ typename: entity.typename })]),
      );
      const now = Date.now();
      for (const key of holders) {
        // Each holder is scored by when its entry ends, and the ended ones go at each write: a set
        // written to forever (a busy type) stays the size of what still lives.
        batch.zremrangebyscore(key, '-inf', now);
        batch.zadd(key, ms === undefined ? '+inf' : now + ms, id);
        // A set lives as long as its longest-lived entry (Redis 7: NX for a new set, GT after).
        if (ms !== undefined) {
          batch.pexpire(key, ms, 'NX');
          batch.pexpire(key, ms, 'GT');
        }
      }
      return batch.exec().then(() => undefined, failed('set'));
    },
    async invalidate(entities) {
      const pending = [...entities];
      for (const [index, entity] of pending.entries()) {
        try {
          await forget(entity);
        } catch (error) {
          failed('invalidate')(error);
          owe(pending.slice(index));
          return;
        }
      }
    },
    close() {
      clearInterval(retry);
    },
  };
}
