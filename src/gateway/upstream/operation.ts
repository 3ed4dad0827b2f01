import type { z } from 'zod';
import type { RequestApi } from '../context.js';
import type { HttpMethod, Query, QueryValue } from './client.js';
import { page, type Page } from './shapes/common.js';

/**
 * A REST list ("page of results") as an upstream module declares it: its path, item shape and
 * filters bound, read one page at a time by a connection (see `restList`).
 */
export interface RestPages<T> {
  /** One page: `page` is a token from a previous `next.page` (undefined for the start), `limit` 1 to 1000. */
  read(page: string | undefined, limit: number): Promise<Page<T>>;
  /**
   * The first page for a caller that needs only its `count` (and whether it has items): a first
   * page of the same list that the request reads anyway serves it, else a page of one item.
   */
  first(): Promise<Page<T>>;
}

/** Declares the REST list at `path`: items parsed with `item`, `filters` sent next to `page` and `limit`. */
export function restPages<S extends z.ZodType>(
  api: RequestApi,
  path: string,
  item: S,
  filters: Query = {},
): RestPages<z.infer<S>> {
  const shape = page(item);
  return {
    read: (token, limit) => api.get(path, shape, { ...filters, page: token, limit }) as Promise<Page<z.infer<S>>>,
    first: () => api.getFirstPage(path, shape, filters) as Promise<Page<z.infer<S>>>,
  };
}

/** Sends a DELETE: `deleted` is true when the platform answered 205 (it deleted something). */
export async function sendDelete(api: RequestApi, path: string): Promise<{ deleted: boolean }> {
  const { status } = await api.send('DELETE', path);
  return { deleted: status === 205 };
}

/** Sends a write whose answer is the written object, and answers it parsed with `schema`. */
export async function sendFor<S extends z.ZodType>(
  api: RequestApi,
  method: Exclude<HttpMethod, 'GET'>,
  path: string,
  schema: S,
  options: { body?: unknown; query?: Query } = {},
): Promise<z.infer<S>> {
  const { data } = await api.send(method, path, { ...options, schema });
  return data as z.infer<S>;
}

/** Query filters of a list or a read, by name (undefined ones are not sent). */
export type Filters<K extends string> = { [P in K]?: QueryValue };
