import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import type { KeyValueStore } from '../state/store.js';
import { documentHash, MAX_ID_LENGTH } from './manifest.js';

/** Options of `usePersistedDocuments`. */
export interface PersistedOperationsOptions {
  /** The trusted documents, by id: the `{ "<hash>": "<document>" }` of a manifest. */
  manifest: ReadonlyMap<string, string>;
  /** Run only the documents of the manifest; any other is refused before it is parsed. */
  persistedOnly: boolean;
  /** Where the documents clients register (automatic persisted queries) are kept. */
  store: KeyValueStore;
}

/** How long a registered document is kept without use. */
const REGISTERED_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Persisted operations, two ways: a client sends the id of a document of the manifest as
 * `documentId` (GraphQL over HTTP) or as `extensions.persistedQuery.sha256Hash` (Apollo's
 * automatic persisted queries), without the document. With APQ, an unknown hash is answered
 * `PERSISTED_QUERY_NOT_FOUND`; the client then sends the document with its hash, which registers
 * it (the hash must be the document's), and later requests send the hash alone. With
 * `persistedOnly`, only the manifest's documents run: a document sent as text, or registered, is
 * refused before it is parsed.
 */
export function usePersistedDocuments(options: PersistedOperationsOptions): Plugin[] {
  const { manifest, persistedOnly, store } = options;
  const register: Plugin = {
    async onParams({ params }) {
      const hash = apqHash(params);
      if (persistedOnly || hash === undefined || typeof params.query !== 'string') return;
      if (documentHash(params.query) !== hash) {
        throw refusal('provided sha does not match query', 'PERSISTED_QUERY_HASH_MISMATCH', 400);
      }
      if (!manifest.has(hash)) await store.set(hash, params.query, REGISTERED_TTL_MS);
    },
  };
  const serve = usePersistedOperations({
    allowArbitraryOperations: !persistedOnly,
    extractPersistedOperationId: (params, request) => {
      const id =
        (params as GraphQLParams & { documentId?: unknown }).documentId ??
        // yoga's GET parser keeps only the usual parameters.
        (request.method === 'GET' ? new URL(request.url).searchParams.get('documentId') : null) ??
        apqHash(params);
      return typeof id === 'string' && id.length > 0 && id.length <= MAX_ID_LENGTH ? id : null;
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
  return [register, serve];
}

function apqHash(params: GraphQLParams): string | undefined {
  const persisted = (params.extensions as { persistedQuery?: { version?: unknown; sha256Hash?: unknown } } | undefined)
    ?.persistedQuery;
  return persisted?.version === 1 && typeof persisted.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

function refusal(message: string, reason: string, status: number) {
  return createGraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', reason, http: { status } } });
}
