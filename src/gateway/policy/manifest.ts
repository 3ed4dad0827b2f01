import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';

/*
 * Manifests of persisted operations, apart from the plugin that serves them: `npm start` reads the
 * manifest before anything starts, without loading yoga.
 */

/** Longest id taken: a sha256 in hex is 64 characters; other manifests use shorter ones. */
export const MAX_ID_LENGTH = 128;

/** The sha256 of a document's text, in hex: the id clients send for it. */
export function documentHash(document: string): string {
  return createHash('sha256').update(document).digest('hex');
}

/** The one prefix an id may carry: GraphQL over HTTP's `sha256:<hex>`, which graphql-codegen's client preset writes. */
const SHA256_PREFIX = 'sha256:';
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

/** Why an id cannot name a document: it names the rule broken (see `normalizeDocumentId`). */
export class DocumentIdError extends Error {
  constructor(
    message: string,
    /** `PERSISTED_QUERY_ID_TOO_LONG` or `PERSISTED_QUERY_ID_UNSUPPORTED`. */
    readonly reason: 'PERSISTED_QUERY_ID_TOO_LONG' | 'PERSISTED_QUERY_ID_UNSUPPORTED',
  ) {
    super(message);
  }
}

/**
 * The one form under which a document is kept and looked up, so that `sha256:<hex>` (GraphQL over
 * HTTP, graphql-codegen's client preset), the bare hex (Apollo's APQ, older manifests) and either
 * case of the hex find the same document, in a manifest and in the APQ store alike: a sha256 is
 * kept as bare lowercase hex; any other id without a prefix (a manifest's own names, a sha1) is
 * kept as written. Throws a `DocumentIdError` for an id longer than `MAX_ID_LENGTH`, another
 * prefix (`md5:…`), or a `sha256:` not followed by 64 hex digits.
 */
export function normalizeDocumentId(id: string): string {
  if (id.length > MAX_ID_LENGTH) {
    throw new DocumentIdError(
      `A persisted operation's id has at most ${MAX_ID_LENGTH} characters; this one has ${id.length}`,
      'PERSISTED_QUERY_ID_TOO_LONG',
    );
  }
  const colon = id.indexOf(':');
  if (colon === -1) return HEX_SHA256.test(id) ? id.toLowerCase() : id;
  const hex = id.slice(SHA256_PREFIX.length);
  if (id.slice(0, colon + 1).toLowerCase() !== SHA256_PREFIX || !HEX_SHA256.test(hex)) {
    throw new DocumentIdError(
      `A persisted operation's id is its sha256 in hex, bare or as sha256:<hex>, or a name without a colon; "${id.slice(0, Math.min(colon + 1, 16))}…" is not one of them`,
      'PERSISTED_QUERY_ID_UNSUPPORTED',
    );
  }
  return hex.toLowerCase();
}

/** Largest manifest file read: a manifest holds documents, not data. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
const manifestSchema = z.record(z.string().min(1).max(MAX_ID_LENGTH), z.string().min(1));

/**
 * Reads a manifest file (`PERSISTED_OPERATIONS_FILE`): the `{ "<id>": "<document>" }` that
 * graphql-codegen's client preset writes (`persisted-documents.json`, its keys `sha256:<hex>`, or
 * a bare sha1 with `hashAlgorithm: 'sha1'`), keyed by the normalized id (`normalizeDocumentId`).
 * Throws a message naming what is wrong with it.
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
  const manifest = new Map<string, string>();
  for (const [id, document] of Object.entries(parsed.data)) {
    try {
      manifest.set(normalizeDocumentId(id), document);
    } catch (error) {
      throw new Error(`PERSISTED_OPERATIONS_FILE has an id that is not taken: ${(error as Error).message}`);
    }
  }
  return manifest;
}
