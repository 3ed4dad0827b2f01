/**
 * Sentences of a message. A message is first cut into blocks: paragraphs (separated by a blank
 * line) and list items (one line starting with `-`, `*`, `•` or `1.`), since people end neither
 * with punctuation; lines quoting an earlier message (`> …`) and everything after a signature
 * separator (`-- `) are dropped. Each block's lines are joined and cut into sentences by
 * `Intl.Segmenter` (Unicode sentence boundaries, which know "e.g." and "v1.2" are no ends).
 * White space is collapsed. Knows neither HTTP nor SQL.
 */

/** A sentence longer than this is cut at the last space before it (run-on text, pasted logs). */
export const MAX_SENTENCE_LENGTH = 600;

const sentenceSegmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

const LIST_ITEM = /^\s*(?:[-*•]|\d{1,3}[.)])\s+/u;

/** The blocks of a message: paragraphs and list items, their lines joined. */
function blocks(text: string): string[] {
  const out: string[] = [];
  let current: string[] = [];
  const flush = () => {
    if (current.length) out.push(current.join(' '));
    current = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (/^--\s*$/.test(line)) break;
    if (/^\s*>/.test(line)) continue;
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (LIST_ITEM.test(line)) {
      flush();
      current.push(line.replace(LIST_ITEM, ''));
      flush();
      continue;
    }
    current.push(line.trim());
  }
  flush();
  return out;
}

/** Cuts a long sentence into pieces of at most `MAX_SENTENCE_LENGTH` characters, at spaces. */
function bounded(sentence: string): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_SENTENCE_LENGTH) {
    const cut = rest.lastIndexOf(' ', MAX_SENTENCE_LENGTH);
    const at = cut > MAX_SENTENCE_LENGTH / 2 ? cut : MAX_SENTENCE_LENGTH;
    pieces.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** The sentences of a message, in order, trimmed, without empty ones. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of blocks(text)) {
    for (const { segment } of sentenceSegmenter.segment(block)) {
      const sentence = segment.replace(/\s+/g, ' ').trim();
      if (sentence) out.push(...bounded(sentence));
    }
  }
  return out;
}

/** A text cut to at most `max` characters at a word boundary, with `…` when cut. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > max / 2 ? cut : max - 1).replace(/[\s,;:.-]+$/, '')}…`;
}
