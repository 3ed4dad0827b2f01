import { describe, expect, it } from 'vitest';
import { runBenchScript } from './fixtures/bench.js';

/**
 * The benchmarks run inside `npm test` with a few rounds (`BENCH_SMOKE=1`), on the sources, so a
 * change that breaks one of their sections or one of their answer checks fails the tests instead
 * of the next full run. The figures of a smoke run mean nothing and are not looked at.
 */

/**
 * How long a smoke run may take before it counts as hung: a guard against a run that never ends,
 * not a speed check (that is the benchmarks' own figures). Alone on the project's 2-core machine
 * the longest takes about 80 s; beside the rest of the suite, several times that.
 */
const BUDGET_MS = 600_000;

describe('the benchmark, smoke run', () => {
  it(
    'runs every section of bench/run.ts to its end, every answer checked',
    async () => {
      const { code, output } = await runBenchScript('bench/run.ts', { BENCH_SMOKE: '1' }, BUDGET_MS);
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toMatch(/^# bench\/run\.ts on .*, smoke run$/m);
      const sections = /^Sections run: (.*)\.$/m.exec(output)?.[1]?.split(', ') ?? [];
      expect(sections).toContain('nestedQueries');
      expect(sections).toContain('orgResources');
      // The summary comes from the run's own figures: each target a section measured, met or missed.
      expect(output).toMatch(/^## Summary against the targets\n\n\| measure \| this run \| target \| \|$/m);
      expect(output).toMatch(
        /^\| floor: production gateway, CPU per read × floor \| [\d.]+× \| ≤ 2\.00× \| (met|missed by .*) \|$/m,
      );
    },
    BUDGET_MS + 10_000,
  );

  it(
    'runs bench/live.ts to its end: @defer, subscriptions per minute, merge to event, memory',
    async () => {
      const { code, output } = await runBenchScript('bench/live.ts', { BENCH_SMOKE: '1' }, BUDGET_MS);
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toMatch(/^bench\/live\.ts done\.$/m);
    },
    BUDGET_MS + 10_000,
  );

  it(
    "runs bench/cluster.ts to its end: replicas behind HAProxy, the balancer's latency, the shared cache",
    async () => {
      const { code, output } = await runBenchScript('bench/cluster.ts', { BENCH_SMOKE: '1' }, BUDGET_MS);
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toMatch(/^bench\/cluster\.ts done\.$/m);
    },
    BUDGET_MS + 10_000,
  );
});
