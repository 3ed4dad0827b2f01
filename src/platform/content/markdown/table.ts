/**
 * Tables both ways. A GFM table is a grid table of `text` columns: `data.definition` has one
 * column per header cell (its text as the title, its alignment as `textAlignment`, `left`
 * when none), `data.records` one record per row (`orderIndex` in row order), and the value
 * of each column in a record names the fragment of the block that holds the cell's
 * paragraphs. A cell of several paragraphs is written `<p>…</p><p>…</p>`, a line break
 * `<br>`. IDs are `col1`…, `row1`…, `cell1x1`… (keys.ts carries a previous table's IDs over).
 */
import type { AlignType, PhrasingContent, Table as MdTable, TableCell, TableRow } from 'mdast';
import { inlinePlainText, orderIndex, type Block, type Fragment, type Paragraph, type Table, type TableDefinition, type TableRecord, type TableValue } from '../document.js';
import type { ReadContext, WriteContext } from './context.js';
import { readParagraph } from './inline-read.js';
import { writeInlines } from './inline-write.js';
import { blocksText } from '../text.js';

const isTag = (node: PhrasingContent, pattern: RegExp): boolean => node.type === 'html' && pattern.test(node.value);
const P_OPEN = /^<p\s*>$/i;
const P_CLOSE = /^<\/p\s*>$/i;

/** The paragraphs of a cell: split at `<p>`/`</p>`. */
function readCell(cell: TableCell, ctx: ReadContext): Paragraph[] {
  const segments: PhrasingContent[][] = [[]];
  for (const node of cell.children) {
    if (isTag(node, P_OPEN) || isTag(node, P_CLOSE)) segments.push([]);
    else segments[segments.length - 1]?.push(node);
  }
  const paragraphs = segments.filter((s) => s.some((n) => n.type !== 'text' || n.value.trim() !== '')).map((s) => readParagraph(s, ctx));
  return paragraphs.length ? paragraphs : [readParagraph([], ctx)];
}

/** Reads a GFM table. */
export function readTable(node: MdTable, ctx: ReadContext): Table {
  const [head, ...rows] = node.children;
  const width = Math.max(head?.children.length ?? 0, ...rows.map((r) => r.children.length));
  const columns = Array.from({ length: width }, (_, i) => `col${i + 1}`);
  const definition: Record<string, TableDefinition> = {};
  columns.forEach((id, i) => {
    const cell = head?.children[i];
    const align = node.align?.[i];
    definition[id] = { id, title: cell ? inlinePlainText(readParagraph(cell.children, ctx).nodes) : '', type: 'text', textAlignment: align === 'center' || align === 'right' ? align : 'left' };
  });
  const records: Record<string, TableRecord> = {};
  const fragments: Fragment[] = [];
  rows.forEach((row, r) => {
    const values: Record<string, TableValue> = {};
    columns.forEach((column, c) => {
      const name = `cell${r + 1}x${c + 1}`;
      values[column] = name;
      const cell = row.children[c];
      fragments.push({ object: 'fragment', key: '', fragment: name, nodes: cell ? readCell(cell, ctx) : [readParagraph([], ctx)] });
    });
    records[`row${r + 1}`] = { orderIndex: orderIndex(r), values };
  });
  const hideHeader = width > 0 && Object.values(definition).every((d) => d.title === '');
  return { object: 'block', type: 'table', key: '', data: { view: { type: 'grid', columns, hideHeader }, records, definition }, fragments, isVoid: true };
}

/** Line breaks in a cell's text as `<br>` (a GFM cell is one line). */
function breakLines(nodes: PhrasingContent[]): PhrasingContent[] {
  return nodes.flatMap((node): PhrasingContent[] => {
    if (node.type === 'text') return node.value.split('\n').flatMap((part, i): PhrasingContent[] => (i ? [{ type: 'html', value: '<br>' }, { type: 'text', value: part }] : [{ type: 'text', value: part }]));
    if ('children' in node) return [{ ...node, children: breakLines(node.children) } as PhrasingContent];
    return [node];
  });
}

function writeValue(value: TableValue | undefined, fragments: Map<string, Fragment>, ctx: WriteContext): PhrasingContent[] {
  const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
  if (fragment) {
    const paragraphs: Paragraph[] = fragment.nodes.map((block: Block) =>
      block.type === 'paragraph' ? block : { object: 'block', type: 'paragraph', key: '', data: {}, nodes: [{ object: 'text', key: '', leaves: [{ object: 'leaf', text: blocksText([block], '\n'), marks: [] }] }] },
    );
    const cells = paragraphs.map((p) => breakLines(writeInlines(p.nodes, ctx)));
    if (cells.length === 1) return cells[0] ?? [];
    return cells.flatMap((c): PhrasingContent[] => [{ type: 'html', value: '<p>' }, ...c, { type: 'html', value: '</p>' }]);
  }
  if (value === undefined || value === null) return [];
  if (typeof value === 'object' && !Array.isArray(value) && 'kind' in value && typeof value.kind === 'string') {
    const href = ctx.refs.toHref(value as Parameters<WriteContext['refs']['toHref']>[0]);
    return [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }];
  }
  return [{ type: 'text', value: Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value) }];
}

/** Writes a table as a GFM table (cards views and non-text columns as text). */
export function writeTable(block: Table, ctx: WriteContext): MdTable {
  const { definition, records, view } = block.data;
  const columns = view.columns.filter((id) => definition[id]);
  const fragments = new Map(block.fragments.map((f) => [f.fragment, f]));
  const hideHeader = view.type === 'grid' && view.hideHeader;
  const header: TableRow = { type: 'tableRow', children: columns.map((id) => ({ type: 'tableCell', children: hideHeader ? [] : [{ type: 'text', value: definition[id]?.title ?? '' }] })) };
  const rows: TableRow[] = Object.entries(records)
    .sort(([a, ra], [b, rb]) => (ra.orderIndex < rb.orderIndex ? -1 : ra.orderIndex > rb.orderIndex ? 1 : a < b ? -1 : 1))
    .map(([, record]) => ({ type: 'tableRow', children: columns.map((id) => ({ type: 'tableCell', children: writeValue(record.values[id], fragments, ctx) })) }));
  const align: AlignType[] = columns.map((id) => {
    const alignment = definition[id]?.textAlignment;
    return alignment === 'center' || alignment === 'right' ? alignment : null;
  });
  return { type: 'table', align, children: [header, ...rows] };
}
