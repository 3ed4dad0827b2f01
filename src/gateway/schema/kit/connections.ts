import { BadUserInputError, isGatewayError } from '../../errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../policy/limits.js';
import type { Page, RestPages } from '../../upstream/shapes/common.js';

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

// A cursor names the REST page an item came from (its token, null for the first page) and the
// item's index in it. REST page tokens mark where a page starts, whatever its limit, so asking
// for that page again with a larger limit and skipping index + 1 items resumes right after it.
interface Cursor {
  p: string | null;
  i: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

export function decodeCursor(value: string): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (
      (cursor.p === null || typeof cursor.p === 'string') &&
      typeof cursor.i === 'number' &&
      Number.isInteger(cursor.i) &&
      cursor.i >= 0 &&
      cursor.i < MAX_PAGE_SIZE
    ) {
      return { p: cursor.p, i: cursor.i };
    }
  } catch {
    // reported below
  }
  throw new BadUserInputError('`after` is not a cursor of this connection', ['after']);
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

/**
 * Resolves a relay connection over a REST list: fetches as few pages as `first`/`after`
 * need (following `next.page` when a page is short), and reports the REST `count` as
 * `totalCount`. `first: 0` answers no edge and `hasNextPage: false`: it only counts.
 */
export async function restConnection<T>(args: ConnectionArgs, fetchPage: PageFetcher<T>): Promise<ConnectionResult<T>> {
  const first = pageSize(args);
  const start = args.after ? decodeCursor(args.after) : { p: null, i: -1 };
  const edges: ConnectionResult<T>['edges'] = [];
  let token = start.p;
  let skip = start.i + 1;
  let totalCount = 0;
  let hasNextPage = false;
  let fetched = false;
  const seen = new Set<string | null>([token]);
  while (!fetched || edges.length < first) {
    const wanted = Math.min(MAX_PAGE_SIZE, skip + Math.max(1, first - edges.length));
    const page = await fetchPage(token ?? undefined, wanted).catch((error: unknown) => {
      // A page token the platform refuses can only have come from a forged or foreign cursor.
      if (args.after && isGatewayError(error) && error.code === 'BAD_USER_INPUT' && /"page"/.test(error.message)) {
        throw new BadUserInputError('`after` is not a cursor of this connection', ['after'], error.upstreamStatus);
      }
      throw error;
    });
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
 * The same page with its nodes replaced, in order, by what `map` makes of all of them at once
 * (so they can be primed together).
 */
export function mapNodes<T, U>(connection: ConnectionResult<T>, map: (nodes: T[]) => U[]): ConnectionResult<U> {
  const nodes = map(connection.edges.map((edge) => edge.node));
  return { ...connection, edges: connection.edges.map((edge, index) => ({ ...edge, node: nodes[index]! })) };
}

/**
 * A connection over a REST list declared upstream (`restPages`). Asked for no item (`first: 0`,
 * as for a `totalCount`-only selection), it reads a page of one item, or shares a first page read
 * anyway.
 */
export function listConnection<T>(args: ConnectionArgs, pages: RestPages<T>): Promise<ConnectionResult<T>> {
  const countOnly = args.first === 0 && !args.after;
  return restConnection(args, (pageToken, limit) =>
    countOnly && pageToken === undefined ? pages.first() : pages.read(pageToken, limit),
  );
}
