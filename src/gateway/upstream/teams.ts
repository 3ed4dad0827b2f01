import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { TeamMemberRole } from './contract/types.js';
import { listOf, deleteOf } from './operation.js';

/** `GET /orgs/{organizationId}/teams/{teamId}` */
export const getTeam = (api: RequestApi, organizationId: string, teamId: string) =>
  api.read(op.getTeamInOrganizationById, { organizationId, teamId });

/** `GET /orgs/{organizationId}/teams`: `owner` keeps the teams a member can manage, `title` filters by name. */
export const listTeams = (
  api: RequestApi,
  organizationId: string,
  filters: { owner?: string | undefined; title?: string | undefined },
) => listOf(api, op.listTeamsInOrganizationById, { organizationId }, filters);

/** `PUT /orgs/{organizationId}/teams` */
export const createTeam = async (
  api: RequestApi,
  organizationId: string,
  body: { title: string; members?: string[] },
) => (await api.write(op.createOrganizationTeam, { organizationId }, { body })).data;

/** `PATCH /orgs/{organizationId}/teams/{teamId}` */
export const updateTeam = async (api: RequestApi, organizationId: string, teamId: string, body: { title: string }) =>
  (await api.write(op.updateTeamInOrganizationById, { organizationId, teamId }, { body })).data;

/** `DELETE /orgs/{organizationId}/teams/{teamId}` */
export const deleteTeam = (api: RequestApi, organizationId: string, teamId: string) =>
  deleteOf(api, op.removeTeamFromOrganizationById, { organizationId, teamId });

/** Changes to several members of a team at once (`PUT /orgs/{organizationId}/teams/{teamId}/members`). */
export interface TeamMembersChange {
  add?: string[];
  remove?: string[];
  memberships?: Record<string, { role: TeamMemberRole }>;
}

/** `PUT /orgs/{organizationId}/teams/{teamId}/members` (no body answered) */
export const updateTeamMembers = (api: RequestApi, organizationId: string, teamId: string, body: TeamMembersChange) =>
  api.write(op.updateMembersInOrganizationTeam, { organizationId, teamId }, { body });

/** `PUT /orgs/{organizationId}/teams/{teamId}/members/{userId}` (no body answered) */
export const setTeamMember = (
  api: RequestApi,
  organizationId: string,
  teamId: string,
  userId: string,
  body: { role?: TeamMemberRole },
) => api.write(op.addMemberToOrganizationTeamById, { organizationId, teamId, userId }, { body });

/** `DELETE /orgs/{organizationId}/teams/{teamId}/members/{userId}` */
export const removeTeamMember = (api: RequestApi, organizationId: string, teamId: string, userId: string) =>
  deleteOf(api, op.deleteMemberFromOrganizationTeamById, { organizationId, teamId, userId });
