import { isOrgMember } from '../access.js';
import { badRequest, laterThan } from '../http.js';
import type { Db } from '../store/db.js';
import type { SpaceMergeRules } from './schemas.js';

interface StoredSpaceRules {
  id: string;
  merge_rules: string;
  updated_at: string;
}

/** Throws a 400 naming the first reviewer of `mergeRules` who is not a member of the organization. */
export function requireReviewersInOrg(db: Db, orgId: string, mergeRules: SpaceMergeRules | undefined): void {
  if (mergeRules?.type !== 'rules') return;
  for (const userId of mergeRules.rules.flatMap((rule) => rule.users)) {
    if (!isOrgMember(db, orgId, userId)) {
      throw badRequest(`Invalid body field "mergeRules.rules": user ${userId} is not a member of the organization`);
    }
  }
}

/**
 * The stored rules (organization or space) without the reviewers `keep` refuses, a rule left with
 * no reviewer dropped; `null` when every reviewer stays.
 */
function pruned(stored: string, keep: (userId: string) => boolean): string | null {
  const mergeRules = JSON.parse(stored) as SpaceMergeRules;
  if (mergeRules.type !== 'rules' || mergeRules.rules.every((rule) => rule.users.every(keep))) return null;
  const rules = mergeRules.rules
    .map((rule) => ({ ...rule, users: rule.users.filter(keep) }))
    .filter((rule) => rule.users.length > 0);
  return JSON.stringify({ ...mergeRules, rules });
}

function pruneSpaces(db: Db, spaces: StoredSpaceRules[], keep: (userId: string) => boolean): void {
  const write = db.prepare('UPDATE spaces SET merge_rules = ?, updated_at = ? WHERE id = ?');
  for (const space of spaces) {
    const rules = pruned(space.merge_rules, keep);
    if (rules !== null) write.run(rules, laterThan(space.updated_at), space.id);
  }
}

/**
 * Takes a user out of the reviewers required by an organization and by each of its spaces
 * (deleted ones included), for a member who leaves or is removed.
 */
export function removeReviewer(db: Db, orgId: string, userId: string): void {
  const keep = (id: string) => id !== userId;
  const org = db.prepare('SELECT merge_rules FROM organizations WHERE id = ?').get(orgId) as
    | { merge_rules: string }
    | undefined;
  const orgRules = org ? pruned(org.merge_rules, keep) : null;
  if (orgRules !== null) db.prepare('UPDATE organizations SET merge_rules = ? WHERE id = ?').run(orgRules, orgId);
  const spaces = db.prepare('SELECT id, merge_rules, updated_at FROM spaces WHERE org_id = ?').all(orgId);
  pruneSpaces(db, spaces as StoredSpaceRules[], keep);
}

/**
 * For spaces that moved to another organization: drops from their merge rules the reviewers who
 * are not members of it.
 */
export function keepReviewersOfOrg(db: Db, spaceIds: string[], orgId: string): void {
  if (spaceIds.length === 0) return;
  const spaces = db
    .prepare(`SELECT id, merge_rules, updated_at FROM spaces WHERE id IN (${spaceIds.map(() => '?').join(',')})`)
    .all(...spaceIds);
  pruneSpaces(db, spaces as StoredSpaceRules[], (userId) => isOrgMember(db, orgId, userId));
}
