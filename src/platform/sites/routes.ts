import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { booleanParam, conflict, pageOf, pageParams, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
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
  SITE_TYPES,
  SITE_VISIBILITIES,
  touchSite,
  updateSiteColumns,
} from './store.js';
import { addSiteSpace, loadStructure, setSiteDefaults } from './structure.js';
import { siteRole } from './permissions.js';
import { CONDITIONAL } from '../conditional.js';
import type { Db } from '../store/db.js';
import {
  type OrgParams,
  type SiteParams,
  titleInput,
  segmentInput,
  atLeastOne,
  orgOf,
  siteOf,
  answerSite,
} from './requests.js';

const visibility = z.enum(SITE_VISIBILITIES, { message: `must be one of ${SITE_VISIBILITIES.join(', ')}` });
const defaultLevel = z
  .enum(['inherit', 'admin', 'create', 'review', 'edit', 'comment', 'read'], {
    message: 'must be inherit, a role, or null for guests',
  })
  .nullable();
const createBody = z.strictObject({
  type: z.enum(SITE_TYPES, { message: `must be one of ${SITE_TYPES.join(', ')}` }).optional(),
  title: titleInput.optional(),
  visibility: visibility.optional(),
  spaces: z.array(z.string().min(1)).max(100, 'must list at most 100 spaces').optional(),
});

const updateBody = z
  .strictObject({
    title: titleInput.optional(),
    visibility: visibility.optional(),
    basename: segmentInput.optional(),
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

/**
 * Docs sites and their structure. Members of the organization read them; creators change the
 * structure (site spaces, sections, section groups, their order); admins create, configure,
 * publish and delete sites.
 */
export function siteRoutes(
  app: FastifyInstance,
  options: {
    /** Called in the transaction of an update that gives a site a new custom hostname: its DNS check starts. */
    onHostname?: (db: Db, hostname: string, siteId: string) => void;
  } = {},
): void {
  // --- Sites -----------------------------------------------------------------------------------

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/sites', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { org } = orgOf(request, request.params);
    const window = pageWindow(query);
    const { rows, count } = listSites(request.ctx.db, org.id, query, window);
    return pageOf(
      rows.map((site) => answerSite(request, site, org, siteRole(request.ctx.access, site) ?? null)),
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

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId', CONDITIONAL, async (request) => {
    const { org, site, role } = siteOf(request, request.params);
    return answerSite(request, site, org, role);
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
      if (body.hostname && body.hostname !== site.hostname) options.onHostname?.(db, body.hostname, site.id);
    })();
    return answerSite(request, reloadSite(db, site.id), org, role);
  });

  app.delete<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId', async (request, reply) => {
    const exists = findSite(request.ctx.db, request.params.organizationId, request.params.siteId);
    const { org } = exists ? siteOf(request, request.params, 'admin') : orgOf(request, request.params, 'admin');
    return sendDeleted(reply, deleteSite(request.ctx.db, org.id, request.params.siteId));
  });

  for (const [action, published] of [
    ['publish', 1],
    ['unpublish', 0],
  ] as const) {
    app.post<{ Params: SiteParams }>(`/orgs/:organizationId/sites/:siteId/${action}`, async (request) => {
      const { org, role, site } = siteOf(request, request.params, 'admin');
      const { db } = request.ctx;
      db.transaction(() => {
        updateSiteColumns(db, site.id, { published });
        touchSite(db, site.id);
      })();
      return answerSite(request, reloadSite(db, site.id), org, role);
    });
  }
}
