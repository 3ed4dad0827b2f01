import { GatewayError } from '../errors.js';
import * as op from '../upstream/contract/operations.js';
import { builder } from './kit/builder.js';
import { upstream } from './kit/upstream-cost.js';
import { SpaceNode } from './spaces.js';
import { EmbedType } from './urls.js';

/**
 * `Space.embed(url:)`: how to show any URL in the space's pages, as the platform answers it (a
 * link card, or an iframe it writes for known video providers).
 */

/** Longest URL the platform takes. */
const MAX_URL_LENGTH = 2048;

builder.objectFields(SpaceNode, (t) => ({
  embed: t.field({
    type: EmbedType,
    description:
      'How to embed a URL in the space’s pages (readers of the space): YouTube, Vimeo and Loom as a RICH iframe, made from the URL alone; any other page as a LINK card with the title and site it declares (or its oEmbed endpoint does), read through the platform’s outbound guard; a page that cannot be read as a LINK titled with the URL.',
    args: {
      url: t.arg.string({ required: true, description: 'An absolute http or https URL (at most 2048 characters).' }),
    },
    extensions: upstream.fetch(1),
    resolve: (space, args, ctx) => {
      if (args.url.length > MAX_URL_LENGTH)
        throw new GatewayError(
          'BAD_USER_INPUT',
          `url is ${args.url.length} characters long, more than the ${MAX_URL_LENGTH} allowed`,
          {
            field: ['url'],
            budget: { limit: 'urlLength', value: args.url.length, max: MAX_URL_LENGTH },
          },
        );
      return ctx.api.read(op.getEmbedByUrlInSpace, { spaceId: space.id }, { url: args.url });
    },
  }),
}));
