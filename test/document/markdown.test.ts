import { describe, expect, it } from 'vitest';
import {
  DocumentValidationError,
  blockquote,
  button,
  code,
  contentRefBlock,
  divider,
  documentOf,
  documentSchema,
  drawing,
  embed,
  emoji,
  expandable,
  expression,
  fileBlock,
  heading,
  hint,
  icon,
  image,
  images,
  inlineImage,
  inlineMath,
  leaf,
  link,
  listItem,
  listOrdered,
  listTasks,
  listUnordered,
  mark,
  mathBlock,
  mention,
  paragraph,
  parseDocument,
  reusableContent,
  table,
  tabs,
  tabsItem,
  text,
  type Block,
  type ContentRef,
  type Inline,
  type JSONDocument,
  type Table,
  orderIndex,
} from '../../src/document/model.js';
import { documentToMarkdown, markdownToDocument, stableRefs, type RefResolver } from '../../src/document/markdown.js';
import { documentSections, documentText } from '../../src/document/text.js';

/** Markdown → document → markdown keeps the document (keys included) and is a fixed point. */
function expectRoundTrip(doc: JSONDocument, refs: RefResolver = stableRefs): string {
  const markdown = documentToMarkdown(doc, { refs });
  const back = markdownToDocument(markdown, { previous: doc, refs }).document;
  expect(back).toEqual(doc);
  const again = documentToMarkdown(markdownToDocument(markdown, { refs }).document, { refs });
  expect(again).toBe(markdown);
  expect(documentSchema.safeParse(back).success).toBe(true);
  return markdown;
}

const body = (markdown: string): Block[] => markdownToDocument(markdown).document.nodes;
const page = (id: string): ContentRef => ({ kind: 'page', page: id });
const file = (id: string) => ({ kind: 'file' as const, file: id });
const url = (href: string) => ({ kind: 'url' as const, url: href });

/** A document without keys and anchors. */
const strip = (document: unknown) =>
  JSON.parse(JSON.stringify(document, (key, value) => (key === 'key' || key === 'meta' ? undefined : value)));

describe('round trip of each block and inline', () => {
  const cases: Array<[string, Block[]]> = [
    ['paragraph', [paragraph('Hello world.')]],
    [
      'bold, italic, code, strikethrough',
      [
        paragraph(
          text(
            leaf('Use '),
            leaf('bold', 'bold'),
            leaf(' and '),
            leaf('italic', 'italic'),
            leaf(', '),
            leaf('npm i', 'code'),
            leaf(' or '),
            leaf('gone', 'strikethrough'),
            leaf('.'),
          ),
        ),
      ],
    ],
    [
      'nested marks',
      [
        paragraph(
          text(
            leaf('all ', 'bold'),
            leaf('of', 'bold', 'italic'),
            leaf(' it', 'bold'),
            leaf(' then '),
            leaf('bold code', 'bold', 'code'),
          ),
        ),
      ],
    ],
    [
      'keyboard, color, superscript, subscript',
      [
        paragraph(
          text(
            leaf('Press '),
            leaf('Ctrl', 'keyboard'),
            leaf(' then '),
            leaf('red', mark('color', { text: 'red', background: 'yellow' })),
            leaf(' x'),
            leaf('2', 'superscript'),
            leaf(' H'),
            leaf('2', 'subscript'),
            leaf('O'),
          ),
        ),
      ],
    ],
    ['line break in a paragraph', [paragraph('first line\nsecond line')]],
    ['headings', [heading(1, 'Install'), heading(2, 'On macOS'), heading(3, 'With Homebrew'), paragraph('Text.')]],
    [
      'heading anchors',
      [heading(1, 'Configure', 'config'), heading(2, 'Options', 'all-options'), heading(3, 'Same', 'same')],
    ],
    ['duplicate headings', [heading(2, 'Example'), heading(2, 'Example')]],
    ['ordered list', [listOrdered(['Download', 'Install', 'Run'])]],
    ['ordered list with start', [listOrdered(['Third', 'Fourth'], 3)]],
    ['unordered list', [listUnordered(['Apples', 'Pears'])]],
    [
      'nested lists',
      [listUnordered([listItem([paragraph('Fruit'), listOrdered(['Apple', 'Pear'])]), listItem('Vegetables')])],
    ],
    [
      'task list',
      [
        listTasks([
          ['Write the docs', true],
          ['Review them', false],
        ]),
      ],
    ],
    ['blockquote', [blockquote(['A quote.', blockquote(['Nested.'])])]],
    [
      'hint of each style',
      [hint('info', ['Info.']), hint('warning', ['Careful.']), hint('danger', ['Danger.']), hint('success', ['Done.'])],
    ],
    [
      'hint with icon and several blocks',
      [hint('info', [paragraph('First.'), listUnordered(['a', 'b']), code('echo hi', { syntax: 'bash' })], 'books')],
    ],
    ['code', [code('const a = 1;\nconsole.log(a);', { syntax: 'javascript' })]],
    ['code without syntax', [code('plain text')]],
    [
      'code with options',
      [code('print(1)', { syntax: 'python', title: 'main.py', overflow: 'wrap', lineNumbers: true, expandable: true })],
    ],
    ['code holding a fence', [code('```js\nx\n```', { syntax: 'markdown' })]],
    ['divider', [paragraph('Above.'), divider(), paragraph('Below.')]],
    [
      'image from a file with caption',
      [images([image(file('img1'), { alt: 'Diagram', caption: 'The architecture' })])],
    ],
    ['image from a URL', [images([image(url('https://example.com/a.png'), { alt: 'A' })])]],
    [
      'image caption with marks',
      [images([image(file('img1'), { caption: [text(leaf('The '), leaf('big', 'bold'), leaf(' picture'))] })])],
    ],
    [
      'several images, framed and aligned',
      [images([image(file('a')), image(file('b'), { alt: 'B' })], { align: 'left', withFrame: true, fullWidth: true })],
    ],
    ['file', [fileBlock(file('pdf1'))]],
    ['file with caption', [fileBlock(file('pdf1'), 'The user guide (PDF)')]],
    ['embed', [embed('https://www.youtube.com/watch?v=abc')]],
    ['embed with caption', [embed('https://github.com/org/repo', 'Source code')]],
    [
      'tabs',
      [
        tabs([
          tabsItem('macOS', ['brew install tool']),
          tabsItem('Windows', [code('choco install tool', { syntax: 'powershell' })], 'windows'),
        ]),
      ],
    ],
    ['tab titles with quotes', [tabs([tabsItem('Say "hi"', ['Hello.'])])]],
    ['expandable', [expandable('More details', ['Hidden text.', listUnordered(['a'])])]],
    [
      'expandable open, title with marks',
      [expandable([text(leaf('Why '), leaf('this', 'italic'), leaf('?'))], ['Because.'], true)],
    ],
    [
      'table',
      [
        table(
          ['Name', 'Type', 'Default'],
          [
            ['port', 'number', '8080'],
            ['host', 'string', 'localhost'],
          ],
          ['left', 'center', 'right'],
        ),
      ],
    ],
    [
      'table with rich cells',
      [
        table(
          ['Option', 'Notes'],
          [
            ['`x`', [paragraph(text(leaf('See '), leaf('docs', 'bold'))), paragraph('Second paragraph')]],
            ['y', [paragraph('line one\nline two | with pipe')]],
          ],
        ),
      ],
    ],
    [
      'table without header titles',
      [
        (() => {
          const t = table(['', ''], [['a', 'b']]);
          (t.data.view as { hideHeader: boolean }).hideHeader = true;
          return t;
        })(),
      ],
    ],
    ['math', [mathBlock('E = mc^2'), mathBlock('\\int_0^1 x\\,dx')]],
    ['inline math', [paragraph('The area is ', inlineMath('\\pi r^2'), ' square units.')]],
    ['content-ref to a page', [contentRefBlock(page('p1'))]],
    [
      'content-ref to a URL and a space',
      [contentRefBlock(url('https://example.com')), contentRefBlock({ kind: 'space', space: 's2' })],
    ],
    ['reusable content', [reusableContent('rc1')]],
    [
      'links',
      [
        paragraph(
          'See ',
          link(url('https://example.com'), 'the site'),
          ', ',
          link(page('p1'), 'a page'),
          ', ',
          link(file('f1'), 'a file'),
          ', ',
          link({ kind: 'anchor', anchor: 'install' }, 'an anchor'),
          ', ',
          link({ kind: 'space', space: 's1' }, 'a space'),
          '.',
        ),
      ],
    ],
    ['link to an anchor of another page', [paragraph(link({ kind: 'anchor', anchor: 'setup', page: 'p2' }, 'setup'))]],
    ['link with marks', [paragraph(link(url('https://example.com'), text(leaf('bold', 'bold'), leaf(' link'))))]],
    ['autolink', [paragraph(link(url('https://example.com'), 'https://example.com'))]],
    ['emoji', [paragraph('Party ', emoji('1f389'), ' time ', emoji('1f44d'))]],
    ['mention', [paragraph('Ask ', mention(page('p9')), ' or ', mention({ kind: 'user', user: 'u1' }))]],
    [
      'literal text that looks like syntax',
      [paragraph('{% hint style="info" %} is a tag, :tada: a shortcode, <kbd> a tag and *stars* too')],
    ],
  ];
  it.each(cases)('%s', (_name, blocks) => {
    expectRoundTrip(documentOf(blocks));
  });
});

describe('exported syntax', () => {
  it('writes GitBook markdown', () => {
    const doc = documentOf([
      heading(1, 'Install', 'install'),
      paragraph(text(leaf('a', 'bold'), leaf(' '), leaf('b', 'italic'), leaf(' '), leaf('c', 'strikethrough'))),
      hint('warning', ['Careful.']),
      listUnordered(['x']),
      listTasks([
        ['done', true],
        ['todo', false],
      ]),
      listOrdered(['one', 'two']),
      divider(),
      code('x', { syntax: 'js', title: 'a.js' }),
      embed('https://e.com', 'Cap'),
      tabs([tabsItem('A', ['a']), tabsItem('B', ['b'])]),
      expandable('More', ['Body'], true),
      mathBlock('x^2'),
      paragraph(inlineMath('y'), ' ', emoji('1f389'), ' ', link(page('p1'), 'page'), ' ', mention(page('p2'))),
      reusableContent('rc1'),
      contentRefBlock(page('p3')),
      fileBlock(file('f1')),
    ]);
    expect(
      documentToMarkdown(doc, {
        title: 'Getting started',
        frontMatter: { description: 'How: to start', hidden: true },
      }),
    ).toBe(
      [
        '---',
        'description: "How: to start"',
        'hidden: true',
        '---',
        '',
        '# Getting started',
        '',
        '## Install <a href="#install" id="install"></a>',
        '',
        '**a** _b_ ~~c~~',
        '',
        '{% hint style="warning" %}',
        'Careful.',
        '{% endhint %}',
        '',
        '* x',
        '',
        '- [x] done',
        '- [ ] todo',
        '',
        '1. one',
        '2. two',
        '',
        '***',
        '',
        '{% code title="a.js" %}',
        '```js',
        'x',
        '```',
        '{% endcode %}',
        '',
        '{% embed url="https://e.com" %}',
        'Cap',
        '{% endembed %}',
        '',
        '{% tabs %}',
        '{% tab title="A" %}',
        'a',
        '{% endtab %}',
        '',
        '{% tab title="B" %}',
        'b',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '<details open>',
        '<summary>More</summary>',
        '',
        'Body',
        '',
        '</details>',
        '',
        '$$',
        'x^2',
        '$$',
        '',
        '$$y$$ :tada: [page](/pages/p1) [p2](/pages/p2 "mention")',
        '',
        '{% include "/reusable-content/rc1" %}',
        '',
        '{% content-ref url="/pages/p3" %}',
        '[/pages/p3](/pages/p3)',
        '{% endcontent-ref %}',
        '',
        '{% file src="/files/f1" %}',
        '',
      ].join('\n'),
    );
  });

  it('writes images as figures and tables as GFM tables', () => {
    const doc = documentOf([
      images([image(file('i1'), { alt: 'Alt', caption: 'Cap' })]),
      table(['A', 'B'], [['1', '2']], ['left', 'center']),
    ]);
    expect(documentToMarkdown(doc)).toBe(
      '<figure><img src="/files/i1" alt="Alt"><figcaption><p>Cap</p></figcaption></figure>\n\n| A |  B  |\n| - | :-: |\n| 1 |  2  |\n',
    );
  });
});

describe('reading markdown', () => {
  it('takes the leading # heading as the title and front matter as an object', () => {
    const { document, title, frontMatter } = markdownToDocument(
      '---\ndescription: >-\n  Hello there\nicon: rocket\n---\n\n# My page\n\n## Part\n\nText\n',
    );
    expect(title).toBe('My page');
    expect(frontMatter).toEqual({ description: 'Hello there', icon: 'rocket' });
    expect(document.nodes.map((n) => n.type)).toEqual(['heading-1', 'paragraph']);
  });

  it('has no title without a leading # heading; a later # heading is a heading-1', () => {
    const result = markdownToDocument('Intro\n\n# Later\n');
    expect(result.title).toBeUndefined();
    expect(result.frontMatter).toEqual({});
    expect(result.document.nodes.map((n) => n.type)).toEqual(['paragraph', 'heading-1']);
  });

  it('reads markdown images, references, hard breaks and HTML marks', () => {
    const [images_, para] = body(
      '![Alt](/files/f1 "A caption")\n\nSee [the docs][docs], <mark style="color:blue;background-color:default;">blue</mark>  \nnext\n\n[docs]: https://docs.example.com\n',
    );
    expect(images_).toMatchObject({
      type: 'images',
      nodes: [{ type: 'image', data: { ref: file('f1'), alt: 'Alt' }, fragments: [{ fragment: 'caption' }] }],
    });
    expect(para).toMatchObject({
      type: 'paragraph',
      nodes: [
        { object: 'text', leaves: [{ text: 'See ' }] },
        { type: 'link', data: { ref: url('https://docs.example.com') } },
        {
          object: 'text',
          leaves: [
            { text: ', ' },
            { text: 'blue', marks: [{ type: 'color', data: { text: 'blue', background: 'default' } }] },
            { text: '\nnext' },
          ],
        },
      ],
    });
  });

  it('reads emoji characters and shortcodes as emoji, but not in code or after letters', () => {
    const [para] = body('Hi 👍 :rocket: `:tada:` a:tada: 12:30:00');
    expect(para).toMatchObject({
      nodes: [
        { leaves: [{ text: 'Hi ' }] },
        { type: 'emoji', data: { code: '1f44d' } },
        { leaves: [{ text: ' ' }] },
        { type: 'emoji', data: { code: '1f680' } },
        { leaves: [{ text: ' ' }, { text: ':tada:', marks: [{ type: 'code' }] }, { text: ' a:tada: 12:30:00' }] },
      ],
    });
  });

  it('reads GitBook exports: legacy page-ref, content-ref with link, code wrapper, details on one block', () => {
    const nodes = body(
      '{% page-ref page="/pages/old" %}\n\n{% content-ref url="/pages/p1" %}\n[Page](/pages/p1)\n{% endcontent-ref %}\n\n{% code title="x.sh" overflow="wrap" %}\n```bash\nls\n```\n{% endcode %}\n\n<details><summary>Q</summary>\nA\n</details>\n',
    );
    expect(nodes).toMatchObject([
      { type: 'content-ref', data: { ref: page('old') } },
      { type: 'content-ref', data: { ref: page('p1') } },
      { type: 'code', data: { syntax: 'bash', title: 'x.sh', overflow: 'wrap' } },
      {
        type: 'expandable',
        fragments: [{ nodes: [{ nodes: [{ leaves: [{ text: 'Q' }] }] }] }, { nodes: [{ type: 'paragraph' }] }],
      },
    ]);
  });

  it('reads tags inside list items and quotes', () => {
    const [list] = body('1. Step\n\n   {% hint style="info" %}\n   Note\n   {% endhint %}\n2. Next\n');
    expect(list).toMatchObject({
      type: 'list-ordered',
      nodes: [
        { nodes: [{ type: 'paragraph' }, { type: 'hint', nodes: [{ type: 'paragraph' }] }] },
        { nodes: [{ type: 'paragraph' }] },
      ],
    });
    const [quote] = body('> {% hint style="danger" %}\n> Stop\n> {% endhint %}\n');
    expect(quote).toMatchObject({ type: 'blockquote', nodes: [{ type: 'hint', data: { style: 'danger' } }] });
  });
});

describe('bad input', () => {
  const literal = (block: Block | undefined): string | undefined =>
    block?.type === 'paragraph'
      ? block.nodes.map((n) => (n.object === 'text' ? n.leaves.map((l) => l.text).join('') : '')).join('')
      : undefined;

  it('keeps an unclosed hint as literal text and its content as blocks', () => {
    const nodes = body('{% hint style="info" %}\nNever closed\n\n* item\n');
    expect(nodes.map((n) => n.type)).toEqual(['paragraph', 'paragraph', 'list-unordered']);
    expect(literal(nodes[0])).toBe('{% hint style="info" %}');
  });

  it('keeps unknown tags, stray closing tags and stray HTML as literal paragraphs', () => {
    const nodes = body(
      '{% carousel speed="fast" %}\nBody\n{% endcarousel %}\n\n{% endhint %}\n\n<div class="x">raw</div>\n\n</details>\n\n<!-- comment -->\n',
    );
    expect(nodes.map(literal)).toEqual([
      '{% carousel speed="fast" %}',
      'Body',
      '{% endcarousel %}',
      '{% endhint %}',
      '<div class="x">raw</div>',
      '</details>',
      '<!-- comment -->',
    ]);
  });

  it('keeps steppers, columns, updates, conditions, prompts and OpenAPI blocks as blocks, written back as they were', () => {
    const markdown = [
      '{% stepper %}',
      '{% step %}',
      'First',
      '{% endstep %}',
      '',
      '{% step %}',
      'Second',
      '{% endstep %}',
      '{% endstepper %}',
      '',
      '{% columns %}',
      '{% column %}',
      'Left',
      '{% endcolumn %}',
      '{% endcolumns %}',
      '',
      '{% updates format="full" %}',
      '{% update date="2026-01-01" tags="a,b" %}',
      'News',
      '{% endupdate %}',
      '{% endupdates %}',
      '',
      '{% if visitor.claims.unsigned.beta && space.vars.x == "y" %}',
      'Beta only',
      '{% endif %}',
      '',
      '{% prompt description="Ask" %}',
      '```',
      'hello',
      '```',
      '{% endprompt %}',
      '',
      '{% openapi-operation spec="petstore" path="/pet" method="post" %}',
      'OpenAPI petstore',
      '{% endopenapi-operation %}',
      '',
    ].join('\n');
    const nodes = body(markdown);
    expect(nodes.map((node) => node.type)).toEqual([
      'stepper',
      'columns',
      'updates',
      'if',
      'prompt',
      'openapi-operation',
    ]);
    expect(nodes[0]).toMatchObject({ nodes: [{ type: 'stepper-step' }, { type: 'stepper-step' }] });
    expect(nodes[2]).toMatchObject({
      data: { format: 'full' },
      nodes: [
        {
          type: 'update',
          data: {
            date: '2026-01-01T00:00:00.000Z',
            tags: [
              { kind: 'tag', tag: 'a' },
              { kind: 'tag', tag: 'b' },
            ],
          },
        },
      ],
    });
    expect(nodes[3]).toMatchObject({ data: { expression: 'visitor.claims.unsigned.beta && space.vars.x == "y"' } });
    expect(nodes[4]).toMatchObject({ data: { description: 'Ask' }, nodes: [{ type: 'code' }] });
    expect(nodes[5]).toMatchObject({
      data: { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pet', method: 'post' },
      isVoid: true,
    });
    const document = markdownToDocument(markdown).document;
    const written = documentToMarkdown(document);
    expect(written).toBe(`${markdown.trimEnd()}\n`);
    expect(strip(markdownToDocument(written).document)).toEqual(strip(document));
  });

  it('reads a tag without its end as a void block when it can be one', () => {
    expect(body('{% embed url="https://e.com" %}\n\nAfter\n').map((n) => n.type)).toEqual(['embed', 'paragraph']);
    expect(body('{% file src="https://not-a-file.com/x.pdf" %}\n')).toMatchObject([{ type: 'paragraph' }]);
    expect(body('{% include "/pages/p1" %}\n')).toMatchObject([{ type: 'paragraph' }]);
  });

  it('closes inner tags when an outer end comes first, and fixes stray content in tabs', () => {
    const nodes = body('{% tabs %}\nLoose text\n{% tab title="A" %}\nIn A\n{% endtabs %}\n');
    expect(nodes).toMatchObject([{ type: 'tabs', nodes: [{ type: 'tabs-item', data: { title: '' } }] }]);
    expect(body('{% tab title="Lonely" %}\nContent\n{% endtab %}\n')).toMatchObject([{ type: 'paragraph' }]);
    expect(body('{% hint style="bogus" %}\nx\n{% endhint %}\n')).toMatchObject([
      { type: 'hint', data: { style: 'info' } },
    ]);
  });

  it('reads invalid front matter as empty and never throws on fragments of a real page', () => {
    expect(markdownToDocument('---\n: [bad\n---\nText\n').frontMatter).toEqual({});
    const markdown = documentToMarkdown(longPage(), { title: 'Quickstart' });
    for (let start = 0; start < markdown.length; start += 37) {
      const fragment = markdown.slice(start, start + 211);
      const once = documentToMarkdown(markdownToDocument(fragment).document);
      expect(documentToMarkdown(markdownToDocument(once).document)).toBe(once);
    }
  });

  it.each([
    '{%',
    '{% %}',
    '{%%}',
    '{% "x" %}',
    '<details>',
    '<details><summary>T</summary>',
    '| a |\n|-|\n| b',
    '$$',
    '```',
    '{% tab %}{% endtabs %}',
    '<figure>',
    '<figure><img></figure>',
    '<figure><img src="x"><p>no</p></figure>',
    '[x]: ',
    '* [ ] ',
    '![](',
    '<kbd>x',
    'x</kbd>',
    '{% embed %}',
    '{% file src="/files/a" %}\n```js\nx\n```\n{% endfile %}',
    '{% code %}\ntext\n{% endcode %}',
    '# ',
    '---\n- a\n---\n# T',
    '{% hint style="info" %}{% endhint %}',
    '{% tabs %}{% endtabs %}',
    '> {% hint %}\n{% endhint %}',
    '1. {% tabs %}\n2. {% endtabs %}',
    '<details open><summary>T</summary>\n\n{% hint style="info" %}\nx\n{% endhint %}\n\n</details>',
    '## T <a id="UPPER Case"></a>',
  ])('reads %j without throwing, into a valid document, stable after one pass', (markdown) => {
    const read = markdownToDocument(markdown);
    expect(documentSchema.safeParse(structuredClone(read.document)).success).toBe(true);
    const once = documentToMarkdown(read.document, read.title === undefined ? {} : { title: read.title });
    const again = markdownToDocument(once);
    expect(documentToMarkdown(again.document, again.title === undefined ? {} : { title: again.title })).toBe(once);
  });

  it('writes literal text back so that it stays literal (a fixed point after one pass)', () => {
    const markdown = '{% hint style="info" %}\nunclosed :tada: \\:tada:\n\n{% unknown a="b" %}\n';
    const once = documentToMarkdown(markdownToDocument(markdown).document);
    expect(once).toBe('\\{% hint style="info" %}\n\nunclosed :tada: \\:tada:\n\n\\{% unknown a="b" %}\n');
    expect(documentToMarkdown(markdownToDocument(once).document)).toBe(once);
  });
});

describe('keys', () => {
  const markdown = '## Title\n\nOne\n\nTwo\n\n* a\n* b\n';

  it('derives the same keys from the same markdown, unique across the document', () => {
    const a = markdownToDocument(markdown).document;
    const b = markdownToDocument(markdown).document;
    expect(a).toEqual(b);
    const keys: string[] = [];
    JSON.stringify(a, (k, v: unknown) => {
      if (k === 'key' && typeof v === 'string') keys.push(v);
      return v;
    });
    expect(keys.length).toBeGreaterThan(8);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('keeps the keys of unchanged and edited blocks when blocks are inserted', () => {
    const previous = documentOf([heading(1, 'Title'), paragraph('One'), paragraph('Two'), listUnordered(['a', 'b'])]);
    const edited = documentToMarkdown(previous)
      .replace('One', 'New first\n\nOne')
      .replace('Two', 'Two, changed')
      .replace('* b', '* b\n* c');
    const next = markdownToDocument(edited, { previous }).document;
    const [h, inserted, one, two, list] = next.nodes;
    expect(h?.key).toBe(previous.nodes[0]?.key);
    expect(previous.nodes.map((n) => n.key)).not.toContain(inserted?.key);
    expect(one?.key).toBe(previous.nodes[1]?.key);
    expect(two?.key).toBe(previous.nodes[2]?.key);
    expect(list?.key).toBe(previous.nodes[3]?.key);
    const items = (list as Extract<Block, { type: 'list-unordered' }>).nodes;
    const previousItems = (previous.nodes[3] as Extract<Block, { type: 'list-unordered' }>).nodes;
    expect(items.slice(0, 2).map((i) => i.key)).toEqual(previousItems.map((i) => i.key));
  });

  it('keeps the key of a changed block at the same position, and of a block moved into a hint', () => {
    const previous = documentOf([paragraph('Alpha'), paragraph('Beta'), paragraph('Gamma')]);
    const next = markdownToDocument('Alpha, edited\n\n{% hint style="info" %}\nGamma\n{% endhint %}\n\nBeta\n', {
      previous,
    }).document;
    expect(next.nodes[0]?.key).toBe(previous.nodes[0]?.key);
    expect((next.nodes[1] as Extract<Block, { type: 'hint' }>).nodes[0]?.key).toBe(previous.nodes[2]?.key);
    expect(next.nodes[2]?.key).toBe(previous.nodes[1]?.key);
  });

  it("keeps a table's column, record and cell IDs when a cell changes and a row is added", () => {
    const before = table(
      ['A', 'B'],
      [
        ['1', '2'],
        ['3', '4'],
      ],
    );
    const previous = documentOf([before]);
    const next = markdownToDocument(`${documentToMarkdown(previous).replace('| 4 |', '| 40 |')}| 5 | 6 |\n`, {
      previous,
    }).document;
    const after = next.nodes[0] as Table;
    expect(after.key).toBe(before.key);
    expect(after.data.view.columns).toEqual(before.data.view.columns);
    const ids = (t: Table) =>
      Object.entries(t.data.records).sort(([, a], [, b]) => (a.orderIndex < b.orderIndex ? -1 : 1));
    expect(ids(after).slice(0, 2)).toEqual(ids(before).map(([id, r], i) => (i === 1 ? [id, { ...r }] : [id, r])));
    expect(ids(after)).toHaveLength(3);
    const cell = (t: Table, row: number, col: number) => {
      const value = ids(t)[row]?.[1].values[t.data.view.columns[col] as string];
      return t.fragments.find((f) => f.fragment === value);
    };
    expect(cell(after, 1, 1)?.fragment).toBe(cell(before, 1, 1)?.fragment);
    expect(cell(after, 1, 1)?.nodes[0]).toMatchObject({ nodes: [{ leaves: [{ text: '40' }] }] });
    expect(cell(after, 2, 0)?.nodes[0]).toMatchObject({ nodes: [{ leaves: [{ text: '5' }] }] });
    expect(documentSchema.safeParse(next).success).toBe(true);
  });
});

/** A realistic documentation page mixing every supported block. */
function longPage(): JSONDocument {
  return documentOf([
    paragraph(
      text(
        leaf('This guide gets '),
        leaf('Acme CLI', 'bold'),
        leaf(' running in five minutes. You need '),
        leaf('Node.js 20', 'code'),
        leaf(' or later.'),
      ),
    ),
    hint('info', [
      paragraph('Already installed? Skip to ', link({ kind: 'anchor', anchor: 'configure' }, 'Configure'), '.'),
    ]),
    heading(1, 'Install'),
    paragraph('Pick your platform:'),
    tabs([
      tabsItem('npm', [code('npm install --global @acme/cli\nacme --version', { syntax: 'bash' })]),
      tabsItem('Python', [
        code('import acme\n\nclient = acme.Client(token="…")\nprint(client.whoami())', {
          syntax: 'python',
          title: 'hello.py',
          lineNumbers: true,
        }),
      ]),
    ]),
    listTasks([
      ['Install the CLI', true],
      ['Log in', false],
    ]),
    heading(1, 'Configure', 'configure'),
    paragraph(
      'The CLI reads ',
      link(file('cfg'), 'acme.yaml'),
      ' from the project root. See ',
      link(page('ref-config'), text(leaf('the configuration reference', 'italic'))),
      ' for every option.',
    ),
    table(
      ['Option', 'Default', 'Description'],
      [
        [[paragraph(text(leaf('port', 'code')))], '8080', 'Port of the local server'],
        [
          [paragraph(text(leaf('region', 'code')))],
          'eu',
          [paragraph('One of eu, us.'), paragraph(text(leaf('Change it with '), leaf('--region', 'code')))],
        ],
      ],
    ),
    images([image(file('arch-png'), { alt: 'Architecture', caption: 'How requests flow through Acme' })]),
    heading(2, 'Limits'),
    paragraph('Requests are rate limited to ', inlineMath('r = 100 / s'), ' per token:'),
    mathBlock('\\text{wait} = \\frac{1}{r} \\cdot n'),
    listOrdered([
      'Batch requests',
      'Cache answers',
      listItem([paragraph('Back off on 429'), blockquote(['Retry-After tells you how long.'])]),
    ]),
    expandable('What counts as a request?', [paragraph('Every HTTP call, retries included.')]),
    fileBlock(file('guide-pdf'), 'The full guide as a PDF'),
    embed('https://www.youtube.com/watch?v=acme', 'A two-minute tour'),
    heading(3, 'Next steps'),
    contentRefBlock(page('tutorial')),
    reusableContent('support-footer'),
    divider(),
    paragraph(
      'Happy building ',
      emoji('1f680'),
      ' — questions go to ',
      mention({ kind: 'user', user: 'u-support' }),
      '.',
    ),
  ]);
}

describe('a long realistic page', () => {
  it('round-trips', () => {
    const doc = longPage();
    const markdown = expectRoundTrip(doc);
    expect(markdown).toContain('{% tab title="Python" %}\n{% code title="hello.py" lineNumbers="true" %}\n```python');
    expect(markdown).toContain('## Configure <a href="#configure" id="configure"></a>');
    const withTitle = documentToMarkdown(doc, { title: 'Quickstart', frontMatter: { description: 'Get started' } });
    const read = markdownToDocument(withTitle, { previous: doc });
    expect(read.title).toBe('Quickstart');
    expect(read.frontMatter).toEqual({ description: 'Get started' });
    expect(read.document).toEqual(doc);
  });

  it('has plain text and sections', () => {
    const doc = longPage();
    const plain = documentText(doc);
    expect(plain).toContain(
      'This guide gets Acme CLI running in five minutes. You need Node.js 20 or later.\n\nAlready installed? Skip to Configure.\n\nInstall',
    );
    expect(plain).toContain('npm install --global @acme/cli\nacme --version');
    expect(plain).toContain(
      'Option\tDefault\tDescription\nport\t8080\tPort of the local server\nregion\teu\tOne of eu, us. Change it with --region',
    );
    expect(plain).toContain('How requests flow through Acme');
    expect(plain).toContain('What counts as a request?\n\nEvery HTTP call, retries included.');
    expect(plain).toContain('Happy building 🚀 — questions go to .');
    expect(plain).not.toMatch(/\*\*|_\w|`|\{%|<\w|\]\(|^#|\|/m);
    const sections = documentSections(doc);
    expect(sections.map((s) => [s.id, s.title])).toEqual([
      [null, ''],
      ['install', 'Install'],
      ['configure', 'Configure'],
      ['limits', 'Limits'],
      ['next-steps', 'Next steps'],
    ]);
    expect(sections[0]?.body).toContain('Already installed? Skip to Configure.');
    expect(sections[1]?.body).toContain('Pick your platform:\n\nnpm\n\nnpm install');
    expect(sections[3]?.body).toContain('r = 100 / s');
    expect(documentSections(documentOf([heading(1, 'Only')]))).toEqual([{ id: 'only', title: 'Only', body: '' }]);
  });
});

describe('stableRefs', () => {
  const refs: ContentRef[] = [
    { kind: 'page', page: 'p1' },
    { kind: 'page', page: 'p1', space: 's1' },
    { kind: 'file', file: 'f1' },
    { kind: 'file', file: 'f1', space: 's1' },
    { kind: 'space', space: 's1' },
    { kind: 'anchor', anchor: 'a' },
    { kind: 'anchor', anchor: 'a', page: 'p1' },
    { kind: 'anchor', anchor: 'a', page: 'p1', space: 's1' },
    { kind: 'anchor', anchor: 'a', space: 's1' },
    { kind: 'url', url: 'https://example.com/x?y=1#z' },
    { kind: 'user', user: 'u1' },
    { kind: 'collection', collection: 'c1' },
    { kind: 'reusable-content', reusableContent: 'r1' },
    { kind: 'tag', tag: 'beta' },
    { kind: 'openapi', spec: 'petstore' },
  ];
  it.each(refs)('round-trips %j', (ref) => {
    expect(stableRefs.fromHref(stableRefs.toHref(ref))).toEqual(ref);
  });
  it('reads anything else as a URL', () => {
    expect(stableRefs.fromHref('../other.md')).toEqual({ kind: 'url', url: '../other.md' });
    expect(stableRefs.toHref({ kind: 'page', page: 'p1' })).toBe('/pages/p1');
  });
});

describe('documentSchema', () => {
  it('accepts a document, filling leaf defaults, keys and anchors', () => {
    const parsed = parseDocument({
      object: 'document',
      data: {},
      nodes: [
        { object: 'block', type: 'heading-1', data: {}, nodes: [{ object: 'text', leaves: [{ text: 'Hello' }] }] },
        {
          object: 'block',
          type: 'hint',
          data: { style: 'info' },
          nodes: [{ object: 'block', type: 'paragraph', nodes: [] }],
        },
        { object: 'block', type: 'stepper', data: {}, nodes: [{ object: 'block', type: 'stepper-step', nodes: [] }] },
      ],
    });
    expect(parsed.nodes[0]).toMatchObject({
      key: expect.any(String),
      meta: { id: 'hello' },
      nodes: [{ key: expect.any(String), leaves: [{ object: 'leaf', text: 'Hello', marks: [] }] }],
    });
    expect(parsed.nodes[1]).toMatchObject({ nodes: [{ type: 'paragraph', data: {}, key: expect.any(String) }] });
  });

  it('accepts what the converter reads', () => {
    const doc = markdownToDocument(documentToMarkdown(longPage())).document;
    expect(documentSchema.parse(structuredClone(doc))).toEqual(doc);
  });

  const reject = (input: unknown): string => {
    try {
      parseDocument(input);
    } catch (error) {
      expect(error).toBeInstanceOf(DocumentValidationError);
      return (error as Error).message;
    }
    throw new Error('accepted');
  };
  const doc = (nodes: unknown[]) => ({ object: 'document', data: {}, nodes });
  const para = (nodes: unknown[] = []) => ({ object: 'block', type: 'paragraph', nodes });

  it('rejects malformed documents with a message naming the node', () => {
    expect(reject(doc([para(), { object: 'block', type: 'hint', data: { style: 'loud' }, nodes: [] }]))).toMatch(
      /^Invalid document at nodes\[1\]\(hint\)\.data\.style: /,
    );
    expect(reject(doc([{ object: 'block', type: 'blink', nodes: [] }]))).toMatch(
      /^Invalid document at nodes\[0\]\(blink\)\.type: /,
    );
    expect(reject(doc([{ object: 'block', type: 'list-unordered', nodes: [para()] }]))).toMatch(
      /nodes\[0\]\(list-unordered\)\.nodes\[0\]\(paragraph\)\.type/,
    );
    expect(reject(doc([para([{ object: 'text', leaves: [{ text: 3 }] }])]))).toMatch(
      /nodes\[0\]\(paragraph\)\.nodes\[0\]\.leaves\[0\]\.text: /,
    );
    expect(reject(doc([{ object: 'block', type: 'list-item', nodes: [] }]))).toMatch(/nodes\[0\]\(list-item\)\.type/);
    expect(
      reject(doc([para([{ object: 'inline', type: 'link', data: { ref: { kind: 'page' } }, nodes: [] }])])),
    ).toMatch(/nodes\[0\]\(paragraph\)\.nodes\[0\]\(link\)\.data\.ref\.page/);
    expect(reject({ object: 'document', nodes: 'x' })).toMatch(/^Invalid document at nodes: /);
    expect(reject(null)).toMatch(/^Invalid document at \(root\): /);
  });
});

describe('inline extensions: expressions, icons, buttons, inline images and mentions', () => {
  /** Pages as `<id>.md` files (as Git Sync addresses them), everything else as stable refs. */
  const mdRefs: RefResolver = {
    toHref: (ref) => (ref.kind === 'page' ? `${ref.page}.md` : stableRefs.toHref(ref)),
    fromHref: (href) =>
      /^[\w-]+\.md$/.test(href) ? { kind: 'page', page: href.slice(0, -3) } : stableRefs.fromHref(href),
  };
  const read = (markdown: string): Block[] => strip(markdownToDocument(markdown, { refs: mdRefs }).document.nodes);
  const write = (blocks: Block[]): string => documentToMarkdown(documentOf(blocks), { refs: mdRefs });
  const plain = (value: string) => ({ object: 'text', leaves: [{ object: 'leaf', text: value, marks: [] }] });
  const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', data: {}, nodes });

  const cases: Array<[string, string, Inline, object]> = [
    [
      'an expression',
      '<code class="expression">space.vars.product</code>',
      expression('space.vars.product'),
      { type: 'expression', data: { expression: 'space.vars.product' } },
    ],
    [
      'an expression with characters markdown and HTML would read',
      '<code class="expression">price &#x2A; 2 > 1 &amp;&amp; name == "a_b" &#x7C;&#x7C; &#x60;x&#x60; &#x24;&#x24;</code>',
      expression('price * 2 > 1 && name == "a_b" || `x` $$'),
      { type: 'expression', data: { expression: 'price * 2 > 1 && name == "a_b" || `x` $$' } },
    ],
    ['an icon', '<i class="fa-check">:check:</i>', icon('check'), { type: 'icon', data: { icon: 'check' } }],
    ['an icon named like an emoji', '<i class="fa-x">:x:</i>', icon('x'), { type: 'icon', data: { icon: 'x' } }],
    [
      'a colored icon',
      '<mark style="color:orange;"><i class="fa-shield-halved">:shield-halved:</i></mark>',
      icon('shield-halved', 'orange'),
      { type: 'icon', data: { icon: 'shield-halved', color: 'orange' } },
    ],
    [
      'a primary button to a URL with an icon',
      '<a href="https://example.com/start?a=1&amp;b=2" class="button primary" data-icon="rocket">Get started</a>',
      button('Get started', url('https://example.com/start?a=1&b=2'), { icon: 'rocket' }),
      {
        type: 'button',
        data: { label: 'Get started', kind: 'primary', icon: 'rocket', ref: url('https://example.com/start?a=1&b=2') },
      },
    ],
    [
      'a secondary button to a page',
      '<a href="guide.md" class="button secondary">Read the guide</a>',
      button('Read the guide', page('guide'), { kind: 'secondary' }),
      { type: 'button', data: { label: 'Read the guide', kind: 'secondary', ref: page('guide') } },
    ],
    [
      'a button with an action and a size',
      '<a class="button primary" data-action="ask" data-query="How do I start?" data-size="large">Ask</a>',
      button('Ask', { action: 'ask', query: 'How do I start?' }, { size: 'large' }),
      {
        type: 'button',
        data: { label: 'Ask', kind: 'primary', size: 'large', action: { action: 'ask', query: 'How do I start?' } },
      },
    ],
    [
      'an inline image the height of a line',
      '<img src="/files/f1" alt="Logo" data-size="line">',
      inlineImage(file('f1'), { alt: 'Logo', size: 'line' }),
      { type: 'inline-image', data: { ref: file('f1'), alt: 'Logo', size: 'line' } },
    ],
    [
      'an inline image of its own size',
      '<img src="https://example.com/a.png" alt="" data-size="original">',
      inlineImage(url('https://example.com/a.png'), { size: 'original' }),
      { type: 'inline-image', data: { ref: url('https://example.com/a.png'), size: 'original' } },
    ],
    [
      'an inline image with a dark variant and a caption',
      '<picture><source srcset="/files/dark" media="(prefers-color-scheme: dark)"><img src="/files/light" alt="Logo" title="Our logo" data-size="line"></picture>',
      inlineImage(file('light'), { refDark: file('dark'), alt: 'Logo', caption: 'Our logo', size: 'line' }),
      {
        type: 'inline-image',
        data: { ref: file('light'), refDark: file('dark'), alt: 'Logo', caption: 'Our logo', size: 'line' },
      },
    ],
    [
      'a mention',
      '[guide.md](guide.md "mention")',
      mention(page('guide')),
      { type: 'mention', data: { ref: page('guide') } },
    ],
  ];

  describe.each(cases)('%s', (_name, syntax, inline, expected) => {
    const markdown = `Before ${syntax} after.\n`;
    const whole = { object: 'inline', key: undefined, isVoid: true, ...expected };

    it('is read as the inline with its data', () => {
      expect(read(markdown)).toEqual([para(plain('Before '), whole, plain(' after.'))]);
    });

    it('is written in the same syntax', () => {
      expect(write([paragraph('Before ', inline, ' after.')])).toBe(markdown);
    });

    it('round-trips both ways', () => {
      expectRoundTrip(documentOf([paragraph('Before ', inline, ' after.')]), mdRefs);
      expectRoundTrip(documentOf([paragraph(inline)]), mdRefs);
      expect(documentToMarkdown(markdownToDocument(markdown, { refs: mdRefs }).document, { refs: mdRefs })).toBe(
        markdown,
      );
    });
  });

  it('keeps the text and marks around them', () => {
    const markdown =
      '**Set** <code class="expression">space.vars.a</code>_, then_ <i class="fa-check">:check:</i>~~x~~ <a href="guide.md" class="button primary">Go</a>: <img src="/files/i" alt="" data-size="line">`code` [guide.md](guide.md "mention") :tada: end\n';
    const [block] = markdownToDocument(markdown, { refs: mdRefs }).document.nodes;
    expect(strip(block)).toEqual(
      para(
        { object: 'text', leaves: [leaf('Set', 'bold'), leaf(' ')] },
        { object: 'inline', type: 'expression', data: { expression: 'space.vars.a' }, isVoid: true },
        { object: 'text', leaves: [leaf(', then', 'italic'), leaf(' ')] },
        { object: 'inline', type: 'icon', data: { icon: 'check' }, isVoid: true },
        { object: 'text', leaves: [leaf('x', 'strikethrough'), leaf(' ')] },
        { object: 'inline', type: 'button', data: { label: 'Go', kind: 'primary', ref: page('guide') }, isVoid: true },
        plain(': '),
        { object: 'inline', type: 'inline-image', data: { ref: file('i'), size: 'line' }, isVoid: true },
        { object: 'text', leaves: [leaf('code', 'code'), leaf(' ')] },
        { object: 'inline', type: 'mention', data: { ref: page('guide') }, isVoid: true },
        plain(' '),
        { object: 'inline', type: 'emoji', data: { code: '1f389' }, isVoid: true },
        plain(' end'),
      ),
    );
    expect(documentToMarkdown(markdownToDocument(markdown, { refs: mdRefs }).document, { refs: mdRefs })).toBe(
      markdown,
    );
  });

  it('reads mentions written as <a data-mention>, and writes them as GitBook does: `[file](href "mention")`, `<a data-mention>` in HTML', () => {
    expect(read('See <a data-mention href="guide.md">The guide</a>.\n')).toEqual([
      para(
        plain('See '),
        { object: 'inline', type: 'mention', data: { ref: page('guide') }, isVoid: true },
        plain('.'),
      ),
    ]);
    expect(read('[Anything](guide.md "mention")')).toEqual([
      para({ object: 'inline', type: 'mention', data: { ref: page('guide') }, isVoid: true }),
    ]);
    expect(
      write([
        paragraph(mention({ kind: 'anchor', anchor: 'setup', page: 'p1' }), ' ', mention({ kind: 'user', user: 'u1' })),
      ]),
    ).toBe('[#setup](/pages/p1#setup "mention") [u1](/users/u1 "mention")\n');
    const doc = documentOf([images([image(file('i1'), { caption: ['See ', mention(page('guide')), '.'] })])]);
    expect(expectRoundTrip(doc, mdRefs)).toBe(
      '<figure><img src="/files/i1" alt=""><figcaption><p>See <a data-mention href="guide.md">guide.md</a>.</p></figcaption></figure>\n',
    );
    const markdown =
      '<figure><img src="/files/i1" alt=""><figcaption><p>See <a data-mention href="guide.md">guide.md</a>.</p></figcaption></figure>\n';
    expect(documentToMarkdown(markdownToDocument(markdown, { refs: mdRefs }).document, { refs: mdRefs })).toBe(
      markdown,
    );
  });

  it('reads and writes them in captions, summaries, headings, table cells and lists', () => {
    const all = (): Inline[] => [
      expression('a | b'),
      icon('check', 'green'),
      button('Go', page('guide'), { kind: 'secondary', icon: 'arrow-right' }),
      inlineImage(file('i'), { alt: 'I', size: 'line' }),
      mention(page('guide')),
    ];
    const doc = documentOf([
      images([image(file('i1'), { caption: ['Caption ', ...all()] })]),
      expandable(['Title ', ...all()], ['Body.']),
      heading(2, ['Heading ', ...all()]),
      table(['A'], [[[paragraph('Cell ', ...all())]]]),
      listUnordered([listItem([paragraph('Item ', ...all())])]),
    ]);
    const markdown = expectRoundTrip(doc, mdRefs);
    expect(markdown).toContain(
      '<figcaption><p>Caption <code class="expression">a &#x7C; b</code><mark style="color:green;"><i class="fa-check">:check:</i></mark><a href="guide.md" class="button secondary" data-icon="arrow-right">Go</a><img src="/files/i" alt="I" data-size="line"><a data-mention href="guide.md">guide.md</a></p></figcaption>',
    );
    expect(markdown).toContain(
      '| Cell <code class="expression">a &#x7C; b</code><mark style="color:green;"><i class="fa-check">:check:</i></mark><a href="guide.md" class="button secondary" data-icon="arrow-right">Go</a><img src="/files/i" alt="I" data-size="line">[guide.md](guide.md "mention") |',
    );
  });

  it('reads an inline image on a line of its own (an HTML block to CommonMark) as a paragraph', () => {
    const alone = documentOf([paragraph(inlineImage(file('i'), { size: 'line' }))]);
    expect(expectRoundTrip(alone)).toBe('<img src="/files/i" alt="" data-size="line">\n');
    const lines = documentOf([
      paragraph(
        inlineImage(file('a'), { size: 'line' }),
        '\n',
        inlineImage(file('b'), { size: 'original' }),
        '\nthen **text**',
        inlineImage(file('c'), { size: 'line' }),
      ),
    ]);
    expect(expectRoundTrip(lines)).toBe(
      '<img src="/files/a" alt="" data-size="line">\n<img src="/files/b" alt="" data-size="original">\nthen \\*\\*text\\*\\*<img src="/files/c" alt="" data-size="line">\n',
    );
    expect(read('<img src="/files/a" alt="" data-size="line">\n# Not a heading\n')).toEqual([
      para(plain('<img src="/files/a" alt="" data-size="line">\n# Not a heading')),
    ]);
  });

  it('writes an inline image without size or dark variant as a markdown image, its caption as the title', () => {
    const doc = documentOf([paragraph('A ', inlineImage(file('i'), { alt: 'Alt', caption: 'Cap' }), ' b')]);
    expect(expectRoundTrip(doc)).toBe('A ![Alt](/files/i "Cap") b\n');
  });

  it('keeps other HTML as it was: plain <i>, <code> and <a>, and tags without their end', () => {
    expect(read('<i>it</i> <code>c</code> <code class="other">d</code>')).toEqual([
      para({
        object: 'text',
        leaves: [leaf('it', 'italic'), leaf(' '), leaf('c', 'code'), leaf(' '), leaf('d', 'code')],
      }),
    ]);
    expect(read('<a href="x">y</a> <code class="expression">never closed')).toEqual([
      para(plain('<a href="x">y</a> <code class="expression">never closed')),
    ]);
    expect(
      read('<i class="fa-solid fa-check"></i> <i class="fa-">empty</i> <a class="button primary">no target</a>'),
    ).toEqual([
      para({
        object: 'text',
        leaves: [leaf(' '), leaf('empty', 'italic'), leaf(' <a class="button primary">no target</a>')],
      }),
    ]);
  });

  it('escapes what would pair with markdown outside the HTML', () => {
    const doc = documentOf([
      paragraph(
        button('*a _b `c', url('https://e.com/x_y')),
        text(leaf('d* e_ f`', 'bold'), leaf(' ')),
        expression('g\\'),
        ' h\nnext',
      ),
    ]);
    expect(expectRoundTrip(doc)).toBe(
      '<a href="https://e.com/x_y" class="button primary">&#x2A;a &#x5F;b &#x60;c</a>**d\\* e\\_ f\\`** <code class="expression">g&#x5C;</code> h\nnext\n',
    );
    // Same-name tags do not nest in the syntax: the innermost pair is the icon, the rest italics.
    expect(read('<i class="fa-a"><i class="fa-b">:b:</i></i>')).toEqual([
      para({ object: 'inline', type: 'icon', data: { icon: 'b' }, isVoid: true }),
    ]);
  });

  it('validates their data against the API description', () => {
    const withInline = (inline: unknown) => ({
      object: 'document',
      data: {},
      nodes: [{ object: 'block', type: 'paragraph', nodes: [inline] }],
    });
    const ok = (inline: unknown) => documentSchema.safeParse(withInline(inline)).success;
    expect(ok({ object: 'inline', type: 'expression', data: { expression: 'x' }, isVoid: true })).toBe(true);
    expect(ok({ object: 'inline', type: 'expression', data: { expression: 1 }, isVoid: true })).toBe(false);
    expect(ok({ object: 'inline', type: 'icon', data: { icon: 'check', color: 'green' }, isVoid: true })).toBe(true);
    expect(ok({ object: 'inline', type: 'icon', data: { icon: 'check', color: 'chartreuse' }, isVoid: true })).toBe(
      false,
    );
    expect(ok({ object: 'inline', type: 'icon', data: {}, isVoid: true })).toBe(false);
    expect(ok({ object: 'inline', type: 'icon', data: { icon: 'two words' }, isVoid: true })).toBe(false);
    expect(
      ok({ object: 'inline', type: 'button', data: { label: 'a', kind: 'secondary', ref: page('p') }, isVoid: true }),
    ).toBe(true);
    expect(
      ok({
        object: 'inline',
        type: 'button',
        data: { label: 'a', kind: 'primary', action: { action: 'select', slug: 'x' } },
        isVoid: true,
      }),
    ).toBe(true);
    expect(
      ok({ object: 'inline', type: 'button', data: { label: 'a', kind: 'tertiary', ref: page('p') }, isVoid: true }),
    ).toBe(false);
    expect(ok({ object: 'inline', type: 'button', data: { label: 'a', kind: 'primary' }, isVoid: true })).toBe(false);
    expect(ok({ object: 'inline', type: 'inline-image', data: { ref: file('f'), size: 'line' }, isVoid: true })).toBe(
      true,
    );
    expect(ok({ object: 'inline', type: 'inline-image', data: { ref: page('p') }, isVoid: true })).toBe(false);
    expect(ok({ object: 'inline', type: 'inline-image', data: { ref: file('f'), size: 'huge' }, isVoid: true })).toBe(
      false,
    );
    expect(ok({ object: 'inline', type: 'icon', data: { icon: 'check' } })).toBe(false);
    expect(
      ok({
        object: 'inline',
        type: 'link',
        data: { ref: url('u') },
        nodes: [{ object: 'inline', type: 'inline-image', data: { ref: file('f') }, isVoid: true }],
      }),
    ).toBe(true);
  });
});

describe('code lines holding expressions', () => {
  it('writes an expression inside a code line as its text instead of failing', () => {
    const document = parseDocument({
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'code',
          data: { syntax: 'bash' },
          nodes: [
            {
              object: 'block',
              type: 'code-line',
              data: {},
              nodes: [
                { object: 'text', leaves: [{ object: 'leaf', text: 'npm install ', marks: [] }] },
                { object: 'inline', type: 'expression', data: { expression: 'space.vars.package' }, isVoid: true },
              ],
            },
          ],
        },
      ],
    });
    expect(documentToMarkdown(document)).toBe('```bash\nnpm install space.vars.package\n```\n');
  });
});

describe('block extensions: image frames, drawings and tables of cards', () => {
  /** Pages as `<id>.md` and files as `.gitbook/assets/<id>` (as Git Sync addresses them). */
  const syncRefs: RefResolver = {
    toHref: (ref) =>
      ref.kind === 'page'
        ? `${ref.page}.md`
        : ref.kind === 'file'
          ? `.gitbook/assets/${ref.file}`
          : stableRefs.toHref(ref),
    fromHref: (href) =>
      /^[\w-]+\.md$/.test(href)
        ? { kind: 'page', page: href.slice(0, -3) }
        : href.startsWith('.gitbook/assets/')
          ? { kind: 'file', file: href.slice('.gitbook/assets/'.length) }
          : stableRefs.fromHref(href),
  };
  const read = (markdown: string): Block[] => strip(markdownToDocument(markdown, { refs: syncRefs }).document.nodes);
  const write = (blocks: Block[]): string => documentToMarkdown(documentOf(blocks), { refs: syncRefs });
  const rewrite = (markdown: string): string =>
    documentToMarkdown(markdownToDocument(markdown, { refs: syncRefs }).document, { refs: syncRefs });
  const plain = (value: string, ...marks: string[]) => ({
    object: 'text',
    leaves: [{ object: 'leaf', text: value, marks: marks.map((type) => ({ object: 'mark', type })) }],
  });
  const para = (...nodes: unknown[]) => ({ object: 'block', type: 'paragraph', data: {}, nodes });
  const framedImage = (caption?: string) => ({
    object: 'block',
    type: 'images',
    data: { withFrame: true },
    nodes: [
      {
        object: 'block',
        type: 'image',
        data: { ref: file('shot.png'), alt: 'Screen' },
        fragments: caption ? [{ object: 'fragment', fragment: 'caption', nodes: [para(plain(caption))] }] : [],
        isVoid: true,
      },
    ],
    isVoid: false,
  });

  describe('image frames', () => {
    const markdown =
      '<div data-with-frame="true"><figure><img src=".gitbook/assets/shot.png" alt="Screen"><figcaption><p>The editor</p></figcaption></figure></div>\n';
    const block = () =>
      images([image(file('shot.png'), { alt: 'Screen', caption: 'The editor' })], { withFrame: true });

    it('reads a framed figure into an images block with withFrame', () => {
      expect(read(markdown)).toEqual([framedImage('The editor')]);
    });

    it('reads a markdown image or a bare <img> in the framed div, on its line or apart by blank lines', () => {
      expect(read('<div data-with-frame="true">![Screen](.gitbook/assets/shot.png)</div>\n')).toEqual([framedImage()]);
      expect(read('<div data-with-frame="true">\n\n![Screen](.gitbook/assets/shot.png)\n\n</div>\n')).toEqual([
        framedImage(),
      ]);
      expect(read('<div data-with-frame="true"><img src=".gitbook/assets/shot.png" alt="Screen"></div>\n')).toEqual([
        framedImage(),
      ]);
      expect(
        read(
          '<div data-with-frame="true"><figure><img src=".gitbook/assets/shot.png" alt="Screen"><figcaption></figcaption></figure></div>\n',
        ),
      ).toEqual([framedImage()]);
      expect(rewrite('<div data-with-frame="true">![Screen](.gitbook/assets/shot.png)</div>\n')).toBe(
        '<div data-with-frame="true"><figure><img src=".gitbook/assets/shot.png" alt="Screen"></figure></div>\n',
      );
    });

    it('leaves other HTML in a div as it was', () => {
      expect(read('<div data-with-frame="true">Some *text*</div>\n')).toEqual([
        para(plain('<div data-with-frame="true">Some *text*</div>')),
      ]);
      expect(read('<div data-with-frame="true">\n\nSome text\n\n</div>\n')).toEqual([
        para(plain('<div data-with-frame="true">')),
        para(plain('Some text')),
        para(plain('</div>')),
      ]);
    });

    it('is written as GitBook writes it', () => {
      expect(write([block()])).toBe(markdown);
    });

    it('round-trips both ways', () => {
      expect(rewrite(markdown)).toBe(markdown);
      expect(expectRoundTrip(documentOf([block()]), syncRefs)).toBe(markdown);
    });
  });

  describe('drawings', () => {
    const markdown = '<img src=".gitbook/assets/flow.drawing.svg" class="gitbook-drawing">\n';
    const expected = { object: 'block', type: 'drawing', data: { ref: file('flow.drawing.svg') }, isVoid: true };

    it('reads the drawing image, alone or in a figure, into a drawing block', () => {
      expect(read(markdown)).toEqual([expected]);
      expect(
        read(
          '<figure><img src=".gitbook/assets/flow.drawing.svg" alt="" class="gitbook-drawing"><figcaption></figcaption></figure>\n',
        ),
      ).toEqual([expected]);
    });

    it('reads an image of another class, or whose source is no file, as before', () => {
      expect(read('<figure><img src="https://example.com/d.svg" class="gitbook-drawing"></figure>\n')).toEqual([
        {
          object: 'block',
          type: 'images',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'image',
              data: { ref: url('https://example.com/d.svg') },
              fragments: [],
              isVoid: true,
            },
          ],
          isVoid: false,
        },
      ]);
      expect(read('<img src=".gitbook/assets/flow.drawing.svg" class="other">\n')).toEqual([
        para(plain('<img src=".gitbook/assets/flow.drawing.svg" class="other">')),
      ]);
    });

    it('is written as an image of the class gitbook-drawing', () => {
      expect(write([drawing(file('flow.drawing.svg'))])).toBe(markdown);
    });

    it('round-trips both ways, and validates against the API description', () => {
      expect(rewrite(markdown)).toBe(markdown);
      expect(
        expectRoundTrip(
          documentOf([paragraph('Before.'), drawing(file('flow.drawing.svg')), paragraph('After.')]),
          syncRefs,
        ),
      ).toBe(`Before.\n\n${markdown}\nAfter.\n`);
      const ok = (data: unknown) =>
        documentSchema.safeParse({
          object: 'document',
          data: {},
          nodes: [{ object: 'block', type: 'drawing', data, isVoid: true }],
        }).success;
      expect(ok({ ref: file('d') })).toBe(true);
      expect(ok({})).toBe(true);
      expect(ok({ ref: url('https://example.com/d.svg') })).toBe(false);
    });
  });

  describe('tables of cards', () => {
    const markdown =
      '<table data-view="cards" data-card-size="large"><thead><tr><th>Name</th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td><strong>Guide</strong></td><td><a href="guide.md">guide.md</a></td><td><a href=".gitbook/assets/cover.png">cover.png</a></td></tr>' +
      '<tr><td><p>Two</p><p>lines</p></td><td><a href="https://example.com/">https://example.com/</a></td><td></td></tr></tbody></table>\n';
    const definition = {
      col1: { id: 'col1', title: 'Name', type: 'text', textAlignment: 'left' },
      col2: { id: 'col2', title: '', type: 'content-ref' },
      col3: { id: 'col3', title: '', type: 'files' },
    } as const;
    const cardsTable = (): Table => ({
      object: 'block',
      type: 'table',
      key: 'cards',
      data: {
        view: {
          type: 'cards',
          cardSize: 'large',
          columns: ['col1'],
          targetDefinition: 'col2',
          coverDefinition: 'col3',
        },
        records: {
          row1: { orderIndex: orderIndex(0), values: { col1: 'cell1x1', col2: page('guide'), col3: ['cover.png'] } },
          row2: { orderIndex: orderIndex(1), values: { col1: 'cell2x1', col2: url('https://example.com/') } },
        },
        definition: structuredClone(definition) as Table['data']['definition'],
      },
      fragments: [
        { object: 'fragment', key: 'f1', fragment: 'cell1x1', nodes: [paragraph(text(leaf('Guide', 'bold')))] },
        { object: 'fragment', key: 'f2', fragment: 'cell2x1', nodes: [paragraph('Two'), paragraph('lines')] },
      ],
      isVoid: true,
    });

    it('reads <table data-view="cards"> into a table with a cards view, targets as content refs and covers as files', () => {
      expect(read(markdown)).toEqual([
        {
          object: 'block',
          type: 'table',
          data: {
            view: {
              type: 'cards',
              cardSize: 'large',
              columns: ['col1'],
              targetDefinition: 'col2',
              coverDefinition: 'col3',
            },
            records: {
              row1: { orderIndex: 'a0000', values: { col1: 'cell1x1', col2: page('guide'), col3: ['cover.png'] } },
              row2: { orderIndex: 'a0001', values: { col1: 'cell2x1', col2: url('https://example.com/') } },
            },
            definition,
          },
          fragments: [
            { object: 'fragment', fragment: 'cell1x1', nodes: [para(plain('Guide', 'bold'))] },
            { object: 'fragment', fragment: 'cell2x1', nodes: [para(plain('Two')), para(plain('lines'))] },
          ],
          isVoid: true,
        },
      ]);
    });

    it('reads medium cards, text columns without a type and the example of the platform', () => {
      const [block] = read(
        '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead><tbody><tr><td>Start</td><td><a href="page.md">page.md</a></td><td><a href=".gitbook/assets/cover.png">cover.png</a></td></tr></tbody></table>\n',
      ) as Table[];
      expect(block?.data.view).toEqual({
        type: 'cards',
        cardSize: 'medium',
        columns: ['col1'],
        targetDefinition: 'col2',
        coverDefinition: 'col3',
      });
      expect(block?.data.records).toEqual({
        row1: { orderIndex: 'a0000', values: { col1: 'cell1x1', col2: page('page'), col3: ['cover.png'] } },
      });
    });

    it('leaves a table that is not of cards, or whose covers are not files, as it was', () => {
      const grid = '<table><thead><tr><th>A</th></tr></thead><tbody><tr><td>x</td></tr></tbody></table>';
      expect(read(`${grid}\n`)).toEqual([para(plain(grid))]);
      const notFiles =
        '<table data-view="cards"><thead><tr><th data-type="files"></th></tr></thead><tbody><tr><td><a href="https://example.com/x.png">x</a></td></tr></tbody></table>';
      expect(read(`${notFiles}\n`)).toEqual([para(plain(notFiles))]);
    });

    it('is written as GitBook writes it', () => {
      expect(write([cardsTable()])).toBe(markdown);
    });

    it('round-trips both ways, and validates against the API description', () => {
      expect(rewrite(markdown)).toBe(markdown);
      expect(expectRoundTrip(documentOf([heading(1, 'Start here'), cardsTable(), paragraph('More.')]), syncRefs)).toBe(
        `## Start here\n\n${markdown}\nMore.\n`,
      );
      const withView = (view: unknown) => {
        const block = cardsTable() as unknown as { data: { view: unknown } };
        block.data.view = view;
        return documentSchema.safeParse({ object: 'document', data: {}, nodes: [block] }).success;
      };
      expect(
        withView({
          type: 'cards',
          cardSize: 'medium',
          columns: [],
          hideColumnTitle: true,
          wrap: false,
          coverDefinitionDark: 'col3',
        }),
      ).toBe(true);
      expect(withView({ type: 'cards', cardSize: 'huge', columns: [] })).toBe(false);
      expect(withView({ type: 'cards', cardSize: 'medium', columns: [], targetDefinition: 2 })).toBe(false);
    });

    it('keeps the ids of its hidden target and cover columns when markdown of it is read back over it', () => {
      const named = cardsTable();
      const rename: Record<string, string> = { col1: 'title', col2: 'target', col3: 'cover' };
      named.data.definition = Object.fromEntries(
        Object.entries(named.data.definition).map(([id, column]) => [rename[id]!, { ...column, id: rename[id]! }]),
      );
      named.data.view = {
        ...named.data.view,
        columns: ['title'],
        targetDefinition: 'target',
        coverDefinition: 'cover',
      } as Table['data']['view'];
      for (const record of Object.values(named.data.records)) {
        record.values = Object.fromEntries(Object.entries(record.values).map(([id, value]) => [rename[id]!, value]));
      }
      const document = parseDocument(documentOf([named]));
      const again = markdownToDocument(documentToMarkdown(document, { refs: syncRefs }), {
        refs: syncRefs,
        previous: document,
      }).document;
      const table = again.nodes[0] as Table;
      expect(Object.keys(table.data.definition)).toEqual(['title', 'target', 'cover']);
      expect(table.data.view).toMatchObject({
        columns: ['title'],
        targetDefinition: 'target',
        coverDefinition: 'cover',
      });
      expect(Object.keys(Object.values(table.data.records)[0]!.values)).toEqual(['title', 'target', 'cover']);
    });
  });
});
