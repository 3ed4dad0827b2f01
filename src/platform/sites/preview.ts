import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, booleanParam, parseQuery } from '../http.js';
import { siteRootUrl } from './store.js';
import { siteOf, type SiteParams } from './requests.js';
import { parseRison, RisonError, MAX_RISON_LENGTH } from './rison.js';
import { defaultSection, defaultVariant, siteSpaceSegments, usesSections, type Structure } from './structure.js';
import { signSiteToken } from './visitors.js';

/**
 * The publishing preview of a site: a URL, valid one hour, that shows a site space (the default
 * one unless named) as a visitor with the given claims sees it, drafts included unless
 * `draft=false`. The URL is the site space's published address (or `target`, an address under
 * the site's root) with a `token` query parameter: a site API token for that site space, the one
 * `resolveUrl` gives a visitor with those claims, so that whatever renders the site reads its
 * content exactly as that visitor would (an unpublished site too, as a member's preview is).
 * Members of the organization ask for it; anyone holding the URL reads that view until it expires.
 */

const previewQuery = z.object({
  siteSpace: z.string().min(1, 'must be a site space id').max(100, 'must be at most 100 characters').optional(),
  claims: z.string().max(MAX_RISON_LENGTH, `must be at most ${MAX_RISON_LENGTH} characters`).optional(),
  draft: booleanParam.optional(),
  target: z.string().max(2048, 'must be at most 2048 characters').optional(),
});

/** The claims of the query: a Rison object, else a 400 naming the field. */
function claimsOf(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text === '') return {};
  let value: unknown;
  try {
    value = parseRison(text);
  } catch (error) {
    if (error instanceof RisonError) throw badRequest(`Invalid query field "claims": Rison that ${error.message}`);
    throw error;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('Invalid query field "claims": must be a Rison object, such as (plan:pro,beta:!t)');
  return value as Record<string, unknown>;
}

/** The site space to preview: the one named, else the site's default (of its default section). */
function previewedSiteSpace(s: Structure, id: string | undefined, draft: boolean) {
  const row = id
    ? s.siteSpaces.find((item) => item.id === id)
    : defaultVariant(s, usesSections(s) ? (defaultSection(s)?.id ?? null) : null);
  if (!row)
    throw badRequest(
      id ? `Invalid query field "siteSpace": no site space ${id} in the site` : 'The site has no site space to preview',
    );
  const section = row.section_id ? s.sections.find((item) => item.id === row.section_id) : undefined;
  if (!draft && (row.draft === 1 || section?.draft === 1))
    throw badRequest(`Invalid query field "siteSpace": site space ${row.id} is a draft, and draft is false`);
  return { row, section };
}

/** `GET …/publishing/preview`: members (the read role) ask for a preview URL. */
export function sitePreviewRoutes(app: FastifyInstance): void {
  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/publishing/preview', async (request) => {
    const query = parseQuery(previewQuery, request.query);
    const { db, links } = request.ctx;
    const { org, s } = siteOf(request, request.params);
    const draft = query.draft ?? true;
    const claims = claimsOf(query.claims);
    const { row, section } = previewedSiteSpace(s, query.siteSpace, draft);
    const root = siteRootUrl(s.site, org, links);
    let url: URL;
    if (query.target !== undefined) {
      const target = URL.parse(query.target);
      if (!target || !`${target.origin}${target.pathname}/`.startsWith(root))
        throw badRequest(`Invalid query field "target": must be an address under the site's root, ${root}`);
      url = target;
    } else {
      url = new URL(siteSpaceSegments(s, row).map(encodeURIComponent).join('/'), root);
    }
    const token = await signSiteToken(db, {
      kind: 'site',
      organization: org.id,
      site: s.site.id,
      ...(section ? { siteSection: section.id } : {}),
      siteSpace: row.id,
      space: row.space_id,
      spaces: [row.space_id],
      visitorType: 'human',
      claims,
      // Drafts are shown, and an unpublished site previewed, as in a member's resolved URL.
      ...(draft || s.site.published !== 1 ? { preview: true } : {}),
    });
    url.searchParams.set('token', token);
    return { url: url.toString() };
  });
}
