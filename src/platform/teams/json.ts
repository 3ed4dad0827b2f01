import type { TeamRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { teamCounts } from './store.js';

/** A team; `canManage` is true for organization admins and owners of the team. */
export function teamJson(db: Db, team: TeamRow, canManage: boolean) {
  const { members, spaces } = teamCounts(db, team.id);
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members,
    spaces,
    createdAt: team.created_at,
    permissions: { admin: canManage, view: true },
  };
}
