import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { GCProfiler, getHeapStatistics } from 'node:v8';

/**
 * Loaded with `--import` into a process the floor bench measures (the floor, bare yoga, the gateway
 * under its supervisor, which passes its node flags on): adds up the time of the garbage
 * collector's pauses on the main thread (`perf_hooks` `gc` entries: scavenges, mark-compacts,
 * incremental marking, weak callbacks) and the bytes the process allocated on its heap, and, when
 * the bench asks with SIGUSR2, writes the sums, with the number of pauses and of times it was
 * asked, to `$BENCH_GC_DIR/<pid>.json`. The bench reads it before and after its rounds and sets the
 * difference against the process's CPU time (`/proc`): the GC share of that process; and against
 * the reads it sent: the bytes allocated per read. Work of V8's helper threads (concurrent marking,
 * parallel scavenging) is in the CPU time, not in the pauses. Writing only when asked keeps the
 * file's cost out of the rounds. Plain TypeScript that Node runs without a loader; without
 * BENCH_GC_DIR it does nothing.
 *
 * Allocated bytes are what the heap holds now, less what it held at the start, plus what every
 * collection since freed (`v8.GCProfiler`'s heap statistics before and after each one): V8 counts
 * no allocations itself, and the sampling heap profiler (`--heap-prof`) keeps only what survives.
 *
 * With BENCH_ALLOC_PROF=<dir> too, V8's sampling heap profiler runs with what collections freed
 * kept in (which `--heap-prof` cannot ask for): each time the bench asks, the allocations since the
 * last time are written to `<dir>/<pid>.<asked>.heapprofile` (`npx tsx bench/profile.ts <file>`
 * says where they were made). It costs CPU: the figures of such a run are not comparable.
 */
const dir = process.env.BENCH_GC_DIR;
if (dir) {
  const file = join(dir, `${process.pid}.json`);
  let pauseMs = 0;
  let count = 0;
  let asked = 0;
  let freedBytes = 0;
  const heldAtStart = getHeapStatistics().used_heap_size;
  let profiler = new GCProfiler();
  profiler.start();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauseMs += entry.duration;
      count += 1;
    }
  }).observe({ entryTypes: ['gc'] });
  const write = () => {
    // The profiler hands its collections over when it stops: a new one follows the next.
    for (const gc of profiler.stop()?.statistics ?? [])
      freedBytes += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize);
    profiler = new GCProfiler();
    profiler.start();
    const allocatedBytes = getHeapStatistics().used_heap_size - heldAtStart + freedBytes;
    writeFileSync(file, JSON.stringify({ pauseMs, count, asked, allocatedBytes }));
  };
  const allocations = process.env.BENCH_ALLOC_PROF ? allocationSampler(process.env.BENCH_ALLOC_PROF) : undefined;
  write();
  process.on('SIGUSR2', () => {
    asked += 1;
    write();
    allocations?.next(asked);
  });
}

/** V8's sampling heap profiler over this process, collected objects included: a profile per call of `next`. */
function allocationSampler(outDir: string): { next(asked: number): void } {
  const session = new Session();
  session.connect();
  const start = () =>
    session.post('HeapProfiler.startSampling', {
      samplingInterval: 16 * 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  session.post('HeapProfiler.enable', () => start());
  return {
    next(asked) {
      session.post('HeapProfiler.stopSampling', (error, result) => {
        if (!error) writeFileSync(join(outDir, `${process.pid}.${asked}.heapprofile`), JSON.stringify(result.profile));
        start();
      });
    },
  };
}
