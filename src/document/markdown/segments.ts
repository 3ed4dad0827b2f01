/**
 * Cutting markdown into segments that parse to the same top-level nodes apart as together.
 *
 * micromark keeps every event of a parse, with the tokenizer state behind it, until the whole
 * text is parsed: several kilobytes per line, so a page of 25,000 short paragraphs holds
 * hundreds of megabytes at once. Parsed a segment at a time, a page holds only its result and one
 * segment's events.
 *
 * A segment ends (`blank`) after a blank line followed by a line that starts at the margin with a
 * character that cannot continue what came before (not a space, tab, list marker, quote marker
 * or digit): every container is closed there, and so is every leaf block but the few that span
 * blank lines (fenced code, math, raw HTML such as comments, front matter). Those are told apart
 * after parsing: the caller checks that the segment's last node ends before its trailing blank
 * lines, and joins the segment with the next one otherwise. Between two items of a long list at
 * the margin with the same marker (`item`), the two lists parsed apart are joined into one.
 */

/**
 * A line of a plain paragraph: a letter first, no space last, and between them letters, digits,
 * spaces and the punctuation `, . ; ? ! ' " ( ) / % + = -`, none of which starts or takes part in
 * a construct of the platform's markdown without characters this line cannot hold (emphasis,
 * code, links, HTML, references, escapes, tags, shortcodes, math, tables, autolinks by scheme or
 * e-mail; `www.` is checked apart). Past a blank line such a line can only start a paragraph, and
 * after a line of a paragraph it continues it as it is.
 */
const PLAIN_LINE = String.raw`\p{L}(?:[\p{L}\p{N} ,.;?!'"()/%+=-]*[\p{L}\p{N},.;?!'"()/%+=-])?`;
/** `PLAIN_LINE` in ASCII: the same test, several times quicker (no Unicode classes). */
const ASCII_LINE = `[A-Za-z](?:[A-Za-z0-9 ,.;?!'"()/%+=-]*[A-Za-z0-9,.;?!'"()/%+=-])?`;
/** Lines as `PLAIN_LINE` says and empty lines (one test over the text: nothing is allocated per line). */
const PLAIN_TEXT = new RegExp(`^(?:${PLAIN_LINE}\\n|\\n)*(?:${PLAIN_LINE})?$`, 'u');
const PLAIN_ASCII = new RegExp(`^(?:${ASCII_LINE}\\n|\\n)*(?:${ASCII_LINE})?$`);

/**
 * Whether `text` is plain paragraphs only: lines as `PLAIN_LINE` says and empty lines, without the
 * `www.` that starts a GFM autolink. Such text parses into one paragraph per run of lines, each
 * holding one text node of those lines (`plainParagraphs`).
 */
export function isPlainText(text: string): boolean {
  return (PLAIN_ASCII.test(text) || PLAIN_TEXT.test(text)) && !/www\./i.test(text);
}

/** A point of an mdast position (1-based line and column, 0-based offset, in UTF-16 code units). */
interface Point {
  line: number;
  column: number;
  offset: number;
}

/**
 * The mdast nodes of plain text (`isPlainText`), as micromark and mdast-util-from-markdown give
 * them: a paragraph per run of lines, with the lines as one text node, both at the same position
 * (one object, shared), in the whole text of which `text` starts at line `at.line` (0-based) and
 * offset `at.start`. What a page of thousands of short paragraphs costs micromark (a tokenizer per
 * paragraph and per text, and the events of each) is the bulk of its parse; this costs a pass over
 * the text.
 */
export function plainParagraphs(
  text: string,
  at: { line: number; start: number } = { line: 0, start: 0 },
): Array<{
  type: 'paragraph';
  children: [{ type: 'text'; value: string; position: { start: Point; end: Point } }];
  position: { start: Point; end: Point };
}> {
  const paragraphs: ReturnType<typeof plainParagraphs> = [];
  let offset = 0;
  let line = 1;
  while (offset < text.length) {
    if (text.charCodeAt(offset) === 10) {
      offset += 1;
      line += 1;
      continue;
    }
    const startOffset = offset;
    const startLine = line;
    let lineStart = offset;
    let end = offset;
    for (;;) {
      const newline = text.indexOf('\n', lineStart);
      end = newline < 0 ? text.length : newline;
      offset = end;
      if (newline < 0 || newline + 1 >= text.length || text.charCodeAt(newline + 1) === 10) break;
      lineStart = newline + 1;
      line += 1;
    }
    const position = {
      start: { line: startLine + at.line, column: 1, offset: startOffset + at.start },
      end: { line: line + at.line, column: end - lineStart + 1, offset: end + at.start },
    };
    paragraphs.push({
      type: 'paragraph',
      children: [{ type: 'text', value: text.slice(startOffset, end), position }],
      position,
    });
  }
  return paragraphs;
}

/** How a segment is separated from the one before it. */
export type SegmentJoin = 'start' | 'blank' | 'item';

export interface Segment {
  /** Offsets of the segment in the whole text. */
  start: number;
  end: number;
  /** Line (0-based) of `start` in the whole text. */
  line: number;
  /** End of the segment's last non-blank line: a node reaching past it spans a blank line. */
  contentEnd: number;
  join: SegmentJoin;
  /** Plain paragraphs only (`isPlainText`), read without the parser (`plainParagraphs`). */
  plain?: boolean;
}

/** Characters that may start a line continuing a container or a list after a blank line. */
const CONTINUING = new Set([' ', '\t', '*', '-', '+', '>']);
const BULLET_ITEM = /^([*+-]) \S/;
const ORDERED_ITEM = /^\d{1,9}([.)]) \S/;

/** The marker of a list item written at the margin (`*`, `1.`…), or undefined. */
function itemMarker(line: string): string | undefined {
  const bullet = BULLET_ITEM.exec(line);
  if (bullet) return bullet[1];
  const ordered = ORDERED_ITEM.exec(line);
  return ordered ? `1${ordered[1]}` : undefined;
}

/** Whether a line after a blank line may start a segment. */
function startsAtMargin(line: string): boolean {
  const first = line[0];
  return first !== undefined && !CONTINUING.has(first) && !(first >= '0' && first <= '9');
}

/** The end of YAML front matter (`---` … `---` at the very start), or 0 without any. */
function frontMatterEnd(markdown: string): number {
  if (!/^---[ \t]*\r?\n/.test(markdown)) return 0;
  const close = /\n---[ \t]*(\r?\n|$)/g;
  close.lastIndex = 3;
  const found = close.exec(markdown);
  return found ? found.index + found[0].length : 0;
}

/**
 * Cuts `markdown` into segments of about `target` characters or more (a segment is never cut
 * inside front matter, and one block longer than `target` stays whole); the first `limit` only.
 */
export function markdownSegments(markdown: string, target: number, limit = Infinity): Segment[] {
  const segments: Segment[] = [];
  let segment: Segment = { start: 0, end: 0, line: 0, contentEnd: 0, join: 'start' };
  let position = frontMatterEnd(markdown);
  let line = position ? markdown.slice(0, position).split('\n').length - 1 : 0;
  let previousBlank = false;
  let previousMarker: string | undefined;
  segment.contentEnd = position;
  while (position < markdown.length) {
    const newline = markdown.indexOf('\n', position);
    const end = newline < 0 ? markdown.length : newline;
    const text = markdown.slice(position, end).replace(/\r$/, '');
    const blank = text.trim() === '';
    const marker = blank ? undefined : itemMarker(text);
    if (position - segment.start >= target) {
      const join: SegmentJoin | undefined =
        previousBlank && startsAtMargin(text)
          ? 'blank'
          : marker !== undefined && marker === previousMarker && !previousBlank
            ? 'item'
            : undefined;
      if (join) {
        segments.push({ ...segment, end: position });
        if (segments.length >= limit) return segments;
        segment = { start: position, end: position, line, contentEnd: position, join };
      }
    }
    if (!blank) segment.contentEnd = end;
    previousBlank = blank;
    previousMarker = marker;
    position = end + 1;
    line += 1;
  }
  segments.push({ ...segment, end: markdown.length });
  return segments;
}

/**
 * `markdownSegments(markdown, target)`, with runs of plain paragraphs (`isPlainText`) in
 * segments of their own, marked `plain`, cut as the others are: a run of at least `plainRun`
 * characters, or one that starts or ends the text (one that cuts no other segment in two). A
 * shorter run stays in the segment around it: the parser pays for each call, and a text that
 * alternates short plain runs with other blocks is parsed in as few calls as before.
 */
export function plainAwareSegments(markdown: string, target: number, plainRun: number): Segment[] {
  // The whole text plain (a page of short paragraphs): its segments as they are, without cutting it finer.
  if (isPlainText(markdown)) return markdownSegments(markdown, target).map((segment) => ({ ...segment, plain: true }));
  const fine = markdownSegments(markdown, 0);
  const plain = fine.map((segment) => isPlainText(markdown.slice(segment.start, segment.end)));
  const segments: Segment[] = [];
  let current: Segment | undefined;
  /** Adds a fine segment to `current`, starting a new one once `current` reached `target`. */
  const add = (segment: Segment, isPlain: boolean) => {
    if (current && (current.end - current.start >= target || Boolean(current.plain) !== isPlain)) {
      segments.push(current);
      current = undefined;
    }
    if (current) {
      current.end = segment.end;
      current.contentEnd = Math.max(current.contentEnd, segment.contentEnd);
    } else {
      current = isPlain ? { ...segment, plain: true } : segment;
    }
  };
  for (let i = 0; i < fine.length; ) {
    let j = i;
    while (j < fine.length && plain[j]) j += 1;
    const run = j > i ? fine[j - 1]!.end - fine[i]!.start : 0;
    const apart = j > i && (run >= plainRun || i === 0 || j === fine.length);
    for (let k = i; k < Math.max(j, i + 1); k += 1) add(fine[k]!, apart);
    i = Math.max(j, i + 1);
  }
  if (current) segments.push(current);
  return segments;
}

/** Openings of raw HTML that may span blank lines, with what closes each (CommonMark's HTML blocks 1 to 5). */
const SPANNING_HTML: ReadonlyArray<[RegExp, RegExp]> = [
  [/^ {0,3}<(pre|script|style|textarea)(\s|>|$)/i, /<\/(pre|script|style|textarea)>/i],
  [/^ {0,3}<!--/, /-->/],
  [/^ {0,3}<\?/, /\?>/],
  [/^ {0,3}<![A-Za-z]/, />/],
  [/^ {0,3}<!\[CDATA\[/, /\]\]>/],
];
const CODE_FENCE = /^ {0,3}(`{3,}|~{3,})/;
const MATH_FENCE = /^ {0,3}\$\$/;

/**
 * A lower bound of the blocks `markdown` parses into, found by a scan of its lines, without
 * parsing it: a line that is not indented as code and follows a blank line starts a block of its
 * own, unless it is inside fenced code, math, raw HTML that spans blank lines, or front matter,
 * which the scan skips whole (unclosed, to the end). Stops counting past `stopAfter`.
 */
export function blocksAtLeast(markdown: string, stopAfter = Infinity): number {
  let position = frontMatterEnd(markdown);
  let blocks = 0;
  let previousBlank = true;
  /** What closes the stretch the scan is inside, when it is inside one. */
  let closing: ((line: string) => boolean) | undefined;
  while (position < markdown.length && blocks <= stopAfter) {
    const newline = markdown.indexOf('\n', position);
    const end = newline < 0 ? markdown.length : newline;
    const line = markdown.slice(position, end);
    position = end + 1;
    if (closing) {
      if (closing(line)) closing = undefined;
      previousBlank = false;
      continue;
    }
    const blank = line.trim() === '';
    if (!blank && previousBlank && !/^( {4}|\t)/.test(line)) blocks += 1;
    previousBlank = blank;
    closing = spanningBlockEnd(line);
  }
  return blocks;
}

/** When `line` opens a block that may span blank lines (and does not close on it), the test of its closing line. */
function spanningBlockEnd(line: string): ((line: string) => boolean) | undefined {
  const fence = CODE_FENCE.exec(line);
  if (fence) {
    const marker = fence[1]!;
    const close = new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}\\s*$`);
    return (next) => close.test(next);
  }
  if (MATH_FENCE.test(line)) return (next) => /^ {0,3}\$\$\s*$/.test(next);
  for (const [open, close] of SPANNING_HTML) {
    if (open.test(line)) return close.test(line.replace(open, '')) ? undefined : (next) => close.test(next);
  }
  return undefined;
}
