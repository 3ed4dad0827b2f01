import { describe, expect, it } from 'vitest';
import {
  ContentLimitError,
  DOCUMENT_LIMITS,
  DocumentValidationError,
  documentOf,
  paragraph,
  parseDocumentInput,
} from '../../src/document/model.js';

/** What `parseDocumentInput` throws, as data. */
const refusal = (input: unknown) => {
  try {
    parseDocumentInput(input);
  } catch (error) {
    if (error instanceof ContentLimitError)
      return { error: error.name, limit: error.limit, value: error.value, max: error.max };
    if (error instanceof DocumentValidationError) return { error: error.name, message: error.message };
    throw error;
  }
  return undefined;
};

describe('parseDocumentInput', () => {
  it('checks the budgets before the validation: too many nodes, even invalid ones, are a budget passed', () => {
    const nodes = Array.from({ length: DOCUMENT_LIMITS.nodes + 1 }, () => ({ type: 'not-a-block' }));
    expect(refusal({ object: 'document', nodes })).toEqual({
      error: 'ContentLimitError',
      limit: 'documentNodes',
      value: DOCUMENT_LIMITS.nodes + 1,
      max: DOCUMENT_LIMITS.nodes,
    });
  });

  it('refuses a document over its bytes of JSON', () => {
    const document = documentOf([paragraph('x'.repeat(DOCUMENT_LIMITS.bytes))]);
    expect(refusal(document)).toMatchObject({
      error: 'ContentLimitError',
      limit: 'documentBytes',
      max: DOCUMENT_LIMITS.bytes,
    });
  });

  it('names the node of an invalid document within the budgets', () => {
    expect(
      refusal({ object: 'document', nodes: [{ object: 'block', type: 'paragraph', data: { align: 'sideways' } }] }),
    ).toMatchObject({
      error: 'DocumentValidationError',
      message: expect.stringMatching(/^Invalid document at nodes\[0\]/),
    });
  });

  it('completes a valid document: keys filled in', () => {
    const parsed = parseDocumentInput({
      object: 'document',
      nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Hello' }] }] }],
    });
    expect(parsed.nodes[0]).toMatchObject({ type: 'paragraph', key: expect.any(String), data: {} });
  });
});
