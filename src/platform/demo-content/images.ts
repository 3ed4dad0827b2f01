/**
 * Real bytes for the files of the demo content: a small PNG encoder (8-bit greyscale or RGB,
 * no interlace, filter 0 on every row) with a raster that draws boxes and connectors, the
 * diagrams the demo pages show (two PNGs, two SVGs), and small CSV and plain-text files.
 * Everything is deterministic: the same bytes on every seed.
 */
import { crc32, deflateSync } from 'node:zlib';

// ---------------------------------------------------------------------------------------------
// PNG
// ---------------------------------------------------------------------------------------------

/** A colour: one grey level (0–255) for greyscale rasters, `[r, g, b]` for RGB ones. */
export type Color = number | readonly [number, number, number];

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** One chunk: length, type, data, and the CRC-32 of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** A pixel buffer of 8-bit samples, one (greyscale) or three (RGB) per pixel. */
export class Raster {
  readonly data: Uint8Array;

  constructor(
    readonly width: number,
    readonly height: number,
    readonly channels: 1 | 3,
    background: Color,
  ) {
    if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1)
      throw new RangeError(`bad raster size ${width}x${height}`);
    this.data = new Uint8Array(width * height * channels);
    this.fill(0, 0, width, height, background);
  }

  private samples(color: Color): number[] {
    if (typeof color === 'number') return this.channels === 1 ? [color] : [color, color, color];
    if (this.channels === 3) return [...color];
    // ITU-R BT.601 luma for an RGB colour drawn on a greyscale raster.
    return [Math.round(0.299 * color[0] + 0.587 * color[1] + 0.114 * color[2])];
  }

  /** Fills a rectangle (clipped to the raster). */
  fill(x: number, y: number, w: number, h: number, color: Color): this {
    const samples = this.samples(color);
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    for (let row = y0; row < y1; row++) {
      for (let col = x0; col < x1; col++) {
        const at = (row * this.width + col) * this.channels;
        for (let c = 0; c < this.channels; c++) this.data[at + c] = samples[c] as number;
      }
    }
    return this;
  }

  /** A rectangle's outline, `thickness` pixels wide, inside the rectangle. */
  frame(x: number, y: number, w: number, h: number, color: Color, thickness = 2): this {
    this.fill(x, y, w, thickness, color);
    this.fill(x, y + h - thickness, w, thickness, color);
    this.fill(x, y, thickness, h, color);
    this.fill(x + w - thickness, y, thickness, h, color);
    return this;
  }

  /** A filled box with a border and a few bars standing for its label. */
  box(x: number, y: number, w: number, h: number, fill: Color, border: Color, label: Color, lines = 2): this {
    this.fill(x, y, w, h, fill).frame(x, y, w, h, border, 3);
    const barHeight = 6;
    const gap = 6;
    const total = lines * barHeight + (lines - 1) * gap;
    let top = y + Math.round((h - total) / 2);
    for (let i = 0; i < lines; i++) {
      const width = Math.round((w - 32) * (i === 0 ? 0.8 : 0.55));
      this.fill(x + Math.round((w - width) / 2), top, width, barHeight, label);
      top += barHeight + gap;
    }
    return this;
  }

  /** An arrow from (x1, y) to (x2, y), pointing right when x2 > x1, with a triangular head. */
  arrowH(x1: number, x2: number, y: number, color: Color, thickness = 3): this {
    const dir = x2 >= x1 ? 1 : -1;
    const head = 10;
    this.fill(Math.min(x1, x2 - dir * head), y - Math.floor(thickness / 2), Math.abs(x2 - x1) - head, thickness, color);
    for (let i = 0; i < head; i++) {
      const half = Math.round(((head - i) * 7) / head);
      this.fill(x2 - dir * (head - i) - (dir < 0 ? 1 : 0), y - half, 1, half * 2 + 1, color);
    }
    return this;
  }

  /** An arrow from (x, y1) to (x, y2), pointing down when y2 > y1. */
  arrowV(x: number, y1: number, y2: number, color: Color, thickness = 3): this {
    const dir = y2 >= y1 ? 1 : -1;
    const head = 10;
    this.fill(x - Math.floor(thickness / 2), Math.min(y1, y2 - dir * head), thickness, Math.abs(y2 - y1) - head, color);
    for (let i = 0; i < head; i++) {
      const half = Math.round(((head - i) * 7) / head);
      this.fill(x - half, y2 - dir * (head - i) - (dir < 0 ? 1 : 0), half * 2 + 1, 1, color);
    }
    return this;
  }

  /** The raster as a PNG file. */
  toPng(): Buffer {
    return encodePng(this.width, this.height, this.channels, this.data);
  }
}

/**
 * Encodes 8-bit samples (`channels` per pixel, rows top to bottom) as a PNG: the signature, an
 * IHDR (colour type 0 for greyscale, 2 for RGB), one IDAT of the zlib-deflated scanlines (each
 * prefixed with filter type 0), and an IEND.
 */
export function encodePng(width: number, height: number, channels: 1 | 3, data: Uint8Array): Buffer {
  const stride = width * channels;
  if (data.length !== stride * height) throw new RangeError(`expected ${stride * height} samples, got ${data.length}`);
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = channels === 1 ? 0 : 2; // colour type
  ihdr[10] = 0; // compression: deflate
  ihdr[11] = 0; // filter method 0
  ihdr[12] = 0; // no interlace
  const scanlines = Buffer.alloc((stride + 1) * height);
  for (let row = 0; row < height; row++) {
    scanlines[row * (stride + 1)] = 0; // filter: none
    scanlines.set(data.subarray(row * stride, (row + 1) * stride), row * (stride + 1) + 1);
  }
  return Buffer.concat([
    PNG_SIGNATURE,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(scanlines, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// The demo images
// ---------------------------------------------------------------------------------------------

const INK = [31, 41, 55] as const;
const _WHITE = [255, 255, 255] as const;

/**
 * "Getting started" `architecture.png` (RGB, 720×400): the editor and the CLI talk to the API,
 * which writes the content store and feeds the search index; the renderer publishes the site
 * behind the CDN.
 */
export function architecturePng(): Buffer {
  const r = new Raster(720, 400, 3, [247, 249, 252]);
  // Two zones: "your team" on the left, "Acme Docs" on the right.
  r.fill(16, 16, 180, 368, [236, 240, 247]).frame(16, 16, 180, 368, [203, 213, 225], 2);
  r.fill(220, 16, 484, 368, [240, 244, 250]).frame(220, 16, 484, 368, [203, 213, 225], 2);
  const blue = [59, 130, 246] as const;
  const violet = [124, 58, 237] as const;
  const green = [16, 185, 129] as const;
  const amber = [245, 158, 11] as const;
  const teal = [20, 184, 166] as const;
  const tint = (c: readonly [number, number, number]) =>
    [Math.round(c[0] * 0.2 + 204), Math.round(c[1] * 0.2 + 204), Math.round(c[2] * 0.2 + 204)] as const;
  // Clients.
  r.box(36, 60, 140, 80, tint(blue), blue, blue, 2); // editor
  r.box(36, 250, 140, 80, tint(blue), blue, blue, 1); // CLI / Git
  // Services.
  r.box(260, 150, 150, 90, tint(violet), violet, violet, 2); // API
  r.box(520, 50, 150, 80, tint(green), green, green, 2); // content store
  r.box(520, 160, 150, 70, tint(amber), amber, amber, 1); // search index
  r.box(520, 270, 150, 80, tint(teal), teal, teal, 2); // renderer + CDN
  // Connectors.
  r.arrowH(176, 230, 100, INK).fill(228, 99, 3, 100, INK).arrowH(229, 260, 196, INK);
  r.arrowH(176, 230, 290, INK).fill(228, 196, 3, 95, INK);
  r.arrowH(410, 465, 196, INK).fill(463, 88, 3, 110, INK).arrowH(464, 520, 90, INK);
  r.arrowH(466, 520, 195, INK);
  r.fill(463, 196, 3, 115, INK).arrowH(464, 520, 310, INK);
  // Legend.
  r.fill(36, 360, 12, 12, blue).fill(54, 363, 60, 6, [148, 163, 184]);
  r.fill(260, 360, 12, 12, violet).fill(278, 363, 60, 6, [148, 163, 184]);
  r.fill(520, 360, 12, 12, green).fill(538, 363, 60, 6, [148, 163, 184]);
  return r.toPng();
}

/**
 * "API reference" `rate-limit-window.png` (greyscale, 600×240): requests per second in a
 * one-minute window as bars, the limit as a line, the rejected part of each bar darker.
 */
export function rateLimitPng(): Buffer {
  const r = new Raster(600, 240, 1, 250);
  r.frame(0, 0, 600, 240, 200, 2);
  // Axes.
  r.fill(40, 20, 2, 190, 60).fill(40, 208, 540, 2, 60);
  // Bars: a steady load with a burst in the middle.
  const load = [40, 45, 42, 50, 48, 55, 60, 58, 62, 95, 140, 170, 165, 150, 120, 80, 64, 58, 52, 50, 47, 44, 46, 42];
  const limit = 130;
  load.forEach((value, i) => {
    const x = 52 + i * 22;
    const accepted = Math.min(value, limit);
    r.fill(x, 208 - accepted, 16, accepted, 150);
    if (value > limit) r.fill(x, 208 - value, 16, value - limit, 40);
  });
  // The limit, dashed.
  for (let x = 44; x < 580; x += 14) r.fill(x, 208 - limit - 1, 8, 3, 0);
  return r.toPng();
}

/**
 * "Company handbook" `incident-flow.png` (greyscale, 760×220): detect → triage → mitigate →
 * resolve → review, with the escalation loop from triage back over the top.
 */
export function incidentFlowPng(): Buffer {
  const r = new Raster(760, 220, 1, 255);
  const steps = 5;
  const w = 120;
  const gap = 28;
  const y = 90;
  for (let i = 0; i < steps; i++) {
    const x = 24 + i * (w + gap);
    const shade = i === 2 ? 90 : 225; // "mitigate" is highlighted
    r.box(x, y, w, 80, shade, 40, i === 2 ? 255 : 70, 2);
    if (i < steps - 1) r.arrowH(x + w, x + w + gap, y + 40, 40);
  }
  // Escalation loop: up from "triage", across, down into "mitigate".
  const from = 24 + (w + gap) + w / 2;
  const to = 24 + 2 * (w + gap) + w / 2;
  r.fill(from - 1, 40, 3, y - 40, 110)
    .fill(from - 1, 40, to - from + 2, 3, 110)
    .arrowV(to, 40, y, 110);
  r.fill(from + 20, 20, to - from - 40, 8, 170);
  return r.toPng();
}

// ---------------------------------------------------------------------------------------------
// SVG
// ---------------------------------------------------------------------------------------------

const xml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

interface SvgBox {
  x: number;
  y: number;
  w: number;
  h: number;
  title: string;
  note?: string;
  fill: string;
  stroke: string;
}

function svgBox(box: SvgBox): string {
  const cx = box.x + box.w / 2;
  const title = `<text x="${cx}" y="${box.y + (box.note ? box.h / 2 - 4 : box.h / 2 + 5)}" text-anchor="middle" font-weight="600">${xml(box.title)}</text>`;
  const note = box.note
    ? `<text x="${cx}" y="${box.y + box.h / 2 + 16}" text-anchor="middle" font-size="12" fill="#475569">${xml(box.note)}</text>`
    : '';
  return `  <g>\n    <rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" rx="10" fill="${box.fill}" stroke="${box.stroke}" stroke-width="2"/>\n    ${title}${note ? `\n    ${note}` : ''}\n  </g>`;
}

function svgDocument(width: number, height: number, title: string, body: string[]): string {
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Inter, Helvetica, Arial, sans-serif" font-size="14" fill="#1f2937">`,
    `  <title>${xml(title)}</title>`,
    `  <defs>`,
    `    <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">`,
    `      <path d="M 0 0 L 10 5 L 0 10 z" fill="#1f2937"/>`,
    `    </marker>`,
    `  </defs>`,
    `  <rect width="${width}" height="${height}" fill="#f8fafc"/>`,
    ...body,
    `</svg>`,
    '',
  ].join('\n');
}

const line = (x1: number, y1: number, x2: number, y2: number, label?: string): string =>
  `  <line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="#1f2937" stroke-width="2" marker-end="url(#arrow)"/>` +
  (label
    ? `\n  <text x="${(x1 + x2) / 2}" y="${Math.min(y1, y2) - 8}" text-anchor="middle" font-size="12" fill="#475569">${xml(label)}</text>`
    : '');

/**
 * "API reference" `request-lifecycle.svg`: a request from the client through the edge
 * (TLS, authentication, rate limits) to the API service and its stores, and the response back.
 */
export function requestLifecycleSvg(): string {
  const boxes: SvgBox[] = [
    { x: 20, y: 90, w: 140, h: 70, title: 'Your app', note: 'SDK or HTTP client', fill: '#dbeafe', stroke: '#3b82f6' },
    {
      x: 220,
      y: 90,
      w: 160,
      h: 70,
      title: 'Edge',
      note: 'TLS · auth · rate limits',
      fill: '#ede9fe',
      stroke: '#7c3aed',
    },
    {
      x: 440,
      y: 90,
      w: 150,
      h: 70,
      title: 'API service',
      note: 'api.acme.test/v2',
      fill: '#ede9fe',
      stroke: '#7c3aed',
    },
    { x: 650, y: 30, w: 150, h: 60, title: 'Content store', fill: '#d1fae5', stroke: '#10b981' },
    { x: 650, y: 160, w: 150, h: 60, title: 'Search index', fill: '#fef3c7', stroke: '#f59e0b' },
  ];
  return svgDocument(820, 250, 'Lifecycle of an Acme Docs API request', [
    ...boxes.map(svgBox),
    line(160, 115, 218, 115, 'request'),
    line(380, 115, 438, 115, 'authorized'),
    line(590, 110, 648, 62),
    line(590, 140, 648, 188),
    `  <line x1="438" y1="140" x2="162" y2="140" stroke="#64748b" stroke-width="2" stroke-dasharray="6 4" marker-end="url(#arrow)"/>`,
    `  <text x="300" y="178" text-anchor="middle" font-size="12" fill="#475569">response + X-Request-Id, X-RateLimit-*</text>`,
  ]);
}

/** "Company handbook" `team-structure.svg`: Acme's engineering teams and who they report to. */
export function teamStructureSvg(): string {
  const lead: SvgBox = {
    x: 300,
    y: 20,
    w: 200,
    h: 60,
    title: 'VP Engineering',
    note: 'Ada',
    fill: '#e0e7ff',
    stroke: '#4f46e5',
  };
  const teams: SvgBox[] = [
    { x: 20, y: 140, w: 170, h: 70, title: 'Editor', note: 'web editor, comments', fill: '#dbeafe', stroke: '#3b82f6' },
    {
      x: 215,
      y: 140,
      w: 170,
      h: 70,
      title: 'Platform',
      note: 'API, storage, search',
      fill: '#dbeafe',
      stroke: '#3b82f6',
    },
    {
      x: 410,
      y: 140,
      w: 170,
      h: 70,
      title: 'Publishing',
      note: 'renderer, CDN, domains',
      fill: '#dbeafe',
      stroke: '#3b82f6',
    },
    {
      x: 605,
      y: 140,
      w: 170,
      h: 70,
      title: 'Infrastructure',
      note: 'on-call, observability',
      fill: '#dcfce7',
      stroke: '#16a34a',
    },
  ];
  return svgDocument(795, 240, 'Acme engineering teams', [
    svgBox(lead),
    ...teams.map(svgBox),
    ...teams.map((t) => line(400, 80, t.x + t.w / 2, 138)),
  ]);
}

// ---------------------------------------------------------------------------------------------
// Text files
// ---------------------------------------------------------------------------------------------

/** A CSV file (RFC 4180: CRLF line ends, fields with a comma, quote or line end quoted). */
export function csv(rows: ReadonlyArray<ReadonlyArray<string | number>>): Buffer {
  const field = (value: string | number): string => {
    const text = String(value);
    return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
  };
  return Buffer.from(`${rows.map((row) => row.map(field).join(',')).join('\r\n')}\r\n`, 'utf8');
}

/** A plain-text file of lines (LF line ends, a final newline). */
export function text(lines: readonly string[]): Buffer {
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}
