import { setMaxListeners } from 'node:events';
import { z } from 'zod';
import { ResponseBudget } from './response-budget.js';
import { GatewayError, ResponseTooLargeError } from '../errors.js';
import { HEAVY_BYTES } from './turns.js';
import { rememberBody, UnparsedBody, type BodySource } from './bodies.js';
import { parseBody, queryString, type HttpMethod, type Query, type RestClient } from './client.js';
import type { UpstreamSpan } from './hooks.js';
import type { Trace } from './trace.js';
import {
  answerOf,
  pathOf,
  type AnswerOf,
  type BodyOf,
  type CallName,
  type Operation,
  type ParamsOf,
  type QueryOf,
} from './record.js';

const ANY = z.unknown();

/** Listeners of the client's signal other than the upstream calls': the plugins' (logs, traces, metrics…). */
const SIGNAL_LISTENERS_BESIDE_CALLS = 10;

/** What one GraphQL request asked of the upstream, for `extensions.cost`. */
export class UpstreamUsage {
  /** Requests sent. */
  sent = 0;
  /** GETs answered from this request's cache instead of being sent again. */
  sharedReads = 0;
  /** Keys the per-request loaders had to fetch. */
  loaderFetches = 0;
  /** Whether the platform answered one of its requests with success: it accepted the caller's credentials. */
  accepted = false;
  /** Keys asked of the per-request loaders so far, cached or not (set by the loaders' owner). */
  loads: () => number = () => 0;

  /** Requests the per-request caches saved: repeated GETs, and loads answered by a loader's cache. */
  get deduped(): number {
    return this.sharedReads + Math.max(0, this.loads() - this.loaderFetches);
  }
}

/** Who a GraphQL request's upstream calls are made for: what each of them carries. */
export interface Caller {
  /** The `Authorization` header of the GraphQL request, forwarded unchanged. */
  authorization?: string | undefined;
  /** The GraphQL request's id, sent as `x-request-id`. */
  requestId?: string | undefined;
  /** Aborted when the client goes away: upstream calls still running are abandoned. */
  signal?: AbortSignal | undefined;
  /** The request's span, when it is traced: every upstream call carries its trace context and gets a span under it. */
  span?: UpstreamSpan | undefined;
}

/** What an upstream read needs of the API: a GET shared within the request (`RequestApi`, or `RequestApi.as`). */
export type ReadApi = Pick<RequestApi, 'get' | 'read'>;

/**
 * The REST API as one GraphQL request sees it: the caller's credentials forwarded on every
 * call, and every distinct GET made at most once (aliases and repeated fields share it).
 * A write clears what was read before it, so the answer of a mutation reflects the write.
 */
export class RequestApi {
  private readonly reads = new Map<string, Read>();
  // Made by the first download or first page read: most requests make neither.
  private downloads: Map<string, Promise<{ text: string; contentType: string | undefined }>> | undefined;
  /** Key of a read of the first page of a list, by the list's path and filters (any `limit`). */
  private firstPages: Map<string, { path: string; query: Query }> | undefined;
  private readonly onWrite: Array<() => void> = [];
  /** The writes this request sent, in order: what a response cache forgets after a mutation. */
  readonly written: Write[] = [];
  private requests = 0;
  /** What this request asked of the upstream so far. */
  readonly usage = new UpstreamUsage();
  /** When it began to serve: its request's start, or the start of a subscription event's resolution (see `renewed`). */
  readonly startedAt = performance.now();

  readonly #authorization: string | undefined;
  /** Reads of what never changes, by key: made with the first (see `immutableReads`). */
  #immutable: Map<string, Promise<unknown>> | undefined;
  /** What every upstream call of this request carries besides its credentials. */
  private readonly origin: Pick<Caller, 'requestId' | 'signal' | 'span'>;

  constructor(
    private readonly client: RestClient,
    caller: Caller,
    /** Most upstream requests of the GraphQL request (`maxUpstreamRequests`); past it, each further one fails. */
    private readonly maxRequests: number,
    /** Set when the request is explained (`x-explain: 1`). */
    readonly trace: Trace | undefined,
    /** The request's byte budget: bodies are read within what is left of it, and counted. */
    readonly budget: ResponseBudget,
  ) {
    this.#authorization = caller.authorization;
    this.origin = { requestId: caller.requestId, signal: caller.signal, span: caller.span };
    // Each upstream call in flight listens to the client's signal until it ends, so a wide query
    // holds more than Node's default 10 at once: that many is expected, never a leak.
    if (caller.signal) setMaxListeners(maxRequests + SIGNAL_LISTENERS_BESIDE_CALLS, caller.signal);
  }

  /** The caller's `Authorization` header, forwarded on every call. */
  get authorization(): string | undefined {
    return this.#authorization;
  }

  /** Aborted when the client of the GraphQL request goes away. */
  get signal(): AbortSignal | undefined {
    return this.origin.signal;
  }

  /**
   * The reads of things that never change (a revision, a document by id), by a key naming them for
   * good: kept as long as this API, writes included, unlike the reads a write clears; a renewed API
   * (a subscription's next event) starts without them. The schema's `readOnce` fills it; made when
   * first asked for, so a request that reads nothing immutable allocates nothing for it.
   */
  get immutableReads(): Map<string, Promise<unknown>> {
    this.#immutable ??= new Map();
    return this.#immutable;
  }

  /**
   * A new API for the same caller, with its own reads, counts and byte budget: what the next event
   * of a subscription resolves with, so that it reads fresh data and reports its own cost.
   */
  renewed(): RequestApi {
    const caller: Caller = { authorization: this.#authorization, ...this.origin };
    return new RequestApi(this.client, caller, this.maxRequests, this.trace, new ResponseBudget(this.budget.max));
  }

  /**
   * GETs `path` and parses the body with `schema`; repeated calls share one request. With
   * `keepText`, the body's text stays beside the value parsed from it (see `bodySource`): for
   * documents, which a worker thread converts from their text.
   */
  get<S extends z.ZodType>(
    path: string,
    schema: S,
    query?: Query,
    options: { keepText?: boolean; operation?: CallName } = {},
  ): Promise<z.infer<S>> {
    return this.readOnce(path, schema, query, { authorization: this.#authorization, ...options });
  }

  /**
   * GETs `operation` with its path filled from `params`, and parses the answer with the record's
   * schema; shared like `get`. Metrics, traces and logs name the call by its operation.
   */
  read<O extends Operation>(operation: O, params: ParamsOf<O>, query?: QueryOf<O>): Promise<AnswerOf<O>> {
    return this.readRecord(operation, params, query, this.#authorization);
  }

  /**
   * `get` with the body kept as text, and, from `HEAVY_BYTES`, not parsed here until something
   * asks for its value (see `UnparsedBody`): for documents, which are mostly passed on or
   * converted in a worker thread.
   */
  getText<S extends z.ZodType>(
    path: string,
    schema: S,
    query?: Query,
    operation?: CallName,
  ): Promise<z.infer<S> | UnparsedBody<z.infer<S>>> {
    return this.readOnce(path, schema, query, {
      operation,
      authorization: this.#authorization,
      keepText: true,
      unparsedFrom: HEAVY_BYTES,
    });
  }

  /**
   * GETs `path` with another bearer token than the caller's (the short-lived token a resolved
   * URL gave its visitor, to read what that visitor sees). Shared like `get`, apart from the
   * caller's reads; the token itself is kept out of traces.
   */
  getAs<S extends z.ZodType>(token: string, path: string, schema: S, query?: Query): Promise<z.infer<S>> {
    return this.readOnce(path, schema, query, { authorization: `Bearer ${token}` });
  }

  /**
   * The reads of this request as another bearer token sees them (see `getAs`): for an upstream
   * operation that a visitor's token reads.
   */
  as(token: string): ReadApi {
    return {
      get: (path, schema, query) => this.getAs(token, path, schema, query),
      read: (operation, params, query) => this.readRecord(operation, params, query, `Bearer ${token}`),
    };
  }

  /** A GET of `operation` (see `read`) with the credentials `authorization` gives. */
  private readRecord<O extends Operation>(
    operation: O,
    params: ParamsOf<O>,
    query: QueryOf<O> | undefined,
    authorization: string | undefined,
  ): Promise<AnswerOf<O>> {
    const schema = answerOf(operation) ?? ANY;
    return this.readOnce(pathOf(operation, params), schema, query as Query | undefined, {
      authorization,
      operation,
    }) as Promise<AnswerOf<O>>;
  }

  private readOnce<S extends z.ZodType>(
    path: string,
    schema: S,
    query: Query | undefined,
    how: { authorization: string | undefined; keepText?: boolean; unparsedFrom?: number; operation?: CallName },
  ): Promise<z.infer<S>> {
    const { authorization } = how;
    const key =
      (authorization === this.#authorization ? '' : `${authorization ?? ''}\u0000`) + path + queryString(query);
    return this.shared(key, { method: 'GET', path, query, ...how }, schema, () => {
      if (authorization === this.#authorization && query && query.page == null && query.limit != null) {
        this.firstPages ??= new Map();
        this.firstPages.set(path + queryString({ ...query, limit: undefined }), { path, query });
      }
    });
  }

  /**
   * A read made once per request under `key`: later asks share it (each schema parses the body
   * once); `onFirst` runs when it is sent.
   */
  private shared<S extends z.ZodType>(
    key: string,
    request: {
      method: 'GET' | 'POST';
      path: string;
      query?: Query | undefined;
      body?: unknown;
      authorization: string | undefined;
      keepText?: boolean | undefined;
      unparsedFrom?: number | undefined;
      operation?: CallName | undefined;
    },
    schema: S,
    onFirst?: () => void,
  ): Promise<z.infer<S>> {
    const { method, path, query } = request;
    let read = this.reads.get(key);
    if (read) {
      this.usage.sharedReads += 1;
      if (read.traced) this.trace?.share(read.traced);
    } else {
      const refused = this.count();
      if (refused) return Promise.reject(refused);
      const traced = this.trace?.start(method, path + queryString(query));
      read = {
        raw: this.client
          .request({
            ...request,
            ...this.origin,
            schema: ANY,
            maxBytes: this.budget.upstreamLeft(),
            explained: traced,
          })
          .then(
            (response) => {
              this.counted(response);
              return {
                json: response.data,
                source: { bytes: response.bytes, text: response.text },
                parse: response.parse,
              };
            },
            (error: unknown) => this.budgetError(error),
          ),
        parsed: new WeakMap(),
        traced,
      };
      this.reads.set(key, read);
      onFirst?.();
    }
    let parsed = read.parsed.get(schema);
    if (!parsed) {
      parsed = read.raw.then(({ json, source, parse }) => {
        const parsedWith = (value: unknown) => {
          const data = parseBody(schema, value, method, path);
          rememberBody(data, source);
          return data;
        };
        return parse
          ? new UnparsedBody({ bytes: source.bytes, text: source.text! }, () => parsedWith(parse()))
          : parsedWith(json);
      });
      read.parsed.set(schema, parsed);
    }
    return parsed as Promise<z.infer<S>>;
  }

  /**
   * Reads the first page of the list at `path` for a caller that needs only its `count` (and
   * whether it has items): a first page of the same list that this request reads anyway, at any
   * `limit`, serves it; otherwise a page of one item is read. Sibling fields start their reads
   * first, whatever their order in the document.
   */
  async getFirstPage<S extends z.ZodType>(
    path: string,
    schema: S,
    filters: Query,
    operation?: CallName,
  ): Promise<z.infer<S>> {
    await Promise.resolve();
    const known = this.firstPages?.get(path + queryString(filters));
    const how = { authorization: this.#authorization, operation };
    return known
      ? this.readOnce(known.path, schema, known.query, how)
      : this.readOnce(path, schema, { ...filters, limit: 1 }, how);
  }

  /**
   * Sends a write of `operation` (see `send`), its path filled from `params`, and parses the answer
   * with the record's schema for the status that came (no body for a status that has none).
   */
  async write<O extends Operation>(
    operation: O,
    params: ParamsOf<O>,
    options: { body?: BodyOf<O> | object; query?: Query } = {},
  ): Promise<{ status: number; data: AnswerOf<O> }> {
    const path = pathOf(operation, params);
    const method = operation.method as Exclude<HttpMethod, 'GET'>;
    // Parsed below, by the schema of the status that came; an operation that answers no body is not read as one.
    const answers = Object.values(operation.answers as Record<number, z.ZodType | undefined>);
    const schema = answers.some(Boolean) ? ANY : undefined;
    const { status, data } = await this.send(method, path, { ...options, schema, operation, params });
    const answer = answerOf(operation, status);
    return { status, data: (answer ? parseBody(answer, data, method, path) : undefined) as AnswerOf<O> };
  }

  /**
   * Sends a write. Resolves to the status and the body parsed with `schema` (no schema: no
   * body expected). Everything read before is forgotten, since it may be stale now.
   */
  async send<S extends z.ZodType | undefined = undefined>(
    method: Exclude<HttpMethod, 'GET'>,
    path: string,
    options: {
      body?: unknown;
      query?: Query;
      schema?: S;
      operation?: CallName;
      params?: Readonly<Record<string, string>>;
    } = {},
  ): Promise<{ status: number; data: S extends z.ZodType ? z.infer<S> : undefined }> {
    const refused = this.count();
    if (refused) throw refused;
    const traced = this.trace?.start(method, path + queryString(options.query));
    this.written.push({ path, operation: options.operation, params: options.params });
    try {
      return this.counted(
        await this.client
          .request({
            method,
            path,
            authorization: this.#authorization,
            ...this.origin,
            ...options,
            maxBytes: this.budget.upstreamLeft(),
            explained: traced,
          })
          .catch((error: unknown) => this.budgetError(error)),
      );
    } finally {
      this.invalidate();
    }
  }

  /**
   * POSTs a request that only reads (computed content): shared like `get` by path and body
   * within the request, and nothing read before is forgotten.
   */
  postRead<S extends z.ZodType>(path: string, body: unknown, schema: S, operation?: CallName): Promise<z.infer<S>> {
    return this.shared(
      `POST\u0000${path}\u0000${JSON.stringify(body)}`,
      { method: 'POST', path, body, authorization: this.#authorization, operation },
      schema,
    );
  }

  /** Reads the text at a download URL the platform gave (see `RestClient.download`), once per request; counts as one request. */
  download(url: string, maxBytes: number): Promise<{ text: string; contentType: string | undefined }> {
    const key = `DOWNLOAD\u0000${url}`;
    let done = this.downloads?.get(key);
    if (done) {
      this.usage.sharedReads += 1;
      return done;
    }
    const refused = this.count();
    if (refused) return Promise.reject(refused);
    const traced = this.trace?.start('GET', '/download');
    const started = performance.now();
    const left = this.budget.upstreamLeft();
    done = this.client.download(url, Math.min(maxBytes, left)).then(
      (answer) => {
        this.budget.addUpstream(Buffer.byteLength(answer.text));
        return answer;
      },
      // Refused for what was left of the request's budget rather than for the caller's bound: the budget's error.
      (error: unknown) => (left < maxBytes ? this.budgetError(error) : Promise.reject(error)),
    );
    done = done.finally(() => {
      if (traced)
        this.trace!.finish(traced, {
          method: 'GET',
          path: '/download',
          route: '/download',
          status: undefined,
          startedAt: started,
          endedAt: performance.now(),
          retries: 0,
        });
    });
    this.downloads ??= new Map();
    this.downloads.set(key, done);
    return done;
  }

  /** Sends a file's bytes to an upload URL the platform signed (see `RestClient.upload`); counts as one request. */
  async upload(url: string, bytes: Uint8Array, contentType: string): Promise<void> {
    const refused = this.count();
    if (refused) throw refused;
    const traced = this.trace?.start('PUT', '/storage/upload');
    const started = performance.now();
    let status: number | undefined;
    try {
      await this.client.upload(url, bytes, contentType);
      status = 200;
    } catch (error) {
      status = error instanceof GatewayError ? error.upstreamStatus : undefined;
      throw error;
    } finally {
      if (traced)
        this.trace!.finish(traced, {
          method: 'PUT',
          path: '/storage/upload',
          route: '/storage/upload',
          status,
          startedAt: started,
          endedAt: performance.now(),
          retries: 0,
        });
    }
  }

  /**
   * A body the client refused for its size, told against the whole request's budget (the client
   * knew only what was left of it); other errors as they are.
   */
  private budgetError(error: unknown): never {
    if (!(error instanceof ResponseTooLargeError)) throw error;
    throw this.budget.exceed(
      new ResponseTooLargeError('upstream', this.budget.upstreamBytes + error.value, this.budget.max),
    );
  }

  /** Counts the bytes of an upstream answer against the byte budget; refuses it past the budget. */
  private counted<R extends { bytes: number }>(response: R): R {
    this.usage.accepted = true;
    this.budget.addUpstream(response.bytes);
    if (this.budget.exceeded) throw this.budget.exceeded;
    return response;
  }

  /** Counts one more upstream request; the error to report instead when a budget is spent. */
  private count(): GatewayError | undefined {
    if (this.budget.exceeded) return this.budget.exceeded;
    this.requests += 1;
    if (this.requests <= this.maxRequests) {
      this.usage.sent += 1;
      return undefined;
    }
    return new GatewayError(
      'BAD_USER_INPUT',
      `This operation needs more than ${this.maxRequests} requests to the platform: ask for fewer items per connection`,
    );
  }

  /** Registers a cache to clear after every write (the per-request loaders). */
  onInvalidate(clear: () => void): void {
    this.onWrite.push(clear);
  }

  private invalidate(): void {
    this.reads.clear();
    this.downloads?.clear();
    this.firstPages?.clear();
    for (const clear of this.onWrite) clear();
  }
}

/** A write a request sent: its path, and its operation and path parameters when it was sent through its record. */
export interface Write {
  path: string;
  operation?: CallName | undefined;
  params?: Readonly<Record<string, string>> | undefined;
}

interface Read {
  /** The body, parsed as JSON (or left to `parse`, see `UnparsedBody`), and what is known of it. */
  raw: Promise<{ json: unknown; source: BodySource; parse?: (() => unknown) | undefined }>;
  parsed: WeakMap<z.ZodType, Promise<unknown>>;
  traced: ReturnType<Trace['start']> | undefined;
}
