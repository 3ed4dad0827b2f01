import type { GraphQLResolveInfo } from 'graphql';
import { listConnection, type ConnectionArgs } from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { compositeKey, platformKey, splitKey } from '../kit/ids.js';
import { onlyKeys } from '../../policy/cost.js';
import { selectedFields } from '../kit/links.js';
import {
  type ChangeRequestFilters,
  getChangeRequest,
  getChangeRequestChanges,
  getChangeRequestPdf,
  listOrganizationChangeRequests,
  listSpaceChangeRequests,
} from '../../upstream/change-requests.js';
import type { RestPages } from '../../upstream/operation.js';
import type { ChangeRequest } from '../../upstream/contract/types.js';
import { builder, type SchemaTypesOf } from '../kit/builder.js';
import { changesHeld, RevisionChanges } from '../content/changes.js';
import { PdfExport, pdfExportOf, pdfPage } from '../content/search.js';
import { lightRevision, readOnce, revisionFor, RevisionNode, revisionStub, treeIndex } from '../content/revision.js';
import { linkTo, loadableNode, prime } from '../kit/loaders.js';
import { OrganizationNode } from '../organizations.js';
import { DocumentType } from '../kit/document.js';
import { restEnum } from '../kit/enums.js';
import { SpaceNode } from '../spaces.js';
import { UserNode } from '../users.js';

/**
 * Change requests: branches of a space's content that are edited, reviewed and merged. A change
 * request's global ID carries its space, so `node(id:)` refetches it; its content is a revision
 * of the space, read as narrowly as any other. Its reviews, its mutations and its content edits
 * are in the files beside this one.
 */

export const ChangeRequestNode = loadableNode<ChangeRequest>('ChangeRequest', {
  key: (request) => compositeKey(request.space, request.id),
  load: (key, ctx) => {
    const [spaceId, id] = splitKey(key, 2, 'ChangeRequest') as [string, string];
    return getChangeRequest(ctx.api, spaceId, id);
  },
});

/** A link to the change request `id` of `spaceId`: its key, or a stub of both ids when nothing else is selected. */
export const changeRequestLink = (spaceId: string, id: string, info: GraphQLResolveInfo) =>
  linkTo(ChangeRequestNode, compositeKey(spaceId, id), info, () => ({ id, space: spaceId }) as ChangeRequest);

export const ChangeRequestStatusEnum = restEnum('ChangeRequestStatus', 'Where a change request is in its life.', {
  draft: 'Being written; not yet submitted for review.',
  open: 'Submitted: in review, or ready to merge.',
  archived: 'Set aside without merging; it can be reopened.',
  merged: 'Merged into the live content; it can no longer change.',
});

const ChangeRequestOrderEnum = builder.enumType('ChangeRequestOrder', {
  description: 'How change requests are ordered, newest first.',
  values: {
    UPDATED_AT: { value: 'updatedAt', description: 'By when they last changed.' },
    CREATED_AT: { value: 'createdAt', description: 'By when they were created.' },
  } as const,
});

/** A user embedded in a platform answer, handed out as a User (and kept for links to it). */
export function embeddedUser(ctx: GatewayContext, user: ChangeRequest['createdBy']) {
  prime(UserNode, ctx, [user]);
  return user;
}

/** A revision of the request's space by id, as a link. */
const revisionLink = (
  request: ChangeRequest,
  revisionId: string | null | undefined,
  info: Parameters<typeof linkTo>[2],
) =>
  revisionId
    ? linkTo(RevisionNode, compositeKey(request.space, revisionId), info, revisionStub(request.space, revisionId))
    : null;

const ChangeRequestUrls = builder.objectRef<ChangeRequest['urls']>('ChangeRequestUrls').implement({
  description: 'Addresses of a change request.',
  fields: (t) => ({
    app: t.string({
      nullable: true,
      description: 'URL of the change request in the web app.',
      resolve: (u) => u.app ?? null,
    }),
    api: t.string({
      nullable: true,
      description: 'URL of the change request in the REST API.',
      resolve: (u) => u.location ?? null,
    }),
  }),
});

const TYPENAME_ONLY: ReadonlySet<string> = new Set(['__typename']);

ChangeRequestNode.implement({
  description:
    'A change request: a branch of the content of a space, edited apart from the live content, reviewed, then merged into it.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the change request on the platform.' }),
    number: t.exposeInt('number', {
      description: 'Its number in the space (1, 2, …): `changeRequest(id:)` takes it too.',
    }),
    status: t.field({
      type: ChangeRequestStatusEnum,
      description: 'Where it is in its life.',
      resolve: (r) => r.status,
    }),
    subject: t.exposeString('subject', { description: 'Its subject (at most 100 characters; may be empty).' }),
    description: t.field({
      type: DocumentType,
      nullable: true,
      description: 'What it changes and why; null when it has no description.',
      resolve: (r) => r.description ?? null,
    }),
    outdated: t.exposeBoolean('outdated', {
      description:
        'True when the live content changed since it was based on it: update it from the main content to bring those changes in.',
    }),
    openComments: t.exposeInt('comments', {
      description: 'How many of its comments are open (`comments` lists them).',
    }),
    createdBy: t.field({
      type: UserNode,
      description: 'Who created it.',
      resolve: (r, _a, ctx) => embeddedUser(ctx, r.createdBy),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (r) => r.updatedAt }),
    mergedBy: t.field({
      type: UserNode,
      nullable: true,
      description: 'Who merged it; null unless merged.',
      resolve: (r, _a, ctx) => (r.mergedBy ? embeddedUser(ctx, r.mergedBy) : null),
    }),
    mergedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was merged; null unless merged.',
      resolve: (r) => r.mergedAt ?? null,
    }),
    conversationsIssuesClusterId: t.string({
      nullable: true,
      description:
        'Platform id of the issue cluster (of support conversations) it addresses, if any; `conversationsIssuesCluster` is the cluster.',
      resolve: (r) => r.conversationsIssuesCluster ?? null,
    }),
    urls: t.field({ type: ChangeRequestUrls, description: 'Addresses of the change request.', resolve: (r) => r.urls }),
    space: t.field({
      type: SpaceNode,
      description: 'The space it changes.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) => linkTo(SpaceNode, r.space, info),
    }),
    revision: t.field({
      type: RevisionNode,
      description: 'Its current content, as a revision (the same as `content`, as a link).',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) => revisionLink(r, r.revision, info)!,
    }),
    revisionInitial: t.field({
      type: RevisionNode,
      description: 'The live revision it branched from.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) => revisionLink(r, r.revisionInitial, info)!,
    }),
    revisionMergedAncestor: t.field({
      type: RevisionNode,
      nullable: true,
      description:
        'The live revision last brought in by an update from the main content; null when it was never updated.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) => revisionLink(r, r.revisionMergedAncestor, info),
    }),
    revisionMerged: t.field({
      type: RevisionNode,
      nullable: true,
      description: 'The live revision its merge made; null unless merged.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) => revisionLink(r, r.revisionMerged, info),
    }),
    content: t.field({
      type: RevisionNode,
      description:
        'Its content, read through the change request: page tree, files, reusable contents, variables, and its pages’ links and backlinks. Asked only for its pages, files or single items, it reads just those; otherwise the whole revision, once.',
      extensions: upstream.link,
      resolve: (r, _a, ctx, info) => revisionFor(ctx, info, r.space, r.revision, false, r.id),
    }),
    changes: t.field({
      type: RevisionChanges,
      description:
        'What it changes compared with the live content it is based on: pages, files, reusable contents, variables.',
      args: {
        limit: t.arg.int({
          defaultValue: 10,
          description: 'Most changes to return, 1 to 1000 (default 10); `more` counts the others.',
        }),
      },
      extensions: upstream.fetch(2),
      resolve: async (r, args, ctx, info) => {
        const limit = args.limit ?? 10;
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
          throw new BadUserInputError('`limit` must be between 1 and 1000', ['limit']);
        // What was there before a change is in the live revision the request is based on.
        const revision = {
          ...lightRevision(r.space, r.revision, false),
          parents: [r.revisionMergedAncestor ?? r.revisionInitial],
        };
        // The tree holds the pages the changes name: read beside the changes when they are asked
        // for more than their kind, not at all otherwise.
        const items = selectedFields(info, 'changes');
        const tree = items.some((item) => !onlyKeys(item.selectionSet, info.fragments, TYPENAME_ONLY))
          ? treeIndex(ctx, revision)
          : undefined;
        const [answer] = await Promise.all([
          readOnce(ctx, `request-changes:${compositeKey(r.space, r.revision)}:${limit}`, () =>
            getChangeRequestChanges(ctx.api, r.space, r.id, limit),
          ),
          tree,
        ]);
        return changesHeld(answer, revision);
      },
    }),
    pdf: t.field({
      type: PdfExport,
      description: 'A PDF of its content, or of one page (with or without the pages nested in it).',
      args: {
        pageId: t.arg.id({
          description: 'Platform id or global ID of a document page to print instead of the whole content.',
        }),
        only: t.arg.boolean({ description: 'With `pageId`: print that page alone, without the pages nested in it.' }),
      },
      extensions: upstream.fetch(1),
      resolve: (r, args, ctx) =>
        pdfExportOf(() =>
          getChangeRequestPdf(ctx.api, r.space, r.id, {
            page: pdfPage(args.pageId, r.space),
            only: args.only ?? undefined,
          }),
        ),
    }),
  }),
});

export const ChangeRequestEdge = builder.edgeObject({
  type: ChangeRequestNode,
  name: 'ChangeRequestEdge',
  description: 'A change request of a list, with its cursor.',
});

/** One connection type for every list of change requests. */
export const ChangeRequestConnection = builder.connectionObject(
  {
    type: ChangeRequestNode,
    name: 'ChangeRequestConnection',
    description: 'A page of change requests, newest first, with the size of the whole list.',
  },
  ChangeRequestEdge,
);

/** A user filter argument (platform id, e-mail or global ID) as a platform id. */
const userFilter = (value: string | number | null | undefined) =>
  value == null ? undefined : platformKey(String(value), 'User');

/** The filters of a list of change requests, as connection arguments. */
function listFilters(t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, unknown>) {
  return {
    status: t.arg({ type: ChangeRequestStatusEnum, description: 'Only those in this state (default OPEN).' }),
    creator: t.arg.id({ description: 'Only those created by this user (platform id or global ID).' }),
    contributor: t.arg.id({ description: 'Only those this user edited or commented on.' }),
    requestedReviewer: t.arg.id({ description: 'Only those whose review is asked of this user.' }),
    conversationsIssuesCluster: t.arg.string({ description: 'Only those linked to this issue cluster.' }),
    orderBy: t.arg({ type: ChangeRequestOrderEnum, description: 'Newest first by this date (default UPDATED_AT).' }),
  };
}

type ListFilterArgs = {
  status?: ChangeRequest['status'] | null;
  creator?: string | number | null;
  contributor?: string | number | null;
  requestedReviewer?: string | number | null;
  conversationsIssuesCluster?: string | null;
  orderBy?: 'updatedAt' | 'createdAt' | null;
};

/**
 * Reads a page of change requests of the list `pages` declares, with the filters of `args`, and
 * keeps them for links.
 */
export async function listRequests(
  ctx: GatewayContext,
  args: ListFilterArgs & ConnectionArgs,
  pages: (filters: ChangeRequestFilters) => RestPages<ChangeRequest>,
) {
  const list = await listConnection(
    args,
    pages({
      status: args.status ?? undefined,
      creator: userFilter(args.creator),
      contributor: userFilter(args.contributor),
      requestedReviewer: userFilter(args.requestedReviewer),
      conversationsIssuesCluster: args.conversationsIssuesCluster ?? undefined,
      orderBy: args.orderBy ?? undefined,
    }),
  );
  prime(
    ChangeRequestNode,
    ctx,
    list.edges.map((edge) => edge.node),
  );
  return list;
}

builder.objectFields(SpaceNode, (t) => ({
  changeRequests: t.connection(
    {
      type: ChangeRequestNode,
      description:
        'Change requests of the space (open ones unless `status` says otherwise), newest first. Members of the space only.',
      args: listFilters(t),
      resolve: (space, args, ctx) =>
        listRequests(ctx, args, (filters) => listSpaceChangeRequests(ctx.api, space.id, filters)),
    },
    ChangeRequestConnection,
  ),
  changeRequest: t.field({
    type: ChangeRequestNode,
    nullable: true,
    description:
      'A change request of the space by id, by number (`3` or `#3`) or by global ID; null with NOT_FOUND when there is none.',
    args: { id: t.arg.id({ required: true, description: 'Platform id, number or global ID of the change request.' }) },
    extensions: upstream.fetch(1),
    resolve: async (space, args, ctx) => {
      const ref = changeRequestRef(String(args.id));
      if (ref.spaceId !== undefined && ref.spaceId !== space.id) {
        throw new BadUserInputError(
          `${JSON.stringify(String(args.id).slice(0, 100))} is a change request of another space`,
          ['id'],
        );
      }
      const request = await getChangeRequest(ctx.api, space.id, ref.id);
      prime(ChangeRequestNode, ctx, [request]);
      return request;
    },
  }),
}));

builder.objectFields(OrganizationNode, (t) => ({
  changeRequests: t.connection(
    {
      type: ChangeRequestNode,
      nullable: true,
      description:
        'Change requests of every space of the organization you can read (open ones unless `status` says otherwise), newest first; null with NOT_FOUND when you are not a member.',
      args: listFilters(t),
      resolve: (org, args, ctx) =>
        listRequests(ctx, args, (filters) => listOrganizationChangeRequests(ctx.api, org.id, filters)),
    },
    ChangeRequestConnection,
  ),
}));

/** A change request id given by a client: a global ID carries its space; anything else is an id or a number. */
export function changeRequestRef(value: string): { id: string; spaceId?: string } {
  const trimmed = value.trim();
  const key = platformKey(trimmed, 'ChangeRequest');
  if (key === trimmed) return { id: trimmed.replace(/^#/, '') };
  const [spaceId, id] = splitKey(key, 2, 'ChangeRequest') as [string, string];
  return { id, spaceId };
}
