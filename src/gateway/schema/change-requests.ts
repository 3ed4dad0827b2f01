import { z } from 'zod';
import { listConnection, type ConnectionArgs } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from '../policy/cost.js';
import { BadUserInputError, GatewayError } from '../errors.js';
import { compositeKey, platformKey, splitKey } from './kit/ids.js';
import { onlyKeys, selectedFields } from './kit/links.js';
import {
  type ChangeRequestFilters,
  createChangeRequest,
  createReview,
  getChangeRequest,
  getChangeRequestChanges,
  getChangeRequestPdf,
  listContributors,
  listOrganizationChangeRequests,
  listRequestedReviewers,
  listReviews,
  listSpaceChangeRequests,
  mergeChangeRequest,
  removeRequestedReviewer,
  requestReviewers,
  updateChangeRequest,
  updateChangeRequestContent,
} from '../upstream/change-requests.js';
import { applyTemplate } from '../upstream/content.js';
import type { RestPages } from '../upstream/shapes/common.js';
import type {
  ChangeRequest,
  Contributor,
  MergeConflict,
  RequestedReviewer,
  Review,
} from '../upstream/shapes/change-requests.js';
import { specSlug } from '../upstream/shapes/openapi.js';
import { builder, type SchemaTypesOf } from './kit/builder.js';
import { RevisionChanges } from './content/changes.js';
import { FileNode } from './content/file.js';
import { PageInterface, PAGE_NODE_TYPENAMES } from './content/page.js';
import { PdfExport, pdfExportOf, pdfPage } from './content/search.js';
import {
  placeFile,
  lightRevision,
  readOnce,
  revisionFor,
  revisionPartId,
  RevisionNode,
  revisionStub,
  treeIndex,
  type FileHeld,
  type PageHeld,
} from './content/revision.js';
import { linkTo, loadableNode, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode } from './organizations.js';
import { DocumentInput, DocumentType, documentInput } from './kit/document.js';
import { idInput, ownedIdInput } from './kit/ids.js';
import { payloadType } from './kit/payloads.js';
import { restEnum } from './kit/enums.js';
import { SpaceNode } from './spaces.js';
import { UserNode } from './users.js';

/**
 * Change requests: branches of a space's content that are edited, reviewed and merged. A change
 * request's global ID carries its space, so `node(id:)` refetches it; its content is a revision
 * of the space, read as narrowly as any other.
 */

export const ChangeRequestNode = loadableNode<ChangeRequest>('ChangeRequest', {
  key: (request) => compositeKey(request.space, request.id),
  load: (key, ctx) => {
    const [spaceId, id] = splitKey(key, 2, 'ChangeRequest') as [string, string];
    return getChangeRequest(ctx.api, spaceId, id);
  },
});

export const ChangeRequestStatusEnum = restEnum('ChangeRequestStatus', 'Where a change request is in its life.', {
  draft: 'Being written; not yet submitted for review.',
  open: 'Submitted: in review, or ready to merge.',
  archived: 'Set aside without merging; it can be reopened.',
  merged: 'Merged into the live content; it can no longer change.',
});

const ReviewStatusEnum = restEnum('ChangeRequestReviewStatus', 'The verdict of a review.', {
  approved: 'The reviewer approves the changes.',
  'changes-requested': 'The reviewer asks for changes before a merge.',
});

const ContributionEnum = restEnum('ChangeRequestContribution', 'How someone contributed to a change request.', {
  edit: 'Edited its content.',
  comment: 'Commented on it (a review with a comment counts).',
});

const ChangeRequestOrderEnum = builder.enumType('ChangeRequestOrder', {
  description: 'How change requests are ordered, newest first.',
  values: {
    UPDATED_AT: { value: 'updatedAt', description: 'By when they last changed.' },
    CREATED_AT: { value: 'createdAt', description: 'By when they were created.' },
  } as const,
});

/** A user embedded in a platform answer, handed out as a User (and kept for links to it). */
function embeddedUser(ctx: GatewayContext, user: ChangeRequest['createdBy']) {
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

const ChangeRequestReview = builder.objectRef<Review & { space: string }>('ChangeRequestReview').implement({
  description: 'A review of a change request: approval or a request for changes, with an optional comment.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the review on the platform.' }),
    status: t.field({ type: ReviewStatusEnum, description: 'The verdict.', resolve: (r) => r.status }),
    reviewer: t.field({
      type: UserNode,
      description: 'Who reviewed.',
      resolve: (r, _a, ctx) => embeddedUser(ctx, r.reviewer),
    }),
    requestedBy: t.field({
      type: UserNode,
      nullable: true,
      description: 'Who asked for this review; null when it was given unasked.',
      resolve: (r, _a, ctx) => (r.requestedBy ? embeddedUser(ctx, r.requestedBy) : null),
    }),
    outdated: t.exposeBoolean('outdated', {
      description: 'True once superseded by a newer review of the same reviewer, or a new request for one.',
    }),
    revision: t.field({
      type: RevisionNode,
      description: 'The content the reviewer saw.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) =>
        linkTo(RevisionNode, compositeKey(r.space, r.revision), info, revisionStub(r.space, r.revision)),
    }),
    comment: t.field({
      type: DocumentType,
      nullable: true,
      description: 'The comment given with the review; null without one.',
      resolve: (r) => (r.comment?.body ?? null) as never,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was given.', resolve: (r) => r.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (r) => r.updatedAt }),
  }),
});

const RequestedReviewerType = builder
  .objectRef<RequestedReviewer & { space: string }>('ChangeRequestRequestedReviewer')
  .implement({
    description: 'A review asked of someone and not given yet.',
    fields: (t) => ({
      user: t.field({
        type: UserNode,
        nullable: true,
        description: 'Who is asked to review; null for a request to a team.',
        resolve: (r, _a, ctx) => (r.user ? embeddedUser(ctx, r.user) : null),
      }),
      requestedBy: t.field({
        type: UserNode,
        description: 'Who asked.',
        resolve: (r, _a, ctx) => embeddedUser(ctx, r.requestedBy),
      }),
      revision: t.field({
        type: RevisionNode,
        description: 'The content when the review was asked.',
        extensions: upstream.link,
        resolve: (r, _a, _ctx, info) =>
          linkTo(RevisionNode, compositeKey(r.space, r.revision), info, revisionStub(r.space, r.revision)),
      }),
      createdAt: t.field({ type: 'DateTime', description: 'When the review was asked.', resolve: (r) => r.createdAt }),
    }),
  });

const ContributorType = builder.objectRef<Contributor>('ChangeRequestContributor').implement({
  description: 'Someone who edited or commented on a change request.',
  fields: (t) => ({
    user: t.field({
      type: UserNode,
      description: 'The contributor.',
      resolve: (c, _a, ctx) => embeddedUser(ctx, c.user),
    }),
    kind: t.field({ type: ContributionEnum, description: 'What they did.', resolve: (c) => c.actionType }),
    count: t.exposeInt('count', { description: 'How many times.' }),
    lastAt: t.field({ type: 'DateTime', description: 'When they last did it.', resolve: (c) => c.updatedAt }),
  }),
});

const ReviewConnection = builder.connectionObject(
  {
    type: ChangeRequestReview,
    name: 'ChangeRequestReviewConnection',
    description: 'A page of reviews, oldest first, with their number.',
  },
  { name: 'ChangeRequestReviewEdge', description: 'A review, with its cursor.' },
);
const RequestedReviewerConnection = builder.connectionObject(
  {
    type: RequestedReviewerType,
    name: 'ChangeRequestRequestedReviewerConnection',
    description: 'A page of pending review requests, with their number.',
  },
  { name: 'ChangeRequestRequestedReviewerEdge', description: 'A pending review request, with its cursor.' },
);
const ContributorConnection = builder.connectionObject(
  {
    type: ContributorType,
    name: 'ChangeRequestContributorConnection',
    description: 'A page of contributors, with their number.',
  },
  { name: 'ChangeRequestContributorEdge', description: 'A contributor, with its cursor.' },
);

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
      resolve: (r) => (r.description ?? null) as never,
    }),
    outdated: t.exposeBoolean('outdated', {
      description:
        'True when the live content changed since it was based on it: update it from the main content to bring those changes in.',
    }),
    comments: t.exposeInt('comments', { description: 'Open comments.' }),
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
        return { changes: answer.changes.map((change) => ({ ...change, revision })), more: answer.more ?? 0 };
      },
    }),
    reviews: t.connection(
      {
        type: ChangeRequestReview,
        description: 'Its reviews, oldest first (outdated ones included).',
        resolve: async (r, args, ctx) => {
          const list = await listConnection(args, listReviews(ctx.api, r.space, r.id));
          return { ...list, edges: list.edges.map((edge) => ({ ...edge, node: { ...edge.node, space: r.space } })) };
        },
      },
      ReviewConnection,
    ),
    requestedReviewers: t.connection(
      {
        type: RequestedReviewerType,
        description: 'Reviews asked of people and not given yet.',
        resolve: async (r, args, ctx) => {
          const list = await listConnection(args, listRequestedReviewers(ctx.api, r.space, r.id));
          return { ...list, edges: list.edges.map((edge) => ({ ...edge, node: { ...edge.node, space: r.space } })) };
        },
      },
      RequestedReviewerConnection,
    ),
    contributors: t.connection(
      {
        type: ContributorType,
        description: 'Who edited or commented on it, once per kind of contribution.',
        resolve: (r, args, ctx) => listConnection(args, listContributors(ctx.api, r.space, r.id)),
      },
      ContributorConnection,
    ),
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

/** One connection type for every list of change requests. */
export const ChangeRequestConnection = builder.connectionObject(
  {
    type: ChangeRequestNode,
    name: 'ChangeRequestConnection',
    description: 'A page of change requests, newest first, with the size of the whole list.',
  },
  { name: 'ChangeRequestEdge', description: 'A change request of a list, with its cursor.' },
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
function changeRequestRef(value: string): { id: string; spaceId?: string } {
  const trimmed = value.trim();
  const key = platformKey(trimmed, 'ChangeRequest');
  if (key === trimmed) return { id: trimmed.replace(/^#/, '') };
  const [spaceId, id] = splitKey(key, 2, 'ChangeRequest') as [string, string];
  return { id, spaceId };
}

// --- Mutations ---------------------------------------------------------------------------------

const subject = z.string().max(100, 'must be at most 100 characters');

/** The fields naming a change request, resolved to `{ spaceId, changeRequestId }`. */
const targetFields = {
  spaceId: inputField(
    'ID',
    'Platform id or global ID of the space; required unless `changeRequestId` is a global ID.',
    idInput('Space').nullish(),
  ),
  changeRequestId: inputField(
    'ID',
    'The change request: its global ID, or its platform id or number together with `spaceId`.',
    z.string().trim().min(1, 'must be the id or number of a change request'),
  ),
};

function resolveTarget<T extends { spaceId?: string | null | undefined; changeRequestId: string }>(
  value: T,
  ctx: z.RefinementCtx,
) {
  let ref: { id: string; spaceId?: string };
  try {
    ref = changeRequestRef(value.changeRequestId);
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['changeRequestId'], message: (error as Error).message });
    return z.NEVER;
  }
  const spaceId = ref.spaceId ?? value.spaceId ?? undefined;
  if (!spaceId) {
    ctx.addIssue({ code: 'custom', path: ['spaceId'], message: 'is required when changeRequestId is not a global ID' });
    return z.NEVER;
  }
  if (ref.spaceId && value.spaceId && ref.spaceId !== value.spaceId) {
    ctx.addIssue({ code: 'custom', path: ['changeRequestId'], message: 'is a change request of another space' });
    return z.NEVER;
  }
  return { ...value, spaceId, changeRequestId: ref.id };
}

const ChangeRequestPayloadField = (description: string) => ({
  type: ChangeRequestNode,
  nullable: true as const,
  description,
  extensions: upstream.link,
});

/** The change request a write answered, the loader primed with it. */
async function primeWritten(ctx: GatewayContext, written: Promise<ChangeRequest>): Promise<ChangeRequest> {
  const request = await written;
  prime(ChangeRequestNode, ctx, [request]);
  return request;
}

/**
 * A change request after a write that did not answer it: its address, read (once) only if the
 * payload asks for more than its keys. The write cleared what the request held, so it is read as
 * it is now.
 */
interface RequestAfter {
  spaceId: string;
  id: string;
}

const afterWrite = (spaceId: string, id: string): RequestAfter => ({ spaceId, id });

/** The payload field of a change request after a write: held, or by its address (see `afterWrite`). */
function requestField(description: string) {
  return {
    ...ChangeRequestPayloadField(description),
    // One read at most: even keys alone are read when the write named the request by its number.
    extensions: upstream.fetch(1),
    resolve: (
      p: { changeRequest?: ChangeRequest | RequestAfter | null | undefined },
      _args: object,
      ctx: GatewayContext,
      info: Parameters<typeof linkTo>[2],
    ) => {
      const held = p.changeRequest;
      if (!held) return null;
      if ('number' in held) return held;
      // A request named by its number has its real id in the platform's answer only: read it.
      const byNumber = /^#?\d{1,10}$/.test(held.id);
      const stub = () => ({ id: held.id, space: held.spaceId }) as ChangeRequest;
      const link = byNumber
        ? compositeKey(held.spaceId, held.id)
        : linkTo(ChangeRequestNode, compositeKey(held.spaceId, held.id), info, stub);
      if (typeof link !== 'string') return link;
      // By number or id, as the write took it: read by its path and kept under its real key.
      return getChangeRequest(ctx.api, held.spaceId, held.id).then((data) => {
        prime(ChangeRequestNode, ctx, [data]);
        return data;
      });
    },
  };
}

const requestPayload = (name: string, description: string) =>
  payloadType<{ changeRequest: ChangeRequest }>(name, (t) => ({
    changeRequest: t.field({ ...ChangeRequestPayloadField(description), resolve: (p) => p.changeRequest ?? null }),
  }));

/** The OpenAPI specification a template builds its reference from (`api-reference`). */
const openApiSpecField = inputField(
  'String',
  'Slug of an OpenAPI specification of the organization: the `api-reference` template then generates its reference from it (a computed page).',
  specSlug.nullish(),
);

/** An issue cluster named by a client: its platform id, or an IssuesCluster global ID (its own id kept). */
const clusterIdInput = ownedIdInput('IssuesCluster', 100);

declareMutation('createChangeRequest', {
  description: 'Opens a change request on a space, as a draft branching from its live content (edit role).',
  input: 'The change request to create.',
  fields: {
    spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
    subject: inputField('String', 'Its subject, at most 100 characters.', subject.nullish()),
    description: inputField(DocumentInput, 'What it changes and why.', documentInput.nullish()),
    templateId: inputField(
      'String',
      'A template whose pages it starts with: `getting-started`, `api-reference` or `changelog` on the embedded platform.',
      z.string().trim().min(1, 'must be a template id').nullish(),
    ),
    openApiSpec: openApiSpecField,
    conversationsIssuesClusterId: inputField(
      'ID',
      'The issue cluster (of support conversations) it addresses: platform id or IssuesCluster global ID; not a muted one.',
      clusterIdInput.nullish(),
    ),
  },
  check: (input) =>
    input.refine((value) => value.openApiSpec == null || value.templateId != null, {
      message: 'goes with a templateId',
      path: ['openApiSpec'],
    }),
  payload: (name) => requestPayload(name, 'The new change request.'),
  run: async (
    { spaceId, subject: title, description, templateId, openApiSpec, conversationsIssuesClusterId },
    ctx,
  ) => ({
    changeRequest: await templateSpecErrors(() =>
      primeWritten(
        ctx,
        createChangeRequest(ctx.api, spaceId, {
          subject: title ?? '',
          // Beside the documented fields, the create operation takes any property: the description too.
          ...(description ? { description } : {}),
          ...(templateId ? { template: { id: templateId, ...templateParams(openApiSpec) } } : {}),
          ...(conversationsIssuesClusterId != null ? { conversationsIssuesCluster: conversationsIssuesClusterId } : {}),
        }),
      ),
    ),
  }),
});

declareMutation('updateChangeRequest', {
  description:
    'Changes the subject, description or status of a change request: submit it (OPEN), archive it, reopen it (edit role). A merged one can no longer change.',
  input: 'The change request and what to change; fields left out stay as they are.',
  fields: {
    ...targetFields,
    subject: inputField('String', 'New subject, at most 100 characters.', subject.nullish()),
    description: inputField(DocumentInput, 'New description.', documentInput.nullish()),
    status: inputField(
      ChangeRequestStatusEnum,
      'New status: DRAFT, OPEN or ARCHIVED (a change request becomes MERGED by merging it).',
      z
        .enum(['draft', 'open', 'archived', 'merged'])
        .refine((value) => value !== 'merged', 'cannot be MERGED: merge the change request with mergeChangeRequest')
        .nullish(),
    ),
    conversationsIssuesClusterId: inputField(
      'ID',
      'The issue cluster (of support conversations) it addresses: platform id or IssuesCluster global ID; not a muted one; null unlinks it.',
      clusterIdInput.nullish(),
    ),
  },
  check: (input) =>
    input.transform(resolveTarget).superRefine((value, ctx) => {
      if (
        value.subject == null &&
        value.description == null &&
        value.status == null &&
        value.conversationsIssuesClusterId === undefined
      ) {
        ctx.addIssue({
          code: 'custom',
          message: 'set at least one of subject, description, status or conversationsIssuesClusterId',
          path: [],
        });
      }
    }),
  payload: (name) => requestPayload(name, 'The change request after the change.'),
  run: async (
    { spaceId, changeRequestId, subject: title, description, status, conversationsIssuesClusterId },
    ctx,
  ) => ({
    changeRequest: await primeWritten(
      ctx,
      updateChangeRequest(ctx.api, spaceId, changeRequestId, {
        ...(title != null ? { subject: title } : {}),
        ...(description != null ? { description } : {}),
        ...(status != null ? { status } : {}),
        ...(conversationsIssuesClusterId !== undefined
          ? { conversationsIssuesCluster: conversationsIssuesClusterId }
          : {}),
      }),
    ),
  }),
});

// --- Content edits -----------------------------------------------------------------------------

/** A page id given by a client: a Page global ID or a platform id (a batch `ref` where `into` takes one). */
const pageIdInput = z
  .string()
  .trim()
  .min(1, 'must be the id of a page')
  .transform((value, ctx) => {
    try {
      return revisionPartId(value, PAGE_NODE_TYPENAMES);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const pageMetadataFields = {
  title: inputField(
    'String',
    "Title (a markdown document's front matter or leading `# heading` wins over it).",
    z.string().trim().min(1).max(256).nullish(),
  ),
  slug: inputField(
    'String',
    'Slug in its parent (its path segment); derived from the title when left out on insert.',
    z.string().max(100).nullish(),
  ),
  emoji: inputField('String', 'Emoji of the page; an empty string removes it.', z.string().max(50).nullish()),
  icon: inputField('String', 'Icon name of the page; an empty string removes it.', z.string().max(50).nullish()),
  description: inputField('String', 'Description of the page.', z.string().max(1024).nullish()),
  hidden: inputField('Boolean', 'Hidden from the navigation (still reachable).', z.boolean().nullish()),
  noIndex: inputField('Boolean', 'Left out of search.', z.boolean().nullish()),
  noRobotsIndex: inputField('Boolean', 'Not indexed by search engines.', z.boolean().nullish()),
  condition: inputField(
    'String',
    'Adaptive-content condition deciding whether the page shows; an empty string removes it.',
    z.string().max(1024).nullish(),
  ),
  markdown: inputField(
    'String',
    "The page's document as markdown (the platform's flavour: hints, tabs, front matter…). Links may name pages by id, path, file path or the `ref` of a page inserted in the same batch.",
    z
      .string()
      .max(1024 * 1024)
      .nullish(),
  ),
  json: inputField(
    'JSON',
    'The page\'s document as JSON `{ object: "document", data, nodes }`.',
    z.unknown().optional(),
  ),
};

/** The REST `document` of a page change: markdown, JSON, or none. */
function restDocument(
  value: { markdown?: string | null | undefined; json?: unknown },
  ctx: z.RefinementCtx,
): { markdown: string } | { document: unknown } | undefined {
  if (value.markdown != null && value.json != null) {
    ctx.addIssue({ code: 'custom', path: ['markdown'], message: 'give markdown or json, not both' });
    return undefined;
  }
  if (value.markdown != null) return { markdown: value.markdown };
  if (value.json != null) return { document: value.json };
  return undefined;
}

function restMetadata(value: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of [
    'title',
    'slug',
    'emoji',
    'icon',
    'description',
    'hidden',
    'noIndex',
    'noRobotsIndex',
    'condition',
  ]) {
    if (value[key] != null) body[key] = value[key];
  }
  return body;
}

const InsertPageInput = inputObject('InsertPageInput', {
  description: 'A new document page.',
  fields: {
    ...pageMetadataFields,
    into: inputField(
      'ID',
      'The page to put it in (id, global ID, or the `ref` of a page inserted earlier in the batch); the top level when left out.',
      z.string().trim().min(1).nullish(),
    ),
    at: inputField(
      'Int',
      'Zero-based position among its siblings; last when left out.',
      z.number().int().min(0).nullish(),
    ),
    ref: inputField(
      'String',
      'A name for the page within the batch, for links (`./<ref>.md`) and `into` of later changes.',
      z.string().min(1).max(256).nullish(),
    ),
  },
  check: (object) =>
    object.transform((value, ctx) => ({
      operation: 'insert_page' as const,
      ...restMetadata(value),
      ...(value.into != null ? { into: pageRefOrId(value.into) } : {}),
      ...(value.at != null ? { at: value.at } : {}),
      ...(value.ref != null ? { ref: value.ref } : {}),
      document: restDocument(value, ctx) ?? {},
    })),
});

/** An `into` value: a page global ID becomes its platform id; anything else (an id or a ref) stays. */
function pageRefOrId(value: string): string {
  try {
    return revisionPartId(value, PAGE_NODE_TYPENAMES) || value;
  } catch {
    return value;
  }
}

const UpdatePageInput = inputObject('UpdatePageInput', {
  description: 'Changes to an existing page: its document, its metadata, where it is.',
  fields: {
    pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput),
    ...pageMetadataFields,
    into: inputField(
      'ID',
      'Move it into this page; explicitly null moves it to the top level; left out, it stays under its parent.',
      z.string().trim().min(1).nullable().optional(),
    ),
    at: inputField('Int', 'Zero-based position among its (new) siblings.', z.number().int().min(0).nullish()),
  },
  check: (object) =>
    object.transform((value, ctx) => {
      const document = restDocument(value, ctx);
      return {
        operation: 'update_page' as const,
        page: value.pageId,
        ...restMetadata(value),
        ...(value.into !== undefined ? { into: value.into === null ? null : pageRefOrId(value.into) } : {}),
        ...(value.at != null ? { at: value.at } : {}),
        ...(document ? { document } : {}),
      };
    }),
});

const DeletePageInput = inputObject('DeletePageInput', {
  description: 'A page to delete, with the pages nested in it.',
  fields: { pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput) },
  check: (object) => object.transform((value) => ({ operation: 'delete_page' as const, page: value.pageId })),
});

const RevertPageInput = inputObject('RevertPageInput', {
  description: 'A page to put back as it was in a revision: whole, or some of its blocks.',
  fields: {
    pageId: inputField('ID', 'The page (platform id or global ID).', pageIdInput),
    revisionId: inputField(
      'ID',
      'The revision to go back to; the live revision the change request is based on when left out.',
      idInput('Revision').nullish(),
    ),
    blocks: inputField(
      ['String'],
      'Keys of the blocks to revert; the whole page when left out.',
      z.array(z.string().min(1)).min(1).max(1000).nullish(),
    ),
  },
  check: (object) =>
    object.transform((value) => ({
      operation: 'revert_page' as const,
      page: value.pageId,
      ...(value.revisionId ? { revision: value.revisionId.split('/').at(-1) } : {}),
      ...(value.blocks ? { block: value.blocks } : {}),
    })),
});

const FileUploadInput = inputObject('FileUploadInput', {
  description: 'A file to add: its bytes as base64 (at most 1 MB) or an http(s) URL the platform fetches.',
  fields: {
    name: inputField('String', 'File name with its extension, 1 to 256 characters.', z.string().min(1).max(256)),
    base64: inputField(
      'String',
      'The bytes, base64-encoded (needs contentType).',
      z.string().max(1_500_000, 'must encode at most 1 MB').nullish(),
    ),
    url: inputField(
      'String',
      'A public http(s) URL to fetch the bytes from.',
      z.string().url('must be an http(s) URL').max(2048).nullish(),
    ),
    contentType: inputField(
      'String',
      'MIME type (required with base64; overrides the fetched type).',
      z.string().max(255).nullish(),
    ),
    ref: inputField(
      'String',
      'A name for the file within the batch, for links (`./<ref>`) of pages in it.',
      z.string().min(1).max(256).nullish(),
    ),
  },
  check: (object) =>
    object
      .superRefine((value, ctx) => {
        if ((value.base64 == null) === (value.url == null))
          ctx.addIssue({ code: 'custom', path: ['base64'], message: 'give exactly one of base64 or url' });
        if (value.base64 != null && value.contentType == null)
          ctx.addIssue({ code: 'custom', path: ['contentType'], message: 'is required with base64' });
      })
      .transform((value) => Object.fromEntries(Object.entries(value).filter(([, entry]) => entry != null))),
});

const InsertFilesInput = inputObject('InsertFilesInput', {
  description: 'Files to add to the content.',
  fields: {
    files: inputField([FileUploadInput.type], '1 to 20 files.', z.array(FileUploadInput.schema).min(1).max(20)),
  },
  check: (object) => object.transform((value) => ({ operation: 'insert_files' as const, files: value.files })),
});

const ContentChangeInput = inputObject('ContentChangeInput', {
  description: 'One change to the content of a change request: set exactly one field.',
  oneOf: true,
  fields: {
    insertPage: inputField(InsertPageInput.type, 'Insert a document page.', InsertPageInput.schema.optional()),
    updatePage: inputField(UpdatePageInput.type, 'Change a page.', UpdatePageInput.schema.optional()),
    deletePage: inputField(
      DeletePageInput.type,
      'Delete a page and the pages in it.',
      DeletePageInput.schema.optional(),
    ),
    revertPage: inputField(
      RevertPageInput.type,
      'Revert a page, or some of its blocks.',
      RevertPageInput.schema.optional(),
    ),
    insertFiles: inputField(InsertFilesInput.type, 'Add files.', InsertFilesInput.schema.optional()),
  },
  check: (object) =>
    object.transform((value, ctx) => {
      const given = Object.values(value).filter((entry) => entry != null);
      if (given.length !== 1) {
        ctx.addIssue({
          code: 'custom',
          message: 'set exactly one of insertPage, updatePage, deletePage, revertPage or insertFiles',
        });
        return z.NEVER;
      }
      return given[0]!;
    }),
});

const ContentEditKindEnum = restEnum('ContentEditKind', 'What a batch of content changes did to a page.', {
  created_page: 'The page was created (inserted, or restored by a revert).',
  updated_page: 'The page was changed.',
  deleted_page: 'The page was deleted.',
});

interface ContentEditHeld {
  kind: 'created_page' | 'updated_page' | 'deleted_page';
  pageId: string;
  ref?: string | undefined;
  spaceId: string;
  revisionId: string;
}

const ContentEdit = builder.objectRef<ContentEditHeld>('ContentEdit').implement({
  description: 'What a batch of content changes did to one page.',
  fields: (t) => ({
    kind: t.field({ type: ContentEditKindEnum, description: 'Created, updated or deleted.', resolve: (e) => e.kind }),
    pageId: t.exposeString('pageId', { description: 'Platform id of the page.' }),
    ref: t.string({
      nullable: true,
      description: 'The `ref` the insert gave it, if any.',
      resolve: (e) => e.ref ?? null,
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page as the change request now has it; null for a deleted page. Reads the tree of its content once.',
      extensions: upstream.fetch(1),
      resolve: async (e, _a, ctx): Promise<PageHeld | null> => {
        if (e.kind === 'deleted_page') return null;
        return (await treeIndex(ctx, lightRevision(e.spaceId, e.revisionId, false))).byId.get(e.pageId) ?? null;
      },
    }),
  }),
});

declareMutation('editChangeRequestContent', {
  description:
    'Applies 1 to 50 changes to the content of a change request, in order, as one new revision: all of them, or none when one is invalid (the error names it). Edit role.',
  input: 'The change request and the changes.',
  fields: {
    ...targetFields,
    changes: inputField(
      [ContentChangeInput.type],
      'The changes, applied in order.',
      z.array(ContentChangeInput.schema).min(1, 'must hold 1 to 50 changes').max(50, 'must hold 1 to 50 changes'),
    ),
  },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    payloadType<{ changeRequest: ChangeRequest; edits: ContentEditHeld[]; insertedFiles: FileHeld[] }>(name, (t) => ({
      changeRequest: t.field({
        ...ChangeRequestPayloadField('The change request with its new content.'),
        resolve: (p) => p.changeRequest ?? null,
      }),
      edits: t.field({
        type: [ContentEdit],
        nullable: true,
        description: 'What the batch did to each page it touched, in the order it touched them.',
        resolve: (p) => p.edits ?? null,
      }),
      insertedFiles: t.field({
        type: [FileNode],
        nullable: true,
        description: 'The files the batch added, in order.',
        resolve: (p) => p.insertedFiles ?? null,
      }),
    })),
  run: async ({ spaceId, changeRequestId, changes }, ctx) => {
    const data = await updateChangeRequestContent(ctx.api, spaceId, changeRequestId, changes);
    const changeRequest = data.changeRequest;
    prime(ChangeRequestNode, ctx, [changeRequest]);
    return {
      changeRequest,
      edits: data.changes.map((change) => ({
        kind: change.object,
        pageId: typeof change.page === 'string' ? change.page : change.page.id,
        ref: 'ref' in change ? change.ref : undefined,
        spaceId,
        revisionId: changeRequest.revision,
      })),
      insertedFiles: data.insertedFiles.map((file) => placeFile(file, spaceId, changeRequest.revision, undefined)),
    };
  },
});

// --- Merge and update --------------------------------------------------------------------------

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

const MergeConflictType = builder
  .objectRef<MergeConflict & { spaceId: string; revisionId: string }>('MergeConflict')
  .implement({
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
      reusableContentId: t.string({
        nullable: true,
        description: 'Platform id of the reusable content in conflict.',
        resolve: (c) => c.reusableContent ?? null,
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
      type: resultType as typeof MergeResultEnum,
      nullable: true,
      description: 'How it went.',
      resolve: (p) => (p.result ?? null) as never,
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

// --- Reviews -----------------------------------------------------------------------------------

declareMutation('submitChangeRequestReview', {
  description:
    'Reviews a change request: approve it or ask for changes, with an optional comment (requested reviewers and the review role; not its author).',
  input: 'The change request and the review.',
  fields: {
    ...targetFields,
    status: inputField(ReviewStatusEnum, 'The verdict.', z.enum(['approved', 'changes-requested'])),
    comment: inputField(DocumentInput, 'A comment to go with it.', documentInput.nullish()),
  },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    payloadType<{ review: Review & { space: string }; changeRequest: RequestAfter }>(name, (t) => ({
      review: t.field({
        type: ChangeRequestReview,
        nullable: true,
        description: 'The review.',
        resolve: (p) => p.review ?? null,
      }),
      changeRequest: t.field(requestField('The change request reviewed.')),
    })),
  run: async ({ spaceId, changeRequestId, status, comment }, ctx) => {
    const data = await createReview(ctx.api, spaceId, changeRequestId, { status, ...(comment ? { comment } : {}) });
    return { review: { ...data, space: spaceId }, changeRequest: afterWrite(spaceId, changeRequestId) };
  },
});

declareMutation('requestChangeRequestReviewers', {
  description: 'Asks members of the organization to review a change request; a draft becomes OPEN (edit role).',
  input: 'The change request and who to ask.',
  fields: {
    ...targetFields,
    userIds: inputField(
      ['ID'],
      'The users to ask (platform ids or global IDs), 1 to 100.',
      z.array(idInput('User')).min(1, 'must name 1 to 100 users').max(100, 'must name 1 to 100 users'),
    ),
  },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    payloadType<{ requestedReviewers: Array<RequestedReviewer & { space: string }>; changeRequest: RequestAfter }>(
      name,
      (t) => ({
        requestedReviewers: t.field({
          type: [RequestedReviewerType],
          nullable: true,
          description: 'The review requests made.',
          resolve: (p) => p.requestedReviewers ?? null,
        }),
        changeRequest: t.field(requestField('The change request after the request.')),
      }),
    ),
  run: async ({ spaceId, changeRequestId, userIds }, ctx) => {
    const data = await requestReviewers(ctx.api, spaceId, changeRequestId, userIds);
    return {
      requestedReviewers: data.users.map((item) => ({ ...item, space: spaceId })),
      changeRequest: afterWrite(spaceId, changeRequestId),
    };
  },
});

declareMutation('removeChangeRequestReviewer', {
  description: 'Withdraws a review request (edit role).',
  input: 'The change request and the user no longer asked.',
  fields: {
    ...targetFields,
    userId: inputField('ID', 'The user (platform id or global ID).', idInput('User')),
  },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    payloadType<{ deleted: boolean }>(name, (t) => ({
      deleted: t.boolean({
        description: 'True when a request was withdrawn, false when there was none.',
        resolve: (p) => p.deleted ?? false,
      }),
    })),
  run: ({ spaceId, changeRequestId, userId }, ctx) =>
    removeRequestedReviewer(ctx.api, spaceId, changeRequestId, userId),
});

// --- Templates ---------------------------------------------------------------------------------

/** A refusal of the template's specification (`…contentRefs.openapi.spec`), named as the input names it. */
async function templateSpecErrors<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof GatewayError && /contentRefs\.openapi/.test(error.message)) {
      throw new GatewayError(error.code, error.message, {
        upstreamStatus: error.upstreamStatus,
        field: ['openApiSpec'],
      });
    }
    throw error;
  }
}

/** Template params naming an OpenAPI specification (a content reference of kind `openapi`). */
function templateParams(spec: string | null | undefined): {
  params?: { contentRefs: { openapi: { kind: 'openapi'; spec: string } } };
} {
  return spec ? { params: { contentRefs: { openapi: { kind: 'openapi', spec } } } } : {};
}

declareMutation('applySpaceTemplate', {
  description:
    'Adds the pages of a template after the existing ones: to the live content (edit role, space not locked), or to a change request.',
  input: 'The space, the template and where to apply it.',
  fields: {
    spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
    templateId: inputField(
      'String',
      'The template: `getting-started`, `api-reference` or `changelog` on the embedded platform.',
      z.string().trim().min(1, 'must be a template id'),
    ),
    changeRequestId: inputField(
      'ID',
      'A change request of the space to apply it to (id, number or global ID); the live content when left out.',
      z.string().trim().min(1).nullish(),
    ),
    openApiSpec: openApiSpecField,
  },
  payload: (name) =>
    payloadType<{ spaceId: string; changeRequest: RequestAfter | null }>(name, (t) => ({
      space: t.field({
        type: SpaceNode,
        nullable: true,
        description: 'The space after it (its content has the new pages when applied live).',
        extensions: upstream.link,
        resolve: (p, _a, _ctx, info) => (p.spaceId ? linkTo(SpaceNode, p.spaceId, info) : null),
      }),
      changeRequest: t.field(requestField('The change request it was applied to; null when applied live.')),
    })),
  run: async ({ spaceId, templateId, changeRequestId, openApiSpec }, ctx) => {
    const ref = changeRequestId ? changeRequestRef(changeRequestId) : undefined;
    if (ref?.spaceId && ref.spaceId !== spaceId)
      throw new GatewayError('BAD_USER_INPUT', 'changeRequestId is a change request of another space', {
        field: ['changeRequestId'],
      });
    await templateSpecErrors(() =>
      applyTemplate(ctx.api, spaceId, {
        id: templateId,
        ...(ref ? { changeRequestId: ref.id } : {}),
        ...templateParams(openApiSpec),
      }),
    );
    return { spaceId, changeRequest: ref ? afterWrite(spaceId, ref.id) : null };
  },
});
