import { isObjectType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { Trace } from '../upstream/trace.js';

/** What the field hooks read from the context: the trace of `explain`, only in a request that asked for it. */
interface HookedContext {
  trace?: Trace | undefined;
}

/** `organizations.nodes.0.spaces`: the response path of a field. */
function responsePath(info: GraphQLResolveInfo): string {
  const keys: Array<string | number> = [];
  for (let path: GraphQLResolveInfo['path'] | undefined = info.path; path; path = path.prev) keys.push(path.key);
  return keys.reverse().join('.');
}

const hooked = new WeakSet<GraphQLSchema>();

/**
 * Installs the gateway's field hooks in `schema` (once): one wrapper around each resolver the
 * schema declares. `explain` (a request with `x-explain`, which has `ctx.trace`) runs each resolver
 * with its response path, so that the upstream requests it causes are attributed to it; a request
 * without it runs the resolver as it is, after one test of `ctx.trace`. Fields answered by
 * graphql-js's default resolver never cause a request: they are left alone.
 */
export function hookFields(schema: GraphQLSchema): GraphQLSchema {
  if (hooked.has(schema)) return schema;
  hooked.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, HookedContext> | undefined;
      if (resolve) field.resolve = explained(resolve);
    }
  }
  return schema;
}

function explained(
  resolve: GraphQLFieldResolver<unknown, HookedContext>,
): GraphQLFieldResolver<unknown, HookedContext> {
  return (parent, args, ctx, info) => {
    const trace = ctx.trace;
    if (trace === undefined) return resolve(parent, args, ctx, info);
    return trace.runField(responsePath(info), () => resolve(parent, args, ctx, info));
  };
}
