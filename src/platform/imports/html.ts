import type { Element, ElementContent, Root, RootContent } from 'hast';
import { fromHtml } from 'hast-util-from-html';

/**
 * HTML pages made into markdown for the markdown converter (`document/markdown.ts`), which makes
 * the documents: the page's main content (`<main>`, else `<article>`, else `<body>`) without
 * navigation, scripts and forms; headings, paragraphs, lists, quotes, code blocks, rules, images
 * and the inline marks the converter reads. Links and images are made absolute against the page's
 * URL. Also the links a crawl follows.
 */

export interface HtmlPage {
  /** `<title>`, else the first `<h1>`; undefined when it has neither. */
  title: string | undefined;
  markdown: string;
  /** Absolute http(s) URLs of its links, without fragments. */
  links: string[];
}

const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'button',
  'svg',
  'iframe',
  'head',
]);
const BLOCKS = new Set([
  'p',
  'div',
  'section',
  'article',
  'main',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'hr',
  'table',
  'tr',
  'figure',
  'dl',
  'dt',
  'dd',
  'body',
  'details',
]);

const textOf = (node: ElementContent | RootContent): string =>
  node.type === 'text' ? node.value : node.type === 'element' ? node.children.map(textOf).join('') : '';

function find(node: Root | Element, test: (element: Element) => boolean): Element | undefined {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    if (test(child)) return child;
    const found = find(child, test);
    if (found) return found;
  }
  return undefined;
}

const escapeText = (text: string) => text.replace(/([\\`*_[\]<>#|])/g, '\\$1');

/** A URL resolved against the page's, when it is http(s); undefined otherwise. */
function absolute(href: unknown, base: URL): URL | undefined {
  if (typeof href !== 'string' || href.trim() === '') return undefined;
  try {
    const url = new URL(href.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

class Writer {
  constructor(private readonly base: URL) {}

  inline(nodes: readonly ElementContent[]): string {
    return nodes
      .map((node) => {
        if (node.type === 'text') return escapeText(node.value.replace(/\s+/g, ' '));
        if (node.type !== 'element' || SKIPPED.has(node.tagName)) return '';
        const inner = () => this.inline(node.children).trim();
        switch (node.tagName) {
          case 'strong':
          case 'b': {
            const text = inner();
            return text ? `**${text}**` : '';
          }
          case 'em':
          case 'i': {
            const text = inner();
            return text ? `*${text}*` : '';
          }
          case 'code': {
            const text = textOf(node).replace(/`/g, '');
            return text ? `\`${text}\`` : '';
          }
          case 'br':
            return '\\\n';
          case 'a': {
            const text = inner();
            const url = absolute(node.properties.href, this.base);
            return url && text ? `[${text}](<${url.href}>)` : text;
          }
          case 'img': {
            const url = absolute(node.properties.src, this.base);
            const alt = typeof node.properties.alt === 'string' ? escapeText(node.properties.alt) : '';
            return url ? `![${alt}](<${url.href}>)` : '';
          }
          default:
            return this.inline(node.children);
        }
      })
      .join('');
  }

  /** Markdown blocks of a list of nodes: runs of inline nodes become paragraphs. */
  blocks(nodes: readonly ElementContent[]): string[] {
    const out: string[] = [];
    let run: ElementContent[] = [];
    const flush = () => {
      const text = this.inline(run).trim();
      if (text) out.push(text);
      run = [];
    };
    for (const node of nodes) {
      if (node.type === 'element' && SKIPPED.has(node.tagName)) continue;
      if (node.type !== 'element' || !BLOCKS.has(node.tagName)) {
        run.push(node);
        continue;
      }
      flush();
      out.push(...this.block(node));
    }
    flush();
    return out;
  }

  block(node: Element): string[] {
    const heading = /^h([1-6])$/.exec(node.tagName);
    if (heading) {
      const text = this.inline(node.children).trim();
      return text ? [`${'#'.repeat(Number(heading[1]))} ${text.replace(/\n/g, ' ')}`] : [];
    }
    switch (node.tagName) {
      case 'p': {
        const text = this.inline(node.children).trim();
        return text ? [text] : [];
      }
      case 'hr':
        return ['---'];
      case 'pre': {
        const code = textOf(node).replace(/\n$/, '');
        const language = /language-([\w+-]+)/.exec(
          String(find(node, (e) => e.tagName === 'code')?.properties.className ?? ''),
        );
        const fence = code.includes('```') ? '~~~~' : '```';
        return [`${fence}${language?.[1] ?? ''}\n${code}\n${fence}`];
      }
      case 'blockquote':
        return [
          this.blocks(node.children)
            .join('\n\n')
            .split('\n')
            .map((line) => `> ${line}`)
            .join('\n'),
        ];
      case 'ul':
      case 'ol': {
        const items = node.children.filter(
          (child): child is Element => child.type === 'element' && child.tagName === 'li',
        );
        const lines = items.map((item, index) => {
          const marker = node.tagName === 'ol' ? `${index + 1}. ` : '- ';
          const body = this.blocks(item.children).join('\n\n') || ' ';
          return marker + body.split('\n').join(`\n${' '.repeat(marker.length)}`);
        });
        return lines.length ? [lines.join('\n')] : [];
      }
      default:
        return this.blocks(node.children);
    }
  }
}

/** Same-origin links to follow: http(s), no fragment, not an obvious file. */
function linksOf(tree: Root, base: URL): string[] {
  const links = new Set<string>();
  const walk = (node: Root | Element) => {
    for (const child of node.children) {
      if (child.type !== 'element') continue;
      if (child.tagName === 'a') {
        const url = absolute(child.properties.href, base);
        if (url && !/\.(png|jpe?g|gif|svg|webp|pdf|zip|css|js|json|xml|ico|mp4|mp3)$/i.test(url.pathname)) {
          url.hash = '';
          links.add(url.href);
        }
      }
      walk(child);
    }
  };
  walk(tree);
  return [...links];
}

/** Reads an HTML page fetched from `url` (or a file, with a `file:` URL as its base). */
export function readHtmlPage(html: string, url: URL): HtmlPage {
  const tree = fromHtml(html);
  const titleElement = find(tree, (e) => e.tagName === 'title');
  const h1 = find(tree, (e) => e.tagName === 'h1');
  const title = (titleElement ? textOf(titleElement) : h1 ? textOf(h1) : '').replace(/\s+/g, ' ').trim();
  const body =
    find(tree, (e) => e.tagName === 'main') ??
    find(tree, (e) => e.tagName === 'article') ??
    find(tree, (e) => e.tagName === 'body');
  const writer = new Writer(url);
  let blocks = body ? writer.blocks(body.children) : [];
  // The title is the page's: a first heading repeating it would be its first block twice.
  if (title && blocks[0] && /^# /.test(blocks[0]) && blocks[0].slice(2).trim() === escapeText(title))
    blocks = blocks.slice(1);
  return {
    title: title ? title.slice(0, 256) : undefined,
    markdown: `${blocks.join('\n\n')}\n`,
    links: linksOf(tree, url),
  };
}
