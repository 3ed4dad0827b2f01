import type { Access } from '../access.js';
import { conflict, json, laterThan, newId, notFound, now } from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { CHANGE_REQUEST_STATUSES } from '../contract/enums.js';

/**
 * Change requests as stored: a branch of a space's content with its lifecycle, reviews,
 * requested reviewers and contributors. Plain functions over the store; the routes parse,
 * authorize and call them.
 */

export { CHANGE_REQUEST_STATUSES };
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
  /** Open comments on the change request, kept by the comments module. */
  comments_open?: number;
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

/** The pending review request of a user on a change request, if there is one. */
export function findRequestedReviewer(db: Db, requestId: string, userId: string): RequestedReviewerRow | undefined {
  return db
    .prepare('SELECT * FROM change_request_reviewers WHERE change_request_id = ? AND user_id = ?')
    .get(requestId, userId) as RequestedReviewerRow | undefined;
}

/**
 * Records a review of the change request's current revision by `reviewerId`, which answers their
 * review request (if any); returns the review's id.
 */
export function addReview(
  db: Db,
  request: ChangeRequestRow,
  review: { reviewerId: string; requestedBy: string | null; status: string; comment: unknown },
): string {
  const at = now();
  const id = newId();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO change_request_reviews (id, change_request_id, revision, reviewer_id, requested_by, status, comment, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      request.id,
      request.revision,
      review.reviewerId,
      review.requestedBy,
      review.status,
      review.comment ? JSON.stringify(review.comment) : null,
      at,
      at,
    );
    removeRequestedReviewer(db, request.id, review.reviewerId);
    if (review.comment) recordContribution(db, request.id, review.reviewerId, 'comment');
    updateChangeRequest(db, request, {});
  })();
  return id;
}

/** The pending review requests of a change request, oldest first; only those of `userIds` if given. */
export function requestedReviewers(db: Db, requestId: string, userIds?: string[]): RequestedReviewerRow[] {
  if (userIds === undefined) {
    return db
      .prepare('SELECT * FROM change_request_reviewers WHERE change_request_id = ? ORDER BY created_at, user_id')
      .all(requestId) as RequestedReviewerRow[];
  }
  return db
    .prepare(
      `SELECT * FROM change_request_reviewers WHERE change_request_id = ? AND user_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, user_id`,
    )
    .all(requestId, JSON.stringify(userIds)) as RequestedReviewerRow[];
}

/**
 * Asks users to review the change request's current revision, and applies `changes` to it:
 * asking for a review puts a draft in review, as the app does.
 */
export function requestReviews(
  db: Db,
  request: ChangeRequestRow,
  userIds: string[],
  requestedBy: string,
  changes: { subject?: string | undefined; description?: string | undefined },
): void {
  const at = now();
  db.transaction(() => {
    const insert = db.prepare(
      `INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (change_request_id, user_id) DO UPDATE SET requested_by = excluded.requested_by, revision = excluded.revision, created_at = excluded.created_at`,
    );
    for (const userId of userIds) insert.run(request.id, userId, requestedBy, request.revision, at);
    updateChangeRequest(db, request, {
      status: request.status === 'draft' ? 'open' : undefined,
      subject: changes.subject,
      description: changes.description,
    });
  })();
}

/** Withdraws a user's review request; whether there was one. */
export function removeRequestedReviewer(db: Db, requestId: string, userId: string): boolean {
  return (
    db
      .prepare('DELETE FROM change_request_reviewers WHERE change_request_id = ? AND user_id = ?')
      .run(requestId, userId).changes > 0
  );
}

/** A contribution to a change request: the user, what they did, how often and when last. */
export type ContributorRow = UserRow & { action_type: 'edit' | 'comment'; last_at: string; count: number };

/** The contributions to a change request, by first contribution. */
export function contributorsOf(db: Db, requestId: string): ContributorRow[] {
  return db
    .prepare(
      `SELECT c.*, u.* FROM change_request_contributors c JOIN users u ON u.id = c.user_id
         WHERE c.change_request_id = ? ORDER BY c.first_at, c.user_id, c.action_type`,
    )
    .all(requestId) as ContributorRow[];
}
