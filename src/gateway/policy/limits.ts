import {
  GraphQLError,
  Kind,
  Lexer,
  parse,
  Source,
  TokenKind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type Token,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { GatewayError } from '../errors.js';
import { RecentBytes } from '../state/memory.js';

/** The bounds the gateway puts on every request, before and while it runs. */
export interface GatewayLimits {
  /** Largest request body, in bytes; a larger one is answered 413. @default 1048576 */
  maxRequestBytes: number;
  /**
   * Largest body of a multipart request (GraphQL multipart uploads, see `uploadFile`), in bytes;
   * a larger one is answered 413. @default 10551296 (10 MiB of file and 64 KiB of the rest)
   */
  maxUploadBytes: number;
  /** Most lexical tokens of a GraphQL document (graphql-js `maxTokens`). @default 10000 */
  maxTokens: number;
  /** Most objects an answer may hold, counted before it runs (connections by their `first`). @default 500000 */
  maxNodes: number;
  /** Deepest nesting of fields. @default 15 */
  maxDepth: number;
  /** Most aliased fields in one operation. @default 100 */
  maxAliases: number;
  /** Most root fields in one operation. @default 50 */
  maxRootFields: number;
  /** Most upstream requests one operation makes while it runs; further ones fail alone. @default 1000 */
  maxUpstreamRequests: number;
  /**
   * Most bytes of one answer (its JSON, counted as fields resolve), and, apart, of the upstream
   * bodies read for it; past either, the answer is one BAD_USER_INPUT error
   * (`limit: responseBytes`). @default 8388608
   */
  maxResponseBytes: number;
  /** Most operations in one batched request (a JSON array); 0 takes one operation per request. @default 10 */
  maxBatchOperations: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxRequestBytes: 1024 * 1024,
  maxUploadBytes: 10 * 1024 * 1024 + 64 * 1024,
  maxTokens: 10_000,
  maxNodes: 500_000,
  maxDepth: 15,
  maxAliases: 100,
  maxRootFields: 50,
  maxUpstreamRequests: 1000,
  maxResponseBytes: 8 * 1024 * 1024,
  maxBatchOperations: 10,
};

/** Items of a page of a connection when `first` is not given. */
export const DEFAULT_PAGE_SIZE = 50;

/** Most items of one page of a connection (`first`): the largest REST `limit`. */
export const MAX_PAGE_SIZE = 1000;

/** The answer to a body over the limit: a GraphQL error with a code, status 413. */
export function tooLarge(
  limit: number,
  message = `The request body is larger than ${limit} bytes: send a smaller query or fewer variables`,
): Response {
  const body = {
    errors: [
      {
        message,
        extensions: { code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE', limit },
      },
    ],
  };
  return new Response(JSON.stringify(body), {
    status: 413,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** Bytes of the JSON of parsed request parameters, files (Blobs) counted as nothing. */
function operationBytes(params: unknown): number {
  return Buffer.byteLength(
    JSON.stringify(params, (_key, value: unknown) => (value instanceof Blob ? null : value)) ?? '',
    'utf8',
  );
}

/** A refusal of the request itself: BAD_USER_INPUT, status 400, with what it is and any `details`. */
function refusal(message: string, reason: string, details: Record<string, unknown> = {}): GatewayError {
  const error = new GatewayError('BAD_USER_INPUT', message);
  Object.assign(error.extensions, { reason, ...details, http: { status: 400 } });
  return error;
}

/** The error for `variables` or `extensions` parameters (of a GET or a form) that are not JSON. */
function invalidParameterJson(): GatewayError {
  return refusal(
    'The "variables" and "extensions" parameters must be JSON objects: one is not valid JSON',
    'BAD_REQUEST',
  );
}

/**
 * Reads a request body up to `limit` bytes; undefined when it is larger (reading stops there,
 * so a huge body costs no more than the limit).
 */
export async function readBounded(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return body;
}

/**
 * Deepest nesting of brackets (`{`, `[`, `(`) the parser accepts. The parser, the validation and
 * the cost analysis recurse once (or more) per level, so a document nested thousands of levels
 * deep would overflow the stack; no real operation comes near this (fields nest at most 15 deep).
 */
export const MAX_NESTING = 500;

const OPENING: ReadonlySet<string> = new Set([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING: ReadonlySet<string> = new Set([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Deepest bracket nesting of the first `maxTokens` tokens of a document, read with the lexer
 * (without recursion, so any depth is measured safely). A lexical error ends the count: the
 * parser reports it.
 */
export function nestingDepth(source: Source, maxTokens: number): number {
  const lexer = new Lexer(source);
  let depth = 0;
  let deepest = 0;
  try {
    for (let read = 0; read <= maxTokens; read += 1) {
      const token = lexer.advance();
      if (token.kind === TokenKind.EOF) break;
      if (OPENING.has(token.kind)) {
        depth += 1;
        deepest = Math.max(deepest, depth);
      } else if (CLOSING.has(token.kind)) depth -= 1;
    }
  } catch {
    // A lexical error: left to the parser, which reports it with its position.
  }
  return deepest;
}

/**
 * Parses with the token limit, after refusing documents nested deeper than `MAX_NESTING` with a
 * syntax error.
 */
function boundedParse(source: string | Source, options: Parameters<typeof parse>[1], maxTokens: number) {
  const text = typeof source === 'string' ? new Source(source) : source;
  const depth = nestingDepth(text, maxTokens);
  if (depth > MAX_NESTING) {
    throw refusal(
      `Syntax Error: the document nests ${depth} levels of brackets, the limit is ${MAX_NESTING}.`,
      'GRAPHQL_PARSE_FAILED',
      {
        limit: 'nesting',
        value: depth,
        max: MAX_NESTING,
      },
    );
  }
  return parse(text, { ...options, maxTokens });
}

/**
 * Fields an operation selects once its fragments are expanded, counting each field once per
 * place it is reached from (a fragment spread twice counts twice). Linear in the document's size,
 * however the fragments multiply: each fragment is counted once and remembered. A spread of itself
 * (a cycle, which validation reports anyway) adds nothing.
 */
export function expandedFieldCount(document: DocumentNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const counted = new Map<string, number>();
  const expanding = new Set<string>();
  const count = (selectionSet: SelectionSetNode): number => {
    let fields = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) fields += 1 + (selection.selectionSet ? count(selection.selectionSet) : 0);
      else if (selection.kind === Kind.INLINE_FRAGMENT) fields += count(selection.selectionSet);
      else fields += fragmentCount(selection.name.value);
    }
    return fields;
  };
  const fragmentCount = (name: string): number => {
    const known = counted.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    if (!fragment || expanding.has(name)) return 0;
    expanding.add(name);
    const fields = count(fragment.selectionSet);
    expanding.delete(name);
    counted.set(name, fields);
    return fields;
  };
  let largest = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) largest = Math.max(largest, count(definition.selectionSet));
  }
  return largest;
}

/**
 * A validation rule refusing a document whose operation, fragments expanded, selects more than
 * `max` fields. Fragments that spread others several times multiply a small document into an
 * exponential number of fields, which every walk of the operation (the cost analysis first) would
 * pay for; without fragments, a document within the token limit never comes near this bound.
 */
export function maxExpandedFieldsRule(max: number): ValidationRule {
  return (context: ValidationContext) => {
    const fields = expandedFieldCount(context.getDocument());
    if (fields > max) {
      const value = Number.isFinite(fields) ? fields : Number.MAX_VALUE;
      context.reportError(
        new GraphQLError(
          `Query too large: with its fragments expanded it selects ${value > 1e15 ? 'more than 10^15' : value} fields, the limit is ${max}; spread fewer fragments in one another`,
          {
            extensions: {
              code: 'BAD_USER_INPUT',
              reason: 'GRAPHQL_VALIDATION_FAILED',
              limit: 'expandedFields',
              value,
              max,
            },
          },
        ),
      );
    }
    return {};
  };
}

/**
 * Bounds what a request can make the gateway do before any resolver runs: the body size (413
 * with a coded error, without reading past the limit), the number of tokens the parser reads, how
 * deep brackets nest (`MAX_NESTING`), and the number of fields an operation selects with its
 * fragments expanded (twice what `maxTokens` tokens can select without fragments). Parameters of
 * a GET or a form that are not JSON are refused as bad input, not failed as internal errors.
 */
export function useInputLimits(
  limits: Pick<GatewayLimits, 'maxRequestBytes' | 'maxUploadBytes' | 'maxTokens'>,
): Plugin {
  const { maxTokens } = limits;
  const expandedFields = maxExpandedFieldsRule(2 * maxTokens);
  return {
    onRequestParse({ request, requestParser, setRequestParser, endResponse }) {
      // Multipart requests carry files (uploads): they have their own, larger, bound.
      const multipart = /^multipart\/form-data\b/i.test(request.headers.get('content-type') ?? '');
      const maxRequestBytes = multipart ? limits.maxUploadBytes : limits.maxRequestBytes;
      const declared = Number(request.headers.get('content-length') ?? Number.NaN);
      if (declared > maxRequestBytes) return endResponse(tooLarge(maxRequestBytes));
      if (!requestParser) return;
      // A declared length is enforced by the HTTP framing; a body without one is read with a bound.
      const bounded = !request.body || !Number.isNaN(declared);
      // A JSON body of a declared length needs nothing more: yoga answers its bad JSON itself.
      if (bounded && !multipart && request.method === 'POST' && isJson(request)) return;
      // The operation of a multipart request (its parts other than files) has the usual bound.
      const withinOperationLimit = <P>(params: P): P | Response =>
        multipart && operationBytes(params) > limits.maxRequestBytes
          ? tooLarge(
              limits.maxRequestBytes,
              `The operation of this multipart request (everything but its files) is larger than ${limits.maxRequestBytes} bytes: send a smaller query or fewer variables`,
            )
          : params;
      setRequestParser(async (incoming) => {
        try {
          if (bounded) return withinOperationLimit(await requestParser(incoming));
          const body = await readBounded(incoming, maxRequestBytes);
          if (!body) return tooLarge(maxRequestBytes);
          return withinOperationLimit(
            await requestParser(
              new Request(incoming.url, { method: incoming.method, headers: incoming.headers, body }),
            ),
          );
        } catch (error) {
          // yoga reads `variables` and `extensions` of a query string or a form with a bare
          // JSON.parse: its SyntaxError would be answered as an internal error.
          if (error instanceof SyntaxError) throw invalidParameterJson();
          throw error;
        }
      });
    },
    onParse({ setParseFn }) {
      setParseFn((source, options) => boundedParse(source, options, maxTokens));
    },
    onValidate({ addValidationRule }) {
      addValidationRule(expandedFields);
    },
  };
}

/** Whether a request says its body is JSON (`application/json`, or `application/graphql-response+json`'s kin). */
function isJson(request: Request): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\b/i.test(request.headers.get('content-type') ?? '');
}

/** Bytes of heap the parsed documents kept for reuse take at most, as `parsedDocumentCache` estimates them. */
export const PARSED_DOCUMENTS_BYTES = 16 * 1024 * 1024;

/**
 * Heap a parsed document takes per token: its token, with its location, and its share of the
 * nodes (measured at 300 to 480 bytes; a 5 KB operation of 1,000 tokens weighs some 300 KB).
 */
const HEAP_BYTES_PER_TOKEN = 400;

/**
 * yoga's cache of parsed documents and parse errors (`parserAndValidationCache`), bounded by the
 * heap they take rather than by their number: a document keeps its source and every token, so
 * 1,024 documents of 10,000 tokens (what yoga's own cache keeps) would hold 4 GB. Each document
 * weighs its source and `HEAP_BYTES_PER_TOKEN` per token, a parse error its source; past
 * `maxBytes` (a quarter of it for errors) the least recently used go first, and are parsed again
 * if they come back. Validation results are kept by document, so they go with it.
 */
export function parsedDocumentCache(maxBytes: number) {
  const documents = new RecentBytes<string, DocumentNode>(maxBytes);
  const errors = new RecentBytes<string, unknown>(maxBytes / 4);
  return {
    documentCache: {
      get: (source: string) => documents.get(source),
      set: (source: string, document: DocumentNode) =>
        void documents.set(source, document, Buffer.byteLength(source) + HEAP_BYTES_PER_TOKEN * tokensOf(document)),
    },
    errorCache: {
      get: (source: string) => errors.get(source),
      set: (source: string, error: unknown) => void errors.set(source, error, Buffer.byteLength(source)),
    },
  };
}

/** Tokens a parsed document keeps (all of them, with its locations), or an estimate from its source without. */
function tokensOf(document: DocumentNode): number {
  const first = document.loc?.startToken;
  if (!first) return Math.ceil((document.loc?.source.body.length ?? 0) / 4);
  let count = 0;
  for (let token: Token | null = first; token; token = token.next) count += 1;
  return count;
}
