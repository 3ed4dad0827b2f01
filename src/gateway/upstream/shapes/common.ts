import { z } from 'zod';
import { redactUrlCredentials } from '../../errors.js';

/** Member and permission levels, from most to least privileged. */
export const ROLES = ['admin', 'create', 'review', 'edit', 'comment', 'read'] as const;
export const role = z.enum(ROLES);
export type Role = z.infer<typeof role>;
/** A role where `null` means a guest. */
export const roleOrGuest = role.nullable();

export const TEAM_ROLES = ['owner', 'member'] as const;
export const teamRole = z.enum(TEAM_ROLES);
export type TeamRole = z.infer<typeof teamRole>;

export const VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export const visibility = z.enum(VISIBILITIES);

/** What signs the tokens of visitors of a site or space (the API's `VisitorAuth` backends). */
export const VISITOR_AUTH_BACKENDS = ['custom', 'integration'] as const;

export const EDIT_MODES = ['live', 'locked'] as const;
export const editMode = z.enum(EDIT_MODES);

export const dateTime = z.string();

/** A URL from the platform, with any credentials it embeds removed as it is parsed. */
export const url = z.string().transform(redactUrlCredentials);

/** A page of results: `{ next?: { page }, count, items }`. */
export function page<T extends z.ZodType>(item: T) {
  let schema = pages.get(item) as ReturnType<typeof pageOf<T>> | undefined;
  if (!schema) {
    schema = pageOf(item);
    pages.set(item, schema);
  }
  return schema;
}

// One page schema per item schema: zod compiles a schema on its first use, and the per-request
// cache of parsed answers is keyed by schema.
const pages = new WeakMap<z.ZodType, z.ZodType>();

function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    next: z.object({ page: z.string() }).nullish(),
    count: z.number().int().nonnegative(),
    items: z.array(item),
  });
}
export type Page<T> = { next?: { page: string } | null | undefined; count: number; items: T[] };

/**
 * A REST list as an upstream module declares it (`restPages`): its path, item shape and filters
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

export const user = z.object({
  object: z.literal('user').optional(),
  id: z.string(),
  displayName: z.string(),
  email: z.string().nullish(),
  photoURL: url.nullish(),
  urls: z.object({ location: url.nullish() }).nullish(),
});
export type User = z.infer<typeof user>;

export const mergeRules = z.discriminatedUnion('type', [
  z.object({ type: z.literal('inherit') }),
  z.object({ type: z.literal('none') }),
  z.object({
    type: z.literal('rules'),
    rules: z.array(z.object({ rule: z.string(), users: z.array(z.string()).optional() })),
  }),
]);
export type MergeRules = z.infer<typeof mergeRules>;

/** Rich text: the JSON document shape. Nodes are kept as they come. */
export const document = z.object({
  object: z.literal('document'),
  data: z.record(z.string(), z.unknown()),
  nodes: z.array(z.unknown()),
  meta: z.object({ token: z.string().optional() }).passthrough().optional(),
});
export type JsonDocument = z.infer<typeof document>;

/** Answers without a body (204, 205). */
export const empty = z.undefined();
