import { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo, SelectionSetNode } from 'graphql';
import { BadUserInputError, isGatewayError } from '../../errors.js';
import { decodeCursor, encodeCursor, MAX_BACKWARD_PAGES } from '../../policy/connection-cursors.js';
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

/** How a connection is paged: forward (`first` items after `after`) or backward (`last` items before `before`). */
export type Paging = { backward: false; first: number } | { backward: true; last: number };

/**
 * Checks the paging arguments: `first`/`after` forward or `last`/`before` backward, not both
 * ways at once; `first` and `last` from 0 to 1000 (`first` 50 when neither is given).
 */
export function pagingOf(args: ConnectionArgs): Paging {
  const backward = args.last != null || args.before != null;
  if (backward && (args.first != null || args.after != null)) {
    throw new BadUserInputError('Page one way at a time: `first`/`after` forward, or `last`/`before` backward', [
      args.first != null ? 'first' : 'after',
    ]);
  }
  const name = backward ? 'last' : 'first';
  const size = (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(size) || size < 0 || size > MAX_PAGE_SIZE) {
    throw new BadUserInputError(`\`${name}\` must be between 0 and ${MAX_PAGE_SIZE}`, [name]);
  }
  return backward ? { backward, last: size } : { backward, first: size };
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
  const paging = pagingOf(args);
  if (paging.backward) return backwardConnection(paging.last, args.before ?? undefined, fetchPage, keyOf);
  const { first } = paging;
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
 * The `last` items before `before` (or at the list's end), over a list that pages forward only:
 * the item `before` names is found first (its page read again), then the list is read from its
 * start, a page of 1000 at a time, keeping the last `last` items seen before that item: at most
 * `MAX_BACKWARD_PAGES` pages, past which the connection answers BAD_USER_INPUT. Each edge has the
 * cursor its page gives it, so `after` resumes forward from any of them.
 */
async function backwardConnection<T>(
  last: number,
  before: string | undefined,
  fetchPage: PageFetcher<T>,
  keyOf: ItemKey<T>,
): Promise<ConnectionResult<T>> {
  // `last: 0` only counts, as `first: 0` does: one item read, and nothing on either side to page to.
  if (last === 0) {
    const { count } = await fetchPage(undefined, 1);
    return {
      edges: [],
      totalCount: count,
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    };
  }
  const end = before === undefined ? undefined : await keyBefore(before, fetchPage, keyOf);
  const kept: ConnectionResult<T>['edges'] = [];
  let passed = 0;
  let totalCount = 0;
  let token: string | null = null;
  let found = end === undefined;
  const seen = new Set<string | null>([token]);
  for (let pages = 0; !(found && end !== undefined); pages += 1) {
    if (pages === MAX_BACKWARD_PAGES) {
      throw new BadUserInputError(
        `Paging backward reads the list from its start, at most ${MAX_BACKWARD_PAGES * MAX_PAGE_SIZE} items: page forward with \`first\`/\`after\` past them`,
        [before === undefined ? 'last' : 'before'],
      );
    }
    const page = await fetchPage(token ?? undefined, MAX_PAGE_SIZE);
    if (pages === 0) totalCount = page.count;
    for (const [index, node] of page.items.entries()) {
      if (end !== undefined && identityOf(node, keyOf) === end.key) {
        found = true;
        break;
      }
      kept.push({ cursor: encodeCursor({ p: token, i: index }), node });
      if (kept.length > last) {
        kept.shift();
        passed += 1;
      }
    }
    if (found && end !== undefined) break;
    if (!page.next || page.items.length === 0 || seen.has(page.next.page)) break;
    seen.add(page.next.page);
    token = page.next.page;
  }
  if (!found) throw new BadUserInputError('`before` names an item this list no longer holds', ['before']);
  const edges = kept;
  return {
    edges,
    totalCount,
    pageInfo: {
      hasPreviousPage: passed > 0,
      // What `before` names follows the page.
      hasNextPage: end !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

/** The key of the item `before` names: a create's item cursor names it; a page's cursor, by its page read again. */
async function keyBefore<T>(before: string, fetchPage: PageFetcher<T>, keyOf: ItemKey<T>): Promise<{ key: unknown }> {
  const cursor = decodeCursor(before, 'before');
  if ('n' in cursor) return { key: cursor.n };
  const page = await fetchPage(cursor.p ?? undefined, cursor.i + 1).catch((error: unknown) => {
    if (isGatewayError(error) && error.code === 'BAD_USER_INPUT' && /"page"/.test(error.message)) {
      throw new BadUserInputError('`before` is not a cursor of this connection', ['before'], error.upstreamStatus);
    }
    throw error;
  });
  const item = page.items[cursor.i];
  if (item === undefined) throw new BadUserInputError('`before` names an item this list no longer holds', ['before']);
  return { key: identityOf(item, keyOf) };
}

/** What tells an item from the others in its list: its key, or, for a list whose items have none (a grant, a link report), its JSON. */
function identityOf<T>(item: T, keyOf: ItemKey<T>): unknown {
  return keyOf(item) ?? JSON.stringify(item);
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
 * `__typename`) resolves with `first: 0`, whatever its `first` or `last`, so that it reads a page
 * of one item (see `listConnection`). An out-of-range size stays, so that the connection reports it.
 * Other fields keep their resolver untouched.
 */
export class CountOnlyConnectionsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    if (!CONNECTION_ARGS.every((name) => name in fieldConfig.args)) return resolver;
    return (parent, args: ConnectionArgs, ctx, info) => {
      if (selectsPage(info) || args.first === 0) return resolver(parent, args, ctx, info);
      const backward = args.last != null || args.before != null;
      const forward = args.first != null || args.after != null;
      // Out-of-range sizes and both directions at once stay, so that the connection reports them.
      if ((backward && forward) || !inPageRange(args.first) || !inPageRange(args.last))
        return resolver(parent, args, ctx, info);
      // Counted the same way whichever way it was paged: a backward page makes way for `first: 0`, its
      // cursor checked all the same (a forward one's `after` stays, and is checked where it is read).
      if (args.before != null) decodeCursor(args.before, 'before');
      return resolver(
        parent,
        backward ? { ...args, first: 0, last: null, before: null } : { ...args, first: 0 },
        ctx,
        info,
      );
    };
  }
}
