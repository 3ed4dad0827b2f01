import { LCS, diff3Merge } from 'node-diff3';
import {
  newKey,
  withMetaIds,
  type Block,
  type DocumentNode,
  type Fragment,
  type JSONDocument,
} from '../../document/model.js';
import type {
  ContentFile,
  ContentPage,
  ContentReusable,
  RevisionContent,
  VariableValue,
  Variables,
} from './revisions.js';

/**
 * Three-way merge of two contents of a space that share an ancestor: a change request's content
 * merged into the space's live content, or the live content merged into a change request to
 * update it. Pure: it knows neither HTTP nor the store, reads documents through `document` and
 * writes merged ones through `storeDocument`.
 *
 * Nothing is lost silently: every edit made on one side only lands in the result, the same
 * edit made on both sides lands once, and two edits that cannot both land are a conflict.
 *
 * **Pages** are matched by `id` across the three trees, whatever their place.
 * - Existence: a page created on one side is kept. A page deleted on one side is deleted with
 *   its subtree when the other side left it and everything beneath it as they were; when the
 *   other side changed it (a property, its document, its parent, the order of its children) or
 *   created, changed or moved in anything beneath it, that is a conflict `{ page }`, and the
 *   page is kept as that side has it, with its subtree (every page deleted on one side and
 *   changed in itself or beneath it on the other is a conflict of its own, so a deleted page
 *   whose child was edited gives two conflicts, the page's and the child's).
 * - Parent: moved on one side, the page moves; moved to two different parents, a conflict
 *   `{ page, property: 'parent' }` and the request's parent. A merge that would make a page its
 *   own ancestor (each side moved one of two pages under the other) is such a conflict too: the
 *   page whose parent came from live takes its parent in the request.
 * - Order among siblings: a three-way merge of the children id sequences under each merged
 *   parent (see "Sequences" below). Pages moved in from elsewhere are insertions; a page kept by
 *   a conflict but missing from the merged sequence goes after the sibling it follows on the
 *   side that has it.
 * - Properties: every field of `ContentPage` but `id`, `pages`, `documentId`, `createdAt` and
 *   `updatedAt`, each merged three-way (changed on one side: that value; on both to the same
 *   value: it; differently: a conflict `{ page, property }` and the request's value). A page
 *   created on both sides under one id is merged as if its base had no property set.
 * - Document (`documentId`): changed on one side only, that side's document is taken whole
 *   (same id, no block work). Changed on both sides, the documents are merged block by block
 *   (below) and the result is stored through `storeDocument`, unless it equals one of the
 *   three (then that id is kept). A document removed on one side and changed on the other, or
 *   one that `document` cannot find, is a conflict `{ page, property: 'document' }` (the
 *   request's wins), as is a conflicting change to the document's own `data` or `meta`.
 * - Slugs stay unique among siblings: a page that has its slug under the same parent in live
 *   keeps it (it is never renamed), the others keep theirs in sibling order while it is free,
 *   and a page whose slug is already taken gets the first free `-2`, `-3`… suffix (so of two
 *   pages added with one slug under one parent, the later one). This is not a conflict.
 * - `createdAt` is live's (else the request's); `updatedAt` is live's when the merged page's
 *   own fields (properties and document) equal live's, and otherwise the newer of live's and
 *   the request's.
 * - A merged page equal to live's (or else the request's) version, children included, is that
 *   very object, so that unchanged subtrees are shared.
 *
 * **Documents** are merged by block `key`, level by level: the top-level blocks, then, for a
 * block changed on both sides whose own fields (type, data, …; everything but its children,
 * its fragments and the derived `meta` of headings, tabs and expandables) did not conflict,
 * its child blocks (`nodes`: list items, the blocks of a list item, quote, hint or tab, code
 * lines…) and the blocks of its fragments (matched by fragment name: captions, an expandable's
 * title and body, table cells), recursively.
 * - A block changed on one side only takes that change; changed on both to the same thing:
 *   it; changed differently (and not mergeable as above: paragraphs, headings and code lines are
 *   compared whole): a conflict `{ page, block: key }`.
 * - Deleted on one side and unchanged on the other: deleted. Deleted on one side and changed on
 *   the other: a conflict `{ page, block: key }`, and the changed version is kept.
 * - Created on both sides under one key with different contents: a conflict.
 * - Block order: a three-way merge of the key sequences.
 * - In 'update' mode a conflicting block changed on both sides keeps the request's version,
 *   followed by the live version under fresh keys (`newKey()`, for every node of the copy) so
 *   that the author sees both. In 'merge' mode no copy is made.
 * - A block that ends up twice in the merged document (moved into two different places, or
 *   moved on one side while the other side's edit kept it in place) is kept once when both
 *   copies are equal; otherwise it is a conflict on its key and, in 'update' mode, the later
 *   copy gets fresh keys.
 * - `meta.id` of headings, tabs and expandables is derived: it is ignored when comparing and
 *   recomputed (`withMetaIds`) on the merged document.
 *
 * **Files** (by `id`) merge like pages without a tree: existence, order, and properties, where
 * the fields describing the bytes (`hash`, `size`, `contentType`, `dimensions`) form one unit
 * reported as the property `hash`; conflicts are `{ file }` and `{ file, property }`.
 * **Reusable contents** (by `id`) merge the same way, their documents like pages' documents;
 * conflicts are `{ reusableContent }`, `{ reusableContent, property }` and
 * `{ reusableContent, block }`. **Variables** (by name) merge three-way, a variable deleted on
 * one side and changed on the other being kept with its changed value; conflicts are
 * `{ variable }`.
 *
 * **Conflicts** come in this order: pages in the merged tree's order (depth first), each with
 * its existence conflict, then its parent, then its properties (in the order of
 * `PAGE_PROPERTY_ORDER`, others by name), then its document, then its blocks in the merged
 * document's order (a block, the blocks within it, then the blocks of its fragments); then
 * files, reusable contents (the same way as pages) and variables, each in merged order.
 *
 * **Modes.** In 'merge' mode a merge with conflicts returns live's content unchanged with the
 * conflicts, and stores no document: the caller writes nothing. Without conflicts both modes
 * give the same content. In 'update' mode conflicts are resolved as described above (mostly
 * in favour of the request, a changed version always winning over a deletion) and reported.
 *
 * **Sequences** (children ids, block keys, fragment names, files, reusable contents) are merged
 * with `node-diff3` (MIT; its `diff3Merge` and `LCS`). An item that one side moved among its
 * siblings (one that is not in the longest common subsequence of base and that side) is taken
 * out of the other sequences, so the merge sees it as inserted where it now stands; moved on
 * both sides, the request's place wins. Insertions by both sides at one place keep both, live's
 * first; in any other overlapping region live's items come first, then the request's that live
 * lacks. Items the item-by-item merge keeps but the sequence merge dropped (a deletion that lost
 * to a change) go after the item they follow on the side that has them.
 *
 * The function is deterministic, but for the fresh keys of live copies in 'update' mode.
 */

/** A conflict: which page (and block or property), file, reusable content or variable. */
export interface MergeConflict {
  /** The page in conflict (alone: deleted on one side, changed on the other). */
  page?: string;
  /** The key of the block in conflict, in the document of `page` or `reusableContent`. */
  block?: string;
  /** The property in conflict (`parent`, `document`, a page field, `hash` for a file's bytes…). */
  property?: string;
  /** The file in conflict (alone: deleted on one side, changed on the other). */
  file?: string;
  /** The reusable content in conflict (alone: deleted on one side, changed on the other). */
  reusableContent?: string;
  /** The variable in conflict. */
  variable?: string;
}

/** 'merge': conflicts are only reported. 'update': conflicts are resolved and reported. */
export type MergeMode = 'merge' | 'update';

/** What `mergeContents` merges. */
export interface MergeInput {
  /** The common ancestor of `live` and `request`. */
  base: RevisionContent;
  /** The space's current content (its primary revision's). */
  live: RevisionContent;
  /** The change request's content. */
  request: RevisionContent;
  /** A stored document by id (all three contents share one document store). */
  document(documentId: string): JSONDocument | undefined;
  /** Stores a merged document and returns its id (the caller validates it). */
  storeDocument(document: JSONDocument): string;
  /**
   * 'merge': conflicts are only reported (live's content is returned, nothing is stored).
   * 'update': conflicts are resolved in favour of the request, keeping the live version of a
   * conflicting block next to it.
   */
  mode: MergeMode;
}

/** The merged content and the conflicts met, in the documented order. */
export interface MergeOutcome {
  content: RevisionContent;
  conflicts: MergeConflict[];
}

/** Page fields that are not merged as properties. */
const PAGE_NON_PROPERTIES = new Set(['id', 'pages', 'documentId', 'createdAt', 'updatedAt']);

/** The order in which a page's property conflicts are listed (other fields follow, by name). */
export const PAGE_PROPERTY_ORDER: readonly string[] = [
  'type',
  'title',
  'slug',
  'linkTitle',
  'emoji',
  'icon',
  'description',
  'hidden',
  'noIndex',
  'noRobotsIndex',
  'layout',
  'cover',
  'variables',
  'metaLinks',
  'target',
  'href',
  'computed',
  'git',
];

/** File fields describing its bytes: merged as one unit, named `hash` in conflicts. */
const FILE_BYTES = ['hash', 'size', 'contentType', 'dimensions'];
const FILE_PROPERTY_ORDER = ['name', 'hash', 'git'];
const REUSABLE_PROPERTY_ORDER = ['title', 'git'];

/** Blocks whose `nodes` are texts and inlines: compared whole, never merged inside. */
const INLINE_HOLDERS = new Set(['paragraph', 'heading-1', 'heading-2', 'heading-3', 'code-line']);
/** Blocks whose `meta` is derived (recomputed by `withMetaIds`): ignored when comparing. */
const DERIVED_META = new Set(['heading-1', 'heading-2', 'heading-3', 'tabs-item', 'expandable']);

/** Merges `request` and `live` from `base` (see the module's documentation for the rules). */
export function mergeContents(input: MergeInput): MergeOutcome {
  const { base, live, request } = input;
  const signatures = new WeakMap<object, string>();
  const sig = (value: unknown): string => signature(value, signatures);
  // One side left everything as it was: the result is the other side, as it is.
  if (sig(base) === sig(live)) return { content: request, conflicts: [] };
  if (sig(base) === sig(request) || sig(live) === sig(request)) return { content: live, conflicts: [] };

  const ctx: Context = { mode: input.mode, sig, document: input.document, pending: [] };

  const pages =
    sig(base.pages) === sig(live.pages)
      ? plainPart(request.pages)
      : sig(base.pages) === sig(request.pages) || sig(live.pages) === sig(request.pages)
        ? plainPart(live.pages)
        : mergePages(ctx, base.pages, live.pages, request.pages);
  const files = mergeCollection(ctx, base.files, live.files, request.files, {
    conflict: (id) => ({ file: id }),
    merge: (b, l, r) => {
      const merged = mergeProperties(ctx, b, l, r, { order: FILE_PROPERTY_ORDER, groups: { hash: FILE_BYTES } });
      const value = shared(ctx, { ...merged.value, id: l.id } as unknown as ContentFile, l, r);
      return { value: () => value, conflicts: merged.conflicts.map((property) => ({ file: l.id, property })) };
    },
  });
  const reusableContents = mergeCollection(
    ctx,
    base.reusableContents,
    live.reusableContents,
    request.reusableContents,
    {
      conflict: (id) => ({ reusableContent: id }),
      merge: (b, l, r) => mergeReusable(ctx, b, l, r),
    },
  );
  const variables = mergeVariables(ctx, base.variables, live.variables, request.variables);

  const conflicts = [...pages.conflicts, ...files.conflicts, ...reusableContents.conflicts, ...variables.conflicts];
  if (input.mode === 'merge' && conflicts.length > 0) return { content: live, conflicts };

  // Only now is anything written: the merged documents, in the order the conflicts are listed.
  for (const pending of ctx.pending) pending.id = input.storeDocument(pending.document);
  return {
    content: {
      pages: pages.build(),
      files: files.build(),
      reusableContents: reusableContents.build(),
      variables: variables.value,
    },
    conflicts,
  };
}

// ---------------------------------------------------------------------------------------------
// Shared machinery
// ---------------------------------------------------------------------------------------------

/** A merged document waiting to be stored (only once the merge is known to be written). */
interface PendingDocument {
  document: JSONDocument;
  id?: string;
}

/** The document a merged page or reusable content points at: an existing id, or a merged one. */
type DocumentChoice = { id: string | undefined } | { pending: PendingDocument };

interface Context {
  mode: MergeMode;
  /** The canonical signature of a value (see `signature`), cached for the merge's inputs. */
  sig(value: unknown): string;
  document(documentId: string): JSONDocument | undefined;
  /** Merged documents to store, in order. */
  pending: PendingDocument[];
}

/** A part of the result whose items are built once the merged documents are stored. */
interface Part<T> {
  conflicts: MergeConflict[];
  build(): T[];
}

/** A part taken as it is from one side. */
const plainPart = <T>(items: T[]): Part<T> => ({ conflicts: [], build: () => items });

/** The id of a chosen document (a merged one once stored). */
const documentIdOf = (choice: DocumentChoice): string | undefined =>
  'pending' in choice ? choice.pending.id : choice.id;

/**
 * A canonical text of a JSON value: object keys sorted, `undefined` properties left out, and
 * the derived `meta` of headings, tabs and expandables ignored. Equal values (for the merge)
 * have equal signatures. Signatures of objects are cached in `cache`: never hash an object that
 * is changed afterwards.
 */
function signature(value: unknown, cache: WeakMap<object, string>): string {
  if (value === undefined) return '~';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const known = cache.get(value);
  if (known !== undefined) return known;
  let text: string;
  if (Array.isArray(value)) {
    text = `[${value.map((item: unknown) => (item === undefined ? 'null' : signature(item, cache))).join(',')}]`;
  } else {
    const record = value as Record<string, unknown>;
    const skipMeta = record.object === 'block' && DERIVED_META.has(record.type as string);
    const parts: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined || (skipMeta && key === 'meta')) continue;
      parts.push(`${JSON.stringify(key)}:${signature(item, cache)}`);
    }
    text = `{${parts.join(',')}}`;
  }
  cache.set(value, text);
  return text;
}

/**
 * A three-way merge of one value: unchanged on a side, the other side's; changed the same on
 * both, that; changed differently, a conflict with the request's value.
 */
function merge3<T>(ctx: Context, base: T, live: T, request: T): { value: T; conflict: boolean } {
  const b = ctx.sig(base);
  const l = ctx.sig(live);
  const r = ctx.sig(request);
  if (l === b) return { value: request, conflict: false };
  if (r === b || r === l) return { value: live, conflict: false };
  return { value: request, conflict: true };
}

/** Items in first-seen order, each once. */
function unique<T>(items: Iterable<T>): T[] {
  return [...new Set(items)];
}

/**
 * Merges the fields of a record three-way (a page's, a file's, a reusable content's), `base`
 * absent meaning "no field set". Each field is a unit, except the `groups` (merged as one,
 * under the group's name). Conflicting units take the request's values. Returns the merged
 * fields (without `undefined` ones) and the names of the conflicting units, in `order` first,
 * then by name.
 */
function mergeProperties(
  ctx: Context,
  base: object | undefined,
  live: object,
  request: object,
  options: { order: readonly string[]; skip?: ReadonlySet<string>; groups?: Record<string, string[]> },
): { value: Record<string, unknown>; conflicts: string[] } {
  const b = (base ?? {}) as Record<string, unknown>;
  const l = live as Record<string, unknown>;
  const r = request as Record<string, unknown>;
  const grouped = new Map<string, string>();
  for (const [name, fields] of Object.entries(options.groups ?? {}))
    for (const field of fields) grouped.set(field, name);
  const units = new Map<string, string[]>();
  for (const field of unique([...Object.keys(l), ...Object.keys(r), ...Object.keys(b)])) {
    if (options.skip?.has(field)) continue;
    const name = grouped.get(field);
    if (name) units.set(name, options.groups![name]!);
    else units.set(field, [field]);
  }
  const names = [
    ...options.order.filter((name) => units.has(name)),
    ...[...units.keys()].filter((name) => !options.order.includes(name)).sort(),
  ];
  const value: Record<string, unknown> = {};
  const conflicts: string[] = [];
  const pick = (record: Record<string, unknown>, fields: string[]) => {
    const picked: Record<string, unknown> = {};
    for (const field of fields) if (record[field] !== undefined) picked[field] = record[field];
    return picked;
  };
  for (const name of names) {
    const fields = units.get(name)!;
    const merged = merge3(ctx, pick(b, fields), pick(l, fields), pick(r, fields));
    if (merged.conflict) conflicts.push(name);
    Object.assign(value, merged.value);
  }
  // Keep the fields in live's order where possible (the order of keys means nothing, but reads better).
  const ordered: Record<string, unknown> = {};
  for (const field of unique([...Object.keys(l), ...Object.keys(r), ...Object.keys(value)])) {
    if (value[field] !== undefined) ordered[field] = value[field];
  }
  return { value: ordered, conflicts };
}

// ---------------------------------------------------------------------------------------------
// Sequences
// ---------------------------------------------------------------------------------------------

/** Items of `base` that `side` also holds but moved (out of their longest common subsequence). */
function movedItems(base: readonly string[], side: readonly string[]): Set<string> {
  const inSide = new Set(side);
  const inBase = new Set(base);
  const b = base.filter((item) => inSide.has(item));
  const s = side.filter((item) => inBase.has(item));
  const staying = new Set<string>();
  for (
    let candidate: ReturnType<typeof LCS> | null = LCS(b, s);
    candidate && candidate.buffer1index >= 0;
    candidate = candidate.chain
  ) {
    staying.add(b[candidate.buffer1index]!);
  }
  return new Set(b.filter((item) => !staying.has(item)));
}

/**
 * The order of `keep` (the items the item-by-item merge keeps) from a three-way merge of the
 * base, live and request sequences (see "Sequences" in the module's documentation).
 */
export function mergeSequence(
  base: readonly string[],
  live: readonly string[],
  request: readonly string[],
  keep: readonly string[],
): string[] {
  const movedLive = movedItems(base, live);
  const movedRequest = movedItems(base, request);
  const o = base.filter((item) => !movedLive.has(item) && !movedRequest.has(item));
  const a = live.filter((item) => !movedRequest.has(item));
  const b = request.filter((item) => !movedLive.has(item) || movedRequest.has(item));
  const merged: string[] = [];
  for (const region of diff3Merge<string>(a, o, b)) {
    if (region.ok) merged.push(...region.ok);
    else if (region.conflict) {
      const fromLive = new Set(region.conflict.a);
      merged.push(...region.conflict.a, ...region.conflict.b.filter((item) => !fromLive.has(item)));
    }
  }
  const wanted = new Set(keep);
  const result = unique(merged.filter((item) => wanted.has(item)));
  const placed = new Set(result);
  // Kept items the sequence merge dropped go after the item they follow where they stand.
  for (const side of [request, live, base]) {
    side.forEach((item, index) => {
      if (!wanted.has(item) || placed.has(item)) return;
      let at = 0;
      for (let before = index - 1; before >= 0; before--) {
        const position = result.indexOf(side[before]!);
        if (position >= 0) {
          at = position + 1;
          break;
        }
      }
      result.splice(at, 0, item);
      placed.add(item);
    });
  }
  for (const item of keep) if (!placed.has(item)) result.push(item);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Collections (files, reusable contents) and variables
// ---------------------------------------------------------------------------------------------

/**
 * Merges a list of items by `id`: existence three-way (deleted on one side and changed on the
 * other: a conflict, the changed one kept), order by `mergeSequence`, and each item present on
 * both sides through `merge` (`base` undefined when both sides created it).
 */
function mergeCollection<T extends { id: string }>(
  ctx: Context,
  base: readonly T[],
  live: readonly T[],
  request: readonly T[],
  options: {
    conflict(id: string): MergeConflict;
    /** The merged item (built once merged documents are stored) and its conflicts. */
    merge(base: T | undefined, live: T, request: T): { value: () => T; conflicts: MergeConflict[] };
  },
): Part<T> {
  const b = new Map(base.map((item) => [item.id, item]));
  const l = new Map(live.map((item) => [item.id, item]));
  const r = new Map(request.map((item) => [item.id, item]));
  const merged = new Map<string, { value: () => T; conflicts: MergeConflict[] }>();
  for (const id of unique([...l.keys(), ...r.keys(), ...b.keys()])) {
    const [was, onLive, onRequest] = [b.get(id), l.get(id), r.get(id)];
    if (onLive && onRequest) {
      merged.set(id, options.merge(was, onLive, onRequest));
    } else if (onLive || onRequest) {
      const kept = (onLive ?? onRequest)!;
      if (!was) merged.set(id, { value: () => kept, conflicts: [] });
      else if (ctx.sig(kept) !== ctx.sig(was)) merged.set(id, { value: () => kept, conflicts: [options.conflict(id)] });
    }
  }
  const order = mergeSequence([...b.keys()], [...l.keys()], [...r.keys()], [...merged.keys()]);
  return {
    conflicts: order.flatMap((id) => merged.get(id)!.conflicts),
    build: () => order.map((id) => merged.get(id)!.value()),
  };
}

/** `value`, or the side's own object when it is equal to it (live's first). */
function shared<T>(ctx: Context, value: T, live: T | undefined, request: T | undefined): T {
  const text = ctx.sig(value);
  if (live !== undefined && text === ctx.sig(live)) return live;
  if (request !== undefined && text === ctx.sig(request)) return request;
  return value;
}

/** A reusable content present on both sides: its properties, then its document. */
function mergeReusable(
  ctx: Context,
  base: ContentReusable | undefined,
  live: ContentReusable,
  request: ContentReusable,
): { value: () => ContentReusable; conflicts: MergeConflict[] } {
  const id = live.id;
  const properties = mergeProperties(ctx, base, live, request, {
    order: REUSABLE_PROPERTY_ORDER,
    skip: new Set(['id', 'documentId']),
  });
  const conflicts: MergeConflict[] = properties.conflicts.map((property) => ({ reusableContent: id, property }));
  const document = mergeDocumentIds(ctx, base?.documentId, live.documentId, request.documentId);
  if (document.conflict) conflicts.push({ reusableContent: id, property: 'document' });
  conflicts.push(...document.blocks.map((block) => ({ reusableContent: id, block })));
  const make = (): ContentReusable => {
    const merged = { ...properties.value, id } as Record<string, unknown>;
    const documentId = documentIdOf(document.choice);
    if (documentId !== undefined) merged.documentId = documentId;
    return shared(ctx, merged as unknown as ContentReusable, live, request);
  };
  return { value: make, conflicts };
}

/** Variables by name: three-way, a deleted variable losing to a changed one. */
function mergeVariables(
  ctx: Context,
  base: Variables,
  live: Variables,
  request: Variables,
): { value: Variables; conflicts: MergeConflict[] } {
  const value: Variables = {};
  const conflicts: MergeConflict[] = [];
  for (const name of unique([...Object.keys(live), ...Object.keys(request), ...Object.keys(base)])) {
    const merged = merge3<VariableValue | undefined>(ctx, base[name], live[name], request[name]);
    const result = merged.conflict ? (request[name] ?? live[name]) : merged.value;
    if (merged.conflict) conflicts.push({ variable: name });
    if (result !== undefined) value[name] = result;
  }
  return { value, conflicts };
}

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

/**
 * The merged document of two document ids changed from `base`: one changed only, that one; both
 * the same, it; both changed, the block merge (a `conflict` when a side has no document, a
 * document cannot be read, or the documents' own data conflict). `blocks` lists the keys of the
 * conflicting blocks in document order.
 */
function mergeDocumentIds(
  ctx: Context,
  base: string | undefined,
  live: string | undefined,
  request: string | undefined,
): { choice: DocumentChoice; conflict: boolean; blocks: string[] } {
  if (live === base || live === request) return { choice: { id: request }, conflict: false, blocks: [] };
  if (request === base) return { choice: { id: live }, conflict: false, blocks: [] };
  const b = base === undefined ? undefined : ctx.document(base);
  const l = live === undefined ? undefined : ctx.document(live);
  const r = request === undefined ? undefined : ctx.document(request);
  if (!l || !r || (base !== undefined && !b)) return { choice: { id: request }, conflict: true, blocks: [] };
  const merged = mergeDocuments(ctx, b, l, r);
  const text = signature(merged.document, new WeakMap());
  let choice: DocumentChoice;
  if (text === ctx.sig(l)) choice = { id: live };
  else if (text === ctx.sig(r)) choice = { id: request };
  else if (b && text === ctx.sig(b)) choice = { id: base };
  else {
    const pending: PendingDocument = { document: merged.document };
    ctx.pending.push(pending);
    choice = { pending };
  }
  return { choice, conflict: merged.conflict, blocks: merged.blocks };
}

/** Merges two documents from their base (absent: both created). */
function mergeDocuments(
  ctx: Context,
  base: JSONDocument | undefined,
  live: JSONDocument,
  request: JSONDocument,
): { document: JSONDocument; conflict: boolean; blocks: string[] } {
  const conflictKeys = new Set<string>();
  const data = merge3(ctx, base?.data ?? {}, live.data ?? {}, request.data ?? {});
  const meta = merge3(ctx, base?.meta, live.meta, request.meta);
  const nodes = mergeBlocks(ctx, conflictKeys, base?.nodes ?? [], live.nodes, request.nodes);
  const assembled: JSONDocument = { object: 'document', data: data.value, nodes };
  if (meta.value !== undefined) assembled.meta = meta.value;
  // A copy to finish in place: the merged tree shares (frozen) blocks with the inputs.
  const document = structuredClone(assembled);
  removeDuplicateKeys(ctx, document, conflictKeys, [live, request]);
  withMetaIds(document);
  const blocks: string[] = [];
  walkBlocks(document.nodes, (block) => {
    if (conflictKeys.delete(block.key)) blocks.push(block.key);
  });
  return { document, conflict: data.conflict || meta.conflict, blocks };
}

/** Calls `visit` on every block of `blocks`, depth first: a block, its nodes, its fragments' blocks. */
function walkBlocks(blocks: readonly Block[], visit: (block: Block, siblings: readonly Block[]) => void): void {
  for (const block of blocks) {
    visit(block, blocks);
    const children = blockNodes(block);
    if (children) walkBlocks(children, visit);
    for (const fragment of fragmentsOf(block) ?? []) walkBlocks(fragment.nodes, visit);
  }
}

/** The child blocks of a block (not the texts and inlines of paragraphs and headings). */
function blockNodes(block: Block): Block[] | undefined {
  if (INLINE_HOLDERS.has(block.type) || !('nodes' in block) || !Array.isArray(block.nodes)) return undefined;
  return block.nodes as Block[];
}

/** The fragments of a block, if it has any. */
function fragmentsOf(block: Block): Fragment[] | undefined {
  return 'fragments' in block && Array.isArray(block.fragments) ? block.fragments : undefined;
}

/** Whether a block's children can be merged (it holds blocks or fragments, not inline content). */
function isComposite(block: Block): boolean {
  return !INLINE_HOLDERS.has(block.type) && (blockNodes(block) !== undefined || fragmentsOf(block) !== undefined);
}

/** A block's own fields: all but its children, its fragments and a derived `meta`. */
function ownFields(block: Block): Record<string, unknown> {
  const own: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(block)) {
    if (field === 'nodes' || field === 'fragments' || (field === 'meta' && DERIVED_META.has(block.type))) continue;
    own[field] = value;
  }
  return own;
}

/**
 * Ids of a list of keyed things: their key, and for a key met again in the same list (which
 * valid documents should not have), the key with its occurrence number, so nothing is dropped.
 */
function occurrenceIds<T>(items: readonly T[], keyOf: (item: T) => string): { ids: string[]; byId: Map<string, T> } {
  const seen = new Map<string, number>();
  const ids: string[] = [];
  const byId = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const count = seen.get(key) ?? 0;
    seen.set(key, count + 1);
    const id = count === 0 ? key : `${key}\u0000${count + 1}`;
    ids.push(id);
    byId.set(id, item);
  }
  return { ids, byId };
}

/** What becomes of a block id of one level. */
type BlockPlan =
  | { kind: 'take'; block: Block }
  | { kind: 'conflict'; block: Block; copy?: Block }
  | { kind: 'merge'; base: Block; live: Block; request: Block };

/** Merges a list of blocks (one level), recursing into blocks changed on both sides. */
function mergeBlocks(
  ctx: Context,
  conflictKeys: Set<string>,
  base: readonly Block[],
  live: readonly Block[],
  request: readonly Block[],
): Block[] {
  const b = occurrenceIds(base, (block) => block.key);
  const l = occurrenceIds(live, (block) => block.key);
  const r = occurrenceIds(request, (block) => block.key);
  const plans = new Map<string, BlockPlan>();
  for (const id of unique([...l.ids, ...r.ids, ...b.ids])) {
    const [was, onLive, onRequest] = [b.byId.get(id), l.byId.get(id), r.byId.get(id)];
    if (onLive && onRequest) {
      if (was) plans.set(id, { kind: 'merge', base: was, live: onLive, request: onRequest });
      else if (ctx.sig(onLive) === ctx.sig(onRequest)) plans.set(id, { kind: 'take', block: onLive });
      else plans.set(id, { kind: 'conflict', block: onRequest, copy: onLive });
    } else if (onLive || onRequest) {
      const kept = (onLive ?? onRequest)!;
      if (!was) plans.set(id, { kind: 'take', block: kept });
      else if (ctx.sig(kept) !== ctx.sig(was)) plans.set(id, { kind: 'conflict', block: kept });
    }
  }
  const order = mergeSequence(b.ids, l.ids, r.ids, [...plans.keys()]);
  const result: Block[] = [];
  for (const id of order) {
    const plan = plans.get(id)!;
    if (plan.kind === 'take') result.push(plan.block);
    else if (plan.kind === 'conflict') {
      conflictKeys.add(plan.block.key);
      result.push(plan.block);
      if (plan.copy && ctx.mode === 'update') result.push(freshCopy(plan.copy));
    } else result.push(...mergeBlock(ctx, conflictKeys, plan.base, plan.live, plan.request));
  }
  return result;
}

/** One block present on all three sides: the merged block, or the conflict's blocks. */
function mergeBlock(ctx: Context, conflictKeys: Set<string>, base: Block, live: Block, request: Block): Block[] {
  const b = ctx.sig(base);
  const l = ctx.sig(live);
  const r = ctx.sig(request);
  if (l === b) return [request];
  if (r === b || r === l) return [live];
  const combined = combineBlock(ctx, conflictKeys, base, live, request);
  if (combined) return [combined];
  conflictKeys.add(request.key);
  return ctx.mode === 'update' ? [request, freshCopy(live)] : [request];
}

/**
 * Merges the inside of a block changed on both sides: its own fields three-way, then its child
 * blocks and its fragments. Undefined when that is not possible (a leaf block, conflicting own
 * fields, a fragment deleted on one side and changed on the other…): the block is a conflict.
 */
function combineBlock(
  ctx: Context,
  conflictKeys: Set<string>,
  base: Block,
  live: Block,
  request: Block,
): Block | undefined {
  if (!isComposite(base) || !isComposite(live) || !isComposite(request)) return undefined;
  const own = merge3(ctx, ownFields(base), ownFields(live), ownFields(request));
  if (own.conflict) return undefined;
  const fragments = planFragments(ctx, fragmentsOf(base) ?? [], fragmentsOf(live) ?? [], fragmentsOf(request) ?? []);
  if (!fragments) return undefined;
  const merged: Record<string, unknown> = { ...own.value };
  if (blockNodes(live) || blockNodes(request)) {
    merged.nodes = mergeBlocks(
      ctx,
      conflictKeys,
      blockNodes(base) ?? [],
      blockNodes(live) ?? [],
      blockNodes(request) ?? [],
    );
  }
  if (fragmentsOf(live) || fragmentsOf(request)) merged.fragments = fragments(conflictKeys);
  return merged as unknown as Block;
}

/**
 * Plans the merge of a block's fragments, matched by name: undefined when they cannot merge
 * (deleted on one side and changed on the other, own fields changed differently, created on
 * both differently); otherwise a function that merges them (recursing into their blocks).
 */
function planFragments(
  ctx: Context,
  base: readonly Fragment[],
  live: readonly Fragment[],
  request: readonly Fragment[],
): ((conflictKeys: Set<string>) => Fragment[]) | undefined {
  const nameOf = (fragment: Fragment) => fragment.fragment;
  const b = occurrenceIds(base, nameOf);
  const l = occurrenceIds(live, nameOf);
  const r = occurrenceIds(request, nameOf);
  const plans = new Map<
    string,
    Fragment | { base: Fragment; live: Fragment; request: Fragment; own: Record<string, unknown> }
  >();
  for (const id of unique([...l.ids, ...r.ids, ...b.ids])) {
    const [was, onLive, onRequest] = [b.byId.get(id), l.byId.get(id), r.byId.get(id)];
    if (onLive && onRequest) {
      if (!was) {
        if (ctx.sig(onLive) !== ctx.sig(onRequest)) return undefined;
        plans.set(id, onLive);
        continue;
      }
      const { nodes: _b, ...ownBase } = was;
      const { nodes: _l, ...ownLive } = onLive;
      const { nodes: _r, ...ownRequest } = onRequest;
      const own = merge3(ctx, ownBase, ownLive, ownRequest);
      if (own.conflict) return undefined;
      plans.set(id, { base: was, live: onLive, request: onRequest, own: own.value });
    } else if (onLive || onRequest) {
      const kept = (onLive ?? onRequest)!;
      if (!was) plans.set(id, kept);
      else if (ctx.sig(kept) !== ctx.sig(was)) return undefined;
    }
  }
  const order = mergeSequence(b.ids, l.ids, r.ids, [...plans.keys()]);
  return (conflictKeys) =>
    order.map((id) => {
      const plan = plans.get(id)!;
      if ('object' in plan) return plan;
      return {
        ...plan.own,
        nodes: mergeBlocks(ctx, conflictKeys, plan.base.nodes, plan.live.nodes, plan.request.nodes),
      } as Fragment;
    });
}

/** A deep copy of a block in which every node (block, inline, text, fragment) has a new key. */
function freshCopy(block: Block): Block {
  const copy = structuredClone(block);
  rekey(copy);
  return copy;
}

/** Gives new keys to a node and everything in it (in place). */
function rekey(node: DocumentNode): void {
  if ('key' in node && typeof node.key === 'string') node.key = newKey();
  if ('nodes' in node && Array.isArray(node.nodes)) for (const child of node.nodes as DocumentNode[]) rekey(child);
  if ('fragments' in node && Array.isArray(node.fragments)) for (const fragment of node.fragments) rekey(fragment);
}

/**
 * Blocks the merge placed twice (a key that neither side's document holds twice): the later
 * copy is removed when equal to the first; otherwise the key is a conflict and, in 'update'
 * mode, the later copy gets new keys. Works in place on the merged copy.
 */
function removeDuplicateKeys(
  ctx: Context,
  document: JSONDocument,
  conflictKeys: Set<string>,
  sides: JSONDocument[],
): void {
  const counts = sides.map((side) => {
    const count = new Map<string, number>();
    walkBlocks(side.nodes, (block) => count.set(block.key, (count.get(block.key) ?? 0) + 1));
    return count;
  });
  const cache = new WeakMap<object, string>();
  const first = new Map<string, Block>();
  const removals: Array<{ block: Block; siblings: readonly Block[] }> = [];
  const renewals: Block[] = [];
  walkBlocks(document.nodes, (block, siblings) => {
    const earlier = first.get(block.key);
    if (!earlier) {
      first.set(block.key, block);
      return;
    }
    if (counts.some((count) => (count.get(block.key) ?? 0) > 1)) return;
    if (signature(block, cache) === signature(earlier, cache)) removals.push({ block, siblings });
    else {
      conflictKeys.add(block.key);
      if (ctx.mode === 'update') renewals.push(block);
    }
  });
  for (const { block, siblings } of removals) {
    const list = siblings as Block[];
    const index = list.indexOf(block);
    if (index >= 0) list.splice(index, 1);
  }
  for (const block of renewals) rekey(block);
}

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

/** The pages of one content by id, with parents (null: top level), children and tree order. */
interface Tree {
  pages: Map<string, ContentPage>;
  parent: Map<string, string | null>;
  children: Map<string | null, string[]>;
  order: string[];
}

/** Indexes a page tree (a page id met twice keeps its first place). */
function indexTree(pages: readonly ContentPage[]): Tree {
  const tree: Tree = { pages: new Map(), parent: new Map(), children: new Map(), order: [] };
  const walk = (list: readonly ContentPage[], parent: string | null) => {
    const ids: string[] = [];
    for (const page of list) {
      if (tree.pages.has(page.id)) continue;
      tree.pages.set(page.id, page);
      tree.parent.set(page.id, parent);
      tree.order.push(page.id);
      ids.push(page.id);
      walk(page.pages, page.id);
    }
    tree.children.set(parent, ids);
  };
  walk(pages, null);
  return tree;
}

/** A page's own fields: all but its children and dates. */
function pageFields(page: ContentPage): Record<string, unknown> {
  const { pages: _pages, createdAt: _created, updatedAt: _updated, ...fields } = page;
  return fields;
}

/** What one side did to the pages of base (answers are kept per page). */
class SideChanges {
  private readonly beneath = new Map<string, boolean>();

  constructor(
    private readonly ctx: Context,
    private readonly base: Tree,
    private readonly side: Tree,
  ) {}

  /** Whether the side changed a page of base: its fields, its parent or the order of its children. */
  changed(id: string): boolean {
    const was = this.base.pages.get(id)!;
    const is = this.side.pages.get(id)!;
    if (this.ctx.sig(pageFields(was)) !== this.ctx.sig(pageFields(is))) return true;
    if (this.base.parent.get(id) !== this.side.parent.get(id)) return true;
    const before = this.base.children.get(id) ?? [];
    const after = this.side.children.get(id) ?? [];
    const inAfter = new Set(after);
    const common = new Set(before.filter((child) => inAfter.has(child)));
    return (
      before.filter((child) => common.has(child)).join('\u0000') !==
      after.filter((child) => common.has(child)).join('\u0000')
    );
  }

  /** Whether the side changed a page of base or anything beneath it (creations and moves included). */
  changedBeneath(id: string): boolean {
    const known = this.beneath.get(id);
    if (known !== undefined) return known;
    const result =
      this.changed(id) ||
      (this.side.children.get(id) ?? []).some((child) => !this.base.pages.has(child) || this.changedBeneath(child));
    this.beneath.set(id, result);
    return result;
  }
}

/** What becomes of a page of the merged tree. */
interface PagePlan {
  id: string;
  /** The versions that exist ('all', 'both': created on both sides), or the side it is taken from. */
  from: 'all' | 'both' | 'live' | 'request';
  /** Deleted on one side, changed on the other. */
  existenceConflict: boolean;
  parent: string | null;
  parentConflict: boolean;
  /** The side whose parent the page takes (for breaking cycles). */
  parentFrom: 'base' | 'live' | 'request';
  fields: Record<string, unknown>;
  propertyConflicts: string[];
  document: DocumentChoice;
  documentConflict: boolean;
  blockConflicts: string[];
}

/** Merges the page trees (see the module's documentation). */
function mergePages(
  ctx: Context,
  basePages: readonly ContentPage[],
  livePages: readonly ContentPage[],
  requestPages: readonly ContentPage[],
): Part<ContentPage> {
  const base = indexTree(basePages);
  const live = indexTree(livePages);
  const request = indexTree(requestPages);
  const liveChanges = new SideChanges(ctx, base, live);
  const requestChanges = new SideChanges(ctx, base, request);
  const treeOf = { live, request };

  // Existence.
  const plans = new Map<string, PagePlan>();
  const plan = (id: string, from: PagePlan['from'], existenceConflict = false): void => {
    plans.set(id, {
      id,
      from,
      existenceConflict,
      parent: null,
      parentConflict: false,
      parentFrom: 'base',
      fields: {},
      propertyConflicts: [],
      document: { id: undefined },
      documentConflict: false,
      blockConflicts: [],
    });
  };
  const kept: Array<{ id: string; side: 'live' | 'request' }> = [];
  for (const id of unique([...base.order, ...live.order, ...request.order])) {
    const [inBase, inLive, inRequest] = [base.pages.has(id), live.pages.has(id), request.pages.has(id)];
    if (inLive && inRequest) plan(id, inBase ? 'all' : 'both');
    else if (!inBase) plan(id, inLive ? 'live' : 'request');
    else if (inLive && liveChanges.changedBeneath(id)) {
      plan(id, 'live', true);
      kept.push({ id, side: 'live' });
    } else if (inRequest && requestChanges.changedBeneath(id)) {
      plan(id, 'request', true);
      kept.push({ id, side: 'request' });
    }
  }
  // A page kept by a conflict keeps its subtree, as the side that changed it has it.
  for (const { id, side } of kept) {
    const tree = treeOf[side];
    const keepBeneath = (parent: string) => {
      for (const child of tree.children.get(parent) ?? []) {
        if (!plans.has(child)) plan(child, side);
        keepBeneath(child);
      }
    };
    keepBeneath(id);
  }

  // Parents.
  const parentIn = (id: string): string | null | undefined =>
    request.parent.has(id) ? request.parent.get(id) : live.parent.has(id) ? live.parent.get(id) : base.parent.get(id);
  /** The nearest kept page among `parent` and its ancestors (null: the top level). */
  const keptAncestor = (parent: string | null | undefined): string | null => {
    let at = parent ?? null;
    const seen = new Set<string>();
    while (at !== null && !plans.has(at) && !seen.has(at)) {
      seen.add(at);
      at = parentIn(at) ?? null;
    }
    return at !== null && plans.has(at) ? at : null;
  };
  for (const page of plans.values()) {
    const [b, l, r] = [base.parent.get(page.id), live.parent.get(page.id), request.parent.get(page.id)];
    if (page.from === 'live') [page.parent, page.parentFrom] = [l!, 'live'];
    else if (page.from === 'request') [page.parent, page.parentFrom] = [r!, 'request'];
    else if (l === r) [page.parent, page.parentFrom] = [r!, 'request'];
    else if (page.from === 'all' && l === b) [page.parent, page.parentFrom] = [r!, 'request'];
    else if (page.from === 'all' && r === b) [page.parent, page.parentFrom] = [l!, 'live'];
    else [page.parent, page.parentFrom, page.parentConflict] = [r!, 'request', true];
    page.parent = keptAncestor(page.parent);
  }
  // Two moves that each make sense alone may make a page its own ancestor: the page of the
  // cycle whose parent does not come from the request (whose tree has no cycle) takes the
  // request's parent.
  for (const page of plans.values()) {
    for (;;) {
      const chain: string[] = [];
      let at: string | null = page.id;
      while (at !== null && !chain.includes(at)) {
        chain.push(at);
        at = plans.get(at)!.parent;
      }
      if (at === null) break;
      const cycle = chain.slice(chain.indexOf(at));
      const fromLive = cycle.find((id) => plans.get(id)!.parentFrom !== 'request');
      // (Without one, the cycle comes from re-attaching pages to kept ancestors: the first goes to the top level.)
      const breaker = plans.get(fromLive ?? cycle[0]!)!;
      breaker.parent = fromLive && request.pages.has(breaker.id) ? keptAncestor(request.parent.get(breaker.id)) : null;
      breaker.parentFrom = 'request';
      breaker.parentConflict = true;
    }
  }

  // Order among siblings.
  const children = new Map<string | null, string[]>();
  for (const [parent, siblings] of Map.groupBy(plans.values(), (page) => page.parent)) {
    children.set(
      parent,
      mergeSequence(
        base.children.get(parent) ?? [],
        live.children.get(parent) ?? [],
        request.children.get(parent) ?? [],
        siblings.map((page) => page.id),
      ),
    );
  }
  const order: string[] = [];
  const visit = (parent: string | null) => {
    for (const id of children.get(parent) ?? []) {
      order.push(id);
      visit(id);
    }
  };
  visit(null);

  // Fields and documents, in tree order.
  for (const id of order) {
    const page = plans.get(id)!;
    const [b, l, r] = [base.pages.get(id), live.pages.get(id), request.pages.get(id)];
    if (page.from === 'live' || page.from === 'request') {
      const source = (page.from === 'live' ? l : r)!;
      page.fields = mergeProperties(ctx, source, source, source, {
        order: PAGE_PROPERTY_ORDER,
        skip: PAGE_NON_PROPERTIES,
      }).value;
      page.document = { id: source.documentId };
      continue;
    }
    const properties = mergeProperties(ctx, page.from === 'all' ? b : undefined, l!, r!, {
      order: PAGE_PROPERTY_ORDER,
      skip: PAGE_NON_PROPERTIES,
    });
    page.fields = properties.value;
    page.propertyConflicts = properties.conflicts;
    const document = mergeDocumentIds(
      ctx,
      page.from === 'all' ? b!.documentId : undefined,
      l!.documentId,
      r!.documentId,
    );
    page.document = document.choice;
    page.documentConflict = document.conflict;
    page.blockConflicts = document.blocks;
  }

  const conflicts: MergeConflict[] = [];
  for (const id of order) {
    const page = plans.get(id)!;
    if (page.existenceConflict) conflicts.push({ page: id });
    if (page.parentConflict) conflicts.push({ page: id, property: 'parent' });
    for (const property of page.propertyConflicts) conflicts.push({ page: id, property });
    if (page.documentConflict) conflicts.push({ page: id, property: 'document' });
    for (const block of page.blockConflicts) conflicts.push({ page: id, block });
  }

  const build = (parent: string | null): ContentPage[] => {
    const ids = children.get(parent) ?? [];
    const fields = ids.map((id) => ({ ...plans.get(id)!.fields }));
    uniqueSlugs(ids, fields, (id, slug) => live.parent.get(id) === parent && live.pages.get(id)?.slug === slug);
    return ids.map((id, index) => {
      const page = plans.get(id)!;
      const [b, l, r] = [base.pages.get(id), live.pages.get(id), request.pages.get(id)];
      const own: Record<string, unknown> = { id, ...fields[index] };
      const documentId = documentIdOf(page.document);
      if (documentId !== undefined) own.documentId = documentId;
      const merged: Record<string, unknown> = { ...own };
      const createdAt = l?.createdAt ?? r?.createdAt ?? b?.createdAt;
      if (createdAt !== undefined) merged.createdAt = createdAt;
      const updatedAt = l && ctx.sig(own) === ctx.sig(pageFields(l)) ? l.updatedAt : newest(l?.updatedAt, r?.updatedAt);
      if (updatedAt !== undefined) merged.updatedAt = updatedAt;
      merged.pages = build(id);
      return shared(ctx, merged as unknown as ContentPage, l, r);
    });
  };
  return { conflicts, build: () => build(null) };
}

/** The later of two timestamps (ISO dates), either possibly absent. */
function newest(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  if (Number.isNaN(ta) || Number.isNaN(tb)) return a >= b ? a : b;
  return tb > ta ? b : a;
}

/**
 * Makes the slugs of siblings unique (in place): pages that `established` says hold their slug
 * there already (in live) keep it, then the others keep theirs in order while it is free; a
 * taken slug gets the first free `-2`, `-3`… suffix. (Established pages are never renamed, even
 * if live itself repeats a slug: the merge only settles what it brings together.)
 */
function uniqueSlugs(
  ids: readonly string[],
  fields: Array<Record<string, unknown>>,
  established: (id: string, slug: string) => boolean,
): void {
  const slugged = ids
    .map((id, index) => ({ id, fields: fields[index]! }))
    .filter((page) => typeof page.fields.slug === 'string');
  const wanted = new Set(slugged.map((page) => page.fields.slug as string));
  const first = slugged.filter((page) => established(page.id, page.fields.slug as string));
  const taken = new Set(first.map((page) => page.fields.slug as string));
  for (const page of slugged.filter((candidate) => !first.includes(candidate))) {
    const slug = page.fields.slug as string;
    if (!taken.has(slug)) {
      taken.add(slug);
      continue;
    }
    let n = 2;
    while (taken.has(`${slug}-${n}`) || wanted.has(`${slug}-${n}`)) n++;
    page.fields.slug = `${slug}-${n}`;
    taken.add(`${slug}-${n}`);
  }
}
