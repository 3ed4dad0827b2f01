import {
  getOperationAST,
  Kind,
  print,
  printSchema,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import { perDocument } from '../per-document.js';
import { ResponseTooLargeError } from '../errors.js';
import type { IntrospectionJob } from './introspect.js';
import type { ConversionPool } from './pool.js';

/**
 * Operations that only introspect (`__schema`, `__type`) are answered by the pool's worker
 * threads (`introspect.ts`): the answer depends on the schema alone, and building it holds a
 * thread for 100 ms or more. It is counted as on this thread: in the answer's byte budget, the
 * introspection bound, and the gateway's work in points. Without workers, or when a worker
 * fails, the operation runs here as before.
 */
export function useIntrospectionInWorkers(pool: ConversionPool): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      if (!pool.available || !onlyIntrospection(args.document, args.operationName)) return;
      setExecuteFn(async (execution) => (await inWorker(pool, execution)) ?? executeFn(execution));
    },
  };
}

async function inWorker(pool: ConversionPool, execution: ExecutionArgs): Promise<ExecutionResult | undefined> {
  const ctx = execution.contextValue as GatewayContext;
  const budget = ctx.responseBudget;
  const job = {
    kind: 'introspection' as const,
    schema: describeSchema(execution.schema),
    query: print(execution.document),
    variables: (execution.variableValues ?? undefined) as Record<string, unknown> | undefined,
    operationName: execution.operationName ?? undefined,
    maxBytes: budget.max - budget.answerBytes,
  };
  const outcome = await pool.run(job, ctx.request.signal).catch(() => undefined);
  if (!outcome || 'invalid' in outcome) return undefined;
  if ('refused' in outcome) {
    const { what, value, max } = outcome.refused;
    ctx.work.add('introspection', value);
    return { data: null, errors: [budget.exceed(new ResponseTooLargeError(what, value, max))] };
  }
  ctx.work.add('introspection', outcome.answerBytes);
  budget.answerBytes += outcome.answerBytes;
  budget.introspectionBytes += outcome.answerBytes;
  return JSON.parse(outcome.output) as ExecutionResult;
}

/** Whether the operation asks `__schema` or `__type`, and nothing but introspection: once per document. */
const onlyIntrospection = perDocument((document: DocumentNode, operationName: string | null | undefined): boolean => {
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [],
    ),
  );
  let asksSchema = false;
  const visited = new Set<string>();
  const walk = (selections: SelectionSetNode): boolean =>
    selections.selections.every((selection) => {
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '__schema' || name === '__type') asksSchema = true;
        return name.startsWith('__');
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return walk(selection.selectionSet);
      const name = selection.name.value;
      if (visited.has(name)) return true;
      visited.add(name);
      const fragment = fragments.get(name);
      return fragment !== undefined && walk(fragment);
    });
  return walk(operation.selectionSet) && asksSchema;
});

const described = new WeakMap<GraphQLSchema, IntrospectionJob['schema']>();

/** The schema as the workers build theirs: its SDL and its types' order, made once. */
export function describeSchema(schema: GraphQLSchema): IntrospectionJob['schema'] {
  let description = described.get(schema);
  if (description === undefined) {
    description = {
      sdl: printSchema(schema),
      types: Object.keys(schema.getTypeMap()),
      directives: schema.getDirectives().map(({ name, locations }) => ({ name, locations: [...locations] })),
    };
    described.set(schema, description);
  }
  return description;
}
