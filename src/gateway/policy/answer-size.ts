import {
  defaultFieldResolver,
  experimentalExecuteIncrementally,
  type ExecutionArgs,
  type ExecutionResult,
  getIntrospectionQuery,
  parse,
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
  type GraphQLSchema,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { bodySource } from '../upstream/bodies.js';
import { ResponseBudget } from '../upstream/response-budget.js';
import { HEAVY_BYTES, ownTurn } from '../upstream/turns.js';
import type { GatewayWork } from './gateway-work.js';

/**
 * Gives the serialization of a large answer (past `HEAVY_BYTES` by the request's answer budget) a
 * turn of its own: it follows the execution's last hook, and `JSON.stringify` of a megabyte holds
 * the thread for about as long as its parse.
 */
export function useFairTurns(): Plugin<{ responseBudget?: ResponseBudget }> {
  return {
    onExecute: () => ({
      onExecuteDone({ args, result }) {
        const answerBytes = args.contextValue.responseBudget?.answerBytes ?? 0;
        if (answerBytes >= HEAVY_BYTES && !isAsyncIterable(result)) return ownTurn();
      },
    }),
  };
}

/** A context that may carry a response budget, and the count of the gateway's own work. */
interface BudgetedContext {
  responseBudget?: ResponseBudget;
  work?: GatewayWork;
}

const budgeted = new WeakSet<GraphQLSchema>();

/**
 * The fields graphql-js answers from the schema itself: the meta fields and those of the `__`
 * types. They are graphql-js's own objects, shared by every schema of the process, so their
 * resolvers are wrapped once (contexts without a budget, other schemas' included, are not counted).
 */
const wrappedIntrospection = new WeakSet<GraphQLField<unknown, unknown>>();

/**
 * Wraps every field's resolver so that what it adds to the answer is counted against the
 * request's `ResponseBudget` (contexts without one are not counted): for a leaf, its key and its
 * value as JSON (estimated, without serializing); for an object or a list, its key and brackets
 * (the fields inside count themselves). Once the budget is spent, fields fail without running.
 * Introspection (`__schema`, `__type` and the fields of the `__` types) is counted the same way,
 * and its bytes are also the gateway's own work (`work.add('introspection', …)`): it makes no
 * upstream request, and is charged in points by what it answers. `__typename` counts in the
 * answer only.
 */
export function budgetAnswers(schema: GraphQLSchema): GraphQLSchema {
  if (budgeted.has(schema)) return schema;
  budgeted.add(schema);
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    const introspection = type.name.startsWith('__');
    for (const field of Object.values(type.getFields())) {
      if (!introspection) field.resolve = budgetedResolver(field, false);
      else wrapIntrospection(field, true);
    }
  }
  wrapIntrospection(SchemaMetaFieldDef, true);
  wrapIntrospection(TypeMetaFieldDef, true);
  wrapIntrospection(TypeNameMetaFieldDef, false);
  return schema;
}

function wrapIntrospection(field: GraphQLField<unknown, unknown>, work: boolean): void {
  if (wrappedIntrospection.has(field)) return;
  wrappedIntrospection.add(field);
  field.resolve = budgetedResolver(field, work) as GraphQLFieldResolver<unknown, unknown>;
}

function budgetedResolver(
  field: GraphQLField<unknown, unknown>,
  introspection: boolean,
): GraphQLFieldResolver<unknown, BudgetedContext> {
  const resolve: GraphQLFieldResolver<unknown, BudgetedContext> = field.resolve ?? defaultFieldResolver;
  const leaf = isLeafType(getNamedType(field.type));
  const list = isListType(getNullableType(field.type));
  const size = (value: unknown): number =>
    leaf ? jsonBytes(value) : list && Array.isArray(value) ? 2 + value.length : 2;
  return (parent, args, ctx, info) => {
    const budget = ctx?.responseBudget;
    if (!budget) return resolve(parent, args, ctx, info);
    if (budget.exceeded) throw budget.exceeded;
    const key = 4 + String(info.path.key).length;
    const count = (resolved: unknown) => {
      const bytes = key + size(resolved);
      budget.addAnswer(bytes);
      if (introspection) {
        ctx.work?.add('introspection', bytes);
        budget.addIntrospection(bytes, introspectionAllowance(info.schema));
      }
    };
    const value = resolve(parent, args, ctx, info);
    if (isPromiseLike(value)) {
      return Promise.resolve(value).then((resolved) => {
        count(resolved);
        return resolved;
      });
    }
    count(value);
    return value;
  };
}

const allowances = new WeakMap<GraphQLSchema, number>();

/**
 * The bytes of introspection one operation may have: a quarter more than the answer to the whole
 * schema's introspection as GraphiQL and codegen ask it (descriptions and all), counted the same
 * way, once per schema. The schema grows with the API, and the bound with it.
 */
export function introspectionAllowance(schema: GraphQLSchema): number {
  let allowance = allowances.get(schema);
  if (allowance === undefined) {
    const budget = new ResponseBudget(Number.POSITIVE_INFINITY);
    allowances.set(schema, Number.POSITIVE_INFINITY);
    executeWhole({ schema, document: WHOLE_INTROSPECTION, contextValue: { responseBudget: budget } });
    allowance = Math.ceil(budget.answerBytes * 1.25);
    allowances.set(schema, allowance);
  }
  return allowance;
}

/**
 * Runs an operation without `@defer` or `@stream` whose resolvers do not wait (introspection) to its
 * whole answer. graphql-js's `execute` refuses a schema that declares those directives (ours does,
 * for yoga's executor); its incremental entry point runs it and answers in one part.
 */
export function executeWhole(args: ExecutionArgs): ExecutionResult {
  const result = experimentalExecuteIncrementally(args);
  if (isPromiseLike(result) || !('data' in result || 'errors' in result)) {
    throw new Error('an operation expected to answer at once answered later or in parts');
  }
  return result as ExecutionResult;
}

const WHOLE_INTROSPECTION = parse(
  getIntrospectionQuery({
    descriptions: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
    schemaDescription: true,
    inputValueDeprecation: true,
  }),
);

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * Bytes of `value` as JSON, estimated without serializing it (strings by their length, numbers
 * as 8), walking objects and arrays (the `JSON` scalar). An upstream body returned whole (a
 * document's `json`) is its body's size, known without a walk. The walk stops past 2^31 bytes.
 */
export function jsonBytes(value: unknown): number {
  if (typeof value === 'string') return value.length + 2;
  const body = bodySource(value);
  if (body) return body.bytes;
  if (value === null || value === undefined) return 4;
  if (typeof value !== 'object') return 8;
  if (value instanceof Date) return 26;
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && bytes < 2 ** 31) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      bytes += 2 + current.length;
      for (const item of current) stack.push(item);
    } else if (typeof current === 'object' && current !== null && !(current instanceof Date)) {
      bytes += 2;
      for (const [name, item] of Object.entries(current)) {
        bytes += name.length + 4;
        stack.push(item);
      }
    } else {
      bytes += jsonBytes(current);
    }
  }
  return bytes;
}
