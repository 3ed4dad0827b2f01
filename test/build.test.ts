import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childProcesses } from './fixtures/processes.js';

/**
 * `npm run build` (`src/build.mjs`, which `npm start`, `npm run platform` and `npm ci` run first): `dist/` is
 * rebuilt whenever anything it was compiled from changed, and left alone otherwise, so that `npm start` never
 * serves a stale `dist/` and costs next to nothing on a tree that is already built.
 */

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const BUILD_SCRIPT = join(projectRoot, 'src/build.mjs');

/** Runs the build in `cwd`, as npm does from the package's root. */
function build(cwd: string) {
  return promisify(execFile)(process.execPath, [BUILD_SCRIPT], { cwd });
}

/** What a compiled module exports, read by a node process of its own (so no module cache is shared). */
async function load(file: string): Promise<unknown> {
  const script = `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(JSON.stringify({ ...m }));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout);
}

describe('npm run build, in a project of its own', () => {
  let root: string;
  const source = (path: string) => join(root, 'src', path);
  const output = (path: string) => join(root, 'dist', path);
  /** A file the build did not write: it survives only while the build leaves `dist/` alone. */
  const MARKER = 'left-alone';
  const markDist = () => writeFileSync(output(MARKER), '');

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'build-'));
    copyFileSync(join(projectRoot, 'tsconfig.json'), join(root, 'tsconfig.json'));
    mkdirSync(join(root, 'src/deep'), { recursive: true });
    writeFileSync(
      source('answer.ts'),
      "import { name } from './deep/name.js';\nexport const answer: string = name + ' 1';\n",
    );
    writeFileSync(source('deep/name.ts'), "export const name: string = 'answer';\n");
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('compiles every source file to a module of dist/ that runs as its source says, with its source map', async () => {
    await build(root);
    expect(await load(output('answer.js'))).toEqual({ answer: 'answer 1' });
    expect(existsSync(output('deep/name.js'))).toBe(true);
    expect(JSON.parse(readFileSync(output('answer.js.map'), 'utf8')).sources).toEqual(['../src/answer.ts']);
  });

  it('bundles a process entry, whose modules still see their own place in dist/', async () => {
    // `main` is one of the entries the product starts as a process: bundled with what it imports.
    writeFileSync(source('deep/where.ts'), 'export const where: string = import.meta.url;\n');
    writeFileSync(
      source('main.ts'),
      "export { answer } from './answer.js';\nexport { where } from './deep/where.js';\n",
    );
    await build(root);
    expect(readFileSync(output('main.js'), 'utf8')).toBe("export * from './bundle/main.js';\n");
    expect(await load(output('main.js'))).toEqual({
      answer: 'answer 1',
      where: pathToFileURL(output('deep/where.js')).href,
    });
    // The modules it bundled are compiled one by one too, for whatever imports them from dist/.
    expect(existsSync(output('deep/where.js'))).toBe(true);
  });

  it('copies the data files of src/ beside their modules, which find them there bundled or not', async () => {
    writeFileSync(source('deep/data.json'), '{ "n": 1 }\n');
    writeFileSync(
      source('deep/reader.ts'),
      "import { readFileSync } from 'node:fs';\nexport const data = JSON.parse(readFileSync(new URL('./data.json', import.meta.url), 'utf8'));\n",
    );
    // `main` is bundled: its copy of the reader must still look beside `dist/deep/reader.js`.
    writeFileSync(source('main.ts'), "export { data } from './deep/reader.js';\n");
    await build(root);
    expect(readFileSync(output('deep/data.json'), 'utf8')).toBe('{ "n": 1 }\n');
    expect(await load(output('deep/reader.js'))).toEqual({ data: { n: 1 } });
    expect(await load(output('main.js'))).toEqual({ data: { n: 1 } });

    // A changed data file is a change of the sources, even with its old modification time.
    markDist();
    const { atime, mtime } = statSync(source('deep/data.json'));
    writeFileSync(source('deep/data.json'), '{ "n": 2 }\n');
    utimesSync(source('deep/data.json'), atime, mtime);
    await build(root);
    expect(existsSync(output(MARKER))).toBe(false);
    expect(await load(output('main.js'))).toEqual({ data: { n: 2 } });
  });

  it('leaves dist/ as it is when nothing it was built from changed', async () => {
    await build(root);
    markDist();
    await build(root);
    expect(existsSync(output(MARKER))).toBe(true);
  });

  it('rebuilds after a source changes, even one that keeps its old modification time', async () => {
    await build(root);
    markDist();
    const { atime, mtime } = statSync(source('deep/name.ts'));
    writeFileSync(source('deep/name.ts'), "export const name: string = 'changed';\n");
    utimesSync(source('deep/name.ts'), atime, mtime);
    await build(root);
    expect(existsSync(output(MARKER))).toBe(false);
    expect(await load(output('answer.js'))).toEqual({ answer: 'changed 1' });
  });

  it('leaves no module of a deleted source behind', async () => {
    writeFileSync(source('old.ts'), 'export const old = true;\n');
    await build(root);
    expect(existsSync(output('old.js'))).toBe(true);
    rmSync(source('old.ts'));
    await build(root);
    expect(existsSync(output('old.js'))).toBe(false);
    expect(existsSync(output('answer.js'))).toBe(true);
  });

  it('rebuilds when the compiler settings change', async () => {
    await build(root);
    markDist();
    const settings = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
    settings.compilerOptions.target = 'ES2023';
    writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(settings));
    await build(root);
    expect(existsSync(output(MARKER))).toBe(false);
  });

  it('fails on a source that does not compile, and builds again once it is fixed', async () => {
    await build(root);
    const good = readFileSync(source('answer.ts'), 'utf8');
    writeFileSync(source('answer.ts'), 'export const answer = ;\n');
    await expect(build(root)).rejects.toThrow(/answer\.ts/);
    // Back to the sources of the first build: what that build wrote is gone, so it must build again.
    writeFileSync(source('answer.ts'), good);
    await build(root);
    expect(await load(output('answer.js'))).toEqual({ answer: 'answer 1' });
  });
});

describe('npm start on the compiled tree', () => {
  let dataDir: string;
  let gateway: ChildProcess | undefined;

  afterAll(async () => {
    if (gateway && gateway.exitCode === null) {
      const gone = new Promise((resolve) => gateway!.once('exit', resolve));
      gateway.kill('SIGTERM');
      await gone;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('builds the repository, then the gateway and its platform answer from dist/', async () => {
    await build(projectRoot);
    dataDir = mkdtempSync(join(tmpdir(), 'build-start-'));
    // As the `start` script runs it.
    gateway = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
      cwd: projectRoot,
      env: {
        ...process.env,
        PORT: '0',
        PLATFORM_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'error',
        GATEWAY_HEAP_MB: '160',
        PLATFORM_HEAP_MB: '200',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    gateway.stderr!.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      gateway!.stdout!.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const address = /GraphQL gateway: (http:\/\/\S+)\/graphql/.exec(printed)?.[1];
        if (address) resolve(address);
      });
      gateway!.once('exit', (code) => reject(new Error(`the gateway exited (${code}):\n${printed}`)));
    });

    const ready = await fetch(`${url}/ready`);
    expect(ready.status, printed).toBe(200);
    const [token] = Object.values(JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8'))) as string[];
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ viewer { platformId } }' }),
    });
    const { data, errors } = (await answer.json()) as { data?: { viewer: { platformId: string } }; errors?: unknown };
    expect(errors).toBeUndefined();
    expect(data?.viewer.platformId).toMatch(/\S/);

    // `npm start`'s process supervises two of its own, each compiled, each with its heap limits.
    const children = childProcesses(gateway.pid!).map((child) => child.argv.slice(1));
    const limits = (heapMb: number) => [
      '--enable-source-maps',
      '--max-semi-space-size=16',
      `--max-old-space-size=${heapMb}`,
    ];
    expect(children.sort()).toEqual([
      [...limits(160), join(projectRoot, 'dist/gateway/main.js')],
      [...limits(200), join(projectRoot, 'dist/platform/main.js')],
    ]);
  }, 180_000); // a guard: a build of the repository and a first start (which seeds the demo data) take seconds, several times that on a busy machine
});
