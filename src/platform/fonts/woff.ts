import { brotliCompressSync, brotliDecompressSync, constants, inflateSync } from 'node:zlib';

/**
 * Web font files: checking that bytes are a real WOFF or WOFF2 font (signature, header, table
 * directory, and the compressed tables inflating to what the directory says), and writing a
 * minimal WOFF2 font (the demo's fonts are generated, not shipped).
 *
 * Decompression is bounded before it allocates: the directory declares each table's size, the
 * declared sizes must fit the budgets below, and the tables are inflated with at most their
 * declared size as output, so a small file that inflates to gigabytes (a "bomb") is refused after
 * at most its declared size, never more.
 */

export type FontFormat = 'woff' | 'woff2';

export const FONT_CONTENT_TYPES: Record<FontFormat, string> = { woff: 'font/woff', woff2: 'font/woff2' };

const FLAVORS = new Set([0x00010000, 0x4f54544f /* OTTO */, 0x74727565 /* true */]);

/** Bytes of tables a font may declare, in all (the largest real fonts, CJK ones, take about 20 MB). */
export const MAX_FONT_TABLE_BYTES = 32 * 1024 * 1024;
/**
 * How many times its compressed size a font's tables may declare, beyond `MIN_FONT_EXPANSION_BYTES`:
 * real fonts compress two to five times; a bomb, thousands of times.
 */
export const MAX_FONT_EXPANSION = 50;
/** Tables any font may declare whatever its compressed size (small fonts compress well). */
const MIN_FONT_EXPANSION_BYTES = 1024 * 1024;

/** Thrown for bytes that are not a usable web font, with what is wrong. */
export class FontFileError extends Error {
  override readonly name = 'FontFileError';
}

/** The format of a valid WOFF or WOFF2 font; throws `FontFileError` otherwise. */
export function checkFontFile(bytes: Uint8Array): FontFormat {
  const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (data.length < 44) throw new FontFileError('is too short to be a WOFF or WOFF2 font');
  const signature = data.toString('latin1', 0, 4);
  if (signature === 'wOFF') return checkWoff(data);
  if (signature === 'wOF2') return checkWoff2(data);
  throw new FontFileError('is not a WOFF or WOFF2 font (its signature is neither "wOFF" nor "wOF2")');
}

function commonHeader(data: Buffer): { numTables: number } {
  const flavor = data.readUInt32BE(4);
  if (!FLAVORS.has(flavor)) throw new FontFileError('has an unknown font flavor (neither TrueType nor CFF)');
  if (data.readUInt32BE(8) !== data.length)
    throw new FontFileError(`says it is ${data.readUInt32BE(8)} bytes long but has ${data.length}`);
  const numTables = data.readUInt16BE(12);
  if (numTables === 0 || numTables > 512) throw new FontFileError('has no tables, or too many');
  if (data.readUInt16BE(14) !== 0) throw new FontFileError('has a non-zero reserved header field');
  return { numTables };
}

/**
 * Refuses tables declaring more bytes than a font may have, in all or for their compressed size,
 * before anything is decompressed.
 */
function checkDeclaredSize(declared: number, compressed: number): void {
  if (declared > MAX_FONT_TABLE_BYTES) {
    throw new FontFileError(
      `declares ${declared} bytes of tables, more than a font may have (limit "font table bytes": ${declared}, at most ${MAX_FONT_TABLE_BYTES})`,
    );
  }
  const expansion = Math.max(MIN_FONT_EXPANSION_BYTES, compressed * MAX_FONT_EXPANSION);
  if (declared > expansion) {
    throw new FontFileError(
      `declares ${declared} bytes of tables for ${compressed} compressed, more than ${MAX_FONT_EXPANSION} times as many (limit "font expansion": ${declared}, at most ${expansion})`,
    );
  }
}

/**
 * Decompresses at most `declared` bytes (one more is an error: Node stops and throws as soon as
 * the output would pass `maxOutputLength`, without allocating the rest); `what` names the data
 * in errors.
 */
function decompressBounded(
  decompress: typeof inflateSync,
  input: Buffer,
  declared: number,
  what: string,
  method: string,
): Buffer {
  try {
    return decompress(input, { maxOutputLength: Math.max(1, declared) });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw new FontFileError(`has ${what} larger than the ${declared} bytes declared once decompressed`);
    throw new FontFileError(`has ${what} that cannot be decompressed (${method})`);
  }
}

function checkWoff(data: Buffer): FontFormat {
  const { numTables } = commonHeader(data);
  if (data.length < 44 + numTables * 20) throw new FontFileError('is cut short in its table directory');
  const tables = Array.from({ length: numTables }, (_, index) => {
    const at = 44 + index * 20;
    const table = {
      tag: data.toString('latin1', at, at + 4),
      offset: data.readUInt32BE(at + 4),
      compLength: data.readUInt32BE(at + 8),
      origLength: data.readUInt32BE(at + 12),
    };
    if (table.offset + table.compLength > data.length || table.compLength > table.origLength) {
      throw new FontFileError(`has a table "${table.tag}" outside the file or larger compressed than whole`);
    }
    return table;
  });
  checkDeclaredSize(
    tables.reduce((sum, table) => sum + table.origLength, 0),
    tables.reduce((sum, table) => sum + table.compLength, 0),
  );
  for (const { tag, offset, compLength, origLength } of tables) {
    if (compLength === origLength) continue;
    const inflated = decompressBounded(
      inflateSync,
      data.subarray(offset, offset + compLength),
      origLength,
      `a table "${tag}"`,
      'zlib inflate',
    );
    if (inflated.length !== origLength)
      throw new FontFileError(`has a table "${tag}" that inflates to ${inflated.length} bytes, not ${origLength}`);
  }
  return 'woff';
}

/** Reads a UIntBase128 (WOFF2's variable-length integers). */
function base128(data: Buffer, at: number): [value: number, next: number] {
  let value = 0;
  for (let index = 0; index < 5; index += 1) {
    if (at + index >= data.length) throw new FontFileError('is cut short in its table directory');
    const byte = data[at + index]!;
    if (index === 0 && byte === 0x80) throw new FontFileError('has a malformed number in its table directory');
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, at + index + 1];
  }
  throw new FontFileError('has a malformed number in its table directory');
}

function checkWoff2(data: Buffer): FontFormat {
  const { numTables } = commonHeader(data);
  const totalCompressedSize = data.readUInt32BE(20);
  let at = 48;
  let expected = 0;
  for (let index = 0; index < numTables; index += 1) {
    if (at >= data.length) throw new FontFileError('is cut short in its table directory');
    const flags = data[at]!;
    at += 1;
    let tag: string | undefined = KNOWN_TAGS[flags & 0x3f];
    if ((flags & 0x3f) === 63) {
      tag = data.toString('latin1', at, at + 4);
      at += 4;
    }
    let origLength: number;
    [origLength, at] = base128(data, at);
    const version = flags >> 6;
    const transformed = tag === 'glyf' || tag === 'loca' ? version === 0 : version !== 0;
    let length = origLength;
    if (transformed) [length, at] = base128(data, at);
    expected += length;
  }
  if (data.readUInt16BE(4) === 0x7474 /* ttcf collection */)
    throw new FontFileError('is a font collection, which is not supported');
  if (at + totalCompressedSize > data.length)
    throw new FontFileError('says its compressed tables are longer than the file');
  checkDeclaredSize(expected, totalCompressedSize);
  const tables = decompressBounded(
    brotliDecompressSync,
    data.subarray(at, at + totalCompressedSize),
    expected,
    'compressed tables',
    'Brotli',
  );
  if (tables.length !== expected)
    throw new FontFileError(`has tables of ${tables.length} bytes where its directory says ${expected}`);
  return 'woff2';
}

/** WOFF2's known table tags, by index. */
const KNOWN_TAGS = [
  'cmap',
  'head',
  'hhea',
  'hmtx',
  'maxp',
  'name',
  'OS/2',
  'post',
  'cvt ',
  'fpgm',
  'glyf',
  'loca',
  'prep',
  'CFF ',
  'VORG',
  'EBDT',
  'EBLC',
  'gasp',
  'hdmx',
  'kern',
  'LTSH',
  'PCLT',
  'VDMX',
  'vhea',
  'vmtx',
  'BASE',
  'GDEF',
  'GPOS',
  'GSUB',
  'EBSC',
  'JSTF',
  'MATH',
  'CBDT',
  'CBLC',
  'COLR',
  'CPAL',
  'SVG ',
  'sbix',
  'acnt',
  'avar',
  'bdat',
  'bloc',
  'bsln',
  'cvar',
  'fdsc',
  'feat',
  'fmtx',
  'fvar',
  'gvar',
  'hsty',
  'just',
  'lcar',
  'mort',
  'morx',
  'opbd',
  'prop',
  'trak',
  'Zapf',
  'Silf',
  'Glat',
  'Gloc',
  'Feat',
  'Sill',
] as const;

// --- A minimal TrueType font, as WOFF2 --------------------------------------------------------------

function table(size: number, fill: (view: Buffer) => void): Buffer {
  const view = Buffer.alloc(size);
  fill(view);
  return view;
}

/**
 * A minimal but complete TrueType font (one empty `.notdef` glyph, a family name, a weight),
 * wrapped as WOFF2 with Brotli-compressed tables (glyf and loca untransformed). Enough for any
 * WOFF2 reader to accept; it draws nothing.
 */
export function minimalWoff2(family: string, weight: number): Buffer {
  const name16 = Buffer.from(family, 'utf16le').swap16();
  const tables: Array<[string, Buffer]> = [
    [
      'cmap',
      table(36, (v) => {
        v.writeUInt16BE(0, 0);
        v.writeUInt16BE(1, 2);
        v.writeUInt16BE(3, 4);
        v.writeUInt16BE(1, 6);
        v.writeUInt32BE(12, 8);
        // format 4 with the single closing segment
        v.writeUInt16BE(4, 12);
        v.writeUInt16BE(24, 14);
        v.writeUInt16BE(0, 16);
        v.writeUInt16BE(2, 18);
        v.writeUInt16BE(2, 20);
        v.writeUInt16BE(0, 22);
        v.writeUInt16BE(0, 24);
        v.writeUInt16BE(0xffff, 26);
        v.writeUInt16BE(0, 28);
        v.writeUInt16BE(0xffff, 30);
        v.writeInt16BE(1, 32);
        v.writeUInt16BE(0, 34);
      }),
    ],
    [
      'head',
      table(54, (v) => {
        v.writeUInt32BE(0x00010000, 0);
        v.writeUInt32BE(0x00010000, 4);
        v.writeUInt32BE(0, 8);
        v.writeUInt32BE(0x5f0f3cf5, 12);
        v.writeUInt16BE(0x000b, 16);
        v.writeUInt16BE(1000, 18);
        v.writeUInt16BE(weight >= 600 ? 1 : 0, 44);
        v.writeUInt16BE(8, 46);
        v.writeInt16BE(2, 48);
        v.writeInt16BE(0, 50);
        v.writeInt16BE(0, 52);
      }),
    ],
    [
      'hhea',
      table(36, (v) => {
        v.writeUInt32BE(0x00010000, 0);
        v.writeInt16BE(800, 4);
        v.writeInt16BE(-200, 6);
        v.writeUInt16BE(500, 10);
        v.writeInt16BE(1, 18);
        v.writeUInt16BE(1, 34);
      }),
    ],
    ['hmtx', table(4, (v) => v.writeUInt16BE(500, 0))],
    [
      'maxp',
      table(32, (v) => {
        v.writeUInt32BE(0x00010000, 0);
        v.writeUInt16BE(1, 4);
        v.writeUInt16BE(2, 14);
      }),
    ],
    [
      'name',
      table(18 + name16.length, (v) => {
        v.writeUInt16BE(0, 0);
        v.writeUInt16BE(1, 2);
        v.writeUInt16BE(18, 4);
        v.writeUInt16BE(3, 6);
        v.writeUInt16BE(1, 8);
        v.writeUInt16BE(0x409, 10);
        v.writeUInt16BE(1, 12);
        v.writeUInt16BE(name16.length, 14);
        v.writeUInt16BE(0, 16);
        name16.copy(v, 18);
      }),
    ],
    [
      'OS/2',
      table(96, (v) => {
        v.writeUInt16BE(4, 0);
        v.writeInt16BE(500, 2);
        v.writeUInt16BE(weight, 4);
        v.writeUInt16BE(5, 6);
        v.write('NONE', 58, 'latin1');
        v.writeUInt16BE(weight >= 600 ? 0x20 : 0x40, 62);
        v.writeUInt16BE(0xffff, 64);
        v.writeUInt16BE(0xffff, 66);
        v.writeInt16BE(800, 68);
        v.writeInt16BE(-200, 70);
        v.writeUInt16BE(800, 74);
        v.writeUInt16BE(200, 76);
        v.writeInt16BE(500, 86);
        v.writeInt16BE(700, 88);
        v.writeUInt16BE(32, 92);
      }),
    ],
    [
      'post',
      table(32, (v) => {
        v.writeUInt32BE(0x00030000, 0);
        v.writeInt16BE(-100, 8);
        v.writeInt16BE(50, 10);
      }),
    ],
    ['glyf', Buffer.alloc(0)],
    ['loca', table(4, () => undefined)],
  ];
  const pad = (length: number) => (length + 3) & ~3;
  const totalSfntSize = 12 + 16 * tables.length + tables.reduce((sum, [, bytes]) => sum + pad(bytes.length), 0);
  const directory = Buffer.concat(
    tables.map(([tag, bytes]) => {
      // Tag given in full (index 63); glyf and loca with transform version 3, the null transform.
      const version = tag === 'glyf' || tag === 'loca' ? 3 : 0;
      return Buffer.concat([
        Buffer.from([(version << 6) | 63]),
        Buffer.from(tag, 'latin1'),
        base128Bytes(bytes.length),
      ]);
    }),
  );
  const compressed = brotliCompressSync(Buffer.concat(tables.map(([, bytes]) => bytes)), {
    params: { [constants.BROTLI_PARAM_QUALITY]: 11 },
  });
  const body = 48 + directory.length + compressed.length;
  const length = pad(body);
  const header = Buffer.alloc(48);
  header.write('wOF2', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(length, 8);
  header.writeUInt16BE(tables.length, 12);
  header.writeUInt32BE(totalSfntSize, 16);
  header.writeUInt32BE(compressed.length, 20);
  header.writeUInt16BE(1, 24);
  return Buffer.concat([header, directory, compressed, Buffer.alloc(length - body)]);
}

function base128Bytes(value: number): Buffer {
  const bytes = [value & 0x7f];
  for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) bytes.unshift((rest & 0x7f) | 0x80);
  return Buffer.from(bytes);
}
