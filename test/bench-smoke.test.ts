import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The benchmarks run inside `npm test` with a few rounds (`BENCH_SMOKE=1`), on the sources, so a
 * change that breaks one of their sections or one of their answer checks fails the tests instead
 * of the next full run. The figures of a smoke run mean nothing and are not looked at.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
/** The budget of a smoke run on the project's 2-core machine. */
const BUDGET_MS = 120_000;

function runScript(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      // The caller's BENCH_* settings (rounds, sections) would change what the smoke run covers.
      env: {
        ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('BENCH_'))),
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), BUDGET_MS);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the benchmark, smoke run', () => {
  it(
    'runs every section of bench/run.ts to its end, every answer checked',
    async () => {
      const { code, output } = await runScript('bench/run.ts', { BENCH_SMOKE: '1' });
      expect(code, output.slice(-4000)).toBe(0);
      expect(output).toMatch(/^# bench\/run\.ts on .*, smoke run$/m);
      const sections = /^Sections run: (.*)\.$/m.exec(output)?.[1]?.split(', ') ?? [];
      expect(sections).toContain('nestedQueries');
      expect(sections).toContain('orgResources');
    },
    BUDGET_MS + 10_000,
  );
});
