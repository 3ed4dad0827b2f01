import { crc32, inflateRawSync } from 'node:zlib';

/**
 * A reader of ZIP archives for imports, bounded before it inflates anything: it trusts the central
 * directory only as far as it checks it. The entry count is refused past its budget before the
 * entries are read (and counted again as they are, for archives whose 16-bit count wrapped); each
 * entry's path must be relative and stay inside the archive; archives inside the archive,
 * encrypted entries, ZIP64 and methods other than stored and deflate are refused; inflation is
 * capped by `maxOutputLength` at what is left of the byte budget, so a zip bomb stops at the
 * budget, whatever its entries declare. Every refusal is an `ArchiveError` with a code.
 */

/** Why an archive was refused. */
export type ArchiveErrorCode =
  | 'archive_invalid'
  | 'archive_too_many_entries'
  | 'archive_too_large'
  | 'archive_unsafe_path'
  | 'archive_nested'
  | 'archive_unsupported';

/** An archive refused: `code` says why, the message names the entry, the value and the limit. */
export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
  constructor(
    readonly code: ArchiveErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ZipBudgets {
  /** Most entries (files and folders) the archive may hold. */
  maxEntries: number;
  /** Most bytes its files may inflate to, together. */
  maxBytes: number;
}

export interface ZipEntry {
  /** Its path inside the archive, with `/` separators. */
  path: string;
  bytes: Buffer;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
/** The end record is the last 22 bytes, after a comment of up to 65,535 bytes. */
const MAX_EOCD_SEARCH = EOCD_SIZE + 0xffff;

/** Whether bytes start like a ZIP archive (a local file header, or the end record of an empty one). */
export function looksLikeZip(bytes: Buffer): boolean {
  return bytes.length >= 4 && (bytes.readUInt32LE(0) === LOCAL || bytes.readUInt32LE(0) === EOCD);
}

/** Why a path inside an archive cannot be written out as it is, or undefined when it can. */
function unsafePath(path: string): string | undefined {
  if (path.includes('\0')) return 'holds a NUL character';
  if (path.includes('\\')) return 'uses "\\" separators';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'is absolute';
  if (path.split('/').some((segment) => segment === '..')) return 'climbs out of the archive with ".."';
  return undefined;
}

/** The end of central directory record: where the directory is and how many entries it claims. */
function endRecord(buffer: Buffer): { entries: number; size: number; offset: number } {
  const from = Math.max(0, buffer.length - MAX_EOCD_SEARCH);
  for (let at = buffer.length - EOCD_SIZE; at >= from; at--) {
    if (buffer.readUInt32LE(at) !== EOCD) continue;
    return {
      entries: buffer.readUInt16LE(at + 10),
      size: buffer.readUInt32LE(at + 12),
      offset: buffer.readUInt32LE(at + 16),
    };
  }
  throw new ArchiveError('archive_invalid', 'is not a ZIP archive: it has no end of central directory record');
}

/**
 * Reads the files of a ZIP archive (folders are skipped), within `budgets`; `name` is how errors
 * call the archive. Synchronous and bounded: at most `maxBytes` are inflated.
 */
export function readZip(buffer: Buffer, name: string, budgets: ZipBudgets): ZipEntry[] {
  const refuse = (code: ArchiveErrorCode, message: string) => new ArchiveError(code, `${name} ${message}`);
  if (buffer.length < EOCD_SIZE) throw refuse('archive_invalid', 'is not a ZIP archive: it is too short');
  const end = endRecord(buffer);
  if (end.entries === 0xffff || end.offset === 0xffffffff || end.size === 0xffffffff)
    throw refuse('archive_unsupported', 'is a ZIP64 archive, which imports do not read');
  if (end.entries > budgets.maxEntries)
    throw refuse(
      'archive_too_many_entries',
      `has ${end.entries} entries; an archive may have at most ${budgets.maxEntries}`,
    );
  if (end.offset + end.size > buffer.length)
    throw refuse('archive_invalid', 'is damaged: its central directory lies past its end');

  const files: ZipEntry[] = [];
  let inflated = 0;
  let count = 0;
  let at = end.offset;
  const directoryEnd = end.offset + end.size;
  while (at < directoryEnd) {
    if (at + CENTRAL_SIZE > directoryEnd || buffer.readUInt32LE(at) !== CENTRAL)
      throw refuse('archive_invalid', 'is damaged: a central directory record is broken');
    count += 1;
    if (count > budgets.maxEntries)
      throw refuse(
        'archive_too_many_entries',
        `has more than ${budgets.maxEntries} entries; an archive may have at most ${budgets.maxEntries}`,
      );
    const flags = buffer.readUInt16LE(at + 8);
    const method = buffer.readUInt16LE(at + 10);
    const crc = buffer.readUInt32LE(at + 16);
    const compressed = buffer.readUInt32LE(at + 20);
    const size = buffer.readUInt32LE(at + 24);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    const localOffset = buffer.readUInt32LE(at + 42);
    const nameEnd = at + CENTRAL_SIZE + nameLength;
    if (nameEnd > directoryEnd) throw refuse('archive_invalid', 'is damaged: an entry name lies past its directory');
    const path = buffer.toString('utf8', at + CENTRAL_SIZE, nameEnd);
    at = nameEnd + extraLength + commentLength;

    const problem = unsafePath(path);
    if (problem)
      throw refuse('archive_unsafe_path', `has an entry ${JSON.stringify(path.slice(0, 200))} that ${problem}`);
    if (path.endsWith('/')) continue;
    if (/\.(zip|jar|tar|tgz|gz|7z|rar)$/i.test(path))
      throw refuse(
        'archive_nested',
        `holds another archive (${JSON.stringify(path)}); archives inside archives are not read`,
      );
    if (flags & 1) throw refuse('archive_unsupported', `has an encrypted entry ${JSON.stringify(path)}`);
    if (method !== 0 && method !== 8)
      throw refuse(
        'archive_unsupported',
        `has an entry ${JSON.stringify(path)} compressed with method ${method}; only stored and deflate are read`,
      );
    const left = budgets.maxBytes - inflated;
    if (size > left)
      throw refuse(
        'archive_too_large',
        `inflates past its budget at ${JSON.stringify(path)}: ${inflated + size} bytes; at most ${budgets.maxBytes}`,
      );

    if (localOffset + LOCAL_SIZE > buffer.length || buffer.readUInt32LE(localOffset) !== LOCAL)
      throw refuse('archive_invalid', `is damaged: the data of ${JSON.stringify(path)} is missing`);
    const dataStart =
      localOffset + LOCAL_SIZE + buffer.readUInt16LE(localOffset + 26) + buffer.readUInt16LE(localOffset + 28);
    if (dataStart + compressed > buffer.length)
      throw refuse('archive_invalid', `is damaged: the data of ${JSON.stringify(path)} lies past its end`);
    const data = buffer.subarray(dataStart, dataStart + compressed);
    let bytes: Buffer;
    if (method === 0) {
      bytes = data;
    } else {
      try {
        // The declared size may lie: inflation itself stops one byte past what the budget leaves.
        bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, left) });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
          throw refuse(
            'archive_too_large',
            `inflates past its budget at ${JSON.stringify(path)}: more than ${budgets.maxBytes} bytes; at most ${budgets.maxBytes}`,
          );
        throw refuse('archive_invalid', `is damaged: ${JSON.stringify(path)} does not inflate`);
      }
    }
    if (bytes.length !== size || crc32(bytes) !== crc)
      throw refuse(
        'archive_invalid',
        `is damaged: ${JSON.stringify(path)} does not match its declared size and checksum`,
      );
    if (looksLikeZip(bytes))
      throw refuse(
        'archive_nested',
        `holds another archive (${JSON.stringify(path)}); archives inside archives are not read`,
      );
    inflated += bytes.length;
    files.push({ path, bytes });
  }
  return files;
}
