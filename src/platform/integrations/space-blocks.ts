import type { FastifyInstance } from 'fastify';
import { definitionOf, installedIntegrations } from './store.js';

type SpaceParams = { spaceId: string };

/**
 * `GET /spaces/{spaceId}/integration-blocks`, for those who can read the space: the blocks that
 * the integrations installed on it declare (enabled on the space, or installed on its
 * organization for every space), grouped by integration name in name order; an integration that
 * declares no block is left out.
 */
export function spaceIntegrationBlockRoutes(app: FastifyInstance): void {
  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/integration-blocks', async (request) => {
    const { db, access } = request.ctx;
    const { space } = access.requireSpace(request.params.spaceId);
    return installedIntegrations(db, { space }, {}).flatMap((row) => {
      const blocks = definitionOf(row).blocks ?? [];
      return blocks.length > 0 ? [{ name: row.name, blocks }] : [];
    });
  });
}
