import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * Loaded with `--import` into a process the floor bench measures (the floor, bare yoga, the gateway
 * under its supervisor, which passes its node flags on): adds up the time of the garbage
 * collector's pauses on the main thread (`perf_hooks` `gc` entries: scavenges, mark-compacts,
 * incremental marking, weak callbacks) and, when the bench asks with SIGUSR2, writes the sum, with
 * their count and the number of times it was asked, to `$BENCH_GC_DIR/<pid>.json`. The bench reads
 * it before and after its rounds and sets the difference against the process's CPU time (`/proc`):
 * the GC share of that process. Work of V8's helper threads (concurrent marking, parallel
 * scavenging) is in the CPU time, not in the pauses. Writing only when asked keeps the file's cost
 * out of the rounds. Plain TypeScript that Node runs without a loader; without BENCH_GC_DIR it does nothing.
 */
const dir = process.env.BENCH_GC_DIR;
if (dir) {
  const file = join(dir, `${process.pid}.json`);
  let pauseMs = 0;
  let count = 0;
  let asked = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauseMs += entry.duration;
      count += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  const write = () => writeFileSync(file, JSON.stringify({ pauseMs, count, asked }));
  write();
  process.on('SIGUSR2', () => {
    asked += 1;
    write();
  });
}
