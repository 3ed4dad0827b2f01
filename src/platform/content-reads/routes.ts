import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { pageIndex } from '../content/pages.js';
import { EMPTY_CONTENT } from '../content/revisions.js';
import { signedDownload } from '../content/files.js';
import { notFound, parseQuery } from '../http.js';
import type { Db } from '../store/db.js';
import { baseRevision, requireChangeRequest } from '../change-requests/store.js';
import { OPEN_TO_VISITORS } from '../access.js';
import {
  backlinkList,
  byId,
  byPath,
  changesAnswer,
  dereference,
  documentOfPage,
  documentQuery,
  EMPTY_DOCUMENT,
  evaluatedFor,
  fileAnswer,
  filesAnswer,
  linkReport,
  metaLinks,
  pageAnswer,
  pagesAnswer,
  reusableAnswer,
  reusableOf,
  revisionAnswer,
  revisionOf,
  type RevisionPageParams,
  type SpaceParams,
  changesQuery,
  type PageParams,
  type RevisionParams,
} from './answers.js';

/** Types a download shows inline; everything else is an attachment. */
const INLINE_TYPES = /^(image\/(png|jpeg|gif|webp|avif|svg\+xml)|application\/pdf)$/i;

const downloadQuery = z.object({ type: z.string().optional(), sig: z.string().optional() });

/**
 * Space content: the current revision and revisions by id, their pages (tree, by id, by path),
 * page documents and meta links, documents by id. Readable by whoever can read the space
 * (a `share-link` space with its `shareKey`).
 */
export function contentRoutes(app: FastifyInstance): void {
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/content', OPEN_TO_VISITORS, async (request) =>
    revisionAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams }>('/spaces/:spaceId/revisions/:revisionId', OPEN_TO_VISITORS, async (request) =>
    revisionAnswer(request, request.params),
  );
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/content/pages', OPEN_TO_VISITORS, async (request) =>
    pagesAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams }>(
    '/spaces/:spaceId/revisions/:revisionId/pages',
    OPEN_TO_VISITORS,
    async (request) => pagesAnswer(request, request.params),
  );
  app.get<{ Params: PageParams }>('/spaces/:spaceId/content/page/:pageId', OPEN_TO_VISITORS, async (request) =>
    pageAnswer(request, request.params, byId(request.params.pageId)),
  );
  app.get<{ Params: RevisionPageParams }>(
    '/spaces/:spaceId/revisions/:revisionId/page/:pageId',
    OPEN_TO_VISITORS,
    async (request) => pageAnswer(request, request.params, byId(request.params.pageId)),
  );
  app.get<{ Params: SpaceParams & { '*': string } }>(
    '/spaces/:spaceId/content/path/*',
    OPEN_TO_VISITORS,
    async (request) => pageAnswer(request, request.params, byPath(request.params['*'])),
  );
  app.get<{ Params: RevisionParams & { '*': string } }>(
    '/spaces/:spaceId/revisions/:revisionId/path/*',
    OPEN_TO_VISITORS,
    async (request) => pageAnswer(request, request.params, byPath(request.params['*'])),
  );
  // The landing page by its empty path: with trailing slashes ignored, `…/path/` has no segment left.
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/content/path', OPEN_TO_VISITORS, async (request) =>
    pageAnswer(request, request.params, byPath('')),
  );
  app.get<{ Params: RevisionParams }>(
    '/spaces/:spaceId/revisions/:revisionId/path',
    OPEN_TO_VISITORS,
    async (request) => pageAnswer(request, request.params, byPath('')),
  );
  app.get<{ Params: RevisionPageParams }>(
    '/spaces/:spaceId/revisions/:revisionId/page/:pageId/document',
    OPEN_TO_VISITORS,
    async (request) => documentOfPage(request, request.params),
  );
  app.get<{ Params: PageParams }>(
    '/spaces/:spaceId/content/page/:pageId/meta-links',
    OPEN_TO_VISITORS,
    async (request) => metaLinks(request, request.params),
  );
  app.get<{ Params: RevisionPageParams }>(
    '/spaces/:spaceId/revisions/:revisionId/page/:pageId/meta-links',
    OPEN_TO_VISITORS,
    async (request) => metaLinks(request, request.params),
  );
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/content/files', OPEN_TO_VISITORS, async (request) =>
    filesAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams }>(
    '/spaces/:spaceId/revisions/:revisionId/files',
    OPEN_TO_VISITORS,
    async (request) => filesAnswer(request, request.params),
  );
  app.get<{ Params: SpaceParams & { fileId: string } }>(
    '/spaces/:spaceId/content/files/:fileId',
    OPEN_TO_VISITORS,
    async (request) => fileAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams & { fileId: string } }>(
    '/spaces/:spaceId/revisions/:revisionId/files/:fileId',
    OPEN_TO_VISITORS,
    async (request) => fileAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams }>(
    '/spaces/:spaceId/revisions/:revisionId/changes',
    OPEN_TO_VISITORS,
    async (request) => {
      const query = parseQuery(changesQuery, request.query);
      // Changes are between stored revisions: computed pages compare as the pages they are.
      const { revision } = revisionOf(request, request.params, query.shareKey, false);
      const parentId = revision.parents[0];
      const parent = parentId ? request.ctx.content.revision(revision.spaceId, parentId) : undefined;
      return changesAnswer(request, parent?.content ?? EMPTY_CONTENT, revision.content, query.limit ?? 10);
    },
  );

  // A change request's changes: from the live revision it is based on to its content.
  app.get<{ Params: SpaceParams & { changeRequestId: string } }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/changes',
    async (request) => {
      const query = parseQuery(changesQuery, request.query);
      const { space, revision } = revisionOf(request, request.params, undefined, false);
      const changeRequest = requireChangeRequest(request.ctx.db, space.id, request.params.changeRequestId);
      const base = request.ctx.content.revision(space.id, baseRevision(changeRequest));
      return changesAnswer(request, base?.content ?? EMPTY_CONTENT, revision.content, query.limit ?? 10);
    },
  );
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/links', OPEN_TO_VISITORS, async (request) =>
    linkReport(request, request.params),
  );
  app.get<{ Params: PageParams }>('/spaces/:spaceId/content/page/:pageId/links', OPEN_TO_VISITORS, async (request) =>
    linkReport(request, request.params),
  );
  app.get<{ Params: PageParams }>(
    '/spaces/:spaceId/content/page/:pageId/backlinks',
    OPEN_TO_VISITORS,
    async (request) =>
      backlinkList(request, request.params, (revision) => {
        const placed = pageIndex(revision.content).byId.get(request.params.pageId);
        if (!placed) throw notFound('Page');
        return { page: placed.page.id };
      }),
  );
  app.get<{ Params: SpaceParams & { fileId: string } }>(
    '/spaces/:spaceId/content/files/:fileId/backlinks',
    OPEN_TO_VISITORS,
    async (request) =>
      backlinkList(request, request.params, (revision) => {
        const file = revision.content.files.find((item) => item.id === request.params.fileId);
        if (!file) throw notFound('File');
        return { file };
      }),
  );
  // The same reads on the content of a change request.
  const CR = '/spaces/:spaceId/change-requests/:changeRequestId/content';
  type CrParams = SpaceParams & { changeRequestId: string };
  app.get<{ Params: CrParams }>(CR, async (request) => revisionAnswer(request, request.params));
  app.get<{ Params: CrParams }>(`${CR}/pages`, async (request) => pagesAnswer(request, request.params));
  app.get<{ Params: CrParams }>(`${CR}/files`, async (request) => filesAnswer(request, request.params));
  app.get<{ Params: CrParams & { fileId: string } }>(`${CR}/files/:fileId`, async (request) =>
    fileAnswer(request, request.params),
  );
  app.get<{ Params: CrParams & { fileId: string } }>(`${CR}/files/:fileId/backlinks`, async (request) =>
    backlinkList(request, request.params, (revision) => {
      const file = revision.content.files.find((item) => item.id === request.params.fileId);
      if (!file) throw notFound('File');
      return { file };
    }),
  );
  app.get<{ Params: CrParams & { pageId: string } }>(`${CR}/page/:pageId`, async (request) =>
    pageAnswer(request, request.params, byId(request.params.pageId)),
  );
  app.get<{ Params: CrParams & { pageId: string } }>(`${CR}/page/:pageId/links`, async (request) =>
    linkReport(request, request.params),
  );
  app.get<{ Params: CrParams & { pageId: string } }>(`${CR}/page/:pageId/backlinks`, async (request) =>
    backlinkList(request, request.params, (revision) => {
      const placed = pageIndex(revision.content).byId.get(request.params.pageId);
      if (!placed) throw notFound('Page');
      return { page: placed.page.id };
    }),
  );
  app.get<{ Params: CrParams & { pageId: string } }>(`${CR}/page/:pageId/meta-links`, async (request) =>
    metaLinks(request, request.params),
  );
  app.get<{ Params: CrParams & { '*': string } }>(`${CR}/path/*`, async (request) =>
    pageAnswer(request, request.params, byPath(request.params['*'])),
  );
  app.get<{ Params: CrParams }>(`${CR}/path`, async (request) => pageAnswer(request, request.params, byPath('')));

  type ReusableParams = SpaceParams & { reusableContentId: string };
  app.get<{ Params: ReusableParams }>(
    '/spaces/:spaceId/content/reusable-contents/:reusableContentId',
    OPEN_TO_VISITORS,
    async (request) => reusableAnswer(request, request.params),
  );
  app.get<{ Params: CrParams & { reusableContentId: string } }>(
    `${CR}/reusable-contents/:reusableContentId`,
    async (request) => reusableAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams & { reusableContentId: string } }>(
    '/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId',
    OPEN_TO_VISITORS,
    async (request) => reusableAnswer(request, request.params),
  );
  app.get<{ Params: RevisionParams & { reusableContentId: string } }>(
    '/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId/document',
    OPEN_TO_VISITORS,
    async (request) => {
      const query = parseQuery(documentQuery, request.query);
      const { space, revision, reusable } = reusableOf(request, request.params, query.shareKey);
      if (!reusable.documentId) return EMPTY_DOCUMENT;
      const document = request.ctx.content.document(revision, reusable.documentId);
      if (!document) throw new Error(`Document ${reusable.documentId} of reusable content ${reusable.id} is missing`);
      return evaluatedFor(
        request,
        dereference(request, space, revision, document, query.dereferenced),
        query.evaluated,
        revision,
      );
    },
  );
  app.get<{ Params: SpaceParams & { documentId: string } }>(
    '/spaces/:spaceId/documents/:documentId',
    OPEN_TO_VISITORS,
    async (request, reply) => {
      const query = parseQuery(documentQuery, request.query);
      const { access, content } = request.ctx;
      const { space } = access.requireSpace(
        request.params.spaceId,
        query.shareKey !== undefined ? { shareKey: query.shareKey } : {},
      );
      // Documents are read as of the current revision: a visitor reads those of their view only.
      const current = content.revision(space.id, space.revision);
      if (!current) throw notFound('Document');
      // As stored, the text is the answer: a 1 MB document is not parsed to be serialized again.
      const stored = content.storedText(current, request.params.documentId);
      if (stored) return reply.type('application/json; charset=utf-8').send(stored);
      const document = content.document(current, request.params.documentId);
      if (!document) throw notFound('Document');
      return document;
    },
  );
}

/** The route of file downloads (outside the API, without a token: the URL is signed). */
export const DOWNLOAD_ROUTE = '/files/:hash/:name';

/** Serves the bytes of a signed download URL (`downloadURL` of a file); 403 when the URL was altered. */
export function downloadRoutes(app: FastifyInstance, db: Db): void {
  app.get<{ Params: { hash: string; name: string } }>(DOWNLOAD_ROUTE, async (request, reply) => {
    const query = parseQuery(downloadQuery, request.query);
    const bytes = signedDownload(db, { ...request.params, type: query.type, sig: query.sig });
    if (!bytes) {
      return reply
        .code(403)
        .send({ error: { code: 403, message: 'This download URL is not valid: ask the API for the file again' } });
    }
    // Fonts are loaded across origins by the sites that use them (CSS `@font-face` needs CORS).
    if (query.type!.startsWith('font/')) reply.header('access-control-allow-origin', '*');
    return (
      reply
        .header('content-type', query.type!)
        .header('cache-control', 'public, max-age=31536000, immutable')
        // Uploaded bytes never run as a page of the platform: only images and PDFs are shown inline.
        .header(
          'content-disposition',
          `${INLINE_TYPES.test(query.type!) ? 'inline' : 'attachment'}; filename*=UTF-8''${encodeURIComponent(request.params.name)}`,
        )
        .header('x-content-type-options', 'nosniff')
        .header(
          'content-security-policy',
          "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox",
        )
        .send(bytes)
    );
  });
}
