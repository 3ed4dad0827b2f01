import { describe, expect, it } from 'vitest';
import { checkDocumentLimits, ContentLimitError, DOCUMENT_LIMITS, documentSchema } from '../../src/document/model.js';
import { canonicalJson } from '../../src/platform/content/blobs.js';
import { MARKDOWN_LIMITS, markdownMetadata, markdownToDocument, parseMarkdown } from '../../src/document/markdown.js';
import {
  blocksAtLeast,
  isPlainText,
  plainAwareSegments,
  plainParagraphs,
} from '../../src/document/markdown/segments.js';
import { overContentLimit } from '../../src/platform/http.js';
import { markdownCorpus } from '../fixtures/change-requests.js';

/** The tree without positions' `_index`/`_bufferIndex` noise and list `spread` (which the converter does not read). */
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (key, inner) => (key === 'spread' ? undefined : inner)));

/** Real documentation to convert: the pages of the test corpus. */
const corpus = (): string[] => markdownCorpus().map(({ markdown }) => markdown);

/** Constructs that span blank lines, definitions used before they are defined, lists cut between items. */
const TRICKY = [
  '---\ntitle: Front\n\nlist: [a]\n---\n\n# Title\n\nSee [the docs][docs] and [^note].\n\n',
  '```js\nconst a = 1;\n\nconst b = 2;\n\nplain line\n```\n\nAfter the code.\n\n',
  '<!--\ncomment\n\nstill comment\n\nhere too\n-->\n\nText\n\n',
  '$$\nx = 1\n\ny = 2\n$$\n\nMath done.\n\n',
  '* one\n* two\n* three\n* four\n* five\n* six\n\nloose:\n\n- a\n\n- b\n\n- c\n\n',
  '1. first\n2. second\n3. third\n4. fourth\n\n1) other\n2) kind\n\n',
  '* item\n\n  continued in the item\n\n      indented code in it\n\nback at the margin\n\n',
  '{% hint style="info" %}\nA hint\n\nwith two paragraphs\n{% endhint %}\n\n',
  '> quote\n\n> another quote\n\n    indented code\n\n    more code\n\nText\n\n',
  '| a | b |\n| - | - |\n| 1 | 2 |\n\n<details>\n<summary>More</summary>\n\nInside\n\n</details>\n\n',
  '* ```\n  fenced in an item\n\n  still\n  ```\n\nmargin\n\n',
  '```\nunclosed fence that runs\n\nto the end of the text\n\n* even\n\nthis\n',
];
const DEFINITIONS = '[docs]: https://example.com/docs "Docs"\n\n[^note]: A footnote\n\n    continued.\n';

describe('the corpus of real documentation', () => {
  it('holds every kind of block and inline the converter makes, so the checks below read each of them', () => {
    const kinds = new Set<string>();
    const walk = (node: { object?: string; type?: string; nodes?: unknown[]; fragments?: unknown[] }) => {
      if (node.type) kinds.add(`${node.object}:${node.type}`);
      for (const child of [...(node.nodes ?? []), ...(node.fragments ?? [])]) walk(child as typeof node);
    };
    for (const markdown of corpus()) walk(markdownToDocument(markdown).document as Parameters<typeof walk>[0]);
    expect([...kinds].sort()).toEqual([
      'block:blockquote',
      'block:code',
      'block:code-line',
      'block:content-ref',
      'block:divider',
      'block:embed',
      'block:expandable',
      'block:heading-1',
      'block:heading-2',
      'block:hint',
      'block:image',
      'block:images',
      'block:list-item',
      'block:list-ordered',
      'block:list-tasks',
      'block:list-unordered',
      'block:math',
      'block:paragraph',
      'block:table',
      'block:tabs',
      'block:tabs-item',
      'fragment:expandable-body',
      'fragment:expandable-title',
      'inline:emoji',
      'inline:inline-image',
      'inline:link',
    ]);
  });
});

describe('markdown read a segment at a time', () => {
  const cases = [
    ...corpus(),
    TRICKY.join('') + DEFINITIONS,
    TRICKY.slice(0, -1).join('').repeat(3) + DEFINITIONS,
    ...TRICKY,
  ];
  it.each([1, 16, 200])('gives the tree of a whole parse, segments of %i characters', (segmentChars) => {
    for (const markdown of cases) {
      const whole = parseMarkdown(markdown, { segmentChars: Infinity });
      expect(plain(parseMarkdown(markdown, { segmentChars }))).toEqual(plain(whole));
    }
  });

  it('reads the title and front matter from the first segment', () => {
    const long = `---\ndescription: Long\n---\n\n# The title\n\n${'Paragraph.\n\n'.repeat(5000)}`;
    expect(markdownMetadata(long)).toEqual({ title: 'The title', frontMatter: { description: 'Long' } });
    expect(markdownMetadata(`# [Linked][t]\n\nText\n\n${'b\n\n'.repeat(4000)}[t]: /x\n`).title).toBe('Linked');
  });
});

describe('plain paragraphs read without the parser', () => {
  /** A deterministic stream of numbers in [0, 1). */
  const random = (seed: number) => () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  /** micromark's tree, with every extension of the platform's markdown and no plain runs apart. */
  const parsed = (markdown: string) =>
    plain(parseMarkdown(markdown, { segmentChars: Infinity, plainRunChars: Infinity })) as { children: unknown[] };

  it('gives the tree the parser gives for every line it takes as plain', () => {
    const next = random(7);
    const alphabet = [...'aZéw𝐀10 ,.;?!\'"()/%+=-', 'www.', '  ', '\n', '\n\n'];
    let plainOnes = 0;
    for (let n = 0; n < 3000; n += 1) {
      const text = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => alphabet[Math.floor(next() * alphabet.length)],
      ).join('');
      if (!isPlainText(text)) continue;
      plainOnes += 1;
      expect([text, plain(plainParagraphs(text))]).toEqual([text, parsed(text).children]);
    }
    expect(plainOnes).toBeGreaterThan(300);
  });

  it('takes as plain no line that starts or holds a construct', () => {
    for (const line of [
      '1. item',
      '1 two',
      '- item',
      '* item',
      '+ item',
      '# Title',
      '> quote',
      '    code',
      ' indented',
      '===',
      '---',
      'a *b*',
      'a _b_',
      'a `b`',
      'a ~b~',
      'a [b](c)',
      'a ![b](c)',
      'a <b>',
      'a &amp;',
      'a \\*',
      'a :tada:',
      '{% hint %}',
      'a $$x$$',
      'a | b',
      'a b@c.de',
      'a http://b.c',
      'see www.example.com',
      'see WWW.example.com',
      'a ',
      'a\tb',
      'a\r',
    ]) {
      expect([line, isPlainText(line)]).toEqual([line, false]);
    }
  });

  it('reads texts mixing plain runs with other blocks into the tree of a whole parse', () => {
    const next = random(11);
    const blocks = [
      'Plain words, and more.',
      'Two lines\nof one paragraph',
      'a',
      'Caf\u00e9 (open) 24/7, 100% sure!',
      '*Emphasis* here',
      '* item\n* item',
      '1. first\n2. second',
      '```\ncode\n\nstill code\n```',
      '<!--\nhidden\n\nplain looking\n-->',
      '> quote',
      '# Heading',
      'Text with [a link][ref]',
      '[ref]: https://example.com',
      'Look at www.example.com',
      '    indented code',
      'Setext\n===',
      '{% hint style="info" %}\nInside\n\nplain too\n{% endhint %}',
    ];
    for (let n = 0; n < 25; n += 1) {
      const markdown = Array.from({ length: 2 + Math.floor(next() * 24) }, () => {
        const block = next() < 0.6 ? blocks[Math.floor(next() * 4)]! : blocks[Math.floor(next() * blocks.length)]!;
        return `${block}${next() < 0.2 ? '\n\n\n' : '\n\n'}`;
      }).join('');
      const whole = parsed(markdown);
      for (const [segmentChars, plainRunChars] of [
        [16, 1],
        [200, 30],
        [8192, 1024],
      ] as const) {
        expect(plain(parseMarkdown(markdown, { segmentChars, plainRunChars }))).toEqual(whole);
      }
    }
  });

  it('keeps a page of plain paragraphs apart from the parser, in segments of the usual length', () => {
    const markdown = 'a\n\n'.repeat(25_000);
    const segments = plainAwareSegments(markdown, 8192, 1024);
    expect(segments.every((segment) => segment.plain)).toBe(true);
    expect(segments).toHaveLength(Math.ceil(markdown.length / 8193));
    const shorter = 'a\n\n'.repeat(2_000);
    expect(plain(parseMarkdown(shorter))).toEqual(plain(parseMarkdown(shorter, { plainRunChars: Infinity })));
    // A short plain run between other blocks stays with them; a long one is apart.
    const mixed = `*a*\n\n${'b\n\n'.repeat(10)}*c*\n\n${'d\n\n'.repeat(400)}*e*\n`;
    expect(plainAwareSegments(mixed, 8192, 1024).map((segment) => Boolean(segment.plain))).toEqual([
      false,
      true,
      false,
    ]);
  });
});

describe('documents the converter reads', () => {
  it('are valid and complete as they are: validating them again changes nothing (the edits store them unvalidated)', () => {
    for (const markdown of [...corpus(), ...TRICKY, TRICKY.join('') + DEFINITIONS, 'a\n\n'.repeat(500)]) {
      const { document } = markdownToDocument(markdown);
      expect(canonicalJson(documentSchema.parse(structuredClone(document))), markdown.slice(0, 60)).toBe(
        canonicalJson(document),
      );
    }
  });
});

describe('canonical JSON', () => {
  it('sorts the keys of every object, leaves out undefined properties, and changes nothing of its input', () => {
    const value = {
      b: 1,
      a: [{ z: undefined, y: 2, 10: 'x', 9: 'y', ab: { d: 1, c: [3, { f: 1, e: 2 }, undefined] } }],
      c: null,
      d: { a: 1, b: { d: 2, c: 1 } },
    };
    const before = JSON.stringify(value);
    expect(canonicalJson(value)).toBe(
      '{"a":[{"9":"y","10":"x","ab":{"c":[3,{"e":2,"f":1},null],"d":1},"y":2}],"b":1,"c":null,"d":{"a":1,"b":{"c":1,"d":2}}}',
    );
    expect(JSON.stringify(value)).toBe(before);
  });
});

describe('markdown budgets', () => {
  const refusal = (markdown: string) => {
    try {
      markdownToDocument(markdown);
    } catch (error) {
      if (error instanceof ContentLimitError)
        return { limit: error.limit, value: error.value, max: error.max, status: overContentLimit('', error).status };
      throw error;
    }
    return undefined;
  };

  it('refuses 1 MB of short paragraphs by their blocks, counted without parsing', () => {
    expect(refusal('a\n\n'.repeat(340_000))).toEqual({
      limit: 'markdownNodes',
      value: MARKDOWN_LIMITS.nodes + 1,
      max: MARKDOWN_LIMITS.nodes,
      status: 413,
    });
  });

  it('refuses markdown past its nodes that the count of blocks lets through, after reading past the limit only', () => {
    // 25,001 paragraphs: fewer blocks than the budget, 50,002 nodes.
    const answer = refusal('a\n\n'.repeat(25_001));
    expect(answer).toMatchObject({ limit: 'markdownNodes', max: MARKDOWN_LIMITS.nodes, status: 413 });
    expect(answer!.value).toBeGreaterThan(MARKDOWN_LIMITS.nodes);
    expect(answer!.value).toBeLessThan(MARKDOWN_LIMITS.nodes + 10_000);
  });

  it('counts blocks by lines, skipping what spans blank lines', () => {
    expect(blocksAtLeast('a\n\nb\n\nc')).toBe(3);
    expect(blocksAtLeast('a\nb\n\n\n\nc\n')).toBe(2);
    expect(blocksAtLeast('```\nx\n\ny\n```\n\nz\n')).toBe(2);
    expect(blocksAtLeast('~~~~\nx\n\n~~~\n\ny\n~~~~\n\nz\n')).toBe(2);
    expect(blocksAtLeast('<!--\na\n\nb\n-->\n\nc\n')).toBe(2);
    expect(blocksAtLeast('<pre>\na\n\nb</pre>\n\nc\n')).toBe(2);
    expect(blocksAtLeast('$$\nx\n\ny\n$$\n\nz\n')).toBe(2);
    expect(blocksAtLeast('    code\n\n    more code\n')).toBe(0);
    expect(blocksAtLeast('---\na: 1\n\nb: 2\n---\n\nText\n')).toBe(1);
    expect(blocksAtLeast('a\n\n'.repeat(100), 10)).toBe(11);
  });

  it('never counts more blocks than the markdown parses into nodes', () => {
    const count = (node: { children?: unknown[] }): number =>
      (node.children ?? []).reduce<number>((sum, child) => sum + 1 + count(child as { children?: unknown[] }), 0);
    for (const markdown of [...corpus(), ...TRICKY, TRICKY.join('') + DEFINITIONS]) {
      expect(blocksAtLeast(markdown), markdown.slice(0, 80)).toBeLessThanOrEqual(count(parseMarkdown(markdown)));
    }
  });

  it('refuses markdown over its bytes, a block too long to read apart and too many definitions', () => {
    expect(refusal('é'.repeat(MARKDOWN_LIMITS.bytes / 2 + 1))).toEqual({
      limit: 'markdownBytes',
      value: MARKDOWN_LIMITS.bytes + 2,
      max: MARKDOWN_LIMITS.bytes,
      status: 413,
    });
    const code = `\`\`\`\n${'x\n'.repeat(MARKDOWN_LIMITS.blockChars / 2)}\`\`\`\n`;
    expect(refusal(code)).toMatchObject({ limit: 'markdownBlockChars', max: MARKDOWN_LIMITS.blockChars, status: 413 });
    const definitions = Array.from({ length: MARKDOWN_LIMITS.definitions + 1 }, (_, i) => `[d${i}]: /x${i}\n`).join('');
    expect(refusal(definitions)).toEqual({
      limit: 'markdownDefinitions',
      value: MARKDOWN_LIMITS.definitions + 1,
      max: MARKDOWN_LIMITS.definitions,
      status: 413,
    });
    expect(refusal(`${'>'.repeat(40)} deep`)).toEqual({ limit: 'markdownNesting', value: 33, max: 32, status: 400 });
  });

  it('accepts a long page within the budgets: every paragraph read', () => {
    expect(markdownToDocument('Some words in a paragraph.\n\n'.repeat(10_000)).document.nodes).toHaveLength(10_000);
  });
});

describe('JSON document budgets', () => {
  const paragraph = { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'a' }] }] };
  const limit = (input: unknown) => {
    try {
      checkDocumentLimits(input);
    } catch (error) {
      if (error instanceof ContentLimitError) return { limit: error.limit, value: error.value, max: error.max };
      throw error;
    }
    return undefined;
  };

  it('counts nodes, depth and bytes, stopping at the first budget passed', () => {
    const nodes = Array.from({ length: DOCUMENT_LIMITS.nodes / 2 }, () => paragraph);
    expect(limit({ object: 'document', nodes: nodes.slice(0, 30_000) })).toBeUndefined();
    expect(limit({ object: 'document', nodes: [...nodes, paragraph] })).toEqual({
      limit: 'documentNodes',
      value: DOCUMENT_LIMITS.nodes + 1,
      max: DOCUMENT_LIMITS.nodes,
    });
    let deep: unknown = paragraph;
    for (let i = 0; i < DOCUMENT_LIMITS.depth; i += 1) deep = { object: 'block', type: 'blockquote', nodes: [deep] };
    expect(limit({ object: 'document', nodes: [deep] })).toEqual({
      limit: 'documentDepth',
      value: DOCUMENT_LIMITS.depth + 1,
      max: DOCUMENT_LIMITS.depth,
    });
    const big = {
      object: 'document',
      nodes: [{ ...paragraph, nodes: [{ object: 'text', leaves: [{ text: 'x'.repeat(DOCUMENT_LIMITS.bytes) }] }] }],
    };
    expect(limit(big)).toMatchObject({ limit: 'documentBytes', max: DOCUMENT_LIMITS.bytes });
  });
});
