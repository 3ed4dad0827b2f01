import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Role } from '../access.js';
import {
  badRequest,
  booleanParam,
  conflict,
  notFound,
  pageFromArray,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { OrganizationRow } from '../rows.js';
import { conditionSchema } from '../schemas.js';
import { insertSpace } from '../spaces/store.js';
import {
  deleteSite,
  findSite,
  findSiteById,
  hostnameTakenBySite,
  insertSite,
  listSites,
  proxyOriginTaken,
  reloadSite,
  requireFreeBasename,
  requireOrgSpace,
  requireSite,
  SITE_TYPES,
  SITE_VISIBILITIES,
  touchSite,
  type SiteRow,
  updateSiteColumns,
} from './store.js';
import {
  type JsonContext,
  groupJson,
  sectionJson,
  siteJson,
  siteSpaceJson,
  structureItemJson,
  structureJson,
} from './json.js';
import { findOrganization } from '../organizations/store.js';
import {
  addGroup,
  addSection,
  addSiteSpace,
  loadStructure,
  moveItem,
  orderedSections,
  removeGroup,
  removeSection,
  removeSiteSpace,
  requireGroup,
  requireHomePage,
  requireSection,
  requireSiteSpace,
  setSiteDefaults,
  updateGroup,
  updateSection,
  updateSiteSpace,
  type ItemPointer,
  type ItemPosition,
  type Structure,
} from './structure.js';
import { readerView } from './resolve.js';
import { OPEN_TO_VISITORS } from './visitor-access.js';
import { readableWithoutMembership } from './visitors.js';

const title = z.string().trim().min(2, 'must be 2 to 128 characters').max(128, 'must be 2 to 128 characters');
const visibility = z.enum(SITE_VISIBILITIES, { message: `must be one of ${SITE_VISIBILITIES.join(', ')}` });
/** One URL segment: readers' paths are matched without case, and `~` starts the platform's own segments. */
const segment = z
  .string()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .regex(
    /^[A-Za-z0-9][\w.+-]*$/,
    'must be one path segment of letters, digits, ".", "+", "_" or "-", starting with a letter or digit',
  );
const defaultLevel = z
  .enum(['inherit', 'admin', 'create', 'review', 'edit', 'comment', 'read'], {
    message: 'must be inherit, a role, or null for guests',
  })
  .nullable();
const icon = z.string().min(1, 'must be an icon name').max(50, 'must be at most 50 characters');
const localizedString = (max: number) =>
  z.record(
    z.string().regex(/^[a-z]{2}(-[a-z]{2})?$/, 'must be keyed by language codes such as en or pt-br'),
    z.string().max(max, `must be at most ${max} characters`),
  );
const draft = z.boolean();

const atLeastOne = (body: Record<string, unknown>) => Object.values(body).some((value) => value !== undefined);

const createBody = z.strictObject({
  type: z.enum(SITE_TYPES, { message: `must be one of ${SITE_TYPES.join(', ')}` }).optional(),
  title: title.optional(),
  visibility: visibility.optional(),
  spaces: z.array(z.string().min(1)).max(100, 'must list at most 100 spaces').optional(),
});

const updateBody = z
  .strictObject({
    title: title.optional(),
    visibility: visibility.optional(),
    basename: segment.optional(),
    /** Beyond the description (which sets it through custom-hostname operations): a custom hostname; null removes it. */
    hostname: z
      .string()
      .max(512, 'must be at most 512 characters')
      .transform((value) => value.toLowerCase())
      .pipe(
        z
          .string()
          .regex(
            /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/,
            'must be a hostname of three labels or more, such as docs.example.com',
          ),
      )
      .nullable()
      .optional(),
    adaptiveContent: z.strictObject({ enabled: z.boolean() }).optional(),
    defaultLevel: defaultLevel.optional(),
    defaultSiteSpace: z.string().min(1).optional(),
    defaultSiteSection: z.string().min(1).optional(),
    proxy: z
      .string()
      .max(512, 'must be at most 512 characters')
      .transform((value) => value.replace(/^https?:\/\//, '').replace(/\/+$/, ''))
      .pipe(
        z
          .string()
          .regex(
            /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/,
            'must be a host and one or more path segments, such as example.com/docs',
          ),
      )
      .nullable()
      .optional(),
  })
  .refine(atLeastOne, 'must set at least one field');

const listQuery = z.object({
  ...pageParams,
  space: z.string().min(1).optional(),
  title: z.string().optional(),
  published: booleanParam.optional(),
  type: z
    .union([z.enum(SITE_TYPES), z.array(z.enum(SITE_TYPES))], { message: `must be among ${SITE_TYPES.join(', ')}` })
    .optional(),
});

const shareKeyQuery = { shareKey: z.string().max(100).optional() };
const siteSpacesQuery = z.object({ ...pageParams, ...shareKeyQuery, default: booleanParam.optional() });
const sectionsQuery = z.object({ ...pageParams, ...shareKeyQuery });
const structureQuery = z.object(shareKeyQuery);

const addSiteSpaceBody = z
  .strictObject({
    spaceId: z.string().min(1, 'must be a space id').nullable(),
    sectionId: z.string().min(1).optional(),
    path: segment.optional(),
    draft: draft.optional(),
    pageId: z.string().min(1).nullable().optional(),
    title: title.optional(),
  })
  .refine((body) => !(body.spaceId === null && body.pageId), {
    message: 'cannot be set when spaceId is null (a new space has no pages yet)',
    path: ['pageId'],
  });

const updateSiteSpaceBody = z
  .strictObject({
    path: segment.optional(),
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
    title: title.nullable().optional(),
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
    title: title.optional(),
    localizedTitle: localizedString(128).optional(),
    path: segment.optional(),
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

type OrgParams = { organizationId: string };
type SiteParams = OrgParams & { siteId: string };
type SiteSpaceParams = SiteParams & { siteSpaceId: string };
type SectionParams = SiteParams & { siteSectionId: string };
type GroupParams = SiteParams & { siteSectionGroupId: string };

/** `prefer: return=minimal` asks for a 204 without the written object. */
function minimal(request: FastifyRequest, reply: FastifyReply): boolean {
  const prefer = String(request.headers.prefer ?? '');
  if (!/(^|[\s,;])return=minimal($|[\s,;])/.test(prefer)) return false;
  reply.code(204).header('preference-applied', 'return=minimal');
  return true;
}

/**
 * Docs sites and their structure. Members of the organization read them; creators change the
 * structure (site spaces, sections, section groups, their order); admins create, configure,
 * publish and delete sites.
 */
export function siteRoutes(app: FastifyInstance): void {
  const orgOf = (
    request: FastifyRequest,
    params: OrgParams,
    min: Role = 'read',
  ): { org: OrganizationRow; role: Role | null } => {
    const { access } = request.ctx;
    const org = access.requireOrg(params.organizationId, min);
    return { org, role: access.orgRole(org.id) ?? null };
  };
  const siteOf = (request: FastifyRequest, params: SiteParams, min: Role = 'read') => {
    const { org, role } = orgOf(request, params, min);
    const site = requireSite(request.ctx.db, org.id, params.siteId);
    return { org, role, site, s: loadStructure(request.ctx.db, site) };
  };
  /**
   * A site for reading its structure: members read every site of their organization; anyone
   * authenticated reads a published public or unlisted site, and a published share-link site
   * with the key of an active share link, and the visitor holding an API token of the site. Those
   * readers see what a visitor with their claims (none without a token) sees: no drafts, nothing
   * whose condition is false for them. The routes reading through it are open to visitors.
   */
  const readerSiteOf = (request: FastifyRequest, params: SiteParams, shareKey: string | undefined) => {
    const { db, access } = request.ctx;
    const role = access.orgRole(params.organizationId);
    if (role !== undefined && role !== null) return siteOf(request, params);
    const site = findSite(db, params.organizationId, params.siteId);
    if (!site || !readableWithoutMembership(db, site, shareKey, request.ctx.visitor?.site)) throw notFound('Site');
    const org = findOrganization(db, site.org_id)!;
    return { org, role: null, site, s: readerView(loadStructure(db, site), request.ctx.visitor?.claims ?? {}) };
  };
  const contextOf = (request: FastifyRequest, org: OrganizationRow): JsonContext => ({
    access: request.ctx.access,
    org,
    links: request.ctx.links,
  });
  const answerSite = (request: FastifyRequest, site: SiteRow, org: OrganizationRow, role: Role | null) =>
    siteJson(request.ctx.db, site, org, role, request.ctx.links);
  const reread = (request: FastifyRequest, s: Structure) =>
    loadStructure(request.ctx.db, reloadSite(request.ctx.db, s.site.id));
  /** The deprecated moves: the item among its siblings, answered as it is after. */
  const moveAndAnswer = (
    request: FastifyRequest<{ Params: SiteParams }>,
    item: ItemPointer,
    position: ItemPosition,
  ) => {
    const { org, s } = siteOf(request, request.params, 'create');
    moveItem(request.ctx.db, s, item, position);
    return structureItemJson(reread(request, s), item, contextOf(request, org));
  };

  // --- Sites -----------------------------------------------------------------------------------

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/sites', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { org, role } = orgOf(request, request.params);
    const window = pageWindow(query);
    const { rows, count } = listSites(request.ctx.db, org.id, query, window);
    return pageOf(
      rows.map((site) => answerSite(request, site, org, role)),
      count,
      window,
    );
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/sites', async (request, reply) => {
    const body = parseBody(createBody, request.body ?? {});
    const { org, role } = orgOf(request, request.params, 'admin');
    const { db, access } = request.ctx;
    const spaces = (body.spaces ?? []).map((spaceId, index) =>
      requireOrgSpace(db, access, org.id, spaceId, `spaces.${index}`),
    );
    const site = db.transaction(() => {
      const created = insertSite(db, org.id, body);
      for (const space of spaces) addSiteSpace(db, loadStructure(db, created), { space });
      return reloadSite(db, created.id);
    })();
    const json = answerSite(request, site, org, role);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId', async (request) => {
    const { org, role } = orgOf(request, request.params);
    return answerSite(request, requireSite(request.ctx.db, org.id, request.params.siteId), org, role);
  });

  app.patch<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId', async (request) => {
    const body = parseBody(updateBody, request.body ?? {});
    const { org, role, site, s } = siteOf(request, request.params, 'admin');
    const { db } = request.ctx;
    if (body.basename !== undefined) requireFreeBasename(db, org.id, body.basename, site.id);
    if (body.hostname && hostnameTakenBySite(db, body.hostname, site.id)) {
      throw conflict(`Another site already has the hostname "${body.hostname}"`);
    }
    if (body.proxy) {
      const origin = body.proxy.toLowerCase();
      if (proxyOriginTaken(db, origin, site.id)) {
        throw conflict(`Another site is already served at ${body.proxy}`);
      }
      if (hostnameTakenBySite(db, origin.split('/')[0]!, site.id)) {
        throw conflict(`Invalid body field "proxy": ${origin.split('/')[0]} is the custom hostname of another site`);
      }
    }
    if (body.basename !== undefined) {
      // Under the organization's address, a basename must not hide a path of its default site.
      const fallback = org.default_content ? (JSON.parse(org.default_content) as { site?: string }).site : undefined;
      const other = fallback && fallback !== site.id ? findSiteById(db, fallback) : undefined;
      if (other) {
        const structure = loadStructure(db, other);
        const paths = [
          ...structure.sections.map((row) => row.path),
          ...structure.siteSpaces.filter((row) => row.section_id === null).map((row) => row.path),
        ];
        if (paths.some((path) => path.toLowerCase() === body.basename!.toLowerCase())) {
          throw conflict(
            `The basename "${body.basename}" is a path of the organization's default site, ${other.title}`,
          );
        }
      }
    }
    db.transaction(() => {
      setSiteDefaults(db, s, body);
      const columns: Record<string, unknown> = {
        title: body.title,
        visibility: body.visibility,
        basename: body.basename,
        hostname: body.hostname,
        adaptive_content: body.adaptiveContent === undefined ? undefined : Number(body.adaptiveContent.enabled),
        default_level: body.defaultLevel === undefined ? undefined : (body.defaultLevel ?? 'guest'),
        // The platform serves a proxied site under its own address; the reader's proxy forwards to it.
        proxy:
          body.proxy === undefined
            ? undefined
            : body.proxy === null
              ? null
              : JSON.stringify({ origin: body.proxy, target: `${request.ctx.links.published}/proxy/${site.id}` }),
      };
      updateSiteColumns(db, site.id, columns);
      touchSite(db, site.id);
    })();
    return answerSite(request, reloadSite(db, site.id), org, role);
  });

  app.delete<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId', async (request, reply) => {
    const { org } = orgOf(request, request.params, 'admin');
    return sendDeleted(reply, deleteSite(request.ctx.db, org.id, request.params.siteId));
  });

  for (const [action, published] of [
    ['publish', 1],
    ['unpublish', 0],
  ] as const) {
    app.post<{ Params: SiteParams }>(`/orgs/:organizationId/sites/:siteId/${action}`, async (request) => {
      const { org, role } = orgOf(request, request.params, 'admin');
      const { db } = request.ctx;
      const site = requireSite(db, org.id, request.params.siteId);
      db.transaction(() => {
        updateSiteColumns(db, site.id, { published });
        touchSite(db, site.id);
      })();
      return answerSite(request, reloadSite(db, site.id), org, role);
    });
  }

  // --- Structure -------------------------------------------------------------------------------

  app.get<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/structure',
    OPEN_TO_VISITORS,
    async (request) => {
      const query = parseQuery(structureQuery, request.query);
      const { org, s } = readerSiteOf(request, request.params, query.shareKey);
      return structureJson(s, contextOf(request, org));
    },
  );

  app.patch<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/structure/sort', async (request, reply) => {
    const body = parseBody(sortBody, request.body);
    const { org, s } = siteOf(request, request.params, 'create');
    const known = (p: { type: string; id: string }): ItemPointer => {
      // The platform keeps no external links: no such item can exist.
      if (p.type === 'site-external-link')
        throw badRequest(`Invalid move position: no external link ${p.id} in the site`);
      return p as ItemPointer;
    };
    if (body.item.type === 'site-external-link')
      return reply.code(404).send({ error: { code: 404, message: 'No matching item found' } });
    const item = body.item as ItemPointer;
    moveItem(request.ctx.db, s, item, {
      before: body.position?.before && known(body.position.before),
      after: body.position?.after && known(body.position.after),
    });
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
