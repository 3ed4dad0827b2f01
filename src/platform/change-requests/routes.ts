import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { atLeast, demand, isOrgMember, type Role } from '../access.js';
import {
  badRequest,
  forbidden,
  notFound,
  notFoundInBody,
  overContentLimit,
  pageFromArray,
  pageOf,
  pageParams,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { SpaceRow } from '../rows.js';
import { userJson } from '../users/json.js';
import { ContentLimitError, DocumentValidationError, parseDocumentInput } from '../../document/model.js';
import {
  CHANGE_REQUEST_STATUSES,
  createChangeRequest,
  currentReviews,
  listChangeRequests,
  readableSpaceIds,
  requireChangeRequest,
  requireNotMerged,
  reviewsOf,
  updateChangeRequest,
  type ChangeRequestRow,
  addReview,
  contributorsOf,
  findRequestedReviewer,
  removeRequestedReviewer,
  requestedReviewers,
  requestReviews,
} from './store.js';
import { changeRequestJson, requestedReviewerJson, reviewJson } from './json.js';
import { loadSpace } from '../spaces/store.js';
import { findUserById } from '../users/store.js';
import { applyTemplateToRequest, requireTemplate, templateSpec } from './templates.js';
import { requireClusterForChangeRequest } from '../conversations/store.js';
import { CONDITIONAL } from '../conditional.js';

const subject = z.string().max(100, 'must be at most 100 characters');

/** A JSON document in a body (`description`), within its budgets, validated and completed like every stored document. */
const documentInput = z.unknown().transform((value, context) => {
  try {
    return parseDocumentInput(value);
  } catch (error) {
    // Thrown through the body's parse: a 413 naming the budget.
    if (error instanceof ContentLimitError)
      throw overContentLimit(`Invalid body field "description": ${error.message}`, error);
    if (!(error instanceof DocumentValidationError)) throw error;
    context.addIssue({ code: 'custom', message: error.message });
    return z.NEVER;
  }
});

const createBody = z
  .object({
    subject: subject.optional(),
    description: documentInput.optional(),
    template: z
      .object({ id: z.string().min(1, 'must not be empty'), params: z.record(z.string(), z.unknown()).optional() })
      .optional(),
    // Beside the documented fields, the platform links a request to an issue cluster at creation.
    conversationsIssuesCluster: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .optional(),
  })
  .passthrough();

const updateBody = z
  .strictObject({
    subject: subject.optional(),
    description: documentInput.optional(),
    status: z
      .enum(['draft', 'open', 'archived'], {
        message: 'must be draft, open or archived (a request is merged by merging it)',
      })
      .optional(),
    // Beside the documented fields: the issue cluster the request addresses (null unlinks it).
    conversationsIssuesCluster: z
      .string()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .nullable()
      .optional(),
  })
  .refine(
    (body) =>
      body.subject !== undefined ||
      body.description !== undefined ||
      body.status !== undefined ||
      body.conversationsIssuesCluster !== undefined,
    'must set at least one of subject, description, status or conversationsIssuesCluster',
  );

const listFilters = {
  ...pageParams,
  status: z.enum(CHANGE_REQUEST_STATUSES, { message: 'must be draft, open, archived or merged' }).optional(),
  creator: z.string().min(1).optional(),
  contributor: z.string().min(1).optional(),
  requestedReviewer: z.string().min(1).optional(),
  conversationsIssuesCluster: z.string().min(1).optional(),
  orderBy: z.enum(['updatedAt', 'createdAt'], { message: 'must be updatedAt or createdAt' }).optional(),
};
const listQuery = z.object(listFilters);

const reviewBody = z.strictObject({
  status: z.enum(['approved', 'changes-requested'], { message: 'must be approved or changes-requested' }),
  comment: documentInput.optional(),
});

const reviewersBody = z.strictObject({
  users: z
    .array(z.string().min(1, 'must not contain empty ids'))
    .min(1, 'must list at least one user')
    .max(100, 'must list at most 100 users'),
  subject: subject.optional(),
  description: documentInput.optional(),
});

type SpaceParams = { spaceId: string };
type RequestParams = SpaceParams & { changeRequestId: string };

/**
 * The space and change request a request names, read by a member of the space (change requests
 * are not shown to public readers), with the caller's role; `min` demands a role (403).
 */
export function requestOf(
  request: FastifyRequest,
  params: RequestParams,
  min?: Role,
): { space: SpaceRow; role: Role | null; changeRequest: ChangeRequestRow } {
  const { space, role } = spaceOf(request, params);
  if (min) demand(role, min, 'This');
  return { space, role, changeRequest: requireChangeRequest(request.ctx.db, space.id, params.changeRequestId) };
}

function spaceOf(request: FastifyRequest, params: SpaceParams): { space: SpaceRow; role: Role | null } {
  const { space, role } = request.ctx.access.requireSpace(params.spaceId);
  if (role === null) throw notFound('Space');
  return { space, role };
}

/**
 * Change requests: their lifecycle (create, read, list, update, archive), reviews, requested
 * reviewers and contributors. Content edits, merges and updates are in `content-routes.ts`.
 */
export function changeRequestRoutes(app: FastifyInstance): void {
  const answer = (request: FastifyRequest, changeRequest: ChangeRequestRow, space: SpaceRow) =>
    changeRequestJson(request.ctx.db, changeRequest, space, request.ctx.links);

  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/change-requests', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { space } = spaceOf(request, request.params);
    const window = pageWindow(query);
    const { rows, count } = listChangeRequests(request.ctx.db, [space.id], query, window);
    return pageOf(
      rows.map((row) => answer(request, row, space)),
      count,
      window,
    );
  });

  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/change-requests', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    const window = pageWindow(query);
    const { rows, count } = listChangeRequests(db, readableSpaceIds(db, access, org.id), query, window);
    const spaces = new Map<string, SpaceRow>();
    const spaceRow = (id: string) => {
      let space = spaces.get(id);
      if (!space) {
        space = loadSpace(db, id)!;
        spaces.set(id, space);
      }
      return space;
    };
    return pageOf(
      rows.map((row) => answer(request, row, spaceRow(row.space_id))),
      count,
      window,
    );
  });

  app.post<{ Params: SpaceParams }>('/spaces/:spaceId/change-requests', async (request, reply) => {
    const body = parseBody(createBody, request.body ?? {});
    const { space, role } = spaceOf(request, request.params);
    demand(role, 'edit', 'Creating a change request');
    const template = body.template ? requireTemplate(body.template.id, 'template.id') : undefined;
    const { db, user } = request.ctx;
    if (body.conversationsIssuesCluster)
      requireClusterForChangeRequest(db, space.org_id, body.conversationsIssuesCluster, 'conversationsIssuesCluster');
    const spec = body.template ? templateSpec(db, space.org_id, body.template.params, 'template.params') : undefined;
    const changeRequest = db.transaction(() => {
      const created = createChangeRequest(db, space, user, {
        subject: body.subject ?? '',
        description: body.description,
        clusterId: body.conversationsIssuesCluster,
      });
      return template ? applyTemplateToRequest(db, created, user, template, spec) : created;
    })();
    const json = answer(request, changeRequest, space);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId',
    CONDITIONAL,
    async (request) => {
      const { space, changeRequest } = requestOf(request, request.params);
      return answer(request, changeRequest, space);
    },
  );

  app.patch<{ Params: RequestParams }>('/spaces/:spaceId/change-requests/:changeRequestId', async (request, reply) => {
    const body = parseBody(updateBody, request.body ?? {});
    const { space, changeRequest } = requestOf(request, request.params, 'edit');
    requireNotMerged(changeRequest);
    const cluster = body.conversationsIssuesCluster;
    if (cluster && cluster !== changeRequest.cluster_id)
      requireClusterForChangeRequest(request.ctx.db, space.org_id, cluster, 'conversationsIssuesCluster');
    const updated = updateChangeRequest(request.ctx.db, changeRequest, {
      subject: body.subject,
      description: body.description === undefined ? undefined : JSON.stringify(body.description),
      status: body.status,
      cluster_id: cluster,
    });
    if (/\breturn=minimal\b/.test(String(request.headers.prefer ?? ''))) {
      return reply.code(204).header('preference-applied', 'return=minimal').send();
    }
    return answer(request, updated, space);
  });

  // --- Reviews ----------------------------------------------------------------------------------

  app.get<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/reviews',
    CONDITIONAL,
    async (request) => {
      const query = parseQuery(pageQuery, request.query);
      const { space, changeRequest } = requestOf(request, request.params);
      const { db, links } = request.ctx;
      const current = new Set(currentReviews(db, changeRequest).map((review) => review.id));
      return pageFromArray(reviewsOf(db, changeRequest), pageWindow(query), (review) =>
        reviewJson(db, review, changeRequest, space, links, current),
      );
    },
  );

  app.get<{ Params: RequestParams & { reviewId: string } }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/reviews/:reviewId',
    async (request) => {
      const { space, changeRequest } = requestOf(request, request.params);
      const { db, links } = request.ctx;
      const review = reviewsOf(db, changeRequest).find((item) => item.id === request.params.reviewId);
      if (!review) throw notFound('Review');
      const current = new Set(currentReviews(db, changeRequest).map((item) => item.id));
      return reviewJson(db, review, changeRequest, space, links, current);
    },
  );

  app.post<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/reviews',
    async (request, reply) => {
      const body = parseBody(reviewBody, request.body ?? {});
      const { space, role, changeRequest } = requestOf(request, request.params);
      const { db, user, links } = request.ctx;
      requireNotMerged(changeRequest);
      const requested = findRequestedReviewer(db, changeRequest.id, user.id);
      if (!requested && !atLeast(role, 'review')) {
        throw forbidden('Only requested reviewers and members with the review role can review a change request');
      }
      if (changeRequest.created_by === user.id) throw forbidden('You cannot review your own change request');
      const id = addReview(db, changeRequest, {
        reviewerId: user.id,
        requestedBy: requested?.requested_by ?? null,
        status: body.status,
        comment: body.comment,
      });
      const review = reviewsOf(db, changeRequest).find((item) => item.id === id)!;
      const json = reviewJson(db, review, changeRequest, space, links, new Set([id]));
      return reply.code(201).header('location', json.urls.location).send(json);
    },
  );

  // --- Requested reviewers ------------------------------------------------------------------------

  app.get<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers',
    async (request) => {
      const query = parseQuery(pageQuery, request.query);
      const { changeRequest } = requestOf(request, request.params);
      const { db, links } = request.ctx;
      const rows = requestedReviewers(db, changeRequest.id);
      return pageFromArray(rows, pageWindow(query), (row) => requestedReviewerJson(db, row, links));
    },
  );

  app.post<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers',
    async (request) => {
      const body = parseBody(reviewersBody, request.body ?? {});
      const { space, changeRequest } = requestOf(request, request.params, 'edit');
      const { db, user, links } = request.ctx;
      requireNotMerged(changeRequest);
      const userIds = [...new Set(body.users)];
      userIds.forEach((userId, index) => {
        const field = `users.${index}`;
        if (!findUserById(db, userId)) throw notFoundInBody('User', field, userId);
        if (!isOrgMember(db, space.org_id, userId))
          throw badRequest(`Invalid body field "${field}": user ${userId} is not a member of the organization`);
        if (userId === changeRequest.created_by)
          throw badRequest(`Invalid body field "${field}": the author of a change request cannot review it`);
      });
      requestReviews(db, changeRequest, userIds, user.id, {
        subject: body.subject,
        description: body.description === undefined ? undefined : JSON.stringify(body.description),
      });
      const rows = requestedReviewers(db, changeRequest.id, userIds);
      return { users: rows.map((row) => requestedReviewerJson(db, row, links)) };
    },
  );

  app.delete<{ Params: RequestParams & { userId: string } }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers/:userId',
    async (request, reply) => {
      const { changeRequest } = requestOf(request, request.params, 'edit');
      requireNotMerged(changeRequest);
      return sendDeleted(reply, removeRequestedReviewer(request.ctx.db, changeRequest.id, request.params.userId));
    },
  );

  // --- Contributors -----------------------------------------------------------------------------

  app.get<{ Params: RequestParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/contributors',
    async (request) => {
      const query = parseQuery(pageQuery, request.query);
      const { changeRequest } = requestOf(request, request.params);
      const { db, links } = request.ctx;
      const rows = contributorsOf(db, changeRequest.id);
      return pageFromArray(rows, pageWindow(query), (row) => ({
        user: userJson(row, links),
        actionType: row.action_type,
        updatedAt: row.last_at,
        count: row.count,
      }));
    },
  );
}
