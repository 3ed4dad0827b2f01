import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, newId, now, parseBody, sendDeleted } from '../http.js';
import { conditionSchema } from '../schemas.js';
import type { Db } from '../store/db.js';
import { externalLinkJson } from './json.js';
import { atLeastOne, minimal, reread, siteOf, titleInput, type SiteParams } from './requests.js';
import { icon, localizedString } from './structure-routes.js';
import {
  endOfSectionLevel,
  groupInBody,
  requireExternalLink,
  setColumns,
  usesSections,
  written,
  type SiteExternalLinkRow,
  type Structure,
} from './structure.js';

/**
 * External links of a docs site: a title and an http(s) address among the sections and section
 * groups of a sectioned site, at its root or in a group (never in a section), ordered with them
 * (`PATCH …/structure/sort`). Like sections, a link may be a draft (left out of what readers
 * get until it is live) and carry an adaptive `condition` on the visitor's claims. Members read
 * them in the structure; creators write them.
 */

const MAX_URL_LENGTH = 2048;

/** An absolute http(s) address: any other scheme (`javascript:`, `data:`) would run in readers' browsers. */
const linkUrl = z
  .string({ message: 'must be an absolute http or https URL' })
  .trim()
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .refine((value) => URL.canParse(value), { message: 'must be an absolute http or https URL', abort: true })
  .refine((value) => /^https?:$/i.test(URL.parse(value)?.protocol ?? ''), 'must be an http or https URL');

const description = z.string().max(256, 'must be at most 256 characters');

const addBody = z.strictObject({
  title: titleInput,
  localizedTitle: localizedString(128).optional(),
  description: description.nullable().optional(),
  localizedDescription: localizedString(256).nullable().optional(),
  icon: icon.nullable().optional(),
  url: linkUrl,
  parent: z.string().min(1, 'must be a section group id').optional(),
  draft: z.boolean().optional(),
  condition: conditionSchema.nullable().optional(),
});

const updateBody = z
  .strictObject({
    title: titleInput.optional(),
    localizedTitle: localizedString(128).nullable().optional(),
    description: description.nullable().optional(),
    localizedDescription: localizedString(256).nullable().optional(),
    icon: icon.nullable().optional(),
    url: linkUrl.optional(),
    parent: z.string().min(1, 'must be a section group id').nullable().optional(),
    draft: z.boolean().optional(),
    condition: conditionSchema.nullable().optional(),
  })
  .refine(atLeastOne, 'must set at least one field');

export type NewExternalLink = z.infer<typeof addBody>;
export type ExternalLinkChanges = z.infer<typeof updateBody>;

const jsonOrNull = (value: Record<string, string> | null | undefined) =>
  value === undefined ? undefined : value === null || Object.keys(value).length === 0 ? null : JSON.stringify(value);
// Left out, a condition stays; null or an empty one removes it (as a section's).
const conditionColumn = (value: string | null | undefined) => (value === undefined ? undefined : value?.trim() || null);

/**
 * Adds an external link, last at the root or in the group `parent`. A site that lists its site
 * spaces at its root has no level for it: a 400, as for a section group.
 */
export function addExternalLink(db: Db, s: Structure, input: NewExternalLink): string {
  if (!usesSections(s) && s.siteSpaces.length > 0) {
    throw badRequest(
      'The site lists its site spaces without sections: external links need a site organized in sections',
    );
  }
  const group = input.parent ? groupInBody(s, input.parent, 'parent') : null;
  return db.transaction(() => {
    const row: SiteExternalLinkRow = {
      id: newId(),
      site_id: s.site.id,
      group_id: group?.id ?? null,
      title: input.title,
      localized_title: jsonOrNull(input.localizedTitle) ?? null,
      description: input.description || null,
      localized_description: jsonOrNull(input.localizedDescription) ?? null,
      icon: input.icon ?? null,
      url: input.url,
      condition: conditionColumn(input.condition) ?? null,
      draft: input.draft ? 1 : 0,
      position: endOfSectionLevel(db, s.site.id, group?.id ?? null),
      created_at: now(),
    };
    db.prepare(
      `INSERT INTO site_external_links (id, site_id, group_id, title, localized_title, description,
         localized_description, icon, url, condition, draft, position, created_at)
       VALUES (@id, @site_id, @group_id, @title, @localized_title, @description, @localized_description, @icon,
         @url, @condition, @draft, @position, @created_at)`,
    ).run(row);
    written(db, s.site.id);
    return row.id;
  })();
}

/** Changes an external link; a new `parent` (null: the root) moves it last there. */
export function updateExternalLink(db: Db, s: Structure, row: SiteExternalLinkRow, changes: ExternalLinkChanges) {
  const group =
    changes.parent === undefined || changes.parent === null ? changes.parent : groupInBody(s, changes.parent, 'parent');
  db.transaction(() => {
    const moved = group !== undefined && (group?.id ?? null) !== row.group_id;
    setColumns(db, 'site_external_links', row.id, {
      title: changes.title,
      localized_title: jsonOrNull(changes.localizedTitle),
      description: changes.description === undefined ? undefined : changes.description || null,
      localized_description: jsonOrNull(changes.localizedDescription),
      icon: changes.icon,
      url: changes.url,
      condition: conditionColumn(changes.condition),
      draft: changes.draft === undefined ? undefined : Number(changes.draft),
      group_id: moved ? (group?.id ?? null) : undefined,
      position: moved ? endOfSectionLevel(db, s.site.id, group?.id ?? null) : undefined,
    });
    written(db, s.site.id);
  })();
}

/** Removes an external link; false when the site has none of that id. */
export function removeExternalLink(db: Db, s: Structure, id: string): boolean {
  return db.transaction(() => {
    const { changes } = db.prepare('DELETE FROM site_external_links WHERE id = ? AND site_id = ?').run(id, s.site.id);
    if (changes > 0) written(db, s.site.id);
    return changes > 0;
  })();
}

type LinkParams = SiteParams & { siteExternalLinkId: string };

/** The external links of docs sites: add, update, delete (creators); reading is the structure's. */
export function siteExternalLinkRoutes(app: FastifyInstance): void {
  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/external-links', async (request, reply) => {
    const body = parseBody(addBody, request.body);
    const { org, site, s } = siteOf(request, request.params, 'create');
    const id = addExternalLink(request.ctx.db, s, body);
    return reply
      .code(201)
      .header('location', `${request.ctx.links.api}/orgs/${org.id}/sites/${site.id}/external-links/${id}`)
      .send(externalLinkJson(requireExternalLink(reread(request, s), id)));
  });

  app.patch<{ Params: LinkParams }>(
    '/orgs/:organizationId/sites/:siteId/external-links/:siteExternalLinkId',
    async (request, reply) => {
      const body = parseBody(updateBody, request.body);
      const { s } = siteOf(request, request.params, 'create');
      const row = requireExternalLink(s, request.params.siteExternalLinkId);
      updateExternalLink(request.ctx.db, s, row, body);
      if (minimal(request, reply)) return reply.send();
      return externalLinkJson(requireExternalLink(reread(request, s), row.id));
    },
  );

  app.delete<{ Params: LinkParams }>(
    '/orgs/:organizationId/sites/:siteId/external-links/:siteExternalLinkId',
    async (request, reply) => {
      const { s } = siteOf(request, request.params, 'create');
      return sendDeleted(reply, removeExternalLink(request.ctx.db, s, request.params.siteExternalLinkId));
    },
  );
}
