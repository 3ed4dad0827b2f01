import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import type { ExecutionArgs } from 'graphql';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors.js';
import { partsOf } from '../request-parts.js';
import type { KeyValueStore } from '../state/store.js';
import { DocumentIdError, documentHash, MAX_ID_LENGTH, normalizeDocumentId } from './manifest.js';

declare module '../request-parts.js' {
  interface RequestParts {
    /**
     * A document the client sent with its APQ hash, registered once it is about to run (see
     * `usePersistedDocuments`): noted in `onParams`, before the GraphQL context is built on the same object.
     */
    registration?: { hash: string; document: string } | undefined;
  }
}

/** Options of `usePersistedDocuments`. */
export interface PersistedOperationsOptions {
  /** The trusted documents, by id: the `{ "<hash>": "<document>" }` of a manifest (ids as `normalizeDocumentId` takes them). */
  manifest: ReadonlyMap<string, string>;
  /** Run only the documents of the manifest; any other is refused before it is parsed. */
  persistedOnly: boolean;
  /** Where the documents clients register (automatic persisted queries) are kept: a store bounded in bytes. */
  store: KeyValueStore;
  /** Largest document a client may register, in bytes (`MAX_PERSISTED_QUERY_BYTES`). @default 131072 */
  maxDocumentBytes?: number;
}

/** The plugins of persisted operations, placed apart in the chain (see `usePersistedDocuments`). */
export interface PersistedDocuments {
  /** First in the chain: checks a registration, and runs a document given by its id. */
  serve: Plugin[];
  /** After the cost's and the rate limits' admission: registers the document of an operation that runs. */
  register: Plugin;
}

/** How long a registered document is kept. */
const REGISTERED_TTL_MS = 24 * 60 * 60 * 1000;

/** Bytes of registered documents kept by default (`PERSISTED_QUERIES_MB`), in memory or in Redis. */
export const DEFAULT_PERSISTED_QUERIES_BYTES = 8 * 1024 * 1024;

/** The largest document registered by default (`MAX_PERSISTED_QUERY_BYTES`): generated documents with fragments take tens of KB. */
export const DEFAULT_MAX_PERSISTED_QUERY_BYTES = 128 * 1024;

/**
 * Persisted operations, two ways: a client sends the id of a document of the manifest as
 * `documentId` (GraphQL over HTTP) or as `extensions.persistedQuery.sha256Hash` (Apollo's
 * automatic persisted queries), without the document. With APQ, an unknown hash is answered
 * `PERSISTED_QUERY_NOT_FOUND`; the client then sends the document with its hash (the hash must be
 * the document's, and the document at most `maxDocumentBytes`), and later requests send the hash
 * alone. The document is registered only once its operation is about to run: parsed, validated,
 * within the cost limits and admitted by the rate limits (`register`, placed after them), and its
 * bytes count as the gateway's work (`registration`) in what the operation costs its caller. Such a
 * request is never answered from the response cache: it runs. With `persistedOnly`, only the
 * manifest's documents run: a document sent as text, or registered, is refused before it is parsed.
 * Every id, the manifest's and the clients', is normalized (`normalizeDocumentId`): `sha256:<hex>`
 * and the bare hex find the same document; an id too long or with another prefix is refused.
 */
export function usePersistedDocuments(options: PersistedOperationsOptions): PersistedDocuments {
  const { persistedOnly, store } = options;
  const manifest = new Map([...options.manifest].map(([id, document]) => [normalizeDocumentId(id), document]));
  const maxDocumentBytes = options.maxDocumentBytes ?? DEFAULT_MAX_PERSISTED_QUERY_BYTES;
  const check: Plugin = {
    onParams({ params, context }) {
      const sent = apqHash(params);
      if (persistedOnly || sent === undefined || typeof params.query !== 'string') return;
      const hash = documentId(sent);
      const bytes = Buffer.byteLength(params.query);
      if (bytes > maxDocumentBytes) throw tooLarge(bytes, maxDocumentBytes);
      if (documentHash(params.query) !== hash) {
        throw refusal('provided sha does not match query', 'PERSISTED_QUERY_HASH_MISMATCH', 400);
      }
      // Noted on the context (which yoga extends into the operation's): registered if it runs.
      if (!manifest.has(hash)) partsOf(context).registration = { hash, document: params.query };
    },
  };
  // Not async: an operation that registers nothing (nearly all) goes on without a promise to wait for.
  const registerRunning = ({ args }: { args: ExecutionArgs }): Promise<void> | undefined => {
    const ctx = args.contextValue as GatewayContext;
    const registration = ctx.registration;
    if (!registration) return undefined;
    ctx.work.add('registration', Buffer.byteLength(registration.document));
    return store.set(registration.hash, registration.document, REGISTERED_TTL_MS);
  };
  const register: Plugin = { onExecute: registerRunning, onSubscribe: registerRunning };
  const serve = usePersistedOperations({
    allowArbitraryOperations: !persistedOnly,
    extractPersistedOperationId: (params, request) => {
      const id =
        (params as GraphQLParams & { documentId?: unknown }).documentId ??
        // yoga's GET parser keeps only the usual parameters.
        (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null) ??
        apqHash(params);
      return typeof id === 'string' && id.length > 0 ? documentId(id) : null;
    },
    getPersistedOperation: async (id) => manifest.get(id) ?? (persistedOnly ? null : ((await store.get(id)) ?? null)),
    customErrors: {
      // Apollo's clients know this message and code: they send the document with its hash next.
      notFound: () =>
        createGraphQLError('PersistedQueryNotFound', { extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }),
      keyNotFound: () =>
        refusal(
          'Send a persisted operation: its id as documentId, or as extensions.persistedQuery.sha256Hash',
          'PERSISTED_QUERY_ID_REQUIRED',
          400,
        ),
      persistedQueryOnly: () =>
        refusal(
          'Only persisted operations run on this gateway (PERSISTED_ONLY=1): send the id of a document of its manifest as documentId',
          'PERSISTED_QUERY_ONLY',
          400,
        ),
    },
  });
  return { serve: [check, serve], register };
}

/** A client's id in the one form documents are kept under, or its refusal: the limit, the value and the maximum. */
function documentId(id: string): string {
  try {
    return normalizeDocumentId(id);
  } catch (error) {
    if (!(error instanceof DocumentIdError)) throw error;
    const budget =
      error.reason === 'PERSISTED_QUERY_ID_TOO_LONG'
        ? { limit: 'persistedQueryIdLength', value: id.length, max: MAX_ID_LENGTH }
        : {};
    throw createGraphQLError(error.message, {
      extensions: { code: 'BAD_USER_INPUT', reason: error.reason, ...budget, http: { status: 400 } },
    });
  }
}

function apqHash(params: GraphQLParams): string | undefined {
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)
    ?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/** The refusal of a document too large to register: the limit, its size and the most allowed. */
function tooLarge(bytes: number, max: number): GatewayError {
  const error = new GatewayError(
    'BAD_USER_INPUT',
    `Persisted query too large to register: ${bytes} bytes, the limit is ${max}; send this document without extensions.persistedQuery, or make it smaller`,
    { budget: { limit: 'persistedQueryBytes', value: bytes, max } },
  );
  Object.assign(error.extensions, { reason: 'PERSISTED_QUERY_TOO_LARGE', http: { status: 400 } });
  return error;
}

function refusal(message: string, reason: string, status: number) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', reason, http: { status } } });
}
