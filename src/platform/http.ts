import { createHash, randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { keptUntilWrite, type Db } from './store/db.js';
import { MarkdownTooDeepError } from '../document/markdown.js';
import type { ContentLimitError } from '../document/model.js';

/** The budget an input went over, answered beside the message: `{ limit, value, max }`. */
export interface LimitDetails {
  limit: string;
  value: number;
  max: number;
}

/**
 * An expected failure of a platform route; answered as `{ error: { code, message } }` (and `limit`,
 * `value`, `max` when over a budget; `parameter` when a path parameter names nothing: see `notFound`).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly limit?: LimitDetails,
    /** What was not found (`Site section`), for a 404 of `notFound`. */
    readonly missing?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * An input over one of its budgets (413, or 400 for one nested too deeply), naming the budget,
 * the value and the maximum (as the gateway's query limits do). `value` may be where reading
 * stopped, past the maximum, rather than the whole input's.
 */
export const overLimit = (message: string, { limit, value, max }: LimitDetails, status: 400 | 413 = 413) =>
  new ApiError(status, message, { limit, value, max });

/**
 * Content over a budget of the document format (`ContentLimitError`): 413 for content too large,
 * 400 for markdown nested too deeply (a structural refusal, as for other input nested too deeply).
 */
export const overContentLimit = (message: string, error: ContentLimitError) =>
  overLimit(message, error, error instanceof MarkdownTooDeepError ? 400 : 413);

export const badRequest = (message: string) => new ApiError(400, message);
export const forbidden = (message = 'You do not have permission to do this') => new ApiError(403, message);
/**
 * A 404 for something the request names (`Space not found`). When a path parameter of the route
 * names it, the answer says which (`parameter: "spaceId"`, see `missingParameter`), as a refusal of
 * the body names its field.
 */
export const notFound = (what: string) => new ApiError(404, `${what} not found`, undefined, what);

/** Path parameters named otherwise than after what they name (`Member` → `userId`). */
const PARAMETER_OF: Readonly<Record<string, string>> = {
  Member: 'userId',
  'OpenAPI specification': 'specSlug',
  'OpenAPI specification version': 'versionId',
  Integration: 'integrationName',
};

/**
 * The path parameter of `params` that names `what` (`Site section` → `siteSectionId`, `Integration
 * installation` → `installationId`), or undefined when none does.
 */
export function missingParameter(what: string, params: unknown): string | undefined {
  if (!params || typeof params !== 'object') return undefined;
  const words = what.split(' ');
  const camel = (parts: string[]) =>
    parts.map((word, index) => (index === 0 ? word.toLowerCase() : word[0]!.toUpperCase() + word.slice(1))).join('');
  const candidates = [PARAMETER_OF[what], `${camel(words)}Id`, `${camel(words.slice(-1))}Id`];
  return candidates.find((name) => name !== undefined && name in params);
}
/**
 * A 404 for a reference given in the request body, naming the field and, when given, the value:
 * `User not found: body field "users.0" ("u-123")`.
 */
export function notFoundInBody(what: string, field: string, value?: string): ApiError {
  const shown =
    value === undefined ? '' : ` (${JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)})`;
  return new ApiError(404, `${what} not found: body field "${field}"${shown}`);
}
export const conflict = (message: string) => new ApiError(409, message);
export const preconditionFailed = (message: string) => new ApiError(412, message);

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** While `withStableIds` runs: the name its ids derive from, and how many it made. */
let stableIds: { name: string; made: number } | undefined;

/**
 * A new opaque identifier (20 base62 characters): random, or, inside `withStableIds`, the next of
 * its sequence. Never for secrets (`newSecret`).
 */
export function newId(length = 20): string {
  if (stableIds) return stableId(`${stableIds.name}#${stableIds.made++}`, length);
  return newSecret(length);
}

/** A new random string of base62 characters, for tokens and keys: random even inside `withStableIds`. */
export function newSecret(length = 20): string {
  const bytes = randomBytes(length);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

/**
 * Runs `seed` (synchronous: nothing else runs meanwhile) with every `newId` it makes, however
 * deep, derived from `name` and their order: seeding the same data twice gives the same ids, so
 * the documentation and bookmarks can name demo objects. Secrets stay random (`newSecret`).
 */
export function withStableIds<T>(name: string, seed: () => T): T {
  const outer = stableIds;
  stableIds = { name, made: 0 };
  try {
    const seeded = seed();
    if (seeded instanceof Promise) throw new Error('withStableIds runs synchronous seeds only');
    return seeded;
  } finally {
    stableIds = outer;
  }
}

/**
 * An id like `newId`'s, the same for the same `name` on every install: for demo data that the
 * documentation names (a demo space has one id everywhere). Never for secrets.
 */
export function stableId(name: string, length = 20): string {
  const bytes = createHash('sha256').update(name).digest();
  let id = '';
  for (let index = 0; index < length; index += 1) id += ID_ALPHABET[bytes[index % bytes.length]! % ID_ALPHABET.length];
  return id;
}

export const now = () => new Date().toISOString();

/**
 * An update stamp strictly after `previous`, so clients comparing `updatedAt` see a change even
 * for two writes within the same millisecond.
 */
export function laterThan(previous: string): string {
  const at = Date.now();
  const before = Date.parse(previous);
  return new Date(Number.isNaN(before) || at > before ? at : before + 1).toISOString();
}

/**
 * Describes the first zod issue as `Invalid body field "<dotted.path>": <reason>` (or `query`),
 * so that clients can read the field out of the message; an unknown field is named the same way.
 * Only issues about the whole body (`must set at least one field`) read `Invalid body: <reason>`.
 */
export function describeIssue(error: z.ZodError, where: 'body' | 'query'): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}`;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const [first, ...others] = issue.keys;
    const more = others.length ? ` (nor ${others.map((k) => `"${[...path, k].join('.')}"`).join(', ')})` : '';
    return `Invalid ${where} field "${[...path, first].join('.')}": is not a known field${more}`;
  }
  const field = path.join('.');
  return field ? `Invalid ${where} field "${field}": ${issue.message}` : `Invalid ${where}: ${issue.message}`;
}

/** Parses a request body with zod; a failure is a 400 naming the field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw badRequest(describeIssue(parsed.error, 'body'));
  return parsed.data;
}

/**
 * Parses a query string object with zod; a failure is a 400 naming the parameter. A repeated
 * key arrives as an array: unless the parameter takes a list, the 400 says it was given more than once.
 */
export function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const raw = (query ?? {}) as Record<string, unknown>;
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const name = issue.path[0];
    if (typeof name !== 'string' || !Object.hasOwn(raw, name)) continue;
    const value = raw[name];
    if (Array.isArray(value)) {
      throw badRequest(`Invalid query field "${name}": must be given once, not ${value.length} times`);
    }
  }
  throw badRequest(describeIssue(parsed.error, 'query'));
}

/** A boolean query parameter: `true`/`false` (also `1`/`0`). */
export const booleanParam = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

const PAGE_TOKEN = /^[A-Za-z0-9_-]{1,200}$/;

/** The `page` and `limit` parameters of every list endpoint. */
export const pageParams = {
  page: z.string().regex(PAGE_TOKEN, 'is not a page token from a previous answer').optional(),
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .optional(),
};

/** The query of a list endpoint that takes nothing but a page. */
export const pageQuery = z.object(pageParams);

export const DEFAULT_PAGE_SIZE = 50;

/** The largest offset a page token may carry; beyond it SQLite would refuse the OFFSET. */
export const MAX_PAGE_OFFSET = 1_000_000_000;

export interface PageWindow {
  offset: number;
  limit: number;
}

/** Decodes `page`/`limit` into an offset window; an unreadable token is a 400. */
export function pageWindow(params: { page?: string | undefined; limit?: number | undefined }): PageWindow {
  const limit = params.limit ?? DEFAULT_PAGE_SIZE;
  if (!params.page) return { offset: 0, limit };
  try {
    const decoded = JSON.parse(Buffer.from(params.page, 'base64url').toString('utf8')) as { o?: unknown };
    const offset = decoded.o;
    if (typeof offset === 'number' && Number.isInteger(offset) && offset >= 0 && offset <= MAX_PAGE_OFFSET) {
      return { offset, limit };
    }
  } catch {
    // fall through to the error below
  }
  throw badRequest('Invalid query field "page": is not a page token from a previous answer');
}

export function pageToken(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset }), 'utf8').toString('base64url');
}

export interface PageOfResults<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

/** Builds a page of results from the items of one window and the total count. */
export function pageOf<T>(items: T[], count: number, window: PageWindow): PageOfResults<T> {
  const end = window.offset + items.length;
  return end < count ? { next: { page: pageToken(end) }, count, items } : { count, items };
}

/** Cuts one window out of a full list (for lists computed in memory), serializing its items with `map`. */
export function pageFromArray<T>(all: T[], window: PageWindow): PageOfResults<T>;
export function pageFromArray<T, U>(all: T[], window: PageWindow, map: (item: T) => U): PageOfResults<U>;
export function pageFromArray<T, U>(all: T[], window: PageWindow, map?: (item: T) => U): PageOfResults<T | U> {
  const items = all.slice(window.offset, window.offset + window.limit);
  return pageOf<T | U>(map ? items.map(map) : items, all.length, window);
}

/**
 * Answers a page of one of the lists clients read most (spaces, collections) with each item's JSON
 * kept until the next write to the database (`keptUntilWrite`), as the content tree and the rows
 * are: a page read again is written from kept bytes, without building and serializing its items
 * (about half of a page's CPU, bench/README.md). `keyOf` names what an item's JSON depends on
 * besides the database: its id, the reader's role on it and the answering origin.
 */
export function sendKeptPage<T>(
  reply: FastifyReply,
  db: Db,
  page: PageOfResults<T>,
  item: { kind: string; keyOf: (item: T) => string; json: (item: T) => unknown },
): FastifyReply {
  const kept = keptUntilWrite<Buffer>(db, `${item.kind} JSON`, MAX_KEPT_ITEMS);
  const { items, ...envelope } = page;
  // The envelope's own JSON, cut before its empty list of items: `{"count":3,"items":`.
  const parts: Buffer[] = [Buffer.from(JSON.stringify({ ...envelope, items: [] }).slice(0, -3))];
  items.forEach((entry, index) => {
    const key = item.keyOf(entry);
    let text = kept.get(key);
    if (!text) {
      text = Buffer.from(JSON.stringify(item.json(entry)), 'utf8');
      kept.set(key, text);
    }
    parts.push(index === 0 ? OPEN_ITEMS : COMMA, text);
  });
  parts.push(items.length === 0 ? EMPTY_ITEMS : CLOSE_ITEMS);
  return reply.type('application/json; charset=utf-8').send(Buffer.concat(parts));
}

/** Items' JSON kept per list kind and database (about 800 bytes each for a space). */
const MAX_KEPT_ITEMS = 20_000;
const OPEN_ITEMS = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_ITEMS = Buffer.from(']}');
const EMPTY_ITEMS = Buffer.from('[]}');

/** Answers a delete: 205 when something was deleted, 204 when there was nothing to delete. */
export function sendDeleted(reply: FastifyReply, deleted: boolean): FastifyReply {
  return reply.code(deleted ? 205 : 204).send();
}

/** JSON columns. */
export const json = {
  parse<T>(text: string | null | undefined, fallback: T): T {
    if (text === null || text === undefined) return fallback;
    return JSON.parse(text) as T;
  },
  stringify(value: unknown): string | null {
    return value === undefined || value === null ? null : JSON.stringify(value);
  },
};
