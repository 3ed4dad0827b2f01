import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  badRequest,
  booleanParam,
  forbidden,
  notFound,
  notFoundInBody,
  pageFromArray,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { Db } from '../store/db.js';
import {
  canSeeInstallation,
  coveredTarget,
  coveredTargets,
  findInstallation,
  install,
  installOn,
  requireInstallation,
  uninstall,
  uninstallFrom,
  updateInstallation,
  updateOn,
  visibleInstallations,
  type ContentKind,
  type InstallationRow,
} from './installations.js';
import { deliverySecret } from './secrets.js';
import { isOwnerAdmin, requireIntegration } from './store.js';
import { findOrganizationByIdOrHostname } from '../organizations/store.js';
import { findSiteById } from '../sites/store.js';
import { findLiveSpace } from '../spaces/store.js';
import { contentInstallationJson, installationJson } from './json.js';

const externalIdParam = z.string().min(1).max(200).optional();
const installationsQuery = z.object({ ...pageParams, externalId: externalIdParam });
const contentListQuery = z.object({ ...pageParams, externalId: externalIdParam, extended: booleanParam.optional() });
const extendedQuery = z.object({ extended: booleanParam.optional() });

const externalIdsSchema = z.array(z.string().min(1).max(200)).max(5, 'must have at most 5 ids');
const configurationBody = z.record(z.string(), z.unknown());
const selectionSchema = z.enum(['all', 'selected'], { message: 'must be all or selected' });

const updateInstallationBody = z
  .strictObject({
    externalIds: externalIdsSchema.optional(),
    configuration: configurationBody.optional(),
    space_selection: selectionSchema.optional(),
    site_selection: selectionSchema.optional(),
  })
  .refine((body) => Object.keys(body).length > 0, 'must set at least one field');
const updateContentBody = z
  .strictObject({ externalIds: externalIdsSchema.optional(), configuration: configurationBody.optional() })
  .refine((body) => Object.keys(body).length > 0, 'must set at least one field');

type NameParams = { integrationName: string };
type InstallationParams = NameParams & { installationId: string };
type SpaceParams = InstallationParams & { spaceId: string };
type SiteParams = InstallationParams & { siteId: string };

/**
 * Installations of integrations: on organizations (admins of the organization), and on spaces
 * (admins of the space) and sites (admins of the organization). See `integrations/` for the rules.
 */
export function installationRoutes(app: FastifyInstance): void {
  app.get<{ Params: NameParams }>('/integrations/:integrationName/installations', async (request) => {
    const query = parseQuery(installationsQuery, request.query);
    const { db, access, links } = request.ctx;
    const integration = requireIntegration(db, access, request.params.integrationName);
    return pageFromArray(visibleInstallations(db, access, integration, query.externalId), pageWindow(query), (row) =>
      installationJson(db, integration, row, links),
    );
  });

  app.post<{ Params: NameParams }>('/integrations/:integrationName/installations', async (request, reply) => {
    const body = parseBody(z.strictObject({ organization: z.string().min(1).max(100) }), request.body);
    const { db, access, links } = request.ctx;
    const integration = requireIntegration(db, access, request.params.integrationName);
    const org = findOrganizationByIdOrHostname(db, body.organization);
    if (!org || access.orgRole(org.id) === undefined)
      throw notFoundInBody('Organization', 'organization', body.organization);
    if (access.orgRole(org.id) !== 'admin')
      throw forbidden('Installing an integration needs the admin role in the organization');
    const json = installationJson(db, integration, install(db, integration, org), links);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  /** The integration and an installation the caller may see. */
  const installationOf = (request: FastifyRequest, params: InstallationParams) => {
    const { db, access } = request.ctx;
    const integration = requireIntegration(db, access, params.integrationName);
    return { integration, installation: requireInstallation(db, access, integration, params.installationId) };
  };

  /** As `installationOf`, for a change: admins of the installing organization only. */
  const ownInstallationOf = (request: FastifyRequest, params: InstallationParams, what: string) => {
    const found = installationOf(request, params);
    if (request.ctx.access.orgRole(found.installation.org_id) !== 'admin')
      throw forbidden(`${what} needs the admin role in the organization it is installed on`);
    return found;
  };

  app.get<{ Params: InstallationParams }>(
    '/integrations/:integrationName/installations/:installationId',
    async (request) => {
      const { integration, installation } = installationOf(request, request.params);
      return installationJson(request.ctx.db, integration, installation, request.ctx.links);
    },
  );

  app.patch<{ Params: InstallationParams }>(
    '/integrations/:integrationName/installations/:installationId',
    async (request) => {
      const body = parseBody(updateInstallationBody, request.body);
      const { integration, installation } = ownInstallationOf(request, request.params, 'Updating an installation');
      const { db, links } = request.ctx;
      return installationJson(db, integration, updateInstallation(db, integration, installation, body), links);
    },
  );

  app.delete<{ Params: InstallationParams }>(
    '/integrations/:integrationName/installations/:installationId',
    async (request, reply) => {
      const { db, access } = request.ctx;
      const integration = requireIntegration(db, access, request.params.integrationName);
      const installation = findInstallation(db, integration, request.params.installationId);
      if (!installation || !canSeeInstallation(access, integration, installation)) return sendDeleted(reply, false);
      if (access.orgRole(installation.org_id) !== 'admin')
        throw forbidden('Uninstalling an integration needs the admin role in the organization it is installed on');
      return sendDeleted(reply, uninstall(db, integration, installation));
    },
  );

  /**
   * The secret that signs the deliveries of an installation's events, for the developers of the
   * integration (admins of its owner organization): not in the API description.
   */
  app.get<{ Params: InstallationParams }>(
    '/integrations/:integrationName/installations/:installationId/signing-secret',
    async (request) => {
      const { db, access } = request.ctx;
      const integration = requireIntegration(db, access, request.params.integrationName);
      if (!isOwnerAdmin(access, integration))
        throw forbidden('Reading a signing secret needs the admin role in the organization that owns the integration');
      const installation = findInstallation(db, integration, request.params.installationId);
      if (!installation) throw notFound('Integration installation');
      return { secret: deliverySecret(db, installation.id) };
    },
  );

  // ---------------------------------------------------------------------------------------------
  // Installations on spaces and sites
  // ---------------------------------------------------------------------------------------------

  /**
   * A space or site of the installation's organization, and whether the caller may change the
   * installation on it: admins of the space (organization admins are admins of every space),
   * admins of the organization for a site. A space or site outside the organization is a 404.
   */
  const targetOf = (
    db: Db,
    request: FastifyRequest,
    installation: InstallationRow,
    kind: ContentKind,
    id: string,
    field?: string,
  ): { canChange: boolean } => {
    const { access } = request.ctx;
    const missing = () =>
      field
        ? notFoundInBody(kind === 'space' ? 'Space' : 'Site', field, id)
        : notFound(kind === 'space' ? 'Space' : 'Site');
    if (kind === 'space') {
      const space = findLiveSpace(db, id);
      if (!space || space.org_id !== installation.org_id) throw missing();
      const role = access.spaceRole(space);
      if (!access.canViewSpace(space, role)) throw missing();
      return { canChange: role === 'admin' };
    }
    const site = findSiteById(db, id);
    if (!site || site.org_id !== installation.org_id || access.orgRole(site.org_id) === undefined) throw missing();
    return { canChange: access.orgRole(site.org_id) === 'admin' };
  };

  /**
   * The integration and installation for an operation on one space or site: readers of the
   * installation, or admins of that space (or site) for what concerns it alone.
   */
  const contentInstallationOf = (
    request: FastifyRequest,
    params: InstallationParams,
    kind: ContentKind,
    id: string,
    change: boolean,
    field?: string,
  ) => {
    const { db, access } = request.ctx;
    const integration = requireIntegration(db, access, params.integrationName);
    const installation = findInstallation(db, integration, params.installationId);
    if (!installation) throw notFound('Integration installation');
    const seen = canSeeInstallation(access, integration, installation);
    let target: { canChange: boolean };
    try {
      target = targetOf(db, request, installation, kind, id, field);
    } catch (error) {
      if (!seen) throw notFound('Integration installation');
      throw error;
    }
    if (!seen && !target.canChange) throw notFound('Integration installation');
    if (change && !target.canChange) {
      throw forbidden(
        kind === 'space'
          ? 'Installing an integration on a space needs the admin role on the space'
          : 'Installing an integration on a site needs the admin role in the organization',
      );
    }
    if (change && integration.target !== 'all' && integration.target !== kind) {
      throw badRequest(`This integration cannot be installed on ${kind}s: its target is ${integration.target}`);
    }
    return { integration, installation };
  };

  for (const kind of ['space', 'site'] as const) {
    const plural = `${kind}s`;
    const param = kind === 'space' ? 'spaceId' : 'siteId';
    const bodyField = kind === 'space' ? 'space' : 'siteId';
    const base = `/integrations/:integrationName/installations/:installationId/${plural}`;
    const targetParam = (params: SpaceParams | SiteParams) =>
      kind === 'space' ? (params as SpaceParams).spaceId : (params as SiteParams).siteId;

    app.get<{ Params: InstallationParams }>(base, async (request) => {
      const query = parseQuery(contentListQuery.omit({ externalId: true }), request.query);
      const { integration, installation } = installationOf(request, request.params);
      const { db, access, links } = request.ctx;
      return pageFromArray(coveredTargets(db, installation, kind), pageWindow(query), (target) =>
        contentInstallationJson(db, integration, installation, kind, target, {
          extended: query.extended ?? false,
          access,
          links,
        }),
      );
    });

    app.post<{ Params: InstallationParams }>(base, async (request, reply) => {
      const query = parseQuery(extendedQuery, request.query);
      const body = parseBody(z.strictObject({ [bodyField]: z.string().min(1).max(100) }), request.body) as Record<
        string,
        string
      >;
      const targetId = body[bodyField]!;
      const { integration, installation } = contentInstallationOf(
        request,
        request.params,
        kind,
        targetId,
        true,
        bodyField,
      );
      const { db, access, links } = request.ctx;
      const json = contentInstallationJson(
        db,
        integration,
        installation,
        kind,
        installOn(db, integration, installation, kind, targetId),
        {
          extended: query.extended ?? false,
          access,
          links,
        },
      );
      return reply.code(201).header('location', json.urls.location).send(json);
    });

    app.get<{ Params: SpaceParams | SiteParams }>(`${base}/:${param}`, async (request) => {
      const query = parseQuery(extendedQuery, request.query);
      const targetId = targetParam(request.params);
      const { integration, installation } = contentInstallationOf(request, request.params, kind, targetId, false);
      const { db, access, links } = request.ctx;
      const target = coveredTarget(db, installation, kind, targetId);
      if (!target) throw notFound(`Integration ${kind} installation`);
      return contentInstallationJson(db, integration, installation, kind, target, {
        extended: query.extended ?? false,
        access,
        links,
      });
    });

    app.patch<{ Params: SpaceParams | SiteParams }>(`${base}/:${param}`, async (request) => {
      const query = parseQuery(extendedQuery, request.query);
      const body = parseBody(updateContentBody, request.body);
      const targetId = targetParam(request.params);
      const { integration, installation } = contentInstallationOf(request, request.params, kind, targetId, true);
      const { db, access, links } = request.ctx;
      const target = updateOn(db, integration, installation, kind, targetId, body);
      return contentInstallationJson(db, integration, installation, kind, target, {
        extended: query.extended ?? false,
        access,
        links,
      });
    });

    app.delete<{ Params: SpaceParams | SiteParams }>(`${base}/:${param}`, async (request, reply) => {
      const targetId = targetParam(request.params);
      const { integration, installation } = contentInstallationOf(request, request.params, kind, targetId, true);
      return sendDeleted(reply, uninstallFrom(request.ctx.db, integration, installation, kind, targetId));
    });

    // Every installation of the integration on spaces (or sites) that the caller may see.
    app.get<{ Params: NameParams }>(`/integrations/:integrationName/${plural}`, async (request) => {
      const query = parseQuery(contentListQuery, request.query);
      const { db, access, links } = request.ctx;
      const integration = requireIntegration(db, access, request.params.integrationName);
      const items = visibleInstallations(db, access, integration).flatMap((installation) =>
        coveredTargets(db, installation, kind)
          .filter(
            (target) =>
              query.externalId === undefined || JSON.parse(target.row?.external_ids ?? '[]').includes(query.externalId),
          )
          .map((target) => ({ installation, target })),
      );
      return pageFromArray(items, pageWindow(query), ({ installation, target }) =>
        contentInstallationJson(db, integration, installation, kind, target, {
          extended: query.extended ?? false,
          access,
          links,
        }),
      );
    });
  }
}
