import { newId } from '../http.js';
import type { Db } from '../store/db.js';
import { canonicalJson, getJson, putBlob, putJson } from './blobs.js';
import { parseDocument } from './document.js';

/**
 * The revision store. A revision is immutable: its content is a tree of nodes stored by hash
 * (`blobs.ts`): one node per page (its fields and the hashes of its children), a root node (the
 * top-level pages, the files, the reusable contents, the variables), and documents apart, by
 * id. Storing a revision writes only the nodes that differ from what is stored already, so an
 * edit to one page costs that page, its ancestors and the root, whatever the size of the space.
 */

export const REVISION_TYPES = ['edits', 'merge', 'update', 'rollback', 'computed'] as const;
export type RevisionType = (typeof REVISION_TYPES)[number];

export const PAGE_TYPES = ['document', 'group', 'link', 'computed'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

/** A variable's value: text, a number or a boolean. */
export type VariableValue = string | number | boolean;
export type Variables = Record<string, VariableValue>;

/** A reference to content (a page, a file, a space, a URL, …): the `ContentRef` of the API. */
export type ContentRef = { kind: string } & Record<string, unknown>;

/** Page layout options (every field of `RevisionPageLayoutOptions`). */
export interface PageLayout {
  width: 'default' | 'wide';
  cover: boolean;
  coverSize: 'hero' | 'full' | 'background';
  coverMask: 'none' | 'radial';
  title: boolean;
  description: boolean;
  tableOfContents: boolean;
  outline: boolean;
  pagination: boolean;
  metadata: boolean;
  tags: boolean;
  actions: boolean;
  anchors: boolean;
}

export const DEFAULT_LAYOUT: PageLayout = Object.freeze({
  width: 'default',
  cover: true,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
});

/** Where a page, file or reusable content lives in a Git repository (set by Git Sync). */
export interface GitBlob {
  oid: string;
  path: string;
}

/**
 * A page of a revision's content. `slug` is set on document and group pages (unique among
 * siblings), `documentId` on document pages with a body, `target`/`href` on link pages,
 * `computed` on computed pages. Groups live at the top level only.
 */
export interface ContentPage {
  id: string;
  type: PageType;
  title: string;
  slug?: string;
  linkTitle?: string;
  emoji?: string;
  icon?: string;
  description?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** Adaptive-content condition: an expression on the visitor's claims deciding whether the page shows. */
  condition?: string;
  layout?: PageLayout;
  cover?: Record<string, unknown>;
  variables?: Variables;
  metaLinks?: { canonical?: ContentRef; alternates?: ContentRef[] };
  documentId?: string;
  target?: ContentRef;
  href?: string;
  computed?: Record<string, unknown>;
  git?: GitBlob;
  createdAt?: string;
  updatedAt?: string;
  pages: ContentPage[];
}

/** A file of a revision: its bytes are the blob `hash`. */
export interface ContentFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  hash: string;
  dimensions?: { width: number; height: number };
  git?: GitBlob;
}

export interface ContentReusable {
  id: string;
  title: string;
  documentId?: string;
  git?: GitBlob;
}

/** Everything a revision holds. */
export interface RevisionContent {
  pages: ContentPage[];
  files: ContentFile[];
  reusableContents: ContentReusable[];
  variables: Variables;
}

export const EMPTY_CONTENT: RevisionContent = Object.freeze({ pages: [], files: [], reusableContents: [], variables: {} });

/** A revision row. */
export interface RevisionRow {
  id: string;
  space_id: string;
  type: RevisionType;
  parents: string;
  root: string | null;
  git: string | null;
  merged_from: string | null;
  change_request: string | null;
  created_at: string;
}

/** A revision with its content, as read. */
export interface Revision {
  id: string;
  spaceId: string;
  type: RevisionType;
  parents: string[];
  createdAt: string;
  git: Record<string, unknown> | null;
  mergedFrom: string | null;
  /** The change request it was written for (its edits and updates); null for the space's own history. */
  changeRequest: string | null;
  content: RevisionContent;
}

interface StoredRoot {
  pages: string[];
  files: string | null;
  reusableContents: string | null;
  variables: Variables;
}

type StoredPage = Omit<ContentPage, 'pages'> & { pages: string[] };

/**
 * Hashes of the page nodes read from or written to a store, by page object: a page read from a
 * revision is frozen, and a new revision hands most of them on as they are (an edit, a merge), so
 * their nodes are neither serialized nor hashed again. Only frozen pages are kept: a mutable one
 * could change after it was stored.
 */
const pageHashes = new WeakMap<Db, WeakMap<ContentPage, string>>();

function hashesOf(db: Db): WeakMap<ContentPage, string> {
  let hashes = pageHashes.get(db);
  if (!hashes) {
    hashes = new WeakMap();
    pageHashes.set(db, hashes);
  }
  return hashes;
}

/** Stores a page and its descendants; returns the hash of its node. */
function storePage(db: Db, page: ContentPage): string {
  const hashes = hashesOf(db);
  const known = hashes.get(page);
  if (known) return known;
  const { pages, ...fields } = page;
  const stored: StoredPage = { ...fields, pages: pages.map((child) => storePage(db, child)) };
  const hash = putJson(db, stored);
  if (Object.isFrozen(page) && Object.isFrozen(page.pages)) hashes.set(page, hash);
  return hash;
}

/** Stores `content` and returns the hash of its root node (null for empty content). */
export function storeContent(db: Db, content: RevisionContent): string | null {
  if (
    content.pages.length === 0 &&
    content.files.length === 0 &&
    content.reusableContents.length === 0 &&
    Object.keys(content.variables).length === 0
  ) {
    return null;
  }
  const root: StoredRoot = {
    pages: content.pages.map((page) => storePage(db, page)),
    files: content.files.length ? putJson(db, content.files) : null,
    reusableContents: content.reusableContents.length ? putJson(db, content.reusableContents) : null,
    variables: content.variables,
  };
  return putJson(db, root);
}

/** Content read from the store, by root hash, kept: it never changes. */
const contents = new WeakMap<Db, Map<string, RevisionContent>>();
const MAX_CONTENTS = 200;

/** The content under a root hash (frozen: never mutate it). */
export function loadContent(db: Db, root: string | null): RevisionContent {
  if (root === null) return EMPTY_CONTENT;
  let cache = contents.get(db);
  if (!cache) {
    cache = new Map();
    contents.set(db, cache);
  }
  const known = cache.get(root);
  if (known) return known;
  const stored = getJson<StoredRoot>(db, root);
  if (!stored) throw new Error(`Content root ${root} is missing from the store`);
  const content: RevisionContent = Object.freeze({
    pages: Object.freeze(stored.pages.map((hash) => loadPage(db, hash))) as ContentPage[],
    files: stored.files ? (getJson<ContentFile[]>(db, stored.files) ?? []) : [],
    reusableContents: stored.reusableContents ? (getJson<ContentReusable[]>(db, stored.reusableContents) ?? []) : [],
    variables: stored.variables,
  });
  if (cache.size >= MAX_CONTENTS) cache.delete(cache.keys().next().value!);
  cache.set(root, content);
  return content;
}

function loadPage(db: Db, hash: string): ContentPage {
  const stored = getJson<StoredPage>(db, hash);
  if (!stored) throw new Error(`Page node ${hash} is missing from the store`);
  const page = Object.freeze({ ...stored, pages: Object.freeze(stored.pages.map((child) => loadPage(db, child))) as ContentPage[] });
  hashesOf(db).set(page, hash);
  return page;
}

/** Stores a new revision of a space and returns its id (the space's pointer is not moved). */
export function storeRevision(
  db: Db,
  options: {
    spaceId: string;
    type: RevisionType;
    parents: string[];
    content: RevisionContent;
    createdAt: string;
    id?: string;
    git?: Record<string, unknown> | null;
    mergedFrom?: string | null;
    /** The change request the revision is written for. */
    changeRequest?: string | null;
  },
): string {
  const id = options.id ?? newId();
  const root = storeContent(db, options.content);
  db.prepare(
    `INSERT INTO revisions (id, space_id, type, parents, root, git, merged_from, change_request, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    options.spaceId,
    options.type,
    JSON.stringify(options.parents),
    root,
    options.git ? JSON.stringify(options.git) : null,
    options.mergedFrom ?? null,
    options.changeRequest ?? null,
    options.createdAt,
  );
  return id;
}

/**
 * The first revision of a new space, under the id the space names: empty, or sharing the
 * content of `from` (a duplicated space shares every node of its source).
 */
export function storeFirstRevision(db: Db, spaceId: string, revisionId: string, createdAt: string, from?: string | null): void {
  db.prepare(
    `INSERT INTO revisions (id, space_id, type, parents, root, created_at) VALUES (?, ?, 'edits', '[]', ?, ?)`,
  ).run(revisionId, spaceId, from ?? null, createdAt);
}

/** The root hash of a revision's content (null: empty), or undefined when there is no such revision. */
export function revisionRoot(db: Db, revisionId: string): string | null | undefined {
  const row = db.prepare('SELECT root FROM revisions WHERE id = ?').get(revisionId) as { root: string | null } | undefined;
  return row ? row.root : undefined;
}

/** A revision of a space with its content, or undefined. */
export function loadRevision(db: Db, spaceId: string, revisionId: string): Revision | undefined {
  const row = db.prepare('SELECT * FROM revisions WHERE id = ? AND space_id = ?').get(revisionId, spaceId) as RevisionRow | undefined;
  if (!row) return undefined;
  return {
    id: row.id,
    spaceId: row.space_id,
    type: row.type,
    parents: JSON.parse(row.parents) as string[],
    createdAt: row.created_at,
    git: row.git ? (JSON.parse(row.git) as Record<string, unknown>) : null,
    mergedFrom: row.merged_from,
    changeRequest: row.change_request,
    content: loadContent(db, row.root),
  };
}

/**
 * Stores a document (JSON, validated and completed by `parseDocument`, which throws on an invalid
 * one) for a space and returns its id, derived from its bytes: storing the same document again
 * gives the same id and stores nothing.
 */
export function putDocument(db: Db, spaceId: string, document: unknown): string {
  // Stored documents are valid and complete (keys, data, meta ids): readers may rely on it.
  const text = canonicalJson(parseDocument(document));
  const hash = putBlob(db, text);
  const id = documentIdOf(hash);
  db.prepare('INSERT OR IGNORE INTO documents (space_id, id, hash) VALUES (?, ?, ?)').run(spaceId, id, hash);
  return id;
}

/** A document of a space by id (frozen), or undefined. */
export function getDocument<T = unknown>(db: Db, spaceId: string, documentId: string): T | undefined {
  const hash = db.prepare('SELECT hash FROM documents WHERE space_id = ? AND id = ?').pluck(true).get(spaceId, documentId) as
    | string
    | undefined;
  return hash ? getJson<T>(db, hash) : undefined;
}

/** A document id: 20 characters of the hash of its bytes (base62-like, URL-safe). */
function documentIdOf(hash: string): string {
  return Buffer.from(hash, 'hex').toString('base64url').replace(/[-_]/g, '').slice(0, 20);
}

/** Bytes stored for the whole store (for measurements). */
export function storedBytes(db: Db): number {
  return (db.prepare('SELECT COALESCE(SUM(size), 0) FROM blobs').pluck(true).get() as number) ?? 0;
}

