import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const require = createRequire(import.meta.url);

/**
 * Files that take a minute or more (the benchmarks' smoke runs, the cluster), started first: vitest orders a run by
 * the durations it cached, and a fresh clone has none, so they ran last, one of them alone on the two workers for
 * the last minute of the run.
 */
const LONGEST = ['test/bench-smoke.test.ts', 'test/bench-hardening-smoke.test.ts', 'test/cluster.test.ts'];

/** Vitest's own order, with `LONGEST` first. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((path) => file.moduleId.endsWith(path));
      return index < 0 ? LONGEST.length : index;
    };
    return (await super.sort(files)).toSorted((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the project and its dependencies alike; tests
    // must use the same copy, or graphql sees two realms.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // The build the spawned processes run (a no-op when it is current), then the checks of the whole run: every
    // operation answered and reached through the graph by some test.
    globalSetup: ['test/global-build.ts', 'test/suite-checks.ts'],
    // Each file starts its own platform on a temporary SQLite file; two workers fit two cores.
    pool: 'forks',
    maxWorkers: 2,
    // A worker keeps the modules it loaded from one file to the next: the schema, the platform and their packages
    // load once per worker instead of once per file (the import phase was 23-40 % of the run). Tests share no
    // state through modules: each file starts its own platform and gateway and destroys them.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // Guards against a hang, not bounds: on a loaded machine a test takes several times what it
    // takes alone (some take 10-15 s beside the rest of the suite and two busy loops).
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
