/**
 * Reading mdast flow content into blocks, with the tag layer: tag lines (`{% hint %}`…) and
 * `<details>`/`</details>` HTML are tokens among the other flow nodes of a container; an
 * opening token is paired with the nearest matching closing one among the same siblings, and
 * the nodes between become the container's children. An opening tag without its end is a
 * void block if it can be one (`embed`, `file`, `content-ref`) and literal text otherwise,
 * like a closing tag without its start and any unknown tag. Literal text is a paragraph of
 * what was written (written back escaped, so it stays text).
 */
import type { Heading as MdHeading, List, ListItem as MdListItem, PhrasingContent, RootContent } from 'mdast';
import {
  slugify,
  type Block,
  type Code,
  type CodeData,
  type Embed,
  type FileBlock,
  type Fragment,
  type Heading,
  type HintStyle,
  type Paragraph,
  type TabsItem,
} from '../model.js';
import type { ReadContext } from './context.js';
import {
  isDetailsEnd,
  isDivEnd,
  readDetailsHead,
  readFigures,
  readImagesDivOpen,
  readMarkdownImages,
  type DetailsHead,
} from './html.js';
import { literalParagraph, readInlines, readParagraph, sourceOf } from './inline-read.js';
import { readCardsTable, readTable } from './table.js';
import { keptBlock, KEPT_TAGS } from './kept.js';
import { booleanAttr, readTagLine, type TagToken } from './tags.js';

/** Tags that wrap content (`{% name %}…{% endname %}`). */
const CONTAINERS = new Set([
  'hint',
  'tabs',
  'tab',
  'code',
  'embed',
  'file',
  'content-ref',
  'page-ref',
  ...Object.keys(KEPT_TAGS),
]);
/** Tags that stand alone when no end follows. */
const VOIDABLE = new Set(['embed', 'file', 'content-ref', 'page-ref']);
const HINT_STYLES: readonly HintStyle[] = ['info', 'warning', 'danger', 'success'];

type Token =
  | { kind: 'node'; node: RootContent; ctx: ReadContext }
  | { kind: 'block'; block: Block }
  | { kind: 'literal'; text: string }
  | { kind: 'include'; tag: TagToken }
  | { kind: 'open'; name: string; tag?: TagToken; details?: DetailsHead; raw: string }
  | { kind: 'close'; name: string; raw: string };

function tokenize(nodes: RootContent[], ctx: ReadContext): Token[] {
  const tokens: Token[] = [];
  for (let index = 0; index < nodes.length; index += 1) {
    let node = nodes[index]!;
    // `<details>` and its `<summary>` separated by a blank line (as some exports write them)
    // are two HTML nodes: read them as one.
    const next = nodes[index + 1];
    if (
      node.type === 'html' &&
      /^<details(\s+open)?\s*>$/i.test(node.value.trim()) &&
      next?.type === 'html' &&
      /^<summary>/i.test(next.value.trim())
    ) {
      node = { ...node, value: `${node.value.trim()}\n${next.value}` };
      index += 1;
    }
    // `<div data-with-frame="true">`, markdown images and `</div>`, apart by blank lines: one images block.
    const divData = node.type === 'html' ? readImagesDivOpen(node.value) : undefined;
    const after = nodes[index + 2];
    if (divData && next?.type === 'paragraph' && after?.type === 'html' && isDivEnd(after.value)) {
      const images = readMarkdownImages(next, ctx);
      if (images) {
        tokens.push({ kind: 'block', block: { ...images, data: divData } });
        index += 2;
        continue;
      }
    }
    if (node.type === 'gitbookTagLine') {
      const parts = readTagLine(node.value);
      const known = parts.every((p) => p.kind === 'text' || CONTAINERS.has(p.name) || (p.name === 'include' && !p.end));
      if (!known || !parts.some((p) => p.kind === 'tag')) {
        tokens.push({ kind: 'literal', text: node.value });
        continue;
      }
      for (const part of parts) {
        if (part.kind === 'text') tokens.push(...fragmentTokens(part.value, ctx));
        else if (part.name === 'include') tokens.push({ kind: 'include', tag: part });
        else if (part.end) tokens.push({ kind: 'close', name: part.name, raw: part.raw });
        else tokens.push({ kind: 'open', name: part.name, tag: part, raw: part.raw });
      }
    } else if (node.type === 'html') {
      const head = readDetailsHead(node.value, ctx);
      if (head) {
        const raw = node.value.slice(0, node.value.search(/<\/summary>/i) + '</summary>'.length);
        tokens.push({ kind: 'open', name: 'details', details: head, raw });
        if (head.rest.trim()) tokens.push(...fragmentTokens(head.rest, ctx));
        if (head.closed) tokens.push({ kind: 'close', name: 'details', raw: '</details>' });
      } else if (isDetailsEnd(node.value)) tokens.push({ kind: 'close', name: 'details', raw: node.value });
      else tokens.push({ kind: 'node', node, ctx });
    } else tokens.push({ kind: 'node', node, ctx });
  }
  return tokens;
}

/** Tokens of markdown written in a tag line or an HTML block. */
function fragmentTokens(markdown: string, ctx: ReadContext): Token[] {
  const fragment = ctx.fragment(markdown);
  return tokenize(fragment.nodes, fragment.ctx);
}

/** Pairs opening and closing tokens: the index of each one's partner. */
function pair(tokens: Token[]): Map<number, number> {
  const partners = new Map<number, number>();
  const open: number[] = [];
  tokens.forEach((token, index) => {
    if (token.kind === 'open') open.push(index);
    if (token.kind !== 'close') return;
    const at = open.map((i) => (tokens[i] as { name: string }).name).lastIndexOf(token.name);
    if (at < 0) return;
    const start = open[at] as number;
    open.length = at;
    partners.set(start, index);
  });
  return partners;
}

/** Reads flow content (the children of the root, a list item, a quote…) into blocks. */
export function readFlow(nodes: RootContent[], ctx: ReadContext): Block[] {
  const tokens = tokenize(nodes, ctx);
  return build(tokens, pair(tokens), 0, tokens.length, ctx, false);
}

function build(
  tokens: Token[],
  partners: Map<number, number>,
  from: number,
  to: number,
  ctx: ReadContext,
  inTabs: boolean,
): Block[] {
  const out: Block[] = [];
  for (let i = from; i < to; i++) {
    const token = tokens[i] as Token;
    if (token.kind === 'node') out.push(...readNode(token.node, token.ctx));
    else if (token.kind === 'block') out.push(token.block);
    else if (token.kind === 'literal' || token.kind === 'close')
      out.push(literalParagraph(token.kind === 'literal' ? token.text : token.raw));
    else if (token.kind === 'include') out.push(readInclude(token.tag, ctx));
    else {
      const end = partners.get(i);
      if (end === undefined) {
        out.push(
          ...(VOIDABLE.has(token.name) && token.tag ? readContainer(token, [], ctx) : [literalParagraph(token.raw)]),
        );
        continue;
      }
      const children = build(tokens, partners, i + 1, end, ctx, token.name === 'tabs');
      out.push(...readContainer(token, children, ctx));
      i = end;
    }
  }
  // A tab outside tabs is its content.
  return inTabs ? out : out.flatMap((block) => (block.type === 'tabs-item' ? block.nodes : [block]));
}

const captionOf = (children: Block[]): { caption: Array<Fragment<Paragraph>>; rest: Block[] } => {
  const count = children.findIndex((b) => b.type !== 'paragraph');
  const paragraphs = (count < 0 ? children : children.slice(0, count)) as Paragraph[];
  const rest = count < 0 ? [] : children.slice(count);
  return {
    caption: paragraphs.length ? [{ object: 'fragment', key: '', fragment: 'caption', nodes: paragraphs }] : [],
    rest,
  };
};

function readContainer(token: Extract<Token, { kind: 'open' }>, children: Block[], ctx: ReadContext): Block[] {
  const attrs = token.tag?.attrs ?? {};
  switch (token.name) {
    case 'hint': {
      const style = HINT_STYLES.find((s) => s === attrs.style) ?? 'info';
      return [
        {
          object: 'block',
          type: 'hint',
          key: '',
          data: attrs.icon ? { style, icon: attrs.icon } : { style },
          nodes: children,
        },
      ];
    }
    case 'tabs': {
      const items: TabsItem[] = [];
      for (const child of children) {
        if (child.type === 'tabs-item') items.push(child);
        else if (items.length) items[items.length - 1]?.nodes.push(child);
        else
          items.push({
            object: 'block',
            type: 'tabs-item',
            key: '',
            data: { title: '' },
            nodes: [child],
            meta: { id: '' },
          });
      }
      return [
        {
          object: 'block',
          type: 'tabs',
          key: '',
          data: booleanAttr(attrs.fullWidth) ? { fullWidth: true } : {},
          nodes: items,
        },
      ];
    }
    case 'tab': {
      const data: TabsItem['data'] = { title: attrs.title ?? '' };
      if (attrs.icon) data.icon = attrs.icon;
      return [
        {
          object: 'block',
          type: 'tabs-item',
          key: '',
          data,
          nodes: children.length ? children : [literalParagraph('')],
          meta: { id: '' },
        },
      ];
    }
    case 'code': {
      const code = children.find((b): b is Code => b.type === 'code');
      if (code) Object.assign(code.data, codeAttrs(attrs));
      return children;
    }
    case 'embed': {
      if (!attrs.url) return [literalParagraph(token.raw), ...children];
      const { caption, rest } = captionOf(children);
      const data: Embed['data'] = { url: attrs.url };
      if (booleanAttr(attrs.fullWidth)) data.fullWidth = true;
      return [{ object: 'block', type: 'embed', key: '', data, fragments: caption, isVoid: true }, ...rest];
    }
    case 'file': {
      const ref = attrs.src === undefined ? undefined : ctx.refs.fromHref(attrs.src);
      if (ref?.kind !== 'file') return [literalParagraph(token.raw), ...children];
      const { caption, rest } = captionOf(children);
      const file: FileBlock = {
        object: 'block',
        type: 'file',
        key: '',
        data: { ref },
        fragments: caption,
        isVoid: true,
      };
      return [file, ...rest];
    }
    case 'content-ref':
    case 'page-ref': {
      const href = attrs.url ?? attrs.page;
      if (href === undefined) return [literalParagraph(token.raw), ...children];
      return [{ object: 'block', type: 'content-ref', key: '', data: { ref: ctx.refs.fromHref(href) }, isVoid: true }];
    }
    case 'details':
      break;
    default: {
      // Tags kept as blocks of their own; one that lacks what its block needs stays text.
      const kept = keptBlock(token.name, attrs, token.raw, children.length ? children : [literalParagraph('')]);
      return kept ? [kept] : [literalParagraph(token.raw), ...children, literalParagraph(`{% end${token.name} %}`)];
    }
  }
  // `<details>`: an expandable.
  {
    const head = token.details as DetailsHead;
    const title: Paragraph = { object: 'block', type: 'paragraph', key: '', data: {}, nodes: head.title };
    return [
      {
        object: 'block',
        type: 'expandable',
        key: '',
        data: head.open ? { defaultExpanded: true } : {},
        fragments: [
          { object: 'fragment', key: '', fragment: 'expandable-title', type: 'expandable-title', nodes: [title] },
          {
            object: 'fragment',
            key: '',
            fragment: 'expandable-body',
            type: 'expandable-body',
            nodes: children.length ? children : [literalParagraph('')],
          },
        ],
        meta: { id: '' },
        isVoid: true,
      },
    ];
  }
}

function codeAttrs(attrs: Record<string, string>): CodeData {
  const data: CodeData = {};
  if (attrs.title !== undefined) data.title = attrs.title;
  if (attrs.overflow === 'wrap' || attrs.overflow === 'scroll') data.overflow = attrs.overflow;
  for (const name of ['lineNumbers', 'expandable', 'fullWidth'] as const) {
    const value = booleanAttr(attrs[name]);
    if (value !== undefined) data[name] = value;
  }
  const lines = Number(attrs.collapsedLineCount);
  if (Number.isInteger(lines) && lines >= 1) data.collapsedLineCount = lines;
  return data;
}

function readInclude(tag: TagToken, ctx: ReadContext): Block {
  const href = tag.args[0] ?? tag.attrs.src;
  const ref = href === undefined ? undefined : ctx.refs.fromHref(href);
  if (ref?.kind !== 'reusable-content') return literalParagraph(tag.raw);
  return { object: 'block', type: 'reusable-content', key: '', data: { ref }, isVoid: true };
}

/** Reads one mdast flow node (most become one block). */
function readNode(node: RootContent, ctx: ReadContext): Block[] {
  switch (node.type) {
    case 'paragraph':
      return [readMarkdownImages(node, ctx) ?? readParagraph(node.children, ctx)];
    case 'heading':
      return [readHeading(node, ctx)];
    case 'thematicBreak':
      return [{ object: 'block', type: 'divider', key: '', data: {}, isVoid: true }];
    case 'blockquote':
      return [{ object: 'block', type: 'blockquote', key: '', data: {}, nodes: readFlow(node.children, ctx) }];
    case 'list':
      return [readList(node, ctx)];
    case 'code': {
      const lines = node.value.split('\n').map((line): Code['nodes'][number] => ({
        object: 'block',
        type: 'code-line',
        key: '',
        data: {},
        nodes: [{ object: 'text', key: '', leaves: [{ object: 'leaf', text: line, marks: [] }] }],
      }));
      return [{ object: 'block', type: 'code', key: '', data: node.lang ? { syntax: node.lang } : {}, nodes: lines }];
    }
    case 'math':
      return [{ object: 'block', type: 'math', key: '', data: { formula: node.value }, isVoid: true }];
    case 'table':
      return [readTable(node, ctx)];
    case 'html':
      return [readFigures(node.value, ctx) ?? readCardsTable(node.value, ctx) ?? literalParagraph(node.value)];
    case 'definition':
      return [];
    default:
      return [literalParagraph(sourceOf(node, ctx))];
  }
}

const ANCHOR = /^<a\s[^>]*\bid="([^"]+)"[^>]*>$/i;

/** Reads a heading (`##` is heading-1…) and its trailing `<a href="#id" id="id"></a>` anchor. */
export function readHeading(node: MdHeading, ctx: ReadContext): Heading {
  const { children, id } = headingContent(node);
  const type = node.depth <= 2 ? 'heading-1' : node.depth === 3 ? 'heading-2' : 'heading-3';
  const anchor = id === undefined ? undefined : /^[-a-z0-9.+_]+$/.test(id) ? id : slugify(id) || undefined;
  return {
    object: 'block',
    type,
    key: '',
    data: anchor ? { id: anchor } : {},
    nodes: readInlines(children, ctx),
    meta: { id: '' },
  };
}

/** A heading's content without its trailing anchor, and the anchor's ID. */
export function headingContent(node: MdHeading): { children: PhrasingContent[]; id?: string } {
  const children = [...node.children];
  while (
    children.length &&
    children[children.length - 1]?.type === 'text' &&
    (children[children.length - 1] as { value: string }).value.trim() === ''
  )
    children.pop();
  const close = children[children.length - 1];
  const open = children[children.length - 2];
  const id =
    open?.type === 'html' && close?.type === 'html' && /^<\/a\s*>$/i.test(close.value)
      ? ANCHOR.exec(open.value)?.[1]
      : undefined;
  if (id === undefined) return { children };
  children.splice(-2);
  const last = children[children.length - 1];
  if (last?.type === 'text') children[children.length - 1] = { ...last, value: last.value.trimEnd() };
  return { children, id };
}

function readList(node: List, ctx: ReadContext): Block {
  const tasks = !node.ordered && node.children.some((item) => typeof item.checked === 'boolean');
  const items = node.children.map((item: MdListItem) => {
    const nodes = readFlow(item.children, ctx);
    return {
      object: 'block' as const,
      type: 'list-item' as const,
      key: '',
      data: tasks ? { checked: item.checked === true } : {},
      nodes: nodes.length ? nodes : [literalParagraph('')],
    };
  });
  if (node.ordered)
    return {
      object: 'block',
      type: 'list-ordered',
      key: '',
      data: typeof node.start === 'number' && node.start !== 1 ? { start: node.start } : {},
      nodes: items,
    };
  return { object: 'block', type: tasks ? 'list-tasks' : 'list-unordered', key: '', data: {}, nodes: items };
}
