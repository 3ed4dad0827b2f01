import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageJson } from '../content/json.js';
import { pageIndex } from '../content/pages.js';
import { EMPTY_CONTENT } from '../content/revisions.js';
import { badRequest, notFoundInBody, parseBody, parseQuery } from '../http.js';
import { computeDocument, computePages, HTTP_METHODS, specSnapshot, type OpenAPIDocumentProps } from './computed.js';

const specDependency = z.object({
  spec: z.object({
    ref: z.strictObject({
      kind: z.literal('openapi', { message: 'must be openapi' }),
      spec: z.string().min(1, 'must be the slug of an OpenAPI specification'),
    }),
    // A resolved dependency (as generated pages carry it) is taken too; the platform resolves it again.
    value: z.unknown().optional(),
  }),
});

const revisionSource = z.object({
  type: z.literal('builtin:openapi'),
  props: z.object({
    models: z.boolean({ message: 'must be true or false' }).optional(),
    downloadLink: z.boolean({ message: 'must be true or false' }).optional(),
    grouping: z.enum(['by-tag', 'by-operation'], { message: 'must be by-tag or by-operation' }).optional(),
  }),
  dependencies: specDependency,
});

const documentProps = z.union(
  [
    z.object({ doc: z.literal('models') }),
    z.object({ doc: z.enum(['operations', 'info', 'tag']), page: z.string().min(1, 'must not be empty') }),
    z.object({
      doc: z.literal('operation'),
      page: z.string().min(1, 'must not be empty'),
      method: z.enum([...HTTP_METHODS, 'hook'], { message: `must be one of ${[...HTTP_METHODS, 'hook'].join(', ')}` }),
      deprecated: z.boolean().optional(),
    }),
  ],
  { message: 'must be { doc: models }, { doc: operations | info | tag, page } or { doc: operation, page, method }' },
);

const documentSource = z.object({
  type: z.literal('builtin:openapi'),
  props: documentProps,
  dependencies: specDependency,
});

const seed = z
  .string({ message: 'must be a string' })
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');

/** Only `builtin:openapi` sources are computed by the platform: others are named in a 400. */
function openAPIOnly(body: unknown): void {
  const type = (body as { source?: { type?: unknown } } | undefined)?.source?.type;
  if (typeof type === 'string' && type !== 'builtin:openapi') {
    throw badRequest(
      `Invalid body field "source.type": the platform computes builtin:openapi sources only, not ${JSON.stringify(type.slice(0, 100))}`,
    );
  }
}

/**
 * Computed content of a space (`POST …/content/computed/document` and `…/computed/revision`):
 * what a `builtin:openapi` source generates from the latest version of an OpenAPI
 * specification of the space's organization, for whoever can read the space. A specification
 * with no version yet generates nothing.
 */
export function computedRoutes(app: FastifyInstance): void {
  const snapshotOf = (request: FastifyRequest<{ Params: { spaceId: string } }>, slug: string) => {
    const { db, access } = request.ctx;
    const { space } = access.requireSpace(request.params.spaceId);
    const snapshot = specSnapshot(db, space.org_id, slug);
    if (snapshot === undefined)
      throw notFoundInBody('OpenAPI specification', 'source.dependencies.spec.ref.spec', slug);
    return { space, snapshot };
  };

  app.post<{ Params: { spaceId: string } }>('/spaces/:spaceId/content/computed/revision', async (request) => {
    openAPIOnly(request.body);
    const body = parseBody(z.strictObject({ source: revisionSource, seed }), request.body);
    const { space, snapshot } = snapshotOf(request, body.source.dependencies.spec.ref.spec);
    const pages = snapshot ? computePages(snapshot, body.source.props, body.seed) : [];
    const content = { ...EMPTY_CONTENT, pages };
    const index = pageIndex(content);
    const options = { spaceId: space.id, links: request.ctx.links, metadata: true };
    return {
      pages: pages.map((page) => pageJson(index.byId.get(page.id)!, index, options)),
      files: [],
      reusableContents: [],
    };
  });

  app.post<{ Params: { spaceId: string } }>('/spaces/:spaceId/content/computed/document', async (request) => {
    parseQuery(
      z.object({ schema: z.enum(['current', 'next'], { message: 'must be current or next' }).optional() }),
      request.query,
    );
    openAPIOnly(request.body);
    const body = parseBody(z.strictObject({ source: documentSource, seed }), request.body);
    const { snapshot } = snapshotOf(request, body.source.dependencies.spec.ref.spec);
    if (!snapshot) return { object: 'document', data: {}, nodes: [] };
    return computeDocument(snapshot, body.source.props as OpenAPIDocumentProps, body.seed);
  });
}
