import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type LedgerPart, readLedger, type RouteRecord } from './fixtures/ledger.js';
import { NOT_IN_GRAPH, servedOperations } from './fixtures/operations.js';

/**
 * Checks that hold for the whole suite, not for one file: after a run of every test file, every
 * route the platform registers under `/v1` answered some test with a success status (and each answer
 * was checked against the official description as it was sent, see `fixtures/platform.ts`), and
 * every operation of the inventory but those `NOT_IN_GRAPH` names was reached through the gateway.
 * The tests of each domain provide the traffic; `fixtures/ledger.ts` records it.
 *
 * A run of part of the suite (a file, a filter) or one with failed tests skips them: an operation
 * would look unreached only because its test did not run.
 */
export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'suite-ledger-'));
  project.provide('ledgerDir', dir);
  return async () => {
    try {
      const { testFiles } = await project.globTestFiles();
      const ran = new Set(project.vitest.state.getFilepaths());
      const whole = testFiles.every((file) => ran.has(file));
      if (!whole || project.vitest.state.getFailedFilepaths().length > 0) return;
      const parts = readLedger(dir);
      const problems = suiteProblems(parts);
      if (problems.length === 0) {
        console.log(
          `\nSuite checks: every route answered and every operation reached, over ${parts.length} test platforms.`,
        );
        return;
      }
      console.error(
        `\nSuite checks failed (test/suite-checks.ts):\n${problems.map((line) => `  ${line}`).join('\n')}\n`,
      );
      // Vitest reports a teardown's exception without failing the run: the exit code must say it.
      process.exitCode = 1;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** What the ledger's parts show missing, one line each; none when the suite covers everything. */
export function suiteProblems(parts: readonly LedgerPart[]): string[] {
  if (parts.length === 0) return ['No test platform wrote to the ledger: the suite checks saw nothing.'];
  const routes = new Map(parts.flatMap((part) => part.routes).map((route) => [`${route.method} ${route.url}`, route]));
  const answers = mergedAnswers(parts);
  const problems: string[] = [];
  for (const key of routes.keys()) {
    if (!key.startsWith('HEAD ') && key.includes(' /v1/') && !answers.get(key)?.succeeded)
      problems.push(`${key}: no test had a success answer from it, so none was checked against the description`);
  }
  for (const operation of servedOperations([...routes.values()])) {
    const left = NOT_IN_GRAPH.some((other) => other.method === operation.method && other.path === operation.path);
    const reached = answers.get(operation.route)?.reachedByGateway ?? false;
    if (!left && !reached)
      problems.push(`${operation.route} (${operation.group}): no GraphQL operation of the tests reached it`);
    if (left && reached)
      problems.push(
        `${operation.route}: reached through the graph now, so it leaves NOT_IN_GRAPH (fixtures/operations.ts)`,
      );
  }
  return problems;
}

function mergedAnswers(parts: readonly LedgerPart[]): Map<string, RouteRecord> {
  const merged = new Map<string, RouteRecord>();
  for (const part of parts) {
    for (const [key, record] of Object.entries(part.answers)) {
      const entry = merged.get(key) ?? { succeeded: false, reachedByGateway: false };
      merged.set(key, {
        succeeded: entry.succeeded || record.succeeded,
        reachedByGateway: entry.reachedByGateway || record.reachedByGateway,
      });
    }
  }
  return merged;
}
