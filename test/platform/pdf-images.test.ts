import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { documentOf, image, paragraph } from '../../src/platform/content/document.js';
import { PdfTooLargeError, renderPdf } from '../../src/platform/content/pdf.js';
import { MAX_PDF_PNG_PIXEL_BYTES, pdfReadyImage } from '../../src/platform/content/png.js';

// PNG images of the PDF export: those its library inflates in full are bounded first.

function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), body])), 0);
  return Buffer.concat([head, body, crc]);
}

/** A PNG of 8-bit samples: its header says `width` × `height` of `colorType`, its data is `data` as given. */
function png(width: number, height: number, colorType: number, data: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = colorType;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', data), chunk('IEND', Buffer.alloc(0))]);
}

/** Rows of zero pixels (filter byte, then samples), deflated. */
const rows = (width: number, height: number, channels: number) => deflateSync(Buffer.alloc(height * (1 + width * channels)));

describe('pdfReadyImage', () => {
  it('passes images the PDF library copies as they are, and transparent PNGs that inflate within their size', () => {
    const opaque = png(20_000, 20_000, 2, rows(10, 1, 3));
    expect(pdfReadyImage(opaque)).toBe(opaque);
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]);
    expect(pdfReadyImage(jpeg)).toBe(jpeg);
    const transparent = png(4, 4, 6, rows(4, 4, 4));
    expect(pdfReadyImage(transparent)).toBe(transparent);
  });

  it('refuses transparent PNGs too large to inflate, inflating past their size, or that do not inflate', () => {
    // 20,000 × 20,000 RGBA: 1.6 GB of pixels from a few hundred bytes.
    expect(20_000 * 20_001 * 4).toBeGreaterThan(MAX_PDF_PNG_PIXEL_BYTES);
    expect(pdfReadyImage(png(20_000, 20_000, 6, rows(100, 1, 4)))).toBeUndefined();
    // A 10 × 10 header over 64 MiB of data.
    expect(pdfReadyImage(png(10, 10, 6, deflateSync(Buffer.alloc(64 * 1024 * 1024))))).toBeUndefined();
    expect(pdfReadyImage(png(4, 4, 6, Buffer.from('not zlib data at all')))).toBeUndefined();
  });

  it('lets the PDF export show the name of such an image instead of ending the process', async () => {
    const broken = png(4, 4, 6, Buffer.from('not zlib data at all'));
    const document = documentOf([image({ kind: 'file', file: 'f1' }, { alt: 'Broken diagram' })]);
    const pdf = await renderPdf([{ title: 'Page', depth: 0, document }], { title: 'Export', image: () => broken, label: () => 'diagram.png' });
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });
});

describe('renderPdf of a long page', () => {
  const long = documentOf(Array.from({ length: 5_000 }, (_, n) => paragraph(`Paragraph ${n} of a long page.`)));
  const options = { title: 'Export', image: () => undefined, label: () => '' };

  it('lets other work run while it lays the page out', async () => {
    let turns = 0;
    let rendering = true;
    const count = () => {
      if (!rendering) return;
      turns += 1;
      setImmediate(count);
    };
    setImmediate(count);
    const pdf = await renderPdf([{ title: 'Long', depth: 0, document: long }], options);
    rendering = false;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(turns).toBeGreaterThan(1);
  });

  it('refuses a PDF past its byte budget, naming it', async () => {
    const refused = await renderPdf([{ title: 'Long', depth: 0, document: long }], { ...options, maxBytes: 20_000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PdfTooLargeError);
    expect(refused).toMatchObject({ limit: 'pdfBytes', max: 20_000, status: 413 });
    expect((refused as PdfTooLargeError).value).toBeGreaterThan(20_000);
  });
});
