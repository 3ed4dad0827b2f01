/**
 * Emoji: shortcodes (`:tada:`) and characters (🎉) from the gemoji list; a document stores an
 * emoji's code points in hex joined by `-` (`1f389`).
 */
import { gemoji } from 'gemoji';

const codeOf = (char: string): string => [...char].map((c) => (c.codePointAt(0) ?? 0).toString(16)).join('-');

const codeByName = new Map<string, string>();
const nameByCode = new Map<string, string>();
const codeByChar = new Map<string, string>();
for (const entry of gemoji) {
  const code = codeOf(entry.emoji);
  codeByChar.set(entry.emoji, code);
  if (entry.names[0] && !nameByCode.has(code)) nameByCode.set(code, entry.names[0]);
  for (const name of entry.names) codeByName.set(name, code);
  // Also without the emoji variation selector when the rest still shows as an emoji.
  const bare = entry.emoji.replace(/\uFE0F/g, '');
  if (bare !== entry.emoji && /^\p{Emoji_Presentation}/u.test(bare) && !codeByChar.has(bare))
    codeByChar.set(bare, code);
}
const CHARS = new RegExp(
  [...codeByChar.keys()]
    .sort((a, b) => b.length - a.length)
    .map((c) => RegExp.escape(c))
    .join('|'),
  'gu',
);

const ASCII = /^[\x00-\x7f]*$/;
/** Whether every emoji has a character beyond ASCII, so that ASCII text holds none. */
const NO_ASCII_EMOJI = ![...codeByChar.keys()].some((char) => ASCII.test(char));

/** Whether `name` is a known shortcode. */
export function isEmojiName(name: string): boolean {
  return codeByName.has(name);
}

/** The code of a shortcode's emoji (`tada` → `1f389`). */
export function emojiCodeByName(name: string): string | undefined {
  return codeByName.get(name);
}

/** The shortcode of an emoji code (`1f389` → `tada`), if it has one. */
export function emojiName(code: string): string | undefined {
  return nameByCode.get(code);
}

/** Splits text into runs of text and emoji codes (for emoji characters typed in text). */
export function splitEmoji(text: string): Array<string | { code: string }> {
  // The alternation of every emoji is slow to try at each character: skip text that cannot hold one.
  if (NO_ASCII_EMOJI && ASCII.test(text)) return text ? [text] : [];
  const out: Array<string | { code: string }> = [];
  let last = 0;
  for (const match of text.matchAll(CHARS)) {
    if (match.index > last) out.push(text.slice(last, match.index));
    out.push({ code: codeByChar.get(match[0]) ?? codeOf(match[0]) });
    last = match.index + match[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}
