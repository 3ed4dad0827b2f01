/**
 * Writing a document's texts and inlines as mdast phrasing content (and as HTML, for captions
 * and summaries). Leaves that share a mark are wrapped once: `**a _b_**`, not `**a**_**b**_`.
 *
 * Expressions, icons, buttons and sized inline images are written as the platform's inline
 * HTML (see inline-read.ts); mentions as `[name](href "mention")`, or `<a data-mention>` in HTML.
 */
import type { Html, PhrasingContent } from 'mdast';
import {
  emojiChar,
  inlinePlainText,
  type ButtonInline,
  type IconInline,
  type InlineContent,
  type InlineImage,
  type Leaf,
  type Mark,
} from '../model.js';
import type { WriteContext } from './context.js';
import { emojiName } from './emoji.js';

const sameMark = (a: Mark, b: Mark): boolean => JSON.stringify(a) === JSON.stringify(b);
const html = (value: string): Html => ({ type: 'html', value });

/** The HTML tag name and attributes of a mark written as HTML. */
function markTag(mark: Mark): { name: string; attrs: string } {
  switch (mark.type) {
    case 'keyboard':
      return { name: 'kbd', attrs: '' };
    case 'superscript':
      return { name: 'sup', attrs: '' };
    case 'subscript':
      return { name: 'sub', attrs: '' };
    case 'color':
      return { name: 'mark', attrs: ` style="color:${mark.data.text};background-color:${mark.data.background};"` };
    case 'bold':
      return { name: 'strong', attrs: '' };
    case 'italic':
      return { name: 'em', attrs: '' };
    case 'strikethrough':
      return { name: 's', attrs: '' };
    case 'code':
      return { name: 'code', attrs: '' };
  }
}

/** Runs of leaves sharing their first mark, written through `wrap`. */
function nest<T>(leaves: Leaf[], plain: (leaf: Leaf) => T[], wrap: (mark: Mark, inner: T[]) => T[]): T[] {
  const out: T[] = [];
  let i = 0;
  while (i < leaves.length) {
    const first = leaves[i] as Leaf;
    const mark = first.marks[0];
    if (!mark || (mark.type === 'code' && first.marks.length === 1)) {
      out.push(...plain(first));
      i++;
      continue;
    }
    const run: Leaf[] = [];
    while (i < leaves.length && (leaves[i] as Leaf).marks.some((m) => sameMark(m, mark))) {
      const l = leaves[i] as Leaf;
      run.push({ ...l, marks: l.marks.filter((m) => !sameMark(m, mark)) });
      i++;
    }
    out.push(...wrap(mark, nest(run, plain, wrap)));
  }
  return out;
}

/** Writes leaves as phrasing content. */
function writeLeaves(leaves: Leaf[]): PhrasingContent[] {
  return nest<PhrasingContent>(
    leaves.filter((l) => l.text !== ''),
    (l) => (l.marks[0]?.type === 'code' ? [{ type: 'inlineCode', value: l.text }] : [{ type: 'text', value: l.text }]),
    (mark, inner) => {
      if (mark.type === 'bold') return [{ type: 'strong', children: inner }];
      if (mark.type === 'italic') return [{ type: 'emphasis', children: inner }];
      if (mark.type === 'strikethrough') return [{ type: 'delete', children: inner }];
      const { name, attrs } = markTag(mark);
      return [html(`<${name}${attrs}>`), ...inner, html(`</${name}>`)];
    },
  );
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const entity = (char: string): string =>
  ENTITIES[char] ?? `&#x${(char.codePointAt(0) ?? 0).toString(16).toUpperCase()};`;
const wordChar = (char: string | undefined): boolean => char !== undefined && /[\p{L}\p{N}]/u.test(char);

/**
 * Escapes text or an attribute value (`attribute`) of the inline HTML written in markdown.
 * Markdown parses the text between tags before the HTML is read, so what could pair with
 * markdown outside the tags is escaped too: backticks, `*`, `~`, `_` but between letters, `$$`,
 * a final backslash. Everywhere: line ends (which could start a block) and `|` (a table cell's end).
 */
export function escapeInlineHtml(value: string, attribute = false): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const char = value[i] as string;
    const before = value[i - 1];
    const after = value[i + 1];
    const escaped =
      '&<|\n\r'.includes(char) ||
      (attribute
        ? char === '"' || char === '>'
        : '`*~'.includes(char) ||
          (char === '_' && !(wordChar(before) && wordChar(after))) ||
          (char === '$' && (before === '$' || after === '$')) ||
          (char === '\\' && after === undefined));
    out += escaped ? entity(char) : char;
  }
  return out;
}

/**
 * The label GitBook gives a mention in markdown: the `#anchor` of an href to an anchor, else its
 * last path segment (`../guide/setup.md` → `setup.md`, `../guide/` → `guide`), else the href.
 */
export function mentionLabel(href: string): string {
  const hash = href.indexOf('#');
  if (hash >= 0 && hash < href.length - 1) return href.slice(hash);
  const segment =
    href
      .replace(/[?#].*$/s, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() ?? '';
  return segment && segment !== '.' && segment !== '..' && !segment.endsWith(':') ? segment : href;
}

function iconHtml(node: IconInline): string {
  const { icon, color } = node.data;
  const html = `<i class="fa-${escapeInlineHtml(icon, true)}">:${escapeInlineHtml(icon)}:</i>`;
  return color ? `<mark style="color:${color};">${html}</mark>` : html;
}

function buttonHtml(node: ButtonInline, ctx: WriteContext): string {
  const { label, kind, size, icon } = node.data;
  let attrs = '';
  if (node.data.ref) attrs += ` href="${escapeInlineHtml(ctx.refs.toHref(node.data.ref), true)}"`;
  attrs += ` class="button ${kind}"`;
  const action = node.data.action;
  if (action) {
    attrs += ` data-action="${action.action}"`;
    if (action.action === 'select') attrs += ` data-slug="${escapeInlineHtml(action.slug, true)}"`;
    else if (action.query !== undefined) attrs += ` data-query="${escapeInlineHtml(action.query, true)}"`;
  }
  if (size) attrs += ` data-size="${size}"`;
  if (icon) attrs += ` data-icon="${escapeInlineHtml(icon, true)}"`;
  return `<a${attrs}>${escapeInlineHtml(label)}</a>`;
}

function imageHtml(node: InlineImage, ctx: WriteContext): string {
  const { ref, refDark, alt, caption, size } = node.data;
  const title = caption ? ` title="${escapeInlineHtml(caption, true)}"` : '';
  const img = `<img src="${escapeInlineHtml(ctx.refs.toHref(ref), true)}" alt="${escapeInlineHtml(alt ?? '', true)}"${title}${size ? ` data-size="${size}"` : ''}>`;
  if (!refDark) return img;
  return `<picture><source srcset="${escapeInlineHtml(ctx.refs.toHref(refDark), true)}" media="(prefers-color-scheme: dark)">${img}</picture>`;
}

/** The HTML of an expression, icon, button or inline image; `undefined` for other inlines. */
function inlineHtml(node: Exclude<InlineContent, { object: 'text' }>, ctx: WriteContext): string | undefined {
  switch (node.type) {
    case 'expression':
      return `<code class="expression">${escapeInlineHtml(node.data.expression)}</code>`;
    case 'icon':
      return iconHtml(node);
    case 'button':
      return buttonHtml(node, ctx);
    case 'inline-image':
      return imageHtml(node, ctx);
    default:
      return undefined;
  }
}

/** Writes texts and inlines as phrasing content. */
export function writeInlines(nodes: InlineContent[], ctx: WriteContext): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  let leaves: Leaf[] = [];
  const flush = (): void => {
    out.push(...writeLeaves(leaves));
    leaves = [];
  };
  for (const node of nodes) {
    if (node.object === 'text') {
      leaves.push(...node.leaves);
      continue;
    }
    flush();
    switch (node.type) {
      case 'link':
        out.push({
          type: 'link',
          url: ctx.refs.toHref(node.data.ref),
          title: null,
          children: writeLeaves(node.nodes.flatMap((t) => t.leaves)),
        });
        break;
      case 'mention': {
        const href = ctx.refs.toHref(node.data.ref);
        out.push({
          type: 'link',
          url: href,
          title: 'mention',
          children: [{ type: 'text', value: mentionLabel(href) }],
        });
        break;
      }
      case 'emoji': {
        const name = emojiName(node.data.code);
        out.push(name ? { type: 'emojiShortcode', name } : { type: 'text', value: emojiChar(node.data.code) });
        break;
      }
      case 'inline-math':
        out.push({ type: 'inlineMath', value: node.data.formula });
        break;
      case 'inline-image': {
        // Markdown has no size nor dark variant for an image: those need the HTML.
        const { ref, alt, caption, size, refDark } = node.data;
        if (size || refDark) out.push(html(imageHtml(node, ctx)));
        else out.push({ type: 'image', url: ctx.refs.toHref(ref), alt: alt ?? '', title: caption ?? null });
        break;
      }
      default: {
        const value = inlineHtml(node, ctx);
        out.push(value === undefined ? { type: 'text', value: inlinePlainText([node]) } : html(value));
      }
    }
  }
  flush();
  return out;
}

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function htmlLeaves(leaves: Leaf[]): string[] {
  return nest<string>(
    leaves.filter((l) => l.text !== ''),
    (l) => [escapeHtml(l.text).replace(/\n/g, '<br>')],
    (mark, inner) => {
      const { name, attrs } = markTag(mark);
      return [`<${name}${attrs}>`, ...inner, `</${name}>`];
    },
  );
}

/** Writes texts and inlines as inline HTML (`<strong>`, `<a href>`…); formulas as `$$…$$` text. */
export function writeHtmlInlines(nodes: InlineContent[], ctx: WriteContext): string {
  let out = '';
  let leaves: Leaf[] = [];
  const flush = (): void => {
    out += htmlLeaves(leaves).join('');
    leaves = [];
  };
  for (const node of nodes) {
    if (node.object === 'text') {
      leaves.push(...node.leaves);
      continue;
    }
    flush();
    if (node.type === 'link')
      out += `<a href="${escapeHtml(ctx.refs.toHref(node.data.ref))}">${htmlLeaves(node.nodes.flatMap((t) => t.leaves)).join('')}</a>`;
    else if (node.type === 'mention') {
      const href = ctx.refs.toHref(node.data.ref);
      out += `<a data-mention href="${escapeInlineHtml(href, true)}">${escapeInlineHtml(mentionLabel(href))}</a>`;
    } else if (node.type === 'emoji') out += emojiChar(node.data.code);
    else if (node.type === 'inline-math') out += escapeHtml(`$$${node.data.formula}$$`);
    else out += inlineHtml(node, ctx) ?? escapeHtml(inlinePlainText([node]));
  }
  flush();
  return out;
}
