import { brandWithType, createContextCache, type SchemaTypes } from '@pothos/core';
import type DataLoader from 'dataloader';
import type { GraphQLResolveInfo } from 'graphql';
import type { GatewayContext } from '../../context.js';
import { compositeKey, registerNodeType, splitKey } from './ids.js';
import { selectsOnlyKeys } from './links.js';
import { noteTracedLoad } from '../../upstream/trace.js';
import { builder } from './builder.js';

/** A node with a per-request loader by key, as `loadableNode` declares it. */
export interface Loadable<Shape> {
  getDataloader(ctx: GatewayContext): DataLoader<string, Shape, string>;
  /** The loader key of a node: its platform id, or the composite key of a node with a parent. */
  keyOf(node: Shape): string;
}

type AnyLoader = DataLoader<string, unknown, string>;

/** What the loaders of one request did: those it created, and the keys asked of them. */
interface RequestLoads {
  loaders: AnyLoader[];
  /** Keys asked of them, cached or not (priming is not a load). */
  asked: number;
}

// Per request, so that counting and clearing touch only the loaders the operation used, not one
// of each node type of the schema.
const requestLoads = createContextCache((): RequestLoads => ({ loaders: [], asked: 0 }));

/**
 * The loads of the request a loader was created for, on the loader itself: its `cacheKeyFn` gets
 * the loader as `this`, never the context, and a table beside the loaders would only map one to
 * the other.
 */
const LOADS: unique symbol = Symbol('request loads');

/** A loader of one request, carrying its loads (see `trackedPerRequest`). */
type TrackedLoader = AnyLoader & { [LOADS]?: RequestLoads };

/**
 * Declares a node fetched through a per-request loader: `load` reads one node by its key (each
 * key on its own, a failed one reported in its place), `key` gives the key of a node (the
 * platform id by default) and is also its global ID. The loader is cleared after every write.
 */
export function loadableNode<Shape extends { id: string }>(
  name: string,
  options: { key?: (node: Shape) => string; load: (key: string, ctx: GatewayContext) => Promise<Shape> },
) {
  const keyOf = options.key ?? ((node: Shape) => node.id);
  const ref = builder.loadableNodeRef<Shape | Error, string, string, string, Shape>(name, {
    id: { resolve: (node) => keyOf(node) },
    // Called on every load of a key, cached or not, with the loader as `this`: what the loader
    // saves is counted from it.
    loaderOptions: {
      cacheKeyFn(this: TrackedLoader, key: string) {
        if (!priming) {
          const request = this[LOADS];
          if (request) request.asked += 1;
          noteTracedLoad(`${name}:${key}`);
        }
        return key;
      },
    },
    load: (keys: string[], ctx: GatewayContext) =>
      loadEach(keys, (key) => {
        ctx.api.usage.loaderFetches += 1;
        return ctx.trace ? ctx.trace.runLoad(`${name}:${key}`, () => options.load(key, ctx)) : options.load(key, ctx);
      }),
  });
  const getDataloader = trackedPerRequest(ref.getDataloader);
  // The dataloader plugin loads the keys fields resolve to through the getter in the type's
  // extensions: it takes the tracked one too.
  ref.updateConfig((config) => ({ ...config, extensions: { ...config.extensions, getDataloader } }));
  const node = Object.assign(ref, { getDataloader, keyOf });
  byTypename.set(name, node);
  registerNodeType(name);
  return node;
}

const byTypename = new Map<string, Loadable<unknown>>();

/** True while `prime` fills a loader: priming is not a load. */
let priming = false;

/** Keys asked of the loaders of one request, cached or not. */
export function countLoads(ctx: GatewayContext): number {
  return requestLoads(ctx).asked;
}

/** The loaders of one request, created for it (as Pothos does, once per context and type). */
export function loadersOf(ctx: GatewayContext): readonly AnyLoader[] {
  return requestLoads(ctx).loaders;
}

/** Wraps a per-context loader getter so that each loader it creates is noted for its request. */
function trackedPerRequest<L extends AnyLoader>(
  getDataloader: ((ctx: GatewayContext) => L) & { delete(ctx: GatewayContext): void },
) {
  return Object.assign(
    (ctx: GatewayContext): L => {
      const loader: L & TrackedLoader = getDataloader(ctx);
      if (loader[LOADS] === undefined) {
        const request = requestLoads(ctx);
        request.loaders.push(loader);
        loader[LOADS] = request;
      }
      return loader;
    },
    { delete: getDataloader.delete },
  );
}

/** The loadable node declared under `typename`, if any (for `node(id:)`). */
export function loadableByTypename(typename: string): Loadable<unknown> | undefined {
  return byTypename.get(typename);
}

/** A node that belongs to an organization as the gateway holds it: the REST object plus its organization. */
export type InOrganization<T> = T & { organizationId: string };

/**
 * Declares a node that belongs to an organization (a team, a member): its key and global ID are
 * `organizationId/id`, and `load` reads one by its organization and its own id.
 */
export function organizationNode<T extends { id: string }>(
  name: string,
  load: (organizationId: string, id: string, ctx: GatewayContext) => Promise<T>,
) {
  return loadableNode<InOrganization<T>>(name, {
    key: (node) => compositeKey(node.organizationId, node.id),
    load: async (key, ctx) => {
      const [organizationId, id] = splitKey(key, 2, name) as [string, string];
      return { ...(await load(organizationId, id, ctx)), organizationId };
    },
  });
}

/** Primes nodes of `organizationId` that arrived in a list or a write answer; returns them as held. */
export function primeInOrganization<T>(
  ref: Loadable<InOrganization<T>>,
  ctx: GatewayContext,
  organizationId: string,
  items: Iterable<T>,
): Array<InOrganization<T>> {
  const nodes = Array.from(items, (item) => ({ ...item, organizationId }));
  prime(ref, ctx, nodes);
  return nodes;
}

/** Loads each key independently, reporting a failed key as an Error in its place. */
function loadEach<K, V>(keys: readonly K[], load: (key: K) => Promise<V>): Promise<Array<V | Error>> {
  return Promise.all(
    keys.map((key) => load(key).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))),
  );
}

/** Forgets everything the loaders of one request hold. */
export function clearLoaders(ctx: GatewayContext): void {
  for (const loader of requestLoads(ctx).loaders) loader.clearAll();
}

/**
 * Ties a context's API to its loaders: a write through it clears them (the answer of a mutation
 * reflects the write), and its usage counts the loads asked of them from now on.
 */
export function attachLoaders(ctx: GatewayContext): void {
  ctx.api.onInvalidate(() => clearLoaders(ctx));
  const before = countLoads(ctx);
  ctx.api.usage.loads = () => countLoads(ctx) - before;
}

/**
 * Puts nodes that arrived inside other answers (list items, write answers) into the loader of
 * `ref`, so that a link to one of them costs no request. A list item has the shape the by-key
 * GET answers for the same caller, so it stands in for that request.
 */
export function prime<Shape>(ref: Loadable<Shape>, ctx: GatewayContext, nodes: Iterable<Shape>): void {
  const loader = ref.getDataloader(ctx);
  priming = true;
  try {
    for (const node of nodes) loader.prime(ref.keyOf(node), node);
  } finally {
    priming = false;
  }
}

/**
 * Resolves a field that refers to a node of `ref` by its key: when only `id`, `platformId` or
 * `__typename` are selected, a stub that costs no upstream call (`{ id: key }` unless `stub`
 * builds it, as composite-key nodes need); otherwise the key, which the loader fetches.
 */
export function linkTo<Shape>(
  ref: Loadable<Shape>,
  key: string,
  info: GraphQLResolveInfo,
  stub?: () => Shape,
): Shape | string;
export function linkTo<Shape>(
  ref: Loadable<Shape>,
  key: string | null | undefined,
  info: GraphQLResolveInfo,
  stub?: () => Shape,
): Shape | string | null;
export function linkTo<Shape>(
  _ref: Loadable<Shape>,
  key: string | null | undefined,
  info: GraphQLResolveInfo,
  stub: () => Shape = () => ({ id: key }) as Shape,
): Shape | string | null {
  if (!key) return null;
  return selectsOnlyKeys(info) ? stub() : key;
}

/** Loads the node of `key` through its per-request loader; a failed load is thrown (NOT_FOUND and the like). */
export async function loadOrThrow<Shape>(ref: Loadable<Shape>, ctx: GatewayContext, key: string): Promise<Shape> {
  const loaded = (await ref.getDataloader(ctx).load(key)) as Shape | Error;
  if (loaded instanceof Error) throw loaded;
  return loaded;
}

/** Schema types read as naming object types by string, which Pothos takes as a brand as well as a ref. */
type NamedObjectTypes = SchemaTypes & { outputShapes: Record<string, unknown> };

/**
 * Brands `value` with the GraphQL object type it is, so the interfaces and unions it is read
 * through resolve it. By name, not by ref: `node(id:)` brands what it loads with its global ID's
 * type name, and a brand, once set, cannot change.
 */
export function brandAs(value: object, typename: string): void {
  brandWithType<NamedObjectTypes>(value, typename);
}
