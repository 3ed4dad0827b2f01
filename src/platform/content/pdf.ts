import { pdfReadyImage } from './png.js';
import { timeSlices } from '../slices.js';
import {
  ContentLimitError,
  type Block,
  type ContentRef,
  type Fragment,
  type InlineContent,
  type JSONDocument,
  type Leaf,
  type Table,
} from '../../document/model.js';

/**
 * A space (or one page) as a PDF, rendered from its documents with pdfkit: headings,
 * paragraphs with bold, italic and code, lists, code blocks, hints, quotes, tables, images,
 * tabs, expandables, math, and references as their text. The standard PDF fonts are used, so
 * characters outside Latin-1 (emoji, CJK) are left out.
 */

/** One page of the export. */
export interface PdfPage {
  title: string;
  /** Nesting depth (0 for a top-level page), which sets the size of its title. */
  depth: number;
  document: JSONDocument | undefined;
}

export interface PdfOptions {
  /** Title of the document (its metadata and first heading). */
  title: string;
  /** The bytes of an image file referenced by a document, when they are PNG or JPEG. */
  image(ref: ContentRef): Buffer | undefined;
  /** The text shown for a reference (a page's title, a file's name, a URL). */
  label(ref: ContentRef): string;
  /** Largest PDF made, in bytes. @default MAX_PDF_BYTES */
  maxBytes?: number;
}

const MARGIN = 56;
const FONT = {
  regular: 'Helvetica',
  bold: 'Helvetica-Bold',
  italic: 'Helvetica-Oblique',
  boldItalic: 'Helvetica-BoldOblique',
  code: 'Courier',
};
const HINT_COLORS: Record<string, string> = {
  info: '#2f6fde',
  warning: '#c98a00',
  danger: '#c62828',
  success: '#2e7d32',
};

/** Largest PDF an export may make, in bytes: past it, the export is refused rather than held in memory. */
export const MAX_PDF_BYTES = 64 * 1024 * 1024;

/** A PDF that would be larger than `MAX_PDF_BYTES` (`pdfBytes`). */
export class PdfTooLargeError extends ContentLimitError {
  override readonly name = 'PdfTooLargeError';
}

/**
 * Renders the pages as one PDF, a block at a time with turns of the event loop between slices
 * (a page of 25,000 paragraphs takes a few hundred milliseconds to lay out), within
 * `MAX_PDF_BYTES`.
 */
export async function renderPdf(pages: readonly PdfPage[], options: PdfOptions): Promise<Buffer> {
  // Loaded at the first export, not at every start of the platform (a tenth of a second).
  const { default: PDFDocument } = await import('pdfkit');
  const pdf = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: latin1(options.title), Producer: 'Documentation platform' },
    bufferPages: false,
  });
  const chunks: Buffer[] = [];
  let bytes = 0;
  const done = new Promise<Buffer>((resolve, reject) => {
    pdf.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      chunks.push(chunk);
    });
    pdf.on('end', () => resolve(Buffer.concat(chunks)));
    pdf.on('error', reject);
  });
  const writer = new Writer(pdf, options);
  const { maxBytes = MAX_PDF_BYTES } = options;
  const slice = timeSlices();
  for (const [index, page] of pages.entries()) {
    if (index > 0) pdf.addPage();
    writer.heading(page.title, page.depth === 0 ? 24 : 20);
    for (const block of page.document?.nodes ?? []) {
      writer.blocks([block], 0);
      if (bytes > maxBytes) {
        pdf.end();
        throw new PdfTooLargeError(
          'pdfBytes',
          bytes,
          maxBytes,
          `the PDF would be larger than ${maxBytes} bytes: export fewer pages`,
        );
      }
      await slice();
    }
  }
  pdf.end();
  return done;
}

class Writer {
  constructor(
    private readonly pdf: PDFKit.PDFDocument,
    private readonly options: PdfOptions,
  ) {}

  private get width(): number {
    return this.pdf.page.width - 2 * MARGIN;
  }

  heading(text: string, size: number): void {
    this.pdf.moveDown(0.4);
    this.pdf.font(FONT.bold).fontSize(size).fillColor('#111111').text(latin1(text), { width: this.width });
    this.pdf.moveDown(0.3);
  }

  blocks(blocks: readonly Block[], indent: number): void {
    for (const block of blocks) this.block(block, indent);
  }

  private block(block: Block, indent: number): void {
    const pdf = this.pdf;
    switch (block.type) {
      case 'paragraph':
        this.inlines(block.nodes, { indent });
        pdf.moveDown(0.5);
        return;
      case 'heading-1':
      case 'heading-2':
      case 'heading-3':
        this.heading(
          inlineText(block.nodes),
          block.type === 'heading-1' ? 17 : block.type === 'heading-2' ? 14.5 : 12.5,
        );
        return;
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks':
        block.nodes.forEach((item, index) => {
          const marker =
            block.type === 'list-ordered'
              ? `${(block.data.start ?? 1) + index}.`
              : block.type === 'list-tasks'
                ? item.data.checked
                  ? '[x]'
                  : '[ ]'
                : '•';
          const [first, ...rest] = item.nodes;
          const y = pdf.y;
          pdf
            .font(FONT.regular)
            .fontSize(11)
            .fillColor('#111111')
            .text(marker, MARGIN + indent, y, { width: 24 });
          pdf.y = y;
          if (first?.type === 'paragraph') this.inlines(first.nodes, { indent: indent + 24 });
          else if (first) this.block(first, indent + 24);
          this.blocks(rest, indent + 24);
        });
        pdf.moveDown(0.4);
        return;
      case 'blockquote':
        this.boxed('#9e9e9e', indent, () => this.blocks(block.nodes, indent + 14));
        return;
      case 'hint':
        this.boxed(HINT_COLORS[block.data.style] ?? '#2f6fde', indent, () => this.blocks(block.nodes, indent + 14));
        return;
      case 'code': {
        if (block.data.title)
          pdf
            .font(FONT.bold)
            .fontSize(9.5)
            .fillColor('#444444')
            .text(latin1(block.data.title), MARGIN + indent);
        const text = block.nodes.map((line) => inlineText(line.nodes)).join('\n');
        const top = pdf.y;
        pdf.font(FONT.code).fontSize(9.5);
        const height = pdf.heightOfString(latin1(text), { width: this.width - indent - 16 }) + 12;
        pdf
          .save()
          .rect(MARGIN + indent, top, this.width - indent, height)
          .fill('#f4f4f4')
          .restore();
        pdf.fillColor('#222222').text(latin1(text), MARGIN + indent + 8, top + 6, { width: this.width - indent - 16 });
        pdf.y = top + height;
        pdf.moveDown(0.6);
        return;
      }
      case 'divider': {
        const y = pdf.y + 4;
        pdf
          .save()
          .moveTo(MARGIN, y)
          .lineTo(MARGIN + this.width, y)
          .strokeColor('#cccccc')
          .stroke()
          .restore();
        pdf.y = y + 8;
        return;
      }
      case 'math':
        pdf
          .font(FONT.code)
          .fontSize(10.5)
          .fillColor('#111111')
          .text(latin1(block.data.formula), MARGIN + indent + 16, pdf.y, { width: this.width - indent - 16 });
        pdf.moveDown(0.5);
        return;
      case 'images':
        for (const image of block.nodes) this.block(image, indent);
        return;
      case 'image': {
        const bytes = pdfReadyImage(this.options.image(block.data.ref));
        if (bytes) {
          try {
            pdf.image(bytes, MARGIN + indent, pdf.y, { fit: [this.width - indent, 320] });
            pdf.moveDown(0.3);
          } catch {
            this.note(`[image: ${block.data.alt ?? this.options.label(block.data.ref)}]`, indent);
          }
        } else {
          this.note(`[image: ${block.data.alt ?? this.options.label(block.data.ref)}]`, indent);
        }
        this.caption(block.fragments, indent);
        return;
      }
      case 'file':
        this.note(`[file: ${this.options.label(block.data.ref)}]`, indent);
        this.caption(block.fragments, indent);
        return;
      case 'embed':
        this.note(`[embedded: ${block.data.url}]`, indent);
        this.caption(block.fragments, indent);
        return;
      case 'content-ref':
        this.note(`→ ${this.options.label(block.data.ref)}`, indent);
        return;
      case 'reusable-content':
        this.note(`[reusable content: ${this.options.label(block.data.ref)}]`, indent);
        return;
      case 'tabs':
        for (const tab of block.nodes) {
          pdf
            .font(FONT.bold)
            .fontSize(11)
            .fillColor('#111111')
            .text(latin1(tab.data.title ?? ''), MARGIN + indent, pdf.y);
          pdf.moveDown(0.2);
          this.blocks(tab.nodes, indent + 12);
        }
        return;
      case 'expandable': {
        const [title, body] = block.fragments;
        pdf
          .font(FONT.bold)
          .fontSize(11)
          .fillColor('#111111')
          .text(latin1(title ? blocksText(title.nodes) : ''), MARGIN + indent, pdf.y);
        pdf.moveDown(0.2);
        if (body) this.blocks(body.nodes, indent + 12);
        return;
      }
      case 'table':
        this.table(block, indent);
        return;
      default:
        if ('nodes' in block && Array.isArray(block.nodes)) this.blocks(block.nodes as Block[], indent);
    }
  }

  /** A run of texts and inlines, with marks as fonts. */
  private inlines(nodes: readonly InlineContent[], options: { indent: number }): void {
    const pdf = this.pdf;
    const runs: Array<{ text: string; font: string; color: string }> = [];
    const visit = (items: readonly InlineContent[]) => {
      for (const node of items) {
        if (node.object === 'text') {
          for (const leaf of node.leaves) runs.push({ text: latin1(leaf.text), font: fontOf(leaf), color: '#111111' });
        } else if (node.type === 'link') {
          const before = runs.length;
          visit(node.nodes);
          for (const run of runs.slice(before)) run.color = '#1a56c4';
        } else if (node.type === 'emoji') {
        } else if (node.type === 'inline-math') {
          runs.push({ text: latin1(node.data.formula), font: FONT.code, color: '#111111' });
        } else if (node.type === 'mention') {
          runs.push({ text: latin1(this.options.label(node.data.ref)), font: FONT.bold, color: '#1a56c4' });
        } else if ('nodes' in node && Array.isArray(node.nodes)) {
          visit(node.nodes as InlineContent[]);
        }
      }
    };
    visit(nodes);
    const visible = runs.filter((run) => run.text !== '');
    if (visible.length === 0) return;
    pdf.fontSize(11);
    const width = this.width - options.indent;
    visible.forEach((run, index) => {
      pdf.font(run.font).fillColor(run.color);
      const textOptions = { continued: index < visible.length - 1, width };
      if (index === 0) pdf.text(run.text, MARGIN + options.indent, pdf.y, textOptions);
      else pdf.text(run.text, textOptions);
    });
  }

  private boxed(color: string, indent: number, body: () => void): void {
    const top = this.pdf.y;
    body();
    const bottom = this.pdf.y;
    this.pdf
      .save()
      .rect(MARGIN + indent, top, 3, Math.max(bottom - top - 4, 8))
      .fill(color)
      .restore();
    this.pdf.moveDown(0.3);
  }

  private note(text: string, indent: number): void {
    this.pdf
      .font(FONT.italic)
      .fontSize(10)
      .fillColor('#555555')
      .text(latin1(text), MARGIN + indent, this.pdf.y, { width: this.width - indent });
    this.pdf.moveDown(0.4);
  }

  private caption(fragments: ReadonlyArray<Fragment> | undefined, indent: number): void {
    const caption = fragments?.find((fragment) => fragment.fragment === 'caption');
    if (caption) this.note(blocksText(caption.nodes), indent);
  }

  private table(block: Table, indent: number): void {
    const pdf = this.pdf;
    const columns = block.data.view.columns.filter((id) => block.data.definition[id]);
    if (columns.length === 0) return;
    const fragments = new Map(block.fragments.map((fragment) => [fragment.fragment, fragment]));
    const cell = (value: unknown): string => {
      const fragment = typeof value === 'string' ? fragments.get(value) : undefined;
      if (fragment) return blocksText(fragment.nodes);
      return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
    };
    const records = Object.values(block.data.records).sort((a, b) =>
      a.orderIndex < b.orderIndex ? -1 : a.orderIndex > b.orderIndex ? 1 : 0,
    );
    const rows = [
      columns.map((id) => block.data.definition[id]!.title),
      ...records.map((record) => columns.map((id) => cell(record.values[id]))),
    ];
    const width = (this.width - indent) / columns.length;
    rows.forEach((row, rowIndex) => {
      pdf.font(rowIndex === 0 ? FONT.bold : FONT.regular).fontSize(9.5);
      const height = Math.max(...row.map((text) => pdf.heightOfString(latin1(text), { width: width - 8 }))) + 8;
      if (pdf.y + height > pdf.page.height - MARGIN) pdf.addPage();
      const top = pdf.y;
      row.forEach((text, column) => {
        const x = MARGIN + indent + column * width;
        pdf.save().rect(x, top, width, height).strokeColor('#cccccc').stroke().restore();
        pdf.fillColor('#111111').text(latin1(text), x + 4, top + 4, { width: width - 8 });
      });
      pdf.y = top + height;
    });
    pdf.x = MARGIN;
    pdf.moveDown(0.6);
  }
}

function fontOf(leaf: Leaf): string {
  const marks = new Set(leaf.marks.map((mark) => mark.type));
  if (marks.has('code') || marks.has('keyboard')) return FONT.code;
  if (marks.has('bold') && marks.has('italic')) return FONT.boldItalic;
  if (marks.has('bold')) return FONT.bold;
  if (marks.has('italic')) return FONT.italic;
  return FONT.regular;
}

function inlineText(nodes: readonly InlineContent[]): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return node.leaves.map((leaf) => leaf.text).join('');
      if (node.type === 'inline-math') return node.data.formula;
      if ('nodes' in node && Array.isArray(node.nodes)) return inlineText(node.nodes as InlineContent[]);
      return '';
    })
    .join('');
}

function blocksText(blocks: readonly Block[]): string {
  return blocks
    .map((block) =>
      'nodes' in block && Array.isArray(block.nodes)
        ? block.type === 'paragraph' || block.type.startsWith('heading')
          ? inlineText(block.nodes as InlineContent[])
          : blocksText(block.nodes as Block[])
        : '',
    )
    .filter((text) => text !== '')
    .join('\n');
}

/** Characters the standard fonts can draw (Latin-1, with common typography mapped); others are left out. */
function latin1(text: string): string {
  return text
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/[–—]/g, '-')
    .replace(/…/g, '...')
    .replace(/[→⟶]/g, '->')
    .replace(/[^\n\t\x20-\x7e\xa0-\xff]/gu, '');
}
