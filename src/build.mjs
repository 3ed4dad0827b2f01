// Compiles `src/` to `dist/` for `npm start`, `npm run platform` and `npm ci` (`prepare`), in well under a second,
// and does nothing when `dist/` was built from exactly the sources there are now.
//
// esbuild only strips the types, one output file for each source file (no bundle: the worker threads and
// `import.meta.url` paths find their files where they are in `src/`). The type check is `tsc --noEmit` in `npm test`;
// `tsconfig.json`'s `isolatedModules` and `verbatimModuleSyntax` keep every file compilable on its own.
//
// Plain JavaScript so that it runs before anything is compiled. Run from the package's root (npm scripts are).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCES = 'src';
const OUTPUT = 'dist';
/** Where the build writes the fingerprint of what it was built from; written last, so a failed build leaves none. */
const STAMP = join(OUTPUT, '.build-fingerprint');

/** Every file under `src/`, as paths relative to the package's root, in a stable order. */
function sourceFiles() {
  return readdirSync(SOURCES, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * A hash of everything the output depends on: each source file's path and bytes (this script is one of them), the
 * compiler settings (`tsconfig.json`) and esbuild's version. Contents, not modification times, so a checkout, a copy
 * or a restored file that keeps an old time still counts as a change.
 */
function fingerprint(files) {
  const hash = createHash('sha256');
  const esbuildVersion = createRequire(import.meta.url)('esbuild/package.json').version;
  hash.update(`esbuild ${esbuildVersion}\0`);
  for (const file of ['tsconfig.json', ...files]) {
    hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

async function compile(files) {
  const { build } = await import('esbuild');
  // Emptied first, so that a source file deleted or renamed leaves no module behind in `dist/`.
  rmSync(OUTPUT, { recursive: true, force: true });
  await build({
    entryPoints: files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
    outdir: OUTPUT,
    outbase: SOURCES,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    tsconfig: 'tsconfig.json',
    // `node --enable-source-maps` points stack traces at the TypeScript, read from `src/`.
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
}

const files = sourceFiles();
const wanted = fingerprint(files);
const built = existsSync(STAMP) ? readFileSync(STAMP, 'utf8') : undefined;
if (built !== wanted) {
  await compile(files);
  writeFileSync(STAMP, wanted);
}
// `npm ci` (`prepare`) also seeds the demo data into a template, so that the first `npm start` does not wait for
// a seed (src/platform/demo-template.ts). A compile empties `dist/`, so the template is always of this build.
if (process.argv.includes('--demo-template') && !existsSync(join(OUTPUT, 'demo-template', 'platform.sqlite'))) {
  const { writeDemoTemplate } = await import(pathToFileURL(join(OUTPUT, 'platform', 'demo-template.js')).href);
  writeDemoTemplate();
}
