import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, request as undiciRequest, type Dispatcher } from 'undici';
import type { z } from 'zod';
import {
  AbandonedRequestError,
  GatewayError,
  ResponseTooLargeError,
  UpstreamContractError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  errorFromResponse,
  redactSecrets,
} from '../errors.js';
import type { CallName, HttpMethod } from './record.js';
import { HEAVY_BYTES, ownTurn } from './turns.js';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;
export type { HttpMethod };

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
  /** The route template of its operation (`/spaces/{spaceId}`), never the path with its ids: `(other)` without one. */
  route: string;
  /** The operation it called, when it was called through its record (see `record.ts`). */
  operationId?: string | undefined;
}

export interface RestClientOptions {
  /** Base URL of the REST API, ending in `/v1` (for example `http://127.0.0.1:4010/v1`). */
  baseUrl: string;
  /**
   * Milliseconds one request may take, every try and every wait between tries included
   * (connection, headers and body); past it the request fails with UPSTREAM_TIMEOUT.
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
  /** Called once per request, after its last try, successful or not. */
  onExchange?: (exchange: Exchange) => void;
  /**
   * Retries of a GET answered 502, 503 or 504 or whose connection was reset or refused, each
   * after a random wait below `retryBaseDelayMs` doubled per retry, all within `timeoutMs`.
   * Writes are retried only when the connection was refused: then nothing was sent.
   * @default 2
   */
  maxRetries?: number;
  /** Longest wait before the first retry; it doubles with each further retry. @default 50 */
  retryBaseDelayMs?: number;
  /**
   * Failed tries in a row (connection errors, timeouts, 5xx answers; 4xx answers are not
   * failures) that open the circuit breaker: requests then fail fast with UPSTREAM_UNAVAILABLE
   * for `breakerCooldownMs`, after which one probe request is let through.
   * @default 5
   */
  breakerThreshold?: number;
  /** Milliseconds an open circuit breaker fails requests fast before letting a probe through. @default 5000 */
  breakerCooldownMs?: number;
  /**
   * Largest upstream body read, in bytes; reading stops there and the request fails with
   * BAD_USER_INPUT (`limit: responseBytes`). A request may ask for a lower bound (`maxBytes`).
   * @default 8388608
   */
  maxBodyBytes?: number;
  /**
   * Where answers of the wrong shape (UPSTREAM_INVALID_RESPONSE) are reported: once per
   * operation and field at fault, values never included.
   * @default console
   */
  logger?: Pick<Console, 'warn'>;
}

/** The circuit breaker of the upstream origin, as health checks show it. */
export interface BreakerStatus {
  /**
   * `closed`: requests go out; `open`: they fail fast; `half-open`: the cool-down is over and
   * the next request (or the one under way) is the probe that closes or reopens it.
   */
  state: 'closed' | 'open' | 'half-open';
  /** Failed tries in a row; a success resets it. */
  consecutiveFailures: number;
  /** When an open breaker lets a probe through (epoch milliseconds); undefined when closed. */
  reopensAt: number | undefined;
}

/** What `RestClient.ping` found. */
export interface PingResult {
  /** The upstream answered a status below 500 in time. */
  reachable: boolean;
  /** The status it answered, if it answered. */
  status?: number;
  durationMs: number;
  /** Why it is not reachable (no URL, no credentials). */
  reason?: string;
}

export interface RestRequest<S extends z.ZodType | undefined> {
  method: HttpMethod;
  /** Path below the base URL, starting with `/` (from an operation's record: `pathOf`). */
  path: string;
  /** The operation called: metrics, traces and logs name the request by it. */
  operation?: CallName | undefined;
  query?: Query | undefined;
  body?: unknown;
  /** Value of the `Authorization` header to forward. */
  authorization?: string | undefined;
  /** Schema of a successful body; leave out for answers without a body (204/205). */
  schema?: S;
  /** Called once when this request is over (after its last try), successful or not. */
  onExchange?: ((exchange: Exchange) => void) | undefined;
  /** Most bytes of body to read (at most the client's `maxBodyBytes`): what is left of the GraphQL request's budget. */
  maxBytes?: number | undefined;
  /** Sent as `x-request-id`, so the upstream's logs name the GraphQL request a call served. */
  requestId?: string | undefined;
  /** Sent as `traceparent` (W3C trace context), so the upstream's spans join the operation's trace. */
  traceparent?: string | undefined;
  /** Aborted when the client of the GraphQL request went away: the request is abandoned, tries and waits alike. */
  signal?: AbortSignal | undefined;
  /** Sent as `If-None-Match`: an upstream that still holds this entity tag answers 304, with no body to read. */
  ifNoneMatch?: string | undefined;
  /** Answer the body's text too (`RestResponse.text`), besides the data parsed from it. */
  keepText?: boolean | undefined;
  /**
   * Bytes from which a body (kept as text, `keepText`) is not parsed on arrival: the answer's
   * `parse` does it when something needs the value, which a body sent on as it is never does.
   */
  unparsedFrom?: number | undefined;
}

/** The data of an answer read with `schema`: nothing without one. */
export type Parsed<S extends z.ZodType | undefined> = S extends z.ZodType ? z.infer<S> : undefined;

export interface RestResponse<T> {
  /** The upstream's status; 304 answers a conditional request (`ifNoneMatch`), and has no data. */
  status: number;
  data: T;
  /** Bytes of the body read. */
  bytes: number;
  /** The entity tag the upstream answered (`ETag`), for a conditional request later. */
  etag?: string | undefined;
  /** The body as it came, when the request asked to keep it (`keepText`). */
  text?: string | undefined;
  /** A body left unparsed (`unparsedFrom`): parses it (`data` is undefined until then). */
  parse?: (() => unknown) | undefined;
}

/** Largest upstream body a client reads by default (`RestClientOptions.maxBodyBytes`). */
export const DEFAULT_MAX_BODY_BYTES = 8 * 1024 * 1024;

/** How the gateway names itself to the platform: operators tell its requests apart in their logs. */
export const USER_AGENT = 'docs-graphql-gateway/1';

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
  private readonly exchangeListeners: Array<(exchange: Exchange) => void> = [];
  private readonly maxRetries: number;
  private readonly retryBaseDelayMs: number;
  private readonly breaker: CircuitBreaker;
  private readonly logger: Pick<Console, 'warn'>;
  private readonly maxBodyBytes: number;
  /** Operations and fields already logged as invalid, oldest first. */
  private readonly reportedInvalid = new Set<string>();

  constructor(options: RestClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.onExchange = options.onExchange;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryBaseDelayMs = options.retryBaseDelayMs ?? 50;
    this.breaker = new CircuitBreaker(options.breakerThreshold ?? 5, options.breakerCooldownMs ?? 5_000);
    this.logger = options.logger ?? console;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
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

  /**
   * Sends one request: retried as `maxRetries` says, within `timeoutMs` in all, refused at once
   * while the circuit breaker is open. Resolves to the status and the body parsed with
   * `schema`; rejects with a coded GatewayError.
   */
  request<S extends z.ZodType | undefined = undefined>(request: RestRequest<S>): Promise<RestResponse<Parsed<S>>>;
  // TypeScript does not narrow `S` from a check of `schema`, so the body is typed loosely and the
  // signature above, which callers see, holds the link between schema and data.
  async request(request: RestRequest<z.ZodType | undefined>): Promise<RestResponse<unknown>> {
    const { method, path, query, body, authorization, schema, signal } = request;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (authorization) headers.authorization = authorization;
    if (request.requestId) headers['x-request-id'] = request.requestId;
    if (request.traceparent) headers.traceparent = request.traceparent;
    if (request.ifNoneMatch) headers['if-none-match'] = request.ifNoneMatch;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const deadline = performance.now() + this.timeoutMs;
    let startedAt: number | undefined;
    let endedAt: number | undefined;
    let status: number | undefined;
    let tries = 0;
    let waitedForRateLimit = false;
    let failure: GatewayError | undefined;
    try {
      for (;;) {
        if (signal?.aborted) throw new AbandonedRequestError(method, path);
        const ticket = this.breaker.admit();
        // A retry refused by the breaker reports what actually happened to this request.
        if (!ticket) throw failure ?? this.breakerError(method, path);
        startedAt ??= performance.now();
        tries += 1;
        const maxBytes = Math.min(this.maxBodyBytes, request.maxBytes ?? Number.POSITIVE_INFINITY);
        const outcome = await this.tryOnce(
          method,
          this.basePath + path + queryString(query),
          headers,
          payload,
          deadline,
          maxBytes,
          signal,
        );
        endedAt = performance.now();
        if (signal?.aborted) {
          // Nobody waits for the answer: it says nothing of the upstream's health either way.
          this.breaker.released(ticket);
          throw new AbandonedRequestError(method, path);
        }
        let retryable = false;
        let waitMs: number | undefined;
        if ('tooLarge' in outcome) {
          // The upstream answered; the answer is larger than this request may read.
          this.breaker.succeeded(ticket);
          status = outcome.status;
          throw new ResponseTooLargeError('upstream', outcome.tooLarge, maxBytes);
        }
        if ('error' in outcome) {
          this.breaker.failed(ticket);
          status = undefined;
          const connection = outcome.timedOut ? undefined : connectionFailure(outcome.error);
          failure = outcome.timedOut
            ? new UpstreamTimeoutError(
                `${method} ${path} did not answer within ${this.timeoutMs} ms${tries > 1 ? ` (${tries} tries)` : ''}`,
              )
            : toGatewayError(outcome.error, method, path);
          // A refused connection carried nothing, so even a write may go again.
          retryable = connection === 'reset' ? method === 'GET' : connection === 'refused';
        } else {
          status = outcome.status;
          if (status >= 500) this.breaker.failed(ticket);
          else this.breaker.succeeded(ticket);
          if (status < 400) {
            const etag = headerValue(outcome.headers, 'etag');
            // 204, 205 and 304 never carry a body (RFC 9110): nothing to parse, whatever the operation answers otherwise.
            if (!schema || NO_BODY_STATUSES.has(status)) return { status, data: undefined, bytes: outcome.bytes, etag };
            const { text } = outcome;
            const named = request.operation?.path;
            if (request.keepText && request.unparsedFrom !== undefined && text.length >= request.unparsedFrom) {
              return {
                status,
                data: undefined,
                bytes: outcome.bytes,
                etag,
                text,
                parse: () => this.parseSuccess(schema, text, method, path, named),
              };
            }
            // A large body's parse is a heavy step: one per loop turn (see turns.ts).
            if (text.length >= HEAVY_BYTES) await ownTurn();
            return {
              status,
              data: this.parseSuccess(schema, outcome.text, method, path, named),
              bytes: outcome.bytes,
              etag,
              ...(request.keepText ? { text: outcome.text } : {}),
            };
          }
          const retryAfter = status === 429 ? parseRetryAfter(headerValue(outcome.headers, 'retry-after')) : undefined;
          failure = errorFromResponse(status, parseJson(outcome.text), method, path, {
            retryAfter: retryAfter === undefined ? undefined : retryAfter / 1000,
          });
          if (method === 'GET' && RETRIED_STATUSES.has(status)) retryable = true;
          else if (method === 'GET' && status === 429 && retryAfter !== undefined && !waitedForRateLimit) {
            retryable = true;
            waitMs = retryAfter;
            waitedForRateLimit = true;
          }
        }
        if (!retryable || tries > this.maxRetries) throw failure;
        const wait = waitMs ?? Math.random() * this.retryBaseDelayMs * 2 ** (tries - 1);
        if (performance.now() + wait >= deadline) throw failure;
        await sleep(wait, undefined, { signal }).catch(() => undefined);
      }
    } finally {
      const now = performance.now();
      const exchange: Exchange = {
        method,
        path,
        status,
        startedAt: startedAt ?? now,
        endedAt: endedAt ?? now,
        retries: Math.max(0, tries - 1),
        route: request.operation?.path ?? UNNAMED_ROUTE,
        operationId: request.operation?.operationId,
      };
      this.onExchange?.(exchange);
      for (const listener of this.exchangeListeners) listener(exchange);
      request.onExchange?.(exchange);
    }
  }

  /**
   * Whether the upstream answers at all: a GET of the base URL without credentials, answered
   * below 500 within `timeoutMs` (default: the request timeout, at most 2 s). It counts for the
   * circuit breaker like any request (it is the probe when the cool-down is over, and is refused
   * while the breaker is open), is never retried and is not reported to `onExchange`.
   */
  async ping(timeoutMs = Math.min(2_000, this.timeoutMs)): Promise<PingResult> {
    const started = performance.now();
    const ticket = this.breaker.admit();
    if (!ticket) return { reachable: false, durationMs: 0, reason: 'the circuit breaker is open' };
    const path = this.basePath || '/';
    const outcome = await this.tryOnce(
      'GET',
      path,
      { accept: 'application/json' },
      undefined,
      started + timeoutMs,
      64 * 1024,
    );
    const durationMs = performance.now() - started;
    if ('tooLarge' in outcome) {
      this.breaker.succeeded(ticket);
      return { reachable: true, status: outcome.status, durationMs };
    }
    if ('error' in outcome) {
      this.breaker.failed(ticket);
      const reason = outcome.timedOut
        ? `GET ${path} did not answer within ${timeoutMs} ms`
        : toGatewayError(outcome.error, 'GET', path).message;
      return { reachable: false, durationMs, reason };
    }
    if (outcome.status >= 500) {
      this.breaker.failed(ticket);
      return { reachable: false, status: outcome.status, durationMs, reason: `GET ${path} answered ${outcome.status}` };
    }
    this.breaker.succeeded(ticket);
    return { reachable: true, status: outcome.status, durationMs };
  }

  /** The state of the circuit breaker of the upstream origin. */
  /** Calls `listener` once per finished request, like the `onExchange` option (metrics listen here). */
  addExchangeListener(listener: (exchange: Exchange) => void): void {
    this.exchangeListeners.push(listener);
  }

  breakerStatus(): BreakerStatus {
    return this.breaker.status();
  }

  /**
   * Closes the circuit breaker at once: for an owner that knows the upstream serves again (the
   * supervisor of the embedded platform, when a restarted process is ready), so requests need
   * not fail fast until the cool-down is over.
   */
  resetBreaker(): void {
    this.breaker.reset();
  }

  /**
   * PUTs bytes to an upload URL the platform signed (`POST /orgs/{id}/storage/upload`): no
   * credentials, no retry (the URL takes one upload), within `timeoutMs`.
   */
  async upload(url: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.signedUrl(
      'upload',
      url,
      {
        method: 'PUT',
        headers: { 'content-type': contentType, 'content-length': String(bytes.byteLength) },
        body: bytes,
      },
      64 * 1024,
    );
  }

  /**
   * GETs the text at a URL the platform gave (a signed download URL, such as an OpenAPI
   * version's `url`): no credentials, within `timeoutMs`, at most `maxBytes` (past it,
   * BAD_USER_INPUT with `limit: responseBytes`).
   */
  async download(url: string, maxBytes: number): Promise<{ text: string; contentType: string | undefined }> {
    return this.signedUrl('download', url, { method: 'GET' }, maxBytes);
  }

  /**
   * One exchange with a URL the platform gave (signed: it is its own permission, so no error
   * names it and no credentials go with it), through the platform's connections when it is on
   * its origin, within `timeoutMs`, its answer read up to `maxBytes`. A refusal of the signed URL
   * is the platform's fault, not the caller's.
   */
  private async signedUrl(
    what: 'upload' | 'download',
    url: string,
    request: { method: 'GET' | 'PUT'; headers?: Record<string, string>; body?: Uint8Array },
    maxBytes: number,
  ): Promise<{ text: string; contentType: string | undefined }> {
    const target = new URL(url);
    if (target.protocol !== 'http:' && target.protocol !== 'https:')
      throw new UpstreamContractError(`The platform gave a ${what} URL that is not http or https`);
    // Credentials are never sent to, or taken from, a URL of an answer.
    if (target.username || target.password)
      throw new UpstreamContractError(`The platform gave a ${what} URL with credentials in it`);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const started = performance.now();
    let status: number | undefined;
    try {
      const options = { ...request, signal: controller.signal };
      const response =
        target.origin === this.origin
          ? await this.dispatcher.request({ ...options, origin: this.origin, path: target.pathname + target.search })
          : await undiciRequest(target, { ...options, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
      status = response.statusCode;
      const body = await readBody(response.body, maxBytes);
      if ('tooLarge' in body) {
        controller.abort();
        // A download is what the caller asked for: too large for it is its limit, not the platform's fault.
        if (what === 'download') throw new ResponseTooLargeError('upstream', body.tooLarge, maxBytes);
        throw new UpstreamContractError(`The answer of the ${what} URL is larger than ${maxBytes} bytes`);
      }
      const { text } = body;
      if (status === 401 || status === 403)
        throw new UpstreamContractError(`The platform refused the ${what} URL it had signed`);
      if (status >= 300) throw errorFromResponse(status, parseJson(text), request.method, `the ${what} URL`);
      const type = response.headers['content-type'];
      return { text, contentType: Array.isArray(type) ? type[0] : type };
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      if (controller.signal.aborted || isTimeout(error))
        throw new UpstreamTimeoutError(`The ${what} did not finish within ${this.timeoutMs} ms`);
      throw new UpstreamUnavailableError(`The ${what} URL could not be reached`);
    } finally {
      clearTimeout(timer);
      this.onExchange?.({
        method: request.method,
        path: what === 'upload' ? '/storage/upload' : '/download',
        status,
        startedAt: started,
        endedAt: performance.now(),
        retries: 0,
        route: what === 'upload' ? '/storage/upload' : '/download',
      });
    }
  }

  /** One try, never rejecting: the answer read in full, or why there is none. */
  private async tryOnce(
    method: HttpMethod,
    requestPath: string,
    headers: Record<string, string>,
    payload: string | undefined,
    deadline: number,
    maxBytes: number,
    abandoned?: AbortSignal,
  ): Promise<TryOutcome> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(1, deadline - performance.now()));
    const abandon = () => controller.abort();
    abandoned?.addEventListener('abort', abandon, { once: true });
    try {
      const response = await this.dispatcher.request({
        origin: this.origin,
        path: requestPath,
        method,
        headers,
        body: payload,
        signal: controller.signal,
      });
      const body = await readBody(response.body, maxBytes);
      if ('tooLarge' in body) {
        controller.abort();
        return { status: response.statusCode, tooLarge: body.tooLarge };
      }
      return { status: response.statusCode, headers: response.headers, text: body.text, bytes: body.bytes };
    } catch (error) {
      return { error, timedOut: controller.signal.aborted || isTimeout(error) };
    } finally {
      clearTimeout(timer);
      abandoned?.removeEventListener('abort', abandon);
    }
  }

  /** Parses a successful answer that should have a JSON body. */
  private parseSuccess(schema: z.ZodType, text: string, method: HttpMethod, path: string, route?: string): unknown {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      const error = new UpstreamContractError(
        `${method} ${path} answered ${text.length === 0 ? 'no body' : 'a body that is not JSON'}`,
      );
      this.reportInvalid(error, method, route ?? UNNAMED_ROUTE);
      throw error;
    }
    if (typeof json !== 'object' || json === null) {
      // Every body of the API is a JSON object: callers that parse later (upstream/request.ts) could not log this one.
      const error = new UpstreamContractError(`${method} ${path} answered a body that is not a JSON object`);
      this.reportInvalid(error, method, route ?? UNNAMED_ROUTE);
      throw error;
    }
    receivers.set(json, (error) => this.reportInvalid(error, method, route ?? UNNAMED_ROUTE));
    return parseBody(schema, json, method, path);
  }

  /** Logs an invalid answer once per operation (its path template) and field (list indexes left out). */
  private reportInvalid(error: UpstreamContractError, method: string, template: string): void {
    const key = `${method} ${template} ${error.bodyPath.replace(/(^|\.)\d+(?=\.|$)/g, '[]')}`;
    if (this.reportedInvalid.has(key)) return;
    if (this.reportedInvalid.size >= MAX_REPORTED_INVALID) {
      const oldest = this.reportedInvalid.values().next().value;
      if (oldest !== undefined) this.reportedInvalid.delete(oldest);
    }
    this.reportedInvalid.add(key);
    this.logger.warn(redactSecrets(`Invalid upstream answer (logged once per operation and field): ${error.message}`));
  }

  private breakerError(method: string, path: string): UpstreamUnavailableError {
    const { consecutiveFailures, reopensAt } = this.breaker.status();
    const wait = reopensAt === undefined ? 0 : reopensAt - Date.now();
    const next =
      wait > 0
        ? `it will be tried again at ${new Date(reopensAt!).toISOString()} (in ${(wait / 1000).toFixed(1)} s)`
        : 'a trial request is under way, and it will be tried again once that one answers';
    return new UpstreamUnavailableError(
      `The platform is failing (${consecutiveFailures} failed requests in a row), so ${method} ${path} was not sent: ${next}`,
    );
  }

  /** Closes the connections this client opened. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }
}

/**
 * Parses a successful body with its zod schema; a mismatch is an UpstreamContractError
 * (UPSTREAM_INVALID_RESPONSE) naming the operation and the first field at fault (values are not
 * repeated: they may be secrets). When the body came from a RestClient, that client logs it.
 */
export function parseBody<S extends z.ZodType>(schema: S, json: unknown, method: string, path: string): z.infer<S> {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const at = issue ? issue.path.map(String).join('.') : '';
  const operation = `${method} ${path.split('?')[0]}`;
  const error = new UpstreamContractError(
    `${operation} answered a body that does not match the API${at ? ` at ${at}` : ''}: ${describeIssue(issue)}`,
    at,
  );
  // upstream/request.ts parses a GET's body outside the client (one read serves several schemas): the
  // client that received the body is found through it.
  if (typeof json === 'object' && json !== null) receivers.get(json)?.(error);
  throw error;
}

/** What is wrong, without the value at fault: zod's own messages name types, never values. */
function describeIssue(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'invalid';
  // Messages of refinements are written by hand and could repeat the value.
  if (issue.code === 'custom') return 'fails a documented constraint';
  return issue.message;
}

/** Bodies handed out by a client, with the function that logs them when they turn out invalid. */
const receivers = new WeakMap<object, (error: UpstreamContractError) => void>();

/** Most distinct operation and field pairs a client remembers having logged. */
const MAX_REPORTED_INVALID = 1000;

function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Milliseconds to wait that a `Retry-After` value asks for: delay-seconds or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`; 0 when past). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Date.parse reads many formats; only an HTTP date (IMF-fixdate and its obsolete forms) names a weekday or a month.
  if (!/[a-z]{3}/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The route of a request sent without its operation: one label for all, never a path holding ids. */
const UNNAMED_ROUTE = '(other)';

/** Statuses whose answers have no body. */
const NO_BODY_STATUSES = new Set([204, 205, 304]);

/** Statuses after which a GET is tried again: the upstream or a proxy in front of it failed. */
const RETRIED_STATUSES = new Set([502, 503, 504]);

type TryOutcome =
  | { status: number; headers: Record<string, string | string[] | undefined>; text: string; bytes: number }
  | { status: number; tooLarge: number }
  | { error: unknown; timedOut: boolean };

/**
 * Reads a body as UTF-8 text, up to `maxBytes`: past it, reading stops (so a huge body costs no
 * more than the bound) and `tooLarge` tells how many bytes had arrived.
 */
async function readBody(
  body: AsyncIterable<Buffer | Uint8Array>,
  maxBytes: number,
): Promise<{ text: string; bytes: number } | { tooLarge: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (bytes > maxBytes) return { tooLarge: bytes };
    chunks.push(chunk as Buffer);
  }
  return { text: Buffer.concat(chunks, bytes).toString('utf8'), bytes };
}

/**
 * Whether a failed try lost its connection: `refused` (no connection, so nothing was sent) or
 * `reset` (the connection broke while the request was out); undefined for anything else.
 */
function connectionFailure(error: unknown): 'refused' | 'reset' | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, message, errors } = current as { code?: unknown; message?: unknown; errors?: unknown };
    if (code === 'ECONNREFUSED') return 'refused';
    if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET') return 'reset';
    if (typeof message === 'string' && /other side closed/i.test(message)) return 'reset';
    // Connecting to a name with several addresses fails with one error per address.
    if (Array.isArray(errors) && errors.length > 0 && errors.every((e) => connectionFailure(e) === 'refused'))
      return 'refused';
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT']);

function isTimeout(error: unknown): boolean {
  const err = error as { name?: string; code?: string } | undefined;
  return err?.name === 'TimeoutError' || (err?.code !== undefined && TIMEOUT_CODES.has(err.code));
}

function toGatewayError(error: unknown, method: string, path: string): GatewayError {
  if (error instanceof GatewayError) return error;
  const err = error as { code?: string } | undefined;
  if (isTimeout(error)) return new UpstreamTimeoutError(`${method} ${path} did not answer in time`);
  return new UpstreamUnavailableError(`${method} ${path} could not be reached${err?.code ? ` (${err.code})` : ''}`);
}

/** Permission for one try; the probe is the one try let through when an open breaker cools down. */
interface Ticket {
  probe: boolean;
}

/**
 * Counts failed tries in a row against one origin; at the threshold it opens: tries are refused
 * for the cool-down, then one probe goes out, whose success closes it and failure reopens it.
 * Wall-clock time, so that `reopensAt` can be shown.
 */
class CircuitBreaker {
  private failures = 0;
  private openUntil: number | undefined;
  private probing = false;

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
  ) {}

  status(): BreakerStatus {
    const state = this.openUntil === undefined ? 'closed' : Date.now() < this.openUntil ? 'open' : 'half-open';
    return { state, consecutiveFailures: this.failures, reopensAt: this.openUntil };
  }

  /** A ticket for one try, or undefined when the breaker refuses it. */
  admit(): Ticket | undefined {
    if (this.openUntil === undefined) return { probe: false };
    if (this.probing || Date.now() < this.openUntil) return undefined;
    this.probing = true;
    return { probe: true };
  }

  reset(): void {
    this.failures = 0;
    this.openUntil = undefined;
    this.probing = false;
  }

  succeeded(ticket: Ticket): void {
    // A try admitted before the breaker opened proves less than the probe: only the probe closes it.
    if (this.openUntil !== undefined && !ticket.probe) return;
    this.failures = 0;
    this.openUntil = undefined;
    this.probing = false;
  }

  /** A try whose answer nobody waited for: a probe frees the way for the next one. */
  released(ticket: Ticket): void {
    if (ticket.probe) this.probing = false;
  }

  failed(ticket: Ticket): void {
    this.failures += 1;
    if (ticket.probe) {
      this.probing = false;
      this.openUntil = Date.now() + this.cooldownMs;
    } else if (this.openUntil === undefined && this.failures >= this.threshold) {
      this.openUntil = Date.now() + this.cooldownMs;
    }
  }
}
