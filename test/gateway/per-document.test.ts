import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { perDocument } from '../../src/gateway/per-document.js';
import { operationOf } from '../../src/gateway/telemetry/operations.js';

describe('facts of a document, computed once', () => {
  it('computes once per document and operation name, and again for another of either', () => {
    let computed = 0;
    const count = perDocument((document, operationName) => {
      computed += 1;
      return `${document.definitions.length}:${operationName ?? ''}`;
    });
    const document = parse('query A { a } query B { b }');
    expect(count(document, 'A')).toBe('2:A');
    expect(count(document, 'A')).toBe('2:A');
    expect(computed).toBe(1);
    expect(count(document, 'B')).toBe('2:B');
    expect(count(document, null)).toBe('2:');
    expect(count(document, undefined)).toBe('2:');
    expect(computed).toBe(3);
    // The same text parsed again is another document: its facts are its own.
    expect(count(parse('query A { a } query B { b }'), 'A')).toBe('2:A');
    expect(computed).toBe(4);
  });

  it("names a document's operation the same way every time it is asked", () => {
    const document = parse('mutation Rename { a } query Read { b }');
    const first = operationOf(document, 'Read');
    expect(first).toEqual({ type: 'query', name: 'Read' });
    expect(operationOf(document, 'Read')).toBe(first);
    expect(operationOf(document, 'Rename')).toEqual({ type: 'mutation', name: 'Rename' });
    // Two operations and no name: none runs.
    expect(operationOf(document, undefined)).toEqual({ type: null, name: null });
  });
});
