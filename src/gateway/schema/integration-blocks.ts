import * as op from '../upstream/contract/operations.js';
import { builder } from './kit/builder.js';
import { upstream } from './kit/upstream-cost.js';
import { IntegrationBlock, IntegrationNode, integrationLink } from './integrations.js';
import { SpaceNode } from './spaces.js';

/**
 * The blocks integrations add to a space's editor (`Space.integrationBlocks`), each linked to
 * the integration that declares it (`IntegrationBlock.integration`).
 */

builder.objectFields(IntegrationBlock, (t) => ({
  integration: t.field({
    type: IntegrationNode,
    description: 'The integration that declares the block (its `id` costs no request).',
    extensions: upstream.link,
    resolve: (block, _args, _ctx, info) => integrationLink(block.integration, info),
  }),
}));

builder.objectFields(SpaceNode, (t) => ({
  integrationBlocks: t.field({
    type: [IntegrationBlock],
    nullable: true,
    description:
      'Blocks the integrations installed on the space declare (enabled on it, or installed on its organization for every space), by integration name. Null with NOT_FOUND for those who cannot read the space.',
    extensions: upstream.fetch(1),
    resolve: async (space, _args, ctx) => {
      const answer = await ctx.api.read(op.listSpaceIntegrationsBlocks, { spaceId: space.id });
      return answer.flatMap((entry) => entry.blocks.map((block) => ({ ...block, integration: entry.name })));
    },
  }),
}));
