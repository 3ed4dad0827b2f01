import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { compositeKey } from '../kit/ids.js';
import { getRevisionChanges } from '../../upstream/content.js';
import type { RevisionSemanticChange as SemanticChange } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { brandAs } from '../kit/loaders.js';
import { FileNode, ReusableContentNode, type ReusableContentHeld } from './file.js';
import { PageInterface } from './page.js';
import {
  indexOf,
  placeFile,
  placePage,
  readOnce,
  readRevision,
  RevisionNode,
  treeIndex,
  type FileHeld,
  type PageHeld,
  type RevisionHeld,
} from './revision.js';

/**
 * What a revision changed compared with its first parent (`…/revisions/{id}/changes`): one union
 * member per kind of change. Pages and files that exist in the revision resolve from its tree;
 * deleted ones (and where a moved page was) from its parent's, read once per request.
 */

type Change<T extends SemanticChange['type']> = Extract<SemanticChange, { type: T }> & { revision: RevisionHeld };

/** The revision whose tree holds what a change names: the revision itself, or its first parent. */
async function treeOf(ctx: GatewayContext, change: { revision: RevisionHeld }, before: boolean) {
  const { revision } = change;
  // A light revision (a change request's changes) reads its tree once, only when a change asks for it.
  if (!before) return treeIndex(ctx, revision);
  const parent = revision.parents[0];
  return parent ? indexOf(ctx, revision.spaceId, parent) : undefined;
}

/** A page a change names, from the right tree; a page outside it is described by the change alone. */
async function changedPage(
  ctx: GatewayContext,
  change: { revision: RevisionHeld },
  page: { id: string; type: PageHeld['page']['type']; title: string; path?: string | null | undefined },
  before: boolean,
): Promise<PageHeld> {
  const index = await treeOf(ctx, change, before);
  const found = index?.byId.get(page.id);
  if (found) return found;
  const { revision } = change;
  const held = placePage(
    { id: page.id, type: page.type, title: page.title, path: page.path ?? undefined, pages: [] },
    revision.spaceId,
    before ? (revision.parents[0] ?? revision.id) : revision.id,
    undefined,
    undefined,
  );
  // Outside the tree read: its parent, if asked, is looked up in its revision's tree.
  held.detached = true;
  return held;
}

/** A file a change names, from the right tree. */
async function changedFile(
  ctx: GatewayContext,
  change: { revision: RevisionHeld },
  file: { id: string; name: string; contentType: string; downloadURL: string },
  before: boolean,
): Promise<FileHeld> {
  const index = await treeOf(ctx, change, before);
  const found = index?.files.get(file.id);
  if (found) return found;
  const { revision } = change;
  const revisionId = before ? (revision.parents[0] ?? revision.id) : revision.id;
  return placeFile(file, revision.spaceId, revisionId, undefined);
}

/** A reusable content a change names: from the revision, or, deleted, from its first parent (read once per request). */
async function changedReusable(
  ctx: GatewayContext,
  change: { revision: RevisionHeld },
  item: { id: string; title: string; document?: string | null | undefined },
  before: boolean,
): Promise<ReusableContentHeld> {
  const parent = change.revision.parents[0];
  const revision = before && parent ? await readRevision(ctx, change.revision.spaceId, parent) : change.revision;
  const known = revision.reusableContents.find((candidate) => candidate.id === item.id);
  const held: ReusableContentHeld = {
    ...(known ?? item),
    spaceId: revision.spaceId,
    revisionId: revision.id,
    revision,
  };
  brandAs(held, 'ReusableContent');
  return held;
}

/** One changed attribute: its name, its value before and after. */
interface AttributeChange {
  name: string;
  before: unknown;
  after: unknown;
}

const AttributeChangeType = builder.objectRef<AttributeChange>('AttributeChange').implement({
  description: 'One attribute that changed, with its value before and after (null when it had none).',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Name of the attribute (`title`, `document`, a variable name, …).' }),
    before: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Value before the change.',
      resolve: (a) => a.before ?? null,
    }),
    after: t.field({
      type: 'JSON',
      nullable: true,
      description: 'Value after the change.',
      resolve: (a) => a.after ?? null,
    }),
  }),
});

const attributeList = (attributes: {
  [name: string]: { before?: unknown; after?: unknown } | null | undefined;
}): AttributeChange[] =>
  Object.entries(attributes).flatMap(([name, value]) =>
    value ? [{ name, before: value.before, after: value.after }] : [],
  );

const pageField = (before: boolean, description: string) => ({
  type: PageInterface,
  description,
  ...(before ? { extensions: upstream.fetch(1) } : {}),
});

const PageCreatedChange = builder.objectRef<Change<'page_created'>>('PageCreatedChange').implement({
  description: 'A page was created.',
  fields: (t) => ({
    page: t.field({
      ...pageField(false, 'The new page.'),
      resolve: (c, _a, ctx) => changedPage(ctx, c, c.page, false),
    }),
  }),
});

const PageDeletedChange = builder.objectRef<Change<'page_deleted'>>('PageDeletedChange').implement({
  description: 'A page was deleted.',
  fields: (t) => ({
    page: t.field({
      ...pageField(true, 'The page as it was in the parent revision (read once per request).'),
      resolve: (c, _a, ctx) => changedPage(ctx, c, c.page, true),
    }),
  }),
});

const PageEditedChange = builder.objectRef<Change<'page_edited'>>('PageEditedChange').implement({
  description: 'A page was edited: its title, body, slug, …',
  fields: (t) => ({
    page: t.field({
      ...pageField(false, 'The page after the change.'),
      resolve: (c, _a, ctx) => changedPage(ctx, c, c.page, false),
    }),
    attributes: t.field({
      type: [AttributeChangeType],
      description: 'What changed (the `document` attribute holds document ids).',
      resolve: (c) => attributeList(c.attributes),
    }),
  }),
});

const PageMovedChange = builder.objectRef<Change<'page_moved'>>('PageMovedChange').implement({
  description: 'A page was moved to another parent.',
  fields: (t) => ({
    page: t.field({
      ...pageField(false, 'The page after the move.'),
      resolve: (c, _a, ctx) => changedPage(ctx, c, c.page, false),
    }),
    previousParent: t.field({
      ...pageField(true, 'The page it was in (in the parent revision); null when it was at the top level.'),
      nullable: true,
      resolve: (c, _a, ctx) => (c.parent.before ? changedPage(ctx, c, c.parent.before, true) : null),
    }),
    parent: t.field({
      ...pageField(false, 'The page it is in now; null at the top level.'),
      nullable: true,
      resolve: (c, _a, ctx) => (c.parent.after ? changedPage(ctx, c, c.parent.after, false) : null),
    }),
  }),
});

const fileField = (before: boolean, description: string) => ({
  type: FileNode,
  description,
  ...(before ? { extensions: upstream.fetch(1) } : {}),
});

const FileCreatedChange = builder.objectRef<Change<'file_created'>>('FileCreatedChange').implement({
  description: 'A file was added.',
  fields: (t) => ({
    file: t.field({
      ...fileField(false, 'The new file.'),
      resolve: (c, _a, ctx) => changedFile(ctx, c, c.file, false),
    }),
  }),
});

const FileDeletedChange = builder.objectRef<Change<'file_deleted'>>('FileDeletedChange').implement({
  description: 'A file was removed.',
  fields: (t) => ({
    file: t.field({
      ...fileField(true, 'The file as it was in the parent revision (read once per request).'),
      resolve: (c, _a, ctx) => changedFile(ctx, c, c.file, true),
    }),
  }),
});

const FileEditedChange = builder.objectRef<Change<'file_edited'>>('FileEditedChange').implement({
  description: 'A file was changed: its name, bytes, type, …',
  fields: (t) => ({
    file: t.field({
      ...fileField(false, 'The file after the change.'),
      resolve: (c, _a, ctx) => changedFile(ctx, c, c.file, false),
    }),
    attributes: t.field({
      type: [AttributeChangeType],
      description: 'What changed.',
      resolve: (c) => attributeList(c.attributes),
    }),
  }),
});

const reusableField = (description: string) => ({ type: ReusableContentNode, description });

const ReusableContentCreatedChange = builder
  .objectRef<Change<'reusable_content_created'>>('ReusableContentCreatedChange')
  .implement({
    description: 'A reusable content was created.',
    fields: (t) => ({
      reusableContent: t.field({
        ...reusableField('The new reusable content.'),
        resolve: (c, _a, ctx) => changedReusable(ctx, c, c.reusableContent, false),
      }),
    }),
  });

const ReusableContentDeletedChange = builder
  .objectRef<Change<'reusable_content_deleted'>>('ReusableContentDeletedChange')
  .implement({
    description: 'A reusable content was deleted.',
    fields: (t) => ({
      reusableContent: t.field({
        ...reusableField(
          'The reusable content as it was before it was deleted (from the previous revision, read once).',
        ),
        extensions: upstream.fetch(1),
        resolve: (c, _a, ctx) => changedReusable(ctx, c, c.reusableContent, true),
      }),
    }),
  });

const ReusableContentEditedChange = builder
  .objectRef<Change<'reusable_content_edited'>>('ReusableContentEditedChange')
  .implement({
    description: 'A reusable content was edited.',
    fields: (t) => ({
      reusableContent: t.field({
        ...reusableField('The reusable content after the change.'),
        resolve: (c, _a, ctx) => changedReusable(ctx, c, c.reusableContent, false),
      }),
      attributes: t.field({
        type: [AttributeChangeType],
        description: 'What changed.',
        resolve: (c) => attributeList(c.attributes),
      }),
    }),
  });

const VariablesEditedChange = builder.objectRef<Change<'variables_edited'>>('VariablesEditedChange').implement({
  description: 'Variables of the content were added, changed or removed.',
  fields: (t) => ({
    variables: t.field({
      type: [AttributeChangeType],
      description: 'Each changed variable, by name (null before: added; null after: removed).',
      resolve: (c) => attributeList(c.variables),
    }),
  }),
});

const CHANGE_TYPENAMES = {
  page_created: 'PageCreatedChange',
  page_deleted: 'PageDeletedChange',
  page_edited: 'PageEditedChange',
  page_moved: 'PageMovedChange',
  file_created: 'FileCreatedChange',
  file_deleted: 'FileDeletedChange',
  file_edited: 'FileEditedChange',
  reusable_content_created: 'ReusableContentCreatedChange',
  reusable_content_deleted: 'ReusableContentDeletedChange',
  reusable_content_edited: 'ReusableContentEditedChange',
  variables_edited: 'VariablesEditedChange',
} as const satisfies Partial<Record<SemanticChange['type'], string>>;

const RevisionChange = builder.unionType('RevisionChange', {
  description: 'One change a revision made to the content, by kind.',
  types: [
    PageCreatedChange,
    PageDeletedChange,
    PageEditedChange,
    PageMovedChange,
    FileCreatedChange,
    FileDeletedChange,
    FileEditedChange,
    ReusableContentCreatedChange,
    ReusableContentDeletedChange,
    ReusableContentEditedChange,
    VariablesEditedChange,
  ],
  resolveType: (change) => CHANGE_TYPENAMES[change.type],
});

/** The kinds of change the graph shows. */
type ShownKind = keyof typeof CHANGE_TYPENAMES;

export interface RevisionChangesHeld {
  changes: Array<Change<ShownKind>>;
  more: number;
}

/**
 * What an answer of changes holds, as the graph shows it: each change with the revision it is
 * read in. Changes to tags (in the description, never answered by the platform: the graph has no
 * tags) are left out rather than failing the answer.
 */
export function changesHeld(
  answer: { changes: readonly SemanticChange[]; more?: number | null | undefined },
  revision: RevisionHeld,
): RevisionChangesHeld {
  const shown = answer.changes.filter((change): change is Extract<SemanticChange, { type: ShownKind }> =>
    Object.hasOwn(CHANGE_TYPENAMES, change.type),
  );
  return { changes: shown.map((change) => ({ ...change, revision })), more: answer.more ?? 0 };
}

export const RevisionChanges = builder.objectRef<RevisionChangesHeld>('RevisionChanges').implement({
  description:
    'What a revision changed compared with its first parent (everything, for the first revision of a space), or what a change request changed since the live content it is based on.',
  fields: (t) => ({
    changes: t.field({
      type: [RevisionChange],
      description: 'The changes, by kind, up to `limit`.',
      resolve: (c) => c.changes,
    }),
    more: t.int({ description: 'How many more changes there are beyond `limit`.', resolve: (c) => c.more }),
  }),
});

builder.objectFields(RevisionNode, (t) => ({
  changes: t.field({
    type: RevisionChanges,
    description:
      'What the revision changed compared with its first parent: pages, files, reusable contents, variables.',
    args: {
      limit: t.arg.int({
        defaultValue: 10,
        description: 'Most changes to return, 1 to 1000 (default 10); `more` counts the others.',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: async (revision, args, ctx) => {
      const limit = args.limit ?? 10;
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new BadUserInputError('`limit` must be between 1 and 1000', ['limit']);
      const answer = await readOnce(ctx, `changes:${compositeKey(revision.spaceId, revision.id)}:${limit}`, () =>
        getRevisionChanges(ctx.api, revision.spaceId, revision.id, limit),
      );
      return changesHeld(answer, revision);
    },
  }),
}));
