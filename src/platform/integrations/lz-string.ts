/**
 * Reading the LZ-String format's URI-safe encoding (`compressToEncodedURIComponent` of the
 * `lz-string` library), in which the API description has clients send `GET …/render?request=`: an
 * LZW-style stream of dictionary codes of growing width, written least significant bit first, six
 * bits to a character of `A–Z a–z 0–9 + - $`. A decoder of a few dozen lines, with the budget a
 * request parameter needs (the output is bounded: a short input must not expand without limit),
 * rather than a dependency for it.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$';
const VALUE_OF = new Map([...ALPHABET].map((char, index) => [char, index]));

/** Why an input could not be read: not of the format, or expanding past the budget. */
export class LzStringError extends Error {
  constructor(
    message: string,
    readonly overBudget = false,
  ) {
    super(message);
    this.name = 'LzStringError';
  }
}

/**
 * Decodes what `compressToEncodedURIComponent` wrote; throws `LzStringError` for anything else,
 * or once the text would pass `maxChars` UTF-16 code units.
 */
export function decompressFromEncodedURIComponent(input: string, maxChars: number): string {
  // A `+` that went through a query string unescaped arrives as a space.
  const text = input.replace(/ /g, '+');
  if (text.length === 0) throw new LzStringError('is empty');
  let index = 0;
  let value = 0;
  let mask = 0;
  const nextChar = () => {
    const found = VALUE_OF.get(text.charAt(index));
    if (found === undefined)
      throw new LzStringError(index >= text.length ? 'ends too early' : 'has a character out of the format');
    index++;
    return found;
  };
  const readBits = (count: number): number => {
    let bits = 0;
    for (let power = 0; power < count; power++) {
      if (mask === 0) {
        value = nextChar();
        mask = 32;
      }
      if (value & mask) bits |= 1 << power;
      mask >>= 1;
    }
    return bits;
  };

  const dictionary: string[] = ['', '', ''];
  let enlargeIn = 4;
  let width = 3;
  let size = 0;
  const grow = () => {
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** width;
      width++;
    }
  };
  const first = readBits(2);
  if (first === 2) return '';
  if (first === 3) throw new LzStringError('does not start as the format does');
  let previous = String.fromCharCode(readBits(first === 0 ? 8 : 16));
  dictionary.push(previous);
  const parts = [previous];
  size = previous.length;
  for (;;) {
    let code = readBits(width);
    if (code === 2) return parts.join('');
    if (code === 0 || code === 1) {
      dictionary.push(String.fromCharCode(readBits(code === 0 ? 8 : 16)));
      code = dictionary.length - 1;
      grow();
    }
    let entry: string;
    if (code < dictionary.length && code > 2) entry = dictionary[code]!;
    else if (code === dictionary.length) entry = previous + previous.charAt(0);
    else throw new LzStringError('refers to nothing it defined');
    size += entry.length;
    if (size > maxChars) throw new LzStringError(`is more than ${maxChars} characters once decompressed`, true);
    parts.push(entry);
    dictionary.push(previous + entry.charAt(0));
    grow();
    previous = entry;
  }
}
