import type { RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendFor } from './operation.js';
import type { Role } from './shapes/common.js';
import { member, memberSpacePermission, memberTeam, teamMember } from './shapes/members.js';
import { pingResult } from './shapes/organizations.js';

/** `GET /orgs/{organizationId}/members/{userId}` */
export const getMember = (api: RequestApi, organizationId: string, userId: string) =>
  api.get(route`/orgs/${organizationId}/members/${userId}`, member);

/** `GET /orgs/{organizationId}/members`, guests included. */
export const listMembers = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'role' | 'search' | 'sort' | 'order'>,
) => restPages(api, route`/orgs/${organizationId}/members`, member, filters);

/** `GET /orgs/{organizationId}/members/{userId}/spaces`: the spaces a member may reach, with their permission. */
export const listMemberSpaces = (api: RequestApi, organizationId: string, userId: string, filters: Filters<'order'>) =>
  restPages(api, route`/orgs/${organizationId}/members/${userId}/spaces`, memberSpacePermission, filters);

/** `GET /orgs/{organizationId}/members/{userId}/teams`: the teams of a member, with their role in each. */
export const listMemberTeams = (api: RequestApi, organizationId: string, userId: string, filters: Filters<'title'>) =>
  restPages(api, route`/orgs/${organizationId}/members/${userId}/teams`, memberTeam, filters);

/** `GET /orgs/{organizationId}/teams/{teamId}/members` */
export const listTeamMembers = (api: RequestApi, organizationId: string, teamId: string) =>
  restPages(api, route`/orgs/${organizationId}/teams/${teamId}/members`, teamMember);

/** `PATCH /orgs/{organizationId}/members/{userId}` */
export const updateMember = (api: RequestApi, organizationId: string, userId: string, body: { role: Role | null }) =>
  sendFor(api, 'PATCH', route`/orgs/${organizationId}/members/${userId}`, member, { body });

/**
 * `DELETE /orgs/{organizationId}/members/{userId}`: 205 when removed, 202 when the removal was
 * sent to the organization admins as a request, 204 when there was no such member.
 */
export const removeMember = (api: RequestApi, organizationId: string, userId: string) =>
  api.send('DELETE', route`/orgs/${organizationId}/members/${userId}`);

/** `POST /orgs/{organizationId}/members/{userId}/sso` */
export const setMemberSso = (api: RequestApi, organizationId: string, userId: string) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/members/${userId}/sso`, member);

/** `POST /orgs/{organizationId}/ping`: records that the caller is active in the organization now. */
export const pingOrganization = (api: RequestApi, organizationId: string) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/ping`, pingResult);
