import type { ExecutionResult } from 'graphql';
import { Redis } from 'ioredis';
import { redactSecrets } from '../errors.js';
import {
  type BudgetState,
  type Channels,
  ENTRY_OVERHEAD_BYTES,
  type KeyValueStore,
  type ResponseCacheStore,
  type SharedState,
  type StoreBounds,
} from './store.js';
import { memoryClaims } from './memory.js';

/** Commands to Redis, by kind, as failures are counted (`graphql_gateway_shared_state_errors_total`). */
export type StateOperation = 'get' | 'set' | 'invalidate' | 'budget' | 'lease' | 'publish' | 'claim';

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
 * (negative: gives back) and releases the ARGV[3] points it held. A take of nothing (a look)
 * started no window: points spent after one start the window it answered, while that is not over.
 */
const ADJUST_POINTS = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local points, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local budget = redis.call('HMGET', KEYS[1], 'used', 'held', 'reset')
local used, held, reset = tonumber(budget[1]) or 0, tonumber(budget[2]) or 0, tonumber(budget[3])
if reset and reset == window then
  used = math.max(0, used + points)
  held = math.max(0, held - tonumber(ARGV[3]))
  redis.call('HSET', KEYS[1], 'used', used, 'held', held)
elseif points > 0 and (not reset or reset <= now) and window > now then
  -- A look started no window: what the operation spent starts the one the look answered.
  used = points; held = 0; reset = window
  redis.call('HSET', KEYS[1], 'used', used, 'held', held, 'reset', reset)
  redis.call('PEXPIREAT', KEYS[1], reset)
end
return { 1, used, held, 0, reset or window }`;

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

/** Redis's clock in milliseconds, for the scripts below (every replica agrees on it). */
const NOW = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`;

/**
 * A bounded store's entries: each value at `<prefix>entry:<key>` (with its time, when it has one),
 * and the index that bounds them: `<prefix>used` (a sorted set of keys by last use), `<prefix>ends`
 * (by end of their time), `<prefix>sizes` (a hash of their bytes) and `<prefix>bytes` (their sum).
 * KEYS: used, ends, sizes, bytes; ARGV[1]: the prefix of entries. `forget` drops one entry and its
 * index; entries past their time (whose value Redis dropped already) leave the count at each write.
 */
const BOUNDED_STORE = `${NOW}
local used, ends, sizes, total, entries = KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1]
local function forget(key)
  local size = tonumber(redis.call('HGET', sizes, key))
  if size then
    redis.call('DECRBY', total, size)
    redis.call('HDEL', sizes, key)
  end
  redis.call('ZREM', used, key)
  redis.call('ZREM', ends, key)
  redis.call('DEL', entries .. key)
end
for _, key in ipairs(redis.call('ZRANGEBYSCORE', ends, '-inf', now, 'LIMIT', 0, 100)) do forget(key) end`;

/**
 * Writes ARGV[3] under the key ARGV[2] of a bounded store (see `BOUNDED_STORE`), for ARGV[4] ms (0:
 * no end), then forgets the entries used least recently while the store holds more than ARGV[5]
 * bytes. An entry of more than ARGV[6] bytes (key, value and ARGV[7] of index) is not written: 0.
 */
const BOUNDED_SET = `${BOUNDED_STORE}
local key, value, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
local max, maxEntry = tonumber(ARGV[5]), tonumber(ARGV[6])
forget(key)
local size = #key + #value + tonumber(ARGV[7])
if size > maxEntry then return 0 end
local held = tonumber(redis.call('GET', total)) or 0
while held + size > max do
  local oldest = redis.call('ZRANGE', used, 0, 0)[1]
  -- Nothing left to forget: whatever the count says, the store is empty.
  if not oldest then redis.call('SET', total, 0); held = 0; break end
  forget(oldest)
  held = tonumber(redis.call('GET', total)) or 0
end
if ttl > 0 then
  redis.call('SET', entries .. key, value, 'PX', ttl)
  redis.call('ZADD', ends, now + ttl, key)
else
  redis.call('SET', entries .. key, value)
end
redis.call('ZADD', used, now, key)
redis.call('HSET', sizes, key, size)
redis.call('INCRBY', total, size)
return 1`;

/** Reads the key ARGV[2] of a bounded store (see `BOUNDED_STORE`), which makes it the last used. */
const BOUNDED_GET = `${NOW}
local value = redis.call('GET', ARGV[1] .. ARGV[2])
if value then redis.call('ZADD', KEYS[1], 'XX', now, ARGV[2]) end
return value`;

/**
 * The response cache's entries: each answer at `<prefix>entry:<id>` with its time, the objects and
 * types that hold it at `<prefix>holders:<id>`, and for each of those the sorted set of the entries
 * holding it (`<prefix>entity:<Type>:<id>`, `<prefix>type:<Type>`, scored by when each entry ends);
 * the index that bounds them: `<prefix>ends` (the entries by end of their time), `<prefix>sizes` and
 * `<prefix>bytes`. KEYS: ends, sizes, bytes; ARGV[1]: the prefix. `forget` drops one entry and
 * every trace of it; entries past their time leave the index and the count at each write.
 */
const CACHE_INDEX = `${NOW}
local ends, sizes, total, prefix = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
local function forget(id)
  local size = tonumber(redis.call('HGET', sizes, id))
  if size then
    redis.call('DECRBY', total, size)
    redis.call('HDEL', sizes, id)
  end
  redis.call('ZREM', ends, id)
  local holders = prefix .. 'holders:' .. id
  for _, holder in ipairs(redis.call('SMEMBERS', holders)) do redis.call('ZREM', holder, id) end
  redis.call('DEL', prefix .. 'entry:' .. id, holders)
end`;

/**
 * Keeps the answer ARGV[3] under the id ARGV[2] for ARGV[4] ms (0: no end), held by the objects and
 * types ARGV[8…] (keys of their sets), then forgets the entries ending soonest while the cache
 * holds more than ARGV[5] bytes. An entry counts its id, its JSON, ARGV[7] of index, and its id
 * again with each holder's name; one of more than ARGV[6] bytes is not written: 0.
 */
const CACHE_SET = `${CACHE_INDEX}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', ends, '-inf', now, 'LIMIT', 0, 100)) do forget(id) end
local id, text, ttl = ARGV[2], ARGV[3], tonumber(ARGV[4])
local max, maxEntry = tonumber(ARGV[5]), tonumber(ARGV[6])
forget(id)
local size = #id + #text + tonumber(ARGV[7])
for i = 8, #ARGV do size = size + #ARGV[i] + #id end
if size > maxEntry then return 0 end
local held = tonumber(redis.call('GET', total)) or 0
while held + size > max do
  local soonest = redis.call('ZRANGE', ends, 0, 0)[1]
  if not soonest then redis.call('SET', total, 0); held = 0; break end
  forget(soonest)
  held = tonumber(redis.call('GET', total)) or 0
end
local score = '+inf'
if ttl > 0 then score = now + ttl end
local holders = prefix .. 'holders:' .. id
if ttl > 0 then redis.call('SET', prefix .. 'entry:' .. id, text, 'PX', ttl) else redis.call('SET', prefix .. 'entry:' .. id, text) end
for i = 8, #ARGV do
  local holder = ARGV[i]
  -- The ended entries go at each write: a set written to forever (a busy type) stays the size of what lives.
  redis.call('ZREMRANGEBYSCORE', holder, '-inf', now)
  redis.call('ZADD', holder, score, id)
  redis.call('SADD', holders, holder)
  -- A set lives as long as its longest-lived entry (NX for a new set, GT after).
  if ttl > 0 then
    redis.call('PEXPIRE', holder, ttl, 'NX')
    redis.call('PEXPIRE', holder, ttl, 'GT')
  else
    redis.call('PERSIST', holder)
  end
end
if ttl > 0 then redis.call('PEXPIRE', holders, ttl) end
redis.call('ZADD', ends, score, id)
redis.call('HSET', sizes, id, size)
redis.call('INCRBY', total, size)
return 1`;

/** Forgets the entries ARGV[2…] of the response cache (see `CACHE_INDEX`). */
const CACHE_FORGET = `${CACHE_INDEX}
for i = 2, #ARGV do forget(ARGV[i]) end
return 1`;

/**
 * Forgets the ARGV[2] entries of the response cache ending soonest, and the count once none is
 * left: answers how many are left.
 */
const CACHE_FORGET_SOONEST = `${CACHE_INDEX}
for _, id in ipairs(redis.call('ZRANGE', ends, 0, tonumber(ARGV[2]) - 1)) do forget(id) end
local left = redis.call('ZCARD', ends)
if left == 0 then redis.call('DEL', sizes, total) end
return left`;

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
  boundedSet(...keysAndArgs: Array<string | number>): Promise<number>;
  boundedGet(used: string, entries: string, key: string): Promise<string | null>;
  cacheSet(...keysAndArgs: Array<string | number>): Promise<number>;
  cacheForget(...keysAndArgs: string[]): Promise<number>;
  cacheForgetSoonest(ends: string, sizes: string, bytes: string, prefix: string, count: number): Promise<number>;
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
  redis.defineCommand('boundedSet', { numberOfKeys: 4, lua: BOUNDED_SET });
  redis.defineCommand('boundedGet', { numberOfKeys: 1, lua: BOUNDED_GET });
  redis.defineCommand('cacheSet', { numberOfKeys: 3, lua: CACHE_SET });
  redis.defineCommand('cacheForget', { numberOfKeys: 3, lua: CACHE_FORGET });
  redis.defineCommand('cacheForgetSoonest', { numberOfKeys: 3, lua: CACHE_FORGET_SOONEST });
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
    store: (prefix, bounds) =>
      bounds
        ? redisBoundedStore(redis, prefix, bounds, failed)
        : {
            get: (key) => redis.get(prefix + key).then((value) => value ?? undefined, failed('get')),
            set: (key, value, ttlMs) =>
              (ttlMs === undefined ? redis.set(prefix + key, value) : redis.set(prefix + key, value, 'PX', ttlMs)).then(
                () => undefined,
                failed('set'),
              ),
          },
    responseCache: (prefix, bounds) => {
      const cache = redisResponseCache(redis, prefix, bounds, failed, options.maxOwedInvalidations ?? 10_000);
      caches.push(cache);
      return cache;
    },
    claims: (prefix, bounds) => {
      // Answers while Redis is away: a claim then holds on this replica alone.
      const local = memoryClaims(bounds);
      return {
        claim: async (key, ttlMs) => {
          if (!(await local.claim(key, ttlMs))) return false;
          const shared = await redis
            .set(prefix + key, '1', 'PX', Math.max(1, Math.round(ttlMs)), 'NX')
            .then((answer) => answer === 'OK', failed('claim'));
          return shared ?? true;
        },
      };
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

/**
 * A store in Redis within `bounds`, for every replica together (see `BOUNDED_STORE`): a write
 * forgets the entries used least recently while the store holds more than `maxBytes`, and a read
 * makes its entry the last used, both in one script each (atomic, on Redis's clock). An entry past
 * its time goes as Redis would drop it; until the next write, it still counts (the store then
 * holds less than its bound, never more).
 */
function redisBoundedStore(
  redis: ScriptedRedis,
  prefix: string,
  bounds: StoreBounds,
  failed: (operation: StateOperation) => (error?: unknown) => undefined,
): KeyValueStore {
  const index = [`${prefix}used`, `${prefix}ends`, `${prefix}sizes`, `${prefix}bytes`];
  const entries = `${prefix}entry:`;
  const maxEntryBytes = bounds.maxEntryBytes ?? bounds.maxBytes;
  return {
    get: (key) => redis.boundedGet(index[0]!, entries, key).then((value) => value ?? undefined, failed('get')),
    set: (key, value, ttlMs) =>
      redis
        .boundedSet(
          ...index,
          entries,
          key,
          value,
          ttlMs === undefined ? 0 : Math.max(1, Math.round(ttlMs)),
          bounds.maxBytes,
          maxEntryBytes,
          ENTRY_OVERHEAD_BYTES,
        )
        .then(() => undefined, failed('set')),
  };
}

/** Entries forgotten per command when an invalidation forgets many. */
const INVALIDATION_SLICE = 500;

/** An object an answer holds, as the response cache names it: its type, and its id when it has one. */
type EntityRecord = { typename: string; id?: number | string };

/**
 * The response cache's entries in Redis (see `CACHE_INDEX`): each answer with its TTL, and for each
 * entity (type and id) and each type, the set of the entries holding it, so that a mutation
 * forgets exactly those. Within `bounds` for every replica together: a write forgets the entries
 * ending soonest while the cache holds more than `maxBytes` (with one TTL, the oldest), and an
 * answer over `maxEntryBytes` is not kept.
 *
 * An invalidation Redis did not take (down, or not answering) is owed: it is tried again as soon
 * as the connection is ready, then every `OWED_RETRY_MS` until it is done, and meanwhile this
 * replica reads no entry, so that an answer cached before a mutation is not served after Redis is
 * back. Past `maxOwed` entities, every entry is forgotten instead. What a process owed
 * when it ended is lost: those entries end with their TTL.
 */
function redisResponseCache(
  redis: ScriptedRedis,
  prefix: string,
  bounds: StoreBounds,
  failed: (operation: StateOperation) => (error?: unknown) => undefined,
  maxOwed: number,
): ResponseCacheStore & { close(): void } {
  const indexKeys = [`${prefix}ends`, `${prefix}sizes`, `${prefix}bytes`] as const;
  const maxEntryBytes = bounds.maxEntryBytes ?? bounds.maxBytes;
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
      await redis.cacheForget(...indexKeys, prefix, ...holders.slice(start, start + INVALIDATION_SLICE));
    await redis.unlink(key);
  }

  /** Forgets every entry of this cache, a slice at a time (those written meanwhile may go too). */
  async function forgetAll(): Promise<void> {
    let left = await redis.cacheForgetSoonest(...indexKeys, prefix, INVALIDATION_SLICE);
    // Bounded: entries written while it runs cannot keep it going.
    for (let rounds = Math.ceil(left / INVALIDATION_SLICE); left > 0 && rounds > 0; rounds -= 1)
      left = await redis.cacheForgetSoonest(...indexKeys, prefix, INVALIDATION_SLICE);
  }

  function owe(entities: Iterable<EntityRecord>): void {
    for (const entity of entities) owed.set(holdersKey(entity), entity);
    if (owed.size > maxOwed) oweAll();
    retry ??= setInterval(() => void settleOwed(), OWED_RETRY_MS).unref();
  }

  function oweAll(): void {
    owedAll = true;
    owed.clear();
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
      // Cleared first: a forget-all owed again while this one runs stays owed.
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
      const text = JSON.stringify(data);
      // Not even sent when it is too large: its JSON and id alone are over the bound.
      if (Buffer.byteLength(text) + id.length > maxEntryBytes) return;
      const holders = new Set(
        [...entities].flatMap((entity) => [holdersKey(entity), holdersKey({ typename: entity.typename })]),
      );
      const ms = Number.isFinite(ttl) ? Math.max(1, Math.round(ttl)) : 0;
      return redis
        .cacheSet(...indexKeys, prefix, id, text, ms, bounds.maxBytes, maxEntryBytes, ENTRY_OVERHEAD_BYTES, ...holders)
        .then(() => undefined, failed('set'));
    },
    async clear() {
      try {
        await forgetAll();
      } catch (error) {
        failed('invalidate')(error);
        oweAll();
      }
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
