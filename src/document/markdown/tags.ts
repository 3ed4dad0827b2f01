/**
 * The `{% name attr="value" %}` tags of GitBook's markdown: reading a tag line into tags and
 * text, and writing tags. Values are double-quoted; `"` and `\` inside them are escaped with a
 * backslash (single quotes are read too). A positional value (`{% include "path" %}`) is read
 * into `args`.
 */

/** One `{% … %}` tag. */
export interface TagToken {
  kind: 'tag';
  /** Name without the `end` prefix of a closing tag. */
  name: string;
  end: boolean;
  attrs: Record<string, string>;
  args: string[];
  raw: string;
}

/** Text between tags on a tag line. */
export interface TagText {
  kind: 'text';
  value: string;
}

const TAG = /\{%-?\s*([A-Za-z][\w-]*)((?:[^%"']|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|%(?!\}))*)-?%\}/g;
const ATTR =
  /([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^\s"']+))|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g;
const unescapeValue = (value: string): string => value.replace(/\\(.)/g, '$1');

/** Splits a tag line into its tags and the text around them (empty text is left out). */
export function readTagLine(line: string): Array<TagToken | TagText> {
  const out: Array<TagToken | TagText> = [];
  let last = 0;
  for (const match of line.matchAll(TAG)) {
    const [raw, word = '', rest = ''] = match;
    if (match.index > last) out.push({ kind: 'text', value: line.slice(last, match.index) });
    last = match.index + raw.length;
    const end = /^end(?!$)/.test(word) && word !== 'endpoint';
    const attrs: Record<string, string> = {};
    const args: string[] = [];
    for (const a of rest.matchAll(ATTR)) {
      if (a[1]) attrs[a[1]] = unescapeValue(a[2] ?? a[3] ?? a[4] ?? '');
      else args.push(unescapeValue(a[5] ?? a[6] ?? ''));
    }
    out.push({ kind: 'tag', name: end ? word.slice(3) : word, end, attrs, args, raw });
  }
  if (last < line.length) out.push({ kind: 'text', value: line.slice(last) });
  return out.filter((t) => t.kind === 'tag' || t.value.trim() !== '');
}

const quote = (value: string): string => `"${value.replace(/[\\"]/g, '\\$&')}"`;

/**
 * Writes an opening tag: attributes in the given order, those `undefined` left out; booleans
 * and numbers as `"true"`, `"3"`. `args` are written before the attributes.
 */
export function openTag(
  name: string,
  attrs: Record<string, string | number | boolean | undefined> = {},
  args: string[] = [],
): string {
  const parts = [name, ...args.map(quote)];
  for (const [attr, value] of Object.entries(attrs))
    if (value !== undefined) parts.push(`${attr}=${quote(String(value))}`);
  return `{% ${parts.join(' ')} %}`;
}

/** Writes a closing tag: `{% endname %}`. */
export function closeTag(name: string): string {
  return `{% end${name} %}`;
}

/** Reads a boolean attribute (`"true"`/`"false"`; anything else is `undefined`). */
export function booleanAttr(value: string | undefined): boolean | undefined {
  return value === 'true' ? true : value === 'false' ? false : undefined;
}
