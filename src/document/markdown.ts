/**
 * Page bodies between the JSON document model (model.ts) and the platform's markdown
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
 *    `meta.id` anchors are computed (model.ts `withMetaIds`).
 *
 * Writing is the mirror image: blocks become an mdast tree (markdown/write.ts,
 * markdown/inline-write.ts), with tag lines and HTML as literal nodes, and
 * mdast-util-to-markdown writes it in GitBook's style: `*` bullets (`-` for task lists), `_`
 * emphasis, `**` strong, fenced code, `***` dividers, tag lines against their content.
 *
 * Headings are shifted: the page title is the leading `# Title`, editor headings 1 to 3 are
 * `##` to `####`. References (links, files, pages…) go through the caller's `RefResolver`.
 */
import type { Nodes, Root, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { frontmatterFromMarkdown, frontmatterToMarkdown } from 'mdast-util-frontmatter';
import { gfmFromMarkdown, gfmToMarkdown } from 'mdast-util-gfm';
import { mathFromMarkdown, mathToMarkdown } from 'mdast-util-math';
import { defaultHandlers, toMarkdown, type Handle, type Options as ToMarkdownOptions } from 'mdast-util-to-markdown';
import { frontmatter } from 'micromark-extension-frontmatter';
import { gfm } from 'micromark-extension-gfm';
import { math } from 'micromark-extension-math';
import { normalizeIdentifier } from 'micromark-util-normalize-identifier';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { checkDocumentLimits, ContentLimitError, inlinePlainText, withMetaIds, type JSONDocument } from './model.js';
import type { ReadContext, WriteContext } from './markdown/context.js';
import { isEmojiName } from './markdown/emoji.js';
import { readInlines } from './markdown/inline-read.js';
import { deriveKeys, reconcileKeys, uniqueKeys } from './markdown/keys.js';
import { headingContent, readFlow } from './markdown/read.js';
import { stableRefs, type RefResolver } from './markdown/refs.js';
import { gitbookSyntax, gitbookToMarkdown } from './markdown/syntax.js';
import { joinTags, writeFlow } from './markdown/write.js';
import {
  blocksAtLeast,
  markdownSegments,
  plainAwareSegments,
  plainParagraphs,
  type Segment,
} from './markdown/segments.js';
import type { Construct, Extension, TokenizeContext } from 'micromark-util-types';

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
  /** The markdown's tree, when it was parsed already (e.g. in a worker thread, as the platform does). */
  tree?: Root;
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

/**
 * Budgets of one markdown text (a page's body), checked as it is read. A real page stays far
 * below them; past one, `markdownToDocument` throws a `MarkdownLimitError` naming it.
 */
export const MARKDOWN_LIMITS = {
  /** Largest markdown text, in UTF-8 bytes. */
  bytes: 1024 * 1024,
  /** Most nodes (paragraphs, texts, emphasis, list items…) the markdown parses into. */
  nodes: 50_000,
  /**
   * Longest stretch that parses as one piece, in characters: a fenced code block, a table, a
   * list whose items are apart from each other, a paragraph. The parser holds several kilobytes
   * per line of such a stretch while it reads it.
   */
  blockChars: 256 * 1024,
  /** Most link and footnote definitions (`[name]: url`, `[^note]: text`). */
  definitions: 2_000,
} as const;

/**
 * Markdown over one of `MARKDOWN_LIMITS` (`markdownBytes`, `markdownNodes`, `markdownBlockChars`,
 * `markdownDefinitions`) or nested deeper than `MAX_MARKDOWN_NESTING` (`markdownNesting`).
 */
export class MarkdownLimitError extends ContentLimitError {
  override readonly name: string = 'MarkdownLimitError';
}

/** Characters of markdown parsed at a time (see markdown/segments.ts). */
const SEGMENT_CHARS = 8 * 1024;
/** Shortest run of plain paragraphs read without the parser when other blocks surround it (see `plainAwareSegments`). */
const PLAIN_RUN_CHARS = 1024;

/**
 * A micromark extension declaring the link and footnote definitions of the other segments of a
 * page, so that a reference parses the same whatever segment its definition is in. It matches
 * nothing: tried where a label may start, it only fills the parser's lists of definitions once.
 */
function knownDefinitions(links: readonly string[], footnotes: readonly string[]): Extension {
  const seeded = new WeakSet<object>();
  const seed: Construct = {
    tokenize(this: TokenizeContext, _effects, _ok, nok) {
      const parser = this.parser as TokenizeContext['parser'] & { gfmFootnotes?: string[] };
      if (!seeded.has(parser)) {
        seeded.add(parser);
        parser.defined.push(...links);
        parser.gfmFootnotes ??= [];
        parser.gfmFootnotes.push(...footnotes);
      }
      return nok;
    },
  };
  // `[` starts links and footnote calls, `!` images.
  return { text: { 91: seed, 33: seed } };
}

interface Definitions {
  links: string[];
  footnotes: string[];
}

/**
 * Moves the positions of a segment's nodes to where the segment is in the whole text; counts the
 * nodes and collects the definitions.
 */
function placeNodes(nodes: readonly Nodes[], segment: Segment, definitions: Definitions): number {
  let count = 0;
  const visit = (node: Nodes) => {
    count += 1;
    if (node.type === 'definition') definitions.links.push(normalizeIdentifier(node.label ?? node.identifier));
    if (node.type === 'footnoteDefinition')
      definitions.footnotes.push(normalizeIdentifier(node.label ?? node.identifier));
    const position = node.position;
    if (position) {
      position.start.line += segment.line;
      position.end.line += segment.line;
      if (position.start.offset !== undefined) position.start.offset += segment.start;
      if (position.end.offset !== undefined) position.end.offset += segment.start;
    }
    if ('children' in node) for (const child of node.children) visit(child as Nodes);
  };
  for (const node of nodes) visit(node);
  return count;
}

/** Whether the parse of a stretch ends where the next segment may start (see markdown/segments.ts). */
function endsCleanly(children: readonly RootContent[], stretch: Segment, next: Segment): boolean {
  const last = children.at(-1);
  const end = last?.position?.end.offset;
  if (last === undefined || end === undefined) return next.join !== 'item';
  // A node running into the trailing blank lines is one that blank lines do not end.
  if (next.join === 'blank') return end - stretch.start <= stretch.contentEnd - stretch.start;
  return last.type === 'list' && end - stretch.start >= stretch.contentEnd - stretch.start;
}

/**
 * Parses markdown to mdast a segment at a time (markdown/segments.ts), within `MARKDOWN_LIMITS`
 * (nodes, block length, definitions): the parser's memory is one segment's, and the work stops
 * at the first budget passed. The tree is the one a parse of the whole text gives (lists cut
 * between items aside, which are one list again with `spread` of either half). Runs of plain
 * paragraphs of at least `plainRunChars` characters (`Infinity`: none) are read without the parser,
 * into the nodes it would give.
 */
export function parseMarkdown(
  markdown: string,
  { head = false, segmentChars = SEGMENT_CHARS, plainRunChars = PLAIN_RUN_CHARS } = {},
): Root {
  // The head of a page (front matter and title) is in its first segment.
  const segments = head
    ? markdownSegments(markdown, segmentChars, 1)
    : plainRunChars === Infinity
      ? markdownSegments(markdown, segmentChars)
      : plainAwareSegments(markdown, segmentChars, plainRunChars);
  const parse = (extensions: Extension[]): { root: Root; definitions: Definitions } => {
    const children: RootContent[] = [];
    const definitions: Definitions = { links: [], footnotes: [] };
    let nodes = 0;
    let from = 0;
    while (from < segments.length) {
      let to = from + 1;
      let parsed: RootContent[];
      for (;;) {
        const stretch: Segment = {
          ...segments[from]!,
          end: segments[to - 1]!.end,
          contentEnd: segments[to - 1]!.contentEnd,
        };
        const length = stretch.end - stretch.start;
        if (length > MARKDOWN_LIMITS.blockChars) {
          throw new MarkdownLimitError(
            'markdownBlockChars',
            length,
            MARKDOWN_LIMITS.blockChars,
            `the markdown holds a block that is read as one piece (a code block, table, list or paragraph) of ${length} characters or more, the limit is ${MARKDOWN_LIMITS.blockChars}`,
          );
        }
        const text = markdown.slice(stretch.start, stretch.end);
        if (to === from + 1 && segments[from]!.plain) {
          // Plain paragraphs end before the blank lines after them, and define nothing: read in place.
          parsed = plainParagraphs(text, stretch);
          nodes += 2 * parsed.length;
          break;
        }
        parsed = fromMarkdown(text, {
          ...parseOptions,
          extensions: [...parseOptions.extensions, ...extensions],
        }).children;
        const next = segments[to];
        if (
          !next ||
          endsCleanly(
            parsed,
            { ...stretch, start: 0, contentEnd: stretch.contentEnd - stretch.start },
            { ...next, start: next.start - stretch.start },
          )
        ) {
          nodes += placeNodes(parsed, stretch, definitions);
          break;
        }
        // A block spans the cut: parse on to twice the length (linear however long the block).
        const goal = stretch.start + 2 * length;
        while (to < segments.length && segments[to - 1]!.end < goal) to += 1;
      }
      if (nodes > MARKDOWN_LIMITS.nodes) {
        throw new MarkdownLimitError(
          'markdownNodes',
          nodes,
          MARKDOWN_LIMITS.nodes,
          `the markdown parses into more than ${MARKDOWN_LIMITS.nodes} nodes (${nodes} in its first ${segments[to - 1]!.end} characters), the limit is ${MARKDOWN_LIMITS.nodes}`,
        );
      }
      const first = parsed[0];
      const previous = children.at(-1);
      // Two halves of one list, cut between items.
      if (
        segments[from]!.join === 'item' &&
        previous?.type === 'list' &&
        first?.type === 'list' &&
        previous.ordered === first.ordered
      ) {
        previous.children.push(...first.children);
        previous.spread = previous.spread || first.spread;
        if (previous.position && first.position) previous.position.end = first.position.end;
        parsed = parsed.slice(1);
      }
      children.push(...parsed);
      const value = definitions.links.length + definitions.footnotes.length;
      if (value > MARKDOWN_LIMITS.definitions) {
        throw new MarkdownLimitError(
          'markdownDefinitions',
          value,
          MARKDOWN_LIMITS.definitions,
          `the markdown has more than ${MARKDOWN_LIMITS.definitions} link and footnote definitions, the limit is ${MARKDOWN_LIMITS.definitions}`,
        );
      }
      from = to;
    }
    return { root: { type: 'root', children }, definitions };
  };
  const first = parse([]);
  // A reference parses as one only if its definition is known: with definitions in several
  // segments, parse again with all of them declared.
  const { links, footnotes } = first.definitions;
  if (segments.length === 1 || (links.length === 0 && footnotes.length === 0)) return first.root;
  return parse([knownDefinitions(links, footnotes)]).root;
}

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
  extensions: [
    gfmToMarkdown(),
    mathToMarkdown({ singleDollarTextMath: false }),
    frontmatterToMarkdown(['yaml']),
    gitbookToMarkdown,
  ],
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

function readContext(
  markdown: string,
  refs: RefResolver,
  definitions: ReadContext['definitions'],
  { head = false, tree }: { head?: boolean; tree?: Root } = {},
): { root: Root; ctx: ReadContext } {
  const root = tree ?? parseMarkdown(markdown, { head });
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

/**
 * Markdown nested deeper than the converter reads (its parse would take too long or overflow the
 * stack): a structural refusal, as for other input nested too deeply, where the other budgets
 * refuse content too large. `what` names the nesting seen (quotes, brackets…); without it, the
 * parse ran out of stack on nesting no scan foresees.
 */
export class MarkdownTooDeepError extends MarkdownLimitError {
  override readonly name = 'MarkdownTooDeepError';
  constructor(value: number, what?: string) {
    super(
      'markdownNesting',
      value,
      MAX_MARKDOWN_NESTING,
      what === undefined
        ? `markdown nested too deeply to read, the limit is ${MAX_MARKDOWN_NESTING}`
        : `markdown nested more than ${MAX_MARKDOWN_NESTING} levels deep (${what}), the limit is ${MAX_MARKDOWN_NESTING}`,
    );
  }
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
      if (quotes > MAX_MARKDOWN_NESTING) throw new MarkdownTooDeepError(quotes, 'quotes');
      if (indent > MAX_MARKDOWN_NESTING * 4) throw new MarkdownTooDeepError(Math.ceil(indent / 4), 'list indentation');
    }
    if (char === '\\') {
      i += 1;
    } else if (char === '[') {
      brackets += 1;
    } else if (char === ']' && brackets > 0) {
      // Only brackets that close are nested labels: stray openings cost the parser nothing.
      if (brackets > MAX_MARKDOWN_NESTING) throw new MarkdownTooDeepError(brackets, 'brackets');
      brackets -= 1;
    }
  }
}

/** Refuses markdown over `MARKDOWN_LIMITS.bytes`. */
function checkMarkdownSize(markdown: string): void {
  // A character takes 1 to 3 bytes: measure only when the characters alone do not decide.
  if (markdown.length * 3 <= MARKDOWN_LIMITS.bytes) return;
  const bytes = Buffer.byteLength(markdown);
  if (bytes > MARKDOWN_LIMITS.bytes) {
    throw new MarkdownLimitError(
      'markdownBytes',
      bytes,
      MARKDOWN_LIMITS.bytes,
      `the markdown has ${bytes} bytes, the limit is ${MARKDOWN_LIMITS.bytes}`,
    );
  }
}

/**
 * Refuses markdown that holds more blocks than `MARKDOWN_LIMITS.nodes` (each block is one node
 * at least), by a scan of its lines: a megabyte of one-line paragraphs is refused in
 * milliseconds, not after the seconds of parsing that reaching the node budget takes.
 */
function checkMarkdownBlocks(markdown: string): void {
  const max = MARKDOWN_LIMITS.nodes;
  // Each line of a block takes two characters at least (text and its line end).
  if (markdown.length / 2 <= max) return;
  const blocks = blocksAtLeast(markdown, max);
  if (blocks > max) {
    throw new MarkdownLimitError(
      'markdownNodes',
      blocks,
      max,
      `the markdown holds more than ${max} blocks, each a node at least, and may parse into ${max} nodes`,
    );
  }
}

/**
 * The budgets markdown is checked against before it is parsed: bytes, blocks, nesting. Linear and
 * quick; `markdownToDocument` and `markdownMetadata` run it themselves, a caller of `parseMarkdown`
 * runs it first.
 */
export function checkMarkdownBeforeParsing(markdown: string): void {
  checkMarkdownSize(markdown);
  checkMarkdownBlocks(markdown);
  checkNesting(markdown);
}

/** The front matter and leading `# H1` of parsed markdown, and the nodes after them. */
function readHead(
  root: Root,
  ctx: ReadContext,
): { title?: string; frontMatter: Record<string, unknown>; body: RootContent[] } {
  let body = root.children;
  let frontMatter: Record<string, unknown> = {};
  if (body[0]?.type === 'yaml') {
    frontMatter = readFrontMatter(body[0].value);
    body = body.slice(1);
  }
  const first = body[0];
  if (first?.type !== 'heading' || first.depth !== 1) return { frontMatter, body };
  return {
    title: inlinePlainText(readInlines(headingContent(first).children, ctx)).trim(),
    frontMatter,
    body: body.slice(1),
  };
}

/**
 * The title and front matter `markdownToDocument` would read, from the page's tree when it was
 * parsed already, else at the cost of the page's first segment only (within the same budgets of
 * size and nesting).
 */
export function markdownMetadata(markdown: string, tree?: Root): Omit<MarkdownPage, 'document'> {
  if (tree) {
    const { title, frontMatter } = readHead(tree, readContext(markdown, stableRefs, new Map(), { tree }).ctx);
    return title === undefined ? { frontMatter } : { title, frontMatter };
  }
  checkMarkdownBeforeParsing(markdown);
  const { root, ctx } = readContext(markdown, stableRefs, new Map(), { head: true });
  const first = root.children.find((node) => node.type !== 'yaml');
  // A reference in the title may be defined further down: read the whole page then.
  if (
    first?.type === 'heading' &&
    markdown.slice(first.position?.start.offset, first.position?.end.offset).includes('[')
  ) {
    const { title, frontMatter } = markdownToDocument(markdown);
    return title === undefined ? { frontMatter } : { title, frontMatter };
  }
  const { title, frontMatter } = readHead(root, ctx);
  return title === undefined ? { frontMatter } : { title, frontMatter };
}

/**
 * Reads markdown into a document: front matter into a plain object, a leading `# H1` into the
 * title, the rest into blocks (`##` is heading-1). What it cannot read stays as literal text; it
 * throws only `ContentLimitError`s: `MarkdownLimitError` for markdown over `MARKDOWN_LIMITS` or
 * nested deeper than `MAX_MARKDOWN_NESTING`, and one for a document over `DOCUMENT_LIMITS` nodes
 * or depth.
 * Keys are derived from the content, or carried over from `previous`.
 */
export function markdownToDocument(markdown: string, options: FromMarkdownOptions = {}): MarkdownPage {
  if (!options.tree) {
    checkMarkdownBeforeParsing(markdown);
  }
  const { root, ctx } = readContext(
    markdown,
    options.refs ?? stableRefs,
    new Map(),
    options.tree ? { tree: options.tree } : {},
  );
  const { title, frontMatter, body } = readHead(root, ctx);
  const document: JSONDocument = {
    object: 'document',
    data: options.previous ? structuredClone(options.previous.data) : {},
    nodes: readFlow(body, ctx),
  };
  checkDocumentLimits(document, { bytes: false });
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
  if (options.frontMatter && Object.keys(options.frontMatter).length)
    children.push({ type: 'yaml', value: stringifyYaml(options.frontMatter).trimEnd() });
  if (options.title) children.push({ type: 'heading', depth: 1, children: [{ type: 'text', value: options.title }] });
  children.push(...writeFlow(document.nodes, ctx));
  return toMarkdown({ type: 'root', children }, writeOptions);
}
