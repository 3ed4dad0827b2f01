import type { Db } from './store/db.js';

/**
 * Long work on the platform's thread (jobs over thousands of pages, a large ingest, a long PDF)
 * cut into slices of a few milliseconds, with a turn of the event loop between them: requests
 * and I/O waiting run then, so no such work holds them for more than a slice.
 */

/** Work done on the platform's thread at a stretch, in milliseconds, before requests get their turn. */
export const SLICE_MS = 10;

/**
 * Cuts a job's long loop into slices of at most `sliceMs` of work: the loop awaits the function
 * returned between steps, and it gives way (`setImmediate`, after the requests and I/O waiting)
 * whenever the slice is spent. Jobs run on the thread that answers requests: without it, a job
 * over thousands of pages holds every request until it ends.
 */
export function timeSlices(sliceMs = SLICE_MS): () => Promise<void> {
  let sliceStart = performance.now();
  return async () => {
    if (performance.now() - sliceStart < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceStart = performance.now();
  };
}

/**
 * Writes `items` in transactions of at most `sliceMs` of work each, with a turn of the event loop
 * between them: for rows that change nothing until something else points at them (content
 * addressed by hash), written ahead of the one short transaction that does. One transaction per
 * slice, not per row: each commit waits for the disk.
 */
export async function writeInSlices<T>(
  db: Db,
  items: Iterable<T>,
  write: (item: T) => void,
  sliceMs = SLICE_MS,
): Promise<void> {
  const iterator = items[Symbol.iterator]();
  let next = iterator.next();
  while (!next.done) {
    const sliceStart = performance.now();
    db.transaction(() => {
      while (!next.done && performance.now() - sliceStart < sliceMs) {
        write(next.value);
        next = iterator.next();
      }
    })();
    if (!next.done) await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/**
 * Work in steps: a generator that `yield`s wherever it may pause, run either at once
 * (`runAtOnce`, for callers that need the answer synchronously, such as seeding) or a slice of
 * time at a time (`runInSlices`), so that seconds of work never hold requests for more than a slice.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step now. */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the steps for at most `sliceMs` at a time, then lets the event loop run. */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  const pause = timeSlices(sliceMs);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}
