import { z } from 'zod';
import { listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { compositeKey, decodeKnownGlobalId, platformKey, readingId, splitKey } from './kit/ids.js';
import { organizationTarget } from './targets.js';
import { S } from '../upstream/contract/schemas.js';
import type { SAMLProviderStatus } from '../upstream/contract/types.js';
import {
  createSamlProvider,
  deleteSamlProvider,
  getSamlProvider,
  listSamlProviders,
  listSsoLogins,
  type SamlProvider,
  type SsoLogin,
  updateSamlProvider,
} from '../upstream/saml.js';
import { builder } from './kit/builder.js';
import { type InOrganization, linkTo, organizationNode, primeInOrganization } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { deletedPayload, deletionOf, objectPayload } from './kit/payloads.js';
import { noNull, restBody } from './kit/mutations.js';
import { restEnum, RoleEnum } from './kit/enums.js';
import { naming } from './sites/mutations.js';
import { primeTeams, TeamNode } from './teams.js';

/**
 * SAML identity providers of an organization (admins) and the SSO logins of its login page.
 * A provider's global ID carries its organization.
 */

export const SamlProviderNode = organizationNode<SamlProvider>('SamlProvider', (organizationId, id, ctx) =>
  getSamlProvider(ctx.api, organizationId, id),
);

const primeProviders = (ctx: GatewayContext, organizationId: string, providers: Iterable<SamlProvider>) =>
  primeInOrganization(SamlProviderNode, ctx, organizationId, providers);

const SamlStatusEnum = restEnum('SamlProviderStatus', 'Whether people can sign in with a SAML provider.', {
  active: 'Configured (sign-on URL, entity ID and a valid certificate): people can sign in with it.',
  pending: 'Not fully configured yet: nobody can sign in with it.',
} satisfies Record<SAMLProviderStatus, string>);

const SamlService = builder.objectRef<SamlProvider['service']>('SamlServiceProvider').implement({
  description: 'What to give the identity provider about the platform, made for one provider.',
  fields: (t) => ({
    acsUrl: t.exposeString('acsURL', { description: 'Assertion Consumer Service (ACS) URL.' }),
    startUrl: t.exposeString('startURL', { description: 'Where a sign-in through this provider starts.' }),
    entityId: t.exposeString('entityID', { description: 'Entity ID of the platform as a service provider.' }),
  }),
});

SamlProviderNode.implement({
  description: 'A SAML identity provider members of an organization sign in with (admins manage them).',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the provider on the platform.' }),
    label: t.exposeString('label', { description: 'Name shown on the login page, 1 to 30 characters.' }),
    status: t.field({
      type: SamlStatusEnum,
      description: 'ACTIVE once configured, PENDING until then.',
      resolve: (p) => p.status,
    }),
    ssoUrl: t.string({
      nullable: true,
      description: 'Sign-on URL of the identity provider; null until set.',
      resolve: (p) => p.ssoURL ?? null,
    }),
    entityId: t.string({
      nullable: true,
      description: 'Entity ID of the identity provider; null until set.',
      resolve: (p) => p.entityID ?? null,
    }),
    certificate: t.string({
      nullable: true,
      description: 'X.509 certificate (PEM) of the identity provider; null until set.',
      resolve: (p) => p.certificate ?? null,
    }),
    defaultRole: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Role people get when they join by signing in; null makes them guests.',
      resolve: (p) => p.defaultRole,
    }),
    defaultTeam: t.field({
      type: TeamNode,
      nullable: true,
      description: 'Team people are added to when they join by signing in.',
      resolve: (p, _args, ctx) => (p.defaultTeam ? primeTeams(ctx, p.organizationId, [p.defaultTeam])[0]! : null),
    }),
    service: t.field({
      type: SamlService,
      description: 'What to give the identity provider.',
      resolve: (p) => p.service,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was added.', resolve: (p) => p.createdAt }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it signs people in to.',
      extensions: upstream.link,
      resolve: (p, _args, _ctx, info) => linkTo(OrganizationNode, p.organizationId, info),
    }),
  }),
});

const SsoLoginType = builder.objectRef<InOrganization<SsoLogin>>('SsoLogin').implement({
  description: 'A way to sign in to an organization, for its login page.',
  fields: (t) => ({
    providerId: t.exposeString('id', { description: 'Platform id of the SAML provider.' }),
    provider: t.field({
      type: SamlProviderNode,
      nullable: true,
      description:
        'The SAML provider. Its `id` costs nothing; reading more of it needs the admin role (null with FORBIDDEN otherwise).',
      extensions: upstream.link,
      resolve: (l, _args, _ctx, info) =>
        linkTo(
          SamlProviderNode,
          compositeKey(l.organizationId, l.id),
          info,
          () => ({ id: l.id, organizationId: l.organizationId }) as InOrganization<SamlProvider>,
        ),
    }),
    label: t.exposeString('label', { description: 'Name to show.' }),
    startUrl: t.exposeString('startURL', { description: 'Where the sign-in starts.' }),
  }),
});

const SamlProviderEdge = builder.edgeObject({
  type: SamlProviderNode,
  name: 'SamlProviderEdge',
  description: 'A SAML provider of a list, with its cursor.',
});

const SamlProviderConnection = builder.connectionObject(
  {
    type: SamlProviderNode,
    name: 'SamlProviderConnection',
    description: 'A page of SAML providers, with the size of the whole list.',
  },
  SamlProviderEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  samlProviders: t.connection(
    {
      type: SamlProviderNode,
      nullable: true,
      description: 'SAML providers of the organization, oldest first (admins; FORBIDDEN for others).',
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(args, listSamlProviders(ctx.api, org.id));
        return mapNodes(connection, (providers) => primeProviders(ctx, org.id, providers));
      },
    },
    SamlProviderConnection,
  ),
  ssoProviders: t.field({
    type: [SsoLoginType],
    description: 'The active SAML providers to sign in with, for a login page (anyone signed in may read them).',
    extensions: upstream.fetch(1),
    resolve: async (org, _args, ctx) =>
      (await listSsoLogins(ctx.api, org.id)).items.map((login) => ({ ...login, organizationId: org.id })),
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const label = z.string().trim().min(1, 'must be 1 to 30 characters').max(30, 'must be 1 to 30 characters');
const httpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');
const entityId = z.string().trim().min(1, 'must not be empty').max(1024, 'must be at most 1024 characters');
const certificate = z
  .string()
  .max(10_000, 'must be at most 10000 characters')
  .refine(
    (value) => /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(value),
    'must be an X.509 certificate in PEM ("-----BEGIN CERTIFICATE-----")',
  );
/** A team of the organization: its platform id or Team global ID (whose organization must agree). */
const teamRef = z
  .string()
  .trim()
  .min(1, 'must be the id of a Team')
  .transform(
    readingId((value) => {
      const key = platformKey(value, 'Team');
      if (key === value || !decodeKnownGlobalId(value)) return { id: value } as { id: string; organizationId?: string };
      const [organizationId, id] = splitKey(key, 2, 'Team') as [string, string];
      return { id, organizationId };
    }),
  );

const providerFields = {
  ssoUrl: inputField(
    'String',
    'Sign-on URL of the identity provider (http or https); null removes it.',
    httpUrl.nullish(),
  ),
  entityId: inputField(
    'String',
    'Entity ID of the identity provider (at most 1024 characters); null removes it.',
    entityId.nullish(),
  ),
  certificate: inputField(
    'String',
    'X.509 certificate of the identity provider, in PEM, not expired; null removes it.',
    certificate.nullish(),
  ),
  defaultTeamId: inputField(
    'ID',
    'Team people join when they first sign in (platform id or Team global ID); null for none.',
    teamRef.nullish(),
  ),
  defaultRole: inputField(
    RoleEnum,
    'Role people get when they first sign in; null makes them guests (default READ).',
    S.MemberRole.nullish(),
  ),
};

const sameOrganization = (
  value: { organizationId: string; defaultTeamId?: { organizationId?: string } | null | undefined },
  ctx: z.RefinementCtx,
) => {
  const team = value.defaultTeamId?.organizationId;
  if (team !== undefined && team !== value.organizationId)
    ctx.addIssue({ code: 'custom', path: ['defaultTeamId'], message: 'is a team of another organization' });
};

const restFields = (i: {
  ssoUrl?: string | null;
  entityId?: string | null;
  certificate?: string | null;
  defaultTeamId?: { id: string } | null;
  defaultRole?: string | null;
}) => ({
  ssoURL: i.ssoUrl,
  entityID: i.entityId,
  certificate: i.certificate,
  defaultTeam: i.defaultTeamId === null ? null : i.defaultTeamId?.id,
  defaultRole: i.defaultRole,
});

/** Names the platform's body fields as the input does. */
const FIELD_NAMES: Record<string, string> = { ssoURL: 'ssoUrl', entityID: 'entityId', defaultTeam: 'defaultTeamId' };

async function providerPayload(ctx: GatewayContext, organizationId: string, write: () => Promise<SamlProvider>) {
  const provider = await naming(FIELD_NAMES, write);
  return { provider: primeProviders(ctx, organizationId, [provider])[0]! };
}

const ProviderPayload = (name: string, description = 'The provider after the change.') =>
  objectPayload(name, 'provider', SamlProviderNode, description);

/** The fields naming a provider: its global ID, or its platform id with `organizationId`. */
const { fields: providerTarget, resolve: resolveProvider } = organizationTarget(
  'SamlProvider',
  'providerId',
  'The provider: its global ID, or its platform id with `organizationId`.',
);

declareMutation('createSamlProvider', {
  description:
    'Adds a SAML identity provider to an organization (admins): pending until its sign-on URL, entity ID and certificate are all set.',
  input: 'The provider; only the label is required.',
  fields: {
    organizationId: organizationIdField,
    label: inputField('String', 'Name shown on the login page, 1 to 30 characters.', label),
    ...providerFields,
  },
  check: (input) => input.superRefine(sameOrganization),
  payload: (name) =>
    objectPayload(name, 'provider', SamlProviderNode, 'The new provider.', {
      type: SamlProviderEdge,
      what: 'provider',
      lists: '`Organization.samlProviders`',
    }),
  run: (i, ctx) =>
    providerPayload(ctx, i.organizationId, () =>
      createSamlProvider(
        ctx.api,
        i.organizationId,
        restBody({ label: i.label, ...restFields(i) }, { clearable: ['defaultRole'] }),
      ),
    ),
});

declareMutation('updateSamlProvider', {
  description:
    'Changes a SAML provider (admins); it becomes active once configured, pending again without its certificate.',
  input: 'The provider and what to change; fields left out stay, null removes them.',
  fields: {
    ...providerTarget,
    label: inputField('String', 'New label, 1 to 30 characters.', label.nullish()),
    ...providerFields,
  },
  check: (input) =>
    input
      .superRefine(noNull(['label']))
      .transform(resolveProvider)
      .superRefine(sameOrganization),
  payload: ProviderPayload,
  run: (i, ctx) =>
    providerPayload(ctx, i.organizationId, () =>
      updateSamlProvider(
        ctx.api,
        i.organizationId,
        i.providerId,
        restBody(
          { label: i.label, ...restFields(i) },
          {
            clearable: ['ssoURL', 'entityID', 'certificate', 'defaultTeam', 'defaultRole'],
            required: 'Give at least one field to change',
          },
        ),
      ),
    ),
});

declareMutation('deleteSamlProvider', {
  description: 'Removes a SAML provider (admins). With the last active one, the organization stops enforcing SSO.',
  input: 'The provider to remove.',
  fields: providerTarget,
  check: (input) => input.transform(resolveProvider),
  payload: (name) => deletedPayload(name, 'True when the provider was removed, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf(
      'SamlProvider',
      compositeKey(i.organizationId, i.providerId),
      deleteSamlProvider(ctx.api, i.organizationId, i.providerId),
    ),
});
