import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { partsOf } from '../request-parts.js';
import { ENTRY_VERSION_HEADER, entryTag } from './response-cache.js';
import { callerOf } from '../state/caller.js';
import { operationOf } from '../telemetry/operations.js';

/** How an answer may be kept by the browser and by shared caches (see `useHttpCaching`). */
interface HttpCaching {
  /** Its `Cache-Control`. */
  cacheControl: string;
  /** Whether it keeps the `ETag` and `Last-Modified` of the response cache's entry (a GET answer the cache holds). */
  validated: boolean;
  /** Whether shared caches may keep it (`public`): the rate limits then send no caller's budget with it. */
  shared?: boolean;
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** Set by `useHttpCaching` when the operation is a mutation: its answer is never kept. */
    mutation?: boolean | undefined;
    /** How the GraphQL answer of the request may be kept, once its result is known. */
    httpCaching?: HttpCaching | undefined;
  }
}

/** Options of `useHttpCaching`. */
export interface HttpCachingOptions {
  /** The response cache's TTL in milliseconds (`RESPONSE_CACHE_TTL_MS`), when it is on: without it nothing is public. */
  responseCacheTtlMs?: number | undefined;
}

/** What a browser or a CDN may not keep at all. */
const NO_STORE = 'private, no-store';
/** What only the caller's browser may keep, and must revalidate (`If-None-Match`) before each use. */
const REVALIDATED = 'private, no-cache';
/** The cachings every request of a kind shares: made once, not per answer. */
const NOT_KEPT: HttpCaching = { cacheControl: NO_STORE, validated: false };
const PRIVATE: HttpCaching = { cacheControl: 'private', validated: false };
const PRIVATE_VALIDATED: HttpCaching = { cacheControl: REVALIDATED, validated: true };

/**
 * `Cache-Control` and the response cache's `ETag` on GraphQL answers, where keeping them is safe.
 * By default an answer is `private` (for the caller's browser alone); it is `private, no-store`
 * when it holds errors, answers a mutation, or comes in parts (a stream is never replayed). A GET
 * query's answer that the response cache holds gets the `ETag` of its entry (its key and version,
 * see `entryTag`) and `Last-Modified`, which the response cache answers with a 304 while that
 * entry lives: it is
 * `public, max-age=<what is left of its TTL>` for a caller without `Authorization` (what the
 * gateway answers anyone, which its own cache already shares between them all), and
 * `private, no-cache` (revalidated on each use) for a caller with one. Such answers vary with
 * `Authorization` and `Accept`; a public one carries no caller's budget (`X-RateLimit-*`,
 * `extensions.rateLimit`), which a shared cache would replay to everyone. An answer the cache does not keep (a TTL of 0: the rate-limit
 * budget, background work) has no `ETag`, and POST answers none either: only GETs are cached by
 * URL. Responses that are not GraphQL answers (health, metrics, GraphiQL) are left as they are.
 */
export function useHttpCaching(options: HttpCachingOptions): Plugin {
  const ttlS = options.responseCacheTtlMs === undefined ? undefined : Math.floor(options.responseCacheTtlMs / 1000);
  return {
    onExecute({ args }) {
      if (args.contextValue && operationOf(args.document, args.operationName).type === 'mutation') {
        partsOf(args.contextValue).mutation = true;
      }
    },
    onResultProcess({ request, result, serverContext }) {
      const parts = partsOf(serverContext);
      if (Array.isArray(result) || isAsyncIterable(result) || result.errors?.length || parts.mutation) {
        parts.httpCaching = NOT_KEPT;
        return;
      }
      const kept = result.extensions?.responseCache as { hit?: boolean; didCache?: boolean; ttl?: number } | undefined;
      if (request.method !== 'GET' || !(kept?.hit || kept?.didCache)) {
        parts.httpCaching = PRIVATE;
        return;
      }
      const anonymous = callerOf(serverContext, request).key === 'anonymous';
      if (!anonymous || ttlS === undefined) {
        parts.httpCaching = PRIVATE_VALIDATED;
        return;
      }
      const headers = (result.extensions?.http as { headers?: Record<string, string> } | undefined)?.headers;
      parts.httpCaching = { cacheControl: publicFor(ttlS, headers?.['Last-Modified']), validated: true, shared: true };
    },
    onResponse({ request, response, serverContext }) {
      const headers = response.headers;
      const caching = partsOf(serverContext).httpCaching;
      const key = headers.get('etag');
      const version = headers.get(ENTRY_VERSION_HEADER);
      headers.delete(ENTRY_VERSION_HEADER);
      if (caching) {
        headers.set('cache-control', caching.cacheControl);
        if (!caching.validated || key === null || version === null) {
          headers.delete('etag');
          headers.delete('last-modified');
          return;
        }
        headers.set('etag', entryTag(key, version));
      } else if (response.status === 304 && !headers.has('cache-control') && headers.has('etag')) {
        // The response cache's revalidation (If-None-Match naming an entry it holds): a 304 says
        // how the answer may be kept, as its 200 did.
        const anonymous = callerOf(serverContext, request).key === 'anonymous';
        headers.set(
          'cache-control',
          anonymous && ttlS !== undefined && request.method === 'GET'
            ? publicFor(ttlS, headers.get('last-modified') ?? undefined)
            : REVALIDATED,
        );
      } else {
        return;
      }
      headers.append('vary', 'Accept, Authorization');
    },
  };
}

/** `public, max-age` for what is left of an entry's TTL, from when it was kept (`Last-Modified`). */
function publicFor(ttlS: number, lastModified: string | undefined): string {
  const keptAt = lastModified === undefined ? Number.NaN : Date.parse(lastModified);
  const age = Number.isNaN(keptAt) ? 0 : Math.max(0, Math.floor((Date.now() - keptAt) / 1000));
  return `public, max-age=${Math.max(0, ttlS - age)}`;
}
