/**
 * What the upstream modules read of an answer beyond its operation's record: the object a write
 * answers when the record also allows none, and a record whose answer the gateway reads more
 * leniently or more fully than the contract states (each use says why).
 */
import type { z } from 'zod';
import { UpstreamContractError } from '../errors.js';
import { answerOf, type Operation } from './record.js';

/**
 * The object a write answered. Some records also allow 204, the platform's answer to
 * `Prefer: return=minimal`, which the gateway never sends: a write answered without its object
 * leaves nothing to show, so it is UPSTREAM_INVALID_RESPONSE rather than a payload without it.
 */
export async function writtenObject<T>(write: Promise<{ status: number; data: T | undefined }>): Promise<T> {
  const { status, data } = await write;
  if (data === undefined) throw new UpstreamContractError(`The platform answered the write with ${status} and no body`);
  return data;
}

/**
 * `operation` with its answer `status` read by the schema `reader` makes of the record's own
 * (built on first use): the call is still made and named as the operation.
 */
export function readingAnswer<P extends string, Q, B, S extends number, A>(
  operation: Operation<P, Q, B, { [K in S]: unknown }>,
  status: S,
  reader: (recorded: z.ZodType) => z.ZodType<A>,
): Operation<P, Q, B, { [K in S]: A }> {
  let answer: z.ZodType<A> | undefined;
  return {
    operationId: operation.operationId,
    method: operation.method,
    path: operation.path,
    pathParams: operation.pathParams,
    queryParams: operation.queryParams,
    get query() {
      return operation.query;
    },
    get body() {
      return operation.body;
    },
    get answers() {
      answer ??= reader(answerOf(operation, status)!);
      return { [status]: answer } as { [K in S]: z.ZodType<A> };
    },
  };
}
