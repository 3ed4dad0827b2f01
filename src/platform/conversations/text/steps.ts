import { SLICE_MS, timeSlices } from '../../slices.js';

/**
 * Work in steps: a generator that `yield`s wherever it may pause, run either at once
 * (`runAtOnce`, for callers that need the answer synchronously, such as seeding) or a slice of
 * time at a time (`runInSlices`, the platform's `timeSlices`), giving the event loop a turn
 * between slices, so that seconds of work never hold other requests for more than a slice.
 * Knows neither HTTP nor SQL.
 */

/** Work that yields where it may pause and returns its result. */
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
