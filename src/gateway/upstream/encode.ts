import { BadUserInputError } from '../errors.js';

/** Half of a UTF-16 surrogate pair standing alone: such text has no URI encoding. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * URI-encodes one part of an id or a path; text that has no encoding (a lone surrogate) is
 * BAD_USER_INPUT, not a crash.
 */
export function encodePart(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    throw new BadUserInputError('An id must be well-formed text: it holds half of a UTF-16 surrogate pair');
  }
}
