import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { pageByPath, pageIndex, type PlacedPage } from '../content/pages.js';
import { changeJson, fileJson, pageJson, revisionJson } from '../content/json.js';
import type { ContentFile, ContentPage, ContentRef, Revision, RevisionContent } from '../content/revisions.js';
import { semanticChanges } from '../content/changes.js';
import type { Block, JSONDocument } from '../../document/model.js';
import { downloadUrl } from '../content/files.js';
import { pageMarkdown } from '../content/page-markdown.js';
import { backlinks, contentLinks, linkTargets } from '../content/links.js';
import { booleanParam, notFound, pageFromArray, pageParams, pageWindow, parseQuery } from '../http.js';
import type { SpaceRow } from '../rows.js';
import { organizationJson } from '../organizations/json.js';
import { spaceJson } from '../spaces/json.js';
import { changeRequestJson } from '../change-requests/json.js';
import { findChangeRequest, requireChangeRequest } from '../change-requests/store.js';
import { evaluateDocument } from '../adaptive/evaluate-document.js';
import { expandComputed, generatedPageDocument } from '../openapi/computed.js';
import { findOrganization } from '../organizations/store.js';
import { liveSpaceRevision } from '../spaces/store.js';

/**
 * The answers of the content routes: each parses its query, loads what the caller may read (the
 * space, the revision, a change request's content) and serializes it.
 */

/** A document with no content: the body of a page that has none. */
export const EMPTY_DOCUMENT = Object.freeze({ object: 'document', data: {}, nodes: [] });

const contentQuery = z.object({
  metadata: booleanParam.optional(),
  computed: booleanParam.optional(),
  shareKey: z.string().optional(),
});

const pageQuery = contentQuery.extend({
  format: z.enum(['document', 'markdown'], { message: 'must be document or markdown' }).optional(),
  'format.markdown.refs': z.enum(['relative', 'stable'], { message: 'must be relative or stable' }).optional(),
  evaluated: z
    .enum(['true', 'false', 'deterministic-only'], { message: 'must be true, false or deterministic-only' })
    .optional(),
  dereferenced: z
    .enum(['true', 'false', 'reusable-contents'], { message: 'must be true, false or reusable-contents' })
    .optional(),
  cachedMetadata: booleanParam.optional(),
});

const filesQuery = contentQuery.extend(pageParams);

export const changesQuery = contentQuery.extend({
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1000, 'must be at most 1000')
    .optional(),
});

const linksQuery = contentQuery.extend({
  ...pageParams,
  status: z.enum(['ok', 'broken', 'in-app'], { message: 'must be ok, broken or in-app' }).optional(),
});

const backlinksQuery = contentQuery.extend(pageParams);

export const documentQuery = z.object({
  evaluated: pageQuery.shape.evaluated,
  dereferenced: pageQuery.shape.dereferenced,
  schema: z.enum(['current', 'next'], { message: 'must be current or next' }).optional(),
  shareKey: z.string().optional(),
});

export type SpaceParams = { spaceId: string };

export type RevisionParams = SpaceParams & { revisionId: string };
export type PageParams = SpaceParams & { pageId: string };
export type RevisionPageParams = RevisionParams & { pageId: string };

/**
 * The space (readable by the caller) and the revision asked for: the current one without
 * `revisionId`. Its computed pages are expanded into the pages they generate unless `computed`
 * is false.
 */
export function revisionOf(
  request: FastifyRequest,
  params: SpaceParams & { revisionId?: string; changeRequestId?: string },
  shareKey?: string,
  computed = true,
) {
  const { db, access } = request.ctx;
  const { space, role } = access.requireSpace(params.spaceId, shareKey !== undefined ? { shareKey } : {});
  let revisionId = params.revisionId ?? space.revision;
  if (params.changeRequestId !== undefined) {
    // Change requests are shown to members of the space only, never to public readers.
    if (role === null) throw notFound('Space');
    revisionId = requireChangeRequest(db, space.id, params.changeRequestId).revision;
  }
  // A site visitor's reader gives their view: the pages, files and documents their claims show.
  const visible = request.ctx.content.revision(space.id, revisionId);
  // The revisions of change requests are shown to members of the space only.
  if (!visible || (visible.changeRequest && role === null)) throw notFound('Revision');
  const expanded = computed ? expandComputed(db, space.org_id, visible.content) : visible.content;
  const revision = expanded === visible.content ? visible : { ...visible, content: expanded };
  return { space, role, revision };
}

export function revisionAnswer(request: FastifyRequest, params: SpaceParams & { revisionId?: string }) {
  const query = parseQuery(contentQuery, request.query);
  const { space, role, revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const json = revisionJson(revision, space, {
    links: request.ctx.links,
    metadata: query.metadata ?? true,
    fileJson: (file) => fileJson(request.ctx.db, request.ctx.links, file, query.metadata ?? true),
  });
  // A merge revision names the change request it merged.
  const merged =
    revision.type === 'merge' && revision.mergedFrom && role !== null
      ? findChangeRequest(request.ctx.db, space.id, revision.mergedFrom)
      : undefined;
  return merged ? { ...json, mergedFrom: changeRequestJson(request.ctx.db, merged, space, request.ctx.links) } : json;
}

export function pagesAnswer(request: FastifyRequest, params: SpaceParams & { revisionId?: string }) {
  const query = parseQuery(contentQuery, request.query);
  const { space, revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const index = pageIndex(revision.content);
  const options = { spaceId: space.id, links: request.ctx.links, metadata: query.metadata ?? true };
  return { pages: revision.content.pages.map((page) => pageJson(index.byId.get(page.id)!, index, options)) };
}

export function pageAnswer(
  request: FastifyRequest,
  params: SpaceParams & { revisionId?: string },
  find: (revision: Revision) => PlacedPage | undefined,
) {
  const query = parseQuery(pageQuery, request.query);
  const { space, revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const placed = find(revision);
  if (!placed) throw notFound('Page');
  const index = pageIndex(revision.content);
  return pageJson(placed, index, {
    spaceId: space.id,
    links: request.ctx.links,
    metadata: query.metadata ?? true,
    body:
      query.format === 'document'
        ? (page) => ({ document: pageDocument(request, space, page, revision, query.dereferenced, query.evaluated) })
        : query.format === 'markdown'
          ? (page) => ({
              markdown: pageMarkdown(
                placed,
                pageDocument(request, space, page, revision, query.dereferenced, query.evaluated) as JSONDocument,
                index,
                revision.content,
                query['format.markdown.refs'] ?? 'relative',
              ),
            })
          : undefined,
  });
}

function pageDocument(
  request: FastifyRequest,
  space: SpaceRow,
  page: ContentPage,
  revision: Revision,
  dereferenced?: string,
  evaluated?: string,
): unknown {
  const { content } = request.ctx;
  const generated = generatedPageDocument(request.ctx.db, space.org_id, page);
  if (generated) return evaluatedFor(request, content.shown(revision, generated, page), evaluated, revision, page);
  if (!page.documentId) return EMPTY_DOCUMENT;
  const document = content.document(revision, page.documentId, page);
  if (!document) throw new Error(`Document ${page.documentId} of page ${page.id} is missing`);
  return evaluatedFor(
    request,
    dereference(request, space, revision, document, dereferenced),
    evaluated,
    revision,
    page,
  );
}

/**
 * With `evaluated` (`true` or `deterministic-only`), conditional blocks and expressions are
 * resolved against the variables of the space and the page, and the claims of the visitor: a
 * site visitor's (from the API token of a resolved URL), or none for an API reader.
 */
export function evaluatedFor(
  request: FastifyRequest,
  document: JSONDocument,
  evaluated: string | undefined,
  revision: Revision,
  page?: ContentPage,
): JSONDocument {
  if (evaluated !== 'true' && evaluated !== 'deterministic-only') return document;
  const claims = request.ctx.visitor?.claims ?? {};
  return evaluateDocument(document, evaluated, {
    space: { vars: revision.content.variables },
    page: { vars: page?.variables ?? {} },
    visitor: { claims },
  });
}

/**
 * With `dereferenced` (`true` or `reusable-contents`), each reusable-content block of this
 * space is replaced by the blocks of its document, as the revision has it.
 */
export function dereference(
  request: FastifyRequest,
  space: SpaceRow,
  revision: Revision,
  document: JSONDocument,
  dereferenced?: string,
): JSONDocument {
  if (dereferenced !== 'true' && dereferenced !== 'reusable-contents') return document;
  const expand = (blocks: readonly Block[], depth: number): Block[] =>
    blocks.flatMap((block) => {
      if (block.type !== 'reusable-content' || depth > 5) return [block];
      const ref = block.data.ref;
      if (ref.space !== undefined && ref.space !== space.id) return [block];
      const reusable = revision.content.reusableContents.find((item) => item.id === ref.reusableContent);
      const inner = reusable?.documentId ? request.ctx.content.document(revision, reusable.documentId) : undefined;
      return inner ? expand(inner.nodes, depth + 1) : [block];
    });
  return { ...document, nodes: expand(document.nodes, 0) as JSONDocument['nodes'] };
}

export function documentOfPage(request: FastifyRequest, params: RevisionPageParams) {
  const query = parseQuery(documentQuery, request.query);
  const { space, revision } = revisionOf(request, params, query.shareKey);
  const placed = pageIndex(revision.content).byId.get(params.pageId);
  if (placed?.page.type !== 'document') throw notFound('Page');
  return pageDocument(request, space, placed.page, revision, query.dereferenced, query.evaluated);
}

export function metaLinks(request: FastifyRequest, params: SpaceParams & { revisionId?: string; pageId: string }) {
  const query = parseQuery(contentQuery, request.query);
  const { revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const placed = pageIndex(revision.content).byId.get(params.pageId);
  if (placed?.page.type !== 'document') throw notFound('Page');
  return { alternates: [], ...placed.page.metaLinks };
}

export function filesAnswer(request: FastifyRequest, params: SpaceParams & { revisionId?: string }) {
  const query = parseQuery(filesQuery, request.query);
  const { revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const page = pageFromArray(revision.content.files, pageWindow(query));
  return {
    ...page,
    items: page.items.map((file) => fileJson(request.ctx.db, request.ctx.links, file, query.metadata ?? true)),
  };
}

export function fileAnswer(request: FastifyRequest, params: SpaceParams & { revisionId?: string; fileId: string }) {
  const query = parseQuery(contentQuery, request.query);
  const { revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const file = revision.content.files.find((candidate) => candidate.id === params.fileId);
  if (!file) throw notFound('File');
  return fileJson(request.ctx.db, request.ctx.links, file, query.metadata ?? true);
}

export const byId = (pageId: string) => (revision: Revision) => pageIndex(revision.content).byId.get(pageId);

export const byPath = (path: string) => (revision: Revision) => {
  // The router decodes the path once; a path still holding escapes is decoded again, and one
  // with a lone `%` (no page path has one) is looked up as it is, to find nothing.
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // kept as it is
  }
  const placed = pageByPath(pageIndex(revision.content), decoded);
  // Links and computed pages have no path; only documents and groups are found by one.
  return placed && (placed.page.type === 'document' || placed.page.type === 'group') ? placed : undefined;
};

/** The semantic changes from `before` to `after`, the first `limit` of them. */
export function changesAnswer(request: FastifyRequest, before: RevisionContent, after: RevisionContent, limit: number) {
  const changes = semanticChanges(before, after);
  const { db, links } = request.ctx;
  return {
    changes: changes.slice(0, limit).map((change) => changeJson(change, (file) => downloadUrl(db, links, file))),
    more: Math.max(0, changes.length - limit),
  };
}

/** Reads the body of a page of the revision as the caller sees it (for links and backlinks). */
const bodyOf = (request: FastifyRequest, revision: Revision) => (page: ContentPage & { documentId: string }) =>
  request.ctx.content.document(revision, page.documentId, page);

/** Where a page or a file of this revision lives (`ContentLocation`), as link reports and backlinks show it. */
function locations(request: FastifyRequest, space: SpaceRow, revision: Revision) {
  const { db, access, links } = request.ctx;
  const org = findOrganization(db, space.org_id)!;
  const context = {
    organization: organizationJson(db, org, access.orgRole(org.id) ?? null, links),
    space: spaceJson(space, access.spaceRole(space), links),
    versionContext: {
      type: 'revision',
      revision: revisionJson(revision, space, {
        links,
        metadata: true,
        fileJson: (file) => fileJson(db, links, file, true),
      }),
    },
  };
  const index = pageIndex(revision.content);
  const pageOptions = { spaceId: space.id, links, metadata: true, children: false };
  return {
    page: (placed: PlacedPage) => ({ kind: 'page', ...context, page: pageJson(placed, index, pageOptions) }),
    file: (file: ContentFile) => ({ kind: 'file', ...context, file: fileJson(db, links, file, true) }),
    /** The location of a reference's target, when it is one of this revision's pages or files, or a URL. */
    target: (ref: ContentRef): Record<string, unknown> | undefined => {
      if (typeof ref.space === 'string' && ref.space !== space.id) return undefined;
      if (ref.kind === 'page' || (ref.kind === 'anchor' && ref.page !== undefined)) {
        const placed = index.byId.get(String(ref.page));
        return placed && { kind: 'page', ...context, page: pageJson(placed, index, pageOptions) };
      }
      if (ref.kind === 'file') {
        const file = revision.content.files.find((item) => item.id === ref.file);
        return file && { kind: 'file', ...context, file: fileJson(db, links, file, true) };
      }
      if (ref.kind === 'url') return { kind: 'url', url: ref.url };
      return undefined;
    },
  };
}

export function linkReport(request: FastifyRequest, params: SpaceParams & { pageId?: string }) {
  const query = parseQuery(linksQuery, request.query);
  const { space, revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const { db, links } = request.ctx;
  let found = contentLinks(revision.content, bodyOf(request, revision));
  if (params.pageId !== undefined) {
    const placed = pageIndex(revision.content).byId.get(params.pageId);
    if (placed?.page.type !== 'document') throw notFound('Page');
    found = found.filter((link) => link.from === placed);
  }
  const targets = linkTargets(found, revision.content, {
    db,
    spaceId: space.id,
    appUrl: links.app,
    spaceExists: (id) => liveSpaceRevision(db, id) !== undefined,
    pageInSpace: (id, pageId) => {
      const other = liveSpaceRevision(db, id);
      const content = other ? request.ctx.content.revision(id, other)?.content : undefined;
      return content ? pageIndex(content).byId.has(pageId) : false;
    },
  });
  const usages = targets.reduce((total, target) => total + target.from.length, 0);
  const broken = targets
    .filter((target) => target.status === 'broken')
    .reduce((total, target) => total + target.from.length, 0);
  const listed = query.status ? targets.filter((target) => target.status === query.status) : targets;
  const page = pageFromArray(listed, pageWindow(query));
  const where = locations(request, space, revision);
  return {
    ...page,
    stats: { total: usages, broken: { total: broken } },
    items: page.items.map((target) => {
      const targetReference = target.status === 'broken' ? undefined : where.target(target.ref);
      return {
        status: target.status,
        relation: 'reference',
        ...(targetReference ? { targetReference } : {}),
        locationReferences: target.from.map(where.page),
      };
    }),
  };
}

/** The pages pointing at what `target` finds in the revision (it throws a 404 when there is no such thing). */
export function backlinkList(
  request: FastifyRequest,
  params: SpaceParams,
  target: (revision: Revision) => { page: string } | { file: ContentFile },
) {
  const query = parseQuery(backlinksQuery, request.query);
  const { space, revision } = revisionOf(request, params, query.shareKey, query.computed ?? true);
  const pages = backlinks(space.id, revision.content, target(revision), bodyOf(request, revision));
  const page = pageFromArray(pages, pageWindow(query));
  const where = locations(request, space, revision);
  return { ...page, items: page.items.map(where.page) };
}

export function reusableOf(
  request: FastifyRequest,
  params: SpaceParams & { revisionId?: string; changeRequestId?: string; reusableContentId: string },
  shareKey?: string,
) {
  const { space, revision } = revisionOf(request, params, shareKey);
  const reusable = revision.content.reusableContents.find((item) => item.id === params.reusableContentId);
  if (!reusable) throw notFound('Reusable content');
  return { space, revision, reusable };
}

export function reusableAnswer(
  request: FastifyRequest,
  params: SpaceParams & { revisionId?: string; changeRequestId?: string; reusableContentId: string },
) {
  const query = parseQuery(contentQuery, request.query);
  const { reusable } = reusableOf(request, params, query.shareKey);
  return {
    id: reusable.id,
    title: reusable.title,
    ...(reusable.documentId ? { document: reusable.documentId } : {}),
    ...((query.metadata ?? true) && reusable.git ? { git: reusable.git } : {}),
  };
}
