/**
 * Rison, the URI-friendly spelling of JSON that the preview of a site takes its visitor claims in
 * (`(plan:pro,beta:!t,teams:!(a,b))`): objects in `( )`, arrays in `!( )`, `!t`, `!f`, `!n`,
 * strings bare (letters, digits and `-_./~`, not starting with a digit or `-`) or quoted with `'`
 * (`!'` and `!!` escape a quote and a `!`), numbers as JSON writes them. A pure library: no I/O.
 * Bounded: the caller's text is at most MAX_RISON_LENGTH characters, nested MAX_RISON_DEPTH deep.
 */

/** Longest text parsed. */
export const MAX_RISON_LENGTH = 4096;
/** Deepest nesting of objects and arrays. */
export const MAX_RISON_DEPTH = 16;

/** Rison that does not parse, with where and why. */
export class RisonError extends Error {
  override readonly name = 'RisonError';
}

const ID_START = /[A-Za-z_./~]/;
const ID_CHAR = /[A-Za-z0-9_./~-]/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/;

/** Parses one Rison value (the whole text); throws `RisonError` when it is not one. */
export function parseRison(text: string): unknown {
  if (text.length > MAX_RISON_LENGTH)
    throw new RisonError(`is ${text.length} characters long, more than the ${MAX_RISON_LENGTH} allowed`);
  let at = 0;
  const fail = (why: string): never => {
    throw new RisonError(`${why} at character ${at + 1}`);
  };
  const value = (depth: number): unknown => {
    const c = text[at];
    const opens = c === '(' || (c === '!' && text[at + 1] === '(');
    if (opens && depth >= MAX_RISON_DEPTH) fail(`is nested more than ${MAX_RISON_DEPTH} deep`);
    if (c === undefined) return fail('ends early');
    if (c === '(') return object(depth + 1);
    if (c === "'") return quoted();
    if (c === '!') {
      const next = text[at + 1];
      at += 2;
      if (next === 't') return true;
      if (next === 'f') return false;
      if (next === 'n') return null;
      if (next === '(') return array(depth + 1);
      at -= 2;
      return fail('has an unknown "!" escape');
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const match = NUMBER.exec(text.slice(at));
      if (!match) return fail('has a malformed number');
      at += match[0].length;
      return Number(match[0]);
    }
    return bare();
  };
  const bare = (): string => {
    const start = at;
    if (!ID_START.test(text[at] ?? '')) fail('has an unexpected character');
    while (at < text.length && ID_CHAR.test(text[at]!)) at += 1;
    return text.slice(start, at);
  };
  const quoted = (): string => {
    at += 1;
    let out = '';
    for (;;) {
      const c = text[at];
      if (c === undefined) return fail('has an unterminated string');
      at += 1;
      if (c === "'") return out;
      if (c === '!') {
        const escaped = text[at];
        if (escaped !== '!' && escaped !== "'") return fail('has an unknown "!" escape in a string');
        out += escaped;
        at += 1;
      } else out += c;
    }
  };
  const object = (depth: number): Record<string, unknown> => {
    at += 1;
    const out: Record<string, unknown> = {};
    if (text[at] === ')') {
      at += 1;
      return out;
    }
    for (;;) {
      const key = text[at] === "'" ? quoted() : bare();
      if (text[at] !== ':') fail('misses ":" after a key');
      at += 1;
      // Keys such as `__proto__` are data here, never the object's prototype.
      Object.defineProperty(out, key, { value: value(depth), enumerable: true, writable: true, configurable: true });
      if (text[at] === ')') {
        at += 1;
        return out;
      }
      if (text[at] !== ',') fail('misses "," or ")" in an object');
      at += 1;
    }
  };
  const array = (depth: number): unknown[] => {
    const out: unknown[] = [];
    if (text[at] === ')') {
      at += 1;
      return out;
    }
    for (;;) {
      out.push(value(depth));
      if (text[at] === ')') {
        at += 1;
        return out;
      }
      if (text[at] !== ',') fail('misses "," or ")" in an array');
      at += 1;
    }
  };
  const result = value(0);
  if (at !== text.length) fail('has text after its value');
  return result;
}
