/**
 * Tables both ways. A GFM table is a grid table of `text` columns: `data.definition` has one
 * column per header cell (its text as the title, its alignment as `textAlignment`, `left`
 * when none), `data.records` one record per row (`orderIndex` in row order), and the value
 * of each column in a record names the fragment of the block that holds the cell's
 * paragraphs. A cell of several paragraphs is written `<p>…</p><p>…</p>`, a line break
 * `<br>`. IDs are `col1`…, `row1`…, `cell1x1`… (keys.ts carries a previous table's IDs over).
 *
 * A table with a cards view is HTML, as GitBook writes it: `<table data-view="cards">` (with
 * `data-card-size="large"` for large cards), a header cell per column, `data-hidden` on those
 * the cards do not show, `data-card-target` on the column each card links to and
 * `data-card-cover` on its cover, `data-type="content-ref"` or `"files"` for columns of those
 * types (a link, or links to files, in their cells); other columns are text columns whose cells
 * hold inline HTML (`<p>` for each of several paragraphs).
 */
import type { Element } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import type { AlignType, PhrasingContent, Table as MdTable, TableCell, TableRow } from 'mdast';
import {
  inlinePlainText,
  orderIndex,
  type Block,
  type ContentRef,
  type Fragment,
  type Paragraph,
  type Table,
  type TableCardsView,
  type TableDefinition,
  type TableRecord,
  type TableValue,
} from '../model.js';
import type { ReadContext, WriteContext } from './context.js';
import { attr, blank, elements, readHtmlParagraphs } from './html.js';
import { readHtmlInlines, readParagraph } from './inline-read.js';
import { escapeHtml, writeHtmlInlines, writeInlines } from './inline-write.js';
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
  const paragraphs = segments
    .filter((s) => s.some((n) => n.type !== 'text' || n.value.trim() !== ''))
    .map((s) => readParagraph(s, ctx));
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
    definition[id] = {
      id,
      title: cell ? inlinePlainText(readParagraph(cell.children, ctx).nodes) : '',
      type: 'text',
      textAlignment: align === 'center' || align === 'right' ? align : 'left',
    };
  });
  const records: Record<string, TableRecord> = {};
  const fragments: Fragment[] = [];
  rows.forEach((row, r) => {
    const values: Record<string, TableValue> = {};
    columns.forEach((column, c) => {
      const name = `cell${r + 1}x${c + 1}`;
      values[column] = name;
      const cell = row.children[c];
      fragments.push({
        object: 'fragment',
        key: '',
        fragment: name,
        nodes: cell ? readCell(cell, ctx) : [readParagraph([], ctx)],
      });
    });
    records[`row${r + 1}`] = { orderIndex: orderIndex(r), values };
  });
  const hideHeader = width > 0 && Object.values(definition).every((d) => d.title === '');
  return {
    object: 'block',
    type: 'table',
    key: '',
    data: { view: { type: 'grid', columns, hideHeader }, records, definition },
    fragments,
    isVoid: true,
  };
}

/** Line breaks in a cell's text as `<br>` (a GFM cell is one line). */
function breakLines(nodes: PhrasingContent[]): PhrasingContent[] {
  return nodes.flatMap((node): PhrasingContent[] => {
    if (node.type === 'text')
      return node.value.split('\n').flatMap((part, i): PhrasingContent[] =>
        i
          ? [
              { type: 'html', value: '<br>' },
              { type: 'text', value: part },
            ]
          : [{ type: 'text', value: part }],
      );
    if ('children' in node) return [{ ...node, children: breakLines(node.children) } as PhrasingContent];
    return [node];
  });
}

function writeValue(
  value: TableValue | undefined,
  fragments: Map<string, Fragment>,
  ctx: WriteContext,
): PhrasingContent[] {
  const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
  if (fragment) {
    const paragraphs: Paragraph[] = fragment.nodes.map((block: Block) =>
      block.type === 'paragraph'
        ? block
        : {
            object: 'block',
            type: 'paragraph',
            key: '',
            data: {},
            nodes: [
              { object: 'text', key: '', leaves: [{ object: 'leaf', text: blocksText([block], '\n'), marks: [] }] },
            ],
          },
    );
    const cells = paragraphs.map((p) => breakLines(writeInlines(p.nodes, ctx)));
    if (cells.length === 1) return cells[0] ?? [];
    return cells.flatMap((c): PhrasingContent[] => [
      { type: 'html', value: '<p>' },
      ...c,
      { type: 'html', value: '</p>' },
    ]);
  }
  if (value === undefined || value === null) return [];
  if (typeof value === 'object' && !Array.isArray(value) && 'kind' in value && typeof value.kind === 'string') {
    const href = ctx.refs.toHref(value as Parameters<WriteContext['refs']['toHref']>[0]);
    return [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }];
  }
  return [
    {
      type: 'text',
      value: Array.isArray(value)
        ? value.join(', ')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value),
    },
  ];
}

/** Writes a grid table as a GFM table (non-text columns as text). */
export function writeTable(block: Table, ctx: WriteContext): MdTable {
  const { definition, records, view } = block.data;
  const columns = view.columns.filter((id) => definition[id]);
  const fragments = new Map(block.fragments.map((f) => [f.fragment, f]));
  const hideHeader = view.type === 'grid' && view.hideHeader;
  const header: TableRow = {
    type: 'tableRow',
    children: columns.map((id) => ({
      type: 'tableCell',
      children: hideHeader ? [] : [{ type: 'text', value: definition[id]?.title ?? '' }],
    })),
  };
  const rows: TableRow[] = Object.entries(records)
    .sort(([a, ra], [b, rb]) =>
      ra.orderIndex < rb.orderIndex ? -1 : ra.orderIndex > rb.orderIndex ? 1 : a < b ? -1 : 1,
    )
    .map(([, record]) => ({
      type: 'tableRow',
      children: columns.map((id) => ({ type: 'tableCell', children: writeValue(record.values[id], fragments, ctx) })),
    }));
  const align: AlignType[] = columns.map((id) => {
    const alignment = definition[id]?.textAlignment;
    return alignment === 'center' || alignment === 'right' ? alignment : null;
  });
  return { type: 'table', align, children: [header, ...rows] };
}

/** The element children of an element with one of the tag names. */
const childrenNamed = (node: Element, ...names: string[]): Element[] =>
  elements(node.children).filter((e) => names.includes(e.tagName));
/** The `<a href>` elements inside an element, at any depth. */
const anchors = (node: Element): Element[] =>
  elements(node.children).flatMap((e) => (e.tagName === 'a' && attr(e, 'href') !== undefined ? [e] : anchors(e)));
const has = (node: Element, name: string): boolean => attr(node, name) !== undefined;

/**
 * Reads `<table data-view="cards">` HTML into a table with a cards view (see the module
 * comment); `undefined` for other HTML, and for a `files` cell that links to anything but files.
 */
export function readCardsTable(html: string, ctx: ReadContext): Table | undefined {
  const root = fromHtml(html, { fragment: true });
  const [table] = elements(root.children);
  if (
    elements(root.children).length !== 1 ||
    !blank(root.children) ||
    table?.tagName !== 'table' ||
    attr(table, 'dataView') !== 'cards'
  )
    return undefined;
  const sections = childrenNamed(table, 'thead', 'tbody');
  const headRow = sections.filter((e) => e.tagName === 'thead').flatMap((e) => childrenNamed(e, 'tr'))[0];
  if (!headRow) return undefined;
  const heads = childrenNamed(headRow, 'th', 'td');
  const rows = sections.filter((e) => e.tagName === 'tbody').flatMap((e) => childrenNamed(e, 'tr'));
  const view: TableCardsView = {
    type: 'cards',
    cardSize: attr(table, 'dataCardSize') === 'large' ? 'large' : 'medium',
    columns: [],
  };
  const definition: Record<string, TableDefinition> = {};
  const ids = heads.map((th, i) => {
    const id = `col${i + 1}`;
    const title = inlinePlainText(readHtmlInlines(th.children, ctx));
    const type = attr(th, 'dataType');
    if (type === 'content-ref' || type === 'files') definition[id] = { id, title, type };
    else {
      const align = attr(th, 'align');
      definition[id] = {
        id,
        title,
        type: 'text',
        textAlignment: align === 'center' || align === 'right' ? align : 'left',
      };
    }
    if (!has(th, 'dataHidden')) view.columns.push(id);
    if (has(th, 'dataCardTarget')) view.targetDefinition = id;
    if (has(th, 'dataCardCover')) view.coverDefinition = id;
    return id;
  });
  const records: Record<string, TableRecord> = {};
  const fragments: Fragment[] = [];
  for (const [r, row] of rows.entries()) {
    const cells = childrenNamed(row, 'td', 'th');
    const values: Record<string, TableValue> = {};
    for (const [c, id] of ids.entries()) {
      const cell = cells[c];
      const type = definition[id]?.type;
      const hrefs = cell ? anchors(cell).map((a) => attr(a, 'href') as string) : [];
      if (type === 'content-ref') {
        if (hrefs[0] !== undefined) values[id] = ctx.refs.fromHref(hrefs[0]);
      } else if (type === 'files') {
        const refs = hrefs.map((href) => ctx.refs.fromHref(href));
        const files = refs.flatMap((ref) => (ref.kind === 'file' ? [ref.file] : []));
        if (files.length !== refs.length) return undefined;
        if (files.length) values[id] = files;
      } else {
        const name = `cell${r + 1}x${c + 1}`;
        values[id] = name;
        const paragraphs = cell ? readHtmlParagraphs(cell.children, ctx) : [];
        fragments.push({
          object: 'fragment',
          key: '',
          fragment: name,
          nodes: paragraphs.length ? paragraphs : [readParagraph([], ctx)],
        });
      }
    }
    records[`row${r + 1}`] = { orderIndex: orderIndex(r), values };
  }
  return { object: 'block', type: 'table', key: '', data: { view, records, definition }, fragments, isVoid: true };
}

/** The HTML of a cards table cell's value. */
function writeCardValue(
  value: TableValue | undefined,
  column: TableDefinition,
  fragments: Map<string, Fragment>,
  ctx: WriteContext,
): string {
  const fragment = column.type === 'text' && typeof value === 'string' ? fragments.get(value) : undefined;
  if (fragment) {
    const paragraphs = fragment.nodes.map((block: Block) =>
      writeHtmlInlines(
        block.type === 'paragraph'
          ? block.nodes
          : [{ object: 'text', key: '', leaves: [{ object: 'leaf', text: blocksText([block], '\n'), marks: [] }] }],
        ctx,
      ),
    );
    return paragraphs.length === 1 ? (paragraphs[0] ?? '') : paragraphs.map((p) => `<p>${p}</p>`).join('');
  }
  if (value === undefined || value === null) return '';
  const link = (ref: ContentRef, label?: string): string => {
    const href = ctx.refs.toHref(ref);
    return `<a href="${escapeHtml(href)}">${escapeHtml(label ?? href)}</a>`;
  };
  if (column.type === 'files' && Array.isArray(value)) {
    return value
      .map((file) => {
        const href = ctx.refs.toHref({ kind: 'file', file });
        return link({ kind: 'file', file }, href.split('/').pop() || href);
      })
      .join('');
  }
  if (typeof value === 'object' && !Array.isArray(value) && typeof value.kind === 'string')
    return link(value as ContentRef);
  return escapeHtml(
    Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value),
  );
}

/** Writes a table with a cards view as `<table data-view="cards">` HTML on one line (see the module comment). */
export function writeCardsTable(block: Table, ctx: WriteContext): string {
  const { definition, records } = block.data;
  const view = block.data.view as TableCardsView;
  const shown = view.columns.filter((id) => definition[id]);
  const columns = [...shown, ...Object.keys(definition).filter((id) => !shown.includes(id))];
  const fragments = new Map(block.fragments.map((f) => [f.fragment, f]));
  const heads = columns.map((id) => {
    const column = definition[id] as TableDefinition;
    let attrs = shown.includes(id) ? '' : ' data-hidden';
    if (view.targetDefinition === id) attrs += ' data-card-target';
    if (view.coverDefinition === id) attrs += ' data-card-cover';
    if (column.type === 'content-ref' || column.type === 'files') attrs += ` data-type="${column.type}"`;
    else if (column.textAlignment === 'center' || column.textAlignment === 'right')
      attrs += ` align="${column.textAlignment}"`;
    return `<th${attrs}>${escapeHtml(column.title)}</th>`;
  });
  const rows = Object.entries(records)
    .sort(([a, ra], [b, rb]) =>
      ra.orderIndex < rb.orderIndex ? -1 : ra.orderIndex > rb.orderIndex ? 1 : a < b ? -1 : 1,
    )
    .map(
      ([, record]) =>
        `<tr>${columns.map((id) => `<td>${writeCardValue(record.values[id], definition[id] as TableDefinition, fragments, ctx)}</td>`).join('')}</tr>`,
    );
  const size = view.cardSize === 'large' ? ' data-card-size="large"' : '';
  return `<table data-view="cards"${size}><thead><tr>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}
