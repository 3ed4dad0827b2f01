import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Role } from '../access.js';
import { notFound } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import { findSite, reloadSite, type SiteRow } from './store.js';
import { requireSiteRole, siteRole } from './permissions.js';
import { type JsonContext, siteJson } from './json.js';
import { findOrganization } from '../organizations/store.js';
import { loadStructure, type Structure } from './structure.js';
import { readerView } from './resolve.js';
import { readableWithoutMembership } from './visitors.js';

/**
 * What the site routes share: how they load the organization and site a request names, how they
 * answer, and the pieces of their bodies.
 */

export type OrgParams = { organizationId: string };
export type SiteParams = OrgParams & { siteId: string };

/** A title of a site, site space or section. */
export const titleInput = z
  .string()
  .trim()
  .min(2, 'must be 2 to 128 characters')
  .max(128, 'must be 2 to 128 characters');

/** One URL segment: readers' paths are matched without case, and `~` starts the platform's own segments. */
export const segmentInput = z
  .string()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .regex(
    /^[A-Za-z0-9][\w.+-]*$/,
    'must be one path segment of letters, digits, ".", "+", "_" or "-", starting with a letter or digit',
  );

/** Whether a body of optional fields sets one at least. */
export const atLeastOne = (body: Record<string, unknown>) => Object.values(body).some((value) => value !== undefined);

/** `prefer: return=minimal` asks for a 204 without the written object. */
export function minimal(request: FastifyRequest, reply: FastifyReply): boolean {
  const prefer = String(request.headers.prefer ?? '');
  if (!/(^|[\s,;])return=minimal($|[\s,;])/.test(prefer)) return false;
  reply.code(204).header('preference-applied', 'return=minimal');
  return true;
}

/** The organization a request names and the caller's role in it, requiring `min`. */
export function orgOf(
  request: FastifyRequest,
  params: OrgParams,
  min: Role = 'read',
): { org: OrganizationRow; role: Role | null } {
  const { access } = request.ctx;
  const org = access.requireOrg(params.organizationId, min);
  return { org, role: access.orgRole(org.id) ?? null };
}

/**
 * The site a request names, on which the caller holds `min` (their organization role, or a grant on
 * the site: `requireSiteRole`), with its structure and the caller's role on it.
 */
export function siteOf(request: FastifyRequest, params: SiteParams, min: Role = 'read') {
  const { org, site, role } = requireSiteRole(request.ctx.access, params.organizationId, params.siteId, min);
  return { org, role, site, s: loadStructure(request.ctx.db, site) };
}

/**
 * A site for reading its structure: members read every site of their organization; anyone
 * authenticated reads a published public or unlisted site, and a published share-link site
 * with the key of an active share link, and the visitor holding an API token of the site. Those
 * readers see what a visitor with their claims (none without a token) sees: no drafts, nothing
 * whose condition is false for them. The routes reading through it are open to visitors.
 */
export function readerSiteOf(request: FastifyRequest, params: SiteParams, shareKey: string | undefined) {
  const { db, access } = request.ctx;
  const site = findSite(db, params.organizationId, params.siteId);
  if (site && siteRole(access, site)) return siteOf(request, params);
  if (!site || !readableWithoutMembership(db, site, shareKey, request.ctx.visitor?.site)) throw notFound('Site');
  const org = findOrganization(db, site.org_id)!;
  return { org, role: null, site, s: readerView(loadStructure(db, site), request.ctx.visitor?.claims ?? {}) };
}

/** What the structure's serializers need to know of the request. */
export function contextOf(request: FastifyRequest, org: OrganizationRow): JsonContext {
  return { access: request.ctx.access, org, links: request.ctx.links };
}

export function answerSite(request: FastifyRequest, site: SiteRow, org: OrganizationRow, role: Role | null) {
  return siteJson(request.ctx.db, site, org, role, request.ctx.links);
}

/** The structure of a site as it is after a write. */
export function reread(request: FastifyRequest, s: Structure): Structure {
  return loadStructure(request.ctx.db, reloadSite(request.ctx.db, s.site.id));
}
