import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageFromArray, pageQuery, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
import {
  checkUploadAnnounced,
  createFont,
  deleteFont,
  fontsOf,
  MAX_UPLOAD_BYTES,
  receiveUpload,
  requireFont,
  reserveUpload,
  STORAGE_KINDS,
  updateFont,
} from './store.js';
import type { Db } from '../store/db.js';
import { fontJson } from './json.js';

const fontFamily = z.string().trim().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters');
const weight = z.number().int('must be an integer').min(1, 'must be 1 to 1000').max(1000, 'must be 1 to 1000');
const storageKey = z.string().min(1, 'must be 1 to 512 characters').max(512, 'must be 1 to 512 characters');

function distinctWeights(faces: ReadonlyArray<{ weight: number }>): boolean {
  return new Set(faces.map((face) => face.weight)).size === faces.length;
}

const createBody = z.strictObject({
  fontFamily,
  fontFaces: z
    .array(z.strictObject({ weight, storageKey }))
    .min(1, 'must give at least one font face')
    .max(20, 'must give at most 20 font faces')
    .refine(distinctWeights, 'must give each weight once'),
});
const updateBody = z
  .strictObject({
    fontFamily: fontFamily.optional(),
    fontFaces: z
      .array(z.strictObject({ weight, storageKey: storageKey.nullable() }))
      .max(20, 'must give at most 20 font faces')
      .refine(distinctWeights, 'must give each weight once')
      .optional(),
  })
  .refine((body) => body.fontFamily !== undefined || body.fontFaces !== undefined, 'must set fontFamily or fontFaces');

const uploadBody = z.strictObject({
  file: z.strictObject({
    name: z.string().trim().min(1, 'must be 1 to 255 characters').max(255, 'must be 1 to 255 characters'),
    type: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'must be a MIME type such as font/woff2'),
    size: z
      .number()
      .int('must be a whole number of bytes')
      .min(1, `must be 1 to ${MAX_UPLOAD_BYTES} bytes`)
      .max(MAX_UPLOAD_BYTES, `must be 1 to ${MAX_UPLOAD_BYTES} bytes`),
  }),
  kind: z.enum(STORAGE_KINDS, { message: `must be one of ${STORAGE_KINDS.join(', ')}` }),
});

type OrgParams = { organizationId: string };
type FontParams = OrgParams & { fontId: string };

/** Custom fonts (members read, admins write) and the upload URLs their files go through. */
export function fontRoutes(app: FastifyInstance): void {
  app.post<{ Params: OrgParams }>('/orgs/:organizationId/storage/upload', async (request, reply) => {
    const body = parseBody(uploadBody, request.body);
    const { db, access, links } = request.ctx;
    // Fonts are an admin's, imports a creator's; any other file needs an editor.
    const org = access.requireOrg(
      request.params.organizationId,
      body.kind === 'customization_font' ? 'admin' : body.kind === 'import_file' ? 'create' : 'edit',
    );
    return reply
      .code(201)
      .send(reserveUpload(db, org.id, new URL(links.api).origin, { ...body.file, kind: body.kind }));
  });

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/fonts', async (request) => {
    const query = parseQuery(pageQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const canEdit = access.orgRole(org.id) === 'admin';
    return pageFromArray(fontsOf(db, org.id), pageWindow(query), (row) => fontJson(db, row, links, canEdit));
  });

  app.put<{ Params: OrgParams }>('/orgs/:organizationId/fonts', async (request, reply) => {
    const body = parseBody(createBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return reply.code(201).send(fontJson(db, createFont(db, org.id, body.fontFamily, body.fontFaces), links, true));
  });

  app.get<{ Params: FontParams }>('/orgs/:organizationId/fonts/:fontId', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    return fontJson(db, requireFont(db, org.id, request.params.fontId), links, access.orgRole(org.id) === 'admin');
  });

  app.post<{ Params: FontParams }>('/orgs/:organizationId/fonts/:fontId', async (request, reply) => {
    const body = parseBody(updateBody, request.body);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const font = requireFont(db, org.id, request.params.fontId);
    return reply.code(201).send(fontJson(db, updateFont(db, font, body), links, true));
  });

  app.delete<{ Params: FontParams }>('/orgs/:organizationId/fonts/:fontId', async (request, reply) => {
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return sendDeleted(reply, deleteFont(db, org.id, request.params.fontId));
  });
}

export const UPLOAD_ROUTE = '/storage/upload';

/**
 * Where upload URLs point: `PUT` the file's bytes, whatever their type, with no API token (the
 * signed URL is the permission). Outside `/v1`, like signed downloads.
 */
export function uploadRoutes(app: FastifyInstance, db: Db): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) =>
      done(null, body),
    );
    scope.put<{ Querystring: Record<string, string | undefined> }>(
      UPLOAD_ROUTE,
      {
        bodyLimit: MAX_UPLOAD_BYTES,
        // Before the body is read: a URL that takes nothing, or more bytes than announced, is refused unread.
        preParsing: async (request, _reply, payload) => {
          const length = request.headers['content-length'];
          checkUploadAnnounced(
            db,
            request.query as Record<string, string | undefined>,
            length === undefined ? undefined : Number(length),
          );
          return payload;
        },
      },
      async (request, reply) => {
        const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        receiveUpload(db, request.query, body);
        return reply.code(200).send({ object: 'storage-file', key: request.query.key, size: body.length });
      },
    );
  });
}
