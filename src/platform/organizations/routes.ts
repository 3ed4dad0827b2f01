import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findMember } from '../access.js';
import { requireReviewersInOrg } from './merge-rules.js';
import {
  badRequest,
  json,
  notFound,
  notFoundInBody,
  pageOf,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  preconditionFailed,
} from '../http.js';
import {
  documentSchema,
  domainSchema,
  httpUrlSchema,
  organizationMergeRulesSchema,
  roleOrGuestSchema,
} from '../schemas.js';
import type { Db } from '../store/db.js';
import { updateRow } from '../store/update.js';
import { agentInstructionsJson, organizationJson } from './json.js';
import {
  findAgentInstructions,
  findOrganization,
  hostnameTaken,
  joinOrganization,
  organizationsOfEmailDomain,
  organizationsOfUser,
  saveAgentInstructions,
  siteInOrganization,
} from './store.js';

const instructionsBody = z.strictObject({ instructions: documentSchema });

const updateOrganizationBody = z
  .strictObject({
    title: z.string().trim().min(2, 'must be 2 to 255 characters').max(255, 'must be 2 to 255 characters'),
    emailDomains: z.array(domainSchema).max(50, 'must list at most 50 domains'),
    hostname: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/, 'must be 3 to 32 lowercase letters, digits or dashes'),
    defaultRole: roleOrGuestSchema,
    defaultContent: z.strictObject({ type: z.literal('site'), site: z.string().min(1) }).nullable(),
    logo: httpUrlSchema.nullable(),
    sso: z.boolean(),
    ai: z.boolean(),
    inviteLinks: z.boolean(),
    mergeRules: organizationMergeRulesSchema,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set at least one field');

/** What the organization routes ask of the domains built on organizations, which app.ts wires in. */
export interface OrganizationRouteOptions {
  /** Whether the organization has an SSO provider its members can sign in with: enforcing SSO needs one. */
  canEnforceSso: (db: Db, orgId: string) => boolean;
}

/** Organizations group: list, get, update, join, agent instructions, e-mail domains. */
export function organizationRoutes(app: FastifyInstance, { canEnforceSso }: OrganizationRouteOptions): void {
  app.get('/orgs', async (request) => {
    const { db, user, links } = request.ctx;
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const { rows, count } = organizationsOfUser(db, user.id, window);
    return pageOf(
      rows.map((row) => organizationJson(db, row, row.member_role, links)),
      count,
      window,
    );
  });

  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    return organizationJson(db, org, access.orgRole(org.id) ?? null, links);
  });

  app.patch<{ Params: { organizationId: string } }>('/orgs/:organizationId', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(updateOrganizationBody, request.body);
    if (body.defaultContent && !siteInOrganization(db, org.id, body.defaultContent.site)) {
      throw notFoundInBody('Site', 'defaultContent.site', body.defaultContent.site);
    }
    if (body.sso === true && !canEnforceSso(db, org.id)) {
      throw preconditionFailed(
        'Enforcing SSO needs an active SAML provider: set its sign-on URL, entity ID and certificate first',
      );
    }
    if (body.hostname && body.hostname !== org.hostname && hostnameTaken(db, body.hostname, org.id)) {
      throw badRequest('Invalid body field "hostname": already used by another organization');
    }
    requireReviewersInOrg(db, org.id, body.mergeRules);
    updateRow(db, 'organizations', org.id, {
      title: body.title,
      email_domains: body.emailDomains && JSON.stringify([...new Set(body.emailDomains.map((d) => d.toLowerCase()))]),
      hostname: body.hostname,
      default_role: body.defaultRole,
      default_content: body.defaultContent === undefined ? undefined : json.stringify(body.defaultContent),
      logo: body.logo,
      sso: body.sso === undefined ? undefined : Number(body.sso),
      ai: body.ai === undefined ? undefined : Number(body.ai),
      invite_links: body.inviteLinks === undefined ? undefined : Number(body.inviteLinks),
      merge_rules: body.mergeRules && JSON.stringify(body.mergeRules),
    });
    return organizationJson(db, findOrganization(db, org.id)!, 'admin', links);
  });

  app.post<{ Params: { organizationId: string } }>('/orgs/:organizationId/join', async (request, reply) => {
    const { db, user } = request.ctx;
    const org = findOrganization(db, request.params.organizationId);
    if (!org) throw notFound('Organization');
    const member = findMember(db, org.id, user.id);
    // Members with a role, and disabled members, stay as they are; joining changes nothing for them.
    if (member && (member.role !== null || member.disabled)) return reply.code(204).send();
    const domain = user.email.split('@')[1]?.toLowerCase() ?? '';
    const allowed = json.parse<string[]>(org.email_domains, []);
    if (!allowed.includes(domain)) {
      // A guest stays a guest: they belong to the organization already, so this is no failure.
      if (member) return reply.code(204).send();
      throw badRequest(`Your e-mail domain "${domain}" is not allowed to join this organization`);
    }
    joinOrganization(db, org, user.id, member !== undefined);
    return reply.code(204).send();
  });

  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/agent-instructions', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    return agentInstructionsJson(findAgentInstructions(db, org.id), org, links.api);
  });

  app.put<{ Params: { organizationId: string } }>('/orgs/:organizationId/agent-instructions', async (request) => {
    const { db, access, user, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(instructionsBody, request.body);
    saveAgentInstructions(db, org.id, body.instructions, user.id);
    return agentInstructionsJson(findAgentInstructions(db, org.id), org, links.api);
  });

  // Lists the organizations a user of that e-mail domain may join; callers outside the domain
  // get an empty list, so the endpoint cannot be used to discover organizations.
  app.get<{ Params: { emailDomain: string } }>('/email-domains/:emailDomain/orgs', async (request) => {
    const { db, user, access, links } = request.ctx;
    const domain = request.params.emailDomain.toLowerCase();
    if (user.email.split('@')[1]?.toLowerCase() !== domain) return { organizations: [] };
    const rows = organizationsOfEmailDomain(db, domain);
    return { organizations: rows.map((row) => organizationJson(db, row, access.orgRole(row.id), links)) };
  });
}
