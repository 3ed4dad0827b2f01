import type { Links } from '../links.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { deletedUser, userById, userOrDeleted } from '../users/json.js';
import { type ChangeRequestRow, isOutdated, type RequestedReviewerRow, type ReviewRow } from './store.js';

/** The API shape of a change request. */
export function changeRequestJson(db: Db, request: ChangeRequestRow, space: SpaceRow, links: Links) {
  const location = `${links.api}/spaces/${space.id}/change-requests/${request.id}`;
  const mergedBy = userById(db, links, request.merged_by);
  return {
    object: 'change-request' as const,
    id: request.id,
    number: request.number,
    status: request.status,
    subject: request.subject,
    ...(request.description ? { description: JSON.parse(request.description) as unknown } : {}),
    createdBy: userOrDeleted(db, links, request.created_by),
    createdAt: request.created_at,
    updatedAt: request.updated_at,
    ...(request.status === 'merged' && request.merged_at
      ? { mergedBy: mergedBy ?? deletedUser(links), mergedAt: request.merged_at }
      : {}),
    space: space.id,
    revision: request.revision,
    revisionInitial: request.revision_initial,
    ...(request.revision_merged_ancestor ? { revisionMergedAncestor: request.revision_merged_ancestor } : {}),
    ...(request.revision_merged ? { revisionMerged: request.revision_merged } : {}),
    comments: request.comments_open ?? 0,
    outdated: isOutdated(request, space),
    ...(request.cluster_id ? { conversationsIssuesCluster: request.cluster_id } : {}),
    urls: { app: `${links.app}/s/${space.id}/~/changes/${request.number}`, location },
  };
}

export function reviewJson(
  db: Db,
  review: ReviewRow,
  request: ChangeRequestRow,
  space: SpaceRow,
  links: Links,
  current: ReadonlySet<string>,
) {
  const requestedBy = userById(db, links, review.requested_by);
  return {
    object: 'change-request-review' as const,
    id: review.id,
    revision: review.revision,
    reviewer: userOrDeleted(db, links, review.reviewer_id),
    ...(requestedBy ? { requestedBy } : {}),
    status: review.status,
    outdated: !current.has(review.id),
    ...(review.comment ? { comment: reviewComment(db, review, request, space, links) } : {}),
    createdAt: review.created_at,
    updatedAt: review.updated_at,
    urls: { location: `${links.api}/spaces/${space.id}/change-requests/${request.id}/reviews/${review.id}` },
  };
}

export function requestedReviewerJson(db: Db, row: RequestedReviewerRow, links: Links) {
  return {
    object: 'change-request-requested-reviewer' as const,
    kind: 'user' as const,
    user: userOrDeleted(db, links, row.user_id),
    revision: row.revision,
    requestedBy: userOrDeleted(db, links, row.requested_by),
    createdAt: row.created_at,
  };
}

/** The comment a review was submitted with, as the API's `Comment` (it has no replies or reactions). */
function reviewComment(db: Db, review: ReviewRow, request: ChangeRequestRow, space: SpaceRow, links: Links) {
  return {
    object: 'comment' as const,
    id: `review-${review.id}`,
    postedBy: userOrDeleted(db, links, review.reviewer_id),
    postedAt: review.created_at,
    reactions: [],
    replies: 0,
    repliers: [],
    body: JSON.parse(review.comment!) as unknown,
    target: { space: space.id, revision: review.revision, changeRequest: request.id, review: review.id },
    status: 'open' as const,
    urls: { location: `${links.api}/spaces/${space.id}/change-requests/${request.id}/reviews/${review.id}` },
    permissions: { view: true, edit: false, reply: false, delete: false },
  };
}
