import { posix } from 'node:path';
import { z } from 'zod';
import { badRequest, newId, overContentLimit } from '../http.js';
import { conditionSchema, emojiSchema } from '../schemas.js';
import type { Db } from '../store/db.js';
import {
  ContentLimitError,
  DocumentValidationError,
  parseDocumentInput,
  slugify,
  type Block,
  type ContentRef,
  type DocumentNode,
  type JSONDocument,
} from '../../document/model.js';
import { storeFile } from '../content/files.js';
import { markdownMetadata, markdownToDocument, stableRefs, type RefResolver } from '../../document/markdown.js';
import { parseMarkdownOffThread } from '../content/markdown-parser.js';
import type { Root } from 'mdast';
import { pageFile, relativeRefs } from '../content/page-markdown.js';
import { pageIndex, type PageIndex, type PlacedPage } from '../content/pages.js';
import {
  getDocument,
  loadRevision,
  putDocument,
  storeRevision,
  validDocument,
  type ContentFile,
  type ContentPage,
  type RevisionContent,
  type Variables,
} from '../content/revisions.js';
import { baseRevision, recordContribution, updateChangeRequest, type ChangeRequestRow } from './store.js';
import { fetchUrl, OutboundError } from '../outbound.js';
import { ExpressionError, parseExpression } from '../adaptive/expression.js';

/**
 * Content edits of a change request: a batch of 1–50 changes (`insert_page`, `update_page`,
 * `delete_page`, `revert_page`, `insert_files`) applied in order to the request's content, all or
 * nothing. Markdown goes through the converter: its front matter and leading heading set the
 * page's metadata and title, its links resolve against the page tree the batch produces (page
 * ids, slug paths, Git file paths, relative paths, and the `ref`s of pages and files inserted in
 * the same batch); a link that resolves to nothing is kept as plain text. A page updated with
 * markdown keeps the keys of the blocks the edit left alone, so such edits merge block by block.
 */

/** Largest file inserted, as base64 (decoded) or fetched. */
export const MAX_FILE_BYTES = 1024 * 1024;
/** Most files one batch inserts, and their weight together. */
export const MAX_BATCH_FILES = 20;
export const MAX_BATCH_FILE_BYTES = 10 * 1024 * 1024;
/** Files fetched at the same time, and the time all the fetches of a batch may take. */
const FETCH_CONCURRENCY = 4;
const BATCH_FETCH_DEADLINE_MS = 30_000;

const slugSchema = z
  .string()
  .max(100, 'must be at most 100 characters')
  .regex(/^[^/\s?#]+$/, 'must be one path segment without spaces, "/", "?" or "#"')
  .refine((slug) => slug !== '.' && slug !== '..', 'must not be "." or ".."');

const documentInput = z.union(
  [
    // Their budgets (MARKDOWN_LIMITS, DOCUMENT_LIMITS) are checked as they are read: 413 naming the budget.
    z.strictObject({ markdown: z.string() }),
    z.strictObject({ document: z.unknown() }),
    z.strictObject({}),
  ],
  { message: 'must be { markdown }, { document } or {}' },
);

const pageFields = {
  title: z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
  slug: slugSchema.optional(),
  emoji: z.union([z.literal(''), emojiSchema]).optional(),
  icon: z.string().max(50, 'must be at most 50 characters').optional(),
  description: z.string().max(1024, 'must be at most 1024 characters').optional(),
  hidden: z.boolean().optional(),
  noIndex: z.boolean().optional(),
  noRobotsIndex: z.boolean().optional(),
  condition: conditionSchema.optional(),
};

const at = z.number().int('must be a whole number').min(0, 'must be at least 0');

const fileInput = z
  .strictObject({
    name: z
      .string()
      .min(1, 'must not be empty')
      .max(256, 'must be at most 256 characters')
      .refine((name) => !name.includes('/'), 'must not contain "/"'),
    ref: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
    contentType: z
      .string()
      .regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as image/png')
      .optional(),
    url: z.string().max(2048, 'must be at most 2048 characters').optional(),
    base64: z.string().optional(),
  })
  .superRefine((file, context) => {
    if ((file.url === undefined) === (file.base64 === undefined)) {
      context.addIssue({ code: 'custom', message: 'must set exactly one of url and base64', path: ['url'] });
    }
    if (file.base64 !== undefined && file.contentType === undefined) {
      context.addIssue({ code: 'custom', message: 'is required with base64', path: ['contentType'] });
    }
  });

export const contentChangeSchema = z.discriminatedUnion(
  'operation',
  [
    z.strictObject({
      operation: z.literal('insert_page'),
      ...pageFields,
      into: z.string().min(1).optional(),
      at: at.optional(),
      ref: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
      document: documentInput,
    }),
    z.strictObject({
      operation: z.literal('update_page'),
      ...pageFields,
      page: z.string().min(1, 'must not be empty'),
      document: documentInput.optional(),
      into: z.string().min(1).nullable().optional(),
      at: at.optional(),
    }),
    z.strictObject({ operation: z.literal('delete_page'), page: z.string().min(1, 'must not be empty') }),
    z.strictObject({
      operation: z.literal('revert_page'),
      page: z.string().min(1, 'must not be empty'),
      revision: z.string().min(1).optional(),
      block: z
        .array(z.string().min(1))
        .min(1, 'must list at least one block key')
        .max(1000, 'must list at most 1000 blocks')
        .optional(),
    }),
    z.strictObject({
      operation: z.literal('insert_files'),
      files: z.array(fileInput).min(1, 'must list at least one file').max(20, 'must list at most 20 files'),
    }),
  ],
  { message: 'must be insert_page, update_page, delete_page, revert_page or insert_files' },
);

export const contentChangesBody = z.strictObject({
  changes: z.array(contentChangeSchema).min(1, 'must list at least one change').max(50, 'must list at most 50 changes'),
});

export type ContentChange = z.infer<typeof contentChangeSchema>;
type FileInput = z.infer<typeof fileInput>;

/** What a batch did to one page, in the order pages were first touched. */
export type PageOutcome =
  | { object: 'created_page'; ref?: string; page: string }
  | { object: 'updated_page'; page: string }
  | { object: 'deleted_page'; page: string };

export interface EditResult {
  content: RevisionContent;
  outcomes: PageOutcome[];
  insertedFiles: ContentFile[];
}

/** A file's bytes, fetched or decoded before the batch is applied (network work stays out of the transaction). */
export interface PreparedFile {
  input: FileInput;
  bytes: Buffer;
  contentType: string;
}

const invalid = (field: string, reason: string) => badRequest(`Invalid body field "${field}": ${reason}`);

/**
 * Reads the bytes of every file of the batch's `insert_files` changes: base64 decoded, URLs
 * fetched (private targets only when `allowPrivate`). A file that cannot be read rejects the
 * batch, naming it.
 */
export async function prepareFiles(
  changes: readonly ContentChange[],
  allowPrivate: boolean,
): Promise<Map<FileInput, PreparedFile>> {
  const prepared = new Map<FileInput, PreparedFile>();
  const all = changes.flatMap((change, c) =>
    change.operation === 'insert_files'
      ? change.files.map((file, f) => ({ file, field: `changes.${c}.files.${f}` }))
      : [],
  );
  if (all.length > MAX_BATCH_FILES)
    throw badRequest(
      `Invalid body field "changes": a batch may insert at most ${MAX_BATCH_FILES} files, this one inserts ${all.length}`,
    );
  let total = 0;
  const count = (bytes: Buffer, field: string) => {
    total += bytes.length;
    if (total > MAX_BATCH_FILE_BYTES)
      throw invalid(field, `the files of a batch may weigh at most ${MAX_BATCH_FILE_BYTES} bytes together`);
  };
  for (const { file, field } of all) {
    if (file.base64 === undefined) continue;
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(file.base64.replace(/\s+/g, '')))
      throw invalid(`${field}.base64`, 'is not base64');
    const bytes = Buffer.from(file.base64, 'base64');
    if (bytes.length > MAX_FILE_BYTES)
      throw invalid(`${field}.base64`, `must decode to at most ${MAX_FILE_BYTES} bytes`);
    count(bytes, `${field}.base64`);
    prepared.set(file, { input: file, bytes, contentType: file.contentType! });
  }
  // URLs a few at a time, within one deadline for the batch.
  const deadline = Date.now() + BATCH_FETCH_DEADLINE_MS;
  const byUrl = all.filter(({ file }) => file.url !== undefined);
  for (let start = 0; start < byUrl.length; start += FETCH_CONCURRENCY) {
    const slice = byUrl.slice(start, start + FETCH_CONCURRENCY);
    const fetched = await Promise.allSettled(
      slice.map(({ file }) =>
        fetchUrl(file.url!, {
          allowPrivate,
          maxBytes: MAX_FILE_BYTES,
          timeoutMs: Math.max(1, Math.min(10_000, deadline - Date.now())),
        }),
      ),
    );
    fetched.forEach((outcome, index) => {
      const { file, field } = slice[index]!;
      if (outcome.status === 'rejected') {
        if (outcome.reason instanceof OutboundError) throw invalid(`${field}.url`, outcome.reason.message);
        throw outcome.reason;
      }
      count(outcome.value.bytes, `${field}.url`);
      prepared.set(file, {
        input: file,
        bytes: outcome.value.bytes,
        contentType: file.contentType ?? outcome.value.contentType ?? 'application/octet-stream',
      });
    });
  }
  return prepared;
}

/**
 * The markdown of a batch parsed ahead, by the `document` object of its change. Applying the
 * batch takes each tree out as it converts it: a large page's tree is garbage as soon as its
 * document is read, not once the whole batch is stored.
 */
export type PreparedMarkdown = Map<object, Root>;

/**
 * Parses the markdown of every change of the batch in the parse worker, before the batch is
 * applied (the parse is what takes time; the conversion that follows needs the final page tree
 * and stays in the transaction). Markdown over a budget rejects the batch with a 413 naming it.
 */
export async function prepareMarkdown(changes: readonly ContentChange[]): Promise<PreparedMarkdown> {
  const trees = new Map<object, Root>();
  for (const [c, change] of changes.entries()) {
    if (
      (change.operation !== 'insert_page' && change.operation !== 'update_page') ||
      !change.document ||
      !('markdown' in change.document)
    )
      continue;
    const document = change.document;
    const field = `changes.${c}.document.markdown`;
    trees.set(
      document,
      await parseMarkdownOffThread(document.markdown).catch((error: unknown) =>
        Promise.reject(readingError(error, field)),
      ),
    );
  }
  return trees;
}

/** A mutable page while the batch is applied. */
interface WorkPage extends Omit<ContentPage, 'pages'> {
  pages: WorkPage[];
}

/** A document to convert once the tree is final. */
type PendingDocument =
  | { kind: 'markdown'; markdown: string; field: string; previous: string | undefined; tree: Root | undefined }
  | { kind: 'json'; document: unknown; field: string }
  | { kind: 'empty' };

const clonePage = (page: ContentPage): WorkPage => ({ ...page, pages: page.pages.map(clonePage) });

/** The metadata a page's markdown front matter sets (unknown keys are ignored, wrong types refused). */
function frontMatterFields(front: Record<string, unknown>, field: string): Partial<WorkPage> {
  const fields: Partial<WorkPage> = {};
  const text = (key: string, max: number) => {
    const value = front[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.length > max)
      throw invalid(field, `front matter "${key}" must be text of at most ${max} characters`);
    return value;
  };
  const flag = (key: string) => {
    const value = front[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') throw invalid(field, `front matter "${key}" must be true or false`);
    return value;
  };
  const description = text('description', 1024);
  if (description !== undefined) fields.description = description.trim();
  const icon = text('icon', 50);
  if (icon !== undefined) fields.icon = icon;
  for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const) {
    const value = flag(key);
    if (value !== undefined) fields[key] = value;
  }
  const condition = text('if', 1024);
  if (condition?.trim()) {
    try {
      parseExpression(condition);
    } catch (error) {
      if (error instanceof ExpressionError)
        throw invalid(field, `front matter "if" is not a condition the platform can evaluate: ${error.message}`);
      throw error;
    }
    fields.condition = condition.trim();
  }
  if (front.vars !== undefined) {
    const vars = front.vars;
    if (vars === null || typeof vars !== 'object' || Array.isArray(vars))
      throw invalid(field, 'front matter "vars" must be a map of names to values');
    const variables: Variables = {};
    for (const [name, value] of Object.entries(vars)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw invalid(field, `front matter "vars.${name}" must be text, a number or a boolean`);
      }
      variables[name] = value;
    }
    fields.variables = variables;
  }
  return fields;
}

const UNRESOLVED = '\u0000unresolved:';

/**
 * Resolves the hrefs of markdown written in a change request (research §1.6): stable ids,
 * `/pages/<slug path>`, `/pages/<slug>.md` and `/pages/<slug>/README.md` (`/pages/README.md`:
 * the landing page), paths relative to the page's own file, batch `ref`s of pages and files,
 * `/files/<id>`. External URLs stay; anything else is marked unresolved.
 */
function editRefs(
  index: PageIndex,
  content: RevisionContent,
  from: PlacedPage,
  refs: ReadonlyMap<string, ContentRef>,
): RefResolver {
  const relative = relativeRefs(index, content, from);
  const byRef = (name: string) => refs.get(name) ?? refs.get(name.replace(/\.md$/, ''));
  const byPagePath = (path: string): ContentRef | undefined => {
    const direct = index.byId.get(path);
    if (direct) return { kind: 'page', page: direct.page.id };
    if (path === 'README.md' || path === 'README' || path === '')
      return index.landing ? { kind: 'page', page: index.landing.page.id } : undefined;
    const candidates = [path, path.replace(/\.md$/, ''), path.replace(/\/README(\.md)?$/, '')];
    for (const candidate of candidates) {
      const placed = index.byPath.get(candidate);
      if (placed) return { kind: 'page', page: placed.page.id };
    }
    return undefined;
  };
  const withAnchor = (ref: ContentRef | undefined, anchor: string | undefined): ContentRef | undefined =>
    ref && anchor && ref.kind === 'page' ? { kind: 'anchor', anchor, page: ref.page } : ref;
  return {
    toHref: (ref) => stableRefs.toHref(ref),
    fromHref(href) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return { kind: 'url', url: href };
      const [rawPath = '', anchor] = href.split('#', 2);
      let path: string;
      try {
        path = decodeURI(rawPath);
      } catch {
        path = rawPath;
      }
      if (path === '')
        return anchor ? { kind: 'anchor', anchor, page: from.page.id } : { kind: 'url', url: UNRESOLVED + href };
      if (path.startsWith('/pages/')) {
        const found = withAnchor(byPagePath(path.slice('/pages/'.length).replace(/\/+$/, '')), anchor);
        if (found) return found;
        return { kind: 'url', url: UNRESOLVED + href };
      }
      if (path.startsWith('/files/')) {
        const id = path.slice('/files/'.length);
        if (content.files.some((file) => file.id === id)) return { kind: 'file', file: id };
        const batch = byRef(id);
        return batch ?? { kind: 'url', url: UNRESOLVED + href };
      }
      if (path.startsWith('/')) {
        const stable = stableRefs.fromHref(href);
        return stable.kind === 'url' ? { kind: 'url', url: UNRESOLVED + href } : stable;
      }
      // Relative: a batch ref first (`./<ref>` or `./<ref>.md`), then the tree's files and pages.
      const name = posix.normalize(path).replace(/^\.\//, '');
      const batch = withAnchor(byRef(name), anchor);
      if (batch) return batch;
      const ref = relative.fromHref(href);
      if (ref.kind !== 'url') return ref;
      const here = posix.dirname(pageFile(from));
      const folder = posix.normalize(posix.join(here, path)).replace(/\/+$/, '');
      const found = withAnchor(byPagePath(folder), anchor);
      return found ?? { kind: 'url', url: UNRESOLVED + href };
    },
  };
}

/** Replaces links marked unresolved by their text, and unmarks other unresolved references. */
function dropUnresolved(document: JSONDocument): JSONDocument {
  const unresolved = (ref: unknown) => {
    const value = ref as { kind?: string; url?: string } | undefined;
    return value?.kind === 'url' && typeof value.url === 'string' && value.url.startsWith(UNRESOLVED);
  };
  const unresolvedLink = (node: DocumentNode) =>
    node.object === 'inline' && node.type === 'link' && unresolved((node as { data?: { ref?: unknown } }).data?.ref);
  // Arrays are rebuilt only where a link is unwrapped: a large page has thousands of nodes and none to unwrap.
  const visitChildren = (children: DocumentNode[]): DocumentNode[] => {
    let unwrapping = false;
    for (const child of children) {
      if (unresolvedLink(child)) unwrapping = true;
      else visit(child);
    }
    return unwrapping
      ? children.flatMap((child) => (unresolvedLink(child) ? (child as { nodes: DocumentNode[] }).nodes : [child]))
      : children;
  };
  const visit = (node: DocumentNode): void => {
    const data = (node as { data?: { ref?: unknown } }).data;
    if (data && unresolved(data.ref)) {
      const ref = data.ref as { url: string };
      (node as { data: { ref: unknown } }).data = {
        ...data,
        ref: { kind: 'url', url: ref.url.slice(UNRESOLVED.length) },
      };
    }
    if ('nodes' in node && Array.isArray(node.nodes)) {
      const children = visitChildren(node.nodes as DocumentNode[]);
      if (children !== node.nodes) (node as { nodes: DocumentNode[] }).nodes = children;
    }
    if ('fragments' in node && Array.isArray(node.fragments))
      for (const fragment of node.fragments) visit(fragment as DocumentNode);
  };
  document.nodes = visitChildren(document.nodes) as Block[];
  return mergeTexts(document);
}

/** Joins neighbouring text nodes left by unwrapped links. */
function mergeTexts(document: JSONDocument): JSONDocument {
  const visit = (node: DocumentNode) => {
    if (!('nodes' in node) || !Array.isArray(node.nodes)) return;
    const children = node.nodes as DocumentNode[];
    let neighbours = false;
    children.forEach((child, i) => {
      if (i > 0 && child.object === 'text' && children[i - 1]!.object === 'text') neighbours = true;
      visit(child);
    });
    if (!neighbours) return;
    const merged: DocumentNode[] = [];
    for (const child of children) {
      const last = merged.at(-1);
      if (last?.object === 'text' && child.object === 'text') last.leaves = [...last.leaves, ...child.leaves];
      else merged.push(child);
    }
    (node as { nodes: DocumentNode[] }).nodes = merged;
  };
  for (const node of document.nodes) visit(node);
  return document;
}

export interface ApplyOptions {
  db: Db;
  spaceId: string;
  /** The request's content the batch applies to. */
  content: RevisionContent;
  /** Content of a revision of the space by id (for `revert_page`); undefined when there is none. */
  revisionContent(revisionId: string): RevisionContent | undefined;
  /** The revision `revert_page` goes back to without `revision`: the request's base. */
  baseRevision: string;
  /** Files read by `prepareFiles`. */
  files: ReadonlyMap<FileInput, PreparedFile>;
  /** Markdown parsed by `prepareMarkdown`, by the `document` of its change. */
  trees?: PreparedMarkdown;
  at: string;
}

/**
 * Applies a batch to a content and returns the new content (documents and files stored; the
 * caller stores the revision in the same transaction). Throws a 400 naming the change and field
 * of the first invalid change; then nothing the batch did matters (the caller's transaction
 * rolls back the documents and blobs it stored).
 */
export function applyContentChanges(changes: readonly ContentChange[], options: ApplyOptions): EditResult {
  const { db, spaceId } = options;
  const roots: WorkPage[] = options.content.pages.map(clonePage);
  let files: ContentFile[] = [...options.content.files];
  const insertedFiles: ContentFile[] = [];
  const pending = new Map<string, PendingDocument>();
  const outcomes = new Map<string, PageOutcome>();
  const refs = new Map<string, ContentRef>();

  const find = (id: string): { page: WorkPage; siblings: WorkPage[]; parent: WorkPage | undefined } | undefined => {
    const walk = (pages: WorkPage[], parent: WorkPage | undefined): ReturnType<typeof find> => {
      for (const page of pages) {
        if (page.id === id) return { page, siblings: pages, parent };
        const found = walk(page.pages, page);
        if (found) return found;
      }
      return undefined;
    };
    return walk(roots, undefined);
  };
  const requirePage = (id: string, field: string) => {
    const found = find(id);
    if (!found) throw invalid(field, `no page ${id} in the change request`);
    return found;
  };
  const contains = (page: WorkPage, id: string): boolean =>
    page.id === id || page.pages.some((child) => contains(child, id));
  const touch = (id: string, outcome: PageOutcome) => {
    const known = outcomes.get(id);
    if (!known) outcomes.set(id, outcome);
    else if (outcome.object === 'deleted_page')
      outcomes.set(id, known.object === 'created_page' ? { ...outcome } : outcome);
  };
  const uniqueSlug = (siblings: readonly WorkPage[], wanted: string, self?: WorkPage) => {
    const taken = new Set(siblings.filter((page) => page !== self && page.slug !== undefined).map((page) => page.slug));
    let slug = wanted || 'page';
    for (let n = 2; taken.has(slug); n += 1) slug = `${wanted || 'page'}-${n}`;
    return slug;
  };
  const requireFreeSlug = (siblings: readonly WorkPage[], slug: string, self: WorkPage | undefined, field: string) => {
    if (siblings.some((page) => page !== self && page.slug === slug))
      throw invalid(field, `another page next to it already has the slug "${slug}"`);
  };
  const childrenOf = (
    into: string | null | undefined,
    field: string,
  ): { list: WorkPage[]; parent: WorkPage | undefined } => {
    if (into === undefined || into === null) return { list: roots, parent: undefined };
    // Beside page ids, `into` takes the ref of a page the batch inserted before.
    const byRef = refs.get(into);
    const { page } = requirePage(byRef?.kind === 'page' && find(byRef.page) ? byRef.page : into, field);
    if (page.type === 'link' || page.type === 'computed')
      throw invalid(field, `page ${into} is a ${page.type} page and cannot hold pages`);
    return { list: page.pages, parent: page };
  };
  const place = (list: WorkPage[], page: WorkPage, position: number | undefined, field: string) => {
    if (position !== undefined && position > list.length)
      throw invalid(field, `must be at most ${list.length}, the number of pages there`);
    list.splice(position ?? list.length, 0, page);
  };

  // Refs first: a page may link to a page or file the batch inserts later.
  const existingPaths = new Set([...pageIndex(options.content).byPath.keys()]);
  const batchFiles = new Map<FileInput, string>();
  for (const [c, change] of changes.entries()) {
    const claim = (ref: string, target: ContentRef, field: string) => {
      if (refs.has(ref)) throw invalid(field, `ref "${ref}" is used twice in the batch`);
      if (existingPaths.has(ref) || existingPaths.has(ref.replace(/\.md$/, '')))
        throw invalid(field, `ref "${ref}" is the path of an existing page`);
      refs.set(ref, target);
    };
    if (change.operation === 'insert_page' && change.ref !== undefined) {
      const id = newId();
      claim(change.ref, { kind: 'page', page: id }, `changes.${c}.ref`);
      refs.set(`\u0000page:${c}`, { kind: 'page', page: id });
    }
    if (change.operation === 'insert_files') {
      for (const [f, file] of change.files.entries()) {
        const id = newId();
        batchFiles.set(file, id);
        if (file.ref !== undefined) claim(file.ref, { kind: 'file', file: id }, `changes.${c}.files.${f}.ref`);
      }
    }
  }

  /** The title and fields a change's markdown sets (undefined for a change without markdown). */
  const readMarkdownMeta = (input: z.infer<typeof documentInput> | undefined, field: string) => {
    if (!input || !('markdown' in input)) return undefined;
    const { title, frontMatter } = withinLimits(field, () =>
      markdownMetadata(input.markdown, options.trees?.get(input)),
    );
    const fromFront =
      typeof frontMatter.title === 'string' && frontMatter.title.trim() ? frontMatter.title.trim() : undefined;
    return { title: fromFront ?? title, fields: frontMatterFields(frontMatter, field) };
  };

  const takeTree = (input: object) => {
    const tree = options.trees?.get(input);
    options.trees?.delete(input);
    return tree;
  };

  const pendingOf = (
    input: z.infer<typeof documentInput>,
    field: string,
    previous: string | undefined,
  ): PendingDocument => {
    if ('markdown' in input)
      return {
        kind: 'markdown',
        markdown: input.markdown,
        field: `${field}.markdown`,
        previous,
        tree: takeTree(input),
      };
    if ('document' in input) return { kind: 'json', document: input.document, field: `${field}.document` };
    return { kind: 'empty' };
  };

  const applyFields = (
    page: WorkPage,
    change: Extract<ContentChange, { operation: 'insert_page' | 'update_page' }>,
  ) => {
    if (change.emoji !== undefined) page.emoji = change.emoji || undefined;
    if (change.icon !== undefined) page.icon = change.icon || undefined;
    if (change.description !== undefined) page.description = change.description || undefined;
    for (const key of ['hidden', 'noIndex', 'noRobotsIndex'] as const)
      if (change[key] !== undefined) page[key] = change[key];
    // An empty condition removes it.
    if (change.condition !== undefined) page.condition = change.condition.trim() || undefined;
    if (page.condition === undefined) delete page.condition;
  };

  for (const [c, change] of changes.entries()) {
    const base = `changes.${c}`;
    switch (change.operation) {
      case 'insert_page': {
        const { list } = childrenOf(change.into, `${base}.into`);
        const meta = readMarkdownMeta(change.document, `${base}.document.markdown`);
        const title = meta?.title ?? change.title ?? 'Untitled';
        const id = (refs.get(`\u0000page:${c}`) as { page: string } | undefined)?.page ?? newId();
        const page: WorkPage = { id, type: 'document', title, pages: [], createdAt: options.at, updatedAt: options.at };
        applyFields(page, change);
        Object.assign(page, meta?.fields);
        if (change.slug !== undefined) {
          requireFreeSlug(list, change.slug, undefined, `${base}.slug`);
          page.slug = change.slug;
        } else {
          page.slug = uniqueSlug(list, slugify(title));
        }
        place(list, page, change.at, `${base}.at`);
        pending.set(id, pendingOf(change.document, `${base}.document`, undefined));
        touch(id, { object: 'created_page', page: id, ...(change.ref !== undefined ? { ref: change.ref } : {}) });
        break;
      }
      case 'update_page': {
        const found = requirePage(change.page, `${base}.page`);
        const { page } = found;
        let siblings = found.siblings;
        if (change.into !== undefined || change.at !== undefined) {
          const intoRef = typeof change.into === 'string' ? refs.get(change.into) : undefined;
          const intoId = intoRef?.kind === 'page' ? intoRef.page : change.into;
          if (typeof intoId === 'string' && contains(page, intoId)) {
            throw invalid(`${base}.into`, 'cannot move a page into itself or one of its own pages');
          }
          const target = change.into === undefined ? { list: found.siblings } : childrenOf(change.into, `${base}.into`);
          if (page.type === 'group' && change.into) throw invalid(`${base}.into`, 'groups stay at the top level');
          const moving = target.list !== found.siblings;
          const position = change.at ?? (moving ? undefined : found.siblings.indexOf(page));
          found.siblings.splice(found.siblings.indexOf(page), 1);
          if (moving && page.slug !== undefined) page.slug = uniqueSlug(target.list, page.slug, page);
          place(target.list, page, position, `${base}.at`);
          siblings = target.list;
        }
        const meta = readMarkdownMeta(change.document, `${base}.document.markdown`);
        const title = meta?.title ?? change.title;
        if (title !== undefined) page.title = title;
        applyFields(page, change);
        Object.assign(page, meta?.fields);
        if (change.slug !== undefined) {
          if (page.type !== 'document' && page.type !== 'group')
            throw invalid(`${base}.slug`, `a ${page.type} page has no slug`);
          requireFreeSlug(siblings, change.slug, page, `${base}.slug`);
          page.slug = change.slug;
        }
        if (change.document) {
          if (page.type !== 'document')
            throw invalid(`${base}.document`, `page ${page.id} is a ${page.type} page and has no document`);
          const previous = pending.get(page.id);
          // A page rewritten twice in one batch starts from its stored document either way.
          pending.set(
            page.id,
            pendingOf(
              change.document,
              `${base}.document`,
              previous?.kind === 'markdown' ? previous.previous : page.documentId,
            ),
          );
        }
        page.updatedAt = options.at;
        touch(page.id, { object: 'updated_page', page: page.id });
        break;
      }
      case 'delete_page': {
        const { page, siblings } = requirePage(change.page, `${base}.page`);
        siblings.splice(siblings.indexOf(page), 1);
        const forget = (gone: WorkPage) => {
          pending.delete(gone.id);
          touch(gone.id, { object: 'deleted_page', page: gone.id });
          gone.pages.forEach(forget);
        };
        forget(page);
        break;
      }
      case 'revert_page': {
        const revisionId = change.revision ?? options.baseRevision;
        const target = options.revisionContent(revisionId);
        if (!target) throw invalid(`${base}.revision`, `no revision ${revisionId} in the space`);
        const before = pageIndex(target).byId.get(change.page);
        const now = find(change.page);
        if (!before && !now)
          throw invalid(
            `${base}.page`,
            `page ${change.page} is neither in the change request nor in revision ${revisionId}`,
          );
        if (change.block) {
          if (!now || !before)
            throw invalid(`${base}.block`, 'blocks can be reverted only on a page that exists on both sides');
          if (now.page.type !== 'document') throw invalid(`${base}.page`, 'only document pages have blocks');
          const current = currentDocument(db, spaceId, now.page, pending, `${base}.page`);
          const old = before.page.documentId
            ? getDocument<JSONDocument>(db, spaceId, before.page.documentId)
            : undefined;
          const reverted = revertBlocks(
            current,
            old ?? { object: 'document', data: {}, nodes: [] },
            change.block,
            `${base}.block`,
          );
          pending.set(now.page.id, { kind: 'json', document: reverted, field: `${base}.block` });
          now.page.updatedAt = options.at;
          touch(now.page.id, { object: 'updated_page', page: now.page.id });
          break;
        }
        if (!before) {
          // Added since: removed, with its pages.
          now!.siblings.splice(now!.siblings.indexOf(now!.page), 1);
          pending.delete(now!.page.id);
          touch(now!.page.id, { object: 'deleted_page', page: now!.page.id });
          break;
        }
        const { pages: _children, ...fields } = before.page;
        if (now) {
          // Modified: its own properties and document as they were; its pages and place stay.
          const kept = { id: now.page.id, pages: now.page.pages };
          for (const key of Object.keys(now.page)) delete (now.page as unknown as Record<string, unknown>)[key];
          Object.assign(now.page, fields, kept, { updatedAt: options.at });
          // Its old slug may have been taken by a sibling since.
          if (now.page.slug !== undefined) now.page.slug = uniqueSlug(now.siblings, now.page.slug, now.page);
          pending.delete(now.page.id);
          touch(now.page.id, { object: 'updated_page', page: now.page.id });
          break;
        }
        // Deleted since: restored with its pages that are not elsewhere, under its parent if it is still there.
        const restore = (page: ContentPage): WorkPage | undefined =>
          find(page.id)
            ? undefined
            : { ...page, pages: page.pages.map(restore).filter((child): child is WorkPage => child !== undefined) };
        const restored = restore(before.page)!;
        const parent = before.parent ? find(before.parent.page.id) : undefined;
        const list = parent ? parent.page.pages : roots;
        const position = before.parent
          ? before.parent.page.pages.indexOf(before.page)
          : target.pages.indexOf(before.page);
        restored.slug = restored.slug === undefined ? undefined : uniqueSlug(list, restored.slug);
        list.splice(Math.min(position, list.length), 0, restored);
        touch(restored.id, { object: 'created_page', page: restored.id });
        break;
      }
      case 'insert_files': {
        for (const file of change.files) {
          const prepared = options.files.get(file);
          if (!prepared) throw new Error('insert_files: the file was not prepared');
          const stored = storeFile(db, {
            id: batchFiles.get(file)!,
            name: uniqueFileName(files, file.name),
            contentType: prepared.contentType,
            bytes: prepared.bytes,
          });
          files = [...files, stored];
          insertedFiles.push(stored);
        }
        break;
      }
    }
  }

  // The tree is final: documents convert against it (links resolve to where pages now are).
  const freeze = (page: WorkPage): ContentPage => ({ ...page, pages: page.pages.map(freeze) });
  const structure: RevisionContent = { ...options.content, pages: roots.map(freeze), files };
  const index = pageIndex(structure);
  for (const [pageId, document] of pending) {
    const page = find(pageId)!.page;
    if (document.kind === 'empty') {
      delete page.documentId;
      continue;
    }
    let parsed: JSONDocument;
    if (document.kind === 'markdown') {
      const previous = document.previous ? getDocument<JSONDocument>(db, spaceId, document.previous) : undefined;
      const resolver = editRefs(index, structure, index.byId.get(pageId)!, refs);
      const options = {
        refs: resolver,
        ...(previous ? { previous } : {}),
        ...(document.tree ? { tree: document.tree } : {}),
      };
      document.tree = undefined;
      parsed = dropUnresolved(readMarkdown(document.markdown, document.field, options).document);
    } else {
      parsed = readJsonDocument(document.document, document.field);
    }
    // Validated (JSON) or read by the converter (markdown): nothing to validate again.
    page.documentId = parsed.nodes.length ? putDocument(db, spaceId, validDocument(parsed)) : undefined;
    if (!page.documentId) delete page.documentId;
  }

  return {
    content: { ...options.content, pages: roots.map(freeze), files },
    outcomes: [...outcomes.values()],
    insertedFiles,
  };
}

/**
 * Applies a batch to a change request as one new `edits` revision of it, by `authorId` (recorded
 * as a contributor); returns the request after it and what the batch did. Call it inside a
 * transaction: an invalid change throws, and nothing the batch stored must stay.
 */
export function editRequestContent(
  db: Db,
  request: ChangeRequestRow,
  authorId: string,
  changes: readonly ContentChange[],
  files: ReadonlyMap<FileInput, PreparedFile> = new Map(),
  /** Changes the content the batch produced before it is stored (what no content change can say, such as a computed page). */
  adjust?: (content: RevisionContent) => RevisionContent,
  /** The batch's markdown parsed by `prepareMarkdown` (what is missing is parsed here). */
  trees?: PreparedMarkdown,
): { changeRequest: ChangeRequestRow; result: EditResult } {
  const spaceId = request.space_id;
  const current = loadRevision(db, spaceId, request.revision);
  if (!current) throw new Error(`Revision ${request.revision} of change request ${request.id} is missing`);
  const at = new Date().toISOString();
  const result = applyContentChanges(changes, {
    db,
    spaceId,
    content: current.content,
    baseRevision: baseRevision(request),
    revisionContent: (id) => loadRevision(db, spaceId, id)?.content,
    files,
    ...(trees ? { trees } : {}),
    at,
  });
  const content = adjust ? adjust(result.content) : result.content;
  const revision = storeRevision(db, {
    spaceId,
    type: 'edits',
    parents: [request.revision],
    content,
    createdAt: at,
    changeRequest: request.id,
  });
  recordContribution(db, request.id, authorId, 'edit');
  return { changeRequest: updateChangeRequest(db, request, { revision }), result };
}

/**
 * The error to answer for one met reading the content of `field`: content over a budget is a 413
 * (400 when nested too deeply) naming the field and the budget; the stack running out, a 400.
 */
function readingError(error: unknown, field: string): unknown {
  if (error instanceof ContentLimitError)
    return overContentLimit(`Invalid body field "${field}": ${error.message}`, error);
  if (error instanceof RangeError) return invalid(field, 'nested too deeply');
  return error;
}

/** Runs `read` on the content of `field`, answering its errors with `readingError`. */
function withinLimits<T>(field: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw readingError(error, field);
  }
}

/** Converts markdown of a change (see `withinLimits`). */
function readMarkdown(markdown: string, field: string, options?: Parameters<typeof markdownToDocument>[1]) {
  return withinLimits(field, () => markdownToDocument(markdown, options));
}

/** Validates a JSON document of a change, within `DOCUMENT_LIMITS`; an invalid one is a 400 naming `field`. */
function readJsonDocument(input: unknown, field: string): JSONDocument {
  return withinLimits(field, () => {
    try {
      return parseDocumentInput(input);
    } catch (error) {
      if (error instanceof DocumentValidationError) throw invalid(field, error.message);
      throw error;
    }
  });
}

/** The document a page has at this point of the batch (pending JSON or its stored one). */
function currentDocument(
  db: Db,
  spaceId: string,
  page: WorkPage,
  pending: ReadonlyMap<string, PendingDocument>,
  field: string,
): JSONDocument {
  const waiting = pending.get(page.id);
  if (waiting?.kind === 'json') return readJsonDocument(waiting.document, waiting.field);
  if (waiting?.kind === 'markdown')
    throw invalid(field, 'revert the blocks of a page before rewriting it with markdown in the same batch');
  if (waiting?.kind === 'empty' || !page.documentId) return { object: 'document', data: {}, nodes: [] };
  return structuredClone(
    getDocument<JSONDocument>(db, spaceId, page.documentId) ?? { object: 'document', data: {}, nodes: [] },
  );
}

/** A file name not yet taken: `name.png`, else `name (2).png`, … */
function uniqueFileName(files: readonly ContentFile[], name: string): string {
  const taken = new Set(files.map((file) => file.name));
  if (!taken.has(name)) return name;
  const dot = name.lastIndexOf('.');
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const extension = dot > 0 ? name.slice(dot) : '';
  for (let n = 2; ; n += 1) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(candidate)) return candidate;
  }
}

interface Located {
  node: Block;
  list: Block[];
  parentKey: string | undefined;
}

/** Every block of a document by key, with the list holding it and its parent block's key. */
function blocksByKey(document: JSONDocument): Map<string, Located> {
  const found = new Map<string, Located>();
  const walk = (list: Block[], parentKey: string | undefined) => {
    for (const node of list) {
      if (node.object !== 'block') continue;
      found.set(node.key, { node, list, parentKey });
      if ('nodes' in node && Array.isArray(node.nodes)) walk(node.nodes as Block[], node.key);
    }
  };
  walk(document.nodes, undefined);
  return found;
}

/**
 * Reverts blocks of `current` to `old`: a block only in `current` (added) is removed, one only in
 * `old` (deleted) is restored after the block that preceded it there (or first in its parent),
 * one in both (modified or moved) is reset to its old version in place.
 */
export function revertBlocks(
  current: JSONDocument,
  old: JSONDocument,
  keys: readonly string[],
  field: string,
): JSONDocument {
  const document = structuredClone(current);
  const before = blocksByKey(old);
  keys.forEach((key, k) => {
    const now = blocksByKey(document);
    const was = before.get(key);
    const is = now.get(key);
    if (!was && !is) throw invalid(`${field}.${k}`, `no block ${key} in the page on either side`);
    if (is && !was) {
      is.list.splice(is.list.indexOf(is.node), 1);
      return;
    }
    if (is && was) {
      is.list.splice(is.list.indexOf(is.node), 1, structuredClone(was.node));
      return;
    }
    const list =
      was!.parentKey === undefined
        ? document.nodes
        : (now.get(was!.parentKey)?.node as { nodes?: Block[] } | undefined)?.nodes;
    if (!list) throw invalid(`${field}.${k}`, `block ${key} was inside a block that is no longer in the page`);
    const index = was!.list.indexOf(was!.node);
    let position = 0;
    for (let i = index - 1; i >= 0; i -= 1) {
      const previous = list.findIndex((node) => node.key === was!.list[i]!.key);
      if (previous >= 0) {
        position = previous + 1;
        break;
      }
    }
    list.splice(position, 0, structuredClone(was!.node));
  });
  return document;
}
