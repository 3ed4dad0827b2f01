/**
 * Adaptive-content conditions: the small expression language of page, site space and section
 * conditions (`visitor.claims.unsigned.beta && visitor.claims.plan == "pro"`). A hand-written
 * parser for exactly this grammar, never `eval` or `Function`:
 *
 *   expression := or
 *   or         := and ( "||" and )*
 *   and        := unary ( "&&" unary )*
 *   unary      := "!" unary | comparison
 *   comparison := primary ( ( "==" | "===" | "!=" | "!==" | "<" | "<=" | ">" | ">=" ) primary )?
 *   primary    := literal | path | "(" expression ")"
 *   literal    := "string" | 'string' | number | true | false | null | undefined
 *   path       := name ( "." name | "[" string "]" | "[" integer "]" )*
 *
 * A path starts at one of the roots the caller gives (`visitor`, `space`, `page`) and reads own
 * properties of plain data only: `constructor`, `__proto__` and `prototype` are refused when the
 * expression is parsed, and so are calls, assignments and anything else outside the grammar.
 * `==` compares like `===` (no coercion); `<` and friends compare two numbers or two strings and
 * are false otherwise; a missing property is `undefined`; `&&`, `||` and `!` work on truthiness
 * and give booleans.
 */

/** Longest expression accepted (the API's `Expression`). */
export const MAX_EXPRESSION_LENGTH = 1024;
/** Deepest nesting of parentheses and operators. */
const MAX_DEPTH = 64;

const FORBIDDEN = new Set([
  'constructor',
  '__proto__',
  'prototype',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
]);

/** An expression outside the grammar, with where it went wrong. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  constructor(
    message: string,
    /** Zero-based offset in the expression. */
    readonly position: number,
  ) {
    super(`${message} (at character ${position + 1})`);
  }
}

export type Expression =
  | { kind: 'literal'; value: string | number | boolean | null | undefined }
  | { kind: 'path'; root: string; keys: Array<string | number> }
  | { kind: 'not'; operand: Expression }
  | { kind: 'and' | 'or'; left: Expression; right: Expression }
  | { kind: 'compare'; operator: '==' | '!=' | '<' | '<=' | '>' | '>='; left: Expression; right: Expression };

type Token =
  | { type: 'name'; value: string; at: number }
  | { type: 'string'; value: string; at: number }
  | { type: 'number'; value: number; at: number }
  | { type: 'op'; value: string; at: number }
  | { type: 'end'; at: number };

const OPERATORS = ['===', '!==', '==', '!=', '<=', '>=', '&&', '||', '<', '>', '!', '(', ')', '[', ']', '.'];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const char = source[i]!;
    if (/\s/.test(char)) {
      i += 1;
      continue;
    }
    if (/[A-Za-z_$]/.test(char)) {
      const start = i;
      while (i < source.length && /[\w$]/.test(source[i]!)) i += 1;
      tokens.push({ type: 'name', value: source.slice(start, i), at: start });
      continue;
    }
    if (/[0-9]/.test(char) || (char === '-' && /[0-9]/.test(source[i + 1] ?? '') && !endsOperand(tokens))) {
      const start = i;
      i += 1;
      while (i < source.length && /[0-9.]/.test(source[i]!)) i += 1;
      const text = source.slice(start, i);
      if (!/^-?\d+(\.\d+)?$/.test(text)) throw new ExpressionError(`"${text}" is not a number`, start);
      tokens.push({ type: 'number', value: Number(text), at: start });
      continue;
    }
    if (char === '"' || char === "'") {
      const start = i;
      let value = '';
      i += 1;
      for (;;) {
        if (i >= source.length) throw new ExpressionError('a string is not closed', start);
        const next = source[i]!;
        if (next === char) break;
        if (next === '\\') {
          const escaped = source[i + 1];
          if (escaped === undefined) throw new ExpressionError('a string is not closed', start);
          value += escaped === 'n' ? '\n' : escaped === 't' ? '\t' : escaped;
          i += 2;
          continue;
        }
        value += next;
        i += 1;
      }
      i += 1;
      tokens.push({ type: 'string', value, at: start });
      continue;
    }
    const operator = OPERATORS.find((candidate) => source.startsWith(candidate, i));
    if (!operator)
      throw new ExpressionError(
        `"${char}" is not allowed: only property paths, literals, comparisons, !, && and || are`,
        i,
      );
    tokens.push({ type: 'op', value: operator, at: i });
    i += operator.length;
  }
  tokens.push({ type: 'end', at: source.length });
  return tokens;
}

/** True when the last token ends an operand (so a `-` after it would be an operator). */
function endsOperand(tokens: readonly Token[]): boolean {
  const last = tokens.at(-1);
  return (
    last !== undefined &&
    (last.type === 'name' ||
      last.type === 'number' ||
      last.type === 'string' ||
      (last.type === 'op' && (last.value === ')' || last.value === ']')))
  );
}

/**
 * Parses a condition. `roots` are the names a path may start with. Throws an `ExpressionError`
 * for anything outside the grammar, before anything runs.
 */
export function parseExpression(source: string, roots: readonly string[] = ['visitor', 'space', 'page']): Expression {
  if (source.length > MAX_EXPRESSION_LENGTH)
    throw new ExpressionError(
      `an expression may have at most ${MAX_EXPRESSION_LENGTH} characters`,
      MAX_EXPRESSION_LENGTH,
    );
  if (source.trim() === '') throw new ExpressionError('the expression is empty', 0);
  const tokens = tokenize(source);
  let index = 0;
  const peek = () => tokens[index]!;
  const isOp = (value: string) => {
    const token = peek();
    return token.type === 'op' && token.value === value;
  };
  const expect = (value: string) => {
    if (!isOp(value)) throw new ExpressionError(`expected "${value}"`, peek().at);
    index += 1;
  };

  const or = (depth: number): Expression => {
    if (depth > MAX_DEPTH) throw new ExpressionError('the expression is nested too deeply', peek().at);
    let left = and(depth + 1);
    while (isOp('||')) {
      index += 1;
      left = { kind: 'or', left, right: and(depth + 1) };
    }
    return left;
  };
  const and = (depth: number): Expression => {
    let left = unary(depth + 1);
    while (isOp('&&')) {
      index += 1;
      left = { kind: 'and', left, right: unary(depth + 1) };
    }
    return left;
  };
  const unary = (depth: number): Expression => {
    if (depth > MAX_DEPTH) throw new ExpressionError('the expression is nested too deeply', peek().at);
    if (isOp('!')) {
      index += 1;
      return { kind: 'not', operand: unary(depth + 1) };
    }
    return comparison(depth + 1);
  };
  const comparison = (depth: number): Expression => {
    const left = primary(depth + 1);
    const token = peek();
    if (token.type === 'op' && ['==', '===', '!=', '!==', '<', '<=', '>', '>='].includes(token.value)) {
      index += 1;
      const operator = (token.value === '===' ? '==' : token.value === '!==' ? '!=' : token.value) as Extract<
        Expression,
        { kind: 'compare' }
      >['operator'];
      return { kind: 'compare', operator, left, right: primary(depth + 1) };
    }
    return left;
  };
  const primary = (depth: number): Expression => {
    const token = peek();
    if (token.type === 'op' && token.value === '(') {
      index += 1;
      const inner = or(depth + 1);
      expect(')');
      return inner;
    }
    if (token.type === 'string' || token.type === 'number') {
      index += 1;
      return { kind: 'literal', value: token.value };
    }
    if (token.type === 'name') {
      index += 1;
      const literals: Record<string, boolean | null | undefined> = {
        true: true,
        false: false,
        null: null,
        undefined: undefined,
      };
      if (token.value in literals) return { kind: 'literal', value: literals[token.value] };
      if (!roots.includes(token.value)) {
        throw new ExpressionError(
          `"${token.value}" is not something a condition can read: start from ${roots.join(', ')}`,
          token.at,
        );
      }
      const keys: Array<string | number> = [];
      for (;;) {
        if (isOp('.')) {
          index += 1;
          const name = peek();
          if (name.type !== 'name') throw new ExpressionError('expected a property name after "."', name.at);
          index += 1;
          keys.push(checkKey(name.value, name.at));
        } else if (isOp('[')) {
          index += 1;
          const key = peek();
          if (key.type !== 'string' && !(key.type === 'number' && Number.isInteger(key.value) && key.value >= 0)) {
            throw new ExpressionError('expected a quoted property name or an index in "[…]"', key.at);
          }
          index += 1;
          keys.push(key.type === 'string' ? checkKey(key.value, key.at) : key.value);
          expect(']');
        } else {
          break;
        }
      }
      if (isOp('(')) throw new ExpressionError('calls are not allowed', peek().at);
      return { kind: 'path', root: token.value, keys };
    }
    if (token.type === 'end') throw new ExpressionError('the expression ends too early', token.at);
    throw new ExpressionError(`unexpected "${token.value}"`, token.at);
  };

  const expression = or(0);
  const rest = peek();
  if (rest.type !== 'end')
    throw new ExpressionError(
      rest.type === 'op' && rest.value === '(' ? 'calls are not allowed' : `unexpected "${String(rest.value)}"`,
      rest.at,
    );
  return expression;
}

function checkKey(name: string, at: number): string {
  if (FORBIDDEN.has(name)) throw new ExpressionError(`"${name}" cannot be read`, at);
  return name;
}

type Value = unknown;

/** Reads a property of plain data only: own properties of objects and arrays, nothing inherited. */
function read(from: Value, key: string | number): Value {
  if (from === null || typeof from !== 'object') return undefined;
  if (Array.isArray(from)) return typeof key === 'number' || /^\d+$/.test(key) ? from[Number(key)] : undefined;
  return Object.hasOwn(from, key) ? (from as Record<string, unknown>)[key as string] : undefined;
}

const truthy = (value: Value): boolean => Boolean(value);

/** Evaluates a parsed condition against a context (`{ visitor: { claims }, space: { vars }, … }`). */
export function evaluate(expression: Expression, context: Readonly<Record<string, unknown>>): Value {
  switch (expression.kind) {
    case 'literal':
      return expression.value;
    case 'path':
      return expression.keys.reduce<Value>(
        (value, key) => read(value, key),
        Object.hasOwn(context, expression.root) ? context[expression.root] : undefined,
      );
    case 'not':
      return !truthy(evaluate(expression.operand, context));
    case 'and':
      return truthy(evaluate(expression.left, context)) && truthy(evaluate(expression.right, context));
    case 'or':
      return truthy(evaluate(expression.left, context)) || truthy(evaluate(expression.right, context));
    case 'compare': {
      const left = evaluate(expression.left, context);
      const right = evaluate(expression.right, context);
      switch (expression.operator) {
        case '==':
          return left === right;
        case '!=':
          return left !== right;
        default: {
          const comparable =
            (typeof left === 'number' && typeof right === 'number') ||
            (typeof left === 'string' && typeof right === 'string');
          if (!comparable) return false;
          const [a, b] = [left as number | string, right as number | string];
          return expression.operator === '<'
            ? a < b
            : expression.operator === '<='
              ? a <= b
              : expression.operator === '>'
                ? a > b
                : a >= b;
        }
      }
    }
  }
}

/** True when the condition holds in the context (a condition is shown when it is truthy). */
export function holds(source: string, context: Readonly<Record<string, unknown>>): boolean {
  return truthy(evaluate(parseExpression(source), context));
}
