import { conflict, now, preconditionFailed } from '../http.js';
import type { OrganizationRow, SpaceRow, UserRow } from '../rows.js';
import type { MergeRule, SpaceMergeRules } from '../schemas.js';
import type { Db } from '../store/db.js';
import { setCurrentRevision } from '../content/current.js';
import { mergeContents, type MergeConflict } from '../content/merge.js';
import { getDocument, loadRevision, putDocument, storeRevision, type RevisionContent } from '../content/revisions.js';
import type { JSONDocument } from '../../document/model.js';
import { baseRevision, currentReviews, isOutdated, updateChangeRequest, type ChangeRequestRow } from './store.js';

/**
 * Merging a change request into the live content, and updating it with what was merged live
 * since it branched: three-way merges of the request's content and the space's current content
 * against their common base (`content/merge.ts`). Each runs in one synchronous SQLite
 * transaction that reads the space's current revision itself, so two merges into one space are
 * serialized: the second merges against the first's result, never over it.
 */

export interface MergeAnswer {
  revision: string;
  result: 'merge' | 'update' | 'conflicts';
  conflicts: MergeConflict[];
}

function contentOf(db: Db, spaceId: string, revisionId: string): RevisionContent {
  const revision = loadRevision(db, spaceId, revisionId);
  if (!revision) throw new Error(`Revision ${revisionId} of space ${spaceId} is missing`);
  return revision.content;
}

function threeWay(db: Db, spaceId: string, base: string, live: string, request: string, mode: 'merge' | 'update') {
  return mergeContents({
    base: contentOf(db, spaceId, base),
    live: contentOf(db, spaceId, live),
    request: contentOf(db, spaceId, request),
    document: (id) => getDocument<JSONDocument>(db, spaceId, id),
    storeDocument: (document) => putDocument(db, spaceId, document),
    mode,
  });
}

/** The rules that apply to a space: its own, or its organization's when it inherits them. */
export function effectiveRules(db: Db, space: SpaceRow): SpaceMergeRules {
  const own = JSON.parse(space.merge_rules) as SpaceMergeRules;
  if (own.type !== 'inherit') return own;
  const org = db.prepare('SELECT merge_rules FROM organizations WHERE id = ?').get(space.org_id) as Pick<
    OrganizationRow,
    'merge_rules'
  >;
  return JSON.parse(org.merge_rules) as SpaceMergeRules;
}

/** Why a rule stops `actor` from merging the request now; undefined when it is met. */
function unmet(
  db: Db,
  rule: MergeRule,
  request: ChangeRequestRow,
  space: SpaceRow,
  actor: UserRow,
): string | undefined {
  const reviews = currentReviews(db, request);
  const approvedBy = new Set(
    reviews.filter((review) => review.status === 'approved').map((review) => review.reviewer_id),
  );
  switch (rule.rule) {
    case 'require_specific_reviewers': {
      const missing = rule.users.filter((user) => !approvedBy.has(user));
      return missing.length ? `it needs the approval of ${missing.join(', ')}` : undefined;
    }
    case 'require_one_of_specific_reviewers':
      return rule.users.some((user) => approvedBy.has(user))
        ? undefined
        : `it needs the approval of one of ${rule.users.join(', ')}`;
    case 'allow_bypass':
      return undefined;
    case 'require_at_least_one_review':
      return reviews.length ? undefined : 'it needs at least one review';
    case 'require_at_least_one_approved_review':
      return approvedBy.size ? undefined : 'it needs at least one approval';
    case 'require_all_reviews_approved':
      return reviews.every((review) => review.status === 'approved') ? undefined : 'a review requests changes';
    case 'require_up_to_date_change_request':
      return isOutdated(request, space) ? 'it is not up to date with the main content: update it first' : undefined;
    case 'require_change_request_subject':
      return request.subject.trim() ? undefined : 'it needs a subject';
    case 'require_change_request_description': {
      const description = request.description ? (JSON.parse(request.description) as JSONDocument) : undefined;
      return description?.nodes.length ? undefined : 'it needs a description';
    }
    case 'require_author_to_merge':
      return request.created_by === actor.id ? undefined : 'only its author can merge it';
  }
}

/**
 * Checks the merge rules of the space for `actor`, in order: the first rule not met is a 412
 * naming it, unless a bypass rule lists the actor.
 */
export function checkMergeRules(db: Db, space: SpaceRow, request: ChangeRequestRow, actor: UserRow): void {
  const rules = effectiveRules(db, space);
  if (rules.type !== 'rules') return;
  if (rules.rules.some((rule) => rule.rule === 'allow_bypass' && rule.users.includes(actor.id))) return;
  for (const rule of rules.rules) {
    const why = unmet(db, rule, request, space, actor);
    if (why) throw preconditionFailed(`Merge rule ${rule.rule} is not met: ${why}`);
  }
}

function requireMergeable(request: ChangeRequestRow): void {
  if (request.status === 'merged') throw conflict(`Change request #${request.number} is already merged`);
  if (request.status === 'archived')
    throw conflict(`Change request #${request.number} is archived: reopen it before merging or updating it`);
}

/**
 * Merges a change request into the space's live content. Clean: a `merge` revision becomes
 * current (search index included) and the request is merged. With conflicts: nothing changes,
 * and the answer lists them.
 */
export function mergeChangeRequest(db: Db, spaceId: string, requestId: string, actor: UserRow): MergeAnswer {
  return db.transaction((): MergeAnswer => {
    // Read inside the transaction: a merge that ran before this one is part of what this one sees.
    const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;
    const request = db.prepare('SELECT * FROM change_requests WHERE id = ?').get(requestId) as ChangeRequestRow;
    requireMergeable(request);
    checkMergeRules(db, space, request, actor);
    const base = baseRevision(request);
    const live = space.revision;
    let content: RevisionContent;
    if (live === base) {
      content = contentOf(db, spaceId, request.revision);
    } else {
      const outcome = threeWay(db, spaceId, base, live, request.revision, 'merge');
      if (outcome.conflicts.length)
        return { revision: request.revision, result: 'conflicts', conflicts: outcome.conflicts };
      content = outcome.content;
    }
    const at = now();
    const revision = storeRevision(db, {
      spaceId,
      type: 'merge',
      parents: [live, request.revision],
      content,
      createdAt: at,
      mergedFrom: request.id,
    });
    setCurrentRevision(db, spaceId, revision);
    updateChangeRequest(db, request, {
      status: 'merged',
      merged_by: actor.id,
      merged_at: at,
      revision_merged: revision,
    });
    return { revision, result: 'merge', conflicts: [] };
  })();
}

/**
 * Updates a change request with the live content merged since its base: an `update` revision of
 * the request. Conflicting blocks keep the request's version with the live one next to it, and
 * the answer lists them; either way the request is then up to date.
 */
export function updateChangeRequestFromMain(db: Db, spaceId: string, requestId: string): MergeAnswer {
  return db.transaction((): MergeAnswer => {
    const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;
    const request = db.prepare('SELECT * FROM change_requests WHERE id = ?').get(requestId) as ChangeRequestRow;
    requireMergeable(request);
    const base = baseRevision(request);
    const live = space.revision;
    if (live === base) return { revision: request.revision, result: 'update', conflicts: [] };
    const outcome =
      request.revision === base
        ? { content: contentOf(db, spaceId, live), conflicts: [] as MergeConflict[] }
        : threeWay(db, spaceId, base, live, request.revision, 'update');
    const revision = storeRevision(db, {
      spaceId,
      type: 'update',
      parents: [request.revision, live],
      content: outcome.content,
      createdAt: now(),
      changeRequest: request.id,
    });
    updateChangeRequest(db, request, { revision, revision_merged_ancestor: live });
    return { revision, result: outcome.conflicts.length ? 'conflicts' : 'update', conflicts: outcome.conflicts };
  })();
}
