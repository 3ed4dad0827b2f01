import { z } from 'zod';
import type { Role } from '../access.js';
import { notFoundInBody, overLimit, parseBody } from '../http.js';
import { roleOrGuestSchema } from '../schemas.js';
import type { Db } from '../store/db.js';
import { userExists } from '../teams/store.js';
import { teamInOrganization } from './store.js';

/**
 * Users, and teams, one invite may name (each list): the invite of a space, a collection or a site
 * is one transaction under the database's single writer, so a bound keeps it short; 100 is the
 * graph's own bound on `userIds` and `teamIds`, and a larger audience is a team or a few invites.
 */
export const MAX_INVITED = 100;

const ids = (what: string) =>
  z
    .array(z.string().min(1, `must be the id of a ${what}`).max(100, 'must be at most 100 characters'))
    .max(MAX_INVITED, `must name at most ${MAX_INVITED} ${what}s`);

const inviteBody = z
  .strictObject({ role: roleOrGuestSchema, users: ids('user').optional(), teams: ids('team').optional() })
  .refine((body) => (body.users?.length ?? 0) + (body.teams?.length ?? 0) > 0, 'must name at least one user or team');

/** An invite: a role (null removes the grants) for users and teams, as listed (a repeated id is written once). */
export interface Invite {
  role: Role | null;
  users: string[];
  teams: string[];
}

/**
 * Parses the body of an invite (`POST …/permissions` of a space, a collection or a site). A list
 * over `MAX_INVITED` is refused first with the limit, the value and the maximum, before anything
 * else of a body that large is looked at.
 */
export function parseInvite(body: unknown): Invite {
  for (const field of ['users', 'teams'] as const) {
    const list = (body as Record<string, unknown> | null)?.[field];
    if (Array.isArray(list) && list.length > MAX_INVITED) {
      throw overLimit(
        `Invalid body field "${field}": at most ${MAX_INVITED} per invite, got ${list.length}`,
        { limit: field, value: list.length, max: MAX_INVITED },
        400,
      );
    }
  }
  const parsed = parseBody(inviteBody, body);
  return { role: parsed.role, users: parsed.users ?? [], teams: parsed.teams ?? [] };
}

/**
 * Checks who an invite names, in the order of the body: each team must be of the organization,
 * each user must exist (`users: 'any'`: a space or collection brings them in as guests) or be a
 * member of it (`users: 'members'`: sharing a site brings nobody in). The first miss is a 404
 * naming the field (`users.2`).
 */
export function checkInvitees(db: Db, orgId: string, invite: Invite, users: 'any' | 'members'): void {
  invite.users.forEach((id, i) => {
    const known =
      users === 'any'
        ? userExists(db, id)
        : db.prepare('SELECT 1 FROM members WHERE org_id = ? AND user_id = ?').get(orgId, id) !== undefined;
    if (!known) throw notFoundInBody(users === 'any' ? 'User' : 'Member of the organization', `users.${i}`, id);
  });
  invite.teams.forEach((id, i) => {
    if (!teamInOrganization(db, orgId, id)) throw notFoundInBody('Team', `teams.${i}`, id);
  });
}
