import { isObjectType, type GraphQLFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import type { Trace } from '../upstream/trace.js';

/** `organizations.nodes.0.spaces`: the response path of a field. */
function responsePath(info: GraphQLResolveInfo): string {
  const keys: Array<string | number> = [];
  for (let path: GraphQLResolveInfo['path'] | undefined = info.path; path; path = path.prev) keys.push(path.key);
  return keys.reverse().join('.');
}

const instrumented = new WeakSet<GraphQLSchema>();

/**
 * Wraps the resolvers of `schema` (once) so that, in a request traced for `explain`, each runs
 * with its response path, so the upstream requests it causes are attributed to it.
 */
export function instrumentSchema(schema: GraphQLSchema): GraphQLSchema {
  if (instrumented.has(schema)) return schema;
  instrumented.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve = field.resolve as GraphQLFieldResolver<unknown, { trace?: Trace }> | undefined;
      if (!resolve) continue;
      field.resolve = (parent, args, ctx, info) => {
        if (!ctx.trace) return resolve(parent, args, ctx, info);
        return ctx.trace.runField(responsePath(info), () => resolve(parent, args, ctx, info));
      };
    }
  }
  return schema;
}
