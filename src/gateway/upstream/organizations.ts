import type { RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import type { JsonDocument } from './shapes/common.js';
import { agentInstructions, organization, organizationsByEmailDomain } from './shapes/organizations.js';

/** `GET /orgs`: the organizations the caller is a member of. */
export const listOrganizations = (api: RequestApi) => restPages(api, '/orgs', organization);

/** `GET /orgs/{organizationId}` */
export const getOrganization = (api: RequestApi, organizationId: string) =>
  api.get(route`/orgs/${organizationId}`, organization);

/** `PATCH /orgs/{organizationId}` */
export const updateOrganization = (api: RequestApi, organizationId: string, body: object) =>
  sendFor(api, 'PATCH', route`/orgs/${organizationId}`, organization, { body });

/** `GET /email-domains/{domain}/orgs`: organizations people with an e-mail address in `domain` may join. */
export const listOrganizationsByEmailDomain = (api: RequestApi, domain: string) =>
  api.get(route`/email-domains/${domain}/orgs`, organizationsByEmailDomain);

/** `POST /orgs/{organizationId}/join` (no body answered) */
export const joinOrganization = (api: RequestApi, organizationId: string) =>
  api.send('POST', route`/orgs/${organizationId}/join`);

/** `DELETE /orgs/{organizationId}/link-invites/{inviteId}` */
export const deleteOrganizationInvite = (api: RequestApi, organizationId: string, inviteId: string) =>
  sendDelete(api, route`/orgs/${organizationId}/link-invites/${inviteId}`);

/** `GET /orgs/{organizationId}/agent-instructions` */
export const getAgentInstructions = (api: RequestApi, organizationId: string) =>
  api.get(route`/orgs/${organizationId}/agent-instructions`, agentInstructions);

/** `PUT /orgs/{organizationId}/agent-instructions` */
export const updateAgentInstructions = (api: RequestApi, organizationId: string, instructions: JsonDocument) =>
  sendFor(api, 'PUT', route`/orgs/${organizationId}/agent-instructions`, agentInstructions, {
    body: { instructions },
  });
