import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { setCurrentRevision } from '../content/current.js';
import { requireTemplate, templateRevision } from '../change-requests/templates.js';
import { conflict, parseBody } from '../http.js';
import { copyTitle, duplicateSpace, insertSpace, loadSpace } from '../spaces/store.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { siteSpaceJson } from './json.js';
import { contextOf, reread, siteOf, type SiteParams } from './requests.js';
import {
  addSection,
  addSiteSpace,
  moveItem,
  reloadStructure,
  requireSiteSpace,
  updateSiteSpace,
  variantsOf,
  type SiteSpaceRow,
  type Structure,
} from './structure.js';

/**
 * Copies and templates inside a site.
 *
 * Duplicating a site space: the space it shows is copied (as `duplicateSpace` copies a space:
 * settings, grants, content) and the copy placed in the site where the original is. The only
 * variant of a section gets a new section right after its own (in the same group), holding the
 * copy; a variant among others, or a site space at the root of a site without sections, gets a
 * sibling right after it. The copy keeps the original's condition, home page and hidden flag
 * (a copied space has the same pages); `draft` makes it, and a new section, a draft.
 */

/** Copies a site space of `s` and its space; answers the new site space's id (in one transaction). */
export function duplicateSiteSpace(db: Db, s: Structure, row: SiteSpaceRow, space: SpaceRow, draft: boolean): string {
  return db.transaction(() => {
    const copy = loadSpace(db, duplicateSpace(db, space, copyTitle(space.title)))!;
    const alone = row.section_id !== null && variantsOf(s, row.section_id).length === 1;
    let id: string;
    if (alone) {
      const section = s.sections.find((item) => item.id === row.section_id)!;
      const sectionId = addSection(db, s, {
        space: copy,
        title: copyTitle(section.title).slice(0, 128),
        icon: section.icon,
        draft,
        ...(section.group_id ? { groupId: section.group_id } : {}),
        ...(row.page_id ? { pageId: row.page_id } : {}),
      });
      moveItem(
        db,
        reloadStructure(db, s),
        { type: 'site-section', id: sectionId },
        {
          after: { type: 'site-section', id: section.id },
        },
      );
      id = variantsOf(reloadStructure(db, s), sectionId)[0]!.id;
    } else {
      id = addSiteSpace(db, s, {
        space: copy,
        draft,
        ...(row.section_id ? { sectionId: row.section_id } : {}),
        ...(row.page_id ? { pageId: row.page_id } : {}),
      });
      moveItem(db, reloadStructure(db, s), { type: 'site-space', id }, { after: { type: 'site-space', id: row.id } });
    }
    const after = reloadStructure(db, s);
    if (row.condition || row.hidden === 1)
      updateSiteSpace(db, after, requireSiteSpace(after, id), {
        ...(row.condition ? { condition: row.condition } : {}),
        ...(row.hidden === 1 ? { hidden: true } : {}),
      });
    return id;
  })();
}

/**
 * The default documentation structure a template gives an empty site: a section per space, each
 * space new and filled with the built-in space template of the same name (`templates.ts`).
 */
export const SITE_TEMPLATE = [
  { title: 'Getting started', icon: 'rocket', emoji: '🚀', template: 'getting-started' },
  { title: 'API reference', icon: 'code', emoji: '🧩', template: 'api-reference' },
  { title: 'Changelog', icon: 'megaphone', emoji: '📣', template: 'changelog' },
] as const;

/**
 * Fills an empty site (no site space, no section) with SITE_TEMPLATE, in one transaction: new
 * spaces at the organization's root, each with its template's pages as its live content, and a
 * section per space, the first the default. A site that has content is a 409.
 */
export function applySiteTemplate(db: Db, s: Structure): void {
  if (s.siteSpaces.length > 0 || s.sections.length > 0 || s.groups.length > 0)
    throw conflict('The site already has content: a template fills only an empty site');
  db.transaction(() => {
    let structure = s;
    for (const part of SITE_TEMPLATE) {
      const id = insertSpace(db, { orgId: s.site.org_id, title: part.title, emoji: part.emoji });
      const space = loadSpace(db, id)!;
      setCurrentRevision(db, id, templateRevision(db, space, requireTemplate(part.template, 'template')));
      addSection(db, structure, { space: loadSpace(db, id)!, title: part.title, icon: part.icon });
      structure = reloadStructure(db, structure);
    }
  })();
}

const duplicateBody = z.strictObject({ draft: z.boolean().optional() }).optional();

/**
 * `POST …/site-spaces/{siteSpaceId}/duplicate`: the create role in the organization (the site's
 * structure), and the right to duplicate the space (`requireDuplicateTarget`). `POST …/template`:
 * the create role (it creates spaces and the site's structure); 200 without a body.
 */
export function siteDuplicationRoutes(app: FastifyInstance): void {
  app.post<{ Params: SiteParams & { siteSpaceId: string } }>(
    '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/duplicate',
    async (request, reply) => {
      const body = parseBody(duplicateBody, request.body ?? undefined);
      const { org, s } = siteOf(request, request.params, 'create');
      const { db, access, links } = request.ctx;
      const row = requireSiteSpace(s, request.params.siteSpaceId);
      const { space } = access.requireSpace(row.space_id);
      access.requireDuplicateTarget(space);
      const id = duplicateSiteSpace(db, s, row, space, body?.draft ?? false);
      const after = reread(request, s);
      return reply
        .code(201)
        .header('location', `${links.api}/orgs/${org.id}/sites/${s.site.id}/site-spaces/${id}`)
        .send(siteSpaceJson(after, requireSiteSpace(after, id), contextOf(request, org)));
    },
  );

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/template', async (request, reply) => {
    parseBody(z.strictObject({}).optional(), request.body ?? undefined);
    const { s } = siteOf(request, request.params, 'create');
    applySiteTemplate(request.ctx.db, s);
    return reply.code(200).send();
  });
}
