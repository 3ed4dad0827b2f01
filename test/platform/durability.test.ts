import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO, seedDemoData } from '../../src/platform/demo-data.js';
import { openDatabase } from '../../src/platform/store/db.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

interface PlatformProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<Exit>;
  output(): string;
}

const running = new Set<PlatformProcess>();

/**
 * How long a test with process starts may take before it counts as hung: a guard, not a bound.
 * Each start loads the platform through tsx (and the first seeds it): a few seconds quiet, several
 * times that on a busy machine.
 */
const START_GUARD_MS = 180_000;

/**
 * Starts `src/platform/main.ts` as its own process, on a port the system picks, and waits for the
 * line it prints once it listens (a first start seeds the demo data first: seconds on a busy machine).
 */
async function launch(dataDir: string): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_PORT: '0',
      PLATFORM_HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    const printed = /^Platform API on (http:\/\/\S+)$/m.exec(output);
    if (printed) listening(printed[1]!);
  });
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const server: PlatformProcess = { child, url: '', exited, output: () => output };
  running.add(server);
  void exited.then(() => running.delete(server));
  server.url = await Promise.race([
    url,
    exited.then(() => {
      throw new Error(`platform exited before it listened:\n${output}`);
    }),
  ]);
  return server;
}

async function stop(server: PlatformProcess, signal: NodeJS.Signals): Promise<Exit> {
  server.child.kill(signal);
  return server.exited;
}

async function call(server: PlatformProcess, method: string, path: string, token: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function instructions(text: string) {
  return {
    object: 'document',
    data: { schemaVersion: 1 },
    nodes: [
      {
        object: 'block',
        type: 'paragraph',
        key: 'p1',
        isVoid: false,
        data: { align: 'start' },
        nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
      },
    ],
  };
}

function readTokens(dataDir: string): Record<string, string> {
  return JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
}

describe('durability of the platform process', () => {
  let dataDir: string;
  let tokens: Record<string, string>;
  let admin: string;
  let ivy: string;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-durability-'));
  });

  afterAll(async () => {
    await Promise.all([...running].map((server) => stop(server, 'SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered write after kill -9, without seeding twice', { timeout: START_GUARD_MS }, async () => {
    const first = await launch(dataDir);
    tokens = readTokens(dataDir);
    expect(Object.keys(tokens)[0]).toBe(DEMO.users.ada);
    admin = tokens[DEMO.users.ada]!;
    ivy = tokens[DEMO.users.ivy]!;

    const answers = await Promise.all([
      call(first, 'PATCH', '/orgs/acme', admin, { title: 'Acme Docs after kill' }),
      call(first, 'PUT', '/orgs/acme/agent-instructions', admin, { instructions: instructions('Survive kill -9.') }),
      call(first, 'POST', '/orgs/acme/join', ivy),
    ]);
    const exit = await stop(first, 'SIGKILL');
    expect(answers.map((a) => a.status)).toEqual([200, 200, 204]);
    expect(exit.signal).toBe('SIGKILL');

    const second = await launch(dataDir);
    expect(readTokens(dataDir)).toEqual(tokens);
    const org = await call(second, 'GET', '/orgs/acme', admin);
    expect(org.status).toBe(200);
    expect(org.body.title).toBe('Acme Docs after kill');
    const agent = await call(second, 'GET', '/orgs/acme/agent-instructions', admin);
    expect(agent.body.instructions).toEqual(instructions('Survive kill -9.'));
    const ivyOrgs = await call(second, 'GET', '/orgs', ivy);
    expect(ivyOrgs.body.items).toEqual([expect.objectContaining({ id: 'acme', defaultRole: 'read' })]);
    expect((await call(second, 'GET', '/user', tokens[DEMO.users.hana]!)).body.email).toBe(DEMO.users.hana);
  });

  it('keeps every write across a graceful restart (SIGTERM)', { timeout: START_GUARD_MS }, async () => {
    const [current] = running;
    const server = current ?? (await launch(dataDir));
    const answers = await Promise.all([
      call(server, 'PATCH', '/orgs/acme', admin, { title: 'Acme Docs after restart' }),
      call(server, 'PATCH', '/orgs/globex', admin, { defaultRole: 'comment' }),
      call(server, 'PUT', '/orgs/acme/agent-instructions', admin, { instructions: instructions('Survive SIGTERM.') }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const exit = await stop(server, 'SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });

    const next = await launch(dataDir);
    expect(readTokens(dataDir)).toEqual(tokens);
    expect((await call(next, 'GET', '/orgs/acme', admin)).body.title).toBe('Acme Docs after restart');
    expect((await call(next, 'GET', '/orgs/globex', admin)).body.defaultRole).toBe('comment');
    expect((await call(next, 'GET', '/orgs/acme/agent-instructions', admin)).body.instructions).toEqual(
      instructions('Survive SIGTERM.'),
    );
    expect((await call(next, 'GET', '/orgs/acme', ivy)).status).toBe(200);
    await stop(next, 'SIGKILL');
  });

  it('holds the demo data exactly once after the restarts', () => {
    const fresh = openDatabase({ file: ':memory:' });
    seedDemoData(fresh);
    const stored = new Database(join(dataDir, 'platform.sqlite'), { readonly: true });
    const count = (db: Database.Database, table: string) =>
      (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    try {
      for (const table of [
        'users',
        'api_tokens',
        'organizations',
        'teams',
        'team_members',
        'collections',
        'spaces',
        'content_permissions',
        'link_invites',
        'agent_instructions',
        'meta',
      ]) {
        expect(count(stored, table), table).toBe(count(fresh, table));
      }
      expect(count(stored, 'members')).toBe(count(fresh, 'members') + 1);
    } finally {
      stored.close();
      fresh.close();
    }
  });
});
