import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  badRequest,
  booleanParam,
  forbidden,
  notFound,
  pageFromArray,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import type { Db } from '../store/db.js';
import type { EndpointPolicy } from './endpoints.js';
import { eventsPage, findEvent } from './events.js';
import {
  ASSET_ROUTE,
  canRead,
  CSP_DIRECTIVES,
  findIntegration,
  INTEGRATION_CATEGORIES,
  INTEGRATION_RUNTIMES,
  INTEGRATION_SCOPES,
  INTEGRATION_TARGETS,
  INTEGRATION_VISIBILITIES,
  isOwnerAdmin,
  listIntegrations,
  organizationIntegrations,
  publishIntegration,
  publishingOrganization,
  requireIntegration,
  signedAsset,
  installedIntegrations,
  unpublishIntegration,
  type Configuration,
  type IntegrationRow,
  type PublishedImage,
} from './store.js';
import { httpUrlSchema } from '../schemas.js';
import { eventJson, integrationJson, traceJson } from './json.js';

const NAME_PATTERN = /^[a-zA-Z0-9-_.]+$/;

const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { message: `must be one of ${values.join(', ')}` });

/** Largest decoded icon and preview image (the limits of the integration CLI). */
const MAX_ICON_BYTES = 250 * 1024;
const MAX_PREVIEW_BYTES = 1024 * 1024;

/** The type of an image by its first bytes: PNG, JPEG, GIF or WebP (no SVG: it can hold scripts). */
function imageType(bytes: Buffer): string | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.subarray(0, 6).toString('latin1') === 'GIF87a' || bytes.subarray(0, 6).toString('latin1') === 'GIF89a')
    return 'image/gif';
  if (bytes.subarray(0, 4).toString('latin1') === 'RIFF' && bytes.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return undefined;
}

/** A base64-encoded image (a `data:` URL prefix is accepted), decoded. */
function imageSchema(maxBytes: number, limit: string) {
  const message = `must be a base64-encoded PNG, JPEG, GIF or WebP image of at most ${limit}`;
  return z
    .string()
    .max(Math.ceil((maxBytes * 4) / 3) + 1024, message)
    .transform((value, ctx): PublishedImage => {
      const text = value.replace(/^data:[\w.+/-]*;base64,/, '').replace(/\s+/g, '');
      const bytes =
        /^[A-Za-z0-9+/]*={0,2}$/.test(text) && text.length % 4 !== 1 ? Buffer.from(text, 'base64') : undefined;
      const contentType = bytes && bytes.length <= maxBytes ? imageType(bytes) : undefined;
      if (!bytes || !contentType) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      return { bytes, contentType };
    });
}

const propertyBase = {
  title: z.string().min(2, 'must be 2 to 50 characters').max(50, 'must be 2 to 50 characters').optional(),
  description: z.string().max(100, 'must be at most 100 characters').optional(),
};

const propertySchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      ...propertyBase,
      type: z.literal('string'),
      default: z.string().max(2048).optional(),
      completion_url: z.string().min(1).max(2048).optional(),
      enum: z.array(z.string().max(200)).min(1).max(100).optional(),
    }),
    z.strictObject({ ...propertyBase, type: z.literal('number'), default: z.number().optional() }),
    z.strictObject({ ...propertyBase, type: z.literal('boolean'), default: z.boolean().optional() }),
    z.strictObject({
      ...propertyBase,
      type: z.literal('button'),
      callback_url: z.string().min(1).max(2048),
      button_text: z.string().min(1).max(100),
    }),
  ],
  { message: 'must have a type of string, number, boolean or button' },
);

/** A configuration: `{ properties, required }` (a schema) or `{ componentId }` (a component renders it). */
const configurationSchema = z
  .strictObject({
    properties: z
      .record(
        z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'names properties with 1 to 64 letters, digits, "_" or "-"'),
        propertySchema,
      )
      .optional(),
    required: z.array(z.string()).max(100).optional(),
    componentId: z.string().min(1).max(100).optional(),
  })
  .superRefine((value, ctx) => {
    if ((value.properties === undefined) === (value.componentId === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'must have either properties or componentId' });
      return;
    }
    const required = value.required ?? [];
    if (value.componentId !== undefined && required.length > 0)
      ctx.addIssue({ code: 'custom', path: ['required'], message: 'goes with properties only' });
    required.forEach((name, index) => {
      if (!value.properties || !(name in value.properties))
        ctx.addIssue({ code: 'custom', path: ['required', index], message: 'must name one of the properties' });
      else if (required.indexOf(name) !== index)
        ctx.addIssue({ code: 'custom', path: ['required', index], message: 'is given twice' });
    });
  })
  // Checked above to hold exactly one of the two: typed as the variant it is, unchanged.
  .transform(
    (value): Configuration =>
      value.componentId === undefined
        ? { ...value, properties: value.properties ?? {} }
        : { ...value, componentId: value.componentId },
  );

const cspSchema = z.union(
  [
    z.string().max(4096),
    z.strictObject(Object.fromEntries(CSP_DIRECTIVES.map((directive) => [directive, z.string().max(4096).optional()]))),
  ],
  { message: 'must be a policy string or an object of CSP directives' },
);

/** What blocks and content sources of an integration both have. */
const itemBase = {
  id: z.string().min(1).max(100),
  title: z.string().min(2, 'must be 2 to 40 characters').max(40, 'must be 2 to 40 characters'),
  description: z.string().max(150, 'must be at most 150 characters').optional(),
  icon: z.string().max(2048).optional(),
};

const publishBody = z.strictObject({
  runtime: enumOf(INTEGRATION_RUNTIMES).optional(),
  icon: imageSchema(MAX_ICON_BYTES, '250 KB').optional(),
  title: z.string().min(2, 'must be 2 to 30 characters').max(30, 'must be 2 to 30 characters'),
  description: z.string().max(100, 'must be at most 100 characters'),
  summary: z.string().max(2048, 'must be at most 2048 characters').optional(),
  previewImages: z.array(imageSchema(MAX_PREVIEW_BYTES, '1 MB')).max(3, 'must have at most 3 images').optional(),
  visibility: enumOf(INTEGRATION_VISIBILITIES).optional(),
  target: enumOf(INTEGRATION_TARGETS).optional(),
  scopes: z.array(enumOf(INTEGRATION_SCOPES)).max(INTEGRATION_SCOPES.length),
  categories: z.array(enumOf(INTEGRATION_CATEGORIES)).max(INTEGRATION_CATEGORIES.length).optional(),
  blocks: z
    .array(
      z.strictObject({
        ...itemBase,
        urlUnfurl: z.array(z.string().min(1).max(2048)).max(50).optional(),
        markdown: z.strictObject({ codeblock: z.string().min(1).max(100), body: z.string().max(10_000) }).optional(),
      }),
    )
    .max(50)
    .optional(),
  contentSources: z
    .array(
      z.strictObject({
        ...itemBase,
        configuration: z.strictObject({ componentId: z.string().min(1).max(100) }),
      }),
    )
    .max(50)
    .optional(),
  externalLinks: z
    .array(z.strictObject({ url: httpUrlSchema, label: z.string().min(1).max(100) }))
    .max(5, 'must have at most 5 links')
    .optional(),
  configurations: z
    .strictObject({
      account: configurationSchema.optional(),
      space: configurationSchema.optional(),
      site: configurationSchema.optional(),
    })
    .optional(),
  script: z
    .string()
    .min(1, 'must not be empty')
    .max(5 * 1024 * 1024, 'must be at most 5 MiB'),
  organization: z.string().min(1).max(100),
  secrets: z
    .record(
      z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'names secrets with 1 to 100 letters, digits, "_", "." or "-"'),
      z.string().max(10_000, 'must be at most 10000 characters'),
    )
    .refine((secrets) => Object.keys(secrets).length <= 20, 'must have at most 20 secrets')
    .optional(),
  contentSecurityPolicy: cspSchema.optional(),
  // The platform's own field: where events are delivered (see docs/platform/integrations.md).
  endpoint: z.string().max(2048, 'must be an https URL of at most 2048 characters').optional(),
});

const listQuery = z.object({
  ...pageParams,
  search: z.string().max(512).optional(),
  category: enumOf(INTEGRATION_CATEGORIES).optional(),
  blockDomain: z.string().max(100).regex(NAME_PATTERN, 'must be a domain name').optional(),
  blocks: booleanParam.optional(),
  contentSources: booleanParam.optional(),
  owner: z.string().max(100).optional(),
  scope: enumOf(INTEGRATION_SCOPES).optional(),
  target: enumOf(INTEGRATION_TARGETS).optional(),
});

// The description gives the space's list its search alone; pages as every list of the API.
const spaceListQuery = z.object({ ...pageParams, search: listQuery.shape.search });

type NameParams = { integrationName: string };
type OrgParams = { organizationId: string };
type SpaceParams = { spaceId: string };

/**
 * Integrations: the marketplace (list, read), those available to an organization or installed on a
 * space, publishing by admins of the owner organization, and the events of an integration with
 * their traces (admins of the owner organization). Their installations are served by
 * `installation-routes.ts`. See `integrations/` for the rules.
 */
export function integrationRoutes(app: FastifyInstance, options: { endpoints: EndpointPolicy }): void {
  app.get('/integrations', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { db, access, links } = request.ctx;
    return pageFromArray(listIntegrations(db, access, query), pageWindow(query), (row) =>
      integrationJson(db, row, access, links),
    );
  });

  // The integrations available to an organization, for its members (guests excluded).
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/integrations', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    return pageFromArray(organizationIntegrations(db, org.id, query), pageWindow(query), (row) =>
      integrationJson(db, row, access, links),
    );
  });

  // The integrations installed on a space, for those who can read the space.
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/integrations', async (request) => {
    const query = parseQuery(spaceListQuery, request.query);
    const { db, access, links } = request.ctx;
    const { space } = access.requireSpace(request.params.spaceId);
    return pageFromArray(installedIntegrations(db, { space }, query), pageWindow(query), (row) =>
      integrationJson(db, row, access, links),
    );
  });

  app.get<{ Params: NameParams }>('/integrations/:integrationName', async (request) => {
    const { db, access, links } = request.ctx;
    return integrationJson(db, requireIntegration(db, access, request.params.integrationName), access, links);
  });

  app.post<{ Params: NameParams }>('/integrations/:integrationName', async (request) => {
    const name = request.params.integrationName;
    if (name.length > 100 || !NAME_PATTERN.test(name)) {
      throw badRequest('Invalid path parameter "integrationName": must be 1 to 100 letters, digits, "-", "_" or "."');
    }
    const body = parseBody(publishBody, request.body);
    const { db, access, links } = request.ctx;
    const org = publishingOrganization(db, access, body.organization);
    // After the permission check: resolving the endpoint's host is work done for publishers only.
    if (body.endpoint !== undefined) {
      const problem = await options.endpoints.savedProblem(body.endpoint);
      if (problem) throw badRequest(`Invalid body field "endpoint": ${problem}`);
    }
    const { row } = publishIntegration(db, org, name, {
      runtime: body.runtime ?? 'v1',
      visibility: body.visibility ?? 'private',
      target: body.target ?? 'all',
      definition: {
        title: body.title,
        description: body.description,
        ...(body.summary !== undefined ? { summary: body.summary } : {}),
        scopes: body.scopes,
        categories: body.categories ?? [],
        ...(body.blocks ? { blocks: body.blocks } : {}),
        ...(body.contentSources ? { contentSources: body.contentSources } : {}),
        externalLinks: body.externalLinks ?? [],
        ...(body.configurations ? { configurations: body.configurations } : {}),
        ...(body.contentSecurityPolicy !== undefined
          ? { contentSecurityPolicy: body.contentSecurityPolicy as string | Record<string, string> }
          : {}),
      },
      script: body.script,
      ...(body.icon ? { icon: body.icon } : {}),
      ...(body.previewImages ? { previewImages: body.previewImages } : {}),
      ...(body.secrets ? { secrets: body.secrets } : {}),
      ...(body.endpoint !== undefined ? { endpoint: body.endpoint } : {}),
    });
    return integrationJson(db, row, access, links);
  });

  app.delete<{ Params: NameParams }>('/integrations/:integrationName', async (request, reply) => {
    const { db, access } = request.ctx;
    const row = findIntegration(db, request.params.integrationName);
    // A private integration of another organization is not there for the caller.
    if (!row || !canRead(access, row)) return sendDeleted(reply, false);
    if (!isOwnerAdmin(access, row))
      throw forbidden('Unpublishing an integration needs the admin role in the organization that owns it');
    return sendDeleted(reply, unpublishIntegration(db, row));
  });

  // ---------------------------------------------------------------------------------------------
  // Events
  // ---------------------------------------------------------------------------------------------

  /** An integration whose events the caller may read: admins of its owner organization. */
  const eventsOf = (request: FastifyRequest, name: string): IntegrationRow => {
    const { db, access } = request.ctx;
    const integration = requireIntegration(db, access, name);
    if (!isOwnerAdmin(access, integration))
      throw forbidden('Reading the events of an integration needs the admin role in the organization that owns it');
    return integration;
  };

  app.get<{ Params: NameParams }>('/integrations/:integrationName/events', async (request) => {
    const query = parseQuery(z.object(pageParams), request.query);
    const integration = eventsOf(request, request.params.integrationName);
    const window = pageWindow(query);
    const { rows, count } = eventsPage(request.ctx.db, integration.id, window);
    return pageOf(
      rows.map((row) => eventJson(request.ctx.db, row, request.ctx.links)),
      count,
      window,
    );
  });

  app.get<{ Params: NameParams & { eventId: string } }>(
    '/integrations/:integrationName/events/:eventId',
    async (request) => {
      const integration = eventsOf(request, request.params.integrationName);
      const event = findEvent(request.ctx.db, request.params.eventId);
      if (!event || event.integration_id !== integration.id) throw notFound('Integration event');
      return { event: eventJson(request.ctx.db, event, request.ctx.links), trace: traceJson(event) };
    },
  );
}

/**
 * Serves the icon and preview images of integrations at their signed URLs, without a token;
 * 403 when the URL was altered, 404 once the version is replaced or the integration is gone.
 */
export function integrationAssetRoutes(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { integrationId: string; version: string; name: string } }>(ASSET_ROUTE, async (request, reply) => {
    const query = parseQuery(z.object({ sig: z.string().optional() }), request.query);
    const signed = signedAsset(db, { ...request.params, sig: query.sig });
    if (!signed.valid)
      return reply
        .code(403)
        .send({ error: { code: 403, message: 'This image URL is not valid: ask the API for the integration again' } });
    if (!signed.asset) return reply.code(404).send({ error: { code: 404, message: 'Integration image not found' } });
    return reply
      .header('content-type', signed.asset.content_type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .send(signed.asset.bytes);
  });
}
