/**
 * The weekly pulse of a cluster: how many of its issues were raised in each of the last 13
 * weeks (about three months), oldest week first, the last entry being the 7 days up to now.
 * Issues dated in the future (a client's clock ahead) count in the current week; older ones are
 * not counted.
 */

export const PULSE_WEEKS = 13;
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

export function weeklyPulse(dates: Iterable<string>, now: number): number[] {
  const counts = new Array<number>(PULSE_WEEKS).fill(0);
  for (const date of dates) {
    const at = Date.parse(date);
    if (Number.isNaN(at)) continue;
    const week = Math.floor(Math.max(0, now - at) / WEEK_MS);
    if (week < PULSE_WEEKS) counts[PULSE_WEEKS - 1 - week]! += 1;
  }
  return counts;
}

/** The earliest date the pulse counts from, for queries. */
export function pulseStart(now: number): string {
  return new Date(now - PULSE_WEEKS * WEEK_MS).toISOString();
}
