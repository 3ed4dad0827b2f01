import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound, pageFromArray, pageQuery, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
import {
  activeProvider,
  createProvider,
  deleteProvider,
  providersOf,
  providerStatus,
  requireProvider,
  serviceOf,
  updateProvider,
} from './store.js';
import { httpUrlSchema, roleOrGuestSchema } from '../schemas.js';
import { findOrganization } from '../organizations/store.js';
import { findMember } from '../access.js';
import { memberJson } from '../members/json.js';
import { joinThroughSso } from '../members/store.js';
import { findUserById } from '../users/store.js';
import { providerJson } from './json.js';

const label = z.string().trim().min(1, 'must be 1 to 30 characters').max(30, 'must be 1 to 30 characters');
const entityID = z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
const certificate = z.string().max(10_000, 'must be at most 10000 characters');
const fields = {
  ssoURL: httpUrlSchema.nullable().optional(),
  entityID: entityID.nullable().optional(),
  certificate: certificate.nullable().optional(),
  defaultTeam: z.string().min(1, 'must be a team id').nullable().optional(),
  defaultRole: roleOrGuestSchema.optional(),
};
const createBody = z.strictObject({ label, ...fields });
const updateBody = z
  .strictObject({ label: label.optional(), ...fields })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'must set at least one field');

type OrgParams = { organizationId: string };
type ProviderParams = OrgParams & { samlProviderId: string };
type MemberParams = OrgParams & { userId: string };

/**
 * SAML providers (admins), the SSO providers of an organization's login page (anyone signed in,
 * member or not: they are about to sign in to it), and a user's membership through SSO.
 */
export function samlRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/saml', async (request) => {
    const query = parseQuery(pageQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return pageFromArray(providersOf(db, org.id), pageWindow(query), (row) => providerJson(db, row, links));
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/saml', async (request, reply) => {
    const body = parseBody(createBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const json = providerJson(db, createProvider(db, org, body), links);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: ProviderParams }>('/orgs/:organizationId/saml/:samlProviderId', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return providerJson(db, requireProvider(db, org.id, request.params.samlProviderId), links);
  });

  app.patch<{ Params: ProviderParams }>('/orgs/:organizationId/saml/:samlProviderId', async (request) => {
    const body = parseBody(updateBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const row = requireProvider(db, org.id, request.params.samlProviderId);
    return providerJson(db, updateProvider(db, org, row, body), links);
  });

  app.delete<{ Params: ProviderParams }>('/orgs/:organizationId/saml/:samlProviderId', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return sendDeleted(reply, deleteProvider(db, org.id, request.params.samlProviderId));
  });

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/sso', async (request) => {
    const { db, links } = request.ctx;
    const org = findOrganization(db, request.params.organizationId);
    if (!org) throw notFound('Organization');
    const active = providersOf(db, org.id).filter((row) => providerStatus(row) === 'active');
    return { items: active.map((row) => ({ id: row.id, label: row.label, startURL: serviceOf(row, links).startURL })) };
  });

  app.post<{ Params: MemberParams }>('/orgs/:organizationId/members/:userId/sso', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const target = findUserById(db, request.params.userId);
    if (!target) throw notFound('User');
    // A newcomer gets the role (and team) of the organization's active SAML provider, else its default role.
    const provider = activeProvider(db, org.id);
    const role = provider ? (provider.default_role === 'guest' ? null : provider.default_role) : org.default_role;
    joinThroughSso(db, org.id, target.id, role, provider?.default_team);
    return memberJson(db, findMember(db, org.id, target.id)!, target, links);
  });
}
