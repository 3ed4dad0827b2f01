import type { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import type { Query } from './client.js';
import * as op from './contract/operations.js';
import { answering } from './answers.js';
import { type Filters, listOf } from './operation.js';
import { type AnswerOf, answerOf, type Operation, type ParamsOf, pathOf } from './record.js';
import { signedPdf } from './change-requests.js';
import { UpstreamContractError } from '../errors.js';
import type {
  JSONDocument,
  RevisionPageBase,
  RevisionPageComputed,
  RevisionPageDocument,
  RevisionPageGroup,
  RevisionPageLink,
} from './contract/types.js';

/** The fields of every member of a union, each optional unless all members have it. */
type Flat<U> = Pick<U, keyof U> & {
  [K in U extends unknown ? keyof U : never]?: U extends unknown ? (K extends keyof U ? U[K] : never) : never;
};

/**
 * A page of any type (`RevisionPage` is a union by `type`), read as one object: what the schema
 * modules resolve fields from, a field of another type being absent.
 */
export type PageOfAnyType = Flat<
  | Pick<
      RevisionPageDocument,
      | keyof RevisionPageBase
      | 'type'
      | 'urls'
      | 'slug'
      | 'path'
      | 'description'
      | 'git'
      | 'layout'
      | 'cover'
      | 'variables'
      | 'hidden'
      | 'noIndex'
      | 'noRobotsIndex'
      | 'metaLinks'
    >
  | Omit<RevisionPageGroup, 'pages' | 'kind'>
  | Omit<RevisionPageLink, 'kind'>
  | Omit<RevisionPageComputed, 'computed'>
> & {
  pages?: PageOfAnyType[] | undefined;
  /** A document page's markdown, when it was read with `format: markdown`. */
  markdown?: string | undefined;
  documentId?: string | null | undefined;
  /** The source of a computed page's pages, or of a generated document page's document. */
  computed?: Record<string, unknown> | undefined;
  computedSeed?: string | undefined;
};

/**
 * Where content is read: the content of a change request, the current content of a space, or a
 * revision by id (`id`, needed only then). A revision the gateway holds is its own address.
 */
export interface ContentAddress {
  spaceId: string;
  id?: string | undefined;
  current?: boolean | undefined;
  changeRequest?: string | null | undefined;
}

/** The records of one read in each place content is read (`inRevision` missing where the API has none). */
interface Places<C extends Operation, S extends Operation, R extends Operation> {
  inChangeRequest: C;
  current: S;
  inRevision?: R;
}

/** The record of a read at `at`, and its path parameters with `params` beside those of the place. */
function placed<C extends Operation, S extends Operation, R extends Operation = never>(
  at: ContentAddress,
  places: Places<C, S, R>,
  params: Record<string, string> = {},
): { operation: C | S | R; params: never } {
  if (at.changeRequest)
    return {
      operation: places.inChangeRequest,
      params: { spaceId: at.spaceId, changeRequestId: at.changeRequest, ...params } as never,
    };
  if (at.current) return { operation: places.current, params: { spaceId: at.spaceId, ...params } as never };
  if (at.id === undefined) throw new Error('A revision is read by its id');
  if (!places.inRevision) throw new Error(`${places.current.operationId} is not read in a revision`);
  return { operation: places.inRevision, params: { spaceId: at.spaceId, revisionId: at.id, ...params } as never };
}

/** Reads the record of `places` that fits `at`. */
function readAt<C extends Operation, S extends Operation, R extends Operation = never>(
  api: ReadApi,
  at: ContentAddress,
  places: Places<C, S, R>,
  params?: Record<string, string>,
  query?: Query,
): Promise<AnswerOf<C> | AnswerOf<S> | AnswerOf<R>> {
  const { operation, params: filled } = placed(at, places, params);
  return api.read(operation, filled, query as never) as Promise<never>;
}

const PAGE_BY_ID = {
  inChangeRequest: op.getPageInChangeRequestById,
  current: op.getPageById,
  inRevision: op.getPageInRevisionById,
};
const PAGE_BY_PATH = {
  inChangeRequest: op.getPageInChangeRequestByPath,
  current: op.getPageByPath,
  inRevision: op.getPageInRevisionByPath,
};
// The landing page has the empty path: no {pagePath} segment is left (see the overlay).
const LANDING_PAGE = {
  inChangeRequest: op.getLandingPageInChangeRequest,
  current: op.getLandingPage,
  inRevision: op.getLandingPageInRevision,
};

/** A page by its id or by its path in the content (`getting-started/install`; empty for the landing page). */
const readPage = (
  api: ReadApi,
  at: ContentAddress,
  page: { pageId: string } | { pathname: string },
  query?: Query,
): Promise<PageOfAnyType> =>
  'pageId' in page
    ? readAt(api, at, PAGE_BY_ID, { pageId: page.pageId }, query)
    : page.pathname === ''
      ? readAt(api, at, LANDING_PAGE, {}, query)
      : readAt(api, at, PAGE_BY_PATH, { pagePath: page.pathname }, query);

/**
 * A document read with its text kept beside it (see `bodySource`): a worker thread converts it
 * from its text, and its nodes are passed on whole (the contract reads them opaquely).
 */
const readDocument = <O extends Operation>(api: RequestApi, operation: O, params: ParamsOf<O>, query?: Query) =>
  api.get(pathOf(operation, params), answerOf(operation)!, query, {
    keepText: true,
    operation,
  }) as Promise<JSONDocument>;

// --- Revisions ---------------------------------------------------------------------------------

/** `GET /spaces/{spaceId}/revisions/{revisionId}`, or the content of a change request, or the current content. */
export const getRevision = (api: RequestApi, at: ContentAddress) =>
  readAt(api, at, {
    inChangeRequest: op.getRevisionOfChangeRequestById,
    current: op.getCurrentRevision,
    inRevision: op.getRevisionById,
  });

/** `GET …/pages`: the page tree of some content, without its files and reusable contents. */
export const getPageTree = (api: RequestApi, at: ContentAddress) =>
  readAt(api, at, {
    inChangeRequest: op.listPagesInChangeRequest,
    current: op.listPages,
    inRevision: op.listPagesInRevisionById,
  });

/** `GET /spaces/{spaceId}/revisions/{revisionId}/changes`: what a revision changed, at most `limit` items. */
export const getRevisionChanges = (api: RequestApi, spaceId: string, revisionId: string, limit: number) =>
  api.read(op.getRevisionSemanticChanges, { spaceId, revisionId }, { limit });

// --- Pages and documents -----------------------------------------------------------------------

/** `GET …/page/{pageId}` */
export const getPage = (api: RequestApi, at: ContentAddress, pageId: string) => readPage(api, at, { pageId });

/** `GET …/path/{pagePath}` */
export const getPageByPath = (api: RequestApi, at: ContentAddress, pathname: string) => readPage(api, at, { pathname });

/**
 * A page as a published URL shows it, by id or by path (`{ pageId }` or `{ pathname }`), with its
 * markdown when `format` is `markdown`; read by a visitor (`api` may be `RequestApi.as(token)`).
 */
export const getShownPage = (
  api: ReadApi,
  at: ContentAddress,
  page: { pageId: string } | { pathname: string },
  query: { format: 'markdown' } | undefined,
) => readPage(api, at, page, query);

/** `GET …/page/{pageId}?format=markdown`: the page's own markdown (title, front matter, relative links). */
export const getPageMarkdown = async (api: RequestApi, at: ContentAddress, pageId: string) => {
  const page = await readPage(api, at, { pageId }, { format: 'markdown' });
  // The record's page may come without a body; asked for its markdown, a page must answer it.
  if (typeof page.markdown !== 'string')
    throw new UpstreamContractError(`${op.getPageById.operationId} answered a page without its markdown`, 'markdown');
  return { id: page.id, markdown: page.markdown };
};

/**
 * `GET /spaces/{spaceId}/documents/{documentId}`: documents are stored by content, so one id names
 * one document. Read as text, a large one left unparsed (see `UnparsedBody`).
 */
export const getDocument = (api: RequestApi, spaceId: string, documentId: string) =>
  api.getText(
    pathOf(op.getDocumentById, { spaceId, documentId }),
    answerOf(op.getDocumentById) as z.ZodType<JSONDocument>,
    undefined,
    op.getDocumentById,
  );

/** `GET /spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document`, its expressions evaluated when asked. */
export const getPageDocument = (
  api: RequestApi,
  page: { spaceId: string; revisionId: string; id: string },
  query?: Filters<'evaluated'>,
) =>
  readDocument(
    api,
    op.getPageDocumentInRevisionById,
    { spaceId: page.spaceId, revisionId: page.revisionId, pageId: page.id },
    query,
  );

// --- Files and reusable contents ---------------------------------------------------------------

/** `GET …/files`, in order. */
export const listFiles = (api: RequestApi, at: ContentAddress) => {
  const { operation, params } = placed(at, {
    inChangeRequest: op.listFilesInChangeRequestById,
    current: op.listFiles,
    inRevision: op.listFilesInRevisionById,
  });
  return listOf(api, operation, params);
};

/** `GET …/files/{fileId}` */
export const getFile = (api: RequestApi, at: ContentAddress, fileId: string) =>
  readAt(
    api,
    at,
    { inChangeRequest: op.getFileInChangeRequestById, current: op.getFileById, inRevision: op.getFileInRevisionById },
    { fileId },
  );

/** `GET …/reusable-contents/{reusableContentId}` */
export const getReusableContent = (api: RequestApi, at: ContentAddress, reusableContentId: string) =>
  readAt(
    api,
    at,
    {
      inChangeRequest: op.getReusableContentInChangeRequestById,
      current: op.getReusableContentById,
      inRevision: op.getReusableContentInRevisionById,
    },
    { reusableContentId },
  );

/** `GET /spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document` */
export const getReusableContentDocument = (
  api: RequestApi,
  item: { spaceId: string; revisionId: string; id: string },
) =>
  readDocument(api, op.getReusableContentDocumentInRevisionById, {
    spaceId: item.spaceId,
    revisionId: item.revisionId,
    reusableContentId: item.id,
  });

// --- Links -------------------------------------------------------------------------------------

/** What a link report or a list of backlinks is about: a whole space, a page or a file. */
export type LinkSubject = { space: true } | { pageId: string } | { fileId: string };

/** `GET /spaces/{spaceId}/links` or `GET …/page/{pageId}/links`: one page of a link report, with its stats. */
export const readLinkReport = (
  api: RequestApi,
  at: ContentAddress,
  subject: { space: true } | { pageId: string },
  // `status` is the platform's filter of a report; neither the description nor the API documentation lists it.
  query: { status: string | undefined; page: string | undefined; limit: number },
) =>
  'space' in subject
    ? api.read(op.listSpaceLinks, { spaceId: at.spaceId }, query as never)
    : readAt(
        api,
        at,
        { inChangeRequest: op.listPageLinksInChangeRequest, current: op.listPageLinks },
        { pageId: subject.pageId },
        query,
      );

/** `GET …/page/{pageId}/backlinks` or `…/files/{fileId}/backlinks`: one page of the pages linking to it. */
export const readBacklinks = (
  api: RequestApi,
  at: ContentAddress,
  subject: { pageId: string } | { fileId: string },
  query: { page: string | undefined; limit: number },
) =>
  'pageId' in subject
    ? readAt(
        api,
        at,
        { inChangeRequest: op.listPageBacklinksInChangeRequest, current: op.listPageBacklinks },
        { pageId: subject.pageId },
        query,
      )
    : readAt(
        api,
        at,
        { inChangeRequest: op.listFileBacklinksInChangeRequest, current: op.listFileBacklinks },
        { fileId: subject.fileId },
        query,
      );

/** `GET …/page/{pageId}/meta-links`: the canonical and alternate links of a page. */
export const getPageMetaLinks = (api: RequestApi, at: ContentAddress, pageId: string) =>
  readAt(
    api,
    at,
    {
      inChangeRequest: op.listChangeRequestPageMetaLinks,
      current: op.listSpacePageMetaLinks,
      inRevision: op.listRevisionPageMetaLinks,
    },
    { pageId },
  );

// --- Search, PDF, templates --------------------------------------------------------------------

/** `GET /spaces/{spaceId}/search`: pages of the current content, ranked, with excerpts. */
export const searchSpace = (api: RequestApi, spaceId: string, query: string) =>
  listOf(api, op.searchSpaceContent, { spaceId }, { query });

/** `GET /orgs/{organizationId}/search`: spaces of the organization, best first, with their matching pages. */
export const searchOrganization = (api: RequestApi, organizationId: string, query: string) =>
  listOf(api, op.searchOrganizationContent, { organizationId }, { query });

const getPdf = answering(op.getSpacePDF, signedPdf);

/** `GET /spaces/{spaceId}/pdf`: a URL of a PDF of the current content or of one page. */
export const getSpacePdf = (api: RequestApi, spaceId: string, query: Filters<'page' | 'only'>) =>
  api.read(getPdf, { spaceId }, query as never) as Promise<{ url: string }>;

/** `POST /spaces/{spaceId}/content/template` (no body answered): applies a template, live or to a change request. */
export const applyTemplate = (api: RequestApi, spaceId: string, body: object) =>
  api.write(op.applyTemplateToSpace, { spaceId }, { body });
