import * as op from '../upstream/contract/operations.js';
import { compositeKey } from './kit/ids.js';
import { linkTo } from './kit/loaders.js';
import { declareMutation } from './kit/mutations.js';
import { payloadType } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { IntegrationInstallationNode, installationTarget, resolveInstallation } from './integrations.js';

/**
 * `createIntegrationInstallationToken`: a short-lived token with which an integration's code calls
 * the API as one of its installations (for the integration's developers).
 */

type TokenMade = { token: string; integrationName: string; installationId: string };

declareMutation('createIntegrationInstallationToken', {
  description:
    'Creates a short-lived API token of an installation (admins of the organization that owns the integration, who run its code): a bearer that reads, for one hour, the spaces the installation covers under its scopes, and nothing else. The token is a secret: it is answered once.',
  input: 'The installation.',
  fields: installationTarget,
  check: (input) => input.transform(resolveInstallation),
  payload: (name) =>
    payloadType<TokenMade>(name, (t) => ({
      token: t.string({
        nullable: true,
        description: 'The token, to send as `Authorization: Bearer <token>`; valid for one hour.',
        resolve: (made) => made.token ?? null,
      }),
      installation: t.field({
        type: IntegrationInstallationNode,
        nullable: true,
        description: 'The installation the token acts as.',
        extensions: upstream.link,
        resolve: (made, _args, _ctx, info) =>
          made.integrationName && made.installationId
            ? (linkTo(
                IntegrationInstallationNode,
                compositeKey(made.integrationName, made.installationId),
                info,
                () => ({ id: made.installationId, integrationName: made.integrationName }) as never,
              ) as never)
            : null,
      }),
    })),
  run: async (i, ctx) => {
    const { data } = await ctx.api.write(op.createIntegrationInstallationToken, {
      integrationName: i.integrationName,
      installationId: i.installationId,
    });
    return { token: data.token, integrationName: i.integrationName, installationId: i.installationId };
  },
});
