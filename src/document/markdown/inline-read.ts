/**
 * Reading mdast phrasing content (and the HTML of captions and summaries) into a document's
 * texts and inlines. Marks come from emphasis, strong, delete and inline code, and from the
 * inline HTML pairs `<kbd>`, `<mark style="color:…;background-color:…;">`, `<sup>`, `<sub>`
 * (also `<strong>`, `<em>`, `<s>`…). An HTML tag without its pair is kept as literal text.
 *
 * The platform's inline HTML reads into inlines: `<code class="expression">` an expression,
 * `<i class="fa-NAME">:NAME:</i>` an icon (colored by a `<mark style="color:…">` around it),
 * `<a href class="button primary|secondary" data-icon>` a button, `<img src alt data-size>` (or a
 * `<picture>` with a dark variant) an inline image, `<a data-mention href>` a mention.
 */
import type { Element, ElementContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import type { PhrasingContent } from 'mdast';
import {
  TEXT_COLORS,
  emojiChar,
  leaf,
  sortMarks,
  type ButtonData,
  type ContentRef,
  type ContentRefFile,
  type ContentRefUrl,
  type DocumentAction,
  type InlineContent,
  type Leaf,
  type Mark,
  type Paragraph,
  type Text,
  type TextColor,
} from '../model.js';
import type { ReadContext } from './context.js';
import { emojiCodeByName, splitEmoji } from './emoji.js';

type Piece = Leaf | Exclude<InlineContent, Text>;

/** Reads phrasing content into texts and inlines (adjacent leaves of the same marks merged). */
export function readInlines(nodes: PhrasingContent[], ctx: ReadContext, marks: Mark[] = []): InlineContent[] {
  // One text without emoji, most paragraphs of a long page: its text of one leaf, as `group` would
  // make it, without the maps and closures of the general reading.
  const only = nodes.length === 1 ? nodes[0] : undefined;
  if (only?.type === 'text' && only.value !== '') {
    const parts = splitEmoji(only.value);
    if (parts.length === 1 && parts[0] === only.value)
      return [{ key: '', leaves: [leaf(only.value, ...marks)], object: 'text' }];
  }
  return group(readPieces(nodes, ctx, marks, false));
}

/** A paragraph of phrasing content (keys in sorted order, as stored documents have them). */
export function readParagraph(nodes: PhrasingContent[], ctx: ReadContext): Paragraph {
  return { data: {}, key: '', nodes: readInlines(nodes, ctx), object: 'block', type: 'paragraph' };
}

/** A paragraph of one literal text (markdown the converter keeps as it was written). */
export function literalParagraph(value: string): Paragraph {
  return {
    object: 'block',
    type: 'paragraph',
    key: '',
    data: {},
    nodes: value ? [{ object: 'text', key: '', leaves: [leaf(value)] }] : [],
  };
}

/** An image reference: a `url` ref unless the resolver reads a file. */
export function imageRef(href: string, ctx: ReadContext): ContentRefUrl | ContentRefFile {
  const ref = ctx.refs.fromHref(href);
  return ref.kind === 'file' || ref.kind === 'url' ? ref : { kind: 'url', url: href };
}

const MARK_TAGS: Record<string, Mark['type']> = {
  kbd: 'keyboard',
  sup: 'superscript',
  sub: 'subscript',
  mark: 'color',
  strong: 'bold',
  b: 'bold',
  em: 'italic',
  i: 'italic',
  s: 'strikethrough',
  del: 'strikethrough',
  strike: 'strikethrough',
  code: 'code',
};
const OPEN_TAG = /^<([a-z]+)((?:\s[^>]*)?)>$/i;
const CLOSE_TAG = /^<\/([a-z]+)\s*>$/i;
const BREAK_TAG = /^<br\s*\/?>$/i;

/** A mark for an HTML element name and its `style` attribute, if it is a mark. */
function htmlMark(name: string, style: string | undefined): Mark | undefined {
  const type = MARK_TAGS[name.toLowerCase()];
  if (!type) return undefined;
  if (type !== 'color') return { object: 'mark', type };
  const color = (property: string): TextColor => {
    const value = new RegExp(`(?:^|;)\\s*${property}\\s*:\\s*([^;]+)`).exec(style ?? '')?.[1]?.trim();
    return (TEXT_COLORS as readonly string[]).includes(value ?? '') ? (value as TextColor) : 'default';
  };
  return { object: 'mark', type: 'color', data: { text: color('color'), background: color('background-color') } };
}

const styleOf = (attrs: string): string | undefined => /\sstyle\s*=\s*"([^"]*)"/i.exec(attrs)?.[1];

/** Indices of inline HTML tags that open or close a mark and have their pair among siblings (outside `spans`). */
function pairedHtml(nodes: PhrasingContent[], spans: Map<number, HtmlSpan>): Map<number, Mark | 'close'> {
  const paired = new Map<number, Mark | 'close'>();
  const open: Array<{ index: number; name: string; mark: Mark }> = [];
  const inSpan = new Set<number>();
  for (const [start, span] of spans) for (let i = start; i <= span.end; i++) inSpan.add(i);
  nodes.forEach((node, index) => {
    if (node.type !== 'html' || inSpan.has(index)) return;
    const opening = OPEN_TAG.exec(node.value);
    const mark = opening ? htmlMark(opening[1] ?? '', styleOf(opening[2] ?? '')) : undefined;
    if (opening && mark) open.push({ index, name: (opening[1] ?? '').toLowerCase(), mark });
    const closing = CLOSE_TAG.exec(node.value);
    if (!closing) return;
    const name = (closing[1] ?? '').toLowerCase();
    const at = open.map((o) => o.name).lastIndexOf(name);
    if (at < 0) return;
    const [start] = open.splice(at);
    if (!start) return;
    paired.set(start.index, start.mark);
    paired.set(index, 'close');
  });
  return paired;
}

function withMark(marks: Mark[], mark: Mark): Mark[] {
  return sortMarks([...marks.filter((m) => m.type !== mark.type), mark]);
}

const attr = (node: Element, name: string): string | undefined => {
  const value = node.properties[name];
  return typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.join(' ')
      : typeof value === 'number'
        ? String(value)
        : undefined;
};
const classes = (node: Element): string[] => (attr(node, 'className') ?? '').split(/\s+/).filter(Boolean);
const oneOf = <T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined =>
  (allowed as readonly string[]).includes(value ?? '') ? (value as T) : undefined;

function textContent(nodes: ElementContent[]): string {
  return nodes
    .map((n) =>
      n.type === 'text' ? n.value : n.type === 'element' ? (n.tagName === 'br' ? '\n' : textContent(n.children)) : '',
    )
    .join('');
}

function readButtonAction(node: Element): DocumentAction | undefined {
  const action = attr(node, 'dataAction');
  const query = attr(node, 'dataQuery');
  if (action === 'search' || action === 'ask') return query === undefined ? { action } : { action, query };
  const slug = attr(node, 'dataSlug');
  return action === 'select' && slug !== undefined ? { action, slug } : undefined;
}

function readInlineImage(node: Element, ctx: ReadContext): Piece | undefined {
  let img = node;
  let dark: string | undefined;
  if (node.tagName === 'picture') {
    const children = node.children.filter((c): c is Element => c.type === 'element');
    const found = children.find((c) => c.tagName === 'img');
    if (!found || children.some((c) => c.tagName !== 'img' && c.tagName !== 'source')) return undefined;
    img = found;
    dark = attr(children.find((c) => c.tagName === 'source' && /dark/.test(attr(c, 'media') ?? '')) ?? img, 'srcSet');
  }
  const src = attr(img, 'src');
  if (img.tagName !== 'img' || src === undefined) return undefined;
  const alt = attr(img, 'alt');
  const caption = attr(img, 'title');
  const size = oneOf(attr(img, 'dataSize'), ['original', 'line'] as const);
  return {
    object: 'inline',
    type: 'inline-image',
    key: '',
    data: {
      ref: imageRef(src, ctx),
      ...(dark !== undefined ? { refDark: imageRef(dark, ctx) } : {}),
      ...(caption ? { caption } : {}),
      ...(alt ? { alt } : {}),
      ...(size ? { size } : {}),
    },
    isVoid: true,
  };
}

/** An icon in the text color of `marks` (the color of a `<mark>` around it), other pieces as they are. */
function colored(piece: Piece, marks: Mark[]): Piece {
  const color = marks.find((m) => m.type === 'color')?.data.text;
  return piece.object === 'inline' && piece.type === 'icon' && color && color !== 'default'
    ? { ...piece, data: { ...piece.data, color } }
    : piece;
}

/**
 * The inline an HTML element of the platform's inline syntax stands for (see the module
 * comment), or `undefined` for other elements. An icon has no color here (see `colored`).
 */
function readHtmlInline(node: Element, ctx: ReadContext): Piece | undefined {
  switch (node.tagName) {
    case 'code':
      return classes(node).includes('expression')
        ? {
            object: 'inline',
            type: 'expression',
            key: '',
            data: { expression: textContent(node.children) },
            isVoid: true,
          }
        : undefined;
    case 'i': {
      const [name, ...others] = classes(node);
      const icon = others.length ? undefined : /^fa-(.+)$/.exec(name ?? '')?.[1];
      return icon ? { object: 'inline', type: 'icon', key: '', data: { icon }, isVoid: true } : undefined;
    }
    case 'a': {
      const href = attr(node, 'href');
      if (node.properties.dataMention !== undefined && href !== undefined)
        return { object: 'inline', type: 'mention', key: '', data: { ref: ctx.refs.fromHref(href) }, isVoid: true };
      const names = classes(node);
      if (!names.includes('button')) return undefined;
      const action = readButtonAction(node);
      if (!action && href === undefined) return undefined;
      const size = oneOf(attr(node, 'dataSize'), ['small', 'medium', 'large'] as const);
      const icon = attr(node, 'dataIcon');
      const base = {
        label: textContent(node.children),
        kind: names.includes('secondary') ? ('secondary' as const) : ('primary' as const),
        ...(size ? { size } : {}),
        ...(icon ? { icon } : {}),
      };
      const data: ButtonData = action ? { ...base, action } : { ...base, ref: ctx.refs.fromHref(href ?? '') };
      return { object: 'inline', type: 'button', key: '', data, isVoid: true };
    }
    case 'img':
    case 'picture':
      return readInlineImage(node, ctx);
    default:
      return undefined;
  }
}

/** Inline HTML among siblings that is one element of the platform's inline syntax. */
interface HtmlSpan {
  /** The index of the last sibling of the element (its closing tag). */
  end: number;
  piece: Piece;
}

const SPAN_TAGS = new Set(['code', 'i', 'a', 'picture']);

/** The element of HTML that is exactly one element, if so. */
function singleElement(html: string): Element | undefined {
  const root = fromHtml(html, { fragment: true });
  const [only] = root.children;
  return root.children.length === 1 && only?.type === 'element' ? only : undefined;
}

/**
 * The spans of siblings that are an expression, icon, button, mention or inline image: an
 * opening tag, what follows up to its closing tag, read as one piece of HTML (its markdown
 * source, so that `:name:` in an icon is not an emoji); an `<img>` alone. Linear in the nodes.
 */
function htmlSpans(nodes: PhrasingContent[], ctx: ReadContext): Map<number, HtmlSpan> {
  // The syntax never nests a tag in one of its name: a closing tag pairs with the last opening
  // tag of its name, which keeps the spans of one name apart (each node is parsed a few times at most).
  const closing = new Map<number, number>();
  const lastOpen = new Map<string, number>();
  nodes.forEach((node, index) => {
    if (node.type !== 'html') return;
    const open = OPEN_TAG.exec(node.value)?.[1]?.toLowerCase();
    if (open && SPAN_TAGS.has(open)) lastOpen.set(open, index);
    const close = CLOSE_TAG.exec(node.value)?.[1]?.toLowerCase();
    const start = close === undefined ? undefined : lastOpen.get(close);
    if (close !== undefined && start !== undefined) {
      closing.set(start, index);
      lastOpen.delete(close);
    }
  });
  const spans = new Map<number, HtmlSpan>();
  for (let index = 0; index < nodes.length; index++) {
    const node = nodes[index] as PhrasingContent;
    if (node.type !== 'html') continue;
    const end = closing.get(index) ?? (OPEN_TAG.exec(node.value)?.[1]?.toLowerCase() === 'img' ? index : undefined);
    if (end === undefined) continue;
    const last = nodes[end] as PhrasingContent;
    const html =
      end === index
        ? node.value
        : sourceOf(
            { position: node.position && last.position && { start: node.position.start, end: last.position.end } },
            ctx,
          );
    const element = singleElement(html);
    const piece = element && readHtmlInline(element, ctx);
    if (piece) {
      spans.set(index, { end, piece });
      index = end;
    }
  }
  return spans;
}

function readPieces(nodes: PhrasingContent[], ctx: ReadContext, outer: Mark[], inLink: boolean): Piece[] {
  const pieces: Piece[] = [];
  const spans = inLink ? new Map<number, HtmlSpan>() : htmlSpans(nodes, ctx);
  const paired = pairedHtml(nodes, spans);
  const stack: Mark[][] = [outer];
  const marks = (): Mark[] => stack[stack.length - 1] ?? outer;
  const textPieces = (value: string, at: Mark[]): void => {
    if (inLink) {
      pieces.push(leaf(value, ...at));
      return;
    }
    for (const part of splitEmoji(value)) {
      pieces.push(
        typeof part === 'string'
          ? leaf(part, ...at)
          : { object: 'inline', type: 'emoji', key: '', data: { code: part.code }, isVoid: true },
      );
    }
  };
  let skipTo = -1;
  nodes.forEach((node, index) => {
    if (index <= skipTo) return;
    const current = marks();
    const span = spans.get(index);
    if (span) {
      pieces.push(colored(span.piece, current));
      skipTo = span.end;
      return;
    }
    switch (node.type) {
      case 'text':
        textPieces(node.value, current);
        return;
      case 'emphasis':
      case 'strong':
      case 'delete': {
        const type = node.type === 'emphasis' ? 'italic' : node.type === 'strong' ? 'bold' : 'strikethrough';
        pieces.push(...readPieces(node.children, ctx, withMark(current, { object: 'mark', type }), inLink));
        return;
      }
      case 'inlineCode':
        pieces.push(leaf(node.value, ...withMark(current, { object: 'mark', type: 'code' })));
        return;
      case 'break':
        pieces.push(leaf('\n', ...current));
        return;
      case 'inlineMath':
        if (inLink) pieces.push(leaf(`$$${node.value}$$`, ...current));
        else
          pieces.push({ object: 'inline', type: 'inline-math', key: '', data: { formula: node.value }, isVoid: true });
        return;
      case 'emojiShortcode': {
        const code = emojiCodeByName(node.name) ?? node.name;
        if (inLink) pieces.push(leaf(emojiChar(code), ...current));
        else pieces.push({ object: 'inline', type: 'emoji', key: '', data: { code }, isVoid: true });
        return;
      }
      case 'link':
        pieces.push(...readLink(node.url, node.title, node.children, ctx, current, inLink));
        return;
      case 'linkReference': {
        const definition = ctx.definitions.get(node.identifier);
        if (definition) pieces.push(...readLink(definition.url, definition.title, node.children, ctx, current, inLink));
        else textPieces(sourceOf(node, ctx), current);
        return;
      }
      case 'image':
      case 'imageReference': {
        const url = node.type === 'image' ? node.url : ctx.definitions.get(node.identifier)?.url;
        if (url === undefined || inLink) textPieces(sourceOf(node, ctx), current);
        else {
          const caption = node.type === 'image' ? node.title : ctx.definitions.get(node.identifier)?.title;
          pieces.push({
            object: 'inline',
            type: 'inline-image',
            key: '',
            data: { ref: imageRef(url, ctx), ...(caption ? { caption } : {}), ...(node.alt ? { alt: node.alt } : {}) },
            isVoid: true,
          });
        }
        return;
      }
      case 'html': {
        const pair = paired.get(index);
        if (pair === 'close') stack.pop();
        else if (pair) stack.push(withMark(current, pair));
        else if (BREAK_TAG.test(node.value)) pieces.push(leaf('\n', ...current));
        else textPieces(node.value, current);
        return;
      }
      default:
        textPieces(sourceOf(node, ctx), current);
    }
  });
  return pieces;
}

function readLink(
  url: string,
  title: string | null | undefined,
  children: PhrasingContent[],
  ctx: ReadContext,
  marks: Mark[],
  inLink: boolean,
): Piece[] {
  if (inLink) return readPieces(children, ctx, marks, true);
  const ref: ContentRef = ctx.refs.fromHref(url);
  if (title === 'mention') return [{ object: 'inline', type: 'mention', key: '', data: { ref }, isVoid: true }];
  const texts = group(readPieces(children, ctx, marks, true)).filter((n): n is Text => n.object === 'text');
  return [
    {
      object: 'inline',
      type: 'link',
      key: '',
      data: { ref },
      nodes: texts.length ? texts : [{ object: 'text', key: '', leaves: [leaf('')] }],
    },
  ];
}

/** The markdown a node was read from. */
export function sourceOf(
  node: { position?: { start: { offset?: number }; end: { offset?: number } } | undefined },
  ctx: ReadContext,
): string {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? '' : ctx.source.slice(start, end);
}

const sameMarks = (a: Mark[], b: Mark[]): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Groups pieces into texts between inlines, merging leaves of the same marks and dropping empty ones. */
function group(pieces: Piece[]): InlineContent[] {
  const out: InlineContent[] = [];
  let current: Text | undefined;
  for (const piece of pieces) {
    if (piece.object !== 'leaf') {
      out.push(piece);
      current = undefined;
      continue;
    }
    if (!current) {
      current = { key: '', leaves: [], object: 'text' };
      out.push(current);
    }
    const last = current.leaves[current.leaves.length - 1];
    if (last && sameMarks(last.marks, piece.marks)) last.text += piece.text;
    else current.leaves.push({ ...piece });
  }
  // Exactly sized arrays: one grown by `push` keeps room for 17 elements, and a large page has
  // thousands of one-leaf texts.
  for (const node of out)
    if (node.object === 'text')
      node.leaves = node.leaves.length > 1 ? node.leaves.filter((l) => l.text !== '') : node.leaves.slice();
  return out
    .filter((node) => node.object !== 'text' || node.leaves.some((l) => l.text !== '') || out.length === 1)
    .slice();
}

/** Reads HTML inline content (a `<summary>`, a `<figcaption>` paragraph) into texts and inlines. */
export function readHtmlInlines(nodes: ElementContent[], ctx: ReadContext): InlineContent[] {
  return group(readHtmlPieces(nodes, ctx, [], false));
}

function readHtmlPieces(nodes: ElementContent[], ctx: ReadContext, marks: Mark[], inLink: boolean): Piece[] {
  const pieces: Piece[] = [];
  for (const node of nodes) {
    if (node.type === 'text') {
      if (inLink) pieces.push(leaf(node.value, ...marks));
      else
        for (const part of splitEmoji(node.value))
          pieces.push(
            typeof part === 'string'
              ? leaf(part, ...marks)
              : { object: 'inline', type: 'emoji', key: '', data: { code: part.code }, isVoid: true },
          );
    } else if (node.type === 'element') {
      pieces.push(...readHtmlElement(node, ctx, marks, inLink));
    }
  }
  return pieces;
}

function readHtmlElement(node: Element, ctx: ReadContext, marks: Mark[], inLink: boolean): Piece[] {
  if (node.tagName === 'br') return [leaf('\n', ...marks)];
  const inline = inLink ? undefined : readHtmlInline(node, ctx);
  if (inline) return [colored(inline, marks)];
  if (node.tagName === 'a' && typeof node.properties.href === 'string' && !inLink) {
    const ref = ctx.refs.fromHref(node.properties.href);
    const texts = group(readHtmlPieces(node.children, ctx, marks, true)).filter((n): n is Text => n.object === 'text');
    return [
      {
        object: 'inline',
        type: 'link',
        key: '',
        data: { ref },
        nodes: texts.length ? texts : [{ object: 'text', key: '', leaves: [leaf('')] }],
      },
    ];
  }
  const style = node.properties.style;
  const mark = htmlMark(node.tagName, typeof style === 'string' ? style : undefined);
  return readHtmlPieces(node.children, ctx, mark ? withMark(marks, mark) : marks, inLink);
}
