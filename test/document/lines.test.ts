import { describe, expect, it } from 'vitest';
import { documentFromLines, documentLines } from '../../src/document/lines.js';
import {
  code,
  divider,
  documentOf,
  image,
  images,
  listUnordered,
  paragraph,
  parseDocument,
} from '../../src/document/model.js';

describe('documents as plain lines', () => {
  it('writes one paragraph per line, a document the model accepts', () => {
    const document = documentFromLines('First line\n\nThird line');
    expect(document).toMatchInlineSnapshot(`
      {
        "data": {
          "schemaVersion": 1,
        },
        "nodes": [
          {
            "data": {
              "align": "start",
            },
            "isVoid": false,
            "key": "p0",
            "nodes": [
              {
                "leaves": [
                  {
                    "marks": [],
                    "text": "First line",
                  },
                ],
                "object": "text",
              },
            ],
            "object": "block",
            "type": "paragraph",
          },
          {
            "data": {
              "align": "start",
            },
            "isVoid": false,
            "key": "p1",
            "nodes": [
              {
                "leaves": [
                  {
                    "marks": [],
                    "text": "",
                  },
                ],
                "object": "text",
              },
            ],
            "object": "block",
            "type": "paragraph",
          },
          {
            "data": {
              "align": "start",
            },
            "isVoid": false,
            "key": "p2",
            "nodes": [
              {
                "leaves": [
                  {
                    "marks": [],
                    "text": "Third line",
                  },
                ],
                "object": "text",
              },
            ],
            "object": "block",
            "type": "paragraph",
          },
        ],
        "object": "document",
      }
    `);
    expect(parseDocument(structuredClone(document)).nodes.map((node) => node.type)).toEqual([
      'paragraph',
      'paragraph',
      'paragraph',
    ]);
  });

  it('reads back the lines it wrote, blank ones aside', () => {
    expect(documentLines(documentFromLines('One\nTwo'))).toBe('One\nTwo');
    expect(documentLines(documentFromLines('One\n\nTwo'))).toBe('One\nTwo');
  });

  it('reads a line per block, each code line on its own, captions included, void blocks left out', () => {
    const document = documentOf([
      paragraph('Intro'),
      listUnordered(['First item', 'Second item']),
      code('const a = 1;\nconst b = 2;'),
      divider(),
      images([image({ kind: 'file', file: 'diagram' }, { caption: 'The diagram' })]),
    ]);
    expect(documentLines(document)).toBe('Intro\nFirst item\nSecond item\nconst a = 1;\nconst b = 2;\nThe diagram');
  });

  it('reads what is not a document as no text', () => {
    for (const value of [
      null,
      undefined,
      'text',
      42,
      {},
      { nodes: 'no' },
      { nodes: [null, 1, 'x'] },
      { nodes: [{ object: 'block', nodes: [null, { object: 'text', leaves: [null, { text: 7 }] }] }] },
    ])
      expect(documentLines(value)).toBe('');
  });
});
