import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildDist } from '../test/fixtures/built.js';
import { freePort } from '../test/fixtures/ports.js';
import { percentile } from '../test/fixtures/stats.js';

/**
 * `npx tsx bench/hardening-markdown.ts`: big page bodies against `npm start` (the compiled
 * `dist/main.js`, built first when the sources changed): the gateway with a 192 MB heap, the embedded platform in its
 * own process with its default heap, demo data (CPU and RSS are the platform process's), each
 * case while a client reads `{ viewer { id } }` through the gateway without pause:
 *
 * - `graphql-25k`: `editChangeRequestContent` inserting a page of 25,000 paragraphs (`a\n\n`, 75 KB);
 * - `rest-25k`: the same page straight to the REST API: the time and RSS to accept it, printed
 *   beside their targets (1 s, +50 MB; a loaded machine stretches the time, not the CPU); the
 *   page is read back after the measurement;
 * - `rest-10k`: the same with 10,000 paragraphs;
 * - `rest-1mb`: 1 MB of markdown (340,000 paragraphs) straight to the REST API;
 * - `rest-json-100k`: a JSON document of 100,000 nodes (50,000 paragraphs) straight to the REST API;
 * - `rest-json-60k`: one of 60,000 nodes, within the budgets.
 *
 * For each: the answer (status, and the budget named when refused), its time, the CPU time of the
 * process (all threads: a loaded machine stretches the time, not the CPU), the growth of its RSS
 * over its idle RSS, and the concurrent reads' p50/p99/max; then the process must still answer. A
 * process that dies is reported and started again for the next case; wrong answers fail the run
 * at the end.
 * BENCH_ROOT runs another checkout of the project (to measure before a change).
 */
const ROOT = resolve(process.env.BENCH_ROOT ?? '.');
// What `npm start` runs, with its demo data ready to copy (as `npm ci` leaves it); a no-op when `dist/` is up to date.
buildDist(ROOT);
/** Targets of the 25,000-paragraph page (`rest-25k`), printed beside what was measured. */
const TARGET = { seconds: 1, rssMb: 50 };
const HEAP_MB = Number(process.env.GATEWAY_HEAP_MB ?? 192);

interface Service {
  child: ChildProcess;
  graphql: string;
  rest: string;
  token: string;
  exited: Promise<string>;
  /** The process doing the platform's work, and how often it was restarted (from `/ready`). */
  platform(): Promise<{ pid: number; restarts: number }>;
  stop(): Promise<void>;
}

/**
 * `src/main.ts` as `npm start` runs it: a supervisor running the gateway and the embedded platform
 * each in a process of its own (in a checkout from before, the gateway is that process, and
 * supervises the platform; before that, both ran in one process).
 */
async function startService(dataDir: string): Promise<Service> {
  // A port picked free here can be taken by the time the service listens, while tests run beside it.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startServiceOn(dataDir, await freePort(), await freePort());
    } catch (error) {
      if (attempt === 3 || !/already in use/.test(String(error))) throw error;
    }
  }
}

async function startServiceOn(dataDir: string, port: number, platformPort: number): Promise<Service> {
  const child = spawn(
    process.execPath,
    // The heap is the gateway's: its supervisor gives it GATEWAY_HEAP_MB (a checkout from before takes the flag).
    ['--enable-source-maps', `--max-old-space-size=${HEAP_MB}`, join(ROOT, 'dist/main.js')],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        HOST: '127.0.0.1',
        PORT: String(port),
        PLATFORM_HOST: '127.0.0.1',
        PLATFORM_PORT: String(platformPort),
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const exited = new Promise<string>((done) =>
    child.once('exit', (code, signal) =>
      done(`exit ${code ?? signal}: ${stderr.split('\n').filter(Boolean).slice(-2).join(' | ')}`),
    ),
  );
  const graphql = `http://127.0.0.1:${port}/graphql`;
  for (let i = 0; ; i += 1) {
    if (child.exitCode !== null) throw new Error(`the service did not start: ${await exited}`);
    const ready = await fetch(graphql.replace('/graphql', '/ready'))
      .then((r) => r.ok)
      .catch(() => false);
    if (ready && existsSync(join(dataDir, 'demo-tokens.json'))) break;
    if (i > 600) throw new Error('the service did not start within 60 s');
    await new Promise((done) => setTimeout(done, 100));
  }
  const token = Object.values(
    JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>,
  )[0]!;
  return {
    child,
    graphql,
    rest: `http://127.0.0.1:${platformPort}/v1`,
    token,
    exited,
    platform: async () => {
      const ready = (await fetch(graphql.replace('/graphql', '/ready'))
        .then((r) => r.json())
        .catch(() => ({}))) as { process?: { pid?: number; restarts: number } };
      return { pid: ready.process?.pid ?? child.pid!, restarts: ready.process?.restarts ?? 0 };
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** CPU time a process has used so far (all its threads), in seconds (Linux). */
function cpuSeconds(pid: number): number {
  if (!existsSync(`/proc/${pid}/stat`)) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resident memory of a process now, and its peak so far, in MB (Linux). */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function call(
  service: Service,
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${service.token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

const gql = (service: Service, query: string, variables: Record<string, unknown> = {}) =>
  call(service, 'POST', service.graphql, { query, variables });

interface Outcome {
  status: number | 'died';
  detail: string;
  /** Reads back what was stored, after the measurement: the detail then. */
  verify?: () => Promise<string>;
}

interface Case {
  name: string;
  /** Prepares what the case needs (a space, a change request); returns the operation measured. */
  prepare(service: Service): Promise<() => Promise<Outcome>>;
  /** Checks an answer: a fast wrong answer fails the run. */
  check(outcome: Outcome): void;
}

async function openRequest(service: Service): Promise<{ spaceId: string; requestId: string; pageId: string }> {
  const space = await call(service, 'POST', `${service.rest}/orgs/acme/spaces`, { title: `Bench ${Math.random()}` });
  const request = await call(service, 'POST', `${service.rest}/spaces/${space.body.id}/change-requests`, {
    subject: 'Big page',
  });
  const seeded = await call(
    service,
    'POST',
    `${service.rest}/spaces/${space.body.id}/change-requests/${request.body.id}/content?compat=false`,
    {
      changes: [{ operation: 'insert_page', document: { markdown: '# Guide\n\nOne paragraph.\n' } }],
    },
  );
  assert.equal(seeded.status, 200);
  return { spaceId: space.body.id, requestId: request.body.id, pageId: seeded.body.changes[0].page.id };
}

const refusal = (body: any) =>
  body?.error
    ? `${body.error.limit ?? ''} ${body.error.value ?? ''}/${body.error.max ?? ''} ${String(body.error.message).slice(0, 90)}`
    : '';

function restMarkdown(name: string, paragraphs: number): Case {
  return {
    name,
    async prepare(service) {
      const { spaceId, requestId } = await openRequest(service);
      const markdown = 'a\n\n'.repeat(paragraphs);
      return async () => {
        const answer = await call(
          service,
          'POST',
          `${service.rest}/spaces/${spaceId}/change-requests/${requestId}/content?compat=false`,
          {
            changes: [{ operation: 'insert_page', title: 'Long', document: { markdown } }],
          },
        );
        if (answer.status !== 200) return { status: answer.status, detail: refusal(answer.body) };
        return {
          status: answer.status,
          detail: 'accepted',
          verify: async () => {
            const page = await call(
              service,
              'GET',
              `${service.rest}/spaces/${spaceId}/change-requests/${requestId}/content/page/${answer.body.changes[0].page.id}?format=document`,
            );
            return `${page.body.document.nodes.length} paragraphs stored`;
          },
        };
      };
    },
    check(outcome) {
      assert.ok(
        (outcome.status === 200 && outcome.detail === `${paragraphs} paragraphs stored`) ||
          ((outcome.status === 413 || outcome.status === 400) && /markdown/.test(outcome.detail)),
        `${name}: ${outcome.status} ${outcome.detail}`,
      );
    },
  };
}

const CASES: Case[] = [
  {
    name: 'graphql-25k',
    async prepare(service) {
      const space = await gql(
        service,
        `mutation { createSpace(input: { organizationId: "acme", title: "Bench graph" }) { space { id } } }`,
      );
      const cr = await gql(
        service,
        `mutation ($s: ID!) { createChangeRequest(input: { spaceId: $s, subject: "Big" }) { changeRequest { id } userErrors { message } } }`,
        {
          s: space.body.data.createSpace.space.id,
        },
      );
      const id = cr.body.data.createChangeRequest.changeRequest.id as string;
      const markdown = 'a\n\n'.repeat(25_000);
      return async () => {
        const answer = await gql(
          service,
          `mutation ($id: ID!, $markdown: String!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { title: "Long", markdown: $markdown } }] }) { edits { kind } userErrors { code message } } }`,
          { id, markdown },
        );
        const payload = answer.body?.data?.editChangeRequestContent;
        const detail = payload?.userErrors?.length
          ? `${payload.userErrors[0].code} ${String(payload.userErrors[0].message).slice(0, 90)}`
          : payload
            ? `edits ${payload.edits.map((edit: { kind: string }) => edit.kind).join(',')}`
            : JSON.stringify(answer.body?.errors?.[0]?.extensions ?? answer.body).slice(0, 120);
        return { status: answer.status, detail };
      };
    },
    check(outcome) {
      assert.ok(
        outcome.status === 200 &&
          (outcome.detail === 'edits CREATED_PAGE' || outcome.detail.startsWith('BAD_USER_INPUT')),
        `graphql-25k: ${outcome.status} ${outcome.detail}`,
      );
    },
  },
  restMarkdown('rest-25k', 25_000),
  restMarkdown('rest-10k', 10_000),
  restMarkdown('rest-1mb', 340_000),
  jsonDocument('rest-json-100k', 50_000),
  jsonDocument('rest-json-60k', 30_000),
];

/** A JSON document of `paragraphs` paragraphs (2 nodes each) straight to the REST API. */
function jsonDocument(name: string, paragraphs: number): Case {
  return {
    name,
    async prepare(service) {
      const { spaceId, requestId, pageId } = await openRequest(service);
      const nodes = Array.from({ length: paragraphs }, () => ({
        object: 'block',
        type: 'paragraph',
        nodes: [{ object: 'text', leaves: [{ text: 'a' }] }],
      }));
      return async () => {
        const answer = await call(
          service,
          'POST',
          `${service.rest}/spaces/${spaceId}/change-requests/${requestId}/content?compat=false`,
          {
            changes: [
              { operation: 'update_page', page: pageId, document: { document: { object: 'document', nodes } } },
            ],
          },
        );
        return { status: answer.status, detail: answer.status === 200 ? 'stored' : refusal(answer.body) };
      };
    },
    check(outcome) {
      assert.ok(
        outcome.status === 200 || (outcome.status === 413 && /document/.test(outcome.detail)),
        `${name}: ${outcome.status} ${outcome.detail}`,
      );
    },
  };
}

const only = process.env.BENCH_ONLY?.split(',');
const dataDir = mkdtempSync(join(tmpdir(), 'bench-markdown-'));
let service = await startService(dataDir);
console.log(`root ${ROOT}, heap ${HEAP_MB} MB, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`);
console.log(
  'case            answer                                                                          time      CPU    RSS+     reads p50/p99/max (n)',
);
const failures: string[] = [];
try {
  // In the order BENCH_ONLY names them.
  for (const bench of only ? only.map((name) => CASES.find((c) => c.name === name)!) : CASES) {
    const run = await bench.prepare(service);
    await new Promise((done) => setTimeout(done, 500));
    const { pid, restarts } = await service.platform();
    const idle = rss(pid).now;
    let peak = idle;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        try {
          peak = Math.max(peak, rss(pid).now);
        } catch {
          return;
        }
        await new Promise((done) => setTimeout(done, 10));
      }
    })();
    const latencies: number[] = [];
    let reading = true;
    const reader = (async () => {
      while (reading) {
        const started = performance.now();
        const answer = await gql(service, '{ viewer { id } }').catch(() => undefined);
        if (!answer) return;
        assert.equal(answer.body?.data?.viewer?.id !== undefined, true, 'a concurrent read failed');
        latencies.push(performance.now() - started);
      }
    })();
    const cpuBefore = cpuSeconds(pid);
    const started = performance.now();
    const died = (why: string): Outcome => ({ status: 'died', detail: why });
    const outcome = await Promise.race([
      run().catch(async (error: unknown) =>
        died(
          await Promise.race([
            service.exited,
            new Promise<string>((done) => setTimeout(() => done(String(error)), 3000)),
          ]),
        ),
      ),
      service.exited.then(died),
    ]);
    const time = performance.now() - started;
    const cpu = cpuSeconds(pid) - cpuBefore;
    reading = false;
    sampling = false;
    await Promise.all([reader, sampler]);
    if (outcome.verify) outcome.detail = await outcome.verify().catch((error: unknown) => `not read back: ${error}`);
    const answering =
      service.child.exitCode === null &&
      (await gql(service, '{ viewer { id } }').catch(() => undefined))?.status === 200;
    const alive = answering && (await service.platform()).restarts === restarts;
    console.log(
      `${bench.name.padEnd(15)} ${`${outcome.status} ${outcome.detail}`.slice(0, 78).padEnd(79)} ${(time / 1000).toFixed(2).padStart(6)} s ${cpu.toFixed(2).padStart(5)} s ${(peak - idle).toFixed(0).padStart(5)} MB  ` +
        `${percentile(latencies, 50).toFixed(0)}/${percentile(latencies, 99).toFixed(0)}/${Math.max(...latencies, 0).toFixed(0)} ms (${latencies.length})${alive ? '' : '  PROCESS DEAD'}`,
    );
    if (bench.name === 'rest-25k' && outcome.status === 200) {
      console.log(
        `                25,000 paragraphs accepted in ${(time / 1000).toFixed(2)} s (target ${TARGET.seconds} s), RSS +${(peak - idle).toFixed(0)} MB (target ${TARGET.rssMb} MB), CPU ${cpu.toFixed(2)} s`,
      );
    }
    try {
      bench.check(outcome);
    } catch (error) {
      failures.push((error as Error).message);
    }
    if (!alive) {
      await service.stop();
      service = await startService(mkdtempSync(join(tmpdir(), 'bench-markdown-')));
    }
  }
  if (failures.length) {
    console.error(`Wrong answers:\n${failures.join('\n')}`);
    process.exitCode = 1;
  }
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
