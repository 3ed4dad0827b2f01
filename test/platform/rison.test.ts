import { describe, expect, it } from 'vitest';
import { MAX_RISON_DEPTH, MAX_RISON_LENGTH, parseRison, RisonError } from '../../src/platform/sites/rison.js';

describe('Rison', () => {
  it('reads objects, arrays, literals, numbers, bare and quoted strings', () => {
    expect(parseRison("(plan:pro,beta:!t,off:!f,none:!n,n:-1.5e2,tags:!(a,'b c',!()),q:'it!'s !!',e:())")).toEqual({
      plan: 'pro',
      beta: true,
      off: false,
      none: null,
      n: -150,
      tags: ['a', 'b c', []],
      q: "it's !",
      e: {},
    });
  });

  it('keeps __proto__ as a key, not a prototype', () => {
    const value = parseRison('(__proto__:(admin:!t))') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__']);
  });

  it('refuses malformed text, saying where', () => {
    for (const [text, why] of [
      ['(a:1', 'misses "," or ")" in an object at character 5'],
      ["'open", 'has an unterminated string at character 6'],
      ['!x', 'has an unknown "!" escape at character 1'],
      ['(a:1)x', 'has text after its value at character 6'],
      ['(a 1)', 'misses ":" after a key at character 3'],
    ] as const) {
      expect(() => parseRison(text)).toThrow(new RisonError(why));
    }
  });

  it('bounds length and depth', () => {
    expect(() => parseRison('a'.repeat(MAX_RISON_LENGTH + 1))).toThrow(/more than the 4096 allowed/);
    const deep = `${'!('.repeat(MAX_RISON_DEPTH + 1)}${')'.repeat(MAX_RISON_DEPTH + 1)}`;
    expect(() => parseRison(deep)).toThrow(/nested more than 16 deep/);
    const fits = `${'!('.repeat(MAX_RISON_DEPTH)}${')'.repeat(MAX_RISON_DEPTH)}`;
    expect(() => parseRison(fits)).not.toThrow();
  });
});
