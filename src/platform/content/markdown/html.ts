/**
 * The HTML forms of blocks: images as `<figure>` (optionally in a `<div>` carrying the images
 * block's `align`, `data-full-width` and `data-with-frame`, and with a `<picture>` for a dark
 * variant), and the `<details>`/`<summary>` head of an expandable; also a paragraph that starts
 * with an inline image on a line of its own, which CommonMark reads as an HTML block. HTML is
 * read with hast-util-from-html; anything that does not have the expected shape is not read here
 * (the caller keeps it as literal text).
 */
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import type { PhrasingContent } from 'mdast';
import type { Image, Images, InlineContent, Length, Paragraph } from '../document.js';
import type { ReadContext, WriteContext } from './context.js';
import { imageRef, readHtmlInlines, readInlines } from './inline-read.js';
import { escapeHtml, writeHtmlInlines } from './inline-write.js';

const elements = (nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent>): Element[] =>
  nodes.filter((n): n is Element => n.type === 'element');
const blank = (nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent>): boolean =>
  nodes.every((n) => n.type === 'element' || n.type === 'comment' || (n.type === 'text' && n.value.trim() === ''));
const attr = (node: Element, name: string): string | undefined => {
  const value = node.properties[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : typeof value === 'number' ? String(value) : undefined;
};
const lengthOf = (value: string | undefined): Length | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
};

/** Paragraphs of HTML content: one per `<p>`, loose inline content as one more. */
function readHtmlParagraphs(nodes: ElementContent[], ctx: ReadContext): Paragraph[] {
  const out: Paragraph[] = [];
  let loose: ElementContent[] = [];
  const flush = (): void => {
    if (!blank(loose) || elements(loose).length) out.push({ object: 'block', type: 'paragraph', key: '', data: {}, nodes: readHtmlInlines(loose, ctx) });
    loose = [];
  };
  for (const node of nodes) {
    if (node.type === 'element' && node.tagName === 'p') {
      flush();
      out.push({ object: 'block', type: 'paragraph', key: '', data: {}, nodes: readHtmlInlines(node.children, ctx) });
    } else loose.push(node);
  }
  flush();
  return out;
}

function readFigure(figure: Element, ctx: ReadContext): Image | undefined {
  let img: Element | undefined;
  let dark: string | undefined;
  let caption: Paragraph[] = [];
  for (const child of elements(figure.children)) {
    if (child.tagName === 'img') img = child;
    else if (child.tagName === 'picture') {
      img = elements(child.children).find((e) => e.tagName === 'img');
      const source = elements(child.children).find((e) => e.tagName === 'source' && /dark/.test(attr(e, 'media') ?? ''));
      if (source) dark = attr(source, 'srcSet');
    } else if (child.tagName === 'figcaption') caption = readHtmlParagraphs(child.children, ctx);
    else return undefined;
  }
  const src = img && attr(img, 'src');
  if (!img || src === undefined) return undefined;
  const alt = attr(img, 'alt');
  const width = lengthOf(attr(img, 'width'));
  const height = lengthOf(attr(img, 'height'));
  const data: Image['data'] = { ref: imageRef(src, ctx) };
  if (dark !== undefined) data.refDark = imageRef(dark, ctx);
  if (width !== undefined) data.width = width;
  if (height !== undefined) data.height = height;
  if (alt) data.alt = alt;
  const fragments = caption.length ? [{ object: 'fragment' as const, key: '', fragment: 'caption', nodes: caption }] : [];
  return { object: 'block', type: 'image', key: '', data, fragments, isVoid: true };
}

/**
 * Reads an HTML block: `<figure>`s (optionally in one `<div>`) into an images block, or lines
 * that start with inline images (see `readImageLines`) into a paragraph; `undefined` for other HTML.
 */
export function readFigures(html: string, ctx: ReadContext): Images | Paragraph | undefined {
  return readFigureBlock(html, ctx) ?? readImageLines(html, ctx);
}

const IMAGE_LINE = /^(<img\s[^>]*>)([ \t]*)$/i;

/**
 * A paragraph whose first lines are each one inline image (`<img … data-size>`): CommonMark
 * reads such a line, and the lines after it up to a blank line, as an HTML block. The lines
 * after the images must make one paragraph.
 */
function readImageLines(html: string, ctx: ReadContext): Paragraph | undefined {
  const lines = html.replace(/\n+$/, '').split('\n');
  const phrasing: PhrasingContent[] = [];
  let line = 0;
  for (; line < lines.length; line++) {
    const match = IMAGE_LINE.exec(lines[line] ?? '');
    if (!match) break;
    const img = fromHtml(match[1] ?? '', { fragment: true }).children[0];
    if (img?.type !== 'element' || img.tagName !== 'img' || attr(img, 'dataSize') === undefined) return undefined;
    if (line) phrasing.push({ type: 'text', value: '\n' });
    phrasing.push({ type: 'html', value: match[1] ?? '' }, ...(match[2] ? [{ type: 'text' as const, value: match[2] }] : []));
  }
  if (!line) return undefined;
  let inner = ctx;
  if (line < lines.length) {
    const rest = ctx.fragment(lines.slice(line).join('\n'));
    const [paragraph] = rest.nodes;
    if (rest.nodes.length !== 1 || paragraph?.type !== 'paragraph') return undefined;
    phrasing.push({ type: 'text', value: '\n' }, ...paragraph.children);
    inner = rest.ctx;
  }
  return { object: 'block', type: 'paragraph', key: '', data: {}, nodes: readInlines(phrasing, inner) };
}

function readFigureBlock(html: string, ctx: ReadContext): Images | undefined {
  const root = fromHtml(html, { fragment: true });
  let nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent> = root.children;
  const data: Images['data'] = {};
  const top = elements(nodes);
  if (top.length === 1 && top[0]?.tagName === 'div' && blank(nodes)) {
    const div = top[0];
    const align = attr(div, 'align');
    if (align === 'left' || align === 'right' || align === 'center') data.align = align;
    if (attr(div, 'dataFullWidth') === 'true') data.fullWidth = true;
    if (attr(div, 'dataWithFrame') === 'true') data.withFrame = true;
    nodes = div.children;
  }
  const figures = elements(nodes);
  if (!figures.length || !blank(nodes) || figures.some((f) => f.tagName !== 'figure')) return undefined;
  const images = figures.map((f) => readFigure(f, ctx));
  if (images.some((i) => !i)) return undefined;
  return { object: 'block', type: 'images', key: '', data, nodes: images as Image[], isVoid: false };
}

/** Writes an images block as `<figure>`s on one line. */
export function writeFigures(block: Images, ctx: WriteContext): string {
  const figures = block.nodes.map((image) => {
    const { ref, refDark, alt, width, height } = image.data;
    const sizes = `${typeof width === 'number' ? ` width="${width}"` : ''}${typeof height === 'number' ? ` height="${height}"` : ''}`;
    let img = `<img src="${escapeHtml(ctx.refs.toHref(ref))}" alt="${escapeHtml(alt ?? '')}"${sizes}>`;
    if (refDark) img = `<picture><source srcset="${escapeHtml(ctx.refs.toHref(refDark))}" media="(prefers-color-scheme: dark)">${img}</picture>`;
    const caption = image.fragments.find((f) => f.fragment === 'caption')?.nodes ?? [];
    const figcaption = caption.length ? `<figcaption>${caption.map((p) => `<p>${writeHtmlInlines(p.nodes, ctx)}</p>`).join('')}</figcaption>` : '';
    return `<figure>${img}${figcaption}</figure>`;
  });
  const { align, fullWidth, withFrame } = block.data;
  if (!align && !fullWidth && !withFrame) return figures.join('');
  const attrs = `${align ? ` align="${align}"` : ''}${fullWidth ? ' data-full-width="true"' : ''}${withFrame ? ' data-with-frame="true"' : ''}`;
  return `<div${attrs}>${figures.join('')}</div>`;
}

/** The head of an expandable read from HTML. */
export interface DetailsHead {
  open: boolean;
  title: InlineContent[];
  /** Markdown after `</summary>` in the same HTML block (the start of the body). */
  rest: string;
  /** Whether the same HTML block also closes the details. */
  closed: boolean;
}

const DETAILS = /^<details(\s+open(?:="(?:open)?")?)?\s*>\s*<summary>([\s\S]*?)<\/summary>([\s\S]*)$/i;
const DETAILS_END = /<\/details>\s*$/i;

/** Reads `<details[ open]><summary>…</summary>[…]`; `undefined` if the HTML is not that. */
export function readDetailsHead(html: string, ctx: ReadContext): DetailsHead | undefined {
  const match = DETAILS.exec(html.trim());
  if (!match) return undefined;
  let rest = match[3] ?? '';
  const closed = DETAILS_END.test(rest);
  if (closed) rest = rest.replace(DETAILS_END, '');
  const summary = fromHtml(match[2] ?? '', { fragment: true });
  return { open: Boolean(match[1]), title: readHtmlInlines(summary.children.filter((c) => c.type !== 'doctype') as ElementContent[], ctx), rest, closed };
}

/** Whether HTML is the end of an expandable. */
export function isDetailsEnd(html: string): boolean {
  return /^<\/details\s*>$/i.test(html.trim());
}

/** Writes the head of an expandable: `<details[ open]>` and its summary. */
export function writeDetailsHead(open: boolean, title: InlineContent[], ctx: WriteContext): string {
  return `<details${open ? ' open' : ''}>\n<summary>${writeHtmlInlines(title, ctx)}</summary>`;
}
