import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build for the project and its dependencies alike; tests
    // must use the same copy, or graphql sees two realms.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Checks of the whole run: every operation answered and reached through the graph by some test.
    globalSetup: ['test/suite-checks.ts'],
    // Each file starts its own platform on a temporary SQLite file; two workers fit two cores.
    pool: 'forks',
    maxWorkers: 2,
    // Guards against a hang, not bounds: on a loaded machine a test takes several times what it
    // takes alone (some take 10-15 s beside the rest of the suite and two busy loops).
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
