import { describe, expect, it } from 'vitest';
import { evaluate, ExpressionError, holds, parseExpression } from '../../src/platform/adaptive/expression.js';

const visitor = (claims: Record<string, unknown>) => ({ visitor: { claims } });

describe('adaptive content conditions', () => {
  it('evaluates property paths, comparisons, negation and boolean operators against the visitor claims', () => {
    const pro = visitor({ plan: 'pro', seats: 12, unsigned: { beta: true, region: 'eu' } });
    const free = visitor({ plan: 'free', seats: 1, unsigned: {} });
    const cases: Array<[string, boolean, boolean]> = [
      ['visitor.claims.plan == "pro"', true, false],
      ["visitor.claims.plan === 'pro'", true, false],
      ['visitor.claims.plan != "pro"', false, true],
      ['visitor.claims.unsigned.beta', true, false],
      ['!visitor.claims.unsigned.beta', false, true],
      ['visitor.claims.unsigned.beta && visitor.claims.unsigned.region == "eu"', true, false],
      ['visitor.claims.unsigned.beta || visitor.claims.seats >= 1', true, true],
      ['visitor.claims.seats > 10 && !(visitor.claims.plan == "free")', true, false],
      ['visitor.claims["plan"] == "pro"', true, false],
      ['visitor.claims.missing.deeper == undefined', true, true],
      ['visitor.claims.seats == "12"', false, false],
      ['visitor.claims.plan < 3', false, false],
      ['true', true, true],
    ];
    for (const [source, forPro, forFree] of cases) {
      expect(holds(source, pro), source).toBe(forPro);
      expect(holds(source, free), source).toBe(forFree);
    }
    expect(evaluate(parseExpression('space.vars.product'), { space: { vars: { product: 'Acme' } } })).toBe('Acme');
    expect(holds('visitor.claims.plan == "pro"', {})).toBe(false);
  });

  it('refuses hostile or unknown expressions when parsing them, before anything runs', () => {
    const refused: Array<[string, RegExp]> = [
      ['visitor.constructor', /"constructor" cannot be read/],
      ['visitor.claims.__proto__.polluted', /"__proto__" cannot be read/],
      ['visitor["constructor"]["prototype"]', /"constructor" cannot be read/],
      ['visitor.claims.toString()', /calls are not allowed/],
      ['process.exit(1)', /"process" is not something a condition can read/],
      ['this.x', /"this" is not something/],
      ['visitor.claims.plan = "pro"', /"=" is not allowed/],
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal as the expression's source text
      ['`${visitor}`', /"`" is not allowed/],
      ['visitor.claims.a, visitor.claims.b', /"," is not allowed/],
      ['visitor.claims.plan == "pro', /a string is not closed/],
      ['(visitor.claims.a', /expected "\)"/],
      ['visitor.claims.a &&', /ends too early/],
      ['', /empty/],
      ['a'.repeat(1025), /at most 1024 characters/],
      [`${'('.repeat(500)}true${')'.repeat(500)}`, /nested too deeply/],
    ];
    for (const [source, message] of refused) {
      expect(() => parseExpression(source), source.slice(0, 60)).toThrow(ExpressionError);
      expect(() => parseExpression(source), source.slice(0, 60)).toThrow(message);
    }
    // Reading never reaches inherited properties of the data either.
    expect(holds('visitor.claims.toString', visitor({}))).toBe(false);
    expect(holds('visitor.claims.length == 0', visitor({}))).toBe(false);
  });

  it('says where an expression goes wrong', () => {
    try {
      parseExpression('visitor.claims.plan == == "pro"');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ExpressionError);
      expect((error as ExpressionError).position).toBe(23);
      expect((error as Error).message).toBe('unexpected "==" (at character 24)');
    }
  });
});
