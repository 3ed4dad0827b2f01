import { z } from 'zod';
import { dateTime, role, roleOrGuest, teamRole, user } from './common.js';
import { space } from './spaces.js';
import { team } from './teams.js';

export const member = z.object({
  object: z.literal('member').optional(),
  id: z.string(),
  role: roleOrGuest,
  user,
  disabled: z.boolean().default(false),
  joinedAt: dateTime,
  lastSeenAt: dateTime.nullish(),
  sso: z.boolean().default(false),
  spaces: z.number().int().default(0),
  teams: z.number().int().default(0),
});
export type Member = z.infer<typeof member>;

export const memberSpacePermission = z.object({ permission: role, space });
export type MemberSpacePermission = z.infer<typeof memberSpacePermission>;

export const memberTeam = z.object({ team, member: z.object({ role: teamRole }) });
export type MemberTeam = z.infer<typeof memberTeam>;

/** An entry of a team's member listing. */
export const teamMember = z.object({
  organization: member,
  team: z.object({ role: teamRole }),
  permissions: z.object({ view: z.boolean() }).partial().default({}),
});
export type TeamMember = z.infer<typeof teamMember>;
