import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { ERROR_CODES, GatewayError, boundMessage, redactSecrets, type ErrorCode } from '../errors.js';

const KNOWN: ReadonlySet<string> = new Set(ERROR_CODES);

/**
 * Decides what a client sees of an error raised while executing: the gateway's own errors as
 * they are; input errors found by GraphQL or Pothos (variables that do not coerce, malformed
 * global IDs) as BAD_USER_INPUT; anything else, which would be a bug, as INTERNAL_SERVER_ERROR
 * with a generic message, logged for the operators.
 */
export function maskExecutionError(error: unknown, log: (message: string) => void): Error {
  const graphqlError = error instanceof GraphQLError ? error : undefined;
  const original = graphqlError?.originalError;
  if (error instanceof GatewayError || original instanceof GatewayError) return error as Error;
  // Refusals the gateway's plugins raise with a code of its list (persisted operations) are meant as they are.
  const code = graphqlError?.extensions?.code;
  if (graphqlError && typeof code === 'string' && KNOWN.has(code)) return graphqlError;
  if (graphqlError && (!original || original instanceof GraphQLError || original.name === 'GraphQLError')) {
    return asCode(graphqlError, 'BAD_USER_INPUT');
  }
  if (graphqlError && original?.name === 'PothosValidationError') {
    return asCode(graphqlError, 'BAD_USER_INPUT', original.message);
  }
  log(redactSecrets(String((original ?? (error as Error))?.stack ?? error)));
  return new GatewayError('INTERNAL_SERVER_ERROR', 'Unexpected error.');
}

/** What the answers yoga sends without a body mean, by status. */
const BODILESS: Record<number, { code: ErrorCode; reason: string; message: string }> = {
  404: {
    code: 'NOT_FOUND',
    reason: 'NOT_FOUND',
    message: 'Nothing is served at this path: send GraphQL requests to the GraphQL endpoint',
  },
  406: {
    code: 'BAD_USER_INPUT',
    reason: 'NOT_ACCEPTABLE',
    message:
      'The Accept header allows none of the formats of the answer: accept application/json, application/graphql-response+json or text/event-stream',
  },
  415: {
    code: 'BAD_USER_INPUT',
    reason: 'UNSUPPORTED_MEDIA_TYPE',
    message:
      'Unsupported content type: send the request as application/json (or application/graphql, application/x-www-form-urlencoded, multipart/form-data)',
  },
};

/**
 * A 406, saying what the client's `Accept` asked for and what this answer could have been sent
 * as: yoga lists the formats it considered in the response's own `accept` header (for an answer in
 * parts, a subscription's included, only the streaming ones).
 */
function notAcceptable(request: Request, response: Response): (typeof BODILESS)[number] {
  const sent = request.headers.get('accept')?.slice(0, 200) || '(none)';
  const offered = [
    ...new Set(
      (response.headers.get('accept') ?? '')
        .split(',')
        .map((type) => type.split(';')[0]!.trim())
        .filter(Boolean),
    ),
  ];
  const formats =
    offered.length > 0
      ? offered.join(', ')
      : 'application/json, application/graphql-response+json, multipart/mixed or text/event-stream';
  return {
    code: 'BAD_USER_INPUT',
    reason: 'NOT_ACCEPTABLE',
    message: `The Accept header sent (${sent}) allows none of the formats this answer can come in: ${formats}${
      offered.includes('text/event-stream')
        ? ' (an answer in parts, or a subscription: for Apollo multipart subscriptions, `multipart/mixed;subscriptionSpec=1.0`)'
        : ''
    }`,
  };
}

/**
 * The refusal yoga answers without a body (an unknown path, an unsupported content type, an
 * Accept header it cannot satisfy), given a JSON body with a coded error like every other answer;
 * undefined for any other response.
 */
export function describeBodilessRefusal(response: Response, request?: Request): Response | undefined {
  if (response.status < 400 || response.body !== null) return undefined;
  const known =
    response.status === 406 && request
      ? notAcceptable(request, response)
      : (BODILESS[response.status] ?? {
          code: 'BAD_USER_INPUT',
          reason: 'BAD_REQUEST',
          message: `The request was refused (HTTP ${response.status})`,
        });
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json; charset=utf-8');
  const body = { errors: [{ message: known.message, extensions: { code: known.code, reason: known.reason } }] };
  return new Response(JSON.stringify(body), { status: response.status, statusText: response.statusText, headers });
}

/**
 * Gives every error of every answer a code of the gateway's list and strips what it should not
 * carry: parse and validation failures and malformed requests become BAD_USER_INPUT (the
 * GraphQL code stays in `extensions.reason`), messages lose embedded credentials, and nothing
 * of the original error (which may echo the request body) is kept. Refusals that yoga answers
 * without a body get one.
 */
export function useErrorPolicy(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) setResult(result.map(normalizeResult));
      else if (isAsyncIterable(result)) setResult(mapAsyncIterator(result, normalizePayload));
      else setResult(normalizeResult(result));
    },
    onResponse({ request, response, setResponse }) {
      const described = describeBodilessRefusal(response, request);
      if (described) setResponse(described);
    },
  };
}

/** `result` with every error given a code of the gateway's list (see `useErrorPolicy`). */
export function normalizeResult<R extends ExecutionResult>(result: R): R {
  if (!result.errors?.length) return result;
  return { ...result, errors: result.errors.map(normalizeError) };
}

/** A part of an answer in parts (@defer, @stream), its deferred and streamed entries included. */
function normalizePayload<R extends ExecutionResult & { incremental?: readonly ExecutionResult[] }>(payload: R): R {
  const normalized = normalizeResult(payload);
  if (!payload.incremental) return normalized;
  return { ...normalized, incremental: payload.incremental.map(normalizeResult) };
}

function normalizeError(error: GraphQLError): GraphQLError {
  const code = error.extensions?.code;
  if (typeof code === 'string' && KNOWN.has(code) && !('originalError' in (error.extensions ?? {}))) {
    return error;
  }
  return asCode(error, typeof code === 'string' && KNOWN.has(code) ? (code as ErrorCode) : 'BAD_USER_INPUT');
}

/** Whether yoga refused the request itself as malformed: its error holds an original error that is no GraphQL error. */
function malformedRequest(error: GraphQLError): boolean {
  const original = error.extensions?.originalError as { name?: unknown } | undefined;
  return typeof original === 'object' && original !== null && original.name !== 'GraphQLError';
}

function asCode(error: GraphQLError, code: ErrorCode, message = error.message): GraphQLError {
  const extensions: Record<string, unknown> = { code };
  const reason = error.extensions?.code;
  if (typeof reason === 'string' && reason !== code) extensions.reason = reason;
  const http = error.extensions?.http as { spec?: boolean; status?: number } | undefined;
  // yoga marks its refusals of a malformed request (a body that is not JSON, or none) as it marks
  // GraphQL errors (\`spec\`), and tells them apart by their original error, which is not passed on:
  // without the mark, a malformed request keeps its 400 whatever the Accept header says.
  if (http) extensions.http = malformedRequest(error) ? { status: http.status } : http;
  for (const key of ['field', 'upstreamStatus'])
    if (key in (error.extensions ?? {})) extensions[key] = error.extensions[key];
  return new GraphQLError(boundMessage(message), {
    ...(error.nodes ? { nodes: error.nodes } : {}),
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
    ...(error.path ? { path: error.path } : {}),
    extensions,
  });
}
