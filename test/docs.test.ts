import { existsSync, globSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** README.md and every page under docs/, as paths from the repository's root. */
function pages(): string[] {
  return ['README.md', ...globSync('docs/**/*.md', { cwd: root })].sort();
}

/** The text of a page without its fenced code blocks, whose brackets are code, not links. */
function prose(page: string): string {
  return readFileSync(join(root, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
}

/** The anchors GitHub gives a page's headings. */
function anchors(page: string): Set<string> {
  const headings = [...prose(page).matchAll(/^#{1,6} (.+)$/gm)].map(([, text = '']) => text);
  return new Set(
    headings.map((text) =>
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    ),
  );
}

/** Every relative link of a page: the page it names (itself for `#anchor`) and the anchor. */
function links(page: string): Array<{ written: string; target: string; anchor?: string }> {
  return [...prose(page).matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, written = '']) => written)
    .filter((written) => !/^[a-z]+:/.test(written))
    .map((written) => {
      const [path = '', anchor] = written.split('#');
      const target = path === '' ? page : relative(root, resolve(root, dirname(page), path));
      return { written, target, ...(anchor === undefined ? {} : { anchor }) };
    });
}

/** Files the docs name that no checkout holds: the platform writes them, or a package ships them. */
const MADE_AT_RUN_TIME = new Set([
  '.data/demo-tokens.json',
  'DATA_DIR/demo-tokens.json',
  'demo-tokens.json',
  'spec/openapi.json',
]);

/** Every file under a folder of the repository, as a path from its root. */
function tracked(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe('the README and docs/', () => {
  it('keep the README to at most 200 lines', () => {
    expect(readFileSync(join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  it('link only to files and headings that exist', () => {
    const broken = pages().flatMap((page) =>
      links(page)
        .filter(({ target, anchor }) => {
          if (!existsSync(join(root, target))) return true;
          return anchor !== undefined && (!target.endsWith('.md') || !anchors(target).has(anchor));
        })
        .map(({ written }) => `${page}: ${written}`),
    );
    expect(broken).toEqual([]);
  });

  it('name only source files that exist', () => {
    const atRoot = readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isFile());
    const files = [
      ...tracked('src'),
      ...tracked('test'),
      ...tracked('bench'),
      ...tracked('docs'),
      ...atRoot.map((entry) => entry.name),
    ];
    const exists = (path: string) => files.some((file) => file === path || file.endsWith(`/${path}`));
    const missing = pages().flatMap((page) =>
      [...prose(page).matchAll(/`([\w./-]+\.(?:ts|mjs|json))`/g)]
        .map(([, path = '']) => path)
        .filter((path) => !MADE_AT_RUN_TIME.has(path) && !exists(path))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it('reach every page of docs/ from the README', () => {
    const reached = new Set(['README.md']);
    const queue = ['README.md'];
    for (let page = queue.shift(); page !== undefined; page = queue.shift()) {
      for (const { target } of links(page)) {
        if (target.endsWith('.md') && !reached.has(target) && existsSync(join(root, target))) {
          reached.add(target);
          queue.push(target);
        }
      }
    }
    expect(pages().filter((page) => !reached.has(page))).toEqual([]);
  });
});
