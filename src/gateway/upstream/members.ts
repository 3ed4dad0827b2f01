import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { MemberRoleOrGuest } from './contract/types.js';
import { type Filters, listOf } from './operation.js';

/** `GET /orgs/{organizationId}/members/{userId}` */
export const getMember = (api: RequestApi, organizationId: string, userId: string) =>
  api.read(op.getMemberInOrganizationById, { organizationId, userId });

/** `GET /orgs/{organizationId}/members`, guests included. */
export const listMembers = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'role' | 'search' | 'sort' | 'order'>,
) => listOf(api, op.listMembersInOrganizationById, { organizationId }, filters);

/** `GET /orgs/{organizationId}/members/{userId}/spaces`: the spaces a member may reach, with their permission. */
export const listMemberSpaces = (api: RequestApi, organizationId: string, userId: string, filters: Filters<'order'>) =>
  listOf(api, op.listSpacesForOrganizationMember, { organizationId, userId }, filters);

/** `GET /orgs/{organizationId}/members/{userId}/teams`: the teams of a member, with their role in each. */
export const listMemberTeams = (api: RequestApi, organizationId: string, userId: string, filters: Filters<'title'>) =>
  listOf(api, op.listTeamsForOrganizationMember, { organizationId, userId }, filters);

/** `GET /orgs/{organizationId}/teams/{teamId}/members` */
export const listTeamMembers = (api: RequestApi, organizationId: string, teamId: string) =>
  listOf(api, op.listTeamMembersInOrganizationById, { organizationId, teamId });

/** `PATCH /orgs/{organizationId}/members/{userId}` */
export const updateMember = async (
  api: RequestApi,
  organizationId: string,
  userId: string,
  body: { role: MemberRoleOrGuest },
) => (await api.write(op.updateMemberInOrganizationById, { organizationId, userId }, { body })).data;

/**
 * `DELETE /orgs/{organizationId}/members/{userId}`: 205 when removed, 202 when the removal was
 * sent to the organization admins as a request, 204 when there was no such member.
 */
export const removeMember = (api: RequestApi, organizationId: string, userId: string) =>
  api.write(op.removeMemberFromOrganizationById, { organizationId, userId });

/** `POST /orgs/{organizationId}/members/{userId}/sso` */
export const setMemberSso = async (api: RequestApi, organizationId: string, userId: string) =>
  (await api.write(op.setUserAsSSOMemberForOrganization, { organizationId, userId })).data;

/** `POST /orgs/{organizationId}/ping`: records that the caller is active in the organization now. */
export const pingOrganization = async (api: RequestApi, organizationId: string) =>
  (await api.write(op.updateOrganizationMemberLastSeenAt, { organizationId })).data;
