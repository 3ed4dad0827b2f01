import { type AccessFields, findMember, type Role } from '../access.js';
import type { Db } from '../store/db.js';
import type { ContentKind } from './store.js';

/**
 * Where a role on a space, a collection or a site comes from (a site knows the first four, less
 * `default-level`):
 * - `organization`: the organization role (an admin's administrates everything; a member's applies
 *   where every level up the chain inherits);
 * - `default-level`: the explicit default level of the item, or of `collection` up its chain, which
 *   applies to every member (not to guests) instead of their organization role;
 * - `direct`: a grant to the user on the item;
 * - `team`: a grant to `team`, which the user is in, on the item;
 * - `collection`: a grant on `collection`, which holds the item, to the user or to their `team`.
 */
export interface AccessSource {
  type: 'organization' | 'default-level' | 'direct' | 'team' | 'collection';
  role: Role;
  team?: string;
  collection?: string;
}

const RANK: Record<Role, number> = { read: 1, comment: 2, edit: 3, review: 4, create: 5, admin: 6 };

/** Among sources of the same role, the nearest first. */
const ORDER: Record<AccessSource['type'], number> = {
  organization: 0,
  'default-level': 1,
  direct: 2,
  team: 3,
  collection: 4,
};

interface Grant {
  content_type: ContentKind;
  content_id: string;
  principal_type: 'user' | 'team';
  principal_id: string;
  role: Role;
}

/**
 * Explains the access of the members of an organization to one space or collection: every source
 * of a role on it, the strongest first. The rules are `Access.contentRole`'s: the first source's
 * role is the effective role the platform enforces (`test/platform/permissions.test.ts` holds the
 * two together). The item's chain and grants are read once, for all the members asked about.
 */
export function accessExplainer(db: Db, kind: ContentKind, item: AccessFields) {
  // The collections holding the item, nearest first.
  const chain: AccessFields[] = [];
  const seen = new Set<string>([item.id]);
  for (let parent = item.parent_id; parent && !seen.has(parent); ) {
    seen.add(parent);
    const row = db.prepare('SELECT id, org_id, parent_id, default_level FROM collections WHERE id = ?').get(parent) as
      | AccessFields
      | undefined;
    if (!row) break;
    chain.push(row);
    parent = row.parent_id;
  }
  const grants = db
    .prepare(
      `SELECT content_type, content_id, principal_type, principal_id, role FROM content_permissions
        WHERE (content_type = ? AND content_id = ?)
           OR (content_type = 'collection' AND content_id IN (SELECT value FROM json_each(?)))`,
    )
    .all(kind, item.id, JSON.stringify(chain.map((c) => c.id))) as Grant[];
  const teamsOf = new Map<string, Set<string>>();
  for (const row of db
    .prepare('SELECT tm.user_id, tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id WHERE t.org_id = ?')
    .all(item.org_id) as Array<{ user_id: string; team_id: string }>) {
    const teams = teamsOf.get(row.user_id) ?? new Set<string>();
    teams.add(row.team_id);
    teamsOf.set(row.user_id, teams);
  }
  // The nearest explicit default level: the item's own, else its nearest collection's.
  const levelAt = [item, ...chain].find((c) => c.default_level !== 'inherit');

  /** The sources of the user's role on the item, strongest first; none when they have no access. */
  return (userId: string): AccessSource[] => {
    const member = findMember(db, item.org_id, userId);
    if (!member || member.disabled) return [];
    const orgRole = member.role as Role | null;
    if (orgRole === 'admin') return [{ type: 'organization', role: 'admin' }];
    const sources: AccessSource[] = [];
    if (orgRole !== null) {
      if (levelAt) {
        const source: AccessSource = { type: 'default-level', role: levelAt.default_level as Role };
        if (levelAt !== item) source.collection = levelAt.id;
        sources.push(source);
      } else {
        sources.push({ type: 'organization', role: orgRole });
      }
    }
    const teams = teamsOf.get(userId) ?? new Set<string>();
    for (const grant of grants) {
      const mine = grant.principal_type === 'user' ? grant.principal_id === userId : teams.has(grant.principal_id);
      if (!mine) continue;
      const team = grant.principal_type === 'team' ? { team: grant.principal_id } : {};
      if (grant.content_type === kind && grant.content_id === item.id) {
        sources.push({ type: grant.principal_type === 'team' ? 'team' : 'direct', role: grant.role, ...team });
      } else {
        sources.push({ type: 'collection', role: grant.role, collection: grant.content_id, ...team });
      }
    }
    return strongestFirst(sources);
  };
}

/**
 * Orders the sources of one user's role, in place: the strongest role first, and among sources of
 * the same role the nearest (organization, default level, direct, team, collection), so that the
 * first is the one the decision rests on. The one order of the aggregates of spaces, collections and sites.
 */
export function strongestFirst<T extends Pick<AccessSource, 'type' | 'role'>>(sources: T[]): T[] {
  return sources.sort((a, b) => RANK[b.role] - RANK[a.role] || ORDER[a.type] - ORDER[b.type]);
}

/** The effective role the sources give: the strongest. */
export function roleOf(sources: AccessSource[]): Role | null {
  return sources[0]?.role ?? null;
}
