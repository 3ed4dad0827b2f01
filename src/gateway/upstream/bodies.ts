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
