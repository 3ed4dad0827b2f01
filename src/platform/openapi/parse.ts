import { createHash } from 'node:crypto';
// A type only: the parser itself is imported where a text is first read.
import type { ValidationResult } from '@readme/openapi-parser';
import { parseDocument as parseYamlDocument } from 'yaml';
import { overBudget } from './budget.js';

/**
 * Reading an OpenAPI document from its text: JSON or YAML (the `yaml` package), then validated
 * against the Swagger 2.0, OpenAPI 3.0 or OpenAPI 3.1 specification by `@readme/openapi-parser`
 * (schemas of the specifications plus checks they cannot express, such as duplicate operation
 * ids), once the document is known to fit its budgets (`budget.ts`). Knows neither HTTP nor SQL.
 * Only references inside the document are followed: external `$ref`s (other files, URLs) are
 * never fetched, so reading a document reaches no network and no file.
 */

export type SpecFormat = 'json' | 'yaml';

/** One problem of a document, as `lastProcessedErrors` lists it. */
export interface SpecProblem {
  message: string;
  code?: string;
}

/** What reading a text found: the document, or why it is not one. */
export type SpecReading =
  | { ok: true; format: SpecFormat; document: Record<string, unknown>; specification: 'Swagger' | 'OpenAPI' }
  | { ok: false; format: SpecFormat; problems: SpecProblem[]; problemCount: number };

/** Problems kept of a reading (`lastProcessedErrors`); `lastProcessedErrorCount` counts them all. */
export const MAX_PROBLEMS = 20;

/** A problem message is cut to this many characters. */
const MAX_MESSAGE = 500;

/** SHA-256 of a text: versions compare by it. */
export function textHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * The format of a text and its value: JSON when it parses as JSON, else YAML (a superset of
 * JSON). YAML aliases are bounded by the parser (no "billion laughs").
 */
export function readText(
  text: string,
): { format: SpecFormat; value: unknown } | { format: SpecFormat; problems: SpecProblem[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      return { format: 'json', value: JSON.parse(text) as unknown };
    } catch {
      // Not JSON: perhaps YAML in flow style; YAML says what is wrong otherwise.
    }
  }
  const document = parseYamlDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      format: 'yaml',
      problems: document.errors.map((error) => ({
        // Pretty messages end their first line with the place (`… at line 2, column 8:`).
        message: cut(error.message.split('\n')[0]!.replace(/:$/, '')),
        code: 'SYNTAX',
      })),
    };
  }
  try {
    return { format: 'yaml', value: document.toJS({ maxAliasCount: 100 }) as unknown };
  } catch (error) {
    return { format: 'yaml', problems: [{ message: cut((error as Error).message), code: 'SYNTAX' }] };
  }
}

function cut(message: string): string {
  return message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE - 1)}…` : message;
}

/**
 * Reads and validates an OpenAPI document. The validator's messages carry a code frame of the
 * re-serialized document; only their first line is kept, which names the rule and the place.
 */
export async function readSpec(text: string): Promise<SpecReading> {
  const read = readText(text);
  if ('problems' in read)
    return {
      ok: false,
      format: read.format,
      problems: read.problems.slice(0, MAX_PROBLEMS),
      problemCount: read.problems.length,
    };
  const { format, value } = read;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      format,
      problems: [{ message: 'The document is not an object: an OpenAPI document is a map of fields' }],
      problemCount: 1,
    };
  }
  const document = value as Record<string, unknown>;
  if (typeof document.openapi !== 'string' && document.swagger === undefined) {
    return {
      ok: false,
      format,
      problems: [
        { message: 'The document has neither an "openapi" nor a "swagger" field: it is not an OpenAPI document' },
      ],
      problemCount: 1,
    };
  }
  // The validator's work grows with the document's references written out: bounded first.
  const over = overBudget(document);
  if (over)
    return { ok: false, format, problems: [{ message: over.message, code: 'LIMIT_EXCEEDED' }], problemCount: 1 };
  let result: ValidationResult;
  try {
    // The validator dereferences what it is given in place: it gets a copy.
    // Loaded at the first reading (in the worker thread), not at every start of the platform.
    const { validate } = await import('@readme/openapi-parser');
    result = await validate(structuredClone(document) as unknown as Parameters<typeof validate>[0], {
      resolve: { external: false, file: false },
      dereference: { circular: 'ignore' },
      validate: { errors: { colorize: false } },
    });
  } catch (error) {
    return { ok: false, format, problems: [{ message: cut(firstLine((error as Error).message)) }], problemCount: 1 };
  }
  if (!result.valid) {
    const problems = result.errors.map((error) => ({ message: cut(firstLine(error.message)) }));
    return {
      ok: false,
      format,
      problems: problems.slice(0, MAX_PROBLEMS),
      problemCount: problems.length + (result.additionalErrors ?? 0),
    };
  }
  return { ok: true, format, document, specification: result.specification === 'Swagger' ? 'Swagger' : 'OpenAPI' };
}

function firstLine(message: string): string {
  return message.split('\n')[0]!.trim();
}
