import type { z } from 'zod';
import { queryString, type HttpMethod, type Query, type RestClient } from './rest/client.js';

/**
 * The REST API as one GraphQL request sees it: the caller's credentials forwarded on every
 * call, and every distinct GET made at most once (aliases and repeated fields share it).
 * A write clears what was read before it, so the answer of a mutation reflects the write.
 */
export class RequestApi {
  private readonly reads = new Map<string, Map<z.ZodType, Promise<unknown>>>();
  private readonly onWrite: Array<() => void> = [];

  constructor(
    private readonly client: RestClient,
    private readonly authorization: string | undefined,
  ) {}

  /** GETs `path` and parses the body with `schema`; repeated calls share one request. */
  get<S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<z.infer<S>> {
    const key = path + queryString(query);
    let bySchema = this.reads.get(key);
    if (!bySchema) {
      bySchema = new Map();
      this.reads.set(key, bySchema);
    }
    let pending = bySchema.get(schema);
    if (!pending) {
      pending = this.client
        .request({ method: 'GET', path, query, schema, authorization: this.authorization })
        .then((response) => response.data);
      bySchema.set(schema, pending);
    }
    return pending as Promise<z.infer<S>>;
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
    try {
      return await this.client.request({ method, path, authorization: this.authorization, ...options });
    } finally {
      this.invalidate();
    }
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
