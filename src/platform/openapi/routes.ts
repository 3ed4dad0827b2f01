import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { badRequest, pageFromArray, pageQuery, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
import type { JobQueue } from '../jobs.js';
import { storedHttpUrlProblem } from '../outbound.js';
import {
  createSpec,
  deleteSpec,
  putSpec,
  requireSpec,
  requireVersion,
  setVisibility,
  signedVersion,
  specsOf,
  versionsOf,
  VISIBILITIES,
  type SpecSource,
} from './store.js';
import type { Db } from '../store/db.js';
import { httpUrlSchema } from '../schemas.js';
import { contentJson, rawJson, specJson, versionJson } from './json.js';
import { CONDITIONAL } from '../conditional.js';

const slugSchema = z
  .string()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .regex(
    /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/,
    'must be letters and digits in groups joined by single "-" (pattern ^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$)',
  );

/** Largest text source: the body limit of the platform is the real bound; this names it. */
const MAX_TEXT = 5 * 1024 * 1024;

// `httpUrlSchema`'s messages never repeat the URL, which may hold credentials.
const sourceSchema = z.union(
  [
    z.strictObject({ url: httpUrlSchema }),
    z.strictObject({ text: z.string().min(1, 'must not be empty').max(MAX_TEXT, 'must be at most 5 MiB') }),
  ],
  { message: 'must be { url } or { text }' },
);

const createBody = z.strictObject({ slug: slugSchema, source: sourceSchema });
const putBody = z.strictObject({ source: sourceSchema });
const patchBody = z.strictObject({ visibility: z.enum(VISIBILITIES, { message: 'must be private or public' }) });

type OrgParams = { organizationId: string };
type SpecParams = OrgParams & { specSlug: string };
type VersionParams = SpecParams & { versionId: string };

/**
 * Narrows a union failure to the variant the body meant, so the 400 names the field
 * (`source.url`) rather than the union: a body with `url` is checked as a URL source.
 */
function sourceOf<T extends { source: SpecSource }>(schema: z.ZodType<T>, body: unknown): T {
  const source = (body as { source?: unknown } | undefined)?.source;
  if (source && typeof source === 'object' && !Array.isArray(source)) {
    const variant = 'url' in source ? sourceSchema.options[0] : 'text' in source ? sourceSchema.options[1] : undefined;
    if (variant) parseBody(z.object({ source: variant }).passthrough(), body);
  }
  return parseBody(schema, body);
}

/** Options of the OpenAPI routes. */
export interface OpenAPIRouteOptions {
  queue: JobQueue;
  /** Accept URL sources on private and loopback addresses (demo and test runs). */
  allowPrivateUrls: boolean;
}

/**
 * OpenAPI specifications of an organization and their versions. Members read them; the
 * `create` role (and admins) create, update and delete them, as `permissions.createOpenAPISpec`
 * of the organization says. A URL source is checked by the outbound guard when it is given, as
 * well as each time it is fetched.
 */
export function openAPIRoutes(app: FastifyInstance, options: OpenAPIRouteOptions): void {
  const { queue } = options;

  /** Refuses a URL source the platform may not fetch, naming the field (after the permission check: only writers make the platform resolve a host). */
  const checkSource = async (source: SpecSource) => {
    if (!('url' in source)) return;
    const problem = await storedHttpUrlProblem(source.url, options.allowPrivateUrls);
    if (problem) throw badRequest(`Invalid body field "source.url": ${problem}`);
  };

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/openapi', async (request) => {
    const query = parseQuery(pageQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const role = access.orgRole(org.id);
    return pageFromArray(specsOf(db, org.id), pageWindow(query), (row) => specJson(row, role, links));
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/openapi', async (request, reply) => {
    const body = sourceOf(createBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    await checkSource(body.source);
    const json = specJson(createSpec(db, queue, org.id, body.slug, body.source), access.orgRole(org.id), links);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: SpecParams }>('/orgs/:organizationId/openapi/:specSlug', CONDITIONAL, async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    return specJson(requireSpec(db, org.id, request.params.specSlug), access.orgRole(org.id), links);
  });

  app.put<{ Params: SpecParams }>('/orgs/:organizationId/openapi/:specSlug', async (request, reply) => {
    const body = sourceOf(putBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    // A new specification takes its slug from the path, which must be a valid slug.
    const slug = parseBody(z.object({ slug: slugSchema }), { slug: request.params.specSlug }).slug;
    await checkSource(body.source);
    const { row, created } = putSpec(db, queue, org.id, slug, body.source);
    const json = specJson(row, access.orgRole(org.id), links);
    if (created) reply.header('location', json.urls.location);
    return reply.code(created ? 201 : 200).send(json);
  });

  app.patch<{ Params: SpecParams }>('/orgs/:organizationId/openapi/:specSlug', async (request) => {
    const body = parseBody(patchBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    const row = requireSpec(db, org.id, request.params.specSlug);
    return specJson(setVisibility(db, row, body.visibility), access.orgRole(org.id), links);
  });

  app.delete<{ Params: SpecParams }>('/orgs/:organizationId/openapi/:specSlug', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'create');
    return sendDeleted(reply, deleteSpec(db, org.id, request.params.specSlug));
  });

  app.get<{ Params: SpecParams }>('/orgs/:organizationId/openapi/:specSlug/versions', async (request) => {
    const query = parseQuery(pageQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const spec = requireSpec(db, org.id, request.params.specSlug);
    return pageFromArray(versionsOf(db, spec.id), pageWindow(query), (version) =>
      versionJson(db, spec, version, links),
    );
  });

  /** The specification and one of its versions (`latest` included). */
  const versionOf = (request: FastifyRequest, params: VersionParams) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(params.organizationId, 'read');
    const spec = requireSpec(db, org.id, params.specSlug);
    return { spec, version: requireVersion(db, spec, params.versionId) };
  };

  // `latest` is a version id as far as these routes go: the router tries the literal paths first.
  for (const path of [
    '/orgs/:organizationId/openapi/:specSlug/versions/latest',
    '/orgs/:organizationId/openapi/:specSlug/versions/:versionId',
  ]) {
    app.get<{ Params: VersionParams }>(path, async (request) => {
      const { spec, version } = versionOf(request, {
        ...request.params,
        versionId: request.params.versionId ?? 'latest',
      });
      return versionJson(request.ctx.db, spec, version, request.ctx.links);
    });
    app.get<{ Params: VersionParams }>(`${path}/content`, async (request) => {
      const { spec, version } = versionOf(request, {
        ...request.params,
        versionId: request.params.versionId ?? 'latest',
      });
      return contentJson(request.ctx.db, spec, version, request.ctx.links);
    });
  }

  app.get<{ Params: SpecParams }>(
    '/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw',
    async (request) => {
      const { version } = versionOf(request, { ...request.params, versionId: 'latest' });
      return rawJson(version);
    },
  );
}

export const OPENAPI_DOWNLOAD_ROUTE = '/openapi/:versionId/:name';

/**
 * Serves the text of a version at its signed URL (`url` of a version), without a token; 403 when
 * the URL was altered, 404 once the version is gone.
 */
export function openAPIDownloadRoutes(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { versionId: string; name: string } }>(OPENAPI_DOWNLOAD_ROUTE, async (request, reply) => {
    const query = parseQuery(z.object({ sig: z.string().optional() }), request.query);
    const { versionId, name } = request.params;
    const signed = signedVersion(db, { versionId, name, sig: query.sig });
    if (!signed.valid) {
      return reply.code(403).send({
        error: { code: 403, message: 'This specification URL is not valid: ask the API for the version again' },
      });
    }
    const version = signed.version;
    if (!version)
      return reply.code(404).send({ error: { code: 404, message: 'OpenAPI specification version not found' } });
    return (
      reply
        .header(
          'content-type',
          version.format === 'json' ? 'application/json; charset=utf-8' : 'application/yaml; charset=utf-8',
        )
        .header('cache-control', 'public, max-age=31536000, immutable')
        // "Try it" tools read specifications across origins.
        .header('access-control-allow-origin', '*')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`)
        .send(version.text)
    );
  });
}
