import type { Role } from '../access.js';
import type { Links } from '../links.js';
import type { MemberRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { userJson } from '../users/json.js';
import { memberCounts } from './store.js';

/** A member of an organization, with the counts of their spaces, teams and sites. */
export function memberJson(db: Db, member: MemberRow, user: UserRow, links: Links) {
  const counts = memberCounts(db, member);
  return {
    object: 'member' as const,
    id: member.user_id,
    role: member.role as Role | null,
    user: userJson(user, links),
    disabled: member.disabled === 1,
    joinedAt: member.joined_at,
    ...(member.last_seen_at ? { lastSeenAt: member.last_seen_at } : {}),
    sso: member.sso === 1,
    ...counts,
  };
}
