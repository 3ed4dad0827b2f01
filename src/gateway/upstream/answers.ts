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
 * `operation` with its answers read by the schemas `answers` builds (on first use) instead of the
 * record's: the call is still made and named as the operation. Each use says why.
 */
export function answering<O extends Operation>(operation: O, answers: () => O['answers']): O {
  let built: O['answers'] | undefined;
  return Object.create(operation, { answers: { get: () => (built ??= answers()) } }) as O;
}

/** `operation` with its answer `status` read by the schema `reader` makes of the record's own (see `answering`). */
export function readingAnswer<P extends string, Q, B, S extends number, A>(
  operation: Operation<P, Q, B, { [K in S]: unknown }>,
  status: S,
  reader: (recorded: z.ZodType) => z.ZodType<A>,
): Operation<P, Q, B, { [K in S]: A }> {
  return answering(
    operation as Operation<P, Q, B, { [K in S]: A }>,
    () =>
      ({
        ...operation.answers,
        [status]: reader(answerOf(operation, status)!),
      }) as Operation<P, Q, B, { [K in S]: A }>['answers'],
  );
}
