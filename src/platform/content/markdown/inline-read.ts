/**
 * Reading mdast phrasing content (and the HTML of captions and summaries) into a document's
 * texts and inlines. Marks come from emphasis, strong, delete and inline code, and from the
 * inline HTML pairs `<kbd>`, `<mark style="color:…;background-color:…;">`, `<sup>`, `<sub>`
 * (also `<strong>`, `<em>`, `<s>`…). An HTML tag without its pair is kept as literal text.
 */
import type { Element, ElementContent } from 'hast';
import type { PhrasingContent } from 'mdast';
import {
  TEXT_COLORS,
  emojiChar,
  leaf,
  sortMarks,
  type ContentRef,
  type ContentRefFile,
  type ContentRefUrl,
  type InlineContent,
  type Leaf,
  type Mark,
  type Paragraph,
  type Text,
  type TextColor,
} from '../document.js';
import type { ReadContext } from './context.js';
import { emojiCodeByName, splitEmoji } from './emoji.js';

type Piece = Leaf | Exclude<InlineContent, Text>;

/** Reads phrasing content into texts and inlines (adjacent leaves of the same marks merged). */
export function readInlines(nodes: PhrasingContent[], ctx: ReadContext, marks: Mark[] = []): InlineContent[] {
  return group(readPieces(nodes, ctx, marks, false));
}

/** A paragraph of phrasing content. */
export function readParagraph(nodes: PhrasingContent[], ctx: ReadContext): Paragraph {
  return { object: 'block', type: 'paragraph', key: '', data: {}, nodes: readInlines(nodes, ctx) };
}

/** A paragraph of one literal text (markdown the converter keeps as it was written). */
export function literalParagraph(value: string): Paragraph {
  return { object: 'block', type: 'paragraph', key: '', data: {}, nodes: value ? [{ object: 'text', key: '', leaves: [leaf(value)] }] : [] };
}

/** An image reference: a `url` ref unless the resolver reads a file. */
export function imageRef(href: string, ctx: ReadContext): ContentRefUrl | ContentRefFile {
  const ref = ctx.refs.fromHref(href);
  return ref.kind === 'file' || ref.kind === 'url' ? ref : { kind: 'url', url: href };
}

const MARK_TAGS: Record<string, Mark['type']> = {
  kbd: 'keyboard', sup: 'superscript', sub: 'subscript', mark: 'color', strong: 'bold', b: 'bold',
  em: 'italic', i: 'italic', s: 'strikethrough', del: 'strikethrough', strike: 'strikethrough', code: 'code',
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

/** Indices of inline HTML tags that open or close a mark and have their pair among siblings. */
function pairedHtml(nodes: PhrasingContent[]): Map<number, Mark | 'close'> {
  const paired = new Map<number, Mark | 'close'>();
  const open: Array<{ index: number; name: string; mark: Mark }> = [];
  nodes.forEach((node, index) => {
    if (node.type !== 'html') return;
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

function readPieces(nodes: PhrasingContent[], ctx: ReadContext, outer: Mark[], inLink: boolean): Piece[] {
  const pieces: Piece[] = [];
  const paired = pairedHtml(nodes);
  const stack: Mark[][] = [outer];
  const marks = (): Mark[] => stack[stack.length - 1] ?? outer;
  const textPieces = (value: string, at: Mark[]): void => {
    if (inLink) {
      pieces.push(leaf(value, ...at));
      return;
    }
    for (const part of splitEmoji(value)) {
      pieces.push(typeof part === 'string' ? leaf(part, ...at) : { object: 'inline', type: 'emoji', key: '', data: { code: part.code }, isVoid: true });
    }
  };
  nodes.forEach((node, index) => {
    const current = marks();
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
        else pieces.push({ object: 'inline', type: 'inline-math', key: '', data: { formula: node.value }, isVoid: true });
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
        else pieces.push({ object: 'inline', type: 'inline-image', key: '', data: { ref: imageRef(url, ctx), ...(node.alt ? { alt: node.alt } : {}) }, isVoid: true });
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

function readLink(url: string, title: string | null | undefined, children: PhrasingContent[], ctx: ReadContext, marks: Mark[], inLink: boolean): Piece[] {
  if (inLink) return readPieces(children, ctx, marks, true);
  const ref: ContentRef = ctx.refs.fromHref(url);
  if (title === 'mention') return [{ object: 'inline', type: 'mention', key: '', data: { ref }, isVoid: true }];
  const texts = group(readPieces(children, ctx, marks, true)).filter((n): n is Text => n.object === 'text');
  return [{ object: 'inline', type: 'link', key: '', data: { ref }, nodes: texts.length ? texts : [{ object: 'text', key: '', leaves: [leaf('')] }] }];
}

/** The markdown a node was read from. */
export function sourceOf(node: { position?: { start: { offset?: number }; end: { offset?: number } } | undefined }, ctx: ReadContext): string {
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
      current = { object: 'text', key: '', leaves: [] };
      out.push(current);
    }
    const last = current.leaves[current.leaves.length - 1];
    if (last && sameMarks(last.marks, piece.marks)) last.text += piece.text;
    else current.leaves.push({ ...piece });
  }
  for (const node of out) if (node.object === 'text' && node.leaves.length > 1) node.leaves = node.leaves.filter((l) => l.text !== '');
  return out.filter((node) => node.object !== 'text' || node.leaves.some((l) => l.text !== '') || out.length === 1);
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
      else for (const part of splitEmoji(node.value)) pieces.push(typeof part === 'string' ? leaf(part, ...marks) : { object: 'inline', type: 'emoji', key: '', data: { code: part.code }, isVoid: true });
    } else if (node.type === 'element') {
      pieces.push(...readHtmlElement(node, ctx, marks, inLink));
    }
  }
  return pieces;
}

function readHtmlElement(node: Element, ctx: ReadContext, marks: Mark[], inLink: boolean): Piece[] {
  if (node.tagName === 'br') return [leaf('\n', ...marks)];
  if (node.tagName === 'a' && typeof node.properties.href === 'string' && !inLink) {
    const ref = ctx.refs.fromHref(node.properties.href);
    if (node.properties.dataMention !== undefined) return [{ object: 'inline', type: 'mention', key: '', data: { ref }, isVoid: true }];
    const texts = group(readHtmlPieces(node.children, ctx, marks, true)).filter((n): n is Text => n.object === 'text');
    return [{ object: 'inline', type: 'link', key: '', data: { ref }, nodes: texts.length ? texts : [{ object: 'text', key: '', leaves: [leaf('')] }] }];
  }
  const style = node.properties.style;
  const mark = htmlMark(node.tagName, typeof style === 'string' ? style : undefined);
  return readHtmlPieces(node.children, ctx, mark ? withMark(marks, mark) : marks, inLink);
}
