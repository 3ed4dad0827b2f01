import { createHash, randomBytes } from 'node:crypto';
import { type BuildResponseCacheKeyFunction, useResponseCache } from '@graphql-yoga/plugin-response-cache';
import { encodeGlobalID } from '@pothos/plugin-relay';
import type { Plugin } from 'graphql-yoga';
import type { AfterWrites } from '../after-writes.js';
import type { Write } from '../upstream/request.js';
import type { GatewayContext } from '../context.js';
import { compositeKey } from '../schema/kit/ids.js';
import { partsOf } from '../request-parts.js';
import { callerOf } from '../state/caller.js';
import { memoryResponseCache } from '../state/memory.js';
import type { ResponseCacheStore, StoreBounds } from '../state/store.js';

/** Options of `useGatewayResponseCache`. */
export interface ResponseCacheOptions {
  /** How long an answer is kept, in milliseconds (`RESPONSE_CACHE_TTL_MS`). */
  ttlMs: number;
  /** Most bytes of answers kept (`RESPONSE_CACHE_MB`), in memory or in Redis. @default 33554432 (32 MiB) */
  maxBytes?: number;
  /** Largest answer kept. @default maxBytes / 16 */
  maxEntryBytes?: number;
  /** Where answers are kept. @default in this process's memory, within `maxBytes` */
  cache?: ResponseCacheStore;
}

/** Bytes of answers the response cache keeps by default (`RESPONSE_CACHE_MB`). */
export const DEFAULT_RESPONSE_CACHE_BYTES = 32 * 1024 * 1024;

/** The share of the cache's bytes one answer may take at most. */
const ENTRY_SHARE = 1 / 16;

/** The bounds of the response cache as `options` give them, defaults filled in. */
export function responseCacheBounds(options: Pick<ResponseCacheOptions, 'maxBytes' | 'maxEntryBytes'>): StoreBounds {
  const maxBytes = options.maxBytes ?? DEFAULT_RESPONSE_CACHE_BYTES;
  return { maxBytes, maxEntryBytes: options.maxEntryBytes ?? Math.floor(maxBytes * ENTRY_SHARE) };
}

/**
 * What is never kept (a TTL of 0): the state of background work (Git Sync, translations, OpenAPI
 * processing, custom hostnames' DNS checks), integration events, integrations' rendered UIs and the caller's rate-limit budget. Nothing is kept longer than
 * the TTL: a revision never changes, but an answer holding one reached it through what does
 * (`Space.content` is another revision after each merge, a change request's revision after each
 * edit), and links from it (`Revision.space`) lead to what changes too.
 */
const TTL_SHARE: Record<string, number> = {
  GitSyncState: 0,
  SpaceGitSync: 0,
  Translation: 0,
  OpenApiSpec: 0,
  IntegrationEvent: 0,
  // Its DNS checks are background work too.
  CustomHostname: 0,
  // What an integration renders is its own, at the moment it is asked.
  IntegrationUIRender: 0,
  // The caller's budget changes with every operation.
  'Query.rateLimit': 0,
};

/**
 * REST paths whose writes change who may read what: a new organization; an organization's settings (default role),
 * members, teams, joins, invites and SAML; a collection's or a space's visibility, place (move,
 * transfer), permissions, deletion and restoring; a site's visibility, publishing, visitor
 * authentication, share links, adaptive schema and the spaces and sections it publishes; an OpenAPI
 * specification (its visibility); integrations and their installations (what their tokens read).
 * Read on the path alone: a write there drops the cache whatever it changed.
 */
const CHANGES_ACCESS: RegExp[] = [
  /^\/orgs(\/[^/]+)?$/,
  /^\/orgs\/[^/]+\/(members|teams|join|link-invites|invites|saml)(\/|$)/,
  /^\/orgs\/[^/]+\/sites\/[^/]+(?!\/structure\/sort$)(\/|$)/,
  /^\/orgs\/[^/]+\/openapi\/[^/]+$/,
  /^\/spaces\/[^/]+(\/(move|transfer|restore|permissions)(\/.*)?)?$/,
  /^\/collections\/[^/]+(\/(move|transfer|permissions)(\/.*)?)?$/,
  // A new installation token is a new caller: it changes what no one else reads.
  /^\/integrations\/[^/]+(\/installations(?!\/[^/]+\/tokens$)(\/.*)?)?$/,
];

/**
 * Whether a write may change who may read what (see `CHANGES_ACCESS`): read on its operation's path
 * template (`/spaces/{spaceId}/move`), or on a path.
 */
export function changesAccess(write: Write | string): boolean {
  const path = typeof write === 'string' ? write : (write.operation?.path ?? write.path);
  return CHANGES_ACCESS.some((pattern) => pattern.test(path));
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** Set when the request's text asks for an answer in parts, which the response cache leaves alone. */
    answerInParts?: boolean | undefined;
    /**
     * Set from `onRequest` to `onParams` of a GET with `If-None-Match` (see `revalidate`): yoga's
     * plugin's own revalidation, by the bare key, is off then.
     */
    conditional?: boolean | undefined;
  }
}

/**
 * The response cache (`@graphql-yoga/plugin-response-cache`): answers without errors kept per
 * operation, variables and caller. The caller is a hash of the `Authorization` header, never the
 * token, so two tokens never share an entry. A hit runs nothing upstream (`extensions.cost`
 * says 0) and says so in `extensions.responseCache`. Every mutation through the gateway forgets the
 * answers holding an object it returned, and those holding an object whose REST path it wrote
 * under (the parents whose lists it changed: `POST /orgs/acme/spaces` forgets what holds the
 * organization). A write that changes who may read what (`changesAccess`) forgets every answer, of
 * every caller: the gateway cannot tell which tokens belong to the users it concerns, and the
 * answers it makes wrong need not hold the organization, space or collection it names (a page read
 * by its id holds the page alone). Explained requests (`x-explain: 1`), answers in parts (`@defer`,
 * `@stream`), subscriptions and requests registering a persisted query (which must run to be
 * registered) are never served from the cache nor kept in it. The cache is bounded in bytes
 * (`maxBytes`); an answer over `maxEntryBytes` is not kept.
 */
export function useGatewayResponseCache(options: ResponseCacheOptions): {
  plugins: Plugin[];
  forgetWritten: AfterWrites;
} {
  const bounds = responseCacheBounds(options);
  const maxEntryBytes = bounds.maxEntryBytes ?? bounds.maxBytes;
  const cache = awaitingInvalidations(options.cache ?? memoryResponseCache(bounds));
  const ttlPerSchemaCoordinate = Object.fromEntries(
    Object.entries(TTL_SHARE).map(([type, share]) => [type, share * options.ttlMs]),
  );
  // Answers in parts (@defer, @stream) and subscriptions are never cached nor served from the cache:
  // a client asked for them to arrive as they resolve. Read off the text (a false match only bypasses).
  const markInParts: Plugin = {
    onParams({ params, context }) {
      const parts = partsOf(context);
      parts.conditional = undefined;
      if (typeof params.query === 'string' && IN_PARTS.test(params.query)) parts.answerInParts = true;
    },
  };
  const responseCache = useResponseCache({
    cache,
    ttl: options.ttlMs,
    ttlPerSchemaCoordinate,
    session: (request, context) => callerOf(context, request).key,
    buildResponseCacheKey: responseCacheKey,
    enabled: (request, context) =>
      request.headers.get('x-explain') !== '1' &&
      partsOf(context).answerInParts !== true &&
      partsOf(context).conditional !== true &&
      partsOf(context).registration === undefined,
    includeExtensionMetadata: true,
    shouldCacheResult: ({ result }) => {
      if (result.errors?.length) return false;
      // Kept with the answer (yoga keeps its headers with it): its ETag names this version of the entry.
      result.extensions ??= {};
      const http = (result.extensions.http ?? {}) as { headers?: Record<string, string> };
      http.headers = { ...http.headers, [ENTRY_VERSION_HEADER]: randomBytes(9).toString('base64url') };
      result.extensions.http = http;
      return true;
    },
    // An answer whose size, counted as its fields resolved, is over the bound is not even serialized.
    onTtl: ({ ttl, context }) =>
      ((context as Partial<GatewayContext>).responseBudget?.answerBytes ?? 0) > maxEntryBytes ? 0 : ttl,
  });
  // An action of `useAfterWrites`: what the writes touched, or, when they changed who may read what, everything.
  const forgetWritten: AfterWrites = (writes) => {
    if (writes.some(changesAccess)) {
      void cache.clear();
      return;
    }
    const entities = writes.flatMap(entitiesOfWrite);
    if (entities.length > 0) void cache.invalidate(entities);
  };
  // A mutation's answer leaves once what it invalidated is gone from the cache (Redis is
  // asynchronous): a read that follows it, through any replica, is fresh.
  const awaitForgetting: Plugin = { onResultProcess: () => cache.settled() };
  return { plugins: [markInParts, revalidate(cache), responseCache, awaitForgetting], forgetWritten };
}

/**
 * Where a kept answer carries the version of its entry, among the headers yoga keeps with it:
 * never sent as it is (`useHttpCaching` makes the ETag of it and drops it).
 */
export const ENTRY_VERSION_HEADER = 'x-response-cache-version';

/**
 * The `ETag` of an entry of the response cache: its key (what yoga's plugin sends as the ETag)
 * and its version, quoted. The key alone would not do: an entry dropped by a write and kept again
 * under the same key holds another answer.
 */
export function entryTag(key: string, version: string): string {
  return `"${key}.${version}"`;
}

const ENTRY_TAG = /"([0-9a-f]{64})\.([\w-]+)"/g;

/**
 * Answers a GET whose `If-None-Match` names an entry the cache still holds, in the version the
 * client has, with a 304 before anything runs: the entry is the validator, so a write that drops
 * it (or its TTL) ends the 304s. yoga's own revalidation, which looks up the tag as a bare key and
 * would answer 304 to a client holding an older answer kept under the same key, is off (`conditional`).
 */
function revalidate(cache: ResponseCacheStore): Plugin {
  /** The 304 for the first of `tags` whose entry the cache holds in that version, if any. */
  async function notModified(tags: string, fetchAPI: { Response: typeof Response }): Promise<Response | undefined> {
    // A client sends back the one tag it holds for the URL; a few are looked at, never a list's worth.
    for (const [, key, version] of [...tags.matchAll(ENTRY_TAG)].slice(0, 4)) {
      const entry = (await cache.get(key!)) as
        | { extensions?: { http?: { headers?: Record<string, string> } } }
        | undefined;
      const headers = entry?.extensions?.http?.headers;
      if (!headers || headers[ENTRY_VERSION_HEADER] !== version) continue;
      const lastModified = headers['Last-Modified'];
      return new fetchAPI.Response(null, {
        status: 304,
        headers: { etag: entryTag(key!, version!), ...(lastModified ? { 'last-modified': lastModified } : {}) },
      });
    }
    return undefined;
  }
  return {
    // Not async: a request without `If-None-Match` (nearly all) goes on without a promise to wait for.
    onRequest({ request, serverContext, endResponse, fetchAPI }) {
      const tags = request.headers.get('if-none-match');
      if (!tags) return undefined;
      partsOf(serverContext).conditional = true;
      if (request.method !== 'GET' || request.headers.get('x-explain') === '1') return undefined;
      return notModified(tags, fetchAPI).then((response) => {
        if (response) endResponse(response);
      });
    },
  };
}

/**
 * The key of an answer: a hash of its document, operation, variables (keys sorted, so that their
 * order does not matter) and caller. The plugin's default hashes the same text through WebCrypto,
 * which hands each digest to a thread and back: 5 % of the gateway's CPU per read, against a few
 * microseconds here on the request's own turn.
 */
export const responseCacheKey: BuildResponseCacheKeyFunction = ({
  documentString,
  operationName,
  variableValues,
  sessionId,
}) =>
  createHash('sha256')
    .update(documentString)
    .update(`|${operationName ?? ''}|${sortedJson(variableValues ?? {})}|${sessionId ?? ''}`)
    .digest('hex');

/** JSON of `value` with every object's keys in order: one text for equal variables, however they were written. */
function sortedJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${sortedJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/**
 * `cache` with its invalidations followed: `settled()` resolves once every one under way ended
 * (the response cache plugin does not wait for them).
 */
function awaitingInvalidations(
  cache: ResponseCacheStore,
): ResponseCacheStore & { settled(): Promise<void> | undefined } {
  const pending = new Set<Promise<unknown>>();
  const follow = (work: unknown): Promise<void> => {
    // A failed invalidation is the store's to report (the Redis store counts it): nobody waits on an error.
    const invalidation = Promise.resolve(work).then(
      () => undefined,
      () => undefined,
    );
    pending.add(invalidation);
    void invalidation.then(() => pending.delete(invalidation));
    return invalidation;
  };
  return {
    get: (id) => cache.get(id),
    set: (...args) => cache.set(...args),
    invalidate: (entities) => follow(cache.invalidate(entities)),
    clear: () => follow(cache.clear()),
    settled: () => (pending.size === 0 ? undefined : Promise.all(pending).then(() => undefined)),
  };
}

/** A document that may ask for an answer in parts, or a subscription. */
const IN_PARTS = /@defer\b|@stream\b|\bsubscription\b/;

/**
 * The nodes a path parameter of an operation names, parents first, as the cache records them: the
 * typename and the key of the global ID (`organization/id` for what lives in an organization).
 */
const NODES_OF_PARAMS: ReadonlyArray<{
  typename: string;
  key: (params: Readonly<Record<string, string>>) => string | undefined;
}> = [
  { typename: 'Organization', key: (params) => params.organizationId },
  { typename: 'Space', key: (params) => params.spaceId },
  { typename: 'Collection', key: (params) => params.collectionId },
  { typename: 'Integration', key: (params) => params.integrationName },
  ...(
    [
      ['Site', 'siteId'],
      ['Translation', 'translationId'],
      ['CustomFont', 'fontId'],
      ['SamlProvider', 'samlProviderId'],
      ['IssuesCluster', 'clusterId'],
      ['OpenApiSpec', 'specSlug'],
    ] as const
  ).map(([typename, param]) => ({
    typename,
    key: (params: Readonly<Record<string, string>>) =>
      params.organizationId !== undefined && params[param] !== undefined
        ? compositeKey(params.organizationId, params[param])
        : undefined,
  })),
  {
    typename: 'ChangeRequest',
    key: (params) =>
      params.spaceId !== undefined && params.changeRequestId !== undefined
        ? compositeKey(params.spaceId, params.changeRequestId)
        : undefined,
  },
  {
    // A reply written forgets what holds its comment (its replies, its count); the key is the
    // comment's global ID's: its space, its change request if any, its id.
    typename: 'Comment',
    key: (params) =>
      params.spaceId !== undefined && params.commentId !== undefined
        ? compositeKey(
            params.spaceId,
            ...(params.changeRequestId !== undefined ? [params.changeRequestId] : []),
            params.commentId,
          )
        : undefined,
  },
];

/**
 * The nodes a write names, as the cache records them: from its operation's path parameters (every
 * upstream module sends its writes through their records; one sent without names none).
 */
export function entitiesOfWrite(write: Write): Array<{ typename: string; id: string }> {
  return write.operation && write.params ? entitiesOfParams(write.params) : [];
}

/** The nodes path parameters name (`{ spaceId }`: the space), as the cache records them. */
export function entitiesOfParams(params: Readonly<Record<string, string>>): Array<{ typename: string; id: string }> {
  return NODES_OF_PARAMS.flatMap(({ typename, key }) => {
    const value = key(params);
    return value === undefined ? [] : [{ typename, id: encodeGlobalID(typename, value) }];
  });
}
