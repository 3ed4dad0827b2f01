import type { JSONDocument } from '../../document/model.js';

/**
 * What a translation run sends to the translator, and how the answers go back in place. Texts
 * are collected into `TextSlots`: each string (a page title, a leaf of a document…) is cut into
 * prose and what must stay as written (URLs, e-mail addresses); only runs of prose that hold a
 * letter are sent, without their surrounding spaces, and each answer is put back between the
 * parts it was cut from. Knows neither HTTP nor SQL.
 */

/** URLs and e-mail addresses inside prose: they stay as written. */
const PROTECTED = /\b(?:(?:https?|ftp):\/\/|mailto:|www\.)[^\s<>"']+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+/giu;
/** Punctuation that ends a sentence rather than the URL before it. */
const TRAILING = /[.,;:!?)\]}'"]+$/u;

type Piece = string | { lead: string; index: number; trail: string };

/** The translatable texts of a set of strings, and the setters that take their translations. */
export class TextSlots {
  /** The texts to send, in order. */
  readonly texts: string[] = [];
  private readonly setters: Array<(values: readonly string[]) => void> = [];

  /**
   * Registers a string; `set` is called by `apply` with its translation (protected parts and
   * spacing kept). A string with no prose is not registered.
   */
  add(text: string, set: (translated: string) => void): void {
    const pieces: Piece[] = [];
    let sent = false;
    const prose = (run: string) => {
      const match = /^(\s*)([\s\S]*?)(\s*)$/u.exec(run)!;
      const core = match[2]!;
      if (!/\p{L}/u.test(core)) {
        pieces.push(run);
        return;
      }
      pieces.push({ lead: match[1]!, index: this.texts.length, trail: match[3]! });
      this.texts.push(core);
      sent = true;
    };
    let last = 0;
    for (const match of text.matchAll(PROTECTED)) {
      const kept = match[0].replace(TRAILING, '');
      if (kept.length === 0) continue;
      prose(text.slice(last, match.index));
      pieces.push(kept);
      last = match.index + kept.length;
    }
    prose(text.slice(last));
    if (!sent) return;
    this.setters.push((values) =>
      set(
        pieces
          .map((piece) => (typeof piece === 'string' ? piece : `${piece.lead}${values[piece.index]}${piece.trail}`))
          .join(''),
      ),
    );
  }

  /** Puts the translations of `texts` (same order, same length) in place. */
  apply(values: readonly string[]): void {
    if (values.length !== this.texts.length)
      throw new Error(`Expected ${this.texts.length} translations, got ${values.length}`);
    for (const set of this.setters) set(values);
  }
}

/** Words of a text, as counted toward translation usage. */
export function wordCount(text: string): number {
  const words = text.trim().split(/\s+/u);
  return words[0] === '' ? 0 : words.length;
}

/** Blocks whose content is never translated (code is code, formulas are formulas). */
const KEPT_BLOCKS = new Set([
  'code',
  'code-line',
  'math',
  'openapi-operation',
  'openapi-schemas',
  'openapi-webhook',
  'swagger',
  'integration',
]);

/** A heading anchor the document schema accepts as a custom `data.id`. */
const ANCHOR = /^[-a-z0-9.+_]+$/;

type AnyNode = Record<string, unknown> & {
  object?: string;
  type?: string;
  data?: Record<string, unknown>;
  nodes?: unknown[];
  fragments?: unknown[];
};

function visit(nodes: unknown[] | undefined, slots: TextSlots): void {
  for (const value of nodes ?? []) {
    const node = value as AnyNode;
    if (node.object === 'text') {
      for (const leaf of (node.leaves as Array<{ text: string; marks?: Array<{ type: string }> }> | undefined) ?? []) {
        // Inline code stays code.
        if (leaf.marks?.some((mark) => mark.type === 'code')) continue;
        slots.add(leaf.text, (translated) => {
          leaf.text = translated;
        });
      }
      continue;
    }
    if (node.object === 'block' && KEPT_BLOCKS.has(node.type ?? '')) continue;
    const data = node.data;
    if (data) {
      // Reader-facing texts kept in data: a tab's title, an image's alternative text, a button's
      // label, a table's column titles. References, URLs, marks and other data stay as they are.
      const field = (key: string, holder: Record<string, unknown> = data) => {
        const text = holder[key];
        if (typeof text === 'string') {
          slots.add(text, (translated) => {
            holder[key] = translated;
          });
        }
      };
      if (node.type === 'tabs-item') field('title');
      if (node.type === 'image' || node.type === 'inline-image') field('alt');
      if (node.type === 'inline-image') field('caption');
      if (node.type === 'button') field('label');
      if (node.type === 'table' && data.definition && typeof data.definition === 'object') {
        for (const column of Object.values(data.definition as Record<string, Record<string, unknown>>))
          field('title', column);
      }
      // A heading's anchor comes from its text unless set: keep the source's, so links to it
      // (from this page or others) still land once the text is translated.
      const meta = node.meta as { id?: unknown } | undefined;
      if (
        /^heading-[123]$/.test(node.type ?? '') &&
        data.id === undefined &&
        typeof meta?.id === 'string' &&
        ANCHOR.test(meta.id)
      ) {
        node.data = { ...data, id: meta.id };
      }
    }
    visit(node.nodes, slots);
    visit(node.fragments, slots);
  }
}

/**
 * Registers the translatable texts of a document in `slots` and returns the copy of the
 * document that `slots.apply` fills in: same blocks, keys and structure, translated text.
 */
export function documentSlots(document: JSONDocument, slots: TextSlots): JSONDocument {
  const copy = structuredClone(document) as JSONDocument;
  visit(copy.nodes as unknown[], slots);
  return copy;
}
