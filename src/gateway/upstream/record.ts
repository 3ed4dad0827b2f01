/**
 * The operation records of the generated contract (`contract/operations.js`, from the API description
 * and its overlay): what an upstream call is made from, and what every reader of one (metrics,
 * traces, logs, the response cache, explain) names it by.
 */
import type { z } from 'zod';
import { encodePart } from './encode.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One operation of the API, as the generated contract records it. Its schemas are built on first use. */
export interface Operation<
  PathParam extends string = string,
  QueryShape = unknown,
  Body = unknown,
  Answers extends Record<number, unknown> = Record<number, unknown>,
> {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** The path template below the API's base (`/spaces/{spaceId}`). */
  readonly path: string;
  readonly pathParams: readonly PathParam[];
  readonly queryParams: readonly string[];
  /** The description's groups of the operation (`spaces`, `space-content` …), its own first. */
  readonly tags: readonly string[];
  readonly query: z.ZodType<QueryShape> | undefined;
  readonly body: z.ZodType<Body> | undefined;
  /** The schema of each successful answer by status; undefined for an answer without a body. */
  readonly answers: { readonly [Status in keyof Answers]: z.ZodType<Answers[Status]> | undefined };
}

/** What names an upstream call in metrics, traces and logs: its operation, or its path for a signed URL. */
export type CallName = Pick<Operation, 'operationId' | 'path'>;

/** The values of an operation's path parameters, by name. */
export type ParamsOf<O> = O extends Operation<infer P> ? { readonly [K in P]: string } : never;

/** The query an operation takes (undefined when it takes none). */
export type QueryOf<O> = O extends Operation<string, infer Q> ? ([Q] extends [never] ? undefined : Partial<Q>) : never;

/** The body an operation takes. */
export type BodyOf<O> = O extends Operation<string, unknown, infer B> ? B : never;

/** What a successful answer of the operation holds (undefined for one without a body). */
export type AnswerOf<O> = O extends Operation<string, unknown, unknown, infer A> ? A[keyof A] : never;

/** Path parameters whose values are paths themselves (a page's path): encoded one segment at a time. */
const PATH_VALUED = new Set(['pagePath']);

/**
 * The path of a call of `operation`, each parameter URI-encoded so that no id can change the route
 * (a value with no encoding is BAD_USER_INPUT).
 */
export function pathOf(operation: Operation, params: Readonly<Record<string, string>>): string {
  return operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operation.operationId} is called without its ${name}`);
    return PATH_VALUED.has(name) ? value.split('/').map(encodePart).join('/') : encodePart(value);
  });
}

/** The schema of the answer `status` of `operation`, or of its first successful answer with a body. */
export function answerOf(operation: Operation, status?: number): z.ZodType | undefined {
  const answers = operation.answers as Record<number, z.ZodType | undefined>;
  if (status !== undefined) return answers[status];
  return Object.values(answers).find((schema) => schema !== undefined);
}
