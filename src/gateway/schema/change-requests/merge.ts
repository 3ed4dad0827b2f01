import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { compositeKey } from '../kit/ids.js';
import { type MergeConflict, mergeChangeRequest } from '../../upstream/change-requests.js';
import { builder } from '../kit/builder.js';
import { FileNode, ReusableContentNode } from '../content/file.js';
import { PageInterface } from '../content/page.js';
import { lightRevision, RevisionNode, revisionStub, treeIndex } from '../content/revision.js';
import { linkTo } from '../kit/loaders.js';
import { declareMutation } from '../kit/mutations.js';
import { payloadType } from '../kit/payloads.js';
import { afterWrite, requestField, resolveTarget, targetFields, type RequestAfter } from './target.js';

/** Merging a change request into the live content, and updating it from the live content: both may meet conflicts. */

const MergeResultEnum = builder.enumType('MergeResult', {
  description: 'How a merge went.',
  values: {
    MERGED: { value: 'merge', description: 'Merged: the live content now has the changes.' },
    CONFLICTS: {
      value: 'conflicts',
      description: 'Not merged: both sides changed the same things (see `conflicts`); nothing live changed.',
    },
  },
});

const UpdateResultEnum = builder.enumType('UpdateFromMainResult', {
  description: 'How an update from the main content went.',
  values: {
    UPDATED: { value: 'update', description: 'The change request now has the live changes and is up to date.' },
    CONFLICTS: {
      value: 'conflicts',
      description:
        'Up to date, with conflicts: each conflicting block keeps its version with the live one after it (see `conflicts`), to resolve before merging.',
    },
  },
});

type ConflictHeld = MergeConflict & { spaceId: string; revisionId: string };

/** The key of a part (a file, a reusable content) of the revision a conflict is found in. */
const partKey = (c: ConflictHeld, id: string | null | undefined) =>
  id ? compositeKey(c.spaceId, c.revisionId, id) : null;

/** A part of that revision as far as its keys go, for a link asked for nothing else. */
const partStub =
  <Shape>(c: ConflictHeld, id: string | null | undefined) =>
  () =>
    ({ id, spaceId: c.spaceId, revisionId: c.revisionId }) as Shape;

const MergeConflictType = builder.objectRef<ConflictHeld>('MergeConflict').implement({
  description:
    'Something both sides changed differently: a page (deleted and edited), one of its properties, one of its blocks, a file, a reusable content or a variable.',
  fields: (t) => ({
    pageId: t.string({
      nullable: true,
      description: 'Platform id of the page in conflict.',
      resolve: (c) => c.page ?? null,
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page in conflict, as the change request has it (null when it has no such page). Reads its tree once.',
      extensions: upstream.fetch(1),
      resolve: async (c, _a, ctx) =>
        c.page
          ? ((await treeIndex(ctx, lightRevision(c.spaceId, c.revisionId, false))).byId.get(c.page) ?? null)
          : null,
    }),
    blockKey: t.string({
      nullable: true,
      description: 'Key of the block in conflict, in the page or reusable content.',
      resolve: (c) => c.block ?? null,
    }),
    property: t.string({
      nullable: true,
      description: 'The page property in conflict (`title`, `parent`, `document`, …).',
      resolve: (c) => c.property ?? null,
    }),
    fileId: t.string({
      nullable: true,
      description: 'Platform id of the file in conflict.',
      resolve: (c) => c.file ?? null,
    }),
    file: t.field({
      type: FileNode,
      nullable: true,
      description:
        'The file in conflict, as the change request has it; null with NOT_FOUND when it has no such file. Its `id` costs nothing.',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) => linkTo(FileNode, partKey(c, c.file), info, partStub(c, c.file)),
    }),
    reusableContentId: t.string({
      nullable: true,
      description: 'Platform id of the reusable content in conflict.',
      resolve: (c) => c.reusableContent ?? null,
    }),
    reusableContent: t.field({
      type: ReusableContentNode,
      nullable: true,
      description:
        'The reusable content in conflict, as the change request has it; null with NOT_FOUND when it has none such. Its `id` costs nothing.',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) =>
        linkTo(ReusableContentNode, partKey(c, c.reusableContent), info, partStub(c, c.reusableContent)),
    }),
    variable: t.string({
      nullable: true,
      description: 'Name of the variable in conflict.',
      resolve: (c) => c.variable ?? null,
    }),
  }),
});

interface MergeHeld {
  result: 'merge' | 'update' | 'conflicts';
  revisionId: string;
  spaceId: string;
  changeRequest: RequestAfter;
  conflicts: MergeConflict[];
  /** The revision whose tree the conflicting pages are found in: the change request's after the write. */
  conflictRevision: string;
}

const mergePayload = (name: string, resultType: typeof MergeResultEnum | typeof UpdateResultEnum, revision: string) =>
  payloadType<MergeHeld>(name, (t) => ({
    result: t.field({
      type: resultType,
      nullable: true,
      description: 'How it went.',
      resolve: (p) => p.result ?? null,
    }),
    revision: t.field({
      type: RevisionNode,
      nullable: true,
      description: revision,
      extensions: upstream.link,
      resolve: (p, _a, _ctx, info) =>
        p.revisionId
          ? linkTo(RevisionNode, compositeKey(p.spaceId!, p.revisionId), info, revisionStub(p.spaceId!, p.revisionId))
          : null,
    }),
    changeRequest: t.field(requestField('The change request after it.')),
    conflicts: t.field({
      type: [MergeConflictType],
      nullable: true,
      description: 'What both sides changed differently; empty when there were no conflicts.',
      resolve: (p) =>
        (p.conflicts ?? []).map((conflict) => ({ ...conflict, spaceId: p.spaceId!, revisionId: p.conflictRevision! })),
    }),
  }));

async function mergeOrUpdate(
  ctx: GatewayContext,
  spaceId: string,
  changeRequestId: string,
  action: 'merge' | 'update',
): Promise<MergeHeld> {
  const data = await mergeChangeRequest(ctx.api, spaceId, changeRequestId, action);
  // A merge with conflicts answers the request's revision; an update, the one it wrote: the
  // conflicting pages are in that revision's tree either way.
  return {
    result: data.result,
    revisionId: data.revision,
    spaceId,
    changeRequest: afterWrite(spaceId, changeRequestId),
    conflicts: data.conflicts,
    conflictRevision: data.revision,
  };
}

declareMutation('mergeChangeRequest', {
  description:
    'Merges a change request into the live content (review role, and the merge rules of the space: a rule not met is a PRECONDITION_FAILED user error naming it). With conflicts, nothing live changes and they are listed.',
  input: 'The change request to merge.',
  fields: targetFields,
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    mergePayload(
      name,
      MergeResultEnum,
      'The live revision the merge made; with conflicts, the content of the change request.',
    ),
  run: ({ spaceId, changeRequestId }, ctx) => mergeOrUpdate(ctx, spaceId, changeRequestId, 'merge'),
});

declareMutation('updateChangeRequestFromMain', {
  description:
    'Brings what was merged live since a change request branched into it (edit role). Conflicting blocks keep its version, with the live one next to it, and are listed.',
  input: 'The change request to update.',
  fields: targetFields,
  check: (input) => input.transform(resolveTarget),
  payload: (name) => mergePayload(name, UpdateResultEnum, 'The content of the change request after the update.'),
  run: ({ spaceId, changeRequestId }, ctx) => mergeOrUpdate(ctx, spaceId, changeRequestId, 'update'),
});
