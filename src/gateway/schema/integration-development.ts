import { z } from 'zod';
import * as op from '../upstream/contract/operations.js';
import { deleteOf } from '../upstream/operation.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { deletedPayload, payloadType } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { IntegrationNode, integrationLink, integrationName } from './integrations.js';

/**
 * Development mode of an integration (admins of the organization that owns it): its events go to
 * a tunnel instead of its published endpoint, those of the owner's installations or, with `all`,
 * of every organization's.
 */

/** The description's limit of a tunnel's URL. */
const MAX_TUNNEL_URL_LENGTH = 256;

const IntegrationPayload = (name: string, description: string) =>
  payloadType<{ integration: string }>(name, (t) => ({
    integration: t.field({
      type: IntegrationNode,
      nullable: true,
      description,
      extensions: upstream.link,
      resolve: (payload, _args, _ctx, info) =>
        payload.integration ? integrationLink(payload.integration, info) : null,
    }),
  }));

declareMutation('setIntegrationDevelopmentMode', {
  description:
    'Turns development mode on for an integration (admins of its owner organization): its events go to `tunnelUrl` instead of its published endpoint, signed the same way. Setting it again replaces the tunnel.',
  input: 'The integration and its tunnel.',
  fields: {
    integrationName: inputField('String', 'Name of the integration (or Integration global ID).', integrationName),
    tunnelUrl: inputField(
      'String',
      `URL of the tunnel that receives the events (at most ${MAX_TUNNEL_URL_LENGTH} characters; an https URL the platform can reach).`,
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(MAX_TUNNEL_URL_LENGTH, `must be at most ${MAX_TUNNEL_URL_LENGTH} characters`)
        .refine((value) => URL.canParse(value), 'must be a URL'),
    ),
    all: inputField(
      'Boolean',
      'True: the events of every organization go to the tunnel; false or left out: those of the owner organization alone.',
      z.boolean().nullish(),
    ),
  },
  payload: (name) => IntegrationPayload(name, 'The integration, now in development mode.'),
  run: async (i, ctx) => {
    await ctx.api.write(
      op.setIntegrationDevelopmentMode,
      { integrationName: i.integrationName },
      { body: { tunnelUrl: i.tunnelUrl, all: i.all ?? false } },
    );
    return { integration: i.integrationName };
  },
});

declareMutation('disableIntegrationDevelopmentMode', {
  description:
    'Turns development mode off for an integration (admins of its owner organization): its events go to its published endpoint again.',
  input: 'The integration.',
  fields: {
    integrationName: inputField('String', 'Name of the integration (or Integration global ID).', integrationName),
  },
  payload: (name) =>
    deletedPayload<{ integration: string }>(
      name,
      'True once development mode is off (also when it was off already).',
      (t) => ({
        integration: t.field({
          type: IntegrationNode,
          nullable: true,
          description: 'The integration, out of development mode.',
          extensions: upstream.link,
          resolve: (payload, _args, _ctx, info) =>
            payload.integration ? integrationLink(payload.integration, info) : null,
        }),
      }),
    ),
  run: async (i, ctx) => ({
    ...(await deleteOf(ctx.api, op.disableIntegrationDevelopmentMode, { integrationName: i.integrationName })),
    integration: i.integrationName,
  }),
});
