import { BadUserInputError } from '../errors.js';
import { MAX_PAGE_SIZE } from './limits.js';

// The cursors of the connections (`restConnection` writes and reads them), kept with the cost model
// because it reads them too: a connection resumed after an item cursor costs an estimate (see
// `operationCost`), and policy reads nothing of the schema.
//
// A cursor names the REST page an item came from (its token, null for the first page) and the
// item's index in it. REST page tokens mark where a page starts, whatever its limit, so asking
// for that page again with a larger limit and skipping index + 1 items resumes right after it.
// An item that no page placed (the new edge a create answers) has a cursor naming the item
// itself instead, by its key in the lists (`n`): it resumes right after the item in any list that
// holds it, found by reading that list from its start.
type Cursor = { p: string | null; i: number } | { n: string };

/** Longest key an item cursor may name (ids are at most 512 characters). */
const MAX_ITEM_KEY = 512;

/** The opaque text of a cursor. */
export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/**
 * The cursor of an item that no page placed, such as the new edge a create answers: it names the
 * item by `key`, its key in the lists that hold it (see `restConnection`).
 */
export const itemCursor = (key: string): string => encodeCursor({ n: key });

/** True when `value` is a cursor made by `itemCursor`: resuming from it reads its list from the start. */
export function isItemCursor(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    return 'n' in decodeCursor(value);
  } catch {
    return false;
  }
}

/** The cursor `value` (an `after` argument) names; a BAD_USER_INPUT error when it is none of this gateway's. */
/**
 * Most pages of 1000 a connection reads to page backward (`last`, `before`): the platform pages
 * forward only, so the items before a place are found by reading the list from its start.
 */
export const MAX_BACKWARD_PAGES = 10;

export function decodeCursor(value: string, field: 'after' | 'before' = 'after'): Cursor {
  try {
    const cursor = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof cursor.n === 'string' && cursor.n.length > 0 && cursor.n.length <= MAX_ITEM_KEY) return { n: cursor.n };
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
  throw new BadUserInputError(`\`${field}\` is not a cursor of this connection`, [field]);
}
