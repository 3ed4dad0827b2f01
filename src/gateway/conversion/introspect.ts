import { buildSchema, type DirectiveLocation, GraphQLDirective, GraphQLSchema, parse } from 'graphql';
import { executeWhole } from '../policy/answer-size.js';
import { hookFields } from '../policy/field-hooks.js';
import { ResponseBudget } from '../upstream/response-budget.js';

/**
 * Introspection as a worker thread of the pool answers it. The answer to an introspection
 * depends on the schema alone, and graphql-js builds it without a pause: the whole schema's takes
 * about 100 ms, and an operation within the introspection bound (`introspectionAllowance`) up
 * to a few hundred. In a worker, that time is not taken from the gateway's other requests. The
 * worker builds the schema from its SDL (what introspection answers is all in it), once.
 */

/** An introspection-only operation, as a worker thread receives it. */
export interface IntrospectionJob {
  kind: 'introspection';
  /**
   * The schema: its SDL (`printSchema`), its types' names and its directives with their locations,
   * in the order introspection lists them (an SDL leaves out the built-in directives, which the
   * worker's graphql-js may list otherwise).
   */
  schema: { sdl: string; types: string[]; directives: Array<{ name: string; locations: DirectiveLocation[] }> };
  /** The operation's document, printed. */
  query: string;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
  /** Bytes the answer may still have (what is left of the request's answer budget). */
  maxBytes: number;
}

/**
 * Its outcome: the answer as JSON text with the bytes counted (all of them introspection), or
 * the refusal the answer budget or the introspection bound made.
 */
export type IntrospectionOutcome =
  | { output: string; answerBytes: number }
  | { refused: { what: 'answer' | 'introspection'; value: number; max: number } };

let built: { sdl: string; schema: GraphQLSchema } | undefined;

/** The schema built from its SDL, its types in the gateway's order (what `__schema.types` lists). */
function schemaOf({ sdl, types, directives }: IntrospectionJob['schema']): GraphQLSchema {
  if (built?.sdl !== sdl) {
    const config = buildSchema(sdl).toConfig();
    const schema = new GraphQLSchema({
      ...config,
      types: inOrder(config.types, types),
      directives: inOrder(config.directives, directives).map(
        (directive, i) => new GraphQLDirective({ ...directive.toConfig(), locations: directives[i]!.locations }),
      ),
    });
    built = { sdl, schema: hookFields(schema) };
  }
  return built.schema;
}

/** `items` in the order of `names` (each of which is one of them). */
function inOrder<T extends { name: string }>(items: readonly T[], names: Array<string | { name: string }>): T[] {
  const byName = new Map(items.map((item) => [item.name, item]));
  return names.map((name) => byName.get(typeof name === 'string' ? name : name.name)!);
}

/** Answers an introspection job: what a worker thread does with one. */
export function introspect(job: IntrospectionJob): IntrospectionOutcome {
  const budget = new ResponseBudget(job.maxBytes);
  const result = executeWhole({
    schema: schemaOf(job.schema),
    document: parse(job.query),
    variableValues: job.variables,
    operationName: job.operationName,
    contextValue: { responseBudget: budget },
  });
  const refused = budget.exceeded;
  if (refused)
    return {
      refused: { what: refused.what === 'upstream' ? 'answer' : refused.what, value: refused.value, max: refused.max },
    };
  return { output: JSON.stringify(result), answerBytes: budget.answerBytes };
}
