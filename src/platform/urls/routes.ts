import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError, booleanParam, notFound, parseBody, parseQuery } from '../http.js';
import type { SpaceRow } from '../rows.js';
import { collectionJson } from '../collections/json.js';
import { spaceJson } from '../spaces/json.js';
import { changeRequestJson } from '../change-requests/json.js';
import { findChangeRequest } from '../change-requests/store.js';
import { loadRevision } from '../content/revisions.js';
import { pageJson } from '../content/json.js';
import { pageByPath, pageIndex } from '../content/pages.js';
import { parseUrl, resolvePublishedUrl, urlSegments, type ResolveInput } from '../sites/resolve.js';
import { contentForVisitor } from '../adaptive/page-conditions.js';
import { OPEN_TO_VISITORS } from '../access.js';
import { findCollectionOfOrganization } from '../collections/store.js';
import { findSiteById, siteSpaceHomePage } from '../sites/store.js';
import { findLiveSpace, loadSpace } from '../spaces/store.js';

/** Longest visitor token (a JWT) read: real ones hold a few hundred characters of claims. */
const MAX_VISITOR_TOKEN_CHARS = 10_000;
const urlParam = z.string({ message: 'is required' }).min(1, 'is required');
const contentQuery = z.object({ url: urlParam });
const publishedQuery = z.object({
  url: urlParam,
  visitorAuthToken: z
    .string()
    .max(MAX_VISITOR_TOKEN_CHARS, `must be at most ${MAX_VISITOR_TOKEN_CHARS} characters`)
    .optional(),
  redirectOnError: booleanParam.optional(),
});

/** A visitor's own claims: plain JSON (strings, numbers, booleans, objects and arrays of them), not too deep. */
const plain: z.ZodType<unknown> = z.lazy(() =>
  z.union([
    z.string().max(1000),
    z.number(),
    z.boolean(),
    z.array(plain).max(100),
    z.record(z.string().max(100), plain),
  ]),
);
const publishedBody = z.strictObject({
  url: urlParam,
  redirectOnError: z.boolean().optional(),
  visitor: z
    .strictObject({
      type: z.enum(['human', 'agent'], { message: 'must be human or agent' }).optional(),
      jwtToken: z
        .string()
        .max(MAX_VISITOR_TOKEN_CHARS, `must be at most ${MAX_VISITOR_TOKEN_CHARS} characters`)
        .optional(),
      unsignedClaims: z.record(z.string().max(100), plain).optional(),
    })
    .optional(),
});

/**
 * URLs back to what they show: app URLs of the platform to collections, spaces, change requests
 * and pages (`/urls/content`, which also takes published URLs), published URLs to the site,
 * section, site space and space a visitor reaches (`/urls/published`), and published pages to
 * their embed (`/urls/embed`).
 */
export function urlRoutes(app: FastifyInstance): void {
  const resolve = (request: FastifyRequest, input: ResolveInput) =>
    resolvePublishedUrl(request.ctx.db, request.ctx.links, request.ctx.access, input);

  app.get('/urls/published', OPEN_TO_VISITORS, async (request) => {
    const query = parseQuery(publishedQuery, request.query);
    return resolve(request, {
      url: query.url,
      redirectOnError: query.redirectOnError,
      visitor: query.visitorAuthToken ? { jwtToken: query.visitorAuthToken } : undefined,
    });
  });

  app.post('/urls/published', async (request) => {
    const body = parseBody(publishedBody, request.body);
    return resolve(request, { ...(body as ResolveInput), from: 'body' });
  });

  /** The space, change request and page a published URL shows, for the caller. */
  const publishedPage = async (request: FastifyRequest, url: string) => {
    const found = await resolve(request, { url });
    if (!('space' in found)) return undefined;
    const { db, access } = request.ctx;
    const space = findLiveSpace(db, found.space);
    if (!space || !access.canViewSpace(space, access.spaceRole(space))) return undefined;
    const siteSpace = siteSpaceHomePage(db, found.siteSpace);
    return {
      space,
      changeRequest: found.changeRequest,
      revision: found.revision,
      path: found.pathname,
      homePage: siteSpace ?? undefined,
    };
  };

  app.get('/urls/content', OPEN_TO_VISITORS, async (request) => {
    const { url: raw } = parseQuery(contentQuery, request.query);
    const url = parseUrl(raw);
    const { db, access, links } = request.ctx;
    const appUrl = new URL(links.app);
    const segments = urlSegments(url);
    const mount = urlSegments(appUrl);
    const inApp =
      url.host.toLowerCase() === appUrl.host.toLowerCase() &&
      mount.every((segment, index) => segments[index] === segment);
    let target:
      | { space: SpaceRow; changeRequest?: string; revision?: string; path: string; homePage?: string }
      | undefined;
    if (inApp) {
      const [kind, id, ...rest] = segments.slice(mount.length);
      if (kind === 'o' && id && rest[0] === 'c' && rest[1]) {
        const collection = findCollectionOfOrganization(db, id, rest[1]);
        const role = collection ? access.collectionRole(collection) : null;
        if (!collection || role === null) throw notFound('Content for the URL');
        return { collection: collectionJson(collection, role, links) };
      }
      if (kind !== 's' || !id) throw notFound('Content for the URL');
      const space = findLiveSpace(db, id);
      if (!space || !access.canViewSpace(space, access.spaceRole(space))) throw notFound('Content for the URL');
      let pathParts = rest;
      let changeRequest: string | undefined;
      let revision: string | undefined;
      if (rest[0] === '~' && rest[1] === 'changes' && rest[2]) {
        const request_ = findChangeRequest(db, space.id, rest[2]);
        if (!request_) throw notFound('Content for the URL');
        changeRequest = request_.id;
        pathParts = rest.slice(3);
      } else if (rest[0] === '~' && rest[1] === 'revisions' && rest[2]) {
        revision = rest[2];
        pathParts = rest.slice(3);
      }
      target = { space, changeRequest, revision, path: pathParts.join('/') };
    } else {
      try {
        target = await publishedPage(request, raw);
      } catch (error) {
        if (error instanceof ApiError && error.status === 400) throw error;
        target = undefined;
      }
      if (!target) throw notFound('Content for the URL');
    }

    const { space, path } = target;
    const requestRow = target.changeRequest ? findChangeRequest(db, space.id, target.changeRequest) : undefined;
    const revisionId = target.revision ?? requestRow?.revision ?? space.revision;
    const revision = request.ctx.content.revision(space.id, revisionId);
    // Change requests and their revisions are for members of the space.
    if (!revision || ((requestRow || revision.changeRequest) && access.spaceRole(space) === null))
      throw notFound('Content for the URL');
    const index = pageIndex(revision.content);
    const placed =
      path === '' && target.homePage
        ? index.byId.get(target.homePage)
        : (pageByPath(index, path.toLowerCase()) ?? pageByPath(index, path));
    // A path that names no page still resolves to the space (the URL may predate a move).
    const page =
      placed && (placed.page.type === 'document' || placed.page.type === 'group')
        ? pageJson(placed, index, { spaceId: space.id, links, metadata: true })
        : undefined;
    return {
      space: spaceJson(space, access.spaceRole(space), links),
      ...(requestRow ? { changeRequest: changeRequestJson(db, requestRow, space, links) } : {}),
      ...(page ? { page } : {}),
    };
  });

  app.get('/urls/embed', OPEN_TO_VISITORS, async (request) => {
    const { url } = parseQuery(contentQuery, request.query);
    const found = await resolve(request, { url });
    if (!('space' in found)) throw notFound('Embeddable content for the URL');
    const { db } = request.ctx;
    const site = findSiteById(db, found.site)!.title;
    const space = loadSpace(db, found.space)!;
    const changeRequest = found.changeRequest ? findChangeRequest(db, space.id, found.changeRequest) : undefined;
    const revision = loadRevision(db, space.id, found.revision ?? changeRequest?.revision ?? space.revision);
    // Embeds are what an anonymous visitor sees: conditional pages are left out.
    const index = revision
      ? pageIndex(contentForVisitor(revision.content, request.ctx.visitor?.claims ?? {}))
      : undefined;
    const homePage = siteSpaceHomePage(db, found.siteSpace);
    const placed =
      index &&
      (found.pathname === '' && homePage ? index.byId.get(homePage) : pageByPath(index, found.pathname.toLowerCase()));
    if (placed?.page.type !== 'document') throw notFound('Page for the URL');
    return {
      type: 'link' as const,
      title: placed.page.title,
      site,
      ...(placed.page.emoji ? { icon: placed.page.emoji } : space.emoji ? { icon: space.emoji } : {}),
    };
  });
}
