/**
 * Where the gateway reads an answer otherwise than its operation's record says: each use says why
 * (a field the platform answers beyond the description, a value kept whole). The call still goes
 * through the record, so metrics, traces and logs name it by its operation.
 */
import type { Operation } from './record.js';

/** `operation` with its answers read by the schemas `answers` builds (on first use) instead of the record's. */
export function answering<O extends Operation>(operation: O, answers: () => O['answers']): O {
  let built: O['answers'] | undefined;
  return Object.create(operation, { answers: { get: () => (built ??= answers()) } }) as O;
}
