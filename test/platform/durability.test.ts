import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser } from '../fixtures/org.js';
import { startTestPlatform } from '../fixtures/platform.js';
import { PLATFORM_START_ARGS } from '../fixtures/built.js';

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
 * Each start loads the compiled platform: a second quiet, several times that on a busy machine.
 */
const START_GUARD_MS = 180_000;

/**
 * Starts `dist/platform/main.js` as its own process without the demo data, on a port the system picks, and waits
 * for the line it prints once it listens.
 */
async function launch(dataDir: string): Promise<PlatformProcess> {
  const child = spawn(process.execPath, PLATFORM_START_ARGS, {
    cwd: projectRoot,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PLATFORM_PORT: '0',
      PLATFORM_HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PLATFORM_DEMO_DATA: '0',
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

/** The tables the organizations are made of, and the platform's own records. */
const TABLES = [
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
  'members',
] as const;

function rowCounts(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      TABLES.map((table) => [table, (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

describe('durability of the platform process', () => {
  let dataDir: string;
  let admin: string;
  let ivy: string;
  let hana: string;
  /** The rows of the database as built, before any start of the process. */
  let built: Record<string, number>;

  /**
   * The database file the process opens, built through a test platform over the same folder: Northwind (e-mail
   * domain `northwind.test`, default role `read`; ada admin, finn `read`; a team, a collection, a space with a
   * grant, agent instructions) and Southwind (ada admin, hana `edit`); ivy@northwind.test in no organization.
   */
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'platform-durability-'));
    const builder = await startTestPlatform({ dataDir, seed: false });
    const users = { ada: addUser(builder, 'ada'), ivy: addUser(builder, 'ivy', { email: 'ivy@northwind.test' }) };
    const org = addOrg(builder, {
      id: 'northwind',
      title: 'Northwind Docs',
      members: { ada: 'admin', finn: 'read' },
      users,
      emailDomains: ['northwind.test'],
      defaultRole: 'read',
    });
    const south = addOrg(builder, { id: 'southwind', members: { ada: 'admin', hana: 'edit' }, users });
    await org.team('Writers', ['finn']);
    const space = await org.space('Runbooks', { parent: await org.collection('Engineering') });
    await org.grant({ space }, 'edit', { users: ['finn'] });
    const written = await builder.api('PUT', '/orgs/northwind/agent-instructions', {
      body: { instructions: instructions('Built.') },
    });
    expect(written.status).toBe(200);
    await builder.destroy();
    [admin, ivy, hana] = [users.ada.token, users.ivy.token, south.token('hana')];
    built = rowCounts(join(dataDir, 'platform.sqlite'));
  });

  afterAll(async () => {
    await Promise.all([...running].map((server) => stop(server, 'SIGKILL')));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every answered write after kill -9, seeding no demo data', { timeout: START_GUARD_MS }, async () => {
    const first = await launch(dataDir);
    const demoTokens = join(dataDir, 'demo-tokens.json');
    expect(existsSync(demoTokens)).toBe(false);

    const answers = await Promise.all([
      call(first, 'PATCH', '/orgs/northwind', admin, { title: 'Northwind Docs after kill' }),
      call(first, 'PUT', '/orgs/northwind/agent-instructions', admin, {
        instructions: instructions('Survive kill -9.'),
      }),
      call(first, 'POST', '/orgs/northwind/join', ivy),
    ]);
    const exit = await stop(first, 'SIGKILL');
    expect(answers.map((a) => a.status)).toEqual([200, 200, 204]);
    expect(exit.signal).toBe('SIGKILL');

    const second = await launch(dataDir);
    expect(existsSync(demoTokens)).toBe(false);
    const org = await call(second, 'GET', '/orgs/northwind', admin);
    expect(org.status).toBe(200);
    expect(org.body.title).toBe('Northwind Docs after kill');
    const agent = await call(second, 'GET', '/orgs/northwind/agent-instructions', admin);
    expect(agent.body.instructions).toEqual(instructions('Survive kill -9.'));
    const ivyOrgs = await call(second, 'GET', '/orgs', ivy);
    expect(ivyOrgs.body.items).toEqual([expect.objectContaining({ id: 'northwind', defaultRole: 'read' })]);
    expect((await call(second, 'GET', '/user', hana)).body.email).toBe('hana@example.test');
  });

  it('keeps every write across a graceful restart (SIGTERM)', { timeout: START_GUARD_MS }, async () => {
    const [current] = running;
    const server = current ?? (await launch(dataDir));
    const answers = await Promise.all([
      call(server, 'PATCH', '/orgs/northwind', admin, { title: 'Northwind Docs after restart' }),
      call(server, 'PATCH', '/orgs/southwind', admin, { defaultRole: 'comment' }),
      call(server, 'PUT', '/orgs/northwind/agent-instructions', admin, {
        instructions: instructions('Survive SIGTERM.'),
      }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const exit = await stop(server, 'SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });

    const next = await launch(dataDir);
    expect(existsSync(join(dataDir, 'demo-tokens.json'))).toBe(false);
    expect((await call(next, 'GET', '/orgs/northwind', admin)).body.title).toBe('Northwind Docs after restart');
    expect((await call(next, 'GET', '/orgs/southwind', admin)).body.defaultRole).toBe('comment');
    expect((await call(next, 'GET', '/orgs/northwind/agent-instructions', admin)).body.instructions).toEqual(
      instructions('Survive SIGTERM.'),
    );
    expect((await call(next, 'GET', '/orgs/northwind', ivy)).status).toBe(200);
    await stop(next, 'SIGKILL');
  });

  it('holds the built data exactly once after the restarts, ivy a member besides', () => {
    expect(rowCounts(join(dataDir, 'platform.sqlite'))).toEqual({ ...built, members: built.members! + 1 });
  });
});
