import {
  defaultFieldResolver,
  getNamedType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { isConnectionType } from './cost.js';
import { MAX_PAGE_SIZE } from './limits.js';
import type { Trace } from '../upstream/trace.js';

/** `organizations.nodes.0.spaces`: the response path of a field. */
function responsePath(info: GraphQLResolveInfo): string {
  const keys: Array<string | number> = [];
  for (let path: GraphQLResolveInfo['path'] | undefined = info.path; path; path = path.prev) keys.push(path.key);
  return keys.reverse().join('.');
}

const pageSelections = new WeakMap<readonly unknown[], boolean>();

/** Whether a connection field's selection asks for items or paging, not just `totalCount`. */
function selectsPage(info: GraphQLResolveInfo): boolean {
  // Sibling objects of a list share their field nodes: decided once for all of them.
  let known = pageSelections.get(info.fieldNodes);
  if (known === undefined) {
    known = findsPage(info);
    pageSelections.set(info.fieldNodes, known);
  }
  return known;
}

function findsPage(info: GraphQLResolveInfo): boolean {
  const seen = new Set<string>();
  const visit = (set: { selections: readonly unknown[] } | undefined): boolean =>
    (set?.selections ?? []).some((selection) => {
      const node = selection as {
        kind: string;
        name: { value: string };
        selectionSet?: { selections: readonly unknown[] };
      };
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

const instrumented = new WeakSet<GraphQLSchema>();

/**
 * Wraps the resolvers of `schema` (once) with what every field needs from the gateway:
 * a connection asked only for its `totalCount` fetches a page of one item, whatever its
 * `first`; and, in a request traced for `explain`, each resolver runs with its response path,
 * so the upstream requests it causes are attributed to it.
 */
export function instrumentSchema(schema: GraphQLSchema): GraphQLSchema {
  if (instrumented.has(schema)) return schema;
  instrumented.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const resolve: GraphQLFieldResolver<unknown, { trace?: Trace }> = field.resolve ?? defaultFieldResolver;
      const connection = isConnectionType(getNamedType(field.type));
      if (!connection && !field.resolve) continue;
      field.resolve = (parent, args, ctx, info) => {
        // An out-of-range `first` stays, so that the connection reports it.
        const countOnly = connection && !selectsPage(info) && inPageRange(args.first);
        const resolveArgs = countOnly ? { ...args, first: 0 } : args;
        if (!ctx.trace) return resolve(parent, resolveArgs, ctx, info);
        return ctx.trace.runField(responsePath(info), () => resolve(parent, resolveArgs, ctx, info));
      };
    }
  }
  return schema;
}
