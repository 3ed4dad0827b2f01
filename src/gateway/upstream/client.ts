import { Pool, request as undiciRequest, type Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
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
import {
  UNNAMED_ROUTE,
  withHooks,
  type ExplainedCall,
  type UpstreamAnswer,
  type UpstreamCall,
  type UpstreamFetch,
  type UpstreamHook,
  type UpstreamSpan,
} from './hooks.js';
import type { CallName, HttpMethod } from './record.js';
import { headerValue, parseRetryAfter } from './retry.js';
import { DEFAULT_UPSTREAM_TIMEOUT_MS } from './timeout.js';
import { HEAVY_BYTES, ownTurn } from './turns.js';

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;
export type { HttpMethod };
export type { Exchange } from './hooks.js';
export { parseRetryAfter };

export interface RestClientOptions {
  /** Base URL of the REST API, ending in `/v1` (for example `http://127.0.0.1:4010/v1`). */
  baseUrl: string;
  /**
   * Milliseconds the pool waits to connect, for headers and between body chunks, and the
   * default of `ping`; a gateway's time budget per request (`ResilienceOptions.timeoutMs`) takes it too.
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
  /**
   * Hooks around the client's own fetch, first outermost (see `hooks.ts`); none by default, so a
   * client alone sends each request once, bounded by the pool's timeouts only. Its owner chooses
   * the rest: timeout, retry and breaker are `upstreamResilience(...).hooks`. A gateway runs its
   * own list (`createGateway`: resilience included) outside these, with `withHooks`.
   * @default []
   */
  hooks?: readonly UpstreamHook[];
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
  /** Most bytes of body to read (at most the client's `maxBodyBytes`): what is left of the GraphQL request's budget. */
  maxBytes?: number | undefined;
  /** Sent as `x-request-id`, so the upstream's logs name the GraphQL request a call served. */
  requestId?: string | undefined;
  /**
   * The GraphQL request's span, when it is traced: its `traceparent` is sent (W3C trace context), so
   * the upstream's spans join the operation's trace, and the tracing hook makes the call's span its child.
   */
  span?: UpstreamSpan | undefined;
  /** The call's record in the trace of `explain`, when the GraphQL request is explained. */
  explained?: ExplainedCall | undefined;
  /** Aborted when the client of the GraphQL request went away: the request is abandoned, tries and waits alike. */
  signal?: AbortSignal | undefined;
  /** Sent as `If-None-Match`: an upstream that still holds this entity tag answers 304, with no body to read. */
  ifNoneMatch?: string | undefined;
  /**
   * A read made because the resource changed since any request in flight for it began (a
   * subscription woken by a write or an event): it joins none of them (see `upstreamDedupe`).
   */
  fresh?: boolean | undefined;
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
 * into a coded GatewayError (see `errorFromResponse`). It holds no per-request state, and no
 * concern around the fetch: those are the hooks its owner gives it (see `hooks.ts`).
 */
export class RestClient {
  readonly origin: string;
  readonly basePath: string;
  /** The pool's timeouts (`RestClientOptions.timeoutMs`). */
  readonly timeoutMs: number;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly logger: Pick<Console, 'warn'>;
  private readonly maxBodyBytes: number;
  /** Operations and fields already logged as invalid, oldest first. */
  private readonly reportedInvalid = new Set<string>();
  /** The fetch with every hook around it. */
  private readonly hooked: UpstreamFetch;

  constructor(options: RestClientOptions) {
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS;
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
    this.hooked = withHooks(options.hooks ?? [], (call) => this.send(call));
  }

  /**
   * This client with `hooks` run around its own (first outermost): the same connections and
   * logs, so that a gateway adds its concerns to a client it was given without changing it for
   * its other users.
   */
  withHooks(hooks: readonly UpstreamHook[]): RestClient {
    if (hooks.length === 0) return this;
    return Object.create(this, { hooked: { value: withHooks(hooks, this.hooked) } }) as RestClient;
  }

  /**
   * Sends one request through the hooks (its owner's: see `hooks.ts`).
   * Resolves to the status and the body parsed with `schema`; rejects with a coded GatewayError.
   */
  request<S extends z.ZodType | undefined = undefined>(request: RestRequest<S>): Promise<RestResponse<Parsed<S>>>;
  // TypeScript does not narrow `S` from a check of `schema`, so the body is typed loosely and the
  // signature above, which callers see, holds the link between schema and data.
  async request(request: RestRequest<z.ZodType | undefined>): Promise<RestResponse<unknown>> {
    const { method, path, body, schema } = request;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT };
    if (request.authorization) headers.authorization = request.authorization;
    if (request.requestId) headers['x-request-id'] = request.requestId;
    if (request.span) headers.traceparent = request.span.traceparent;
    if (request.ifNoneMatch) headers['if-none-match'] = request.ifNoneMatch;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const answer = await this.hooked({
      method,
      path,
      target: this.basePath + path + queryString(request.query),
      headers,
      payload,
      maxBytes: Math.min(this.maxBodyBytes, request.maxBytes ?? Number.POSITIVE_INFINITY),
      route: request.operation?.path ?? UNNAMED_ROUTE,
      operation: request.operation,
      signed: false,
      fresh: request.fresh === true,
      span: request.span,
      explained: request.explained,
      signal: request.signal,
      ...notStarted(),
    });
    const { status, text } = answer;
    if (status >= 400) {
      const retryAfter = status === 429 ? parseRetryAfter(headerValue(answer.headers, 'retry-after')) : undefined;
      throw errorFromResponse(status, parseJson(text), method, path, {
        retryAfter: retryAfter === undefined ? undefined : retryAfter / 1000,
      });
    }
    const etag = headerValue(answer.headers, 'etag');
    // 204, 205 and 304 never carry a body (RFC 9110): nothing to parse, whatever the operation answers otherwise.
    if (!schema || NO_BODY_STATUSES.has(status)) return { status, data: undefined, bytes: answer.bytes, etag };
    const named = request.operation?.path;
    if (request.keepText && request.unparsedFrom !== undefined && text.length >= request.unparsedFrom) {
      return {
        status,
        data: undefined,
        bytes: answer.bytes,
        etag,
        text,
        parse: () => this.parseSuccess(schema, text, method, path, named),
      };
    }
    // A large body's parse is a heavy step: one per loop turn (see turns.ts).
    if (text.length >= HEAVY_BYTES) await ownTurn();
    return {
      status,
      data: this.parseSuccess(schema, text, method, path, named),
      bytes: answer.bytes,
      etag,
      ...(request.keepText ? { text } : {}),
    };
  }

  /**
   * The fetch at the end of the hooks: one try, its answer read in full whatever its status; no
   * answer (a timeout, a lost connection, a body past `maxBytes`, a client gone) is a coded error.
   */
  private async send(call: UpstreamCall): Promise<UpstreamAnswer> {
    const { method, path } = call;
    call.startedAt ??= performance.now();
    call.tries += 1;
    call.connection = undefined;
    const outcome = call.signed
      ? await this.trySigned(call)
      : await this.tryOnce(method, call.target, call.headers, call.payload, call.deadline, call.maxBytes, call.signal);
    call.endedAt = performance.now();
    if (call.signal?.aborted) throw new AbandonedRequestError(method, path);
    if ('tooLarge' in outcome) {
      call.status = outcome.status;
      throw new ResponseTooLargeError('upstream', outcome.tooLarge, call.maxBytes);
    }
    if ('error' in outcome) {
      call.status = undefined;
      if (outcome.timedOut && call.timeoutMs !== undefined)
        throw new UpstreamTimeoutError(
          `${method} ${path} did not answer within ${call.timeoutMs} ms${call.tries > 1 ? ` (${call.tries} tries)` : ''}`,
        );
      call.connection = connectionFailure(outcome.error);
      throw toGatewayError(outcome.error, method, path);
    }
    call.status = outcome.status;
    return outcome;
  }

  /**
   * Whether the upstream answers at all: a GET of the base URL without credentials, answered
   * below 500 within `timeoutMs` (default: the pool's timeout, at most 2 s). It is never retried
   * and goes through no hook: `pingThrough` (`resilience.ts`) counts it for a circuit breaker.
   */
  async ping(timeoutMs = Math.min(2_000, this.timeoutMs)): Promise<PingResult> {
    const started = performance.now();
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
    if ('tooLarge' in outcome) return { reachable: true, status: outcome.status, durationMs };
    if ('error' in outcome) {
      const reason = outcome.timedOut
        ? `GET ${path} did not answer within ${timeoutMs} ms`
        : toGatewayError(outcome.error, 'GET', path).message;
      return { reachable: false, durationMs, reason };
    }
    if (outcome.status >= 500)
      return { reachable: false, status: outcome.status, durationMs, reason: `GET ${path} answered ${outcome.status}` };
    return { reachable: true, status: outcome.status, durationMs };
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
   * is the platform's fault, not the caller's. Observers see it; retry and the breaker leave it alone.
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
    const label = what === 'upload' ? '/storage/upload' : '/download';
    let answer: UpstreamAnswer;
    try {
      answer = await this.hooked({
        method: request.method,
        path: label,
        target: target.href,
        headers: request.headers ?? {},
        payload: request.body,
        maxBytes,
        route: label,
        operation: undefined,
        signed: true,
        fresh: false,
        span: undefined,
        explained: undefined,
        signal: undefined,
        ...notStarted(),
      });
    } catch (error) {
      if (error instanceof ResponseTooLargeError) {
        // A download is what the caller asked for: too large for it is its limit, not the platform's fault.
        if (what === 'download') throw error;
        throw new UpstreamContractError(`The answer of the ${what} URL is larger than ${maxBytes} bytes`);
      }
      if (error instanceof UpstreamTimeoutError)
        throw new UpstreamTimeoutError(`The ${what} did not finish within ${this.timeoutMs} ms`);
      throw new UpstreamUnavailableError(`The ${what} URL could not be reached`);
    }
    const { status, text } = answer;
    if (status === 401 || status === 403)
      throw new UpstreamContractError(`The platform refused the ${what} URL it had signed`);
    if (status >= 300) throw errorFromResponse(status, parseJson(text), request.method, `the ${what} URL`);
    return { text, contentType: headerValue(answer.headers, 'content-type') };
  }

  /** One try of a signed URL, never rejecting (see `tryOnce`). */
  private async trySigned(call: UpstreamCall): Promise<TryOutcome> {
    const controller = new AbortController();
    // Without a deadline (no timeout hook), the pool's timeouts or undici's bound the try.
    const timer =
      call.deadline === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => controller.abort(), Math.max(1, call.deadline - performance.now()));
    try {
      const target = new URL(call.target);
      const options = { method: call.method, headers: call.headers, body: call.payload, signal: controller.signal };
      const response =
        target.origin === this.origin
          ? await this.dispatcher.request({ ...options, origin: this.origin, path: target.pathname + target.search })
          : await undiciRequest(target, { ...options, headersTimeout: this.timeoutMs, bodyTimeout: this.timeoutMs });
      const body = await readBody(response.body, call.maxBytes);
      if ('tooLarge' in body) {
        controller.abort();
        return { status: response.statusCode, tooLarge: body.tooLarge };
      }
      return { status: response.statusCode, headers: response.headers, text: body.text, bytes: body.bytes };
    } catch (error) {
      return { error, timedOut: controller.signal.aborted || isTimeout(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** One try, never rejecting: the answer read in full, or why there is none. */
  private async tryOnce(
    method: HttpMethod,
    requestPath: string,
    headers: Record<string, string>,
    payload: string | Uint8Array | undefined,
    deadline: number,
    maxBytes: number,
    abandoned?: AbortSignal,
  ): Promise<TryOutcome> {
    const controller = new AbortController();
    // Without a deadline (no timeout hook), the pool's own timeouts bound the try.
    const timer =
      deadline === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => controller.abort(), Math.max(1, deadline - performance.now()));
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

/** Statuses whose answers have no body. */
const NO_BODY_STATUSES = new Set([204, 205, 304]);

type TryOutcome =
  | { status: number; headers: Record<string, string | string[] | undefined>; text: string; bytes: number }
  | { status: number; tooLarge: number }
  | { error: unknown; timedOut: boolean };

/** What a call's hooks and tries fill in, as it is before any ran: no deadline, no try, no answer. */
function notStarted(): Pick<
  UpstreamCall,
  'deadline' | 'timeoutMs' | 'tries' | 'startedAt' | 'endedAt' | 'status' | 'connection'
> {
  return {
    deadline: Number.POSITIVE_INFINITY,
    timeoutMs: undefined,
    tries: 0,
    startedAt: undefined,
    endedAt: undefined,
    status: undefined,
    connection: undefined,
  };
}

const ignore = () => {};

/**
 * Reads a body as UTF-8 text, up to `maxBytes`: past it, reading stops (so a huge body costs no
 * more than the bound) and `tooLarge` tells how many bytes had arrived.
 */
function readBody(body: Readable, maxBytes: number): Promise<{ text: string; bytes: number } | { tooLarge: number }> {
  // Events rather than `for await`: an async iterator and a promise per chunk, on every upstream answer.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    // A later error of a stream left behind (its socket failing) must not be an unhandled one.
    const settle = () => {
      body.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose).on('error', ignore);
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      settle();
      body.destroy();
      resolve({ tooLarge: bytes });
    };
    const onEnd = () => {
      settle();
      resolve({ text: Buffer.concat(chunks, bytes).toString('utf8'), bytes });
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // Closed with neither its end nor an error: cut off, as a stream's iterator would say.
    const onClose = () => {
      settle();
      reject(Object.assign(new Error('The answer ended before its body did'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
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
