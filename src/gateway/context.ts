import { z } from 'zod';
import { GatewayError } from './errors.js';
import { parseBody, queryString, type HttpMethod, type Query, type RestClient } from './rest/client.js';

const ANY = z.unknown();

/** Most upstream requests one GraphQL request may make; past it, each further one fails. */
export const MAX_UPSTREAM_REQUESTS = 1000;

/**
 * The REST API as one GraphQL request sees it: the caller's credentials forwarded on every
 * call, and every distinct GET made at most once (aliases and repeated fields share it).
 * A write clears what was read before it, so the answer of a mutation reflects the write.
 */
export class RequestApi {
  private readonly reads = new Map<string, { raw: Promise<unknown>; parsed: WeakMap<z.ZodType, Promise<unknown>> }>();
  private readonly onWrite: Array<() => void> = [];
  private requests = 0;

  constructor(
    private readonly client: RestClient,
    private readonly authorization: string | undefined,
  ) {}

  /** GETs `path` and parses the body with `schema`; repeated calls share one request. */
  get<S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<z.infer<S>> {
    const key = path + queryString(query);
    let read = this.reads.get(key);
    if (!read) {
      const refused = this.count();
      if (refused) return Promise.reject(refused);
      read = {
        raw: this.client
          .request({ method: 'GET', path, query, schema: ANY, authorization: this.authorization })
          .then((response) => response.data),
        parsed: new WeakMap(),
      };
      this.reads.set(key, read);
    }
    let parsed = read.parsed.get(schema);
    if (!parsed) {
      parsed = read.raw.then((json) => parseBody(schema, json, 'GET', path));
      read.parsed.set(schema, parsed);
    }
    return parsed as Promise<z.infer<S>>;
  }

  /**
   * Sends a write. Resolves to the status and the body parsed with `schema` (no schema: no
   * body expected). Everything read before is forgotten, since it may be stale now.
   */
  async send<S extends z.ZodType | undefined = undefined>(
    method: Exclude<HttpMethod, 'GET'>,
    path: string,
    options: { body?: unknown; query?: Query; schema?: S } = {},
  ): Promise<{ status: number; data: S extends z.ZodType ? z.infer<S> : undefined }> {
    const refused = this.count();
    if (refused) throw refused;
    try {
      return await this.client.request({ method, path, authorization: this.authorization, ...options });
    } finally {
      this.invalidate();
    }
  }

  /** Counts one more upstream request; the error to report instead when the budget is spent. */
  private count(): GatewayError | undefined {
    this.requests += 1;
    if (this.requests <= MAX_UPSTREAM_REQUESTS) return undefined;
    return new GatewayError(
      'BAD_USER_INPUT',
      `This operation needs more than ${MAX_UPSTREAM_REQUESTS} requests to the platform: ask for fewer items per connection`,
    );
  }

  /** Registers a cache to clear after every write (the per-request loaders). */
  onInvalidate(clear: () => void): void {
    this.onWrite.push(clear);
  }

  private invalidate(): void {
    this.reads.clear();
    for (const clear of this.onWrite) clear();
  }
}

/** Per-request context of every resolver. */
export interface GatewayContext {
  api: RequestApi;
}

/** Builds the context of one GraphQL request: its own caches, the caller's credentials. */
export function createContext(client: RestClient, request: Request): GatewayContext {
  return { api: new RequestApi(client, request.headers.get('authorization') ?? undefined) };
}
