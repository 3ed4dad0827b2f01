import type { Cache } from '@graphql-yoga/plugin-response-cache';
import type { ExecutionResult } from 'graphql';
import { Redis } from 'ioredis';
import { redactSecrets } from '../errors.js';
import type { KeyValueStore } from './store.js';

/** What the gateway keeps in Redis, and how it fares with it. */
export interface SharedState {
  /** A key-value store under `prefix` (automatic persisted queries). */
  store(prefix: string): KeyValueStore;
  /** The response cache's entries and their entities. */
  responseCache(prefix: string): Cache;
  /** Whether Redis answers now. */
  connected(): boolean;
  close(): Promise<void>;
}

/** Options of `connectRedis`. */
export interface RedisOptions {
  /** Called when Redis goes away or comes back (logs), with a message free of credentials. */
  onStatus?: (up: boolean, message: string) => void;
  /** Called on each command that failed (metrics), with its kind. */
  onError?: (operation: 'get' | 'set' | 'invalidate') => void;
}

/**
 * Shared state in Redis (`REDIS_URL`), for replicas of the gateway. Redis being down never fails a
 * request: a read is a miss, a write is skipped (commands fail at once rather than queue), and
 * the client reconnects on its own. An invalidation lost while Redis was down leaves entries that
 * end with their TTL.
 */
export function connectRedis(url: string, options: RedisOptions = {}): SharedState {
  const redis = new Redis(url, {
    // Fail at once while disconnected: a request must not wait for Redis.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
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
  const failed = (operation: 'get' | 'set' | 'invalidate') => () => {
    options.onError?.(operation);
    return undefined;
  };
  return {
    store: (prefix) => ({
      get: (key) => redis.get(prefix + key).then((value) => value ?? undefined, failed('get')),
      set: (key, value, ttlMs) =>
        (ttlMs === undefined ? redis.set(prefix + key, value) : redis.set(prefix + key, value, 'PX', ttlMs)).then(
          () => undefined,
          failed('set'),
        ),
    }),
    responseCache: (prefix) => redisResponseCache(redis, prefix, failed),
    connected: () => up,
    close: async () => {
      redis.disconnect();
    },
  };
}

/** An object an answer holds, as the response cache names it: its type, and its id when it has one. */
type EntityRecord = { typename: string; id?: number | string };

/**
 * The response cache's entries in Redis: each answer under its key with its TTL, and for each
 * entity (type and id) and each type, the set of the entries holding it, so that a mutation
 * forgets exactly those.
 */
function redisResponseCache(
  redis: Redis,
  prefix: string,
  failed: (operation: 'get' | 'set' | 'invalidate') => () => undefined,
): Cache {
  const entryKey = (id: string) => `${prefix}entry:${id}`;
  const holdersKey = ({ typename, id }: EntityRecord) =>
    id === undefined ? `${prefix}type:${typename}` : `${prefix}entity:${typename}:${id}`;
  return {
    get: (id) =>
      redis
        .get(entryKey(id))
        .then((text) => (text === null ? undefined : (JSON.parse(text) as ExecutionResult)), failed('get')),
    set(id, data, entities, ttl) {
      const batch = redis.multi();
      const text = JSON.stringify(data);
      if (Number.isFinite(ttl)) batch.set(entryKey(id), text, 'PX', Math.max(1, Math.round(ttl)));
      else batch.set(entryKey(id), text);
      for (const entity of entities) {
        batch.sadd(holdersKey(entity), id);
        batch.sadd(holdersKey({ typename: entity.typename }), id);
      }
      return batch.exec().then(() => undefined, failed('set'));
    },
    async invalidate(entities) {
      try {
        for (const entity of entities) {
          const key = holdersKey(entity);
          const holders = await redis.smembers(key);
          await redis.del(key, ...holders.map(entryKey));
        }
      } catch {
        failed('invalidate')();
      }
    },
  };
}
