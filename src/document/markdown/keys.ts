/**
 * Keys of a document read from markdown.
 *
 * Without a previous document, keys are derived: a hash of the node's kind, its position path
 * (`2.0.f1.3`: third top-level block, its first child, its second fragment…) and its text, so
 * the same markdown always gives the same keys.
 *
 * With the previous document (the one the markdown was written from), keys are carried over,
 * level by level from the top: a node with the same content as a previous sibling (same type,
 * data and children, keys and anchors aside; the one at the same position first) becomes a copy
 * of it, keys and table IDs included; a node of the same kind at the same position as a
 * previous one that did not match keeps that node's key, and its children are matched the same
 * way (a table's columns, records and cell fragments keep their IDs by position). Then any block
 * still unmatched that has the same content as a previous block nobody took (one moved into
 * or out of a container) becomes a copy of it. So an edit keeps the keys of all that did not
 * change, and change requests can merge documents block by block by key.
 */
import { hash } from 'node:crypto';
import {
  base62,
  inlinePlainText,
  type Block,
  type DocumentNode,
  type Fragment,
  type Inline,
  type JSONDocument,
  type Table,
  type Text,
} from '../model.js';
import { blockText, blocksText } from '../text.js';

type Keyed = Block | Inline | Text;

// A large page derives a key per node: the one-shot `hash`, its digest as a `binary` (latin1) string, costs
// a third of a `Hash` object and its Buffer.
const hashKey = (input: string): string => base62(hash('sha256', input, 'binary'), 12);
const kindOf = (node: DocumentNode): string =>
  node.object === 'text' ? 'text' : node.object === 'fragment' ? `fragment:${node.fragment}` : node.type;
const childrenOf = (node: DocumentNode): Keyed[] | undefined =>
  'nodes' in node && node.nodes ? (node.nodes as Keyed[]) : undefined;
/** The children of a block when they are blocks (the same array, to replace nodes in). */
const blockChildren = (node: Block): Block[] | undefined => {
  const children = childrenOf(node);
  return children?.[0]?.object === 'block' ? (children as Block[]) : undefined;
};
const fragmentsOf = (node: DocumentNode): Fragment[] | undefined =>
  'fragments' in node && node.fragments ? node.fragments : undefined;

function plainText(node: DocumentNode): string {
  if (node.object === 'block') return blockText(node);
  if (node.object === 'fragment') return blocksText(node.nodes);
  return inlinePlainText([node]);
}

/** Gives every node a key derived from its kind, position path and text. */
export function deriveKeys(document: JSONDocument): void {
  const visit = (node: DocumentNode, path: string): void => {
    node.key = hashKey(`${kindOf(node)}|${path}|${plainText(node)}`);
    childrenOf(node)?.forEach((child, i) => {
      visit(child, `${path}.${i}`);
    });
    fragmentsOf(node)?.forEach((fragment, i) => {
      visit(fragment, `${path}.f${i}`);
    });
  };
  document.nodes.forEach((node, i) => {
    visit(node, String(i));
  });
}

/** JSON with object keys sorted, so that equal content gives equal strings. */
function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stable(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The rows of a table in order: the cells' content, IDs aside. */
function tableContent(table: Table): unknown {
  const { definition, records, view, cellMerges, ...rest } = table.data;
  const columns = view.columns.filter((id) => definition[id]);
  const fragments = new Map(table.fragments.map((f) => [f.fragment, f]));
  const cell = (value: unknown): unknown => {
    const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
    return fragment ? fragment.nodes.map(content) : value;
  };
  return {
    ...rest,
    view: { ...view, columns: columns.length },
    columns: columns.map((id) => ({ ...definition[id], id: null })),
    rows: sortedRecords(table).map(([, record]) => columns.map((id) => cell(record.values[id]))),
    merges: cellMerges?.length ?? 0,
  };
}

/** A node without its keys and anchors (which follow from keys), as a plain value. */
function content(node: DocumentNode): unknown {
  if (node.object === 'block' && node.type === 'table') return { type: 'table', table: tableContent(node) };
  const { key, meta, nodes, fragments, ...rest } = node as DocumentNode & {
    meta?: unknown;
    nodes?: DocumentNode[];
    fragments?: Fragment[];
  };
  return { ...rest, nodes: nodes?.map(content), fragments: fragments?.map(content) };
}

const signature = (node: DocumentNode): string => stable(content(node));

function sortedRecords(table: Table): Array<[string, Table['data']['records'][string]]> {
  return Object.entries(table.data.records).sort(([a, ra], [b, rb]) =>
    ra.orderIndex < rb.orderIndex ? -1 : ra.orderIndex > rb.orderIndex ? 1 : a < b ? -1 : 1,
  );
}

function keysOf(node: DocumentNode, into: string[] = []): string[] {
  into.push(node.key);
  for (const child of childrenOf(node) ?? []) keysOf(child, into);
  for (const fragment of fragmentsOf(node) ?? []) keysOf(fragment, into);
  return into;
}

class Reconciler {
  /** Keys taken from the previous document. */
  private readonly used = new Set<string>();
  /** Next nodes whose key came from the previous document (copied subtrees included). */
  private readonly settled = new WeakSet<object>();

  constructor(private readonly previous: JSONDocument) {}

  run(next: JSONDocument): void {
    this.matchList(next.nodes, this.previous.nodes);
    this.matchMoved(next);
  }

  private free(node: DocumentNode): boolean {
    return keysOf(node).every((key) => !this.used.has(key));
  }

  private copy<T extends DocumentNode>(prev: T): T {
    const clone = structuredClone(prev);
    const settle = (node: DocumentNode): void => {
      this.settled.add(node);
      this.used.add(node.key);
      childrenOf(node)?.forEach(settle);
      fragmentsOf(node)?.forEach(settle);
    };
    settle(clone);
    return clone;
  }

  private matchList<T extends DocumentNode>(next: T[], prev: T[]): void {
    const signatures = prev.map(signature);
    const taken = new Set<number>();
    /** Next index → previous index of the nodes matched so far. */
    const partner = new Map<number, number>();
    next.forEach((node, i) => {
      const sig = signature(node);
      const j = signatures[i] === sig && !taken.has(i) ? i : signatures.findIndex((s, k) => s === sig && !taken.has(k));
      const candidate = prev[j];
      if (j < 0 || !candidate || !this.free(candidate)) return;
      taken.add(j);
      partner.set(i, j);
      next[i] = this.copy(candidate);
    });
    // Then each unmatched node takes the first free previous node of its kind between the
    // partners of its nearest matched neighbours (so insertions and edits do not shift matches).
    next.forEach((node, i) => {
      if (partner.has(i)) return;
      let low = -1;
      for (let k = i - 1; k >= 0 && low < 0; k--) low = partner.get(k) ?? -1;
      let high = prev.length;
      for (let k = i + 1; k < next.length && high === prev.length; k++) high = partner.get(k) ?? prev.length;
      for (let j = low + 1; j < high; j++) {
        const candidate = prev[j];
        if (!candidate || taken.has(j) || kindOf(candidate) !== kindOf(node) || this.used.has(candidate.key)) continue;
        taken.add(j);
        partner.set(i, j);
        this.keep(node, candidate);
        return;
      }
    });
  }

  /** `next` takes the key of `prev`; their children are matched in turn. */
  private keep(next: DocumentNode, prev: DocumentNode): void {
    next.key = prev.key;
    this.used.add(prev.key);
    this.settled.add(next);
    const children = childrenOf(next);
    const previousChildren = childrenOf(prev);
    if (children && previousChildren) this.matchList(children, previousChildren);
    if (next.object === 'block' && next.type === 'table' && prev.object === 'block' && prev.type === 'table')
      keepTableIds(next, prev);
    const fragments = fragmentsOf(next);
    const previousFragments = fragmentsOf(prev);
    if (!fragments || !previousFragments) return;
    fragments.forEach((fragment, i) => {
      const j = previousFragments.findIndex((f) => f.fragment === fragment.fragment);
      const candidate = previousFragments[j];
      if (!candidate || !this.free(candidate)) return;
      if (signature(candidate) === signature(fragment)) fragments[i] = this.copy(candidate);
      else this.keep(fragment, candidate);
    });
  }

  /** Blocks still unmatched that equal a previous block nobody took (moved blocks). */
  private matchMoved(next: JSONDocument): void {
    const available = new Map<string, Block[]>();
    const collect = (blocks: Block[]): void => {
      for (const block of blocks) {
        if (this.free(block)) {
          const sig = signature(block);
          available.set(sig, [...(available.get(sig) ?? []), block]);
        }
        const children = blockChildren(block);
        if (children) collect(children);
        for (const f of fragmentsOf(block) ?? []) collect(f.nodes);
      }
    };
    collect(this.previous.nodes);
    const visit = (blocks: Block[]): void => {
      blocks.forEach((block, i) => {
        if (!this.settled.has(block)) {
          const candidate = available.get(signature(block))?.find((b) => this.free(b));
          if (candidate) {
            blocks[i] = this.copy(candidate);
            return;
          }
        }
        const children = blockChildren(block);
        if (children) visit(children);
        for (const f of fragmentsOf(block) ?? []) visit(f.nodes);
      });
    };
    visit(next.nodes);
  }
}

/** Renames a table's column, record and cell IDs to those of the previous table, by position. */
function keepTableIds(next: Table, prev: Table): void {
  const rename = (pairs: Array<[string, string | undefined]>): Map<string, string> => {
    const map = new Map<string, string>();
    const targets = new Set(pairs.map(([, to]) => to).filter((to): to is string => to !== undefined));
    for (const [from, to] of pairs) {
      let id = to ?? from;
      for (let n = 2; to === undefined && targets.has(id); n++) id = `${from}-${n}`;
      targets.add(id);
      map.set(from, id);
    }
    return map;
  };
  const nextRecords = sortedRecords(next);
  const prevRecords = sortedRecords(prev);
  // Visible columns in order, then the hidden ones (a card's target and cover) in definition order.
  const allColumns = (table: Table) => [
    ...table.data.view.columns,
    ...Object.keys(table.data.definition).filter((id) => !table.data.view.columns.includes(id)),
  ];
  const prevColumns = allColumns(prev);
  const columns = rename(allColumns(next).map((id, i) => [id, prevColumns[i]]));
  const records = rename(nextRecords.map(([id], i) => [id, prevRecords[i]?.[0]]));
  const cellPairs: Array<[string, string | undefined]> = [];
  nextRecords.forEach(([, record], r) => {
    const prevRecord = prevRecords[r]?.[1];
    for (const [column, value] of Object.entries(record.values)) {
      const prevValue = prevRecord?.values[columns.get(column) ?? column];
      if (typeof value === 'string' && next.fragments.some((f) => f.fragment === value)) {
        cellPairs.push([
          value,
          typeof prevValue === 'string' && prev.fragments.some((f) => f.fragment === prevValue) ? prevValue : undefined,
        ]);
      }
    }
  });
  const cells = rename(cellPairs);
  const definition: Table['data']['definition'] = {};
  for (const [id, column] of Object.entries(next.data.definition)) {
    const to = columns.get(id) ?? id;
    definition[to] = { ...column, id: to };
  }
  const recordsOut: Table['data']['records'] = {};
  nextRecords.forEach(([id, record], r) => {
    const values: Table['data']['records'][string]['values'] = {};
    for (const [column, value] of Object.entries(record.values))
      values[columns.get(column) ?? column] = typeof value === 'string' ? (cells.get(value) ?? value) : value;
    // Rows past the previous ones sort after the last of them.
    const last = prevRecords[prevRecords.length - 1]?.[1].orderIndex ?? '';
    recordsOut[records.get(id) ?? id] = {
      orderIndex: prevRecords[r]?.[1].orderIndex ?? `${last}${record.orderIndex}`,
      values,
    };
  });
  next.data.definition = definition;
  next.data.records = recordsOut;
  const view = {
    ...next.data.view,
    columns: next.data.view.columns.map((id) => columns.get(id) ?? id),
  } as Table['data']['view'] & Record<string, unknown>;
  for (const field of ['targetDefinition', 'coverDefinition', 'coverDefinitionDark']) {
    const id = view[field];
    if (typeof id === 'string') view[field] = columns.get(id) ?? id;
  }
  next.data.view = view;
  for (const fragment of next.fragments) fragment.fragment = cells.get(fragment.fragment) ?? fragment.fragment;
}

/** Carries keys over from the previous document (see the module comment). */
export function reconcileKeys(next: JSONDocument, previous: JSONDocument): void {
  new Reconciler(previous).run(next);
}

/** Makes keys unique: a repeated key is replaced by one derived from it. */
export function uniqueKeys(document: JSONDocument): void {
  const seen = new Set<string>();
  const visit = (node: DocumentNode): void => {
    let key = node.key;
    for (let n = 1; !key || seen.has(key); n++) key = hashKey(`${node.key}|${n}`);
    node.key = key;
    seen.add(key);
    childrenOf(node)?.forEach(visit);
    fragmentsOf(node)?.forEach(visit);
  };
  document.nodes.forEach(visit);
}
