import type { z } from 'zod';
import type { RequestApi } from './request.js';
import type { HttpMethod, Query, QueryValue } from './client.js';
import { answerOf, pathOf, type AnswerOf, type Operation, type ParamsOf } from './record.js';
import { page, type Page, type RestPages } from './shapes/common.js';

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

/** The items of a page an operation answers. */
export type ItemOf<O> = AnswerOf<O> extends { items: Array<infer T> } ? T : never;

/**
 * Declares the REST list `operation` answers (a page of items, `next.page` to go on), its path filled
 * from `params`, `filters` sent next to `page` and `limit`.
 */
export function listOf<O extends Operation>(
  api: RequestApi,
  operation: O,
  params: ParamsOf<O>,
  filters: Query = {},
): RestPages<ItemOf<O>> {
  return {
    read: (token, limit) => api.read(operation, params, { ...filters, page: token, limit } as never) as Promise<never>,
    first: () =>
      api.getFirstPage(pathOf(operation, params), answerOf(operation)!, filters, operation) as Promise<never>,
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
