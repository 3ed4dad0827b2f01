import {
  experimentalExecuteIncrementally,
  type ExecutionArgs,
  type ExecutionResult,
  getIntrospectionQuery,
  parse,
  type GraphQLSchema,
} from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { bodySource } from '../upstream/bodies.js';
import { ResponseBudget } from '../upstream/response-budget.js';
import { HEAVY_BYTES, ownTurn } from '../upstream/turns.js';

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

const allowances = new WeakMap<GraphQLSchema, number>();

/**
 * The bytes of introspection one operation may have: a quarter more than the answer to the whole
 * schema's introspection as GraphiQL and codegen ask it (descriptions and all), counted by the
 * schema's field hooks (`hookFields`) as any answer, once per schema. The schema grows with the API, and the bound with it.
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

/** Whether `value` is a promise or another thenable. */
export function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
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
