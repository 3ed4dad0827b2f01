import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { booleanParam, pageFromArray, pageParams, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
import { conditionSchema } from '../schemas.js';
import { insertSpace } from '../spaces/store.js';
import { requireOrgSpace } from './store.js';
import { groupJson, sectionJson, siteSpaceJson, structureItemJson, structureJson } from './json.js';
import {
  addGroup,
  addSection,
  addSiteSpace,
  moveItem,
  orderedSections,
  removeGroup,
  removeSection,
  removeSiteSpace,
  requireGroup,
  requireHomePage,
  requireItem,
  requireSection,
  requireSiteSpace,
  updateGroup,
  updateSection,
  updateSiteSpace,
  type ItemPointer,
  type ItemPosition,
  type Structure,
} from './structure.js';
import { OPEN_TO_VISITORS } from '../access.js';
import { CONDITIONAL } from '../conditional.js';
import {
  type SiteParams,
  titleInput,
  segmentInput,
  atLeastOne,
  minimal,
  siteOf,
  readerSiteOf,
  contextOf,
  reread,
} from './requests.js';

/** The name of an icon of a structure item. */
export const icon = z.string().min(1, 'must be an icon name').max(50, 'must be at most 50 characters');
/** Texts by language code, each at most `max` characters. */
export const localizedString = (max: number) =>
  z.record(
    z.string().regex(/^[a-z]{2}(-[a-z]{2})?$/, 'must be keyed by language codes such as en or pt-br'),
    z.string().max(max, `must be at most ${max} characters`),
  );
const draft = z.boolean();

const shareKeyQuery = { shareKey: z.string().max(100).optional() };
const siteSpacesQuery = z.object({ ...pageParams, ...shareKeyQuery, default: booleanParam.optional() });
const sectionsQuery = z.object({ ...pageParams, ...shareKeyQuery });
const structureQuery = z.object(shareKeyQuery);

const addSiteSpaceBody = z
  .strictObject({
    spaceId: z.string().min(1, 'must be a space id').nullable(),
    sectionId: z.string().min(1).optional(),
    path: segmentInput.optional(),
    draft: draft.optional(),
    pageId: z.string().min(1).nullable().optional(),
    title: titleInput.optional(),
  })
  .refine((body) => !(body.spaceId === null && body.pageId), {
    message: 'cannot be set when spaceId is null (a new space has no pages yet)',
    path: ['pageId'],
  });

const updateSiteSpaceBody = z
  .strictObject({
    path: segmentInput.optional(),
    condition: conditionSchema.nullable().optional(),
    pageId: z.string().min(1).nullable().optional(),
    hidden: z.boolean().optional(),
    spaceId: z.string().min(1).optional(),
    draft: draft.optional(),
  })
  .refine(atLeastOne, 'must set at least one field');

const addSectionBody = z
  .strictObject({
    spaceId: z.string().min(1, 'must be a space id').nullable(),
    title: titleInput.nullable().optional(),
    icon: icon.nullable().optional(),
    draft: draft.optional(),
    pageId: z.string().min(1).optional(),
    siteSectionGroupId: z.string().min(1).optional(),
  })
  .refine((body) => !(body.spaceId === null && body.pageId), {
    message: 'cannot be set when spaceId is null (a new space has no pages yet)',
    path: ['pageId'],
  });

const updateSectionBody = z
  .strictObject({
    title: titleInput.optional(),
    localizedTitle: localizedString(128).optional(),
    path: segmentInput.optional(),
    defaultSiteSpace: z.string().min(1).optional(),
    condition: conditionSchema.nullable().optional(),
    icon: icon.nullable().optional(),
    draft: draft.optional(),
    description: z.string().max(256, 'must be at most 256 characters').nullable().optional(),
    localizedDescription: localizedString(256).optional(),
    siteSectionGroupId: z.string().min(1).nullable().optional(),
  })
  .refine(atLeastOne, 'must set at least one field');

const groupTitle = z.string().trim().min(1, 'must be 1 to 100 characters').max(100, 'must be 1 to 100 characters');
const addGroupBody = z.strictObject({
  title: groupTitle,
  icon: icon.nullable().optional(),
  sections: z.array(z.string().min(1)).max(100, 'must list at most 100 sections').optional(),
  parent: z.string().min(1).optional(),
  draft: draft.optional(),
});

const updateGroupBody = z
  .strictObject({
    title: groupTitle.optional(),
    localizedTitle: localizedString(128).optional(),
    icon: icon.nullable().optional(),
    draft: draft.optional(),
    parentSectionGroupId: z.string().min(1).nullable().optional(),
  })
  .refine(atLeastOne, 'must set at least one field');

const itemType = z.enum(['site-space', 'site-section', 'site-section-group', 'site-external-link'], {
  message: 'must be site-space, site-section, site-section-group or site-external-link',
});
const pointer = z.strictObject({ type: itemType, id: z.string().min(1) });
const sortBody = z.strictObject({
  item: pointer,
  position: z.strictObject({ before: pointer.optional(), after: pointer.optional() }).optional(),
});

const moveSiteSpaceBody = z
  .strictObject({
    position: z
      .strictObject({
        before: z.strictObject({ type: z.literal('site-space'), siteSpace: z.string().min(1) }).optional(),
        after: z.strictObject({ type: z.literal('site-space'), siteSpace: z.string().min(1) }).optional(),
      })
      .optional(),
  })
  .optional();
const sectionPointer = z.strictObject({ type: z.literal('site-section'), siteSection: z.string().min(1) });
const moveSectionBody = z
  .strictObject({
    position: z.strictObject({ before: sectionPointer.optional(), after: sectionPointer.optional() }).optional(),
  })
  .optional();
const groupPointer = z.strictObject({ type: z.enum(['site-section', 'site-section-group']), id: z.string().min(1) });
const moveGroupBody = z
  .strictObject({
    position: z.strictObject({ before: groupPointer.optional(), after: groupPointer.optional() }).optional(),
  })
  .optional();

type SiteSpaceParams = SiteParams & { siteSpaceId: string };
type SectionParams = SiteParams & { siteSectionId: string };
type GroupParams = SiteParams & { siteSectionGroupId: string };

/** The deprecated moves: the item among its siblings, answered as it is after. */
function moveAndAnswer(request: FastifyRequest<{ Params: SiteParams }>, item: ItemPointer, position: ItemPosition) {
  const { org, s } = siteOf(request, request.params, 'create');
  moveItem(request.ctx.db, s, item, position);
  return structureItemJson(reread(request, s), item, contextOf(request, org));
}

/**
 * The structure of docs sites: site spaces, sections, section groups and their order (external
 * links are written by `external-links.ts`, and sorted here with the rest). Members of
 * the organization read it (published sites' readers too, as visitors see it); creators change it.
 */
export function siteStructureRoutes(app: FastifyInstance): void {
  // --- Structure -------------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/structure',
    { config: { ...OPEN_TO_VISITORS.config, ...CONDITIONAL.config } },
    async (request) => {
      const query = parseQuery(structureQuery, request.query);
      const { org, s } = readerSiteOf(request, request.params, query.shareKey);
      return structureJson(s, contextOf(request, org));
    },
  );

  app.patch<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/structure/sort', async (request, reply) => {
    const body = parseBody(sortBody, request.body);
    const { org, s } = siteOf(request, request.params, 'create');
    const item: ItemPointer = body.item;
    requireItem(s, item, 'item');
    moveItem(request.ctx.db, s, item, body.position ?? {});
    if (minimal(request, reply)) return reply.send();
    return structureItemJson(reread(request, s), item, contextOf(request, org));
  });

  // --- Site spaces -----------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/site-spaces',
    OPEN_TO_VISITORS,
    async (request) => {
      const query = parseQuery(siteSpacesQuery, request.query);
      const { org, s } = readerSiteOf(request, request.params, query.shareKey);
      const context = contextOf(request, org);
      // Sections first, in their order, then each section's variants.
      const ordered = s.sections.length
        ? orderedSections(s).flatMap((section) => s.siteSpaces.filter((row) => row.section_id === section.id))
        : s.siteSpaces;
      const rows =
        query.default === undefined
          ? ordered
          : ordered.filter((row) => siteSpaceJson(s, row, context).default === query.default);
      return pageFromArray(rows, pageWindow(query), (row) => siteSpaceJson(s, row, context));
    },
  );

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/site-spaces', async (request, reply) => {
    const body = parseBody(addSiteSpaceBody, request.body ?? {});
    const { org, s } = siteOf(request, request.params, 'create');
    const { db, access } = request.ctx;
    const id = db.transaction(() => {
      const space =
        body.spaceId === null
          ? requireOrgSpace(
              db,
              access,
              org.id,
              insertSpace(db, { orgId: org.id, title: body.title ?? 'Untitled' }),
              'spaceId',
            )
          : requireOrgSpace(db, access, org.id, body.spaceId, 'spaceId');
      if (body.pageId) requireHomePage(db, space, body.pageId, 'pageId');
      return addSiteSpace(db, s, {
        space,
        path: body.path,
        sectionId: body.sectionId,
        draft: body.draft,
        pageId: body.pageId ?? undefined,
      });
    })();
    if (minimal(request, reply)) return reply.send();
    const after = reread(request, s);
    return reply.code(201).send(siteSpaceJson(after, requireSiteSpace(after, id), contextOf(request, org)));
  });

  app.patch<{ Params: SiteSpaceParams }>(
    '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId',
    async (request, reply) => {
      const body = parseBody(updateSiteSpaceBody, request.body ?? {});
      const { org, s } = siteOf(request, request.params, 'create');
      const { db, access } = request.ctx;
      const row = requireSiteSpace(s, request.params.siteSpaceId);
      const space =
        body.spaceId !== undefined
          ? requireOrgSpace(db, access, org.id, body.spaceId, 'spaceId')
          : s.spaces.get(row.space_id)!;
      if (body.pageId) requireHomePage(db, space, body.pageId, 'pageId');
      updateSiteSpace(db, s, row, { ...body, space: body.spaceId !== undefined ? space : undefined });
      if (minimal(request, reply)) return reply.send();
      const after = reread(request, s);
      return siteSpaceJson(after, requireSiteSpace(after, row.id), contextOf(request, org));
    },
  );

  app.delete<{ Params: SiteSpaceParams }>(
    '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId',
    async (request, reply) => {
      const { s } = siteOf(request, request.params, 'create');
      return sendDeleted(reply, removeSiteSpace(request.ctx.db, s, request.params.siteSpaceId));
    },
  );

  app.post<{ Params: SiteSpaceParams }>(
    '/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move',
    async (request) => {
      const body = parseBody(moveSiteSpaceBody, request.body ?? undefined);
      const to = (p?: { siteSpace: string }) => p && ({ type: 'site-space', id: p.siteSpace } as const);
      return moveAndAnswer(
        request,
        { type: 'site-space', id: request.params.siteSpaceId },
        { before: to(body?.position?.before), after: to(body?.position?.after) },
      );
    },
  );

  // --- Sections --------------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/sections', OPEN_TO_VISITORS, async (request) => {
    const query = parseQuery(sectionsQuery, request.query);
    const { org, s } = readerSiteOf(request, request.params, query.shareKey);
    const context = contextOf(request, org);
    return pageFromArray(orderedSections(s), pageWindow(query), (row) => sectionJson(s, row, context));
  });

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/sections', async (request, reply) => {
    const body = parseBody(addSectionBody, request.body ?? {});
    const { org, s } = siteOf(request, request.params, 'create');
    const { db, access } = request.ctx;
    const id = db.transaction(() => {
      const space =
        body.spaceId === null
          ? requireOrgSpace(
              db,
              access,
              org.id,
              insertSpace(db, { orgId: org.id, title: body.title ?? 'Untitled' }),
              'spaceId',
            )
          : requireOrgSpace(db, access, org.id, body.spaceId, 'spaceId');
      if (body.pageId) requireHomePage(db, space, body.pageId, 'pageId');
      return addSection(db, s, {
        space,
        title: body.title,
        icon: body.icon,
        draft: body.draft,
        pageId: body.pageId,
        groupId: body.siteSectionGroupId,
      });
    })();
    const after = reread(request, s);
    return reply.code(201).send(sectionJson(after, requireSection(after, id), contextOf(request, org)));
  });

  app.patch<{ Params: SectionParams }>(
    '/orgs/:organizationId/sites/:siteId/sections/:siteSectionId',
    async (request, reply) => {
      const body = parseBody(updateSectionBody, request.body ?? {});
      const { org, s } = siteOf(request, request.params, 'create');
      const row = requireSection(s, request.params.siteSectionId);
      updateSection(request.ctx.db, s, row, { ...body, groupId: body.siteSectionGroupId });
      if (minimal(request, reply)) return reply.send();
      const after = reread(request, s);
      return sectionJson(after, requireSection(after, row.id), contextOf(request, org));
    },
  );

  app.delete<{ Params: SectionParams }>(
    '/orgs/:organizationId/sites/:siteId/sections/:siteSectionId',
    async (request, reply) => {
      const { s } = siteOf(request, request.params, 'create');
      return sendDeleted(reply, removeSection(request.ctx.db, s, request.params.siteSectionId));
    },
  );

  app.post<{ Params: SectionParams }>(
    '/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move',
    async (request) => {
      const body = parseBody(moveSectionBody, request.body ?? undefined);
      const to = (p?: { siteSection: string }) => p && ({ type: 'site-section', id: p.siteSection } as const);
      return moveAndAnswer(
        request,
        { type: 'site-section', id: request.params.siteSectionId },
        { before: to(body?.position?.before), after: to(body?.position?.after) },
      );
    },
  );

  // --- Section groups --------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/section-groups', async (request) => {
    const query = parseQuery(sectionsQuery, request.query);
    const { org, s } = siteOf(request, request.params);
    const context = contextOf(request, org);
    // Depth first, in display order: a group comes before the groups it holds.
    const ordered: Structure['groups'] = [];
    const walk = (parent: string | null) => {
      for (const group of s.groups.filter((row) => row.parent_id === parent)) {
        ordered.push(group);
        walk(group.id);
      }
    };
    walk(null);
    return pageFromArray(ordered, pageWindow(query), (row) => groupJson(s, row, context));
  });

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/section-groups', async (request, reply) => {
    const body = parseBody(addGroupBody, request.body ?? {});
    const { org, s } = siteOf(request, request.params, 'create');
    const id = addGroup(request.ctx.db, s, { ...body, parentId: body.parent });
    const after = reread(request, s);
    return reply.code(201).send(groupJson(after, requireGroup(after, id), contextOf(request, org)));
  });

  app.patch<{ Params: GroupParams }>(
    '/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId',
    async (request, reply) => {
      const body = parseBody(updateGroupBody, request.body ?? {});
      const { org, s } = siteOf(request, request.params, 'create');
      const row = requireGroup(s, request.params.siteSectionGroupId);
      updateGroup(request.ctx.db, s, row, { ...body, parentId: body.parentSectionGroupId });
      if (minimal(request, reply)) return reply.send();
      const after = reread(request, s);
      return groupJson(after, requireGroup(after, row.id), contextOf(request, org));
    },
  );

  app.delete<{ Params: GroupParams }>(
    '/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId',
    async (request, reply) => {
      const { s } = siteOf(request, request.params, 'create');
      return sendDeleted(reply, removeGroup(request.ctx.db, s, request.params.siteSectionGroupId));
    },
  );

  app.post<{ Params: GroupParams }>(
    '/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move',
    async (request) => {
      const body = parseBody(moveGroupBody, request.body ?? undefined);
      return moveAndAnswer(
        request,
        { type: 'site-section-group', id: request.params.siteSectionGroupId },
        body?.position ?? {},
      );
    },
  );
}
