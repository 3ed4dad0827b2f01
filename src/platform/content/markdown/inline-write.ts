/**
 * Writing a document's texts and inlines as mdast phrasing content (and as HTML, for captions
 * and summaries). Leaves that share a mark are wrapped once: `**a _b_**`, not `**a**_**b**_`.
 */
import type { Html, PhrasingContent } from 'mdast';
import { emojiChar, inlinePlainText, type InlineContent, type Leaf, type Mark } from '../document.js';
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
        out.push({ type: 'link', url: ctx.refs.toHref(node.data.ref), title: null, children: writeLeaves(node.nodes.flatMap((t) => t.leaves)) });
        break;
      case 'mention': {
        const href = ctx.refs.toHref(node.data.ref);
        out.push({ type: 'link', url: href, title: 'mention', children: [{ type: 'text', value: href }] });
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
        const { ref, alt } = node.data as { ref?: Parameters<WriteContext['refs']['toHref']>[0]; alt?: unknown };
        if (ref) out.push({ type: 'image', url: ctx.refs.toHref(ref), alt: typeof alt === 'string' ? alt : '' });
        break;
      }
      default:
        out.push({ type: 'text', value: inlinePlainText([node]) });
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
    if (node.type === 'link') out += `<a href="${escapeHtml(ctx.refs.toHref(node.data.ref))}">${htmlLeaves(node.nodes.flatMap((t) => t.leaves)).join('')}</a>`;
    else if (node.type === 'mention') {
      const href = escapeHtml(ctx.refs.toHref(node.data.ref));
      out += `<a href="${href}" data-mention>${href}</a>`;
    } else if (node.type === 'emoji') out += emojiChar(node.data.code);
    else if (node.type === 'inline-math') out += escapeHtml(`$$${node.data.formula}$$`);
    else out += escapeHtml(inlinePlainText([node]));
  }
  flush();
  return out;
}
