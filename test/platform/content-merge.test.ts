import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/platform/content/blobs.js';
import {
  blockquote,
  code,
  documentOf,
  expandable,
  heading,
  hint,
  listItem,
  listUnordered,
  paragraph,
  parseDocument,
  table,
  type Block,
  type JSONDocument,
  type Paragraph,
  type Text,
} from '../../src/document/model.js';
import { mergeContents, mergeSequence, type MergeMode, type MergeOutcome } from '../../src/platform/content/merge.js';
import {
  DEFAULT_LAYOUT,
  type ContentFile,
  type ContentPage,
  type ContentReusable,
  type RevisionContent,
  type Variables,
} from '../../src/platform/content/revisions.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * An in-memory document store like the platform's: ids derived from the document's bytes,
 * documents validated (`parseDocument`, as the caller does) and frozen, so that the merge
 * can be seen not to change its inputs.
 */
function documentStore() {
  const documents = new Map<string, JSONDocument>();
  const stored: string[] = [];
  const put = (document: JSONDocument): string => {
    const parsed = deepFreeze(parseDocument(structuredClone(document)));
    const id = `doc-${createHash('sha256').update(canonicalJson(parsed)).digest('hex').slice(0, 12)}`;
    documents.set(id, parsed);
    return id;
  };
  const merge = (
    base: RevisionContent,
    live: RevisionContent,
    request: RevisionContent,
    mode: MergeMode,
  ): MergeOutcome =>
    mergeContents({
      base: deepFreeze(base),
      live: deepFreeze(live),
      request: deepFreeze(request),
      mode,
      document: (id) => documents.get(id),
      storeDocument: (document) => {
        const id = put(document);
        stored.push(id);
        return id;
      },
    });
  return { documents, stored, put, merge, get: (id: string | undefined) => documents.get(id!)! };
}

function content(pages: ContentPage[], more: Partial<RevisionContent> = {}): RevisionContent {
  return { pages, files: [], reusableContents: [], variables: {}, ...more };
}

function page(id: string, fields: Partial<ContentPage> = {}, pages: ContentPage[] = []): ContentPage {
  return { id, type: 'document', title: id.toUpperCase(), slug: id, ...fields, pages };
}

/** A text node with a key derived from `key`, so that two equal edits are equal. */
function textOf(key: string, value: string): Text {
  return { object: 'text', key: `${key}-text`, leaves: [{ object: 'leaf', text: value, marks: [] }] };
}

/** A paragraph with a chosen key. */
function para(key: string, value: string): Paragraph {
  return { ...paragraph(), key, nodes: [textOf(key, value)] };
}

/** A copy of a document with `edit` applied to it. */
function edited(document: JSONDocument, edit: (copy: JSONDocument) => void): JSONDocument {
  const copy = structuredClone(document);
  edit(copy);
  return copy;
}

/** Every block of a list, depth first (nodes, then fragments). */
function allBlocks(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  for (const block of blocks) {
    out.push(block);
    if (
      !['paragraph', 'heading-1', 'heading-2', 'heading-3', 'code-line'].includes(block.type) &&
      'nodes' in block &&
      block.nodes
    ) {
      out.push(...allBlocks(block.nodes as Block[]));
    }
    if ('fragments' in block && block.fragments)
      for (const fragment of block.fragments) out.push(...allBlocks(fragment.nodes));
  }
  return out;
}

/** The block with `key`, anywhere in the document. */
function find(document: JSONDocument, key: string): Block {
  const block = allBlocks(document.nodes).find((candidate) => candidate.key === key);
  if (!block) throw new Error(`No block ${key}`);
  return block;
}

/** Sets the text of a paragraph, heading or code line (in a copy being edited). */
function setText(block: Block, value: string): void {
  (block as Paragraph).nodes = [textOf(block.key, value)];
}

/** The text of a block with inline content. */
function textIn(block: Block): string {
  return ((block as Paragraph).nodes as Text[]).map((node) => node.leaves.map((l) => l.text).join('')).join('');
}

/** An outline of blocks: `key:text` for blocks with text, `[type key, …children]` for containers. */
function outline(blocks: readonly Block[]): unknown[] {
  return blocks.map((block) => {
    if (['paragraph', 'heading-1', 'heading-2', 'heading-3', 'code-line'].includes(block.type))
      return `${block.key}:${textIn(block)}`;
    const children: unknown[] = 'nodes' in block && block.nodes ? outline(block.nodes as Block[]) : [];
    const fragments =
      'fragments' in block && block.fragments ? block.fragments.map((f) => [f.fragment, ...outline(f.nodes)]) : [];
    return [`${block.type} ${block.key}`, ...children, ...fragments];
  });
}

/** A base page `p` whose document has a heading and paragraphs A, B, C. */
function onePage() {
  const store = documentStore();
  const doc = documentOf([{ ...heading(1, 'Title'), key: 'H' }, para('A', 'a'), para('B', 'b'), para('C', 'c')]);
  const baseId = store.put(doc);
  const base = store.get(baseId);
  /** A content with page `p` (titled `title`) holding `document`. */
  const withDocument = (document: JSONDocument, fields: Partial<ContentPage> = {}) =>
    content([page('p', { documentId: store.put(document), ...fields })]);
  return { store, base, baseContent: content([page('p', { documentId: baseId })]), withDocument };
}

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

describe('mergeContents: documents', () => {
  it('merges edits to different blocks of one page', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(edited(base, (d) => setText(find(d, 'A'), 'a from live')));
    const request = withDocument(edited(base, (d) => setText(find(d, 'C'), 'c from request')));
    for (const mode of ['merge', 'update'] as const) {
      const outcome = store.merge(baseContent, live, request, mode);
      expect(outcome.conflicts).toEqual([]);
      const merged = outcome.content.pages[0]!;
      expect(merged).toEqual({ ...page('p'), documentId: merged.documentId });
      expect(store.stored).toContain(merged.documentId);
      expect(outline(store.get(merged.documentId).nodes)).toEqual([
        'H:Title',
        'A:a from live',
        'B:b',
        'C:c from request',
      ]);
    }
  });

  it('reports the same block edited differently, or keeps both versions in update mode', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(edited(base, (d) => setText(find(d, 'B'), 'b from live')));
    const request = withDocument(edited(base, (d) => setText(find(d, 'B'), 'b from request')));

    const merged = store.merge(baseContent, live, request, 'merge');
    expect(merged).toEqual({ content: live, conflicts: [{ page: 'p', block: 'B' }] });
    expect(merged.content).toBe(live);
    expect(store.stored).toEqual([]);

    const updated = store.merge(baseContent, live, request, 'update');
    expect(updated.conflicts).toEqual([{ page: 'p', block: 'B' }]);
    const document = store.get(updated.content.pages[0]!.documentId);
    const [h, a, b, copy, c] = document.nodes;
    expect(outline([h!, a!, b!, c!])).toEqual(['H:Title', 'A:a', 'B:b from request', 'C:c']);
    expect(copy!.type).toBe('paragraph');
    expect(textIn(copy!)).toBe('b from live');
    // The live copy has fresh keys, its text node too.
    expect(['H', 'A', 'B', 'C']).not.toContain(copy!.key);
    expect((copy as Paragraph).nodes[0]!.key).not.toBe('B-text');
    expect(document.nodes).toHaveLength(5);
  });

  it('takes an edit made the same way on both sides once, without a conflict', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const same = para('A', 'a, edited');
    const live = withDocument(
      edited(base, (d) => {
        d.nodes[1] = same;
        setText(find(d, 'B'), 'b from live');
      }),
    );
    const request = withDocument(
      edited(base, (d) => {
        d.nodes[1] = same;
        setText(find(d, 'C'), 'c from request');
      }),
    );
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outline(store.get(outcome.content.pages[0]!.documentId).nodes)).toEqual([
      'H:Title',
      'A:a, edited',
      'B:b from live',
      'C:c from request',
    ]);
  });

  it('keeps insertions made at the same place by both sides, live first', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(
      edited(base, (d) => {
        d.nodes.splice(2, 0, para('L1', 'live 1'), para('L2', 'live 2'));
        d.nodes.push(para('LE', 'live end'));
      }),
    );
    const request = withDocument(
      edited(base, (d) => {
        d.nodes.splice(2, 0, para('R1', 'request 1'));
        d.nodes.push(para('RE', 'request end'));
      }),
    );
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outline(store.get(outcome.content.pages[0]!.documentId).nodes)).toEqual([
      'H:Title',
      'A:a',
      'L1:live 1',
      'L2:live 2',
      'R1:request 1',
      'B:b',
      'C:c',
      'LE:live end',
      'RE:request end',
    ]);
  });

  it('deletes a block deleted on one side and untouched on the other', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(edited(base, (d) => d.nodes.splice(2, 1)));
    const request = withDocument(edited(base, (d) => setText(find(d, 'C'), 'c from request')));
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outline(store.get(outcome.content.pages[0]!.documentId).nodes)).toEqual([
      'H:Title',
      'A:a',
      'C:c from request',
    ]);
  });

  it('reports a block deleted on one side and changed on the other, and keeps the changed one in update mode', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const deletesA = withDocument(
      edited(base, (d) => {
        d.nodes.splice(1, 1);
        setText(find(d, 'C'), 'c, edited');
      }),
    );
    const editsA = withDocument(edited(base, (d) => setText(find(d, 'A'), 'a, edited')));
    for (const [live, request] of [
      [deletesA, editsA],
      [editsA, deletesA],
    ]) {
      expect(store.merge(baseContent, live!, request!, 'merge')).toEqual({
        content: live,
        conflicts: [{ page: 'p', block: 'A' }],
      });
      const updated = store.merge(baseContent, live!, request!, 'update');
      expect(updated.conflicts).toEqual([{ page: 'p', block: 'A' }]);
      expect(outline(store.get(updated.content.pages[0]!.documentId).nodes)).toEqual([
        'H:Title',
        'A:a, edited',
        'B:b',
        'C:c, edited',
      ]);
    }
  });

  it('merges block order: a block moved on one side and edited on the other, with an insertion', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(edited(base, (d) => d.nodes.unshift(d.nodes.pop()!)));
    const request = withDocument(
      edited(base, (d) => {
        setText(find(d, 'C'), 'c from request');
        d.nodes.splice(3, 0, para('D', 'd'));
      }),
    );
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outline(store.get(outcome.content.pages[0]!.documentId).nodes)).toEqual([
      'C:c from request',
      'H:Title',
      'A:a',
      'B:b',
      'D:d',
    ]);
  });

  it('merges list items edited on both sides recursively, and reports a nested conflict by its own key', () => {
    const store = documentStore();
    const list = { ...listUnordered([]), key: 'list' } as Block;
    const item = (key: string, text: string) => ({ ...listItem([para(`${key}p`, text)]), key }) as Block;
    (list as { nodes: Block[] }).nodes = [item('i1', 'one'), item('i2', 'two')];
    const base = documentOf([para('intro', 'Intro'), list]);
    const baseContent = content([page('p', { documentId: store.put(base) })]);
    const at = (document: JSONDocument) => content([page('p', { documentId: store.put(document) })]);

    const live = at(edited(base, (d) => setText(find(d, 'i1p'), 'one from live')));
    const request = at(
      edited(base, (d) => {
        setText(find(d, 'i2p'), 'two from request');
        (find(d, 'list') as { nodes: Block[] }).nodes.push(item('i3', 'three'));
      }),
    );
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outline(store.get(outcome.content.pages[0]!.documentId).nodes)).toEqual([
      'intro:Intro',
      [
        'list-unordered list',
        ['list-item i1', 'i1p:one from live'],
        ['list-item i2', 'i2p:two from request'],
        ['list-item i3', 'i3p:three'],
      ],
    ]);

    const conflicting = at(edited(base, (d) => setText(find(d, 'i1p'), 'one from request')));
    expect(store.merge(baseContent, live, conflicting, 'merge').conflicts).toEqual([{ page: 'p', block: 'i1p' }]);
    const updated = store.merge(baseContent, live, conflicting, 'update');
    expect(updated.conflicts).toEqual([{ page: 'p', block: 'i1p' }]);
    const [, mergedList] = store.get(updated.content.pages[0]!.documentId).nodes;
    const [first, second] = (mergedList as { nodes: Block[] }).nodes;
    expect(first!.key).toBe('i1');
    const [mine, theirs] = (first as { nodes: Block[] }).nodes;
    expect(outline([mine!])).toEqual(['i1p:one from request']);
    expect(textIn(theirs!)).toBe('one from live');
    expect(theirs!.key).not.toBe('i1p');
    expect(second!.key).toBe('i2');
  });

  it('merges a container whose own data changed on one side with child edits from the other', () => {
    const store = documentStore();
    const box = { ...hint('info', [para('h1', 'first'), para('h2', 'second')]), key: 'box' };
    const base = documentOf([box]);
    const baseContent = content([page('p', { documentId: store.put(base) })]);
    const at = (document: JSONDocument) => content([page('p', { documentId: store.put(document) })]);
    const live = at(
      edited(base, (d) => {
        (find(d, 'box').data as { style: string }).style = 'warning';
      }),
    );
    const request = at(edited(base, (d) => setText(find(d, 'h2'), 'second from request')));
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    const [merged] = store.get(outcome.content.pages[0]!.documentId).nodes;
    expect(merged!.data).toEqual({ style: 'warning' });
    expect(outline([merged!])).toEqual([['hint box', 'h1:first', 'h2:second from request']]);

    // Own data changed differently on both sides: the whole block is the conflict.
    const danger = at(
      edited(base, (d) => {
        (find(d, 'box').data as { style: string }).style = 'danger';
        setText(find(d, 'h1'), 'first from request');
      }),
    );
    expect(store.merge(baseContent, live, danger, 'merge').conflicts).toEqual([{ page: 'p', block: 'box' }]);
    const updated = store.merge(baseContent, live, danger, 'update');
    const [mine, theirs] = store.get(updated.content.pages[0]!.documentId).nodes;
    expect(outline([mine!])).toEqual([['hint box', 'h1:first from request', 'h2:second']]);
    expect(mine!.data).toEqual({ style: 'danger' });
    expect(theirs!.data).toEqual({ style: 'warning' });
    const copyKeys = allBlocks([theirs!]).map((block) => block.key);
    expect(copyKeys).toHaveLength(3);
    for (const key of copyKeys) expect(['box', 'h1', 'h2']).not.toContain(key);
    expect(
      allBlocks([theirs!]).map((block) =>
        'nodes' in block && block.type === 'paragraph' ? textIn(block) : block.type,
      ),
    ).toEqual(['hint', 'first', 'second']);
  });

  it('merges the fragments of an expandable and the lines of a code block', () => {
    const store = documentStore();
    const details = expandable([textOf('t', 'Title')], [para('body1', 'body')]);
    const source = code('one\ntwo\nthree');
    const base = documentOf([
      { ...details, key: 'details' },
      { ...source, key: 'code' },
    ]);
    const [l1, , l3] = source.nodes;
    const baseContent = content([page('p', { documentId: store.put(base) })]);
    const at = (document: JSONDocument) => content([page('p', { documentId: store.put(document) })]);
    const live = at(
      edited(base, (d) => {
        const title = (find(d, 'details') as { fragments: Array<{ nodes: Block[] }> }).fragments[0]!.nodes[0]!;
        setText(title, 'Title from live');
        setText(find(d, l1!.key), 'ONE');
      }),
    );
    const request = at(
      edited(base, (d) => {
        setText(find(d, 'body1'), 'body from request');
        setText(find(d, l3!.key), 'THREE');
      }),
    );
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    const [mergedDetails, mergedCode] = store.get(outcome.content.pages[0]!.documentId).nodes;
    const fragments = (mergedDetails as { fragments: Array<{ fragment: string; nodes: Block[] }> }).fragments;
    expect(fragments.map((f) => [f.fragment, f.nodes.map(textIn)])).toEqual([
      ['expandable-title', ['Title from live']],
      ['expandable-body', ['body from request']],
    ]);
    expect((mergedDetails as { meta: { id: string } }).meta).toEqual({ id: 'details' });
    expect((mergedCode as { nodes: Block[] }).nodes.map(textIn)).toEqual(['ONE', 'two', 'THREE']);
  });

  it('merges edits to different cells of a table, and reports rows added on both sides as one conflict', () => {
    const store = documentStore();
    const grid = {
      ...table(
        ['Name', 'Value'],
        [
          ['one', '1'],
          ['two', '2'],
        ],
      ),
      key: 'grid',
    };
    const base = documentOf([grid]);
    const cell = (document: JSONDocument, value: string) =>
      allBlocks(document.nodes).find((block) => block.type === 'paragraph' && textIn(block) === value)!;
    const baseContent = content([page('p', { documentId: store.put(base) })]);
    const at = (document: JSONDocument) => content([page('p', { documentId: store.put(document) })]);
    const live = at(edited(base, (d) => setText(cell(d, '1'), '1 from live')));
    const request = at(edited(base, (d) => setText(cell(d, 'two'), 'two from request')));
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome.conflicts).toEqual([]);
    const [merged] = store.get(outcome.content.pages[0]!.documentId).nodes;
    expect(merged!.data).toEqual(grid.data);
    expect(allBlocks([merged!]).slice(1).map(textIn)).toEqual(['one', '1 from live', 'two from request', '2']);

    // Rows are the table's own data: a row added on each side is a conflict on the table.
    const addRow = (name: string) => (d: JSONDocument) => {
      const own = find(d, 'grid') as typeof grid;
      own.data.records[name] = { orderIndex: 'z', values: {} };
    };
    expect(
      store.merge(baseContent, at(edited(base, addRow('x'))), at(edited(base, addRow('y'))), 'merge').conflicts,
    ).toEqual([{ page: 'p', block: 'grid' }]);
  });

  it('takes a document changed on one side only whole, storing nothing', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(edited(base, (d) => setText(find(d, 'A'), 'a from live')));
    const request = content([page('p', { documentId: baseContent.pages[0]!.documentId, title: 'Renamed' })]);
    const outcome = store.merge(baseContent, live, request, 'merge');
    expect(outcome).toEqual({
      content: content([page('p', { documentId: live.pages[0]!.documentId, title: 'Renamed' })]),
      conflicts: [],
    });
    expect(store.stored).toEqual([]);
  });

  it('reports a block moved on one side and edited in place on the other once, without duplicate keys', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(
      edited(base, (d) => {
        const [a] = d.nodes.splice(1, 1);
        d.nodes.push({ ...blockquote([]), key: 'quote', nodes: [a!] } as Block);
      }),
    );
    const request = withDocument(edited(base, (d) => setText(find(d, 'A'), 'a from request')));
    expect(store.merge(baseContent, live, request, 'merge').conflicts).toEqual([{ page: 'p', block: 'A' }]);
    const updated = store.merge(baseContent, live, request, 'update');
    expect(updated.conflicts).toEqual([{ page: 'p', block: 'A' }]);
    const document = store.get(updated.content.pages[0]!.documentId);
    const nodes = outline(document.nodes);
    expect(nodes.slice(0, 4)).toEqual(['H:Title', 'A:a from request', 'B:b', 'C:c']);
    const quote = document.nodes[4] as { key: string; nodes: Block[] };
    expect(quote.key).toBe('quote');
    expect(quote.nodes.map(textIn)).toEqual(['a']);
    const keys = allBlocks(document.nodes).map((block) => block.key);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

describe('mergeContents: pages', () => {
  it('keeps pages created on both sides, live first, suffixing a repeated slug', () => {
    const store = documentStore();
    const base = content([page('a')]);
    const live = content([page('a'), page('x', { slug: 'new' })]);
    const request = content([page('a'), page('y', { slug: 'new' }), page('z', { slug: 'a' })]);
    for (const mode of ['merge', 'update'] as const) {
      expect(store.merge(base, live, request, mode)).toEqual({
        content: content([
          page('a'),
          page('x', { slug: 'new' }),
          page('y', { slug: 'new-2' }),
          page('z', { slug: 'a-2' }),
        ]),
        conflicts: [],
      });
    }
  });

  it('gives a page that keeps its slug in live precedence over one that takes it', () => {
    const store = documentStore();
    const base = content([page('a'), page('b', {}, [page('c', { slug: 'guide' })])]);
    const live = content([page('a'), page('b', {}, [page('c', { slug: 'guide' })]), page('g', { slug: 'guide' })]);
    // The request moves c to the top level, before g.
    const request = content([page('c', { slug: 'guide' }), page('a'), page('b')]);
    expect(store.merge(base, live, request, 'merge')).toEqual({
      content: content([page('c', { slug: 'guide-2' }), page('a'), page('b'), page('g', { slug: 'guide' })]),
      conflicts: [],
    });
  });

  it('deletes a page untouched by the other side, with its subtree', () => {
    const store = documentStore();
    const base = content([page('a'), page('p', {}, [page('c')])]);
    const live = content([page('a', { title: 'A, renamed' })]);
    const request = content([page('a'), page('p', { emoji: '1f600' }, [page('c')])]);
    // Here the request only added an emoji to a: nothing under p changed.
    const untouched = content([page('a', { emoji: '1f600' }), page('p', {}, [page('c')])]);
    expect(store.merge(base, live, untouched, 'merge')).toEqual({
      content: content([page('a', { title: 'A, renamed', emoji: '1f600' })]),
      conflicts: [],
    });
    // Changing p itself is a conflict.
    expect(store.merge(base, live, request, 'merge')).toEqual({ content: live, conflicts: [{ page: 'p' }] });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([page('a', { title: 'A, renamed' }), page('p', { emoji: '1f600' }, [page('c')])]),
      conflicts: [{ page: 'p' }],
    });
  });

  it('reports a deleted page whose descendant changed on the other side, and the descendant', () => {
    const store = documentStore();
    const base = content([page('p', {}, [page('c'), page('d')])]);
    const live = content([]);
    const request = content([page('p', {}, [page('c', { title: 'C, renamed' }), page('d')])]);
    expect(store.merge(base, live, request, 'merge')).toEqual({
      content: live,
      conflicts: [{ page: 'p' }, { page: 'c' }],
    });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: request,
      conflicts: [{ page: 'p' }, { page: 'c' }],
    });
    // The other way round: the request deleted, live created a page beneath.
    const grown = content([page('p', {}, [page('c'), page('d'), page('e')])]);
    expect(store.merge(base, grown, live, 'update')).toEqual({ content: grown, conflicts: [{ page: 'p' }] });
  });

  it('moves a page moved on one side and edited on the other', () => {
    const store = documentStore();
    const base = content([page('p', {}, [page('c')]), page('q', {}, [page('d')])]);
    const live = content([page('p'), page('q', {}, [page('c'), page('d')])]);
    const request = content([
      page('p', {}, [page('c', { title: 'C, renamed', description: 'New' })]),
      page('q', {}, [page('d')]),
    ]);
    expect(store.merge(base, live, request, 'merge')).toEqual({
      content: content([page('p'), page('q', {}, [page('c', { title: 'C, renamed', description: 'New' }), page('d')])]),
      conflicts: [],
    });
  });

  it('reports a page moved to different parents on both sides; the request wins in update mode', () => {
    const store = documentStore();
    const base = content([page('c'), page('p'), page('q')]);
    const live = content([page('p', {}, [page('c')]), page('q')]);
    const request = content([page('p'), page('q', {}, [page('c')])]);
    expect(store.merge(base, live, request, 'merge')).toEqual({
      content: live,
      conflicts: [{ page: 'c', property: 'parent' }],
    });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: request,
      conflicts: [{ page: 'c', property: 'parent' }],
    });
  });

  it('breaks a cycle made of two moves: the page moved by live takes its place in the request', () => {
    const store = documentStore();
    const base = content([page('a'), page('b')]);
    const live = content([page('b', {}, [page('a')])]);
    const request = content([page('a', {}, [page('b')])]);
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: request,
      conflicts: [{ page: 'a', property: 'parent' }],
    });
  });

  it('merges a page created on both sides under one id as if its base had nothing set', () => {
    const store = documentStore();
    const base = content([page('a')]);
    const live = content([page('a'), page('n', { title: 'Live', emoji: '1f600' })]);
    const request = content([page('a'), page('n', { title: 'Request', description: 'Text' })]);
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([page('a'), page('n', { title: 'Request', emoji: '1f600', description: 'Text' })]),
      conflicts: [{ page: 'n', property: 'title' }],
    });
  });

  it('reports a document removed on one side and edited on the other', () => {
    const { store, base, baseContent, withDocument } = onePage();
    const live = content([page('p', { type: 'link', slug: undefined, href: 'https://example.com' })]);
    const request = withDocument(edited(base, (d) => setText(find(d, 'A'), 'a from request')));
    // Type, slug and href changed on live only: no conflict. The document is one.
    const conflicts = [{ page: 'p', property: 'document' }];
    expect(store.merge(baseContent, live, request, 'merge')).toEqual({ content: live, conflicts });
    expect(store.merge(baseContent, live, request, 'update')).toEqual({
      content: content([
        {
          id: 'p',
          type: 'link',
          title: 'P',
          href: 'https://example.com',
          documentId: request.pages[0]!.documentId,
          pages: [],
        },
      ]),
      conflicts,
    });
  });

  it('deletes a page deleted on both sides, and keeps the version of the side that changed a page the other deleted', () => {
    const store = documentStore();
    const base = content([page('a'), page('b'), page('c')]);
    const live = content([page('a', { title: 'A, live' }), page('c')]);
    const request = content([page('c', { emoji: '1f600' })]);
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([page('a', { title: 'A, live' }), page('c', { emoji: '1f600' })]),
      conflicts: [{ page: 'a' }],
    });
  });

  it('merges page properties three-way', () => {
    const store = documentStore();
    const base = content([page('p', { description: 'old', hidden: false })]);
    // Live: title, description, emoji, noIndex. Request: title, description (the same), hidden
    // removed, layout, noIndex.
    const live = content([
      page('p', { title: 'Live title', description: 'same', emoji: '1f600', hidden: false, noIndex: true }),
    ]);
    const request = content([
      page('p', {
        title: 'Request title',
        description: 'same',
        layout: { ...DEFAULT_LAYOUT, width: 'wide' as const },
        noIndex: false,
      }),
    ]);
    const conflicts = [
      { page: 'p', property: 'title' },
      { page: 'p', property: 'noIndex' },
    ];
    expect(store.merge(base, live, request, 'merge')).toEqual({ content: live, conflicts });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([
        page('p', {
          title: 'Request title',
          description: 'same',
          emoji: '1f600',
          layout: { ...DEFAULT_LAYOUT, width: 'wide' as const },
          noIndex: false,
        }),
      ]),
      conflicts,
    });
    // Only different properties changed: no conflict at all.
    const calm = content([page('p', { description: 'same', hidden: true, icon: 'book' })]);
    expect(store.merge(base, live, calm, 'merge')).toEqual({
      content: content([
        page('p', {
          title: 'Live title',
          description: 'same',
          emoji: '1f600',
          hidden: true,
          noIndex: true,
          icon: 'book',
        }),
      ]),
      conflicts: [],
    });
  });

  it('merges the order of siblings three-way', () => {
    const store = documentStore();
    const base = content(['a', 'b', 'c', 'd'].map((id) => page(id)));
    const live = content(['d', 'a', 'b', 'c'].map((id) => page(id)));
    const request = content(['b', 'e', 'c', 'd', 'a'].map((id) => page(id)));
    expect(store.merge(base, live, request, 'merge')).toEqual({
      content: content(['d', 'b', 'e', 'c', 'a'].map((id) => page(id))),
      conflicts: [],
    });
  });

  it('dates a page that differs from live with the newer side, and keeps live objects that did not change', () => {
    const store = documentStore();
    const dated = (id: string, updatedAt: string, fields: Partial<ContentPage> = {}) =>
      page(id, { createdAt: '2024-01-01T00:00:00.000Z', updatedAt, ...fields });
    const base = content([dated('a', '2024-01-01T00:00:00.000Z'), dated('b', '2024-01-01T00:00:00.000Z')]);
    const live = content([
      dated('a', '2024-03-01T00:00:00.000Z', { emoji: '1f600' }),
      dated('b', '2024-03-01T00:00:00.000Z', { emoji: '1f600' }),
    ]);
    const request = content([
      dated('a', '2024-02-01T00:00:00.000Z', { title: 'A2' }),
      dated('b', '2024-01-01T00:00:00.000Z'),
    ]);
    const outcome = store.merge(base, live, request, 'merge');
    expect(outcome).toEqual({
      content: content([dated('a', '2024-03-01T00:00:00.000Z', { emoji: '1f600', title: 'A2' }), live.pages[1]!]),
      conflicts: [],
    });
    expect(outcome.content.pages[1]).toBe(live.pages[1]);
    const later = content([
      dated('a', '2024-04-01T00:00:00.000Z', { title: 'A2' }),
      dated('b', '2024-01-01T00:00:00.000Z'),
    ]);
    expect(store.merge(base, live, later, 'merge').content.pages[0]!.updatedAt).toBe('2024-04-01T00:00:00.000Z');
  });
});

// ---------------------------------------------------------------------------------------------
// Files, reusable contents, variables
// ---------------------------------------------------------------------------------------------

const file = (id: string, fields: Partial<ContentFile> = {}): ContentFile => ({
  id,
  name: `${id}.png`,
  contentType: 'image/png',
  size: 10,
  hash: `hash-${id}`,
  ...fields,
});

describe('mergeContents: files, reusable contents and variables', () => {
  it('merges files by id', () => {
    const store = documentStore();
    const base = content([], { files: [file('f1'), file('f2'), file('f3'), file('f5')] });
    const live = content([], {
      files: [file('f1', { name: 'renamed.png' }), file('f2', { name: 'live.png' }), file('f5')],
    });
    const request = content([], {
      files: [
        file('f1', { hash: 'new', size: 20 }),
        file('f2', { name: 'request.png' }),
        file('f3', { name: 'kept.png' }),
        file('f4'),
      ],
    });
    const conflicts = [{ file: 'f2', property: 'name' }, { file: 'f3' }];
    expect(store.merge(base, live, request, 'merge')).toEqual({ content: live, conflicts });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([], {
        files: [
          file('f1', { name: 'renamed.png', hash: 'new', size: 20 }),
          file('f2', { name: 'request.png' }),
          file('f3', { name: 'kept.png' }),
          file('f4'),
        ],
      }),
      conflicts,
    });
  });

  it('merges the bytes of a file as one unit', () => {
    const store = documentStore();
    const base = content([], { files: [file('f')] });
    const live = content([], { files: [file('f', { hash: 'live', size: 11 })] });
    const request = content([], { files: [file('f', { hash: 'request' })] });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: content([], { files: [file('f', { hash: 'request' })] }),
      conflicts: [{ file: 'f', property: 'hash' }],
    });
  });

  it('merges variables by name', () => {
    const store = documentStore();
    const vars = (variables: Variables) => content([], { variables });
    const base = vars({ a: 1, b: 'x', c: true, d: 'gone?', e: 'kept' });
    const live = vars({ a: 2, b: 'x', c: false, e: 'kept', f: 'new' });
    const request = vars({ a: 1, b: 'y', c: 'no', d: 'changed', e: 'kept' });
    const conflicts = [{ variable: 'c' }, { variable: 'd' }];
    expect(store.merge(base, live, request, 'merge')).toEqual({ content: live, conflicts });
    expect(store.merge(base, live, request, 'update')).toEqual({
      content: vars({ a: 2, b: 'y', c: 'no', e: 'kept', f: 'new', d: 'changed' }),
      conflicts,
    });
  });

  it('merges reusable contents and their documents', () => {
    const store = documentStore();
    const doc = documentOf([para('A', 'a'), para('B', 'b')]);
    const reusable = (id: string, document: JSONDocument, title = id): ContentReusable => ({
      id,
      title,
      documentId: store.put(document),
    });
    const base = content([], { reusableContents: [reusable('r1', doc), reusable('r2', doc)] });
    const live = content([], {
      reusableContents: [
        reusable(
          'r1',
          edited(doc, (d) => setText(find(d, 'A'), 'a from live')),
          'Live title',
        ),
        reusable(
          'r2',
          edited(doc, (d) => setText(find(d, 'A'), 'a from live')),
        ),
      ],
    });
    const request = content([], {
      reusableContents: [
        reusable(
          'r1',
          edited(doc, (d) => setText(find(d, 'B'), 'b from request')),
          'Request title',
        ),
        reusable(
          'r2',
          edited(doc, (d) => setText(find(d, 'A'), 'a from request')),
        ),
      ],
    });
    const conflicts = [
      { reusableContent: 'r1', property: 'title' },
      { reusableContent: 'r2', block: 'A' },
    ];
    expect(store.merge(base, live, request, 'merge')).toEqual({ content: live, conflicts });
    const updated = store.merge(base, live, request, 'update');
    expect(updated.conflicts).toEqual(conflicts);
    const [r1, r2] = updated.content.reusableContents;
    expect(r1!.title).toBe('Request title');
    expect(outline(store.get(r1!.documentId).nodes)).toEqual(['A:a from live', 'B:b from request']);
    const r2Nodes = store.get(r2!.documentId).nodes;
    expect(r2Nodes.map(textIn)).toEqual(['a from request', 'a from live', 'b']);

    // Deleted on one side, its document changed on the other.
    const gone = content([], { reusableContents: [reusable('r2', doc)] });
    expect(store.merge(base, gone, request, 'merge').conflicts).toEqual([{ reusableContent: 'r1' }]);
  });
});

// ---------------------------------------------------------------------------------------------
// The whole
// ---------------------------------------------------------------------------------------------

describe('mergeContents: the whole content', () => {
  it('returns the other side as it is when one side is untouched', () => {
    const store = documentStore();
    const base = content([page('a'), page('b', {}, [page('c')])], { files: [file('f')], variables: { v: 1 } });
    const changed = content([page('b', { title: 'B2' }), page('n')], { files: [], variables: { v: 2, w: 'x' } });
    for (const mode of ['merge', 'update'] as const) {
      expect(store.merge(base, base, changed, mode).content).toBe(changed);
      expect(store.merge(base, changed, base, mode).content).toBe(changed);
      expect(store.merge(base, structuredClone(base), changed, mode)).toEqual({ content: changed, conflicts: [] });
    }
    // Live changed only files, the request only pages: each part is the side's own.
    const liveFiles = content(base.pages, { files: [file('f', { name: 'x.png' })], variables: { v: 1 } });
    const requestPages = content(changed.pages, { files: base.files, variables: { v: 1 } });
    const outcome = store.merge(base, liveFiles, requestPages, 'merge');
    expect(outcome.conflicts).toEqual([]);
    expect(outcome.content.pages).toBe(requestPages.pages);
    expect(outcome.content.files[0]).toBe(liveFiles.files[0]);
    expect(store.stored).toEqual([]);
  });

  it('lists conflicts in order: pages in tree order with their blocks, then files, reusable contents, variables', () => {
    const { store, base: doc, withDocument } = onePage();
    const baseDocumentId = withDocument(doc).pages[0]!.documentId;
    const tree = (p: ContentPage, q: ContentPage) => [page('top', {}, [p]), q];
    const extras = (name: string, title: string, value: number): Partial<RevisionContent> => ({
      files: [file('f', { name })],
      reusableContents: [{ id: 'r', title }],
      variables: { v: value },
    });
    const base = content(tree(page('p', { documentId: baseDocumentId }), page('q')), extras('f.png', 'R', 0));
    const live = content(
      tree(
        page('p', {
          title: 'live',
          documentId: withDocument(
            edited(doc, (d) => {
              setText(find(d, 'C'), 'c live');
              setText(find(d, 'A'), 'a live');
            }),
          ).pages[0]!.documentId,
        }),
        page('q', { emoji: '1f600' }),
      ),
      extras('live.png', 'R live', 1),
    );
    const request = content(
      tree(
        page('p', {
          title: 'request',
          documentId: withDocument(
            edited(doc, (d) => {
              setText(find(d, 'A'), 'a request');
              setText(find(d, 'C'), 'c request');
            }),
          ).pages[0]!.documentId,
        }),
        page('q', { emoji: '1f389' }),
      ),
      extras('request.png', 'R request', 2),
    );
    expect(store.merge(base, live, request, 'merge').conflicts).toEqual([
      { page: 'p', property: 'title' },
      { page: 'p', block: 'A' },
      { page: 'p', block: 'C' },
      { page: 'q', property: 'emoji' },
      { file: 'f', property: 'name' },
      { reusableContent: 'r', property: 'title' },
      { variable: 'v' },
    ]);
  });

  it('only produces documents the caller accepts, and never changes its inputs', () => {
    // The store validates every document (parseDocument) and every input is frozen: a merge
    // that wrote into its inputs or produced an invalid document would throw here.
    const { store, base, baseContent, withDocument } = onePage();
    const live = withDocument(
      edited(base, (d) => {
        d.nodes.push({ ...heading(2, 'Title'), key: 'H2' });
        setText(find(d, 'B'), 'b live');
      }),
    );
    const request = withDocument(
      edited(base, (d) => {
        d.nodes.push({ ...heading(2, 'Title'), key: 'H3' });
        setText(find(d, 'B'), 'b request');
      }),
    );
    const updated = store.merge(baseContent, live, request, 'update');
    expect(updated.conflicts).toEqual([{ page: 'p', block: 'B' }]);
    const document = store.get(updated.content.pages[0]!.documentId);
    // Heading anchors are recomputed on the merged document: unique.
    const anchors = document.nodes
      .filter((block) => block.type.startsWith('heading'))
      .map((block) => (block as { meta: { id: string } }).meta.id);
    expect(anchors).toEqual(['title', 'title-2', 'title-3']);
  });
});

describe('mergeContents: disjoint changes, many times over', () => {
  /** A small deterministic pseudo-random generator (the same numbers on every run). */
  function random(seed: number) {
    let state = seed >>> 0;
    return (below: number) => {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      return state % below;
    };
  }

  it('lands every edit, deletion, insertion and move made on one side only, without conflicts', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const store = documentStore();
      const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
      const base = documentOf(keys.map((key) => para(key, key)));
      // Each block belongs to one side, which may edit, delete or move it.
      const owner = new Map(keys.map((key) => [key, next(2) === 0 ? 'live' : 'request']));
      const expectedText = new Map(keys.map((key) => [key, key]));
      const deleted = new Set<string>();
      const inserted: string[] = [];
      const sideDocument = (side: 'live' | 'request') =>
        edited(base, (d) => {
          for (const key of keys) {
            if (owner.get(key) !== side) continue;
            const action = next(4);
            const index = d.nodes.findIndex((block) => block.key === key);
            if (action === 0) {
              setText(d.nodes[index]!, `${key} by ${side}`);
              expectedText.set(key, `${key} by ${side}`);
            } else if (action === 1) {
              d.nodes.splice(index, 1);
              deleted.add(key);
            } else if (action === 2) {
              const [moved] = d.nodes.splice(index, 1);
              d.nodes.splice(next(d.nodes.length + 1), 0, moved!);
            }
          }
          const key = `${side}-new-${next(1000)}`;
          d.nodes.splice(next(d.nodes.length + 1), 0, para(key, key));
          inserted.push(key);
        });
      const live = content([page('p', { documentId: store.put(sideDocument('live')) })]);
      const request = content([page('p', { documentId: store.put(sideDocument('request')) })]);
      const baseContent = content([page('p', { documentId: store.put(base) })]);
      const outcome = store.merge(baseContent, live, request, 'merge');
      expect(outcome.conflicts, `seed ${seed}`).toEqual([]);
      const nodes = store.get(outcome.content.pages[0]!.documentId).nodes;
      const merged = new Map(nodes.map((block) => [block.key, textIn(block)]));
      expect(nodes.length, `seed ${seed}`).toBe(merged.size);
      const expected = new Map([
        ...keys.filter((key) => !deleted.has(key)).map((key) => [key, expectedText.get(key)!] as const),
        ...inserted.map((key) => [key, key] as const),
      ]);
      expect(new Map([...merged].sort()), `seed ${seed}`).toEqual(new Map([...expected].sort()));
    }
  });
});

describe('mergeSequence', () => {
  it('merges sequences three-way', () => {
    // Insertions at one place on both sides: live's first.
    expect(mergeSequence(['a', 'b'], ['a', 'x', 'b'], ['a', 'y', 'b'], ['a', 'x', 'y', 'b'])).toEqual([
      'a',
      'x',
      'y',
      'b',
    ]);
    // A move on one side, a deletion on the other.
    expect(mergeSequence(['a', 'b', 'c'], ['c', 'a', 'b'], ['a', 'c'], ['a', 'c'])).toEqual(['c', 'a']);
    // Moved on both sides: the request's place.
    const five = ['a', 'b', 'c', 'd', 'e'];
    expect(mergeSequence(five, ['e', 'a', 'b', 'c', 'd'], ['a', 'e', 'b', 'c', 'd'], five)).toEqual([
      'a',
      'e',
      'b',
      'c',
      'd',
    ]);
    // A kept item that the sequence merge dropped goes after the item it follows.
    expect(mergeSequence(['a', 'b', 'c'], ['a', 'c'], ['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
    // Names of Object.prototype members are ordinary items.
    expect(
      mergeSequence(
        ['constructor'],
        ['constructor', '__proto__'],
        ['toString', 'constructor'],
        ['toString', 'constructor', '__proto__'],
      ),
    ).toEqual(['toString', 'constructor', '__proto__']);
  });
});
