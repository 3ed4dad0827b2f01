import type { Db } from '../store/db.js';
import { keepReviewersOfOrg } from '../organizations/merge-rules.js';

/**
 * Settles content that moved to the organization `orgId`. Team grants on it go, since teams belong
 * to one organization; so do the user grants of people who are not members of `orgId`, which
 * would otherwise come back to life if they joined later. Merge rules keep only reviewers who
 * are members of `orgId`.
 */
export function settleTransferredContent(
  db: Db,
  orgId: string,
  moved: { collections?: string[]; spaces?: string[] },
): void {
  const dropGrants = (contentType: 'collection' | 'space', ids: string[]) => {
    if (ids.length === 0) return;
    db.prepare(
      `DELETE FROM content_permissions WHERE content_type = ? AND content_id IN (${ids.map(() => '?').join(',')})
       AND (principal_type = 'team' OR (principal_type = 'user' AND NOT EXISTS
         (SELECT 1 FROM members m WHERE m.org_id = ? AND m.user_id = content_permissions.principal_id)))`,
    ).run(contentType, ...ids, orgId);
  };
  dropGrants('collection', moved.collections ?? []);
  dropGrants('space', moved.spaces ?? []);
  keepReviewersOfOrg(db, moved.spaces ?? [], orgId);
}
