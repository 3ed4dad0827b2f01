import { Pool, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  GatewayError,
  UpstreamContractError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  errorFromResponse,
} from '../errors.js';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One finished upstream exchange, reported to `onExchange` (used by benchmarks and logs). */
export interface Exchange {
  method: HttpMethod;
  /** Path without the query string. */
  path: string;
  status: number | undefined;
  /** `performance.now()` when the first try started and when the last one ended. */
  startedAt: number;
  endedAt: number;
  /** Tries after the first one (retries of an idempotent read). */
  retries: number;
}

export interface RestClientOptions {
  /** Base URL of the REST API, ending in `/v1` (for example `http://127.0.0.1:4010/v1`). */
  baseUrl: string;
  /**
   * Milliseconds before a request (connection, headers and body) is abandoned.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Keep-alive connections kept to the upstream origin.
   * @default 64
   */
  connections?: number;
  /**
   * Dispatcher used instead of the client's own undici Pool (tests pass a MockAgent).
   * The client does not close a dispatcher it was given.
   */
  dispatcher?: Dispatcher;
  /** Called after every upstream exchange, successful or not. */
  onExchange?: (exchange: Exchange) => void;
}

export interface RestRequest<S extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Path below the base URL, starting with `/` (build it with `route`). */
  path: string;
  query?: Query | undefined;
  body?: unknown;
  /** Value of the `Authorization` header to forward. */
  authorization?: string | undefined;
  /** Schema of a successful body; leave out for answers without a body (204/205). */
  schema?: S;
  /** Called once when this request is over (after its last try), successful or not. */
  onExchange?: ((exchange: Exchange) => void) | undefined;
}

export interface RestResponse<T> {
  status: number;
  data: T;
}

/**
 * Builds a path with every interpolated value URI-encoded, so ids can never change the route:
 * route`/orgs/${id}/members` → `/orgs/a%2Fb/members`.
 */
export function route(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce(
    (path, part, index) =>
      path + part + (index < values.length ? encodeURIComponent(String(values[index])) : ''),
    '',
  );
}

/** Serializes a query with keys sorted, so equal queries give equal cache keys. */
export function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const key of Object.keys(query).sort()) {
    const value = query[key];
    if (value === undefined || value === null) continue;
    params.append(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The one HTTP client of the gateway: an undici Pool per upstream origin with keep-alive and
 * timeouts. It parses every successful body with the given zod schema and turns every failure
 * into a coded GatewayError (see `errorFromResponse`). It holds no per-request state.
 */
export class RestClient {
  readonly origin: string;
  readonly basePath: string;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly timeoutMs: number;
  private readonly onExchange: ((exchange: Exchange) => void) | undefined;

  constructor(options: RestClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.onExchange = options.onExchange;
    if (options.dispatcher) {
      this.dispatcher = options.dispatcher;
      this.ownsDispatcher = false;
    } else {
      this.dispatcher = new Pool(this.origin, {
        connections: options.connections ?? 64,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connectTimeout: this.timeoutMs,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      this.ownsDispatcher = true;
    }
  }

  async request<S extends z.ZodType | undefined = undefined>(
    request: RestRequest<S>,
  ): Promise<RestResponse<S extends z.ZodType ? z.infer<S> : undefined>> {
    const { method, path, query, body, authorization, schema } = request;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (authorization) headers.authorization = authorization;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const startedAt = performance.now();
    let status: number | undefined;
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: this.basePath + path + queryString(query),
        method,
        headers,
        body: payload,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      status = response.statusCode;
      const text = await response.body.text();
      const json = parseJson(text);
      if (status >= 400) throw errorFromResponse(status, json, method, path);
      if (!schema) return { status, data: undefined as never };
      return { status, data: parseBody(schema, json, method, path) as never };
    } catch (error) {
      throw toGatewayError(error, method, path);
    } finally {
      const exchange: Exchange = { method, path, status, startedAt, endedAt: performance.now(), retries: 0 };
      this.onExchange?.(exchange);
      request.onExchange?.(exchange);
    }
  }

  /** Closes the connections this client opened. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * Parses a successful body with its zod schema; a mismatch is an UpstreamContractError naming
 * the first field at fault (values are not repeated: they may be secrets).
 */
export function parseBody<S extends z.ZodType>(schema: S, json: unknown, method: string, path: string): z.infer<S> {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new UpstreamContractError(
    `${method} ${path} answered a body that does not match the API${where}: ${issue?.message ?? 'invalid'}`,
  );
}

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function toGatewayError(error: unknown, method: string, path: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const err = error as { name?: string; code?: string };
  if (err?.name === 'TimeoutError' || (err?.code && TIMEOUT_CODES.has(err.code))) {
    return new UpstreamTimeoutError(`${method} ${path} did not answer in time`);
  }
  return new UpstreamUnavailableError(
    `${method} ${path} could not be reached${err?.code ? ` (${err.code})` : ''}`,
  );
}
