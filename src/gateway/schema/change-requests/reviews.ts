import { z } from 'zod';
import { listConnection, mapNodes } from '../kit/connections.js';
import { upstream } from '../kit/upstream-cost.js';
import { compositeKey, idInput, platformKey, splitKey } from '../kit/ids.js';
import {
  createReview,
  getChangeRequest,
  getReview,
  getReviewPage,
  listContributors,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestReviewers,
} from '../../upstream/change-requests.js';
import type {
  ChangeRequest,
  ChangeRequestRequestedReviewer as RequestedReviewer,
  ChangeRequestReview as Review,
  ChangeRequestUserContributor as Contributor,
} from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { RevisionNode, revisionStub } from '../content/revision.js';
import { linkTo, loadableNode, prime } from '../kit/loaders.js';
import { follow } from '../kit/live.js';
import { BadUserInputError } from '../../errors.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { DocumentInput, DocumentType, type DocumentValue, documentInput } from '../kit/document.js';
import { deletedPayload, edgeField, payloadType } from '../kit/payloads.js';
import { restEnum } from '../kit/enums.js';
import { UserNode } from '../users.js';
import { ChangeRequestNode, changeRequestRef, embeddedUser } from './change-request.js';
import { afterWrite, requestField, resolveTarget, targetFields, type RequestAfter } from './target.js';

/** Reviews of a change request: the reviews given, the reviews asked for, who contributed, and the mutations. */

const ReviewStatusEnum = restEnum('ChangeRequestReviewStatus', 'The verdict of a review.', {
  approved: 'The reviewer approves the changes.',
  'changes-requested': 'The reviewer asks for changes before a merge.',
});

const ContributionEnum = restEnum('ChangeRequestContribution', 'How someone contributed to a change request.', {
  edit: 'Edited its content.',
  comment: 'Commented on it (a review with a comment counts).',
});

/** A review as the graph holds it: with the space and the change request its REST answer leaves out. */
type PlacedReview = Review & { space: string; changeRequest: string };

/** What a link to the reviewed change request answers when only its ids are asked for. */
const changeRequestStub = (r: PlacedReview) => ({ id: r.changeRequest, space: r.space }) as ChangeRequest;

/** Its global ID carries its space and change request, so `node(id:)` refetches it. */
const ChangeRequestReview = loadableNode<PlacedReview>('ChangeRequestReview', {
  key: (r) => compositeKey(r.space, r.changeRequest, r.id),
  load: async (key, ctx) => {
    const [space, changeRequest, id] = splitKey(key, 3, 'ChangeRequestReview') as [string, string, string];
    return { ...(await getReview(ctx.api, space, changeRequest, id)), space, changeRequest };
  },
});

ChangeRequestReview.implement({
  description: 'A review of a change request: approval or a request for changes, with an optional comment.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the review on the platform.' }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      description: 'The change request reviewed.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) =>
        linkTo(ChangeRequestNode, compositeKey(r.space, r.changeRequest), info, () => changeRequestStub(r)),
    }),
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
      // Read without `format`, a comment's body is its JSON document.
      resolve: (r) => (r.comment?.body as DocumentValue | undefined) ?? null,
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
        resolve: (r, _a, ctx) => (r.kind === 'user' ? embeddedUser(ctx, r.user) : null),
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

const ChangeRequestReviewEdge = builder.edgeObject({
  type: ChangeRequestReview,
  name: 'ChangeRequestReviewEdge',
  description: 'A review, with its cursor.',
});

const ReviewConnection = builder.connectionObject(
  {
    type: ChangeRequestReview,
    name: 'ChangeRequestReviewConnection',
    description: 'A page of reviews, oldest first, with their number.',
  },
  ChangeRequestReviewEdge,
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

builder.objectFields(ChangeRequestNode, (t) => ({
  reviews: t.connection(
    {
      type: ChangeRequestReview,
      description: 'Its reviews, oldest first (outdated ones included).',
      resolve: async (r, args, ctx) => {
        const list = await listConnection(args, listReviews(ctx.api, r.space, r.id));
        return mapNodes(list, (reviews) =>
          reviews.map((review) => ({ ...review, space: r.space, changeRequest: r.id })),
        );
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
        return mapNodes(list, (requests) => requests.map((request) => ({ ...request, space: r.space })));
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
}));

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
    payloadType<{ review: PlacedReview; changeRequest: RequestAfter }>(name, (t) => ({
      review: t.field({
        type: ChangeRequestReview,
        nullable: true,
        description: 'The review.',
        resolve: (p) => p.review ?? null,
      }),
      reviewEdge: edgeField(
        t,
        { type: ChangeRequestReviewEdge, what: 'review', lists: '`ChangeRequest.reviews`' },
        (p) => p.review,
      ),
      changeRequest: t.field(requestField('The change request reviewed.')),
    })),
  run: async ({ spaceId, changeRequestId, status, comment }, ctx) => {
    const data = await createReview(ctx.api, spaceId, changeRequestId, { status, ...(comment ? { comment } : {}) });
    const review = { ...data, space: spaceId, changeRequest: changeRequestId };
    return { review, changeRequest: afterWrite(spaceId, changeRequestId) };
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
      requestedReviewers: (data.users ?? []).map((item) => ({ ...item, space: spaceId })),
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
  payload: (name) => deletedPayload(name, 'True when a request was withdrawn, false when there was none.'),
  run: ({ spaceId, changeRequestId, userId }, ctx) =>
    removeRequestedReviewer(ctx.api, spaceId, changeRequestId, userId),
});

builder.subscriptionField('changeRequestUpdated', (t) =>
  t.field({
    type: ChangeRequestNode,
    description:
      'A change request: first as it is, then after each change of it or of its reviews (edited, submitted, reviewed, merged, closed, outdated by a newer revision of the space). Ends with NOT_FOUND when it or its space is gone or no longer visible to you.',
    args: {
      changeRequestId: t.arg.id({
        required: true,
        description: 'The change request: its global ID, or its platform id or number together with `spaceId`.',
      }),
      spaceId: t.arg.id({
        description: 'Platform id or global ID of the space; required unless `changeRequestId` is a global ID.',
      }),
    },
    extensions: upstream.follow(2),
    subscribe: (_root, args, ctx) => {
      const ref = changeRequestRef(String(args.changeRequestId));
      const spaceId = ref.spaceId ?? (args.spaceId == null ? undefined : platformKey(String(args.spaceId), 'Space'));
      if (!spaceId)
        throw new BadUserInputError('spaceId is required when changeRequestId is not a global ID', ['spaceId']);
      return follow(ctx, `change-request ${spaceId} ${ref.id}`, async (api) => {
        // Reviews are answers of their own: a review changes them, not the change request.
        const [request, reviews] = await Promise.all([
          getChangeRequest(api, spaceId, ref.id),
          getReviewPage(api, spaceId, ref.id),
        ]);
        return { request, reviews: reviews.items };
      });
    },
    resolve: ({ request }, _args, ctx) => {
      prime(ChangeRequestNode, ctx, [request]);
      return request;
    },
  }),
);
