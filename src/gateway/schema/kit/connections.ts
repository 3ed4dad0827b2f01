import { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { BadUserInputError, isGatewayError } from '../../errors.js';
import { decodeCursor, encodeCursor } from '../../policy/connection-cursors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../policy/limits.js';
import type { Page, RestPages } from '../../upstream/operation.js';

/** Arguments every connection field takes. */
export interface ConnectionArgs {
  first?: number | null | undefined;
  after?: string | null | undefined;
  last?: number | null | undefined;
  before?: string | null | undefined;
}

/**
 * Fetches one REST page: `page` is an opaque token from a previous `next.page` (undefined for
 * the start), `limit` 1 to 1000.
 */
export type PageFetcher<T> = (page: string | undefined, limit: number) => Promise<Page<T>>;

export interface ConnectionResult<T> {
  edges: Array<{ cursor: string; node: T }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** Checks the paging arguments: forward paging only, `first` from 0 to 1000. */
export function pageSize(args: ConnectionArgs): number {
  if (args.last != null || args.before != null) {
    throw new BadUserInputError(
      'Backward paging (`last`/`before`) is not supported: the platform pages forward only; use `first`/`after`',
      [args.last != null ? 'last' : 'before'],
    );
  }
  const first = args.first ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 0 || first > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`\`first\` must be between 0 and ${MAX_PAGE_SIZE}`, ['first']);
  }
  return first;
}

/** The key of a REST item in its lists, which item cursors name: its `id`. */
export type ItemKey<T> = (item: T) => unknown;

const restId: ItemKey<unknown> = (item) => (item as { id?: unknown } | null)?.id;

/** Where paging resumes: a REST page token, the index of the first item to take in that page, and that page when read already. */
interface Resume<T> {
  token: string | null;
  skip: number;
  page?: Page<T>;
}

/**
 * Resolves a relay connection over a REST list: fetches as few pages as `first`/`after`
 * need (following `next.page` when a page is short), and reports the REST `count` as
 * `totalCount`. `first: 0` answers no edge and `hasNextPage: false`: it only counts. `keyOf`
 * is the key item cursors name (see `itemCursor`).
 */
export async function restConnection<T>(
  args: ConnectionArgs,
  fetchPage: PageFetcher<T>,
  keyOf: ItemKey<T> = restId,
): Promise<ConnectionResult<T>> {
  const first = pageSize(args);
  const cursor = args.after ? decodeCursor(args.after) : { p: null, i: -1 };
  const start: Resume<T> =
    'n' in cursor ? await resumeAfterItem(cursor.n, fetchPage, keyOf) : { token: cursor.p, skip: cursor.i + 1 };
  const edges: ConnectionResult<T>['edges'] = [];
  let { token, skip, page: read } = start;
  let totalCount = 0;
  let hasNextPage = false;
  let fetched = false;
  const seen = new Set<string | null>([token]);
  while (!fetched || edges.length < first) {
    const wanted = Math.min(MAX_PAGE_SIZE, skip + Math.max(1, first - edges.length));
    const page =
      read ??
      (await fetchPage(token ?? undefined, wanted).catch((error: unknown) => {
        // A page token the platform refuses can only have come from a forged or foreign cursor.
        if (args.after && isGatewayError(error) && error.code === 'BAD_USER_INPUT' && /"page"/.test(error.message)) {
          throw new BadUserInputError('`after` is not a cursor of this connection', ['after'], error.upstreamStatus);
        }
        throw error;
      }));
    read = undefined;
    if (!fetched) totalCount = page.count;
    fetched = true;
    const items = page.items.slice(skip);
    const take = Math.min(items.length, first - edges.length);
    for (let index = 0; index < take; index += 1) {
      edges.push({ cursor: encodeCursor({ p: token, i: skip + index }), node: items[index]! });
    }
    const leftInPage = items.length > take;
    hasNextPage = leftInPage || Boolean(page.next);
    if (leftInPage || !page.next || edges.length >= first) break;
    // An upstream that answers an empty page, or the same token again, would page forever.
    if (page.items.length === 0 || seen.has(page.next.page)) break;
    seen.add(page.next.page);
    token = page.next.page;
    skip = 0;
  }
  return {
    edges,
    totalCount,
    pageInfo: {
      // `first: 0` only counts: with no edge there is no cursor to resume from, so a page that
      // claimed more would send a `while (hasNextPage)` loop back to the start, forever.
      hasNextPage: first > 0 && hasNextPage,
      hasPreviousPage: Boolean(args.after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/**
 * Where the list resumes after the item `key` names: read from its start, a page of 1000 at a
 * time, until that item; the page that holds it serves what follows it.
 */
async function resumeAfterItem<T>(key: string, fetchPage: PageFetcher<T>, keyOf: ItemKey<T>): Promise<Resume<T>> {
  let token: string | null = null;
  const seen = new Set<string | null>([token]);
  for (;;) {
    const page = await fetchPage(token ?? undefined, MAX_PAGE_SIZE);
    const index = page.items.findIndex((item) => keyOf(item) === key);
    if (index >= 0) return { token, skip: index + 1, page };
    if (!page.next || page.items.length === 0 || seen.has(page.next.page)) {
      throw new BadUserInputError('`after` names an item this list does not hold', ['after']);
    }
    seen.add(page.next.page);
    token = page.next.page;
  }
}

/**
 * The same page with its nodes replaced, in order, by what `map` makes of all of them at once
 * (so they can be primed together).
 */
export function mapNodes<T, U>(connection: ConnectionResult<T>, map: (nodes: T[]) => U[]): ConnectionResult<U> {
  const nodes = map(connection.edges.map((edge) => edge.node));
  return { ...connection, edges: connection.edges.map((edge, index) => ({ ...edge, node: nodes[index]! })) };
}

/**
 * A connection over a REST list declared upstream (`listOf`). Asked for no item (`first: 0`,
 * as for a `totalCount`-only selection), it reads a page of one item, or shares a first page read
 * anyway.
 */
export function listConnection<T>(
  args: ConnectionArgs,
  pages: RestPages<T>,
  keyOf?: ItemKey<T>,
): Promise<ConnectionResult<T>> {
  const countOnly = args.first === 0 && !args.after;
  return restConnection(
    args,
    (pageToken, limit) => (countOnly && pageToken === undefined ? pages.first() : pages.read(pageToken, limit)),
    keyOf,
  );
}

/**
 * Whether a connection field's selection asks for items or paging, not just `totalCount`. Sibling
 * objects of a list share their field nodes: decided once for all of them.
 */
function selectsPage(info: GraphQLResolveInfo): boolean {
  let known = pageSelections.get(info.fieldNodes);
  if (known === undefined) {
    known = findsPage(info);
    pageSelections.set(info.fieldNodes, known);
  }
  return known;
}

const pageSelections = new WeakMap<GraphQLResolveInfo['fieldNodes'], boolean>();

function findsPage(info: GraphQLResolveInfo): boolean {
  const seen = new Set<string>();
  const visit = (set: SelectionSetNode | undefined): boolean =>
    (set?.selections ?? []).some((node) => {
      if (node.kind === 'Field') return node.name.value !== 'totalCount' && node.name.value !== '__typename';
      if (node.kind === 'InlineFragment') return visit(node.selectionSet);
      if (seen.has(node.name.value)) return false;
      seen.add(node.name.value);
      return visit(info.fragments[node.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

const inPageRange = (first: unknown) =>
  first == null || (typeof first === 'number' && first >= 0 && first <= MAX_PAGE_SIZE);

/** The arguments of every relay connection field (`t.connection`), which mark it. */
const CONNECTION_ARGS = ['first', 'after', 'last', 'before'];

/**
 * The builder's plugin for connection fields: one asked only for its `totalCount` (and
 * `__typename`) resolves with `first: 0`, whatever its `first`, so that it reads a page of one
 * item (see `listConnection`). An out-of-range `first` stays, so that the connection reports it.
 * Other fields keep their resolver untouched.
 */
export class CountOnlyConnectionsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (!CONNECTION_ARGS.every((name) => name in fieldConfig.args)) return resolver;
    return (parent, args: ConnectionArgs, ctx, info) =>
      !selectsPage(info) && inPageRange(args.first) && args.first !== 0
        ? resolver(parent, { ...args, first: 0 }, ctx, info)
        : resolver(parent, args, ctx, info);
  }
}
