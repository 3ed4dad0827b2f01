import { inflateSync } from 'node:zlib';

/**
 * PNG images handed to the PDF export (`pdf.ts`). Its PDF library copies the compressed pixels of
 * an opaque, non-interlaced PNG as they are, but inflates those of one with transparency or
 * interlacing in full: asynchronously, without a size limit (a 1 KB file of 20,000 × 20,000
 * pixels is 1.6 GB once inflated) and throwing outside any caller when the data is corrupt,
 * which ends the process. So such an image is checked here first: its pixels, from the size its
 * header gives, must fit a budget, and its data must inflate, bounded by that size. Knows
 * neither HTTP nor SQL.
 */

/** Largest inflated pixel data of a PNG the PDF export decodes (about a 4K screenshot with transparency). */
export const MAX_PDF_PNG_PIXEL_BYTES = 48 * 1024 * 1024;

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Samples per pixel by PNG colour type (greyscale, RGB, palette, grey + alpha, RGBA). */
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * The bytes of an image for the PDF export, or undefined when they are a PNG that would be
 * inflated without bounds or would fail to (the export then shows the image's name instead).
 * Other formats pass as they are.
 */
export function pdfReadyImage(bytes: Buffer | undefined): Buffer | undefined {
  if (!bytes?.subarray(0, 8).equals(SIGNATURE)) return bytes;
  return pngInflatesWithinBudget(bytes) ? bytes : undefined;
}

function pngInflatesWithinBudget(bytes: Buffer): boolean {
  let header: { width: number; height: number; depth: number; colorType: number; interlaced: boolean } | undefined;
  let transparency = false;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR' && body.length >= 13) {
      header = {
        width: body.readUInt32BE(0),
        height: body.readUInt32BE(4),
        depth: body[8]!,
        colorType: body[9]!,
        interlaced: body[12] === 1,
      };
    } else if (type === 'tRNS') transparency = true;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const channels = header ? CHANNELS[header.colorType] : undefined;
  if (!header || channels === undefined) return false;
  const decoded =
    header.colorType === 4 || header.colorType === 6 || header.interlaced || (transparency && header.colorType === 3);
  if (!decoded) return true;
  // Each row: a filter byte, then its samples; interlacing adds at most a few bytes per row.
  const rowBytes = Math.ceil((header.width * channels * header.depth) / 8);
  const pixelBytes = header.height * (rowBytes + 1) + (header.interlaced ? 4 * header.height + 64 : 0);
  if (pixelBytes > MAX_PDF_PNG_PIXEL_BYTES) return false;
  try {
    inflateSync(Buffer.concat(data), { maxOutputLength: Math.max(1, pixelBytes) });
    return true;
  } catch {
    return false;
  }
}
