import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { searchSpaces } from '../content/search.js';
import { pageParams, pageWindow, parseQuery } from '../http.js';
import { treeOrder } from '../tree/order.js';
import { OPEN_TO_VISITORS } from '../access.js';
import { pageHitJson } from '../content/json.js';
import { spaceTitles } from '../spaces/store.js';

const searchQuery = z.object({
  ...pageParams,
  query: z
    .string({ message: 'is required' })
    .max(512, 'must be at most 512 characters')
    .refine((value) => value.trim() !== '', 'must not be empty'),
  shareKey: z.string().optional(),
});

/**
 * Full-text search of the current content: of one space (pages with their best sections) and of
 * every space of an organization the caller can read (grouped by space). Ranked; `rank` is the
 * one-based position of a page in the whole result, whatever page of results it is on.
 */
export function searchRoutes(app: FastifyInstance): void {
  app.get<{ Params: { spaceId: string } }>('/spaces/:spaceId/search', OPEN_TO_VISITORS, async (request) => {
    const query = parseQuery(searchQuery, request.query);
    const { access, links, content } = request.ctx;
    const { space } = access.requireSpace(
      request.params.spaceId,
      query.shareKey !== undefined ? { shareKey: query.shareKey } : {},
    );
    // A site visitor searches their view: pages and blocks their claims hide are not found.
    const found = await content.search(space, query.query, pageWindow(query));
    return { ...found, items: found.items.map((page) => pageHitJson(page, space.id, links)) };
  });

  app.get<{ Params: { organizationId: string } }>('/orgs/:organizationId/search', async (request) => {
    const query = parseQuery(searchQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId);
    const readable = treeOrder(db, org.id).spaces.filter((space) => access.spaceRole(space) !== null);
    const found = searchSpaces(
      db,
      readable.map((space) => space.id),
      query.query,
      pageWindow(query),
    );
    const titles = spaceTitles(
      db,
      found.items.map((item) => item.spaceId),
    );
    return {
      ...found,
      items: found.items.map((item) => ({
        type: 'space',
        id: item.spaceId,
        title: titles.get(item.spaceId) ?? '',
        score: item.score,
        pages: item.pages.map((page) => pageHitJson(page, item.spaceId, links)),
      })),
    };
  });
}
