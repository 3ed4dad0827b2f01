/**
 * Work in steps: a generator that `yield`s wherever it may pause, run either at once
 * (`runAtOnce`, for callers that need the answer synchronously, such as seeding) or a slice of
 * time at a time (`runInSlices`), giving the event loop a turn between slices, so that seconds of
 * work never hold other requests for more than a slice. Knows neither HTTP nor SQL.
 */

/** Work that yields where it may pause and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Longest slice of work between two turns of the event loop, in milliseconds. */
export const SLICE_MS = 10;

/** Runs every step now. */
export function runAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the steps for at most `sliceMs` at a time, then lets the event loop run. */
export async function runInSlices<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceStart = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - sliceStart > sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
}
