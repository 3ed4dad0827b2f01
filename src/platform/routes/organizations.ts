import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { findMember, type Role } from '../access.js';
import {
  badRequest,
  json,
  notFound,
  notFoundInBody,
  now,
  pageOf,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  preconditionFailed,
  sendDeleted,
} from '../http.js';
import type { OrganizationRow } from '../rows.js';
import { organizationJson } from '../serialize.js';
import { updateRow } from '../store/update.js';
import { requireReviewersInOrg } from './merge-rules.js';
import {
  documentSchema,
  domainSchema,
  httpUrlSchema,
  normalizedDocument,
  organizationMergeRulesSchema,
  roleOrGuestSchema,
} from './schemas.js';
import { activeProvider } from '../sso/saml.js';

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

/** Organizations group: list, get, update, invites, join, agent instructions, e-mail domains. */
export function organizationRoutes(app: FastifyInstance): void {
  app.get('/orgs', async (request) => {
    const { db, user, links } = request.ctx;
    const window = pageWindow(parseQuery(pageQuery, request.query));
    const where = 'FROM organizations o JOIN members m ON m.org_id = o.id WHERE m.user_id = ? AND m.disabled = 0';
    const { n } = db.prepare(`SELECT COUNT(*) AS n ${where}`).get(user.id) as { n: number };
    const rows = db
      .prepare(`SELECT o.*, m.role AS member_role ${where} ORDER BY o.created_at, o.id LIMIT ? OFFSET ?`)
      .all(user.id, window.limit, window.offset) as Array<OrganizationRow & { member_role: Role | null }>;
    return pageOf(
      rows.map((row) => organizationJson(db, row, row.member_role, links)),
      n,
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
    if (body.defaultContent) {
      const site = db.prepare('SELECT 1 FROM sites WHERE id = ? AND org_id = ?').get(body.defaultContent.site, org.id);
      if (!site) throw notFoundInBody('Site', 'defaultContent.site', body.defaultContent.site);
    }
    if (body.sso === true && !activeProvider(db, org.id)) {
      throw preconditionFailed(
        'Enforcing SSO needs an active SAML provider: set its sign-on URL, entity ID and certificate first',
      );
    }
    if (body.hostname && body.hostname !== org.hostname) {
      const taken = db.prepare('SELECT 1 FROM organizations WHERE hostname = ? AND id != ?').get(body.hostname, org.id);
      if (taken) throw badRequest('Invalid body field "hostname": already used by another organization');
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
    const updated = db.prepare('SELECT * FROM organizations WHERE id = ?').get(org.id) as OrganizationRow;
    return organizationJson(db, updated, 'admin', links);
  });

  app.delete<{ Params: { organizationId: string; inviteId: string } }>(
    '/orgs/:organizationId/link-invites/:inviteId',
    async (request, reply) => {
      const { db, access } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'admin');
      const result = db
        .prepare('DELETE FROM link_invites WHERE id = ? AND org_id = ?')
        .run(request.params.inviteId, org.id);
      return sendDeleted(reply, result.changes > 0);
    },
  );

  app.post<{ Params: { organizationId: string } }>('/orgs/:organizationId/join', async (request, reply) => {
    const { db, user } = request.ctx;
    const org = db.prepare('SELECT * FROM organizations WHERE id = ?').get(request.params.organizationId) as
      | OrganizationRow
      | undefined;
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
    if (member) {
      db.prepare('UPDATE members SET role = ? WHERE org_id = ? AND user_id = ?').run(org.default_role, org.id, user.id);
    } else {
      db.prepare('INSERT INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run(
        org.id,
        user.id,
        org.default_role,
        now(),
      );
    }
    return reply.code(204).send();
  });

  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/agent-instructions', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrgMember(request.params.organizationId);
    return agentInstructionsJson(
      db.prepare('SELECT * FROM agent_instructions WHERE org_id = ?').get(org.id),
      org,
      links.api,
    );
  });

  app.put<{ Params: { organizationId: string } }>('/orgs/:organizationId/agent-instructions', async (request) => {
    const { db, access, user, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(instructionsBody, request.body);
    db.prepare(
      `INSERT INTO agent_instructions (org_id, instructions, updated_at, updated_by) VALUES (?, ?, ?, ?)
       ON CONFLICT (org_id) DO UPDATE SET instructions = excluded.instructions, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
    ).run(org.id, JSON.stringify(body.instructions), now(), user.id);
    return agentInstructionsJson(
      db.prepare('SELECT * FROM agent_instructions WHERE org_id = ?').get(org.id),
      org,
      links.api,
    );
  });

  // Lists the organizations a user of that e-mail domain may join; callers outside the domain
  // get an empty list, so the endpoint cannot be used to discover organizations.
  app.get<{ Params: { emailDomain: string } }>('/email-domains/:emailDomain/orgs', async (request) => {
    const { db, user, access, links } = request.ctx;
    const domain = request.params.emailDomain.toLowerCase();
    if (user.email.split('@')[1]?.toLowerCase() !== domain) return { organizations: [] };
    const rows = db
      .prepare(
        'SELECT o.* FROM organizations o, json_each(o.email_domains) d WHERE lower(d.value) = ? ORDER BY o.created_at, o.id',
      )
      .all(domain) as OrganizationRow[];
    return { organizations: rows.map((row) => organizationJson(db, row, access.orgRole(row.id), links)) };
  });
}

interface AgentInstructionsRow {
  instructions: string;
  updated_at: string;
  updated_by: string | null;
}

/**
 * Agent instructions of an organization. Until someone writes them they are the empty document
 * the organization started with, so they were last updated when, and by whom, it was created.
 */
function agentInstructionsJson(row: unknown, org: OrganizationRow, api: string) {
  const stored = row as AgentInstructionsRow | undefined;
  const updatedBy = stored?.updated_by ?? org.created_by;
  return {
    object: 'agent-instructions' as const,
    instructions: stored
      ? normalizedDocument(JSON.parse(stored.instructions))
      : { object: 'document', data: { schemaVersion: 1 }, nodes: [] },
    updatedAt: stored?.updated_at ?? org.created_at,
    ...(updatedBy ? { updatedBy } : {}),
    urls: { location: `${api}/orgs/${org.id}/agent-instructions` },
  };
}
