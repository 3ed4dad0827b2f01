import { createHash } from 'node:crypto';
import { base62, slugify, type Block, type JSONDocument, type Paragraph } from '../../document/model.js';
import type { ContentPage, RevisionContent } from '../content/revisions.js';
import type { Db } from '../store/db.js';
import { versionDocument } from './documents.js';
import { findSpec, latestVersion, type OpenAPISpecRow, type OpenAPIVersionRow } from './store.js';

/**
 * Computed content of `builtin:openapi` sources: the pages and documents an OpenAPI
 * specification generates from its latest version.
 *
 * - A revision source (a `computed` page of a revision) generates one page per tag, in the order
 *   the document declares its tags (then tags only operations name), holding the tag's
 *   operations as `openapi-operation` blocks; operations without a tag go to a page of their own
 *   (`default`); with `props.models` (unless false) a "Models" page holds an `openapi-schemas`
 *   block of every schema. With `props.grouping: by-operation`, each tag page has a child page
 *   per operation instead.
 * - Each generated page is a document page whose `computed` is the document source that makes
 *   its body (`{ doc: 'operations', page: <tag> }`, `{ doc: 'models' }`, …), with the
 *   specification resolved (its `lastVersion`), and whose `computedSeed` seeds its ids: the
 *   same source and seed always give the same page ids, block keys and document, so
 *   `computed/document` with a page's `computed` and `computedSeed` answers that page's body.
 * - Reads of a revision expand its `computed` pages into the pages they generate
 *   (`expandComputed`), unless asked not to (`computed=false`); a new version of the
 *   specification changes what they generate.
 */

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Props of a revision source. */
export interface OpenAPIRevisionProps {
  models?: boolean;
  downloadLink?: boolean;
  grouping?: 'by-tag' | 'by-operation';
}

/** Props of a document source: which part of the specification the document shows. */
export type OpenAPIDocumentProps =
  | { doc: 'models' }
  | { doc: 'operations' | 'info' | 'tag'; page: string }
  | { doc: 'operation'; page: string; method: string; deprecated?: boolean };

/** The specification a computation reads: one version of it, parsed. */
export interface SpecSnapshot {
  spec: OpenAPISpecRow;
  version: OpenAPIVersionRow;
  document: Record<string, unknown>;
}

/** The tag of operations that have none (as Swagger UI names it). */
export const UNTAGGED = 'default';

// ---------------------------------------------------------------------------------------------
// Reading the specification
// ---------------------------------------------------------------------------------------------

/**
 * The specification of `slug` in the organization at `versionId` (its latest version when not
 * given, or when that version is gone): undefined when there is no such specification, `null`
 * when it has no version yet.
 */
export function specSnapshot(db: Db, orgId: string, slug: string, versionId?: string): SpecSnapshot | null | undefined {
  const spec = findSpec(db, orgId, slug);
  if (!spec) return undefined;
  const pinned = versionId
    ? (db.prepare('SELECT * FROM openapi_spec_versions WHERE spec_id = ? AND id = ?').get(spec.id, versionId) as
        | OpenAPIVersionRow
        | undefined)
    : undefined;
  const version = pinned ?? latestVersion(db, spec);
  if (!version) return null;
  // Parsed once per version (see `documents.ts`); the processing that made it usually did.
  return { spec, version, document: versionDocument(version) ?? {} };
}

interface Operation {
  path: string;
  method: string;
  tags: string[];
  summary: string | undefined;
  operationId: string | undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);
const stringOf = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** The operations of a document, in document order (paths, then methods in the usual order). */
function operationsOf(document: Record<string, unknown>): Operation[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/') || !isObject(item)) continue;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const tags = Array.isArray(operation.tags)
        ? operation.tags.filter((tag): tag is string => typeof tag === 'string' && tag !== '')
        : [];
      operations.push({
        path,
        method,
        tags: tags.length ? [...new Set(tags)] : [UNTAGGED],
        summary: stringOf(operation.summary),
        operationId: stringOf(operation.operationId),
      });
    }
  }
  return operations;
}

interface TagGroup {
  name: string;
  title: string;
  description: string | undefined;
  operations: Operation[];
}

/**
 * Operations by tag: declared tags first, in their order, then tags only operations name, in the
 * order they first appear; an operation with several tags is in each. Tags without operations
 * are left out.
 */
function tagGroups(document: Record<string, unknown>): TagGroup[] {
  const declared = new Map<string, Record<string, unknown>>();
  for (const tag of Array.isArray(document.tags) ? document.tags : []) {
    if (isObject(tag) && typeof tag.name === 'string' && !declared.has(tag.name)) declared.set(tag.name, tag);
  }
  const groups = new Map<string, TagGroup>();
  const group = (name: string) => {
    let found = groups.get(name);
    if (!found) {
      const tag = declared.get(name);
      found = {
        name,
        title: stringOf(tag?.['x-displayName']) ?? name,
        description: stringOf(tag?.description),
        operations: [],
      };
      groups.set(name, found);
    }
    return found;
  };
  for (const name of declared.keys()) group(name);
  for (const operation of operationsOf(document))
    for (const tag of operation.tags) group(tag).operations.push(operation);
  const used = [...groups.values()].filter((item) => item.operations.length > 0);
  const untagged = groups.get(UNTAGGED);
  if (untagged && !declared.has(UNTAGGED)) {
    // Alone, untagged operations are the API itself; beside tags, they are the rest.
    const info = isObject(document.info) ? document.info : {};
    untagged.title = used.length === 1 ? (stringOf(info.title) ?? 'Operations') : 'Other operations';
  }
  return used;
}

/** Names of the schemas of a document (`components.schemas`, or Swagger 2.0 `definitions`). */
function schemaNames(document: Record<string, unknown>): string[] {
  const components = isObject(document.components) ? document.components : {};
  const schemas = isObject(components.schemas)
    ? components.schemas
    : isObject(document.definitions)
      ? document.definitions
      : {};
  return Object.keys(schemas);
}

// ---------------------------------------------------------------------------------------------
// Documents
// ---------------------------------------------------------------------------------------------

/** A stable id made of a seed and a part: the same inputs always give the same id. */
function derivedId(seed: string, part: string, length: number): string {
  return base62(createHash('sha256').update(`${seed}\u0000${part}`).digest(), length);
}

function paragraphs(textValue: string | undefined, seed: string, part: string): Paragraph[] {
  if (!textValue) return [];
  return textValue
    .split(/\n\s*\n/)
    .map((chunk) => chunk.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean)
    .map((chunk, index) => ({
      object: 'block',
      type: 'paragraph',
      key: derivedId(seed, `${part}:p${index}`, 12),
      data: {},
      nodes: [
        {
          object: 'text',
          key: derivedId(seed, `${part}:t${index}`, 12),
          leaves: [{ object: 'leaf', text: chunk, marks: [] }],
        },
      ],
    }));
}

function operationBlock(slug: string, operation: Pick<Operation, 'path' | 'method'>, seed: string): Block {
  return {
    object: 'block',
    type: 'openapi-operation',
    key: derivedId(seed, `op:${operation.method} ${operation.path}`, 12),
    isVoid: true,
    data: { ref: { kind: 'openapi', spec: slug }, path: operation.path, method: operation.method },
    meta: { id: slugify(`${operation.method} ${operation.path}`) || operation.method },
  };
}

function schemasBlock(slug: string, schemas: string[], seed: string): Block {
  return {
    object: 'block',
    type: 'openapi-schemas',
    key: derivedId(seed, 'models', 12),
    isVoid: true,
    data: { ref: { kind: 'openapi', spec: slug }, schemas, grouped: true },
    meta: { id: 'models' },
  };
}

/** The document a document source generates from the specification (empty when it names nothing there). */
export function computeDocument(snapshot: SpecSnapshot, props: OpenAPIDocumentProps, seed: string): JSONDocument {
  const { document } = snapshot;
  const slug = snapshot.spec.slug;
  let nodes: Block[] = [];
  switch (props.doc) {
    case 'models': {
      const names = schemaNames(document);
      nodes = names.length ? [schemasBlock(slug, names, seed)] : [];
      break;
    }
    case 'operations': {
      const group = tagGroups(document).find((item) => item.name === props.page);
      nodes = group ? group.operations.map((operation) => operationBlock(slug, operation, seed)) : [];
      break;
    }
    case 'operation': {
      const method = props.method.toLowerCase();
      const found = operationsOf(document).find(
        (operation) => operation.path === props.page && operation.method === method,
      );
      nodes = found ? [operationBlock(slug, found, seed)] : [];
      break;
    }
    case 'tag': {
      nodes = paragraphs(tagGroups(document).find((item) => item.name === props.page)?.description, seed, 'tag');
      break;
    }
    case 'info': {
      const info = isObject(document.info) ? document.info : {};
      nodes = paragraphs(stringOf(info.description), seed, 'info');
      break;
    }
  }
  return { object: 'document', data: {}, nodes };
}

// ---------------------------------------------------------------------------------------------
// Pages
// ---------------------------------------------------------------------------------------------

/** The document source of a generated page, with the specification resolved. */
function documentSource(snapshot: SpecSnapshot, props: OpenAPIDocumentProps): Record<string, unknown> {
  const { spec, version } = snapshot;
  return {
    type: 'builtin:openapi',
    props,
    dependencies: {
      spec: {
        ref: { kind: 'openapi', spec: spec.slug },
        value: {
          object: 'openapi-spec',
          id: spec.id,
          slug: spec.slug,
          lastVersion: version.id,
          visibility: spec.visibility,
        },
      },
    },
  };
}

/** A slug unique among `used` (which it joins), at most 100 characters. */
function uniqueSlug(title: string, used: Set<string>): string {
  const base = (slugify(title) || 'page').slice(0, 90);
  let slug = base;
  for (let n = 2; used.has(slug); n += 1) slug = `${base}-${n}`;
  used.add(slug);
  return slug;
}

function generatedPage(
  snapshot: SpecSnapshot,
  props: OpenAPIDocumentProps,
  seed: string,
  part: string,
  fields: { title: string; description?: string | undefined; used: Set<string>; pages?: ContentPage[] },
): ContentPage {
  const id = derivedId(seed, part, 20);
  const description = fields.description?.split('\n')[0]?.trim();
  return {
    id,
    type: 'document',
    title: fields.title,
    slug: uniqueSlug(fields.title, fields.used),
    ...(description ? { description: description.length > 300 ? `${description.slice(0, 299)}…` : description } : {}),
    computed: documentSource(snapshot, props),
    // The seed of a page's body is its id: unique, and stable for the same source and seed.
    computedSeed: id,
    pages: fields.pages ?? [],
  };
}

/**
 * The pages a revision source generates from the specification. `usedSlugs` holds the slugs of
 * the pages they will sit beside (the generated ones join it).
 */
export function computePages(
  snapshot: SpecSnapshot,
  props: OpenAPIRevisionProps,
  seed: string,
  usedSlugs = new Set<string>(),
): ContentPage[] {
  const { document } = snapshot;
  const pages: ContentPage[] = [];
  for (const group of tagGroups(document)) {
    if (props.grouping === 'by-operation') {
      const childSlugs = new Set<string>();
      const children = group.operations.map((operation) =>
        generatedPage(
          snapshot,
          { doc: 'operation', page: operation.path, method: operation.method },
          seed,
          `op:${group.name}:${operation.method} ${operation.path}`,
          {
            title: operation.summary ?? operation.operationId ?? `${operation.method.toUpperCase()} ${operation.path}`,
            used: childSlugs,
          },
        ),
      );
      pages.push(
        generatedPage(snapshot, { doc: 'tag', page: group.name }, seed, `tag:${group.name}`, {
          title: group.title,
          description: group.description,
          used: usedSlugs,
          pages: children,
        }),
      );
    } else {
      pages.push(
        generatedPage(snapshot, { doc: 'operations', page: group.name }, seed, `tag:${group.name}`, {
          title: group.title,
          description: group.description,
          used: usedSlugs,
        }),
      );
    }
  }
  if (props.models !== false && schemaNames(document).length > 0) {
    pages.push(generatedPage(snapshot, { doc: 'models' }, seed, 'models', { title: 'Models', used: usedSlugs }));
  }
  return pages;
}

/** The spec slug a `builtin:openapi` source depends on, if it is one. */
export function openAPISlugOf(source: Record<string, unknown> | undefined): string | undefined {
  if (source?.type !== 'builtin:openapi') return undefined;
  const spec = isObject(source.dependencies) ? source.dependencies.spec : undefined;
  const ref = isObject(spec) ? spec.ref : undefined;
  return isObject(ref) && ref.kind === 'openapi' && typeof ref.spec === 'string' ? ref.spec : undefined;
}

/** The version a resolved source was computed from (`dependencies.spec.value.lastVersion`), if given. */
function pinnedVersion(source: Record<string, unknown>): string | undefined {
  const spec = isObject(source.dependencies) ? source.dependencies.spec : undefined;
  const value = isObject(spec) ? spec.value : undefined;
  return isObject(value) && typeof value.lastVersion === 'string' ? value.lastVersion : undefined;
}

/**
 * The body of a page generated by computed content (its `computed` document source and seed),
 * from the version it was generated from; undefined for other pages.
 */
export function generatedPageDocument(db: Db, orgId: string, page: ContentPage): JSONDocument | undefined {
  if (page.type !== 'document' || !page.computed || page.computedSeed === undefined) return undefined;
  const slug = openAPISlugOf(page.computed);
  const snapshot = slug === undefined ? undefined : specSnapshot(db, orgId, slug, pinnedVersion(page.computed));
  if (!snapshot) return { object: 'document', data: {}, nodes: [] };
  return computeDocument(snapshot, page.computed.props as OpenAPIDocumentProps, page.computedSeed);
}

// ---------------------------------------------------------------------------------------------
// Expansion of revisions
// ---------------------------------------------------------------------------------------------

/** Slugs of the specifications a content's computed pages depend on, per content (which never changes). */
const dependencies = new WeakMap<RevisionContent, string[]>();
/** Expanded contents, with the versions they were computed from. */
const expansions = new WeakMap<RevisionContent, { key: string; content: RevisionContent }>();

function specSlugsOf(content: RevisionContent): string[] {
  let slugs = dependencies.get(content);
  if (!slugs) {
    const found = new Set<string>();
    const walk = (pages: readonly ContentPage[]) => {
      for (const page of pages) {
        const slug = page.type === 'computed' ? openAPISlugOf(page.computed) : undefined;
        if (slug !== undefined) found.add(slug);
        walk(page.pages);
      }
    };
    walk(content.pages);
    slugs = [...found];
    dependencies.set(content, slugs);
  }
  return slugs;
}

/**
 * The content with each `builtin:openapi` computed page replaced by the pages it generates from
 * the latest version of its specification (in the organization `orgId`); nothing in place of one
 * whose specification is missing or has no version yet. Other computed pages stay as they are.
 * The same content and versions give the same (cached) object.
 */
export function expandComputed(db: Db, orgId: string, content: RevisionContent): RevisionContent {
  const slugs = specSlugsOf(content);
  if (slugs.length === 0) return content;
  const snapshots = new Map(slugs.map((slug) => [slug, specSnapshot(db, orgId, slug)] as const));
  const key = slugs
    .map((slug) => {
      const snapshot = snapshots.get(slug);
      return snapshot ? `${slug}:${snapshot.version.id}:${snapshot.spec.visibility}` : `${slug}:-`;
    })
    .join('\n');
  const known = expansions.get(content);
  if (known?.key === key) return known.content;

  const expandPages = (pages: readonly ContentPage[]): ContentPage[] => {
    const used = new Set(pages.map((page) => page.slug).filter((slug): slug is string => slug !== undefined));
    return pages.flatMap((page) => {
      const slug = page.type === 'computed' ? openAPISlugOf(page.computed) : undefined;
      if (slug !== undefined) {
        const snapshot = snapshots.get(slug);
        return snapshot
          ? computePages(snapshot, (page.computed!.props ?? {}) as OpenAPIRevisionProps, page.id, used)
          : [];
      }
      if (page.pages.length === 0) return [page];
      const children = expandPages(page.pages);
      return children.every((child, index) => child === page.pages[index]) && children.length === page.pages.length
        ? [page]
        : [{ ...page, pages: children }];
    });
  };
  const expanded = { ...content, pages: expandPages(content.pages) };
  expansions.set(content, { key, content: expanded });
  return expanded;
}
