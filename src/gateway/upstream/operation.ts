import type { RequestApi } from './request.js';
import type { Query, QueryValue } from './client.js';
import { answerOf, pathOf, type AnswerOf, type Operation, type ParamsOf } from './record.js';

/** A page of results: `{ next?: { page }, count, items }` (the API documentation, Page of results). */
export type Page<T> = { next?: { page: string } | null | undefined; count: number; items: T[] };

/**
 * A REST list as an upstream module declares it (`listOf`): its operation, path parameters and filters
 * bound, read one page at a time by a connection (`listConnection`).
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

/** The items of a page an operation answers. */
export type ItemOf<O> = AnswerOf<O> extends { items: Array<infer T> } ? T : never;

/** The filters of a REST list, sent next to its `page` and `limit`. */
export type ListFilters = Query;

/**
 * Declares the REST list `operation` answers (a page of items, `next.page` to go on), its path filled
 * from `params`, `filters` sent next to `page` and `limit`.
 */
export function listOf<O extends Operation>(
  api: RequestApi,
  operation: O,
  params: ParamsOf<O>,
  filters: ListFilters = {},
): RestPages<ItemOf<O>> {
  return {
    read: (token, limit) => api.read(operation, params, { ...filters, page: token, limit } as never) as Promise<never>,
    first: () =>
      api.getFirstPage(pathOf(operation, params), answerOf(operation)!, filters, operation) as Promise<never>,
  };
}

/** Sends a DELETE of `operation`: `deleted` is true when the platform answered 205 (it deleted something), false for 204. */
export async function deleteOf<O extends Operation>(
  api: RequestApi,
  operation: O,
  params: ParamsOf<O>,
): Promise<{ deleted: boolean }> {
  return { deleted: (await api.write(operation, params)).status === 205 };
}

/** Query filters of a list or a read, by name (undefined ones are not sent). */
export type Filters<K extends string> = { [P in K]?: QueryValue };
