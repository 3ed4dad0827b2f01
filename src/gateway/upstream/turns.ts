/**
 * Turns of their own for the heavy steps of the gateway's thread. A step that cannot be cut (one
 * `JSON.parse` of a 1 MB upstream body, one `JSON.stringify` of a 1 MB answer: 10–20 ms each)
 * holds the event loop while it runs; four requests that reach theirs at once would hold it for
 * all four, and another caller's light request, which needs a few turns, waits behind each. So a
 * heavy step waits for a loop turn of its own (`ownTurn`): at most one runs per turn, and the
 * I/O that arrived meanwhile goes between them. Kept with the client, whose parse of a large body
 * is the first such step; the answer's serialization (`useFairTurns` in policy) builds on it.
 */
/** Bytes from which a body's parse or an answer's serialization is a heavy step. */
export const HEAVY_BYTES = 256 * 1024;

/** The last heavy step waiting or running: the next one runs a turn after it. */
let heavyQueue: Promise<void> = Promise.resolve();

/**
 * Resolves in a loop turn of its own, one caller per turn in the order they asked, for a heavy
 * step to run in.
 */
export function ownTurn(): Promise<void> {
  const mine = heavyQueue.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  heavyQueue = mine;
  return mine;
}
