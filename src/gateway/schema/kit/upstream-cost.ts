import type { CostExtensions } from '../../policy/cost.js';

/**
 * Field `extensions` declaring the upstream cost of a field, which the cost model reads
 * (`UpstreamCost`): each field that calls the platform declares it with one of these.
 */
export const upstream = {
  /** A link to another node by id: at most one request per parent, none for keys only. */
  link: { upstream: { requests: 1, link: true } } satisfies CostExtensions,
  /** A list of links by id, each like `link`. */
  links: (items: number) => ({ upstream: { requests: 1, link: true, perItem: true, items } }) satisfies CostExtensions,
  /** A field that makes `requests` requests per parent object. */
  fetch: (requests: number) => ({ upstream: { requests } }) satisfies CostExtensions,
  /** A field that makes no upstream request (a root field served without the platform). */
  free: { upstream: { requests: 0 } } satisfies CostExtensions,
  /**
   * A subscription field whose first read of what it follows makes `requests` requests: what its
   * first event may cost (later events come from the shared poll and cost their subscribers nothing).
   * With `link`, each event resolves its object as a link does: one request more, none when only
   * key fields are selected of it.
   */
  follow: (requests: number, { link = false }: { link?: boolean } = {}) =>
    ({ upstream: { requests, follow: true, ...(link ? { eventLink: true } : {}) } }) satisfies CostExtensions,
};
