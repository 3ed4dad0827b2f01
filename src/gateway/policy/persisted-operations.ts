import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type GraphQLParams, type Plugin } from 'graphql-yoga';
import { z } from 'zod';
import type { KeyValueStore } from '../state/store.js';

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
/** Longest id taken: a sha256 in hex is 64 characters; other manifests use shorter ones. */
const MAX_ID_LENGTH = 128;

/** The sha256 of a document's text, in hex: the id clients send for it. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document).digest('hex');
}

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

/** Largest manifest file read: a manifest holds documents, not data. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
const manifestSchema = z.record(z.string().min(1).max(MAX_ID_LENGTH), z.string().min(1));

/**
 * Reads a manifest file (`PERSISTED_OPERATIONS_FILE`): the `{ "<hash>": "<document>" }` that
 * graphql-codegen's client preset writes (`persisted-documents.json`). Throws a message naming
 * what is wrong with it.
 */
export function readManifest(file: string): Map<string, string> {
  let text: string;
  try {
    if (statSync(file).size > MAX_MANIFEST_BYTES) throw new Error(`larger than ${MAX_MANIFEST_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`PERSISTED_OPERATIONS_FILE cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('PERSISTED_OPERATIONS_FILE is not JSON: it must map each id to its document');
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(
      `PERSISTED_OPERATIONS_FILE must map each id (at most ${MAX_ID_LENGTH} characters) to its document: ${issue.message}${issue.path.length ? ` at ${issue.path.join('.')}` : ''}`,
    );
  }
  return new Map(Object.entries(parsed.data));
}
