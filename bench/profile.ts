import { existsSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Where a process's CPU went, from a V8 CPU profile (`--cpu-prof`; the floor bench writes one per
 * process it measures with BENCH_CPU_PROF=<dir>): self time by origin (a file of the project's
 * `src/`, a package, Node's own code, the garbage collector) and the functions that take the most,
 * each located in its source through the bundle's source map. Shares are of the time the process
 * was busy (idle left out); the garbage collector's is the GC share the profile sees. Then the
 * total time of the project's own functions: a sample counts for every one of them on its stack,
 * once each, so a plugin's hook shows what it costs with all it calls.
 *
 *   npx tsx bench/profile.ts <file.cpuprofile | file.heapprofile> [how many functions, default 25]
 *
 * A heap profile (BENCH_ALLOC_PROF, see `bench/gc-share.ts`) is read the same way, in bytes allocated.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
  parent?: number;
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: npx tsx bench/profile.ts <file.cpuprofile> [how many functions]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
/** A heap profile (`.heapprofile`) counts bytes allocated where a CPU profile counts ms spent. */
const heap = file.endsWith('.heapprofile');
const unit = heap ? 'KiB' : 'ms';
const { profile, self } = heap ? readHeapProfile(file) : readCpuProfile(file);

/** A CPU profile, and the self time of each node, in ms: each sample's time falls on the node it caught. */
function readCpuProfile(path: string): { profile: Profile; self: Map<number, number> } {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as Profile;
  const self = new Map<number, number>();
  profile.samples.forEach((node, index) => {
    self.set(node, (self.get(node) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return { profile, self };
}

interface HeapNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** A sampling heap profile as the nodes of a CPU profile, with the bytes allocated at each, in KiB. */
function readHeapProfile(path: string): { profile: Profile; self: Map<number, number> } {
  const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: HeapNode };
  const nodes: ProfileNode[] = [];
  const self = new Map<number, number>();
  const visit = (node: HeapNode) => {
    nodes.push({ id: node.id, callFrame: node.callFrame, children: node.children.map((child) => child.id) });
    self.set(node.id, node.selfSize / 1024);
    for (const child of node.children) visit(child);
  };
  visit(head);
  return { profile: { nodes, samples: [], timeDeltas: [] }, self };
}

const maps = new Map<string, SourceMap | undefined>();
/** The bundle's source map, when the file has one beside it. */
function sourceMapOf(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    try {
      const path = fileURLToPath(url);
      if (existsSync(`${path}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Where a frame's code comes from: its source file and line, and the origin it counts under. */
function locate(frame: ProfileNode['callFrame']): { where: string; origin: string } {
  if (!frame.url) return { where: frame.functionName, origin: frame.functionName || '(native)' };
  if (frame.url.startsWith('node:')) return { where: `${frame.url}:${frame.lineNumber + 1}`, origin: 'node' };
  // An empty object where the map has no entry.
  const entry = (
    frame.url.startsWith('file:') ? sourceMapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber) : undefined
  ) as { originalSource?: string; originalLine?: number } | undefined;
  const source = entry?.originalSource ?? frame.url;
  const line = (entry?.originalLine ?? frame.lineNumber) + 1;
  // graphql-js's maps point one folder above their package (`node_modules/src/jsutils/…`).
  const named = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source)?.[1];
  const packageName = named === 'src' ? 'graphql' : named;
  const project = /\/((?:src|bench|test)\/.*)$/.exec(source)?.[1];
  const where = `${packageName ? `${packageName}: ` : ''}${(project ?? source).replace(/^.*node_modules\//, '')}:${line}`;
  return { where, origin: packageName ?? project ?? source };
}

const byOrigin = new Map<string, number>();
const byFunction = new Map<string, number>();
let idle = 0;
for (const node of profile.nodes) {
  const ms = self.get(node.id) ?? 0;
  if (ms === 0) continue;
  if (node.callFrame.functionName === '(idle)') {
    idle += ms;
    continue;
  }
  const { where, origin } = locate(node.callFrame);
  byOrigin.set(origin, (byOrigin.get(origin) ?? 0) + ms);
  const name = `${node.callFrame.functionName || '(anonymous)'} (${where})`;
  byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
}
const busy = [...byOrigin.values()].reduce((sum, ms) => sum + ms, 0);
const share = (ms: number) => `${((ms / busy) * 100).toFixed(1)} %`;
const table = (title: string, rows: Map<string, number>, count: number) => {
  console.log(`\n| ${title} | self ${unit} | share of ${heap ? 'all' : 'busy'} |`);
  console.log('|---|---:|---:|');
  for (const [name, ms] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, count))
    console.log(`| ${name.replaceAll('|', '\\|')} | ${ms.toFixed(0)} | ${share(ms)} |`);
};
console.log(
  heap
    ? `${file}: ${busy.toFixed(0)} KiB allocated (sampled), where they were allocated.`
    : `${file}: ${busy.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle; garbage collector ${share(byOrigin.get('(garbage collector)') ?? 0)} of busy.`,
);
table('origin', byOrigin, Number(process.env.PROFILE_ORIGINS ?? 20));
table('function (source)', byFunction, top);

// Total time per project function: each sample's time for every distinct project frame on its stack.
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
for (const node of profile.nodes) for (const child of node.children ?? []) byId.get(child)!.parent = node.id;
const projectName = new Map<number, string | undefined>();
function projectFrame(node: ProfileNode): string | undefined {
  if (!projectName.has(node.id)) {
    const { where, origin } = locate(node.callFrame);
    projectName.set(
      node.id,
      origin.startsWith('src/') ? `${node.callFrame.functionName || '(anonymous)'} (${where})` : undefined,
    );
  }
  return projectName.get(node.id);
}
const total = new Map<string, number>();
for (const [id, ms] of self) {
  const seen = new Set<string>();
  for (let node = byId.get(id); node; node = node.parent === undefined ? undefined : byId.get(node.parent)) {
    const name = projectFrame(node);
    if (name && !seen.has(name)) {
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + ms);
    }
  }
}
console.log(
  '\nTotal: the time of each project function with everything it called (a sample counts once per function).',
);
table('project function (source), total', total, top);
