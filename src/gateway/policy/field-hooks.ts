import {
  defaultFieldResolver,
  getNamedType,
  getNullableType,
  isLeafType,
  isListType,
  isObjectType,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  type GraphQLField,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { ResponseBudget } from '../upstream/response-budget.js';
import type { Trace } from '../upstream/trace.js';
import { introspectionAllowance, isPromiseLike, jsonBytes } from './answer-size.js';
import type { GatewayWork } from '../gateway-work.js';

/**
 * What the field hooks read from the context: the answer budget (every request of the gateway has
 * one; contexts without one are not counted), the count of the gateway's own work, and the trace of
 * `explain`, only in a request that asked for it (`x-explain`).
 */
interface HookedContext {
  responseBudget?: ResponseBudget;
  work?: GatewayWork;
  trace?: Trace | undefined;
}

type HookedResolver = GraphQLFieldResolver<unknown, HookedContext>;

const hooked = new WeakSet<GraphQLSchema>();

/**
 * The fields graphql-js answers from the schema itself: the meta fields and those of the `__`
 * types. They are graphql-js's own objects, shared by every schema of the process, so they are
 * hooked once (contexts without a budget, other schemas' included, are not counted).
 */
const hookedIntrospection = new WeakSet<GraphQLField<unknown, unknown>>();

/**
 * Installs the gateway's field hooks in `schema` (once): one wrapper around each field's resolver,
 * the one mechanism for the work every field does for the gateway. Two hooks, in that wrapper
 * rather than in a list of callbacks, so that a field pays no closure and no loop for them:
 *
 * - the answer budget, every request: what a field adds to the answer is counted against the
 *   request's `ResponseBudget`: for a leaf, its key and its value as JSON (estimated, without
 *   serializing); for an object or a list, its key and brackets (the fields inside count
 *   themselves). Once the budget is spent, fields fail without running. Introspection (`__schema`,
 *   `__type` and the fields of the `__` types) is counted the same way, and its bytes are also the
 *   gateway's own work (`work.add('introspection', …)`): it makes no upstream request, and is
 *   charged in points by what it answers. `__typename` counts in the answer only.
 * - `explain`, only in a request that asked for it (`ctx.trace`): each resolver the schema declares
 *   runs with its response path, so that the upstream requests it causes are attributed to it. A
 *   request without it runs no explain code but the test of `ctx.trace`; fields answered by
 *   graphql-js's default resolver never cause a request and skip even that.
 */
export function hookFields(schema: GraphQLSchema): GraphQLSchema {
  if (hooked.has(schema)) return schema;
  hooked.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const introspection = type.name.startsWith('__');
    for (const field of Object.values(type.getFields())) {
      if (!introspection) field.resolve = hookedResolver(field, 'field');
      else hookIntrospection(field, 'introspection');
    }
  }
  hookIntrospection(SchemaMetaFieldDef, 'introspection');
  hookIntrospection(TypeMetaFieldDef, 'introspection');
  hookIntrospection(TypeNameMetaFieldDef, 'typename');
  return schema;
}

/**
 * A field of the schema's own types (`field`), of introspection (counted as the gateway's work too),
 * or `__typename` (counted in the answer only); neither of the last two is explained.
 */
type FieldKind = 'field' | 'introspection' | 'typename';

function hookIntrospection(field: GraphQLField<unknown, unknown>, kind: FieldKind): void {
  if (hookedIntrospection.has(field)) return;
  hookedIntrospection.add(field);
  field.resolve = hookedResolver(field, kind) as GraphQLFieldResolver<unknown, unknown>;
}

function hookedResolver(field: GraphQLField<unknown, unknown>, kind: FieldKind): HookedResolver {
  const own = field.resolve as HookedResolver | undefined;
  const resolve: HookedResolver = own ?? defaultFieldResolver;
  const explained = own !== undefined && kind === 'field';
  const introspection = kind === 'introspection';
  const leaf = isLeafType(getNamedType(field.type));
  const list = isListType(getNullableType(field.type));
  // A function per field, not per call: a field that answers at once allocates nothing for its count.
  const count = (value: unknown, budget: ResponseBudget, ctx: HookedContext, info: GraphQLResolveInfo): void => {
    const key = info.path.key;
    const bytes =
      4 +
      (typeof key === 'string' ? key.length : String(key).length) +
      (leaf ? jsonBytes(value) : list && Array.isArray(value) ? 2 + value.length : 2);
    budget.addAnswer(bytes);
    if (introspection) {
      ctx.work?.add('introspection', bytes);
      budget.addIntrospection(bytes, introspectionAllowance(info.schema));
    }
  };
  return (parent, args, ctx, info) => {
    const budget = ctx?.responseBudget;
    if (budget?.exceeded) throw budget.exceeded;
    const trace = explained ? ctx.trace : undefined;
    const value =
      trace === undefined
        ? resolve(parent, args, ctx, info)
        : trace.runField(responsePath(info), () => resolve(parent, args, ctx, info));
    if (budget === undefined) return value;
    if (isPromiseLike(value)) {
      return value.then((resolved) => {
        count(resolved, budget, ctx, info);
        return resolved;
      });
    }
    count(value, budget, ctx, info);
    return value;
  };
}

/** `organizations.nodes.0.spaces`: the response path of a field. */
function responsePath(info: GraphQLResolveInfo): string {
  const keys: Array<string | number> = [];
  for (let path: GraphQLResolveInfo['path'] | undefined = info.path; path; path = path.prev) keys.push(path.key);
  return keys.reverse().join('.');
}
