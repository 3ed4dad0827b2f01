import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { getOperationAST, type DocumentNode, type ExecutionResult } from 'graphql';
import { processRegularResult, type YogaServerInstance } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';

/**
 * The gateway's HTTP front. Nearly every request a client sends is the same: a POST of a JSON
 * body `{ query, variables?, operationName? }` to `/graphql`, answered with JSON. Those take a
 * direct lane: the body is read once, the document is parsed and validated through yoga's own
 * plugins (the parse and validation caches, the token and field limits), the operation runs
 * through yoga's executor with the same context, cost model and error masking, and the answer is
 * written with one call. Everything else (GraphiQL, GET, forms, multipart, preflights, health,
 * unknown paths, bodies without a declared length, and every request the lane cannot answer
 * exactly as yoga would: malformed parameters, parse and validation errors) goes to yoga. The
 * answers are the same either way (`test/gateway/http.test.ts` compares them); the lane skips
 * yoga's per-request machinery of fetch-API objects and hooks, which cost more CPU than the
 * GraphQL work of a small query.
 */
export interface HttpFront {
  /** Node's request listener: `createServer(front.handle)`. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The same dispatch for a fetch-API request (tests, embedding in another server). */
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Requests answered by the lane and by yoga since the start. */
  readonly served: { lane: number; yoga: number };
}

/** What the lane needs of the gateway. */
export interface LaneOptions {
  yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  /** Largest body the lane reads; larger ones go to yoga, which refuses them. */
  maxRequestBytes: number;
  /** Records when a request arrived (the origin of `durationMs` and `explain`'s times). */
  arrived(request: Request, at: number): void;
  /** What yoga's result hooks do to every answer: `extensions.cost`, the error policy. */
  finish(request: Request, result: ExecutionResult): ExecutionResult;
  /** Logs an unexpected failure of the lane itself. */
  log(message: string): void;
}

/** An answer of the lane, written as is. */
interface LaneAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The parameters of a GraphQL request, as the lane accepts them. */
interface LaneParams {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
  extensions?: Record<string, unknown> | null;
}

type Header = string | string[] | undefined;

const ENDPOINT = '/graphql';
const PARAM_KEYS = new Set(['query', 'variables', 'operationName', 'extensions']);
const JSON_TYPES = new Set(['application/json', 'application/json;charset=utf-8']);

export function createHttpFront(options: LaneOptions): HttpFront {
  const { yoga, maxRequestBytes } = options;
  const { Request: FetchRequest } = yoga.fetchAPI;
  const served = { lane: 0, yoga: 0 };

  /** The media type of the answer when the lane can take the request; undefined otherwise. */
  function laneMediaType(method: string, path: string, get: (name: string) => Header): string | undefined {
    if (method !== 'POST' || path !== ENDPOINT) return undefined;
    const contentType = get('content-type');
    if (typeof contentType !== 'string' || !JSON_TYPES.has(contentType.replace(/\s/g, '').toLowerCase()))
      return undefined;
    const accept = get('accept');
    return acceptedMediaType(typeof accept === 'string' ? accept : undefined);
  }

  /**
   * Runs one request in the lane; undefined when yoga must answer it (nothing has run then:
   * the document did not parse or validate, or the parameters are not the usual ones).
   */
  async function lane(
    url: string,
    headers: HeadersInit,
    body: string,
    mediaType: string,
    arrivedAt: number,
  ): Promise<LaneAnswer | undefined> {
    const params = parseParams(body);
    if (!params) return undefined;
    const request = new FetchRequest(url, { method: 'POST', headers });
    options.arrived(request, arrivedAt);
    const enveloped = yoga.getEnveloped({ request, params });
    let document: DocumentNode;
    try {
      document = enveloped.parse(params.query);
    } catch {
      return undefined;
    }
    if (enveloped.validate(enveloped.schema, document).length > 0) return undefined;
    const operation = getOperationAST(document, params.operationName);
    if (operation?.operation === 'subscription') return undefined;
    served.lane += 1;
    try {
      const contextValue = await enveloped.contextFactory();
      const executed = (await enveloped.execute({
        schema: enveloped.schema,
        document,
        contextValue,
        variableValues: params.variables,
        operationName: params.operationName,
      })) as ExecutionResult;
      const result = options.finish(request, executed);
      const answer = await answerOf(result, mediaType, yoga.fetchAPI);
      const origin = request.headers.get('origin');
      // yoga's default CORS policy, for a request that is not a preflight.
      if (origin !== null) {
        answer.headers['access-control-allow-origin'] = origin;
        answer.headers.vary = 'Origin';
        answer.headers['access-control-allow-credentials'] = 'true';
      }
      return answer;
    } catch (error) {
      options.log(`the direct lane failed: ${String((error as Error)?.stack ?? error)}`);
      const body = { errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] };
      return { status: 500, headers: { 'content-type': `${mediaType}; charset=utf-8` }, body: JSON.stringify(body) };
    }
  }

  /** yoga's answer to a request whose body has been read already. */
  function viaYoga(
    url: string,
    method: string,
    headers: HeadersInit,
    body: string | undefined,
    serverContext: object,
  ): Promise<Response> {
    served.yoga += 1;
    return Promise.resolve(
      yoga.fetch(new FetchRequest(url, { method, headers, ...(body !== undefined ? { body } : {}) }), serverContext),
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const arrivedAt = performance.now();
    const path = req.url ?? '/';
    const mediaType = laneMediaType(req.method ?? 'GET', path, (name) => req.headers[name]);
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    // Bodies without a declared length, or over the limit, are yoga's: it reads them with a bound.
    if (mediaType === undefined || !(declared <= maxRequestBytes)) {
      served.yoga += 1;
      void yoga(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('error', () => res.destroy());
    req.on('end', () => {
      const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8');
      const url = `http://${hostOf(req.headers)}${path}`;
      // Node's header object (lowercase names, one string per header but `set-cookie`) as fetch headers.
      const headers = req.headers as Record<string, string>;
      void lane(url, headers, body, mediaType, arrivedAt)
        .then((answer) => answer ?? viaYoga(url, 'POST', headers, body, { req, res }).then(fromResponse))
        .then((answer) => {
          answer.headers['content-length'] = String(Buffer.byteLength(answer.body));
          res.writeHead(answer.status, answer.headers);
          res.end(answer.body);
        })
        .catch((error: unknown) => {
          options.log(`the HTTP front failed: ${String((error as Error)?.stack ?? error)}`);
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
          res.end();
        });
    });
  }

  async function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const arrivedAt = performance.now();
    const incoming =
      input instanceof FetchRequest || (typeof Request !== 'undefined' && input instanceof Request)
        ? (input as Request)
        : undefined;
    const url = new URL(incoming ? incoming.url : String(input));
    const method = (init?.method ?? incoming?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers ?? incoming?.headers);
    const mediaType = laneMediaType(method, url.pathname + url.search, (name) => headers.get(name) ?? undefined);
    const body = init?.body;
    const text =
      typeof body === 'string' ? body : body instanceof Uint8Array ? Buffer.from(body).toString('utf8') : undefined;
    const declared = headers.get('content-length');
    const size = text === undefined ? Number.NaN : Buffer.byteLength(text);
    if (
      !incoming &&
      mediaType !== undefined &&
      size <= maxRequestBytes &&
      (declared === null || Number(declared) === size)
    ) {
      const answer = await lane(url.href, headers, text!, mediaType, arrivedAt);
      if (answer) return new Response(answer.body, { status: answer.status, headers: answer.headers });
      return viaYoga(url.href, method, headers, text, {});
    }
    served.yoga += 1;
    return yoga.fetch(incoming ?? new FetchRequest(url.href, init), {});
  }

  return { handle, fetch, served };
}

/**
 * The media type yoga would answer a JSON result with, given the Accept header (its rules: the
 * types listed, without spaces, lowercased, charset other than utf-8 dropped; the first listed
 * that matches wins, and `application/json` wins over `application/graphql-response+json` for a
 * wildcard); undefined when the header asks for anything else (yoga answers those).
 */
export function acceptedMediaType(accept: string | undefined): string | undefined {
  if (accept === undefined || accept === '') return 'application/json';
  let chosen: string | undefined;
  const types = accept.replace(/\s/g, '').toLowerCase().split(',').reverse();
  for (const entry of types) {
    const [type = '', ...params] = entry.split(';');
    const charset = params.find((param) => param.includes('charset=')) ?? 'charset=utf-8';
    if (charset !== 'charset=utf-8') continue;
    // Types yoga could answer otherwise (event streams, multipart) leave the request to it.
    if (!/^(\*\/\*|application\/(\*|json|graphql-response\+json))$/.test(type)) {
      if (matches('text/event-stream', type) || matches('multipart/mixed', type)) return undefined;
      continue;
    }
    for (const candidate of ['application/graphql-response+json', 'application/json'])
      if (matches(candidate, type)) chosen = candidate;
  }
  return chosen;
}

function matches(candidate: string, asked: string): boolean {
  const [pre, suf] = asked.split('/');
  const [candidatePre, candidateSuf] = candidate.split('/');
  return (pre === '*' || pre === candidatePre) && (suf === '*' || suf === candidateSuf);
}

/** The parameters when they are the usual ones; undefined sends the request to yoga, which explains what is wrong. */
function parseParams(body: string): LaneParams | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const params = parsed as Record<string, unknown>;
  for (const key in params) if (!PARAM_KEYS.has(key)) return undefined;
  if (typeof params.query !== 'string' || params.query === '') return undefined;
  if (!isOptional(params.operationName, 'string')) return undefined;
  if (!isOptional(params.variables, 'object') || !isOptional(params.extensions, 'object')) return undefined;
  return params as unknown as LaneParams;
}

function isOptional(value: unknown, type: 'string' | 'object'): boolean {
  if (value === undefined || value === null) return true;
  return type === 'object' ? typeof value === 'object' && !Array.isArray(value) : typeof value === type;
}

/** The answer to an execution result, as yoga's JSON result processor gives it. */
async function answerOf(
  result: ExecutionResult,
  mediaType: string,
  fetchAPI: YogaServerInstance<Record<string, never>, GatewayContext>['fetchAPI'],
): Promise<LaneAnswer> {
  if (!result.errors?.length && !(result.extensions as { http?: unknown } | undefined)?.http) {
    return { status: 200, headers: { 'content-type': `${mediaType}; charset=utf-8` }, body: JSON.stringify(result) };
  }
  // Errors decide the status and are stripped of internal extensions: yoga's own processor does it.
  return fromResponse(await processRegularResult(result, fetchAPI, mediaType));
}

async function fromResponse(response: Response): Promise<LaneAnswer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

function hostOf(headers: IncomingHttpHeaders): string {
  const host = headers.host;
  return host && /^[\w.:[\]-]+$/.test(host) ? host : 'localhost';
}
