// At the gateway's top level, beside `context.ts` and `errors.ts`, because several roles write to it and
// none owns it: the context builds it per request, the conversions (`conversion/`) and the answers to
// introspection count their bytes in it, the cost and rate-limit plugins (`policy/`) read its points. It
// is not the upstream layer's (beside `upstream/response-budget.ts`): it counts precisely what no
// upstream request does. It imports nothing.

/** Bytes of the gateway's own work that cost one point, as one upstream request does. */
export const BYTES_PER_POINT = 64 * 1024;

/**
 * What the gateway works on by itself, without the platform: answers to introspection, documents
 * converted to markdown or text, documents registered as persisted operations.
 */
export type WorkKind = 'introspection' | 'conversion' | 'registration';

/**
 * The work one request makes the gateway do itself, which no upstream request counts: measured in
 * bytes of each kind, and charged in points (a point per started `BYTES_PER_POINT` of each kind),
 * beside the upstream requests, in `extensions.cost.gatewayPoints` and by the rate limits. A
 * request that costs the platform nothing is then not free when it costs the gateway.
 */
export class GatewayWork {
  readonly #bytes = new Map<WorkKind, number>();

  /** Counts `bytes` of `kind`. */
  add(kind: WorkKind, bytes: number): void {
    if (bytes > 0) this.#bytes.set(kind, (this.#bytes.get(kind) ?? 0) + bytes);
  }

  /** Bytes of `kind` counted so far. */
  bytes(kind: WorkKind): number {
    return this.#bytes.get(kind) ?? 0;
  }

  /** Points of the work so far: a point per started `BYTES_PER_POINT` of each kind. */
  get points(): number {
    let points = 0;
    for (const bytes of this.#bytes.values()) points += Math.ceil(bytes / BYTES_PER_POINT);
    return points;
  }
}
