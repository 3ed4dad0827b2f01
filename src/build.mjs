// Compiles `src/` to `dist/` for `npm start`, `npm run platform` and `npm ci` (`prepare`), in about a second,
// and does nothing when `dist/` was built from exactly the sources there are now.
//
// Two outputs. esbuild strips the types of every source file, one module of `dist/` for each (what scripts and
// benchmarks import, and where the `import.meta.url` paths of the code point). Then the processes and worker threads
// the product starts (`PROCESS_ENTRIES`) are bundled with their packages into `dist/bundle/`: a gateway's own
// modules and its packages are about 1,300 files, whose resolving and loading took over half of its start; bundled,
// a few. Each such entry's module in `dist/` only loads its bundle. The data files of `src/` (everything but code:
// the demo data set's JSON, markdown and images) are copied to the same place in `dist/`, where the modules that
// read them beside themselves (`new URL('./…', import.meta.url)`, bundled or not) find them; they count in the
// fingerprint like the code. The type check is `tsc --noEmit` in `npm test`; `tsconfig.json`'s `isolatedModules`
// and `verbatimModuleSyntax` keep every file compilable on its own.
//
// Plain JavaScript so that it runs before anything is compiled. Run from the package's root (npm scripts are).
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCES = 'src';
const OUTPUT = 'dist';
/** Where the bundles and their shared chunks go: one folder, so that every bundled module is at the same depth. */
const BUNDLES = 'bundle';
/** The modules run as processes or worker threads, bundled: source path under `src/` without `.ts`. */
const PROCESS_ENTRIES = [
  'main',
  'gateway/main',
  'gateway/conversion/worker',
  'platform/main',
  'platform/openapi/parse-worker',
  'platform/content/markdown-parser-worker',
  'cluster/main',
];
/**
 * Packages left out of the bundles, loaded from `node_modules` as they are: a native addon, packages that read
 * their own files or start workers from them (PDF reading and writing), and GraphiQL's page, 9 MB loaded only
 * when a browser asks for it.
 */
const UNBUNDLED_PACKAGES = ['better-sqlite3', 'pdfjs-dist', 'pdfkit', '@graphql-yoga/render-graphiql'];
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
  const entries = PROCESS_ENTRIES.filter((entry) => files.includes(entrySource(entry)));
  const bundled = new Set(entries.map(entrySource));
  await build({
    // Plain `.js` modules are generated code (the REST contract): copied through as they are.
    entryPoints: files.filter((file) => isModule(file) && !bundled.has(file)),
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
  await bundle(build, entries);
  for (const file of files.filter(isData)) cpSync(file, join(OUTPUT, relative(SOURCES, file)));
}

/** A module of the build: TypeScript (not a declaration) or plain JavaScript. */
const isModule = (file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || file.endsWith('.js');

/** A source file that is data, not code: copied to `dist/` as it is. */
const isData = (file) => !/\.(ts|mjs|js)$/.test(file);

/** The source file of a process entry: `gateway/main` → `src/gateway/main.ts`. */
const entrySource = (entry) => join(SOURCES, `${entry}.ts`);

/** The bundle's name of an entry: `gateway/main` → `gateway-main`. */
const bundleName = (entry) => entry.replaceAll('/', '-');

/**
 * Bundles the process entries (with code splitting, so what they share, and what they import only when needed, is
 * loaded once and when needed), then writes each entry's module in `dist/` as a one-line import of its bundle.
 */
async function bundle(build, entries) {
  if (entries.length === 0) return;
  await build({
    entryPoints: Object.fromEntries(entries.map((entry) => [join(BUNDLES, bundleName(entry)), entrySource(entry)])),
    outdir: OUTPUT,
    chunkNames: join(BUNDLES, '[name]-[hash]'),
    bundle: true,
    splitting: true,
    external: UNBUNDLED_PACKAGES,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    tsconfig: 'tsconfig.json',
    // CommonJS packages in an ES module call `require` for Node's modules: the bundle's own.
    banner: {
      js: "import { createRequire as bundleRequire } from 'node:module';\nconst require = bundleRequire(import.meta.url);",
    },
    plugins: [ownLocations],
    sourcemap: 'linked',
    sourcesContent: false,
    logLevel: 'warning',
  });
  for (const entry of entries) {
    const depth = entry.split('/').length - 1;
    const target = `${'../'.repeat(depth) || './'}${BUNDLES}/${bundleName(entry)}.js`;
    writeFileSync(join(OUTPUT, `${entry}.js`), `export * from '${target}';\n`);
  }
}

/**
 * Each of our modules in a bundle keeps `import.meta.url` as its own module in `dist/` (which exists: the per-file
 * output), so that the files it finds beside itself (a worker's entry, the demo template, a config template) are
 * where they were. Every bundled file is in `dist/bundle/`, one level down.
 */
const ownLocations = {
  name: 'own-locations',
  setup(build) {
    const sources = `${join(process.cwd(), SOURCES)}/`;
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (!args.path.startsWith(sources)) return undefined;
      const contents = readFileSync(args.path, 'utf8');
      if (!contents.includes('import.meta.url')) return undefined;
      const own = `../${args.path.slice(sources.length).replace(/\.ts$/, '.js')}`;
      return {
        contents: contents.replaceAll('import.meta.url', `new URL(${JSON.stringify(own)}, import.meta.url).href`),
        loader: 'ts',
      };
    });
  },
};

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
  const template = await import(pathToFileURL(join(OUTPUT, 'platform', 'demo-template.js')).href);
  const { DEFAULT_GIT_AUTHOR } = await import(pathToFileURL(join(OUTPUT, 'platform', 'app.js')).href);
  template.writeDemoTemplate();
  // Without git, each first start tries to make the repository itself.
  await template.writeDemoRepository(template.DEMO_TEMPLATE_FILE, DEFAULT_GIT_AUTHOR).catch(() => {});
}
