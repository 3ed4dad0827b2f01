import type { RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import type { TeamRole } from './shapes/common.js';
import { team } from './shapes/teams.js';

/** `GET /orgs/{organizationId}/teams/{teamId}` */
export const getTeam = (api: RequestApi, organizationId: string, teamId: string) =>
  api.get(route`/orgs/${organizationId}/teams/${teamId}`, team);

/** `GET /orgs/{organizationId}/teams`: `owner` keeps the teams a member can manage, `title` filters by name. */
export const listTeams = (
  api: RequestApi,
  organizationId: string,
  filters: { owner?: string | undefined; title?: string | undefined },
) => restPages(api, route`/orgs/${organizationId}/teams`, team, filters);

/** `PUT /orgs/{organizationId}/teams` */
export const createTeam = (api: RequestApi, organizationId: string, body: { title: string; members?: string[] }) =>
  sendFor(api, 'PUT', route`/orgs/${organizationId}/teams`, team, { body });

/** `PATCH /orgs/{organizationId}/teams/{teamId}` */
export const updateTeam = (api: RequestApi, organizationId: string, teamId: string, body: { title: string }) =>
  sendFor(api, 'PATCH', route`/orgs/${organizationId}/teams/${teamId}`, team, { body });

/** `DELETE /orgs/{organizationId}/teams/{teamId}` */
export const deleteTeam = (api: RequestApi, organizationId: string, teamId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/teams/${teamId}`);

/** Changes to several members of a team at once (`PUT /orgs/{organizationId}/teams/{teamId}/members`). */
export interface TeamMembersChange {
  add?: string[];
  remove?: string[];
  memberships?: Record<string, { role: TeamRole }>;
}

/** `PUT /orgs/{organizationId}/teams/{teamId}/members` (no body answered) */
export const updateTeamMembers = (api: RequestApi, organizationId: string, teamId: string, body: TeamMembersChange) =>
  api.send('PUT', route`/orgs/${organizationId}/teams/${teamId}/members`, { body });

/** `PUT /orgs/{organizationId}/teams/{teamId}/members/{userId}` (no body answered) */
export const setTeamMember = (
  api: RequestApi,
  organizationId: string,
  teamId: string,
  userId: string,
  body: { role?: TeamRole },
) => api.send('PUT', route`/orgs/${organizationId}/teams/${teamId}/members/${userId}`, { body });

/** `DELETE /orgs/{organizationId}/teams/{teamId}/members/{userId}` */
export const removeTeamMember = (api: RequestApi, organizationId: string, teamId: string, userId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/teams/${teamId}/members/${userId}`);
