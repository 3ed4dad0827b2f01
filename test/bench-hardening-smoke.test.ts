import { describe, expect, it } from 'vitest';
import { runBenchScript } from './fixtures/bench.js';

/**
 * The hardening scripts that run in seconds at small sizes, inside `npm test`: each checks its
 * answers and exits 1 on a wrong one, so a change that breaks a script fails here. The others
 * (`hardening.ts`, `hardening-background.ts`, `hardening-process.ts`) run the compiled build, and
 * the big cases of `hardening-markdown.ts` take tens of seconds: they stay manual.
 */
// How long a script may run before it counts as hung: a guard against a run that never ends, not a
// speed check. Each takes seconds alone; beside the rest of the suite, several times that.
const BUDGET_MS = 300_000;

const SCRIPTS: Array<{ script: string; env: Record<string, string> }> = [
  { script: 'bench/hardening-outbound.ts', env: { BENCH_ROUNDS: '1' } },
  { script: 'bench/hardening-visitors.ts', env: { BENCH_VISITOR_PAGES: '40', BENCH_ROUNDS: '3' } },
  { script: 'bench/hardening-inputs.ts', env: {} },
  // The two bodies refused by their budgets before any parsing; the accepted big ones take seconds of CPU each.
  { script: 'bench/hardening-markdown.ts', env: { BENCH_ONLY: 'rest-1mb,rest-json-100k' } },
];

describe('the hardening scripts, smoke run', () => {
  for (const { script, env } of SCRIPTS) {
    const settings = Object.entries(env).map(([name, value]) => ` ${name}=${value}`);
    it(
      `${script}${settings.join('')} ends with every answer as expected`,
      async () => {
        const { code, output } = await runBenchScript(script, env, BUDGET_MS);
        expect(code, output.slice(-4000)).toBe(0);
      },
      BUDGET_MS + 10_000,
    );
  }
});
