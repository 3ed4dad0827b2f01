/**
 * Budgets of an OpenAPI document, checked on its parsed value before the validator sees it.
 *
 * The validator dereferences the document (every `$ref` replaced by what it points to, shared,
 * circular ones kept as references) and then walks the result: its work grows with the document
 * as if every reference were written out in full. Forty schemas each referring twice to the next
 * fit in 1.4 KB but write out to 2^40 nodes, minutes of CPU. So the size the document reaches
 * with its references written out is measured first, in time linear in the document (each
 * object's size is counted once and reused), and a document past a budget is refused at once.
 * Circular references count as one node, as the validator keeps them as references.
 *
 * Bytes are bounded where a text arrives (the API's body limit, `MAX_SPEC_BYTES` of a URL).
 */

/** Values (objects, arrays, scalars) a document may hold as written. */
export const MAX_SPEC_NODES = 1_000_000;
/** Deepest nesting of objects and arrays. */
export const MAX_SPEC_DEPTH = 256;
/** `$ref` references a document may hold. */
export const MAX_SPEC_REFS = 100_000;
/**
 * Values the document holds with every reference written out in full: what the validator walks.
 * About 2 s of validation in the reader's worker at this size.
 */
export const MAX_SPEC_EXPANDED_NODES = 2_000_000;
/** Longest chain of objects and references followed (the validator's own limit). */
export const MAX_SPEC_EXPANDED_DEPTH = 500;

/** A budget the document exceeds: which, by how much. */
export interface SpecOverBudget {
  limit: 'nodes' | 'depth' | 'references' | 'expandedNodes' | 'expandedDepth';
  /** The value found; for the expanded size, at least this (counting stops past the maximum). */
  value: number;
  max: number;
  message: string;
}

type Container = Record<string, unknown> | unknown[];

const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';
const children = (value: Container): unknown[] => (Array.isArray(value) ? value : Object.values(value));

/** The first budget a document exceeds, or undefined when it fits all of them. */
export function overBudget(document: Record<string, unknown>): SpecOverBudget | undefined {
  return writtenOverBudget(document) ?? expandedOverBudget(document);
}

/** Nodes, depth and references as written, counted without recursion (any depth is safe). */
function writtenOverBudget(document: Record<string, unknown>): SpecOverBudget | undefined {
  let nodes = 0;
  let refs = 0;
  const stack: Array<[value: unknown, depth: number]> = [[document, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    nodes += 1;
    if (nodes > MAX_SPEC_NODES)
      return over('nodes', nodes, MAX_SPEC_NODES, `The document holds more than ${MAX_SPEC_NODES} values`);
    if (!isContainer(value)) continue;
    if (depth > MAX_SPEC_DEPTH)
      return over('depth', depth, MAX_SPEC_DEPTH, `The document nests objects and arrays ${depth} levels deep`);
    if (!Array.isArray(value) && typeof value.$ref === 'string') {
      refs += 1;
      if (refs > MAX_SPEC_REFS)
        return over('references', refs, MAX_SPEC_REFS, `The document holds more than ${MAX_SPEC_REFS} $ref references`);
    }
    for (const child of children(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}

/** Thrown inside the expanded walk to stop it at the first budget exceeded. */
class Stop {
  constructor(readonly found: SpecOverBudget) {}
}

/**
 * The size of the document with its local references written out as the validator writes them
 * out: a reference whose target leads back into itself, at any depth, stays a reference (one
 * value), and so does any reference to something holding such a reference. Each object is
 * counted once (a reference to an object already counted adds its size again without walking
 * it). Recursive, but only over a document known to nest at most `MAX_SPEC_DEPTH` levels, and
 * never more than `MAX_SPEC_EXPANDED_DEPTH` calls deep.
 */
function expandedOverBudget(document: Record<string, unknown>): SpecOverBudget | undefined {
  const known = new Map<object, Expanded>();
  const onPath = new Set<object>();
  const expand = (value: unknown, depth: number): Expanded => {
    if (!isContainer(value)) return { size: 1, circular: false };
    const seen = known.get(value);
    if (seen) return seen;
    if (onPath.has(value)) return { size: 1, circular: true };
    if (depth > MAX_SPEC_EXPANDED_DEPTH) {
      throw new Stop(
        over(
          'expandedDepth',
          depth,
          MAX_SPEC_EXPANDED_DEPTH,
          `The document's references lead more than ${MAX_SPEC_EXPANDED_DEPTH} levels deep`,
        ),
      );
    }
    onPath.add(value);
    let result: Expanded = { size: 1, circular: false };
    if (!Array.isArray(value) && typeof value.$ref === 'string') {
      const target = localTarget(document, value.$ref);
      if (target !== undefined) {
        const written = expand(target, depth + 1);
        result = written.circular ? { size: 1, circular: true } : written;
      }
    } else {
      for (const child of children(value)) {
        const written = expand(child, depth + 1);
        result = { size: result.size + written.size, circular: result.circular || written.circular };
      }
    }
    onPath.delete(value);
    known.set(value, result);
    if (result.size > MAX_SPEC_EXPANDED_NODES) {
      const what = `The document's $ref references write out to at least ${result.size} values: a schema is referred to many times over`;
      throw new Stop(over('expandedNodes', result.size, MAX_SPEC_EXPANDED_NODES, what));
    }
    return result;
  };
  try {
    expand(document, 1);
    return undefined;
  } catch (error) {
    if (error instanceof Stop) return error.found;
    throw error;
  }
}

/** A value's size with its references written out, and whether a reference in it leads back into itself. */
interface Expanded {
  size: number;
  circular: boolean;
}

/** What a local reference (`#/a/b~1c`) points to in the document; undefined for others and dangling ones. */
function localTarget(document: Record<string, unknown>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === '') return document;
  if (!pointer.startsWith('/')) return undefined;
  let value: unknown = document;
  for (const token of pointer.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isContainer(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function over(limit: SpecOverBudget['limit'], value: number, max: number, what: string): SpecOverBudget {
  return { limit, value, max, message: `${what} (limit "${limit}": ${value}, at most ${max})` };
}
