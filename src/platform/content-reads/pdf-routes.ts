import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageIndex, type PlacedPage } from '../content/pages.js';
import type { Revision } from '../content/revisions.js';
import type { ContentRef as DocumentRef } from '../../document/model.js';
import { PdfTooLargeError, renderPdf } from '../content/pdf.js';
import { sign, verify } from '../content/signing.js';
import { getBlob } from '../content/blobs.js';
import { booleanParam, notFound, overLimit, parseQuery } from '../http.js';
import type { Db } from '../store/db.js';
import { requireChangeRequest } from '../change-requests/store.js';
import { storedContentReader } from '../content/reader.js';
import { signedViewReader } from '../sites/visitor-view.js';
import { OPEN_TO_VISITORS } from '../access.js';
import { spaceTitle } from '../spaces/store.js';

type SpaceParams = { spaceId: string };

/** How long a PDF URL works. */
export const PDF_URL_VALIDITY_MS = 60 * 60 * 1000;

/** The route of PDF exports (outside the API, without a token: the URL is signed and expires). */
export const PDF_ROUTE = '/pdf/:spaceId';

const pdfQuery = z.object({
  page: z.string().min(1, 'must be a page id').optional(),
  only: booleanParam.optional(),
  shareKey: z.string().optional(),
});

const pdfDownloadQuery = z.object({
  revision: z.string().optional(),
  view: z.string().optional(),
  page: z.string().optional(),
  only: z.string().optional(),
  expires: z.string().optional(),
  sig: z.string().optional(),
});

/** `GET /spaces/{spaceId}/pdf`: a URL, valid one hour, that serves the space (or one page) as a PDF. */
export function pdfRoutes(app: FastifyInstance): void {
  const answer = (request: FastifyRequest, params: SpaceParams & { changeRequestId?: string }) => {
    const query = parseQuery(pdfQuery, request.query);
    const { db, access, links, content } = request.ctx;
    const { space, role } = access.requireSpace(
      params.spaceId,
      query.shareKey !== undefined ? { shareKey: query.shareKey } : {},
    );
    let revisionId = space.revision;
    if (params.changeRequestId !== undefined) {
      if (role === null) throw notFound('Space');
      revisionId = requireChangeRequest(db, space.id, params.changeRequestId).revision;
    }
    if (query.page !== undefined) {
      const revision = content.revision(space.id, revisionId);
      const placed = revision && pageIndex(revision.content).byId.get(query.page);
      if (placed?.page.type !== 'document') throw notFound('Page');
    }
    const expires = String(Math.floor((Date.now() + PDF_URL_VALIDITY_MS) / 1000));
    const only = query.only ? '1' : '0';
    // A visitor's URL carries their view, signed with the rest: the PDF shows what they may read.
    const view = content.signedView;
    const parts = pdfUrlParts(space.id, revisionId, query.page ?? '', only, expires, view);
    const url = new URL(`${links.pdf}/${encodeURIComponent(space.id)}`);
    url.searchParams.set('revision', revisionId);
    if (view !== undefined) url.searchParams.set('view', view);
    if (query.page !== undefined) url.searchParams.set('page', query.page);
    url.searchParams.set('only', only);
    url.searchParams.set('expires', expires);
    url.searchParams.set('sig', sign(db, parts));
    return { url: url.href };
  };
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/pdf', OPEN_TO_VISITORS, async (request) =>
    answer(request, request.params),
  );
  app.get<{ Params: SpaceParams & { changeRequestId: string } }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/pdf',
    async (request) => answer(request, request.params),
  );
}

/** What a PDF URL's signature covers: a visitor's view (their claims) joins the parts when there is one. */
function pdfUrlParts(
  spaceId: string,
  revisionId: string,
  page: string,
  only: string,
  expires: string,
  view: string | undefined,
): string[] {
  const parts = ['pdf', spaceId, revisionId, page, only, expires];
  return view === undefined ? parts : [...parts, view];
}

/** Serves a signed PDF URL: the revision it names, rendered; 403 when it was altered or has expired. */
export function pdfDownloadRoutes(app: FastifyInstance, db: Db): void {
  app.get<{ Params: SpaceParams }>(PDF_ROUTE, async (request, reply) => {
    const query = parseQuery(pdfDownloadQuery, request.query);
    const parts = pdfUrlParts(
      request.params.spaceId,
      query.revision ?? '',
      query.page ?? '',
      query.only ?? '',
      query.expires ?? '',
      query.view,
    );
    const reader = query.view === undefined ? storedContentReader(db) : signedViewReader(db, query.view);
    if (!reader || !verify(db, parts, query.sig)) {
      return reply
        .code(403)
        .send({ error: { code: 403, message: 'This PDF URL is not valid: ask the API for a new one' } });
    }
    if (!(Number(query.expires) * 1000 > Date.now())) {
      return reply
        .code(403)
        .send({ error: { code: 403, message: 'This PDF URL has expired: ask the API for a new one' } });
    }
    const revision = reader.revision(request.params.spaceId, query.revision!);
    if (!revision) throw notFound('Revision');
    const title = spaceTitle(db, request.params.spaceId) ?? '';
    const index = pageIndex(revision.content);
    let placedPages = index.ordered.filter((placed) => placed.page.type === 'document');
    if (query.page) {
      const root = index.byId.get(query.page);
      if (!root) throw notFound('Page');
      const within = (placed: PlacedPage): boolean =>
        placed === root || (placed.parent !== undefined && within(placed.parent));
      placedPages = query.only === '1' ? [root] : placedPages.filter(within);
    }
    const rootDepth = (placed: PlacedPage) => {
      let depth = 0;
      for (let parent = placed.parent; parent; parent = parent.parent) if (parent.page.type !== 'group') depth += 1;
      return depth;
    };
    const pdf = await renderPdf(
      placedPages.map((placed) => ({
        title: placed.page.title,
        depth: rootDepth(placed),
        document: placed.page.documentId ? reader.document(revision, placed.page.documentId, placed.page) : undefined,
      })),
      {
        title: query.page && placedPages[0] ? placedPages[0].page.title : title,
        image: (ref) => {
          if (ref.kind !== 'file' || (typeof ref.space === 'string' && ref.space !== revision.spaceId))
            return undefined;
          const file = revision.content.files.find((item) => item.id === ref.file);
          return file && /^image\/(png|jpeg)$/.test(file.contentType) ? getBlob(db, file.hash) : undefined;
        },
        label: (ref) => refLabel(ref, revision),
      },
    ).catch((error: unknown) => {
      throw error instanceof PdfTooLargeError ? overLimit(error.message, error) : error;
    });
    const name = `${(query.page && placedPages[0] ? placedPages[0].page.title : title) || 'export'}.pdf`;
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`)
      .header('cache-control', 'private, max-age=3600')
      .send(pdf);
  });
}

/** The text shown for a reference in an export: a page's title, a file's name, a URL. */
function refLabel(ref: DocumentRef, revision: Revision): string {
  const pageTitle = (id: string | undefined) =>
    id === undefined ? undefined : pageIndex(revision.content).byId.get(id)?.page.title;
  switch (ref.kind) {
    case 'page':
      return pageTitle(ref.page) ?? ref.page;
    case 'anchor':
      return pageTitle(ref.page) ?? ref.anchor;
    case 'file':
      return revision.content.files.find((file) => file.id === ref.file)?.name ?? ref.file;
    case 'url':
      return ref.url;
    case 'reusable-content':
      return (
        revision.content.reusableContents.find((item) => item.id === ref.reusableContent)?.title ?? ref.reusableContent
      );
    default:
      return ref.kind;
  }
}
