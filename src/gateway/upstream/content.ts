import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages } from './operation.js';
import {
  backlinksPage,
  jsonDocument,
  linkReportPage,
  markdownPage,
  pageMetaLinks,
  pdfExport,
  reusableContent,
  revision,
  revisionFile,
  revisionPage,
  revisionPages,
  searchPageResult,
  searchSpaceResult,
  semanticChanges,
} from './shapes/content.js';

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

/** The REST path of some content, or of something in it (`suffix`, starting with `/`). */
function contentPath(at: ContentAddress, suffix = ''): string {
  if (at.changeRequest) return route`/spaces/${at.spaceId}/change-requests/${at.changeRequest}/content` + suffix;
  if (at.current) return route`/spaces/${at.spaceId}/content` + suffix;
  if (at.id === undefined) throw new Error('A revision is read by its id');
  return route`/spaces/${at.spaceId}/revisions/${at.id}` + suffix;
}

/** The path of a page by its path in the content (`getting-started/install`; empty for the landing page). */
function pagePath(pathname: string): string {
  return pathname === '' ? '/path' : `/path/${pathname.split('/').map(encodeURIComponent).join('/')}`;
}

// --- Revisions ---------------------------------------------------------------------------------

/** `GET /spaces/{spaceId}/revisions/{revisionId}`, or the content of a change request, or the current content. */
export const getRevision = (api: RequestApi, at: ContentAddress) => api.get(contentPath(at), revision);

/** `GET …/pages`: the page tree of some content, without its files and reusable contents. */
export const getPageTree = (api: RequestApi, at: ContentAddress) => api.get(contentPath(at, '/pages'), revisionPages);

/** `GET /spaces/{spaceId}/revisions/{revisionId}/changes`: what a revision changed, at most `limit` items. */
export const getRevisionChanges = (api: RequestApi, spaceId: string, revisionId: string, limit: number) =>
  api.get(route`/spaces/${spaceId}/revisions/${revisionId}/changes`, semanticChanges, { limit });

// --- Pages and documents -----------------------------------------------------------------------

/** A page with its markdown, when it was read with `format: 'markdown'`. */
const pageWithMarkdown = revisionPage.and(z.object({ markdown: z.string().optional() }));

/** `GET …/page/{pageId}` */
export const getPage = (api: RequestApi, at: ContentAddress, pageId: string) =>
  api.get(contentPath(at, route`/page/${pageId}`), revisionPage);

/** `GET …/path/{pagePath}` */
export const getPageByPath = (api: RequestApi, at: ContentAddress, pathname: string) =>
  api.get(contentPath(at, pagePath(pathname)), revisionPage);

/**
 * A page as a published URL shows it, by id or by path (`{ pageId }` or `{ pathname }`), with its
 * markdown when `format` is `markdown`; read by a visitor (`api` may be `RequestApi.as(token)`).
 */
export const getShownPage = (
  api: ReadApi,
  at: ContentAddress,
  page: { pageId: string } | { pathname: string },
  query: { format: 'markdown' } | undefined,
) =>
  api.get(
    contentPath(at, 'pageId' in page ? route`/page/${page.pageId}` : pagePath(page.pathname)),
    pageWithMarkdown,
    query,
  );

/** `GET …/page/{pageId}?format=markdown`: the page's own markdown (title, front matter, relative links). */
export const getPageMarkdown = (api: RequestApi, at: ContentAddress, pageId: string) =>
  api.get(contentPath(at, route`/page/${pageId}`), markdownPage, { format: 'markdown' });

/**
 * `GET /spaces/{spaceId}/documents/{documentId}`: documents are stored by content, so one id names
 * one document. Read as text, a large one left unparsed (see `UnparsedBody`).
 */
export const getDocument = (api: RequestApi, spaceId: string, documentId: string) =>
  api.getText(route`/spaces/${spaceId}/documents/${documentId}`, jsonDocument);

/** `GET /spaces/{spaceId}/revisions/{revisionId}/page/{pageId}/document`, its expressions evaluated when asked. */
export const getPageDocument = (
  api: RequestApi,
  page: { spaceId: string; revisionId: string; id: string },
  query?: Filters<'evaluated'>,
) =>
  api.get(route`/spaces/${page.spaceId}/revisions/${page.revisionId}/page/${page.id}/document`, jsonDocument, query, {
    keepText: true,
  });

// --- Files and reusable contents ---------------------------------------------------------------

/** `GET …/files`, in order. */
export const listFiles = (api: RequestApi, at: ContentAddress) =>
  restPages(api, contentPath(at, '/files'), revisionFile);

/** `GET …/files/{fileId}` */
export const getFile = (api: RequestApi, at: ContentAddress, fileId: string) =>
  api.get(contentPath(at, route`/files/${fileId}`), revisionFile);

/** `GET …/reusable-contents/{reusableContentId}` */
export const getReusableContent = (api: RequestApi, at: ContentAddress, reusableContentId: string) =>
  api.get(contentPath(at, route`/reusable-contents/${reusableContentId}`), reusableContent);

/** `GET /spaces/{spaceId}/revisions/{revisionId}/reusable-contents/{reusableContentId}/document` */
export const getReusableContentDocument = (
  api: RequestApi,
  item: { spaceId: string; revisionId: string; id: string },
) =>
  api.get(
    route`/spaces/${item.spaceId}/revisions/${item.revisionId}/reusable-contents/${item.id}/document`,
    jsonDocument,
    undefined,
    { keepText: true },
  );

// --- Links -------------------------------------------------------------------------------------

/** What a link report or a list of backlinks is about: a whole space, a page or a file. */
export type LinkSubject = { space: true } | { pageId: string } | { fileId: string };

/** The path of a link report (`links`) or of backlinks in the current content or a change request's. */
function linksPath(at: ContentAddress, subject: LinkSubject, list: 'links' | 'backlinks'): string {
  if ('space' in subject) return route`/spaces/${at.spaceId}/links`;
  const of = 'pageId' in subject ? route`/page/${subject.pageId}` : route`/files/${subject.fileId}`;
  return contentPath(at, `${of}/${list}`);
}

/** `GET /spaces/{spaceId}/links` or `GET …/page/{pageId}/links`: one page of a link report, with its stats. */
export const readLinkReport = (
  api: RequestApi,
  at: ContentAddress,
  subject: { space: true } | { pageId: string },
  query: { status: string | undefined; page: string | undefined; limit: number },
) => api.get(linksPath(at, subject, 'links'), linkReportPage, query);

/** `GET …/page/{pageId}/backlinks` or `…/files/{fileId}/backlinks`: one page of the pages linking to it. */
export const readBacklinks = (
  api: RequestApi,
  at: ContentAddress,
  subject: { pageId: string } | { fileId: string },
  query: { page: string | undefined; limit: number },
) => api.get(linksPath(at, subject, 'backlinks'), backlinksPage, query);

/** `GET …/page/{pageId}/meta-links`: the canonical and alternate links of a page. */
export const getPageMetaLinks = (api: RequestApi, at: ContentAddress, pageId: string) =>
  api.get(contentPath(at, route`/page/${pageId}/meta-links`), pageMetaLinks);

// --- Search, PDF, templates --------------------------------------------------------------------

/** `GET /spaces/{spaceId}/search`: pages of the current content, ranked, with excerpts. */
export const searchSpace = (api: RequestApi, spaceId: string, query: string) =>
  restPages(api, route`/spaces/${spaceId}/search`, searchPageResult, { query });

/** `GET /orgs/{organizationId}/search`: spaces of the organization, best first, with their matching pages. */
export const searchOrganization = (api: RequestApi, organizationId: string, query: string) =>
  restPages(api, route`/orgs/${organizationId}/search`, searchSpaceResult, { query });

/** `GET /spaces/{spaceId}/pdf`: a URL of a PDF of the current content or of one page. */
export const getSpacePdf = (api: RequestApi, spaceId: string, query: Filters<'page' | 'only'>) =>
  api.get(route`/spaces/${spaceId}/pdf`, pdfExport, query);

/** `POST /spaces/{spaceId}/content/template` (no body answered): applies a template, live or to a change request. */
export const applyTemplate = (api: RequestApi, spaceId: string, body: object) =>
  api.send('POST', route`/spaces/${spaceId}/content/template`, { body });
