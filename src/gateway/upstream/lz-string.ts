/**
 * Writing the LZ-String format's URI-safe encoding (what `compressToEncodedURIComponent` of the
 * `lz-string` library writes), in which the API description has `GET /integrations/{name}/render`
 * take its `request`: an LZW-style stream of dictionary codes of growing width, written least
 * significant bit first, six bits to a character of `A–Z a–z 0–9 + - $`. The encoder is a few dozen
 * lines over UTF-16 code units, as the format is; the platform reads it back (`render.ts`).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$';

/** `text` compressed as LZ-String's `compressToEncodedURIComponent` writes it. */
export function compressToEncodedURIComponent(text: string): string {
  const out: string[] = [];
  let value = 0;
  let position = 0;
  const writeBits = (bits: number, count: number) => {
    let rest = bits;
    for (let i = 0; i < count; i++) {
      value = (value << 1) | (rest & 1);
      rest >>= 1;
      if (position === 5) {
        out.push(ALPHABET.charAt(value));
        value = 0;
        position = 0;
      } else position++;
    }
  };

  const dictionary = new Map<string, number>();
  // Single characters met but not yet written: the next time they are written, they are spelled out.
  const toSpell = new Set<string>();
  let size = 3;
  let width = 2;
  let enlargeIn = 2;
  const grow = () => {
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** width;
      width++;
    }
  };
  const emit = (word: string) => {
    if (toSpell.has(word)) {
      const code = word.charCodeAt(0);
      if (code < 256) {
        writeBits(0, width);
        writeBits(code, 8);
      } else {
        writeBits(1, width);
        writeBits(code, 16);
      }
      grow();
      toSpell.delete(word);
    } else {
      writeBits(dictionary.get(word)!, width);
    }
    grow();
  };

  let word = '';
  for (let i = 0; i < text.length; i++) {
    const char = text.charAt(i);
    if (!dictionary.has(char)) {
      dictionary.set(char, size++);
      toSpell.add(char);
    }
    const longer = word + char;
    if (dictionary.has(longer)) {
      word = longer;
    } else {
      emit(word);
      dictionary.set(longer, size++);
      word = char;
    }
  }
  if (word !== '') emit(word);
  // The end of the stream, then the bits of the last character.
  writeBits(2, width);
  for (;;) {
    value <<= 1;
    if (position === 5) {
      out.push(ALPHABET.charAt(value));
      break;
    }
    position++;
  }
  return out.join('');
}
