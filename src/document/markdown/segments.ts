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
