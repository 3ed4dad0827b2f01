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
