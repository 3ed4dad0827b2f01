import { randomUUID } from 'node:crypto';
/**
 * What the gateway knows of the upstream body a value was parsed from, kept beside the value for
 * as long as it lives: its size, so that the answer's byte budget counts a body returned whole (a
 * document's `json`) without walking it, and, for the reads that ask (documents), its text, so
 * that a conversion in a worker thread gets the body as it came instead of a copy made on the
 * request's thread.
 */
export interface BodySource {
  /** Bytes of the body. */
  bytes: number;
  /** The body's text, when its read kept it. */
  text?: string | undefined;
}

const sources = new WeakMap<object, BodySource>();

/** Notes that `value` (an object parsed from a body) came from `source`. */
export function rememberBody(value: unknown, source: BodySource): void {
  if (typeof value === 'object' && value !== null) sources.set(value, source);
}

/** The body `value` was parsed from, when it is one the upstream layer read. */
export function bodySource(value: unknown): BodySource | undefined {
  return typeof value === 'object' && value !== null ? sources.get(value) : undefined;
}

/**
 * An upstream body not parsed on arrival (a large document): its text, and its value parsed (and
 * checked with its schema) the first time something asks for it. Resolvers that only pass the
 * body on (a document's `json`) or hand its text to a worker thread (its markdown and text) never
 * ask, so a 1 MB document costs the request's thread neither its parse nor, answered as JSON,
 * its serialization: once a worker thread has found the text to be what the schema says
 * (`checked`), the answer's text takes it as it is (`stringifyAnswer`). Anything else that
 * serializes it (a cached answer, an event) gets its value through `toJSON`.
 */
export class UnparsedBody<T = unknown> {
  /** Whether the text was parsed and found valid elsewhere: it may go into an answer as it is. */
  checked = false;
  #value: { parsed: T } | undefined;

  constructor(
    readonly source: Required<BodySource>,
    private readonly parse: () => T,
  ) {
    rememberBody(this, source);
  }

  /** The body's value, parsed on this thread the first time. */
  value(): T {
    this.#value ??= { parsed: this.parse() };
    return this.#value.parsed;
  }

  toJSON(): unknown {
    return splicing && this.checked ? splicing.place(this.source.text) : this.value();
  }
}

/** The serialization under way in `stringifyAnswer`: where checked bodies go. */
let splicing: { place(text: string): string } | undefined;

/**
 * `JSON.stringify(value)`, with the text of each checked `UnparsedBody` in it put in as it came:
 * each is written as a placeholder string (a nonce no answer can guess), then replaced.
 */
export function stringifyAnswer(value: unknown): string {
  const texts: string[] = [];
  // Drawn for an answer that holds a checked body: most hold none.
  let nonce: string | undefined;
  const outer = splicing;
  splicing = {
    place: (text) => {
      nonce ??= randomUUID();
      return `\u0000${nonce}:${texts.push(text) - 1}`;
    },
  };
  try {
    const json = JSON.stringify(value);
    if (texts.length === 0) return json;
    return json.replace(
      new RegExp(`"\\\\u0000${nonce}:(\\d+)"`, 'g'),
      (_placeholder, index: string) => texts[Number(index)]!,
    );
  } finally {
    splicing = outer;
  }
}
