import type { Block, DocumentNode, JSONDocument, Text } from '../../document/model.js';
import { evaluate, ExpressionError, parseExpression, type Expression } from './expression.js';

/**
 * A document evaluated for reading (`evaluated` of the page reads): conditional (`if`) blocks are
 * replaced by their content when their expression holds and removed when it does not, and
 * expression inlines by the text of their value. With `deterministic-only`, only what does not
 * depend on the visitor is evaluated (expressions reading `visitor` stay as they are); with
 * `true`, the visitor is the one given (no claims for an API reader). An expression that does
 * not parse is left as it is.
 */

/** What expressions read: the variables of the space and of the page, and the visitor's claims. */
export interface EvaluationContext {
  space: { vars: Record<string, unknown> };
  page: { vars: Record<string, unknown> };
  visitor: { claims: Record<string, unknown> };
}

function readsVisitor(expression: Expression): boolean {
  switch (expression.kind) {
    case 'path':
      return expression.root === 'visitor';
    case 'literal':
      return false;
    case 'not':
      return readsVisitor(expression.operand);
    default:
      return readsVisitor(expression.left) || readsVisitor(expression.right);
  }
}

/** The parsed expression, or undefined when it does not parse or must wait for the visitor. */
function usable(source: unknown, deterministicOnly: boolean): Expression | undefined {
  if (typeof source !== 'string') return undefined;
  try {
    const expression = parseExpression(source);
    return deterministicOnly && readsVisitor(expression) ? undefined : expression;
  } catch (error) {
    if (error instanceof ExpressionError) return undefined;
    throw error;
  }
}

const textOf = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

/**
 * Documents `evaluateForVisitor` answered. Nothing is left to evaluate in them (every condition
 * decided, every expression that parses replaced), and a visitor's reads are evaluated already
 * when a page read asks for `evaluated`: such a document is answered as it is, not walked again.
 */
const evaluatedForVisitor = new WeakSet<JSONDocument>();

/** Evaluates a document for reading; `mode` is the `evaluated` parameter. */
export function evaluateDocument(
  document: JSONDocument,
  mode: 'true' | 'deterministic-only',
  context: EvaluationContext,
): JSONDocument {
  if (evaluatedForVisitor.has(document)) return document;
  return evaluateNodes(document, mode === 'deterministic-only', context, undefined);
}

/**
 * A document as a site visitor sees it: evaluated for their claims, where a conditional block
 * whose expression does not parse is hidden rather than shown (a visitor sees what a condition
 * allows, never what it failed to decide). `hidden` counts the conditional blocks left out.
 */
export function evaluateForVisitor(
  document: JSONDocument,
  context: EvaluationContext,
): { document: JSONDocument; hidden: number } {
  const count = { hidden: 0 };
  const evaluated = evaluateNodes(document, false, context, count);
  evaluatedForVisitor.add(evaluated);
  return { document: evaluated, hidden: count.hidden };
}

/** Evaluates a document; with `strict`, unusable conditions hide their block and hidden blocks are counted. */
function evaluateNodes(
  document: JSONDocument,
  deterministicOnly: boolean,
  context: EvaluationContext,
  strict: { hidden: number } | undefined,
): JSONDocument {
  const scope = context as unknown as Record<string, unknown>;
  const visit = (nodes: readonly DocumentNode[]): DocumentNode[] =>
    nodes.flatMap((node): DocumentNode[] => {
      if (node.object === 'block' && node.type === 'if') {
        const expression = usable((node.data as { expression?: unknown }).expression, deterministicOnly);
        if (expression && evaluate(expression, scope)) return visit((node as { nodes?: DocumentNode[] }).nodes ?? []);
        if (expression || strict) {
          if (strict) strict.hidden += 1;
          return [];
        }
      }
      if (node.object === 'inline' && node.type === 'expression') {
        const expression = usable((node.data as { expression?: unknown }).expression, deterministicOnly);
        if (expression) {
          const text: Text = {
            object: 'text',
            key: node.key,
            leaves: [{ object: 'leaf', text: textOf(evaluate(expression, scope)), marks: [] }],
          };
          return [text];
        }
      }
      const copy = { ...node } as DocumentNode & { nodes?: DocumentNode[]; fragments?: DocumentNode[] };
      if (Array.isArray(copy.nodes)) copy.nodes = visit(copy.nodes);
      if (Array.isArray(copy.fragments)) copy.fragments = visit(copy.fragments);
      return [copy];
    });
  return { ...document, nodes: visit(document.nodes) as Block[] };
}
