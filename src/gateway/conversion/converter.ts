import { availableParallelism } from 'node:os';
import { documentLines } from '../../document/lines.js';
import { GatewayError, ResponseTooLargeError } from '../errors.js';
import { jsonBytes } from '../policy/answer-size.js';
import type { ResponseBudget } from '../upstream/response-budget.js';
import type { GatewayWork } from '../gateway-work.js';
import { keepRecent } from '../state/memory.js';
import { bodySource, UnparsedBody } from '../upstream/bodies.js';
import type { ConversionKind, ConversionOutcome } from './convert.js';
import { ConversionPool, ConversionPoolError } from './pool.js';

/** Options of `DocumentConverter`. */
export interface ConverterOptions {
  /**
   * Worker threads converting large documents at once; more wait their turn.
   * @default the cores but one, from 1 to 4
   */
  threads?: number;
  /**
   * Documents of fewer bytes (their JSON) are converted on the request's thread, in a few
   * milliseconds at most: a worker's round trip would cost more. @default 16384
   */
  inlineBytes?: number;
  /** Bytes of converted documents kept across requests (immutable documents only). @default 16777216 */
  cacheBytes?: number;
  /** Longest one conversion may take in a worker, in milliseconds. @default 20000 */
  timeoutMs?: number;
  /** Heap limit of each worker thread, in MB. @default 128 */
  workerHeapMb?: number;
}

/** Where the conversions of a converter were done, for tests and benchmarks. */
export interface ConversionCounts {
  /** Converted on the request's thread. */
  inline: number;
  /** Converted in a worker thread. */
  inWorker: number;
  /** Answered from the cache of immutable documents. */
  cached: number;
}

/** Most entries of the cache, whatever their size. */
const MAX_CACHED_ENTRIES = 10_000;

/**
 * The gateway's conversions of documents to markdown and text, for the whole process: small
 * documents on the request's thread, large ones in a pool of worker threads (`ConversionPool`),
 * and the output for a document that never changes (read by id, or under a revision id) kept
 * across requests, within a byte budget, the least recently used first out. Requests use it
 * through their own `RequestConversions`.
 */
export class DocumentConverter {
  readonly counts: ConversionCounts = { inline: 0, inWorker: 0, cached: 0 };
  readonly pool: ConversionPool;
  private readonly inlineBytes: number;
  private readonly cacheBytes: number;
  private readonly cache = new Map<string, string>();
  private cachedBytes = 0;

  constructor(options: ConverterOptions = {}) {
    this.inlineBytes = options.inlineBytes ?? 16 * 1024;
    this.cacheBytes = options.cacheBytes ?? 16 * 1024 * 1024;
    this.pool = new ConversionPool({
      threads: options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1)),
      timeoutMs: options.timeoutMs ?? 20_000,
      maxHeapMb: options.workerHeapMb ?? 128,
    });
  }

  /** The output kept for `key`, if any (and it becomes the most recently used). */
  cached(key: string): string | undefined {
    const output = this.cache.get(key);
    if (output === undefined) return undefined;
    this.counts.cached += 1;
    keepRecent(this.cache, key, output, MAX_CACHED_ENTRIES);
    return output;
  }

  /** Keeps `output` under `key`, dropping the least recently used past the byte budget. */
  keep(key: string, output: string): void {
    const bytes = key.length + output.length;
    // One entry may not take more than a quarter of the budget: a huge document would push out many.
    if (bytes > this.cacheBytes / 4 || this.cache.has(key)) return;
    this.cache.set(key, output);
    this.cachedBytes += bytes;
    for (const [oldest, kept] of this.cache) {
      if (this.cachedBytes <= this.cacheBytes && this.cache.size <= MAX_CACHED_ENTRIES) break;
      this.cache.delete(oldest);
      this.cachedBytes -= oldest.length + kept.length;
    }
  }

  /**
   * Converts `document` (`bytes` of JSON, `text` when its body is at hand): on this thread below
   * `inlineBytes`, else in a worker, abandoned when `signal` aborts.
   */
  async convert(
    kind: ConversionKind,
    document: unknown,
    size: { bytes: number; text?: string | undefined },
    maxChars: number,
    signal?: AbortSignal,
  ): Promise<ConversionOutcome> {
    if (size.bytes >= this.inlineBytes && this.pool.available) {
      this.counts.inWorker += 1;
      // The body's text crosses to the worker as it is; a document without one is serialized first.
      const body = size.text ?? JSON.stringify(document);
      return this.pool.run({ kind, body, maxChars }, signal);
    }
    this.counts.inline += 1;
    if (document instanceof UnparsedBody) document = document.value();
    if (kind === 'text') {
      const output = documentLines(document);
      return output.length > maxChars ? { tooLarge: output.length } : { output };
    }
    // Loaded with the first document converted to markdown on this thread: the converter and its
    // emoji table stay out of the gateway's start and idle memory.
    const { convertDocument } = await import('./convert.js');
    return convertDocument(kind, document, maxChars);
  }

  /** Stops the worker threads. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** What one request's conversions are counted against. */
export interface ConversionBudget {
  /** The gateway's own work of the request, charged in points. */
  work: GatewayWork;
  /** The request's answer budget: no output longer than what is left of it is made. */
  responseBudget: ResponseBudget;
  /** Aborted when the client goes away. */
  signal?: AbortSignal | undefined;
}

/**
 * The conversions of one request: each document converted once per kind however many fields ask
 * (aliases), counted as the gateway's own work by the document's size (`work.add('conversion',
 * bytes)`, a point per started 64 KiB), within what is left of the answer's byte budget; for
 * documents that never change (`immutable`), the output is kept across requests and a later
 * request is answered from it, at no cost.
 */
export class RequestConversions {
  // Weak: a subscription's context lives for many events, each with documents of its own.
  /** Conversions of this request by document, then kind. */
  readonly #done = new WeakMap<object, Map<ConversionKind, Promise<string>>>();
  /** Unparsed documents of this request made ready to be answered as they are (`answerable`). */
  readonly #checked = new WeakMap<object, Promise<unknown>>();
  /** Documents of this request that never change, with the key that names them across requests. */
  readonly #immutable = new WeakMap<object, string>();

  constructor(
    private readonly converter: DocumentConverter,
    private readonly budget: ConversionBudget,
  ) {}

  /** Conversions for the next event of a subscription: counted against its own budget. */
  renewed(budget: ConversionBudget): RequestConversions {
    return new RequestConversions(this.converter, budget);
  }

  /**
   * Notes that `document` never changes and is named by `key` (a document read by id, or a page's
   * read under a revision id): its conversions may be kept across requests. Only documents that
   * this request read from the platform are named so: a request is never answered a conversion
   * of a document it could not read.
   */
  immutable(document: object, key: string): void {
    this.#immutable.set(document, key);
  }

  /**
   * A document read unparsed (`UnparsedBody`), made ready to be answered as JSON, once per
   * request: its text checked in a worker thread, so that the answer takes it as it is; parsed
   * here when it must be (a key the gateway would leave out), or when no worker can check it.
   */
  answerable<T>(body: UnparsedBody<T>): Promise<UnparsedBody<T>> {
    let checked = this.#checked.get(body);
    if (!checked) {
      checked = this.check(body);
      this.#checked.set(body, checked);
    }
    return checked as Promise<UnparsedBody<T>>;
  }

  private async check<T>(body: UnparsedBody<T>): Promise<UnparsedBody<T>> {
    const { pool } = this.converter;
    const outcome = pool.available
      ? await pool.run({ kind: 'check', body: body.source.text }, this.budget.signal).catch((error: unknown) => {
          if (error instanceof ConversionPoolError && error.reason === 'aborted')
            throw conversionError(error, 'json', body.source.bytes);
          return { asIs: false };
        })
      : { asIs: false };
    if ('invalid' in outcome) {
      throw new GatewayError(
        'UPSTREAM_INVALID_RESPONSE',
        `The platform answered a document that cannot be read: ${outcome.invalid}`,
      );
    }
    if (outcome.asIs) body.checked = true;
    else body.value();
    return body;
  }

  /** `document` converted to `kind`, once per request. */
  convert(kind: ConversionKind, document: object): Promise<string> {
    let kinds = this.#done.get(document);
    if (!kinds) {
      kinds = new Map();
      this.#done.set(document, kinds);
    }
    let done = kinds.get(kind);
    if (!done) {
      done = this.run(kind, document);
      kinds.set(kind, done);
    }
    return done;
  }

  private async run(kind: ConversionKind, document: object): Promise<string> {
    const { work, responseBudget, signal } = this.budget;
    const body = bodySource(document);
    const bytes = body?.bytes ?? jsonBytes(document);
    const name = this.#immutable.get(document);
    // The size is part of the key: an upstream that reused an id for another document is not
    // answered the old one's conversion (unless both have the same size).
    const key = name === undefined ? undefined : `${kind}\u0000${bytes}\u0000${name}`;
    const kept = key === undefined ? undefined : this.converter.cached(key);
    if (kept !== undefined) return kept;
    if (responseBudget.exceeded) throw responseBudget.exceeded;
    const maxChars = Math.max(0, responseBudget.max - responseBudget.answerBytes);
    // Charged once started, whatever its end: a client that goes away mid-conversion pays for it too.
    work.add('conversion', bytes);
    let outcome: ConversionOutcome;
    try {
      outcome = await this.converter.convert(kind, document, { bytes, text: body?.text }, maxChars, signal);
    } catch (error) {
      throw conversionError(error, kind, bytes);
    }
    if ('invalid' in outcome) {
      throw new GatewayError(
        'UPSTREAM_INVALID_RESPONSE',
        `The platform answered a document that cannot be converted to ${kind}: ${outcome.invalid}`,
      );
    }
    if ('tooLarge' in outcome) {
      throw responseBudget.exceed(
        new ResponseTooLargeError('answer', responseBudget.answerBytes + outcome.tooLarge, responseBudget.max),
      );
    }
    if (key !== undefined) this.converter.keep(key, outcome.output);
    return outcome.output;
  }
}

/** The coded error of a conversion the pool could not do. */
function conversionError(error: unknown, kind: ConversionKind | 'json', bytes: number): unknown {
  if (!(error instanceof ConversionPoolError)) return error;
  switch (error.reason) {
    case 'timeout':
    case 'memory': {
      // The document is the caller's choice: a limit it went over, named with its bound.
      const refused = new GatewayError(
        'BAD_USER_INPUT',
        `This document (${bytes} bytes of JSON) is too large to convert to ${kind}: ${error.message}; read its json, or its page's markdown`,
      );
      const limit = error.reason === 'timeout' ? 'conversionMs' : 'conversionHeapMb';
      Object.assign(refused.extensions, { limit, value: error.max, max: error.max });
      return refused;
    }
    case 'aborted':
      return new GatewayError('UPSTREAM_UNAVAILABLE', `The conversion to ${kind} was abandoned: the client went away`);
    default:
      return new GatewayError('INTERNAL_SERVER_ERROR', `The conversion to ${kind} failed: ${error.message}`);
  }
}
