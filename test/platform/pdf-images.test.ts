import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { documentOf, image, paragraph } from '../../src/document/model.js';
import { PdfTooLargeError, renderPdf } from '../../src/platform/content/pdf.js';
import { MAX_PDF_PNG_PIXEL_BYTES, pdfReadyImage } from '../../src/platform/content/png.js';
import { png } from '../fixtures/images.js';
import { overContentLimit } from '../../src/platform/http.js';

// PNG images of the PDF export: those its library inflates in full are bounded first.

/** Rows of zero pixels (filter byte, then samples), deflated. */
const rows = (width: number, height: number, channels: number) =>
  deflateSync(Buffer.alloc(height * (1 + width * channels)));

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
    const pdf = await renderPdf([{ title: 'Page', depth: 0, document }], {
      title: 'Export',
      image: () => broken,
      label: () => 'diagram.png',
    });
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
    const refused = await renderPdf([{ title: 'Long', depth: 0, document: long }], {
      ...options,
      maxBytes: 20_000,
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PdfTooLargeError);
    expect(refused).toMatchObject({ limit: 'pdfBytes', max: 20_000 });
    // The platform answers it as a 413 (its one mapping of content budgets to HTTP).
    expect(overContentLimit('pdf', refused as PdfTooLargeError).status).toBe(413);
    expect((refused as PdfTooLargeError).value).toBeGreaterThan(20_000);
  });
});
