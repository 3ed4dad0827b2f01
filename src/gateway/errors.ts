import { GraphQLError } from 'graphql';

/** Every code an error of the gateway can carry in `extensions.code`. */
export const ERROR_CODES = [
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'PRECONDITION_FAILED',
  'CONFLICT',
  'RATE_LIMITED',
  'UPSTREAM_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
  'UPSTREAM_INVALID_RESPONSE',
  'PERSISTED_QUERY_NOT_FOUND',
  'SHUTTING_DOWN',
  'INTERNAL_SERVER_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

// The scheme may only start where no scheme character precedes it: otherwise every position of a
// long word would start a scan to its end, and the redaction would be quadratic in the text.
const USER_INFO = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]*:\/\/)[^\s/?#]*@/gi;
const TOKEN_PARAMS =
  /([?&#](?:access_token|private_token|token|api_key|apikey|key|secret|password|sig|signature)=)[^&#\s]*/gi;
const SHARE_PARAMS = /([?&#](?:shareKey|visitorAuthToken)=)[^&#\s]*/gi;
// "Bearer tokens" and the like are prose, not a credential: left as they are.
const BEARER = /(bearer\s+)(?!(?:tokens?|scheme|authentication|authorization)\b)[A-Za-z0-9._~+/=-]+/gi;

/**
 * Removes secrets from a text bound for an error or a log: credentials embedded in URLs
 * (`https://user:token@host`: everything up to the last `@` before the host, since passwords
 * may contain `@`), token-like query parameters, share keys and visitor tokens, bearer tokens.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(USER_INFO, '$1***@')
    .replace(TOKEN_PARAMS, '$1***')
    .replace(SHARE_PARAMS, '$1***')
    .replace(BEARER, '$1***');
}

/** Longest quoted value a message repeats; longer ones are cut with `…`. */
export const MAX_ECHOED_VALUE = 100;
/** Longest message an error carries. */
export const MAX_MESSAGE_LENGTH = 1000;
const QUOTED = new RegExp(`"([^"]{${MAX_ECHOED_VALUE}})[^"]*"`, 'g');

/**
 * Bounds what a message repeats of the request (a token, a variable's value): quoted values are
 * cut to 100 characters, the whole message to 1000, and secrets removed.
 */
export function boundMessage(text: string): string {
  const cut = text.replace(QUOTED, '"$1…"');
  return redactSecrets(cut.length > MAX_MESSAGE_LENGTH ? `${cut.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : cut);
}

/**
 * Removes credentials from a URL the platform answered (a logo, a Git remote): user info and
 * token-like parameters. Share keys stay: the platform shows them to the admins who share them.
 */
export function redactUrlCredentials(url: string): string {
  // Most URLs hold neither user info (`@`) nor parameters (`=`): no pattern to run.
  if (!url.includes('@') && !url.includes('=')) return url;
  return url.replace(USER_INFO, '$1***@').replace(TOKEN_PARAMS, '$1***');
}

/**
 * Base of every error the gateway reports. Being a GraphQLError, it reaches the client
 * unmasked, with its code (and the upstream status when the upstream answered; and, for
 * RATE_LIMITED, `retryAfter`: whole seconds to wait before trying again, when the upstream said).
 */
export class GatewayError extends GraphQLError {
  readonly code: ErrorCode;
  readonly upstreamStatus: number | undefined;
  readonly field: string[] | undefined;
  readonly retryAfter: number | undefined;
  readonly budget: Budget | undefined;
  /**
   * What of the REST request an upstream refusal is about, as the platform names it: a body or
   * query field (`position.before`) or a path parameter (`spaceId`). Mutations map it to their input.
   */
  readonly restField: RestField | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      upstreamStatus?: number | undefined;
      field?: string[] | undefined;
      retryAfter?: number | undefined;
      budget?: Budget | undefined;
      restField?: RestField | undefined;
      cause?: unknown;
    } = {},
  ) {
    const extensions: Record<string, unknown> = { code };
    if (options.upstreamStatus !== undefined) extensions.upstreamStatus = options.upstreamStatus;
    if (options.field !== undefined) extensions.field = options.field;
    if (options.retryAfter !== undefined) extensions.retryAfter = options.retryAfter;
    if (options.budget !== undefined) Object.assign(extensions, options.budget);
    super(boundMessage(message), { extensions, originalError: undefined });
    this.name = 'GatewayError';
    this.code = code;
    this.upstreamStatus = options.upstreamStatus;
    this.field = options.field;
    this.retryAfter = options.retryAfter;
    this.budget = options.budget;
    this.restField = options.restField;
  }
}

/**
 * The part of a REST request a refusal names: a field of the body or query (`position.before`,
 * named in the message as `body field "position.before"`) or a path parameter (`spaceId`, named
 * by the answer's `parameter`).
 */
export interface RestField {
  kind: 'field' | 'parameter';
  /** Its path: `['position', 'before']`, or `['spaceId']`. */
  path: string[];
  /** How the message names it (`body field "position.before"`), to name the input there instead. */
  quoted?: string;
}

/**
 * A budget an input went past: its name (`markdownNodes`, `responseBytes`…), what was counted
 * and the most allowed. Errors that carry one show it as `extensions { limit, value, max }`.
 */
export interface Budget {
  limit: string;
  value: number;
  max: number;
}

export class BadUserInputError extends GatewayError {
  constructor(message: string, field?: string[], upstreamStatus?: number) {
    super('BAD_USER_INPUT', message, { field, upstreamStatus });
  }
}

export class UpstreamUnavailableError extends GatewayError {
  constructor(message: string, upstreamStatus?: number) {
    super('UPSTREAM_UNAVAILABLE', message, { upstreamStatus });
  }
}

/**
 * An upstream request given up because the client of the GraphQL request went away: no client
 * sees it, and it says nothing of the upstream's health.
 */
export class AbandonedRequestError extends GatewayError {
  constructor(method: string, path: string) {
    super('UPSTREAM_UNAVAILABLE', `${method} ${path} was abandoned: the client went away`);
    this.name = 'AbandonedRequestError';
  }
}

export class UpstreamTimeoutError extends GatewayError {
  constructor(message: string, upstreamStatus?: number) {
    super('UPSTREAM_TIMEOUT', message, { upstreamStatus });
  }
}

/**
 * An operation whose answer, or the upstream bodies read for it, would exceed the response
 * budget (`MAX_RESPONSE_BYTES`): BAD_USER_INPUT with `extensions { limit: 'responseBytes', value,
 * max }`, like the limits of the cost model. `value` is what was counted when it was refused.
 */
export class ResponseTooLargeError extends GatewayError {
  constructor(
    readonly what: 'answer' | 'upstream' | 'introspection',
    readonly value: number,
    readonly max: number,
  ) {
    super('BAD_USER_INPUT', TOO_LARGE[what](value, max), {
      budget: { limit: what === 'introspection' ? 'introspectionBytes' : 'responseBytes', value, max },
    });
  }
}

const TOO_LARGE = {
  answer: (value: number, max: number) =>
    `Answer too large: it reached ${value} bytes, the limit is ${max}; ask for fewer items or fields, or page through them`,
  upstream: (value: number, max: number) =>
    `Answer too large: the platform's answers this operation needs reached ${value} bytes, the limit is ${max}; ask for fewer items or fields, or page through them`,
  introspection: (value: number, max: number) =>
    `Introspection too large: it reached ${value} bytes, the limit is ${max} (a quarter more than the whole schema's introspection); ask for the schema once`,
};

/**
 * The upstream answered a success whose body is not the documented shape (malformed JSON, or a
 * field of the wrong type): UPSTREAM_INVALID_RESPONSE. `bodyPath` is the first field at fault
 * (`items.3.title`; empty for the whole body), kept apart from the message for logs.
 */
export class UpstreamContractError extends GatewayError {
  readonly bodyPath: string;

  constructor(message: string, bodyPath = '') {
    super('UPSTREAM_INVALID_RESPONSE', message);
    this.bodyPath = bodyPath;
  }
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_USER_INPUT',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  412: 'PRECONDITION_FAILED',
  422: 'BAD_USER_INPUT',
  // Something the request depends on failed (the platform's answer when an integration it called did).
  424: 'PRECONDITION_FAILED',
  429: 'RATE_LIMITED',
  504: 'UPSTREAM_TIMEOUT',
};

/** Maps an upstream HTTP status to the gateway's error code: the one place this happens. */
export function codeForStatus(status: number): ErrorCode {
  const known = STATUS_CODES[status];
  if (known) return known;
  if (status >= 500) return 'UPSTREAM_UNAVAILABLE';
  if (status >= 400) return 'BAD_USER_INPUT';
  return 'INTERNAL_SERVER_ERROR';
}

/**
 * Builds the error for a failed upstream response. The message is the upstream's own
 * (`{ error: { message } }`) when it sent one, with secrets removed. `retryAfter` (seconds, from
 * the answer's `Retry-After`) is carried by a RATE_LIMITED error, rounded up to whole seconds.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  method: string,
  path: string,
  options: { retryAfter?: number | undefined } = {},
): GatewayError {
  const code = codeForStatus(status);
  const upstreamMessage = extractMessage(body);
  const route = `${method} ${redactPath(path)}`;
  const message = upstreamMessage ?? `${route} answered ${status}`;
  const retryAfter =
    code === 'RATE_LIMITED' && options.retryAfter !== undefined
      ? Math.max(0, Math.ceil(options.retryAfter))
      : undefined;
  return new GatewayError(code, message, {
    upstreamStatus: status,
    retryAfter,
    budget: extractBudget(body),
    restField: extractRestField(body, upstreamMessage),
  });
}

/** How a refusal of the platform names the REST field it is about: `body field "position.before"`. */
const NAMED_FIELD = /(?:body|query) field "([^"]+)"/;

/** The REST field or path parameter a refusal is about, if it names one. */
function extractRestField(body: unknown, message: string | undefined): RestField | undefined {
  const error = body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : undefined;
  const parameter = error && typeof error === 'object' ? (error as { parameter?: unknown }).parameter : undefined;
  if (typeof parameter === 'string' && parameter.length > 0) return { kind: 'parameter', path: [parameter] };
  const named = message ? NAMED_FIELD.exec(message) : null;
  return named ? { kind: 'field', path: named[1]!.split('.'), quoted: named[0] } : undefined;
}

/** The budget a platform refusal names (`{ error: { limit, value, max } }`), if it names one. */
function extractBudget(body: unknown): Budget | undefined {
  const error = body && typeof body === 'object' && 'error' in body ? (body as { error: unknown }).error : undefined;
  if (!error || typeof error !== 'object') return undefined;
  const { limit, value, max } = error as Record<string, unknown>;
  if (typeof limit !== 'string' || typeof value !== 'number' || typeof max !== 'number') return undefined;
  return { limit, value, max };
}

function extractMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (error && typeof error === 'object' && 'message' in error) {
      const message = (error as { message: unknown }).message;
      if (typeof message === 'string' && message.length > 0) return message;
    }
  }
  return undefined;
}

/** Drops the query string, which may carry share keys or visitor tokens, and cuts long paths. */
function redactPath(path: string): string {
  const index = path.indexOf('?');
  const bare = index === -1 ? path : path.slice(0, index);
  return bare.length > 120 ? `${bare.slice(0, 117)}...` : bare;
}

/** Is this error one the gateway already described (as opposed to a bug)? */
export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
