/**
 * Plain text of documents, for full-text search and `Document.text`: the words a reader sees,
 * without markup. Blocks are separated by blank lines; list items, code lines and table rows
 * by line breaks; table cells by tabs. Captions, tab titles and expandable titles are text too;
 * references (content-ref, include, link targets) are not.
 */
import { inlinePlainText, type Block, type Fragment, type JSONDocument, type Table } from './model.js';

/** One section: a heading and the text under it until the next heading. */
export interface DocumentSection {
  /** The heading's anchor (`meta.id`, else `data.id`); `null` for the text before the first heading. */
  id: string | null;
  /** The heading's text; empty for the text before the first heading (the page title goes there). */
  title: string;
  body: string;
}

const joinText = (parts: string[], separator: string): string => parts.filter((p) => p !== '').join(separator);
const fragmentText = (fragments: Fragment[] | undefined, name?: string): string =>
  joinText(
    (fragments ?? []).filter((f) => name === undefined || f.fragment === name).map((f) => blocksText(f.nodes)),
    '\n\n',
  );

function tableText(block: Table): string {
  const { definition, records, view } = block.data;
  const columns = view.columns.filter((id) => definition[id]);
  const fragments = new Map(block.fragments.map((f) => [f.fragment, f]));
  const cell = (value: unknown): string => {
    const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
    if (fragment) return blocksText(fragment.nodes).replace(/\s*\n\s*/g, ' ');
    return typeof value === 'string' || typeof value === 'number'
      ? String(value)
      : Array.isArray(value)
        ? value.join(', ')
        : '';
  };
  const header =
    view.type === 'grid' && view.hideHeader
      ? ''
      : joinText(
          columns.map((id) => definition[id]?.title ?? ''),
          '\t',
        );
  const rows = Object.values(records)
    .sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0))
    .map((record) =>
      joinText(
        columns.map((id) => cell(record.values[id])),
        '\t',
      ),
    );
  return joinText([header, ...rows], '\n');
}

/** The plain text of one block. */
export function blockText(block: Block): string {
  switch (block.type) {
    case 'paragraph':
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
    case 'code-line':
      return inlinePlainText(block.nodes).trim();
    case 'code':
      return block.nodes.map((line) => inlinePlainText(line.nodes)).join('\n');
    case 'list-ordered':
    case 'list-unordered':
    case 'list-tasks':
      return joinText(block.nodes.map(blockText), '\n');
    case 'list-item':
      return blocksText(block.nodes, '\n');
    case 'tabs':
      return blocksText(block.nodes);
    case 'tabs-item':
      return joinText([block.data.title ?? '', blocksText(block.nodes)], '\n\n');
    case 'math':
      return block.data.formula;
    case 'images':
      return blocksText(block.nodes);
    case 'image':
      return fragmentText(block.fragments, 'caption') || (block.data.alt ?? '');
    case 'file':
    case 'embed':
      return fragmentText(block.fragments, 'caption');
    case 'expandable':
      return joinText(
        [fragmentText(block.fragments, 'expandable-title'), fragmentText(block.fragments, 'expandable-body')],
        '\n\n',
      );
    case 'table':
      return tableText(block);
    case 'divider':
    case 'content-ref':
    case 'reusable-content':
      return '';
    default:
      return joinText(
        [block.nodes ? blocksText(block.nodes) : '', 'fragments' in block ? fragmentText(block.fragments) : ''],
        '\n\n',
      );
  }
}

/** The plain text of blocks, separated by blank lines (or `separator`). */
export function blocksText(blocks: Block[], separator = '\n\n'): string {
  return joinText(blocks.map(blockText), separator);
}

/** The readable plain text of a document. */
export function documentText(document: JSONDocument): string {
  return blocksText(document.nodes);
}

/**
 * The sections of a document: one per top-level heading (1 to 3) with the text under it, and
 * before them, if there is text before the first heading, a section of `id: null` and an empty
 * title (the caller gives it the page's title).
 */
export function documentSections(document: JSONDocument): DocumentSection[] {
  const sections: DocumentSection[] = [];
  let current: DocumentSection = { id: null, title: '', body: '' };
  let parts: string[] = [];
  const close = (): void => {
    current.body = joinText(parts, '\n\n');
    if (current.id !== null || current.body !== '') sections.push(current);
  };
  for (const block of document.nodes) {
    if (block.type === 'heading-1' || block.type === 'heading-2' || block.type === 'heading-3') {
      close();
      current = { id: block.meta?.id || block.data.id || null, title: blockText(block), body: '' };
      parts = [];
    } else parts.push(blockText(block));
  }
  close();
  return sections;
}
