import type { Access } from '../access.js';
import { conflict, json, laterThan, newId, notFound, now } from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import { userJson } from '../users/json.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';

/**
 * Change requests as stored: a branch of a space's content with its lifecycle, reviews,
 * requested reviewers and contributors. Plain functions over the store; the routes parse,
 * authorize and call them.
 */

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  description: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  merged_by: string | null;
  merged_at: string | null;
  /** The request's current content. */
  revision: string;
  /** The space's revision the request branched from. */
  revision_initial: string;
  /** The space's revision last brought in by an update from main content. */
  revision_merged_ancestor: string | null;
  /** The space's revision the merge wrote. */
  revision_merged: string | null;
  cluster_id: string | null;
}

export interface ReviewRow {
  id: string;
  change_request_id: string;
  revision: string;
  reviewer_id: string;
  requested_by: string | null;
  status: 'approved' | 'changes-requested';
  comment: string | null;
  created_at: string;
  updated_at: string;
}

export interface RequestedReviewerRow {
  change_request_id: string;
  user_id: string;
  requested_by: string | null;
  revision: string;
  created_at: string;
}

/** The space revision a request's content is based on: the last one brought in, else where it started. */
export function baseRevision(request: ChangeRequestRow): string {
  return request.revision_merged_ancestor ?? request.revision_initial;
}

/** True when the space's content moved on since the request's base (never for a merged request). */
export function isOutdated(request: ChangeRequestRow, space: Pick<SpaceRow, 'revision'>): boolean {
  return request.status !== 'merged' && space.revision !== baseRevision(request);
}

/**
 * A change request of a space by id or by number (`42` or `#42`); undefined when there is none.
 */
export function findChangeRequest(db: Db, spaceId: string, ref: string): ChangeRequestRow | undefined {
  const byId = db.prepare('SELECT * FROM change_requests WHERE id = ? AND space_id = ?').get(ref, spaceId) as
    | ChangeRequestRow
    | undefined;
  if (byId) return byId;
  const number = /^#?([1-9][0-9]{0,9})$/.exec(ref)?.[1];
  if (!number) return undefined;
  return db.prepare('SELECT * FROM change_requests WHERE space_id = ? AND number = ?').get(spaceId, Number(number)) as
    | ChangeRequestRow
    | undefined;
}

/** Like `findChangeRequest`, but a 404 when there is none. */
export function requireChangeRequest(db: Db, spaceId: string, ref: string): ChangeRequestRow {
  const request = findChangeRequest(db, spaceId, ref);
  if (!request) throw notFound('Change request');
  return request;
}

/** Recounts the change requests of a space into its row (every write that adds or moves one calls it). */
export function refreshCounts(db: Db, spaceId: string): void {
  db.prepare(
    `UPDATE spaces SET
       change_requests = (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id),
       change_requests_open = (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id AND status = 'open'),
       change_requests_draft = (SELECT COUNT(*) FROM change_requests WHERE space_id = spaces.id AND status = 'draft')
     WHERE id = ?`,
  ).run(spaceId);
}

/** Creates a change request branching from the space's current revision (a draft). */
export function createChangeRequest(
  db: Db,
  space: SpaceRow,
  user: UserRow,
  fields: { subject: string; description?: unknown; clusterId?: string | undefined; status?: 'draft' | 'open' },
): ChangeRequestRow {
  return db.transaction(() => {
    const number =
      ((db.prepare('SELECT MAX(number) FROM change_requests WHERE space_id = ?').pluck(true).get(space.id) as
        | number
        | null) ?? 0) + 1;
    const at = now();
    const id = newId();
    db.prepare(
      `INSERT INTO change_requests (id, space_id, number, status, subject, description, created_by, created_at, updated_at,
         revision, revision_initial, cluster_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      space.id,
      number,
      fields.status ?? 'draft',
      fields.subject,
      json.stringify(fields.description),
      user.id,
      at,
      at,
      space.revision,
      space.revision,
      fields.clusterId ?? null,
    );
    refreshCounts(db, space.id);
    return db.prepare('SELECT * FROM change_requests WHERE id = ?').get(id) as ChangeRequestRow;
  })();
}

/** Writes columns of a change request, stamps `updated_at`, recounts the space; returns the row after. */
export function updateChangeRequest(
  db: Db,
  request: ChangeRequestRow,
  columns: Partial<Omit<ChangeRequestRow, 'id' | 'space_id' | 'number'>>,
): ChangeRequestRow {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  const assignments = [...entries.map(([column]) => `${column} = ?`), 'updated_at = ?'];
  db.prepare(`UPDATE change_requests SET ${assignments.join(', ')} WHERE id = ?`).run(
    ...entries.map(([, value]) => value as unknown),
    laterThan(request.updated_at),
    request.id,
  );
  if (columns.status !== undefined) refreshCounts(db, request.space_id);
  return db.prepare('SELECT * FROM change_requests WHERE id = ?').get(request.id) as ChangeRequestRow;
}

/** Records that `userId` edited or commented a change request (its contributors). */
export function recordContribution(db: Db, requestId: string, userId: string, actionType: 'edit' | 'comment'): void {
  const at = now();
  db.prepare(
    `INSERT INTO change_request_contributors (change_request_id, user_id, action_type, first_at, last_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (change_request_id, user_id, action_type) DO UPDATE SET last_at = excluded.last_at, count = count + 1`,
  ).run(requestId, userId, actionType, at, at);
}

/** The list filters of change requests (REST query names). */
export interface ChangeRequestFilter {
  status?: ChangeRequestStatus | undefined;
  creator?: string | undefined;
  contributor?: string | undefined;
  requestedReviewer?: string | undefined;
  conversationsIssuesCluster?: string | undefined;
  orderBy?: 'updatedAt' | 'createdAt' | undefined;
}

/** Change requests of the given spaces matching `filter`, newest first by `orderBy`, one window of them. */
export function listChangeRequests(
  db: Db,
  spaceIds: readonly string[],
  filter: ChangeRequestFilter,
  window: { offset: number; limit: number },
): { rows: ChangeRequestRow[]; count: number } {
  const where = ['space_id IN (SELECT value FROM json_each(?))', 'status = ?'];
  const params: unknown[] = [JSON.stringify(spaceIds), filter.status ?? 'open'];
  if (filter.creator) {
    where.push('created_by = ?');
    params.push(filter.creator);
  }
  if (filter.contributor) {
    where.push('id IN (SELECT change_request_id FROM change_request_contributors WHERE user_id = ?)');
    params.push(filter.contributor);
  }
  if (filter.requestedReviewer) {
    where.push('id IN (SELECT change_request_id FROM change_request_reviewers WHERE user_id = ?)');
    params.push(filter.requestedReviewer);
  }
  if (filter.conversationsIssuesCluster) {
    where.push('cluster_id = ?');
    params.push(filter.conversationsIssuesCluster);
  }
  const clause = where.join(' AND ');
  const order =
    filter.orderBy === 'createdAt' ? 'created_at DESC, number DESC, id' : 'updated_at DESC, number DESC, id';
  const count = db
    .prepare(`SELECT COUNT(*) FROM change_requests WHERE ${clause}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM change_requests WHERE ${clause} ORDER BY ${order} LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as ChangeRequestRow[];
  return { rows, count };
}

/** A user's JSON by id, or undefined for a user that no longer exists. */
function userById(db: Db, links: Links, userId: string | null): ReturnType<typeof userJson> | undefined {
  if (!userId) return undefined;
  const user = db.prepare('SELECT * FROM users WHERE id = ?').get(userId) as UserRow | undefined;
  return user ? userJson(user, links) : undefined;
}

/** A deleted user, where the API needs a user. */
const ghost = (links: Links) => ({
  object: 'user' as const,
  id: 'deleted-user',
  displayName: 'Deleted user',
  urls: { location: `${links.api}/users/deleted-user` },
});

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
    createdBy: userById(db, links, request.created_by) ?? ghost(links),
    createdAt: request.created_at,
    updatedAt: request.updated_at,
    ...(request.status === 'merged' && request.merged_at
      ? { mergedBy: mergedBy ?? ghost(links), mergedAt: request.merged_at }
      : {}),
    space: space.id,
    revision: request.revision,
    revisionInitial: request.revision_initial,
    ...(request.revision_merged_ancestor ? { revisionMergedAncestor: request.revision_merged_ancestor } : {}),
    ...(request.revision_merged ? { revisionMerged: request.revision_merged } : {}),
    comments: 0,
    outdated: isOutdated(request, space),
    ...(request.cluster_id ? { conversationsIssuesCluster: request.cluster_id } : {}),
    urls: { app: `${links.app}/s/${space.id}/~/changes/${request.number}`, location },
  };
}

/** Reviews of a change request, oldest first. */
export function reviewsOf(db: Db, request: ChangeRequestRow): ReviewRow[] {
  return db
    .prepare('SELECT * FROM change_request_reviews WHERE change_request_id = ? ORDER BY created_at, id')
    .all(request.id) as ReviewRow[];
}

/**
 * The reviews that count: each reviewer's latest review, unless a review was asked of them again
 * since (a review is outdated once superseded by a newer submission or review request).
 */
export function currentReviews(db: Db, request: ChangeRequestRow): ReviewRow[] {
  const latest = new Map<string, ReviewRow>();
  for (const review of reviewsOf(db, request)) latest.set(review.reviewer_id, review);
  const askedAgain = new Map(
    (
      db
        .prepare('SELECT user_id, created_at FROM change_request_reviewers WHERE change_request_id = ?')
        .all(request.id) as Array<{ user_id: string; created_at: string }>
    ).map((row) => [row.user_id, row.created_at]),
  );
  return [...latest.values()].filter((review) => (askedAgain.get(review.reviewer_id) ?? '') <= review.created_at);
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
    reviewer: userById(db, links, review.reviewer_id) ?? ghost(links),
    ...(requestedBy ? { requestedBy } : {}),
    status: review.status,
    outdated: !current.has(review.id),
    ...(review.comment ? { comment: reviewComment(db, review, request, space, links) } : {}),
    createdAt: review.created_at,
    updatedAt: review.updated_at,
    urls: { location: `${links.api}/spaces/${space.id}/change-requests/${request.id}/reviews/${review.id}` },
  };
}

/** The comment a review was submitted with, as the API's `Comment` (it has no replies or reactions). */
function reviewComment(db: Db, review: ReviewRow, request: ChangeRequestRow, space: SpaceRow, links: Links) {
  return {
    object: 'comment' as const,
    id: `review-${review.id}`,
    postedBy: userById(db, links, review.reviewer_id) ?? ghost(links),
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

export function requestedReviewerJson(db: Db, row: RequestedReviewerRow, links: Links) {
  return {
    object: 'change-request-requested-reviewer' as const,
    kind: 'user' as const,
    user: userById(db, links, row.user_id) ?? ghost(links),
    revision: row.revision,
    requestedBy: userById(db, links, row.requested_by) ?? ghost(links),
    createdAt: row.created_at,
  };
}

/**
 * The spaces of an organization the caller can read (for the organization-wide list of change
 * requests), as ids.
 */
export function readableSpaceIds(db: Db, access: Access, orgId: string): string[] {
  const spaces = db.prepare('SELECT * FROM spaces WHERE org_id = ? AND deleted_at IS NULL').all(orgId) as SpaceRow[];
  return spaces.filter((space) => access.spaceRole(space) !== null).map((space) => space.id);
}

/** Throws 409 for a merged request, which can no longer change. */
export function requireNotMerged(request: ChangeRequestRow): void {
  if (request.status === 'merged')
    throw conflict(`Change request #${request.number} is merged: it can no longer change`);
}
