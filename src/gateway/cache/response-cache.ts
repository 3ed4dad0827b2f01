import { type Cache, createInMemoryCache, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { compositeKey } from '../schema/kit/ids.js';
import { callerKeyOf } from '../state/caller.js';

/** Options of `useGatewayResponseCache`. */
export interface ResponseCacheOptions {
  /** How long an answer is kept, in milliseconds (`RESPONSE_CACHE_TTL_MS`). */
  ttlMs: number;
  /** Where answers are kept. @default in this process's memory */
  cache?: Cache;
}

/**
 * What changes faster or slower than the rest, as a share of the TTL: the state of background work
 * (Git Sync, translations, OpenAPI processing), integration events and the caller's rate-limit budget
 * are never kept, a revision never changes once written.
 */
const TTL_SHARE: Record<string, number> = {
  GitSyncState: 0,
  SpaceGitSync: 0,
  Translation: 0,
  OpenApiSpec: 0,
  IntegrationEvent: 0,
  // The caller's budget changes with every operation.
  'Query.rateLimit': 0,
  Revision: 10,
};

/** REST collections whose next segment is an object's key, with the node it names. */
const TOP_LEVEL: Record<string, string> = {
  orgs: 'Organization',
  spaces: 'Space',
  collections: 'Collection',
  integrations: 'Integration',
};
/** Collections under an organization whose objects are nodes keyed `organization/id`. */
const IN_ORGANIZATION: Record<string, string> = {
  sites: 'Site',
  translations: 'Translation',
  fonts: 'CustomFont',
  saml: 'SamlProvider',
  'conversations-clusters': 'IssuesCluster',
  openapi: 'OpenApiSpec',
};

/**
 * The response cache (`@graphql-yoga/plugin-response-cache`): answers without errors kept per
 * operation, variables and caller. The caller is a hash of the `Authorization` header, never the
 * token, so two tokens never share an entry. A hit runs nothing upstream (`extensions.cost`
 * says 0) and says so in `extensions.responseCache`. Every mutation through the gateway forgets the
 * answers holding an object it returned, and those holding an object whose REST path it wrote
 * under (the parents whose lists it changed: `POST /orgs/acme/spaces` forgets what holds the
 * organization). Explained requests (`x-explain: 1`), answers in parts (`@defer`, `@stream`) and
 * subscriptions are never served from the cache nor kept in it.
 */
export function useGatewayResponseCache(options: ResponseCacheOptions): Plugin[] {
  const cache = awaitingInvalidations(options.cache ?? createInMemoryCache());
  const ttlPerSchemaCoordinate = Object.fromEntries(
    Object.entries(TTL_SHARE).map(([type, share]) => [type, share * options.ttlMs]),
  );
  // Answers in parts (@defer, @stream) and subscriptions are never cached nor served from the cache:
  // a client asked for them to arrive as they resolve. Read off the text (a false match only bypasses).
  const inParts = new WeakSet<Request>();
  const markInParts: Plugin = {
    onParams({ request, params }) {
      if (typeof params.query === 'string' && IN_PARTS.test(params.query)) inParts.add(request);
    },
  };
  const responseCache = useResponseCache({
    cache,
    ttl: options.ttlMs,
    ttlPerSchemaCoordinate,
    session: (request) => callerKeyOf(request),
    enabled: (request) => request.headers.get('x-explain') !== '1' && !inParts.has(request),
    includeExtensionMetadata: true,
    shouldCacheResult: ({ result }) => !result.errors?.length,
  });
  const forgetWrittenParents: Plugin = {
    onExecute({ args }) {
      const ctx = args.contextValue as unknown as GatewayContext;
      return {
        onExecuteDone() {
          const entities = ctx.api.written.flatMap(entitiesOnPath);
          if (entities.length > 0) void cache.invalidate(entities);
        },
      };
    },
    // A mutation's answer leaves once what it invalidated is gone from the cache (Redis is
    // asynchronous): a read that follows it, through any replica, is fresh.
    onResultProcess: () => cache.settled(),
  };
  return [markInParts, responseCache, forgetWrittenParents];
}

/**
 * `cache` with its invalidations followed: `settled()` resolves once every one under way ended
 * (the response cache plugin does not wait for them).
 */
function awaitingInvalidations(cache: Cache): Cache & { settled(): Promise<void> | undefined } {
  const pending = new Set<Promise<unknown>>();
  return {
    get: (id) => cache.get(id),
    set: (...args) => cache.set(...args),
    invalidate(entities) {
      // A failed invalidation is the store's to report (the Redis store counts it): nobody waits on an error.
      const invalidation = Promise.resolve(cache.invalidate(entities)).catch(() => undefined);
      pending.add(invalidation);
      void invalidation.then(() => pending.delete(invalidation));
      return invalidation;
    },
    settled: () => (pending.size === 0 ? undefined : Promise.all(pending).then(() => undefined)),
  };
}

/** A document that may ask for an answer in parts, or a subscription. */
const IN_PARTS = /@defer\b|@stream\b|\bsubscription\b/;

/** The nodes a REST path names, as the cache records them (typename and global ID). */
export function entitiesOnPath(path: string): Array<{ typename: string; id: string }> {
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const found: Array<{ typename: string; id: string }> = [];
  const add = (typename: string, key: string) => found.push({ typename, id: encodeGlobalID(typename, key) });
  for (let index = 0; index + 1 < parts.length; index += 2) {
    const [collection = '', key = ''] = [parts[index], parts[index + 1]];
    const top = TOP_LEVEL[collection];
    if (index === 0 && top) add(top, key);
    if (index === 2 && parts[0] === 'orgs' && IN_ORGANIZATION[collection]) {
      add(IN_ORGANIZATION[collection], compositeKey(parts[1]!, key));
    }
    if (index === 2 && parts[0] === 'spaces' && collection === 'change-requests') {
      add('ChangeRequest', compositeKey(parts[1]!, key));
    }
  }
  return found;
}
