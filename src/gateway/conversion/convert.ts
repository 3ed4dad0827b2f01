import { documentLines } from '../../document/lines.js';
import { documentToMarkdown } from '../../document/markdown.js';
import { parseDocument } from '../../document/model.js';
import { S } from '../upstream/contract/schemas.js';

/**
 * The gateway's own conversions of a platform document, as a pure function run on the request's
 * thread for small documents and in a worker thread (`worker.ts`) for the others. It imports the
 * markdown converter, so callers on the request's thread load it on first use.
 */

/** What a document is converted to: `Document.markdown` or `Document.text`. */
export type ConversionKind = 'markdown' | 'text';

/** A conversion, as a worker thread receives it. */
export interface ConversionJob {
  kind: ConversionKind;
  /** The document's JSON text (the upstream body it came in, or the document serialized). */
  body: string;
  /** Longest output wanted: a longer one is answered as `tooLarge` rather than sent back. */
  maxChars: number;
}

/**
 * Its outcome: the output, or why there is none: the document cannot be read (`invalid`, the
 * platform's fault), or its output is longer than `maxChars` (`tooLarge`, its length).
 */
export type ConversionOutcome = { output: string } | { invalid: string } | { tooLarge: number };

/** Converts a document (parsed JSON) to markdown or text, within `maxChars` of output. */
export function convertDocument(kind: ConversionKind, document: unknown, maxChars: number): ConversionOutcome {
  let output: string;
  if (kind === 'text') {
    output = documentLines(document);
  } else {
    let parsed: ReturnType<typeof parseDocument>;
    try {
      parsed = parseDocument(document);
    } catch (error) {
      return { invalid: (error as Error).message };
    }
    output = documentToMarkdown(parsed);
  }
  return output.length > maxChars ? { tooLarge: output.length } : { output };
}

/** Converts a document given as JSON text: what a worker thread does with a job. */
export function convertJob(job: ConversionJob): ConversionOutcome {
  let document: unknown;
  try {
    document = JSON.parse(job.body);
  } catch {
    return { invalid: 'the document is not JSON' };
  }
  return convertDocument(job.kind, document, job.maxChars);
}

/** A document's body to check, as a worker thread receives it: may it be answered as it is? */
export interface DocumentCheckJob {
  kind: 'check';
  /** The document's JSON text (the upstream body it came in). */
  body: string;
}

/**
 * Its outcome: `asIs` when the text is a document of the API's shape with nothing the gateway
 * would leave out (a parse here gives the same JSON); false when it must be parsed to be answered;
 * `invalid` when it is not a document at all (the platform's fault).
 */
export type DocumentCheckOutcome = { asIs: boolean } | { invalid: string };

/** Checks a document's text: what a worker thread does with a check job. */
export function checkDocument(job: DocumentCheckJob): DocumentCheckOutcome {
  let json: unknown;
  try {
    json = JSON.parse(job.body);
  } catch {
    return { invalid: 'the document is not JSON' };
  }
  const parsed = S.JSONDocument.safeParse(json);
  if (!parsed.success) return { invalid: 'the document does not have the shape of a document' };
  return { asIs: sameJson(json, parsed.data) };
}

/**
 * Whether a parse left `json` as it was: no key dropped, no value changed. Nodes are kept whole by
 * the parse (the same objects), so only the document's own fields are walked.
 */
function sameJson(json: unknown, parsed: unknown): boolean {
  if (json === parsed) return true;
  if (Array.isArray(json))
    return Array.isArray(parsed) && json.length === parsed.length && json.every((item, i) => sameJson(item, parsed[i]));
  if (typeof json !== 'object' || json === null || typeof parsed !== 'object' || parsed === null) return false;
  const keys = Object.keys(json);
  if (keys.length !== Object.keys(parsed).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(parsed, key) &&
      sameJson((json as Record<string, unknown>)[key], (parsed as Record<string, unknown>)[key]),
  );
}
