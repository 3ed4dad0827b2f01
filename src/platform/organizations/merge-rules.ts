import { isOrgMember } from '../access.js';
import { badRequest, laterThan, notFoundInBody } from '../http.js';
import type { Db } from '../store/db.js';
import type { SpaceMergeRules } from '../schemas.js';

interface StoredSpaceRules {
  id: string;
  merge_rules: string;
  updated_at: string;
}

/**
 * Checks the reviewers of `mergeRules` in the body: the first unknown user is a 404, the first
 * user outside the organization a 400, both naming the entry (`mergeRules.rules.0.users.1`).
 */
export function requireReviewersInOrg(db: Db, orgId: string, mergeRules: SpaceMergeRules | undefined): void {
  if (mergeRules?.type !== 'rules') return;
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?');
  mergeRules.rules.forEach((rule, r) => {
    if (!('users' in rule)) return;
    rule.users.forEach((userId, u) => {
      const field = `mergeRules.rules.${r}.users.${u}`;
      if (!userExists.get(userId)) throw notFoundInBody('User', field, userId);
      if (!isOrgMember(db, orgId, userId)) {
        throw badRequest(`Invalid body field "${field}": user ${userId} is not a member of the organization`);
      }
    });
  });
}

/**
 * The stored rules (organization or space) without the reviewers `keep` refuses, a rule left with
 * no reviewer dropped; `null` when every reviewer stays.
 */
function pruned(stored: string, keep: (userId: string) => boolean): string | null {
  const mergeRules = JSON.parse(stored) as SpaceMergeRules;
  if (mergeRules.type !== 'rules' || mergeRules.rules.every((rule) => !('users' in rule) || rule.users.every(keep)))
    return null;
  const rules = mergeRules.rules
    .map((rule) => ('users' in rule ? { ...rule, users: rule.users.filter(keep) } : rule))
    .filter((rule) => !('users' in rule) || rule.users.length > 0);
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
