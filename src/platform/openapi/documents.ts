import { readText } from './parse.js';

/**
 * Parsed documents of recent versions of specifications, shared by the reads that need a
 * version's value (computed content, a version's `content`). Versions never change, so an entry
 * never goes stale; the processing that makes a version puts its document here (it has just
 * read it, in its worker thread), so the first read of a new version does not parse its text
 * again on the platform's thread. Bounded both in entries and in the size of the texts the
 * entries come from (a parsed document takes about six times its text in memory): the least
 * recently used go first, and the newest entry is always kept.
 */

const KEPT = 16;
/** Characters of text the kept documents come from, at most (about 50 MB of heap). */
const KEPT_CHARS = 8 * 1024 * 1024;

const documents = new Map<string, { document: Record<string, unknown> | null; chars: number }>();
let keptChars = 0;

/** Puts (or refreshes) the parsed document of version `versionId`, read from a text of `chars` characters. */
export function rememberDocument(versionId: string, chars: number, document: Record<string, unknown> | null): void {
  const known = documents.get(versionId);
  if (known) {
    documents.delete(versionId);
    keptChars -= known.chars;
  }
  documents.set(versionId, { document, chars });
  keptChars += chars;
  for (const [id, entry] of documents) {
    if (documents.size <= 1 || (documents.size <= KEPT && keptChars <= KEPT_CHARS)) break;
    documents.delete(id);
    keptChars -= entry.chars;
  }
}

/**
 * The document of a version: its text's value when that is an object (as every version's is:
 * versions are made of validated documents), else null. Parsed once, then from the cache.
 */
export function versionDocument(version: { id: string; text: string }): Record<string, unknown> | null {
  const known = documents.get(version.id);
  if (known) {
    // Most recently used last.
    documents.delete(version.id);
    documents.set(version.id, known);
    return known.document;
  }
  const read = readText(version.text);
  const value =
    'value' in read && read.value !== null && typeof read.value === 'object' && !Array.isArray(read.value)
      ? (read.value as Record<string, unknown>)
      : null;
  rememberDocument(version.id, version.text.length, value);
  return value;
}

/** Whether the document of version `versionId` is kept (for tests). */
export function hasDocument(versionId: string): boolean {
  return documents.has(versionId);
}

/** Entries and text characters kept (for tests). */
export function documentCacheSize(): { entries: number; chars: number } {
  return { entries: documents.size, chars: keptChars };
}
