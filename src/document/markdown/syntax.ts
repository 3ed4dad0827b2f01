/**
 * The markdown syntax beyond CommonMark, GFM, math and front matter, as micromark extensions
 * with their mdast counterparts:
 *
 * - a **tag line**: a line that starts with `{%` and holds at least one `%}` (`{% hint
 *   style="info" %}`, `{% endhint %}`, `{% embed url="…" %}caption{% endembed %}`) is one
 *   `gitbookTagLine` node, in any container (list items, quotes). It interrupts paragraphs,
 *   and is not recognized inside code. tags.ts reads the tags of the line and pairs them.
 * - an **emoji shortcode**: `:name:` where `name` is a known emoji and the character before
 *   is not a letter or digit, as an `emojiShortcode` node. `\:name:` stays text.
 */
import type { Literal, Node } from 'mdast';
import type { Extension as FromMarkdownExtension } from 'mdast-util-from-markdown';
import type { Options as ToMarkdownExtension } from 'mdast-util-to-markdown';
import type { Code, Construct, Effects, Extension, State, TokenizeContext } from 'micromark-util-types';

/** A line of `{% … %}` tags (see tags.ts). */
export interface GitbookTagLine extends Literal {
  type: 'gitbookTagLine';
  /** When written: whether the line opens a block with content, closes one, or stands alone. */
  role?: 'open' | 'close' | 'void';
}

/** `:name:` of a known emoji. */
export interface EmojiShortcode extends Node {
  type: 'emojiShortcode';
  name: string;
}

declare module 'mdast' {
  interface RootContentMap {
    gitbookTagLine: GitbookTagLine;
    emojiShortcode: EmojiShortcode;
  }
  interface BlockContentMap {
    gitbookTagLine: GitbookTagLine;
  }
  interface PhrasingContentMap {
    emojiShortcode: EmojiShortcode;
  }
}

declare module 'micromark-util-types' {
  interface TokenTypeMap {
    gitbookTagLine: 'gitbookTagLine';
    emojiShortcode: 'emojiShortcode';
  }
}

const LEFT_BRACE = 123;
const RIGHT_BRACE = 125;
const PERCENT = 37;
const COLON = 58;

const isLineEnd = (code: Code): boolean => code === null || code < -2;
const isWordCode = (code: Code): boolean =>
  code !== null && ((code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122));
const isShortcodeCode = (code: Code): boolean => isWordCode(code) || code === 95 || code === 43 || code === 45; // _ + -

function tokenizeTagLine(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
  let closed = false;
  let afterPercent = false;
  const inside: State = (code) => {
    if (isLineEnd(code)) {
      if (!closed) return nok(code);
      effects.exit('gitbookTagLine');
      return ok(code);
    }
    if (code === RIGHT_BRACE && afterPercent) closed = true;
    afterPercent = code === PERCENT;
    effects.consume(code);
    return inside;
  };
  const percent: State = (code) => {
    if (code !== PERCENT) return nok(code);
    effects.consume(code);
    return inside;
  };
  return (code) => {
    if (code !== LEFT_BRACE) return nok(code);
    effects.enter('gitbookTagLine');
    effects.consume(code);
    return percent;
  };
}

const tagLineConstruct: Construct = { name: 'gitbookTagLine', tokenize: tokenizeTagLine };

/** micromark and mdast extensions for GitBook's syntax; `isEmojiName` tells known shortcodes. */
export function gitbookSyntax(isEmojiName: (name: string) => boolean): {
  micromark: Extension;
  fromMarkdown: FromMarkdownExtension;
} {
  function tokenizeShortcode(this: TokenizeContext, effects: Effects, ok: State, nok: State): State {
    let name = '';
    const inName: State = (code) => {
      if (code === COLON && name && isEmojiName(name)) {
        effects.consume(code);
        effects.exit('emojiShortcode');
        return ok;
      }
      if (!isShortcodeCode(code) || name.length > 64) return nok(code);
      name += String.fromCharCode(code as number);
      effects.consume(code);
      return inName;
    };
    return (code) => {
      if (code !== COLON) return nok(code);
      effects.enter('emojiShortcode');
      effects.consume(code);
      return inName;
    };
  }
  const shortcodeConstruct: Construct = {
    name: 'emojiShortcode',
    tokenize: tokenizeShortcode,
    previous: (code) => !isWordCode(code) && code !== COLON,
  };
  return {
    micromark: { flow: { [LEFT_BRACE]: tagLineConstruct }, text: { [COLON]: shortcodeConstruct } },
    fromMarkdown: {
      enter: {
        gitbookTagLine(token) {
          this.enter({ type: 'gitbookTagLine', value: this.sliceSerialize(token) }, token);
        },
        emojiShortcode(token) {
          this.enter({ type: 'emojiShortcode', name: this.sliceSerialize(token).slice(1, -1) }, token);
        },
      },
      exit: {
        gitbookTagLine(token) {
          this.exit(token);
        },
        emojiShortcode(token) {
          this.exit(token);
        },
      },
    },
  };
}

/**
 * The mdast-util-to-markdown side: tag lines and shortcodes as written; text that would read
 * as a tag line or a shortcode is escaped (`\{%`, `\:name:`).
 */
export const gitbookToMarkdown: ToMarkdownExtension = {
  handlers: {
    gitbookTagLine: (node: GitbookTagLine) => node.value,
    emojiShortcode: (node: EmojiShortcode) => `:${node.name}:`,
  },
  unsafe: [
    { character: '{', after: '%', atBreak: true },
    { character: ':', before: '[^A-Za-z0-9:]', after: '[\\w+-]+:', inConstruct: 'phrasing' },
    { character: ':', after: '[\\w+-]+:', atBreak: true },
  ],
};
