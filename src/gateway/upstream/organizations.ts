import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { listOf, deleteOf } from './operation.js';

/** `GET /orgs`: the organizations the caller is a member of. */
export const listOrganizations = (api: RequestApi) => listOf(api, op.listOrganizationsForAuthenticatedUser, {});

/** `GET /orgs/{organizationId}` */
export const getOrganization = (api: RequestApi, organizationId: string) =>
  api.read(op.getOrganizationById, { organizationId });

/** `PATCH /orgs/{organizationId}` */
export const updateOrganization = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(op.updateOrganizationById, { organizationId }, { body })).data;

/** `GET /email-domains/{domain}/orgs`: organizations people with an e-mail address in `domain` may join. */
export const listOrganizationsByEmailDomain = (api: RequestApi, domain: string) =>
  api.read(op.getOrganizationsForEmailDomain, { emailDomain: domain });

/** `POST /orgs/{organizationId}/join` (no body answered) */
export const joinOrganization = (api: RequestApi, organizationId: string) =>
  api.write(op.joinOrganization, { organizationId });

/** `DELETE /orgs/{organizationId}/link-invites/{inviteId}` */
export const deleteOrganizationInvite = (api: RequestApi, organizationId: string, inviteId: string) =>
  deleteOf(api, op.deleteOrganizationInviteById, { organizationId, inviteId });

/** `GET /orgs/{organizationId}/agent-instructions` */
export const getAgentInstructions = (api: RequestApi, organizationId: string) =>
  api.read(op.getOrganizationAgentInstructions, { organizationId });

/** `PUT /orgs/{organizationId}/agent-instructions`: `instructions` is a document (checked where it is given). */
export const updateAgentInstructions = async (api: RequestApi, organizationId: string, instructions: object) =>
  (await api.write(op.updateOrganizationAgentInstructions, { organizationId }, { body: { instructions } })).data;
