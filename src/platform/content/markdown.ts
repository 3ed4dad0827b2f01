/**
 * Page bodies between the JSON document model (document.ts) and the platform's markdown
 * (GitBook's flavour: the syntax written by Git Sync exports), both ways.
 *
 * How the layers fit, reading markdown:
 * 1. micromark + mdast-util-from-markdown parse CommonMark with GFM (tables, task lists,
 *    strikethrough, autolinks), math (`$$…$$`, no single-dollar math, so prices stay text), YAML
 *    front matter, and two constructs of our own (markdown/syntax.ts): the tag line (a line of
 *    `{% … %}` tags, one mdast node, in any container) and emoji shortcodes (`:tada:`).
 * 2. The tag layer (markdown/read.ts with markdown/tags.ts) walks each container's flow children,
 *    reads the tags of each tag line, and pairs opening and closing tags (and `<details>` …
 *    `</details>` HTML blocks) among siblings: what lies between becomes the block's children.
 * 3. mdast nodes map to blocks (markdown/read.ts), phrasing to texts, leaves, marks and inlines
 *    (markdown/inline-read.ts), GFM tables to table blocks (markdown/table.ts); HTML fragments
 *    (`<figure>`, `<summary>`, `<figcaption>`) are read with hast-util-from-html
 *    (markdown/html.ts); inline HTML pairs (`<kbd>`, `<mark style>`, `<sup>`, `<sub>`) are marks.
 *    What the converter does not model stays as literal text in a paragraph.
 * 4. Keys are derived, then carried over from the previous document (markdown/keys.ts), and
 *    `meta.id` anchors are computed (document.ts `withMetaIds`).
 *
 * Writing is the mirror image: blocks become an mdast tree (markdown/write.ts,
 * markdown/inline-write.ts), with tag lines and HTML as literal nodes, and
 * mdast-util-to-markdown writes it in GitBook's style: `*` bullets (`-` for task lists), `_`
 * emphasis, `**` strong, fenced code, `***` dividers, tag lines against their content.
 *
 * Headings are shifted: the page title is the leading `# Title`, editor headings 1 to 3 are
 * `##` to `####`. References (links, files, pages…) go through the caller's `RefResolver`.
 */
import type { Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown, frontmatterToMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown, mathToMarkdown } from 'mdast-util-math';
import { defaultHandlers, toMarkdown, type Handle, type Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { inlinePlainText, withMetaIds, type JSONDocument } from './document.js';
import type { ReadContext, WriteContext } from './markdown/context.js';
import { isEmojiName } from './markdown/emoji.js';
import { readInlines } from './markdown/inline-read.js';
import { deriveKeys, reconcileKeys, uniqueKeys } from './markdown/keys.js';
import { headingContent, readFlow } from './markdown/read.js';
import { stableRefs, type RefResolver } from './markdown/refs.js';
import { gitbookSyntax, gitbookToMarkdown } from './markdown/syntax.js';
import { joinTags, writeFlow } from './markdown/write.js';

export { stableRefs, type RefResolver } from './markdown/refs.js';

/** Options of `documentToMarkdown`. */
export interface DocumentToMarkdownOptions {
  /** The page title, written as the leading `# Title`. */
  title?: string;
  /** Page metadata, written as YAML front matter (left out when empty). */
  frontMatter?: Record<string, unknown>;
  /** How references are written (default: `stableRefs`). */
  refs?: RefResolver;
}

/** Options of `markdownToDocument`. */
export interface FromMarkdownOptions {
  /** How hrefs are read into references (default: `stableRefs`). */
  refs?: RefResolver;
  /** The document the markdown was written from: unchanged blocks keep its keys. */
  previous?: JSONDocument;
}

/** What `markdownToDocument` reads. */
export interface MarkdownPage {
  document: JSONDocument;
  /** The text of the leading `# Title`, if the markdown starts with one. */
  title?: string;
  /** The YAML front matter as a plain object (`{}` without any, or when it is not a YAML map). */
  frontMatter: Record<string, unknown>;
}

const syntax = gitbookSyntax(isEmojiName);
const parseOptions = {
  extensions: [gfm(), math({ singleDollarTextMath: false }), frontmatter(['yaml']), syntax.micromark],
  mdastExtensions: [gfmFromMarkdown(), mathFromMarkdown(), frontmatterFromMarkdown(['yaml']), syntax.fromMarkdown],
};

/** A task list's bullet is `-` (GitBook's style), other lists' `*`. */
const list: Handle = (node: Extract<RootContent, { type: 'list' }>, parent, state, info) => {
  const tasks = !node.ordered && node.children.some((item) => typeof item.checked === 'boolean');
  if (!tasks) return defaultHandlers.list(node, parent, state, info);
  const { bullet, bulletOther } = state.options;
  state.options.bullet = '-';
  state.options.bulletOther = '*';
  try {
    return defaultHandlers.list(node, parent, state, info);
  } finally {
    state.options.bullet = bullet;
    state.options.bulletOther = bulletOther;
  }
};

const writeOptions: ToMarkdownOptions = {
  extensions: [gfmToMarkdown(), mathToMarkdown({ singleDollarTextMath: false }), frontmatterToMarkdown(['yaml']), gitbookToMarkdown],
  bullet: '*',
  bulletOther: '-',
  emphasis: '_',
  strong: '*',
  rule: '*',
  fence: '`',
  fences: true,
  listItemIndent: 'one',
  resourceLink: false,
  join: [joinTags],
  handlers: { list },
};

function readContext(markdown: string, refs: RefResolver, definitions: ReadContext['definitions']): { root: Root; ctx: ReadContext } {
  const root = fromMarkdown(markdown, parseOptions);
  const visit = (node: Root | RootContent): void => {
    if (node.type === 'definition' && !definitions.has(node.identifier)) definitions.set(node.identifier, node);
    if ('children' in node) for (const child of node.children) visit(child);
  };
  visit(root);
  const ctx: ReadContext = {
    refs,
    source: markdown,
    definitions,
    fragment: (fragment) => {
      const inner = readContext(fragment, refs, definitions);
      return { nodes: inner.root.children, ctx: inner.ctx };
    },
  };
  return { root, ctx };
}

function readFrontMatter(value: string): Record<string, unknown> {
  try {
    const data: unknown = parseYaml(value);
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Deepest nesting of quotes, lists and brackets `markdownToDocument` reads. */
export const MAX_MARKDOWN_NESTING = 32;

/** Markdown nested deeper than the converter reads (its parse would take too long or overflow the stack). */
export class MarkdownTooDeepError extends Error {
  override readonly name = 'MarkdownTooDeepError';
}

/**
 * Refuses markdown nested deeper than `MAX_MARKDOWN_NESTING`: quote markers and list
 * indentation at the start of a line, and open brackets (whose labels the parser matches in time
 * that grows with the square of their depth). Linear in the text.
 */
function checkNesting(markdown: string): void {
  let brackets = 0;
  let lineStart = true;
  let quotes = 0;
  let indent = 0;
  for (let i = 0; i < markdown.length; i += 1) {
    const char = markdown[i]!;
    if (char === '\n') {
      // A blank line ends every paragraph: no link label spans it.
      if (lineStart && quotes === 0) brackets = 0;
      lineStart = true;
      quotes = 0;
      indent = 0;
      continue;
    }
    if (lineStart) {
      if (char === '>') quotes += 1;
      else if (char === ' ') indent += 1;
      else if (char === '\t') indent += 4;
      else lineStart = false;
      if (quotes > MAX_MARKDOWN_NESTING || indent > MAX_MARKDOWN_NESTING * 4) {
        throw new MarkdownTooDeepError(`markdown nested more than ${MAX_MARKDOWN_NESTING} levels deep (quotes or list indentation)`);
      }
    }
    if (char === '\\') {
      i += 1;
    } else if (char === '[') {
      brackets += 1;
    } else if (char === ']' && brackets > 0) {
      // Only brackets that close are nested labels: stray openings cost the parser nothing.
      if (brackets > MAX_MARKDOWN_NESTING) throw new MarkdownTooDeepError(`markdown with brackets nested more than ${MAX_MARKDOWN_NESTING} levels deep`);
      brackets -= 1;
    }
  }
}

/**
 * Reads markdown into a document: front matter into a plain object, a leading `# H1` into the
 * title, the rest into blocks (`##` is heading-1). What it cannot read stays as literal text; it
 * throws only `MarkdownTooDeepError`, for markdown nested deeper than `MAX_MARKDOWN_NESTING`.
 * Keys are derived from the content, or carried over from `previous`.
 */
export function markdownToDocument(markdown: string, options: FromMarkdownOptions = {}): MarkdownPage {
  checkNesting(markdown);
  const { root, ctx } = readContext(markdown, options.refs ?? stableRefs, new Map());
  let nodes = root.children;
  let frontMatter: Record<string, unknown> = {};
  let title: string | undefined;
  if (nodes[0]?.type === 'yaml') {
    frontMatter = readFrontMatter(nodes[0].value);
    nodes = nodes.slice(1);
  }
  const first = nodes[0];
  if (first?.type === 'heading' && first.depth === 1) {
    title = inlinePlainText(readInlines(headingContent(first).children, ctx)).trim();
    nodes = nodes.slice(1);
  }
  const document: JSONDocument = { object: 'document', data: options.previous ? structuredClone(options.previous.data) : {}, nodes: readFlow(nodes, ctx) };
  deriveKeys(document);
  if (options.previous) reconcileKeys(document, options.previous);
  uniqueKeys(document);
  withMetaIds(document);
  return title === undefined ? { document, frontMatter } : { document, title, frontMatter };
}

/**
 * Writes a document as markdown: the front matter (if any), `# title` (if given), then the
 * body. Blocks the converter does not model are written as their content.
 */
export function documentToMarkdown(document: JSONDocument, options: DocumentToMarkdownOptions = {}): string {
  const ctx: WriteContext = { refs: options.refs ?? stableRefs };
  const children: RootContent[] = [];
  if (options.frontMatter && Object.keys(options.frontMatter).length) children.push({ type: 'yaml', value: stringifyYaml(options.frontMatter).trimEnd() });
  if (options.title) children.push({ type: 'heading', depth: 1, children: [{ type: 'text', value: options.title }] });
  children.push(...writeFlow(document.nodes, ctx));
  return toMarkdown({ type: 'root', children }, writeOptions);
}
