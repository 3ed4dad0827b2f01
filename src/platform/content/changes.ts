import { pageIndex, type PlacedPage } from './pages.js';
import type { ContentFile, ContentPage, ContentReusable, RevisionContent, VariableValue } from './revisions.js';

/**
 * The semantic changes between two contents (a revision against its first parent): pages
 * created, deleted, edited (which attributes) and moved; files, reusable contents and variables
 * created, edited and deleted. What each change names (`ChangedRevisionPage`, …) is described by
 * the caller's serializers, so that URLs come out as in every other answer.
 */
export type SemanticChange =
  | { type: 'page_created' | 'page_deleted'; page: PlacedPage }
  | { type: 'page_edited'; page: PlacedPage; attributes: Record<string, { before?: unknown; after?: unknown }> }
  | { type: 'page_moved'; page: PlacedPage; parent: { before?: PlacedPage; after?: PlacedPage } }
  | { type: 'file_created' | 'file_deleted'; file: ContentFile }
  | { type: 'file_edited'; file: ContentFile; attributes: Record<string, { before?: unknown; after?: unknown }> }
  | { type: 'reusable_content_created' | 'reusable_content_deleted'; reusableContent: ContentReusable }
  | {
      type: 'reusable_content_edited';
      reusableContent: ContentReusable;
      attributes: Record<string, { before?: unknown; after?: unknown }>;
    }
  | { type: 'variables_edited'; variables: Record<string, { before?: VariableValue; after?: VariableValue }> };

/** The page attributes compared, by page type (as `Revision*ChangeAttributes` lists them). */
const PAGE_ATTRIBUTES: Record<ContentPage['type'], ReadonlyArray<keyof ContentPage>> = {
  document: ['title', 'description', 'slug', 'documentId', 'cover', 'emoji', 'layout', 'variables'],
  group: ['title', 'emoji', 'slug'],
  link: ['title', 'emoji', 'target'],
  computed: ['title', 'emoji'],
};

/** The API name of a compared page field. */
const ATTRIBUTE_NAME: Partial<Record<keyof ContentPage, string>> = { documentId: 'document' };

/** Every change from `before` to `after`, pages in the order of `after` (deleted ones after). */
export function semanticChanges(before: RevisionContent, after: RevisionContent): SemanticChange[] {
  const changes: SemanticChange[] = [];
  const old = pageIndex(before);
  const now = pageIndex(after);
  for (const placed of now.ordered) {
    const previous = old.byId.get(placed.page.id);
    if (!previous) {
      changes.push({ type: 'page_created', page: placed });
      continue;
    }
    const attributes: Record<string, { before?: unknown; after?: unknown }> = {};
    for (const field of PAGE_ATTRIBUTES[placed.page.type]) {
      const was = previous.page[field];
      const is = placed.page[field];
      if (!same(was, is)) attributes[ATTRIBUTE_NAME[field] ?? field] = definedOnly({ before: was, after: is });
    }
    if (Object.keys(attributes).length > 0) changes.push({ type: 'page_edited', page: placed, attributes });
    if (previous.parent?.page.id !== placed.parent?.page.id) {
      changes.push({
        type: 'page_moved',
        page: placed,
        parent: definedOnly({ before: previous.parent, after: placed.parent }),
      });
    }
  }
  for (const placed of old.ordered) {
    if (!now.byId.has(placed.page.id)) changes.push({ type: 'page_deleted', page: placed });
  }

  const oldFiles = new Map(before.files.map((file) => [file.id, file]));
  const newFiles = new Map(after.files.map((file) => [file.id, file]));
  for (const file of after.files) {
    const previous = oldFiles.get(file.id);
    if (!previous) {
      changes.push({ type: 'file_created', file });
      continue;
    }
    const attributes: Record<string, { before?: unknown; after?: unknown }> = {};
    for (const field of ['name', 'contentType', 'size', 'dimensions'] as const) {
      if (!same(previous[field], file[field]))
        attributes[field] = definedOnly({ before: previous[field], after: file[field] });
    }
    // New bytes are a new download URL: the caller describes it from `hash`.
    if (previous.hash !== file.hash) attributes.downloadURL = { before: previous, after: file };
    if (Object.keys(attributes).length > 0) changes.push({ type: 'file_edited', file, attributes });
  }
  for (const file of before.files) if (!newFiles.has(file.id)) changes.push({ type: 'file_deleted', file });

  const oldReusable = new Map(before.reusableContents.map((item) => [item.id, item]));
  const newReusable = new Set(after.reusableContents.map((item) => item.id));
  for (const item of after.reusableContents) {
    const previous = oldReusable.get(item.id);
    if (!previous) {
      changes.push({ type: 'reusable_content_created', reusableContent: item });
      continue;
    }
    const attributes: Record<string, { before?: unknown; after?: unknown }> = {};
    if (previous.title !== item.title) attributes.title = { before: previous.title, after: item.title };
    if (previous.documentId !== item.documentId)
      attributes.document = definedOnly({ before: previous.documentId, after: item.documentId });
    if (Object.keys(attributes).length > 0)
      changes.push({ type: 'reusable_content_edited', reusableContent: item, attributes });
  }
  for (const item of before.reusableContents) {
    if (!newReusable.has(item.id)) changes.push({ type: 'reusable_content_deleted', reusableContent: item });
  }

  const variables: Record<string, { before?: VariableValue; after?: VariableValue }> = {};
  for (const name of new Set([...Object.keys(before.variables), ...Object.keys(after.variables)])) {
    const was = before.variables[name];
    const is = after.variables[name];
    if (was !== is) variables[name] = definedOnly({ before: was, after: is });
  }
  if (Object.keys(variables).length > 0) changes.push({ type: 'variables_edited', variables });
  return changes;
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function definedOnly<T extends Record<string, unknown>>(value: T): T {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value;
}
