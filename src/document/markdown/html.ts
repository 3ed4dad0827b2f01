/**
 * The HTML forms of blocks: images as `<figure>` (optionally in a `<div>` carrying the images
 * block's `align`, `data-full-width` and `data-with-frame`, and with a `<picture>` for a dark
 * variant; in the `<div>`, GitBook may also write a bare `<img>` or markdown images), drawings
 * as `<img class="gitbook-drawing">`, and the `<details>`/`<summary>` head of an expandable;
 * also a paragraph that starts with an inline image on a line of its own, which CommonMark
 * reads as an HTML block. HTML is read with hast-util-from-html; anything that does not have the
 * expected shape is not read here (the caller keeps it as literal text).
 */
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import { fromHtml } from 'hast-util-from-html';
import type { Paragraph as MdParagraph, PhrasingContent } from 'mdast';
import type { ContentRefFile, Drawing, Fragment, Image, Images, InlineContent, Length, Paragraph } from '../model.js';
import type { ReadContext, WriteContext } from './context.js';
import { imageRef, literalParagraph, readHtmlInlines, readInlines } from './inline-read.js';
import { escapeHtml, writeHtmlInlines } from './inline-write.js';

/** The elements among HTML nodes. */
export const elements = (nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent>): Element[] =>
  nodes.filter((n): n is Element => n.type === 'element');
/** Whether HTML nodes hold nothing but elements, comments and white space. */
export const blank = (nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent>): boolean =>
  nodes.every((n) => n.type === 'element' || n.type === 'comment' || (n.type === 'text' && n.value.trim() === ''));
/** An attribute of an element by its hast property name (`dataWithFrame`), as a string. */
export const attr = (node: Element, name: string): string | undefined => {
  const value = node.properties[name];
  return typeof value === 'string'
    ? value
    : Array.isArray(value)
      ? value.join(' ')
      : typeof value === 'number'
        ? String(value)
        : undefined;
};
const lengthOf = (value: string | undefined): Length | undefined => {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
};

/** Paragraphs of HTML content: one per `<p>`, loose inline content as one more. */
export function readHtmlParagraphs(nodes: ElementContent[], ctx: ReadContext): Paragraph[] {
  const out: Paragraph[] = [];
  let loose: ElementContent[] = [];
  const flush = (): void => {
    if (!blank(loose) || elements(loose).length)
      out.push({ object: 'block', type: 'paragraph', key: '', data: {}, nodes: readHtmlInlines(loose, ctx) });
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
      const source = elements(child.children).find(
        (e) => e.tagName === 'source' && /dark/.test(attr(e, 'media') ?? ''),
      );
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
  const fragments = caption.length
    ? [{ object: 'fragment' as const, key: '', fragment: 'caption', nodes: caption }]
    : [];
  return { object: 'block', type: 'image', key: '', data, fragments, isVoid: true };
}

/**
 * Reads an HTML block: a drawing (see `readDrawing`), `<figure>`s (optionally in one `<div>`)
 * into an images block, or lines that start with inline images (see `readImageLines`) into a
 * paragraph; `undefined` for other HTML.
 */
export function readFigures(html: string, ctx: ReadContext): Drawing | Images | Paragraph | undefined {
  return readDrawing(html, ctx) ?? readFigureBlock(html, ctx) ?? readImageLines(html, ctx);
}

const DRAWING_CLASS = /(?:^|\s)gitbook-drawing(?:\s|$)/;

/**
 * A drawing: `<img src="…" class="gitbook-drawing">`, alone or in a `<figure>` without a
 * caption, whose `src` the resolver reads as a file.
 */
function readDrawing(html: string, ctx: ReadContext): Drawing | undefined {
  const root = fromHtml(html, { fragment: true });
  let nodes: ReadonlyArray<HastRoot['children'][number] | ElementContent> = root.children;
  let top = elements(nodes);
  if (top.length === 1 && top[0]?.tagName === 'figure' && blank(nodes)) {
    nodes = top[0].children;
    // GitBook writes an empty `<figcaption>` in figures without a caption.
    nodes = nodes.filter(
      (n) => !(n.type === 'element' && n.tagName === 'figcaption' && blank(n.children) && !elements(n.children).length),
    );
    top = elements(nodes);
  }
  const img = top[0];
  if (top.length !== 1 || !blank(nodes) || img?.tagName !== 'img' || !DRAWING_CLASS.test(attr(img, 'className') ?? ''))
    return undefined;
  const src = attr(img, 'src');
  const ref = src === undefined ? undefined : ctx.refs.fromHref(src);
  if (ref?.kind !== 'file') return undefined;
  return { object: 'block', type: 'drawing', key: '', data: { ref }, isVoid: true };
}

/** Writes a drawing as `<img src="…" class="gitbook-drawing">` (nothing without its file). */
export function writeDrawing(block: Drawing, ctx: WriteContext): string | undefined {
  const ref: ContentRefFile | undefined = block.data.ref;
  return ref ? `<img src="${escapeHtml(ctx.refs.toHref(ref))}" class="gitbook-drawing">` : undefined;
}

/** A paragraph of markdown images only (`![alt](src "caption")`) as an images block. */
export function readMarkdownImages(node: MdParagraph, ctx: ReadContext): Images | undefined {
  const content = node.children.filter((c) => !(c.type === 'text' && c.value.trim() === ''));
  if (!content.length || !content.every((c) => c.type === 'image')) return undefined;
  const images = content.map((c): Image => {
    const image = c as Extract<PhrasingContent, { type: 'image' }>;
    const data: Image['data'] = { ref: imageRef(image.url, ctx) };
    if (image.alt) data.alt = image.alt;
    const caption: Array<Fragment<Paragraph>> = image.title
      ? [{ object: 'fragment', key: '', fragment: 'caption', nodes: [literalParagraph(image.title)] }]
      : [];
    return { object: 'block', type: 'image', key: '', data, fragments: caption, isVoid: true };
  });
  return { object: 'block', type: 'images', key: '', data: {}, nodes: images, isVoid: false };
}

/** The images block data of a `<div>`'s attributes (`align`, `data-full-width`, `data-with-frame`). */
function divData(div: Element): Images['data'] {
  const data: Images['data'] = {};
  const align = attr(div, 'align');
  if (align === 'left' || align === 'right' || align === 'center') data.align = align;
  if (attr(div, 'dataFullWidth') === 'true') data.fullWidth = true;
  if (attr(div, 'dataWithFrame') === 'true') data.withFrame = true;
  return data;
}

/**
 * The data of an images block from a `<div …>` opening tag standing alone (the markdown images
 * inside it follow after a blank line); `undefined` if the HTML is not one such tag.
 */
export function readImagesDivOpen(html: string): Images['data'] | undefined {
  if (!/^<div(?:\s[^<>]*)?>$/i.test(html.trim())) return undefined;
  const [div] = elements(fromHtml(`${html.trim()}</div>`, { fragment: true }).children);
  return div?.tagName === 'div' ? divData(div) : undefined;
}

/** Whether HTML is a closing `</div>`. */
export function isDivEnd(html: string): boolean {
  return /^<\/div\s*>$/i.test(html.trim());
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
    phrasing.push(
      { type: 'html', value: match[1] ?? '' },
      ...(match[2] ? [{ type: 'text' as const, value: match[2] }] : []),
    );
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
  let data: Images['data'] = {};
  const top = elements(nodes);
  const div = top.length === 1 && top[0]?.tagName === 'div' && blank(nodes) ? top[0] : undefined;
  if (div) {
    data = divData(div);
    nodes = div.children;
    if (!elements(nodes).length) return readDivMarkdown(html, div, data, ctx);
  }
  const figures = elements(nodes);
  // In a `<div>`, GitBook may write an image without a caption as a bare `<img>`.
  const figureOf = (e: Element): Element | undefined =>
    e.tagName === 'figure'
      ? e
      : div && e.tagName === 'img'
        ? { ...e, tagName: 'figure', properties: {}, children: [e] }
        : undefined;
  if (!figures.length || !blank(nodes) || figures.some((f) => !figureOf(f))) return undefined;
  const images = figures.map((f) => readFigure(figureOf(f) as Element, ctx));
  if (images.some((i) => !i)) return undefined;
  return { object: 'block', type: 'images', key: '', data, nodes: images as Image[], isVoid: false };
}

/** Markdown images written inside a `<div>` on its line (`<div data-with-frame="true">![](…)</div>`). */
function readDivMarkdown(html: string, div: Element, data: Images['data'], ctx: ReadContext): Images | undefined {
  const first = div.children[0]?.position?.start.offset;
  const last = div.children[div.children.length - 1]?.position?.end.offset;
  if (first === undefined || last === undefined) return undefined;
  const inner = ctx.fragment(html.slice(first, last));
  const [paragraph] = inner.nodes;
  if (inner.nodes.length !== 1 || paragraph?.type !== 'paragraph') return undefined;
  const images = readMarkdownImages(paragraph, inner.ctx);
  return images && { ...images, data };
}

/** Writes an images block as `<figure>`s on one line. */
export function writeFigures(block: Images, ctx: WriteContext): string {
  const figures = block.nodes.map((image) => {
    const { ref, refDark, alt, width, height } = image.data;
    const sizes = `${typeof width === 'number' ? ` width="${width}"` : ''}${typeof height === 'number' ? ` height="${height}"` : ''}`;
    let img = `<img src="${escapeHtml(ctx.refs.toHref(ref))}" alt="${escapeHtml(alt ?? '')}"${sizes}>`;
    if (refDark)
      img = `<picture><source srcset="${escapeHtml(ctx.refs.toHref(refDark))}" media="(prefers-color-scheme: dark)">${img}</picture>`;
    const caption = image.fragments.find((f) => f.fragment === 'caption')?.nodes ?? [];
    const figcaption = caption.length
      ? `<figcaption>${caption.map((p) => `<p>${writeHtmlInlines(p.nodes, ctx)}</p>`).join('')}</figcaption>`
      : '';
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
  return {
    open: Boolean(match[1]),
    title: readHtmlInlines(summary.children.filter((c) => c.type !== 'doctype') as ElementContent[], ctx),
    rest,
    closed,
  };
}

/** Whether HTML is the end of an expandable. */
export function isDetailsEnd(html: string): boolean {
  return /^<\/details\s*>$/i.test(html.trim());
}

/** Writes the head of an expandable: `<details[ open]>` and its summary. */
export function writeDetailsHead(open: boolean, title: InlineContent[], ctx: WriteContext): string {
  return `<details${open ? ' open' : ''}>\n<summary>${writeHtmlInlines(title, ctx)}</summary>`;
}
