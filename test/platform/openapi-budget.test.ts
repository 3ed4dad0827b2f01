import { describe, expect, it } from 'vitest';
import {
  MAX_SPEC_DEPTH,
  MAX_SPEC_EXPANDED_NODES,
  MAX_SPEC_NODES,
  MAX_SPEC_REFS,
  overBudget,
} from '../../src/platform/openapi/budget.js';
import { readSpec } from '../../src/platform/openapi/parse.js';
import { readTimeoutMs } from '../../src/platform/openapi/reader.js';

// The budgets an OpenAPI document is held to before the validator sees it.

const base = { openapi: '3.0.3', info: { title: 'Budget', version: '1' }, paths: {} };
const schemas = (entries: Record<string, unknown>) => ({ ...base, components: { schemas: entries } });

/** `width` references to each next schema, `depth` schemas deep: width^depth values written out. */
function fanOut(depth: number, width: number) {
  const refs = (next: number) =>
    Object.fromEntries(Array.from({ length: width }, (_, k) => [`p${k}`, { $ref: `#/components/schemas/S${next}` }]));
  return schemas(
    Object.fromEntries(
      Array.from({ length: depth }, (_, i) => [
        `S${i}`,
        i === depth - 1 ? { type: 'string' } : { type: 'object', properties: refs(i + 1) },
      ]),
    ),
  );
}

describe('overBudget', () => {
  it('counts references written out once per object, in time linear in the document', () => {
    expect(overBudget(fanOut(10, 2))).toBeUndefined();
    const found = overBudget(fanOut(40, 2));
    expect(found).toMatchObject({ limit: 'expandedNodes', max: MAX_SPEC_EXPANDED_NODES });
    expect(found!.value).toBeGreaterThan(MAX_SPEC_EXPANDED_NODES);
    // A hundred schemas of ten references each: 10^100 values written out, counted at once.
    expect(overBudget(fanOut(100, 10))).toMatchObject({ limit: 'expandedNodes' });
    // A chain of a thousand: deeper than the validator follows.
    expect(overBudget(fanOut(1000, 1))).toMatchObject({ limit: 'expandedDepth', max: 500 });
  });

  it('counts a circular reference, and any reference to what holds one, as one value', () => {
    const node = {
      type: 'object',
      properties: { children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
    };
    const uses = Object.fromEntries(
      Array.from({ length: 200 }, (_, i) => [
        `Use${i}`,
        {
          type: 'object',
          properties: { a: { $ref: '#/components/schemas/Node' }, b: { $ref: '#/components/schemas/Node' } },
        },
      ]),
    );
    expect(overBudget(schemas({ Node: node, ...uses }))).toBeUndefined();
  });

  it('refuses documents with too many values, too deep, or too many references, naming the limit', () => {
    expect(overBudget({ ...base, 'x-big': Array.from({ length: MAX_SPEC_NODES }, () => 0) })).toMatchObject({
      limit: 'nodes',
      max: MAX_SPEC_NODES,
      value: MAX_SPEC_NODES + 1,
    });
    let deep: unknown = {};
    for (let level = 0; level < MAX_SPEC_DEPTH + 10; level += 1) deep = { deeper: deep };
    expect(overBudget({ ...base, 'x-deep': deep })).toMatchObject({
      limit: 'depth',
      max: MAX_SPEC_DEPTH,
      value: MAX_SPEC_DEPTH + 1,
    });
    const refs = Array.from({ length: MAX_SPEC_REFS + 1 }, () => ({ $ref: '#/info' }));
    expect(overBudget({ ...base, 'x-refs': refs })).toMatchObject({
      limit: 'references',
      max: MAX_SPEC_REFS,
      value: MAX_SPEC_REFS + 1,
    });
    expect(overBudget({ ...base, 'x-refs': refs })!.message).toBe(
      `The document holds more than ${MAX_SPEC_REFS} $ref references (limit "references": ${MAX_SPEC_REFS + 1}, at most ${MAX_SPEC_REFS})`,
    );
  });

  it('keeps readSpec from validating a document over budget: a LIMIT_EXCEEDED problem instead', async () => {
    const reading = await readSpec(JSON.stringify(fanOut(40, 2)));
    expect(reading).toMatchObject({
      ok: false,
      format: 'json',
      problemCount: 1,
      problems: [{ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('limit "expandedNodes"') }],
    });
    expect(await readSpec(JSON.stringify(fanOut(10, 2)))).toMatchObject({ ok: true });
  });
});

describe('readTimeoutMs', () => {
  it('gives a small text 10 s, more to a larger one, never more than the maximum', () => {
    expect(readTimeoutMs(1400)).toBe(10_007);
    expect(readTimeoutMs(2 * 1024 * 1024)).toBe(20_000);
    expect(readTimeoutMs(50 * 1024 * 1024)).toBe(60_000);
    expect(readTimeoutMs(1400, 1)).toBe(1);
  });
});
