import { posix } from 'node:path';
import type { Heading, List, ListItem, Root, RootContent } from 'mdast';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { newId } from '../http.js';
import { ContentLimitError, slugify, type ContentRef, type JSONDocument } from '../../document/model.js';
import {
  documentToMarkdown,
  markdownMetadata,
  markdownToDocument as convert,
  stableRefs,
  type RefResolver,
} from '../../document/markdown.js';
import { parseMarkdownOffThread } from '../content/markdown-parser.js';
import { layoutAndCover, pageFile, pageFrontMatter, relativeRefs } from '../content/page-markdown.js';
import { pageIndex, type PlacedPage } from '../content/pages.js';
import type { ContentFile, ContentPage, ContentReusable, RevisionContent, Variables } from '../content/revisions.js';

/**
 * A space's content as files of a Git repository, the layout Git Sync users keep:
 * - a page is `<path>.md`, or `<path>/README.md` when it has pages under it; a group's pages are in
 *   a folder named after the group's slug;
 * - `SUMMARY.md` is the navigation: `## Group <a href="#slug" id="slug"></a>` headings, nested
 *   `* [Title](file.md "link title")` bullets, external links as bullets to URLs; a top-level
 *   page that follows a group is written after `<!-- endgroup -->` (no markdown ends a group);
 * - `.gitbook.yaml` names the first page and the summary; `.gitbook/assets/<name>` holds files,
 *   `.gitbook/includes/<id>.md` reusable contents (front matter `title`), `.gitbook/vars.yaml`
 *   the variables;
 * - each page's markdown is the platform's normalized markdown (front matter, `# Title`, body),
 *   its links relative to its own file.
 * Reading accepts the same, and what people write by hand: `.gitbook.yaml` `root` and
 * `structure`, a summary titled `# Summary`, no summary at all (the tree is then the folders:
 * `README.md` first, then files and folders by name), `README.md` as the first page.
 */

export const ASSETS_DIR = '.gitbook/assets';
export const INCLUDES_DIR = '.gitbook/includes';
export const VARS_FILE = '.gitbook/vars.yaml';
const END_GROUP = '<!-- endgroup -->';

/** A file of the repository as read: its bytes and its blob id. */
export interface RepoFile {
  bytes: Buffer;
  oid: string;
}

// --- Writing ---------------------------------------------------------------------------------

/**
 * What an export owns in the project directory: markdown files, `.gitbook.yaml` and `.gitbook/`
 * folders. An export replaces them all; anything else in the repository is kept.
 */
export function isExportedPath(path: string): boolean {
  return (
    path.endsWith('.md') ||
    posix.basename(path) === '.gitbook.yaml' ||
    path.split('/').slice(0, -1).includes('.gitbook')
  );
}

/**
 * Everything the export writes, by path relative to the project directory, one file at a time:
 * the caller hands each on (to git) before the next is made, so a large space is never held
 * whole, in files or in memory.
 */
export function* contentFiles(
  content: RevisionContent,
  read: { document(id: string): JSONDocument | undefined; file(file: ContentFile): Buffer },
): Generator<[path: string, bytes: Buffer]> {
  const text = (path: string, value: string): [string, Buffer] => [path, Buffer.from(value, 'utf8')];
  const index = pageIndex(content);
  const empty: JSONDocument = { object: 'document', data: {}, nodes: [] };
  const fileOf = pageFiles(index);

  for (const placed of index.ordered) {
    if (placed.page.type !== 'document') continue;
    const document = (placed.page.documentId && read.document(placed.page.documentId)) || empty;
    const refs = relativeRefs(index, content, placed, fileOf);
    yield text(
      fileOf(placed),
      documentToMarkdown(document, { title: placed.page.title, frontMatter: pageFrontMatter(placed.page, refs), refs }),
    );
  }
  for (const file of content.files) yield [`${ASSETS_DIR}/${file.name}`, read.file(file)];
  for (const item of content.reusableContents) {
    const document = (item.documentId && read.document(item.documentId)) || empty;
    // Written relative to the include's own file.
    const from: PlacedPage = {
      page: { id: item.id, type: 'document', title: item.title, pages: [] },
      path: `${INCLUDES_DIR}/${item.id}`,
      parent: undefined,
    };
    const includeFile = (placed: PlacedPage) => (placed === from ? `${INCLUDES_DIR}/${item.id}.md` : fileOf(placed));
    yield text(
      `${INCLUDES_DIR}/${item.id}.md`,
      documentToMarkdown(document, {
        frontMatter: { title: item.title },
        refs: relativeRefs(index, content, from, includeFile),
      }),
    );
  }
  if (Object.keys(content.variables).length) yield text(VARS_FILE, stringifyYaml(content.variables));
  yield text('SUMMARY.md', summaryOf(content, index, fileOf));
  const landing = index.landing ? fileOf(index.landing) : 'README.md';
  yield text('.gitbook.yaml', stringifyYaml({ root: './', structure: { readme: landing, summary: 'SUMMARY.md' } }));
}

/**
 * The file of each document page: where it was in the repository it was imported from (so a
 * hand-written repository keeps its files, `README.md` included), else its place in the tree.
 */
function pageFiles(index: ReturnType<typeof pageIndex>): (placed: PlacedPage) => string {
  const files = new Map<string, string>();
  const taken = new Set<string>();
  for (const placed of index.ordered) {
    if (placed.page.type !== 'document') continue;
    const kept = placed.page.git?.path;
    const file =
      kept?.endsWith('.md') && !kept.startsWith('.gitbook/') && !taken.has(kept.toLowerCase())
        ? kept
        : pageFile(placed);
    files.set(placed.page.id, file);
    taken.add(file.toLowerCase());
  }
  return (placed) => files.get(placed.page.id) ?? pageFile(placed);
}

/** The navigation file of a content. */
function summaryOf(
  content: RevisionContent,
  index: ReturnType<typeof pageIndex>,
  fileOf: (placed: PlacedPage) => string,
): string {
  const lines = ['# Table of contents', ''];
  const label = (text: string) => text.replace(/([\\[\]])/g, '\\$1');
  const bullet = (page: ContentPage, depth: number) => {
    const placed = index.byId.get(page.id)!;
    const indent = '  '.repeat(depth);
    if (page.type === 'document') {
      const title = page.linkTitle ? ` "${page.linkTitle.replace(/"/g, '\\"')}"` : '';
      lines.push(`${indent}* [${label(page.title)}](${encodeURI(fileOf(placed))}${title})`);
    } else if (page.type === 'link') {
      const target = linkTarget(page, index, fileOf);
      if (target) lines.push(`${indent}* [${label(page.title)}](${target})`);
    }
    // Computed pages are generated from their source: they have no file and no bullet.
    if (page.type === 'document') for (const child of page.pages) bullet(child, depth + 1);
  };
  let inGroup = false;
  for (const page of content.pages) {
    if (page.type === 'group') {
      const slug = page.slug ?? slugify(page.title);
      lines.push('', `## ${page.title} <a href="#${slug}" id="${slug}"></a>`, '');
      for (const child of page.pages) bullet(child, 0);
      inGroup = true;
      continue;
    }
    if (inGroup) {
      lines.push('', END_GROUP, '');
      inGroup = false;
    }
    bullet(page, 0);
  }
  return `${lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()}\n`;
}

/** Where a link page points, as a summary link: a URL, or the file of a page of the content. */
function linkTarget(
  page: ContentPage,
  index: ReturnType<typeof pageIndex>,
  fileOf: (placed: PlacedPage) => string,
): string | undefined {
  if (page.href) return page.href;
  const target = page.target as ContentRef | undefined;
  if (!target) return undefined;
  if (target.kind === 'url' && typeof target.url === 'string') return target.url;
  if (target.kind === 'page' && typeof target.page === 'string' && target.space === undefined) {
    const placed = index.byId.get(target.page);
    if (placed) return encodeURI(fileOf(placed));
  }
  return stableRefs.toHref(target);
}

// --- Reading ---------------------------------------------------------------------------------

/** Why a repository cannot be imported: reported as the operation's error. */
export class LayoutError extends Error {
  override readonly name = 'LayoutError';
}

/** Reads the markdown of a file; markdown the converter refuses fails the import, naming the file. */
function readingFile<T>(file: string | undefined, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new LayoutError(
      `${file ?? 'a file'}: ${error instanceof RangeError ? 'markdown nested too deeply' : (error as Error).message}`,
    );
  }
}

/** Converts the markdown of a file into a document (`readingFile`'s errors). */
function markdownToDocument(markdown: string, options?: Parameters<typeof convert>[1], file?: string) {
  return readingFile(file, () => convert(markdown, options));
}

/** The title and front matter of a file's markdown, without converting its body (`readingFile`'s errors). */
function headOf(markdown: string, file: string) {
  return readingFile(file, () => markdownMetadata(markdown));
}

interface GitbookConfig {
  root: string;
  readme: string;
  summary: string;
}

/** Reads `.gitbook.yaml` (paths made relative to the project directory). */
export function readConfig(files: ReadonlyMap<string, RepoFile>): GitbookConfig {
  const file = files.get('.gitbook.yaml') ?? files.get('.gitbook.yml');
  let config: unknown = {};
  if (file) {
    try {
      config = parseYaml(file.bytes.toString('utf8')) ?? {};
    } catch (error) {
      throw new LayoutError(`.gitbook.yaml is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config))
    throw new LayoutError('.gitbook.yaml must be a map of settings');
  const { root = './', structure = {} } = config as { root?: unknown; structure?: unknown };
  if (typeof root !== 'string') throw new LayoutError('.gitbook.yaml: root must be a path');
  if (typeof structure !== 'object' || structure === null)
    throw new LayoutError('.gitbook.yaml: structure must be a map');
  const { readme = 'README.md', summary = 'SUMMARY.md' } = structure as { readme?: unknown; summary?: unknown };
  if (typeof readme !== 'string' || typeof summary !== 'string')
    throw new LayoutError('.gitbook.yaml: structure.readme and structure.summary must be paths');
  const base = inside('', root, 'root');
  return {
    root: base,
    readme: inside(base, readme, 'structure.readme'),
    summary: inside(base, summary, 'structure.summary'),
  };
}

/** `path` relative to `base`, normalized, refused when it leaves the project directory. */
function inside(base: string, path: string, what: string): string {
  const joined = posix
    .normalize(posix.join(base, path.replace(/^\/+/, '')))
    .replace(/^\.\//, '')
    .replace(/\/$/, '');
  if (joined === '..' || joined.startsWith('../'))
    throw new LayoutError(`.gitbook.yaml: ${what} leaves the project directory`);
  return joined === '.' ? '' : joined;
}

/** What the import reads into a revision's content. */
export interface ImportedContent {
  content: RevisionContent;
  /** Documents to store, by the id of the page or reusable content they belong to. */
  documents: Map<string, JSONDocument>;
}

/** A page of the tree being read, before its document is converted. */
interface Pending {
  page: ContentPage;
  file?: string;
  /** The file's front matter, as read for the page's metadata. */
  front?: Record<string, unknown>;
}

const MIME: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
  csv: 'text/csv',
  txt: 'text/plain',
  json: 'application/json',
  zip: 'application/zip',
  mp4: 'video/mp4',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  md: 'text/markdown',
  html: 'text/html',
};
const mimeOf = (name: string) => MIME[posix.extname(name).slice(1).toLowerCase()] ?? 'application/octet-stream';

/**
 * Reads the files of a project directory into content. `previous` is the space's content: pages,
 * files and reusable contents found at the same Git path keep their ids (and unchanged blocks
 * their keys), so a re-import changes only what changed. Markdown is converted file by file,
 * awaiting `pause` between files (`timeSlices` of slices.ts), so that requests run meanwhile.
 */
export async function filesToContent(
  files: ReadonlyMap<string, RepoFile>,
  previous: RevisionContent,
  previousDocument: (id: string) => JSONDocument | undefined,
  pause: () => Promise<void> = async () => undefined,
): Promise<ImportedContent> {
  const config = readConfig(files);
  const under = (path: string) => (config.root ? `${config.root}/${path}` : path);
  const text = (path: string) => files.get(path)?.bytes.toString('utf8');
  const byGitPath = new Map<string, { id: string; documentId?: string | undefined }>();
  const walk = (pages: readonly ContentPage[]) => {
    for (const page of pages) {
      if (page.git?.path) byGitPath.set(page.git.path, page);
      walk(page.pages);
    }
  };
  walk(previous.pages);
  const used = new Set<string>();
  const idFor = (path: string | undefined) => {
    const known = path ? byGitPath.get(path)?.id : undefined;
    const id = known && !used.has(known) ? known : newId();
    used.add(id);
    return id;
  };

  // Files and reusable contents first: pages link to them.
  const contentFiles: ContentFile[] = [];
  const filesByPath = new Map<string, string>();
  const assetsDir = under(ASSETS_DIR);
  for (const [path, file] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!path.startsWith(`${assetsDir}/`)) continue;
    const name = path.slice(assetsDir.length + 1);
    const known = previous.files.find((item) => item.git?.path === path);
    const id = known?.id ?? newId();
    filesByPath.set(path, id);
    contentFiles.push({
      id,
      name,
      contentType: known?.name === name ? known.contentType : mimeOf(name),
      size: file.bytes.length,
      hash: '',
      git: { oid: file.oid, path },
    });
  }
  const reusables: ContentReusable[] = [];
  const reusableByPath = new Map<string, string>();
  const includesDir = under(INCLUDES_DIR);
  const documents = new Map<string, JSONDocument>();
  const pendingReusable: Array<{ id: string; path: string; markdown: string }> = [];
  for (const [path, file] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!path.startsWith(`${includesDir}/`) || !path.endsWith('.md')) continue;
    const base = posix.basename(path, '.md');
    const known = previous.reusableContents.find((item) => item.git?.path === path);
    const id =
      known?.id ??
      (/^[A-Za-z0-9_-]{1,100}$/.test(base) && !reusables.some((item) => item.id === base) ? base : newId());
    const markdown = file.bytes.toString('utf8');
    const { frontMatter } = headOf(markdown, path);
    await pause();
    reusables.push({
      id,
      title: typeof frontMatter.title === 'string' ? frontMatter.title : base,
      git: { oid: file.oid, path },
    });
    reusableByPath.set(path, id);
    pendingReusable.push({ id, path, markdown });
  }

  // Titles and front matter of the markdown files, read before the tree is built (its pages need
  // them), file by file. A file that cannot be read fails the import only if a page uses it.
  const heads = new Map<string, { title?: string; frontMatter: Record<string, unknown> }>();
  for (const [path, file] of files) {
    if (!path.endsWith('.md') || path === config.summary || path.split('/').includes('.gitbook')) continue;
    try {
      // Only what the tree needs: the documents are converted later, with their links.
      heads.set(path, headOf(file.bytes.toString('utf8'), path));
    } catch (error) {
      if (!(error instanceof LayoutError)) throw error;
    }
    await pause();
  }

  // The tree: from the summary, or from the folders.
  const pending: Pending[] = [];
  const pagesByFile = new Map<string, string>();
  const makePage = (
    file: string | undefined,
    linkText: string,
    linkTitle: string | undefined,
    siblings: readonly ContentPage[],
  ): ContentPage => {
    const markdown = file ? text(file) : undefined;
    const read = file && markdown !== undefined ? (heads.get(file) ?? headOf(markdown, file)) : undefined;
    const title =
      read?.title ||
      (typeof read?.frontMatter.title === 'string' ? read.frontMatter.title : '') ||
      linkText ||
      'Untitled';
    const base = file
      ? posix.basename(file).toLowerCase() === 'readme.md'
        ? posix.basename(posix.dirname(file))
        : posix.basename(file, '.md')
      : '';
    let slug =
      base && base !== '.' && !(file && file === config.readme && posix.basename(file).toLowerCase() === 'readme.md')
        ? base
        : slugify(title) || 'page';
    for (let n = 2; siblings.some((page) => page.slug === slug); n += 1) slug = `${base || slugify(title)}-${n}`;
    const page: ContentPage = { id: idFor(file), type: 'document', title, slug, pages: [] };
    if (linkTitle) page.linkTitle = linkTitle;
    if (read) Object.assign(page, frontMatterFields(read.frontMatter));
    if (file) {
      page.git = { oid: files.get(file)?.oid ?? '', path: file };
      pagesByFile.set(file, page.id);
    }
    pending.push(file ? { page, file, ...(read ? { front: read.frontMatter } : {}) } : { page });
    return page;
  };

  const summary = text(config.summary);
  const pages: ContentPage[] =
    summary !== undefined
      ? treeFromSummary(await readSummary(summary, config), config, files, makePage)
      : treeFromFolders(config, files, makePage);

  // Documents, once every page has its id: links resolve to the pages, files and includes read.
  const resolverFor = (file: string): RefResolver => ({
    toHref: (ref) => stableRefs.toHref(ref),
    fromHref(href) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('#'))
        return stableRefs.fromHref(href);
      const [rawPath = '', anchor] = href.split('#', 2);
      let target: string;
      try {
        target = posix.normalize(posix.join(posix.dirname(file), decodeURI(rawPath)));
      } catch {
        return stableRefs.fromHref(href);
      }
      const page =
        pagesByFile.get(target) ??
        pagesByFile.get(`${target}/README.md`) ??
        pagesByFile.get(`${target}.md`) ??
        pagesByFile.get(target.replace(/\.md$/, '/README.md'));
      if (page) return anchor ? { kind: 'anchor', anchor, page } : { kind: 'page', page };
      const fileId = filesByPath.get(target);
      if (fileId) return { kind: 'file', file: fileId };
      const reusable = reusableByPath.get(target);
      if (reusable) return { kind: 'reusable-content', reusableContent: reusable };
      return stableRefs.fromHref(href);
    },
  });
  for (const { page, file, front } of pending) {
    if (!file) continue;
    if (front) Object.assign(page, layoutAndCover(front, resolverFor(file)));
    const before = byGitPath.get(file)?.documentId;
    const previousDoc = before ? previousDocument(before) : undefined;
    const { document } = markdownToDocument(
      text(file) ?? '',
      { refs: resolverFor(file), ...(previousDoc ? { previous: previousDoc } : {}) },
      file,
    );
    if (document.nodes.length) documents.set(page.id, document);
    await pause();
  }
  for (const item of pendingReusable) {
    const { document } = markdownToDocument(item.markdown, { refs: resolverFor(item.path) }, item.path);
    if (document.nodes.length) documents.set(item.id, document);
    await pause();
  }

  const varsFile = text(under(VARS_FILE));
  let variables: Variables = {};
  if (varsFile !== undefined) {
    let parsed: unknown;
    try {
      parsed = parseYaml(varsFile) ?? {};
    } catch (error) {
      throw new LayoutError(`${VARS_FILE} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new LayoutError(`${VARS_FILE} must be a map of names to values`);
    variables = Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string | number | boolean] =>
        ['string', 'number', 'boolean'].includes(typeof entry[1]),
      ),
    );
  }
  return { content: { pages, files: contentFiles, reusableContents: reusables, variables }, documents };
}

type MakePage = (
  file: string | undefined,
  linkText: string,
  linkTitle: string | undefined,
  siblings: readonly ContentPage[],
) => ContentPage;

/** The tree a summary describes. */
/**
 * The tree of a summary, parsed in the platform's task worker (a summary of thousands of pages
 * takes a parse of half a second) and within the budgets of a page's markdown: a repository's
 * summary is a caller's input too.
 */
async function readSummary(summary: string, config: GitbookConfig): Promise<Root> {
  try {
    return await parseMarkdownOffThread(summary);
  } catch (error) {
    if (error instanceof ContentLimitError) throw new LayoutError(`${config.summary}: ${error.message}`);
    throw error;
  }
}

function treeFromSummary(
  root: Root,
  config: GitbookConfig,
  files: ReadonlyMap<string, RepoFile>,
  makePage: MakePage,
): ContentPage[] {
  const top: ContentPage[] = [];
  let group: ContentPage | undefined;
  const summaryDir = posix.dirname(config.summary) === '.' ? '' : posix.dirname(config.summary);
  const listed = new Set<string>();

  const readList = (list: List, into: ContentPage[]) => {
    for (const item of list.children as ListItem[]) {
      const paragraph = item.children.find((child) => child.type === 'paragraph');
      const link =
        paragraph?.type === 'paragraph' ? paragraph.children.find((child) => child.type === 'link') : undefined;
      if (link?.type !== 'link') continue;
      const linkText = link.children
        .map((child) => ('value' in child ? child.value : ''))
        .join('')
        .trim();
      let page: ContentPage;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link.url)) {
        page = {
          id: newId(),
          type: 'link',
          title: linkText || link.url,
          href: link.url,
          target: { kind: 'url', url: link.url },
          pages: [],
        };
      } else {
        let file: string;
        try {
          file = posix.normalize(posix.join(summaryDir, decodeURI(link.url.split('#')[0]!)));
        } catch {
          continue;
        }
        if (file.startsWith('../') || listed.has(file)) continue;
        listed.add(file);
        page = makePage(files.has(file) ? file : undefined, linkText, link.title ?? undefined, into);
      }
      into.push(page);
      const nested = item.children.find((child) => child.type === 'list');
      if (nested?.type === 'list' && page.type === 'document') readList(nested, page.pages);
    }
  };

  for (const node of root.children as RootContent[]) {
    if (node.type === 'heading' && (node as Heading).depth === 2) {
      const heading = node as Heading;
      const title = heading.children
        .map((child) => (child.type === 'text' ? child.value : ''))
        .join('')
        .trim();
      const anchor = heading.children.map((child) => (child.type === 'html' ? child.value : '')).join('');
      const slug = /id="([^"]+)"/.exec(anchor)?.[1] ?? slugify(title);
      group = { id: newId(), type: 'group', title: title || 'Group', slug, pages: [] };
      top.push(group);
    } else if (node.type === 'html' && node.value.trim() === END_GROUP) {
      group = undefined;
    } else if (node.type === 'list') {
      readList(node, group ? group.pages : top);
    }
  }
  return top;
}

/** The tree the folders describe, without a summary: the first page, then files and folders by name. */
function treeFromFolders(
  config: GitbookConfig,
  files: ReadonlyMap<string, RepoFile>,
  makePage: MakePage,
): ContentPage[] {
  const markdown = [...files.keys()].filter(
    (path) =>
      path.endsWith('.md') &&
      (config.root === '' || path.startsWith(`${config.root}/`)) &&
      !path.includes('.gitbook/') &&
      path !== config.summary,
  );
  const build = (dir: string, into: ContentPage[]) => {
    const prefix = dir ? `${dir}/` : '';
    const here = markdown.filter(
      (path) =>
        path.startsWith(prefix) &&
        !path.slice(prefix.length).includes('/') &&
        posix.basename(path).toLowerCase() !== 'readme.md',
    );
    const dirs = [
      ...new Set(
        markdown
          .filter((path) => path.startsWith(prefix) && path.slice(prefix.length).includes('/'))
          .map((path) => path.slice(prefix.length).split('/')[0]!),
      ),
    ];
    const entries = [
      ...here.map((path) => ({ name: posix.basename(path, '.md'), path, dir: false })),
      ...dirs.map((name) => ({ name, path: `${prefix}${name}`, dir: true })),
    ].sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      if (!entry.dir) {
        into.push(makePage(entry.path, entry.name, undefined, into));
        continue;
      }
      const readme = markdown.find((path) => path.toLowerCase() === `${entry.path}/readme.md`);
      if (readme) {
        const page = makePage(readme, entry.name, undefined, into);
        into.push(page);
        build(entry.path, page.pages);
      } else {
        build(entry.path, into);
      }
    }
  };
  const top: ContentPage[] = [];
  if (files.has(config.readme)) top.push(makePage(config.readme, 'Introduction', undefined, top));
  build(config.root, top);
  return top;
}

/** Page metadata from front matter (unknown keys ignored; values of the wrong type too). */
function frontMatterFields(front: Record<string, unknown>): Partial<ContentPage> {
  const fields: Partial<ContentPage> = {};
  if (typeof front.description === 'string') fields.description = front.description.trim();
  if (typeof front.icon === 'string') fields.icon = front.icon;
  if (typeof front.emoji === 'string') fields.emoji = front.emoji;
  for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const)
    if (typeof front[key] === 'boolean') fields[key] = front[key] as boolean;
  if (typeof front.if === 'string' && front.if.trim()) fields.condition = front.if.trim();
  if (front.vars && typeof front.vars === 'object' && !Array.isArray(front.vars)) {
    fields.variables = Object.fromEntries(
      Object.entries(front.vars as Record<string, unknown>).filter(
        (entry): entry is [string, string | number | boolean] =>
          ['string', 'number', 'boolean'].includes(typeof entry[1]),
      ),
    );
  }
  return fields;
}
