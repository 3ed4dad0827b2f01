import * as op from '../upstream/contract/operations.js';
import type { InstalledIntegration } from '../upstream/contract/types.js';
import { listOf } from '../upstream/operation.js';
import { builder } from './kit/builder.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { restEnum } from './kit/enums.js';
import { platformKey } from './kit/ids.js';
import { linkTo } from './kit/loaders.js';
import { upstream } from './kit/upstream-cost.js';
import {
  InstallationConnection,
  InstallationStatusEnum,
  IntegrationInstallationNode,
  IntegrationNode,
  integrationLink,
  primeInstallations,
  primeIntegrations,
} from './integrations.js';
import { OrganizationNode } from './organizations.js';
import { readSiteRef, SiteRef, siteLink } from './sites/site.js';
import { SpaceNode } from './spaces.js';

/**
 * What an organization has installed: `Organization.installations` (each linked to its integration,
 * for admins), `Organization.integrationStatuses` (installed on the organization, or on its spaces or
 * sites, for members) and `Organization.integrationStatus(integration:)`.
 */

type StatusHeld = InstalledIntegration & { organizationId: string };
type TargetType = InstalledIntegration['target']['type'];

const TargetTypeEnum = restEnum('InstalledIntegrationTargetType', 'What an installation is on.', {
  organization: 'The organization.',
  space: 'A space of the organization.',
  site: 'A site of the organization.',
} satisfies Record<TargetType, string>);

const InstalledIntegrationType = builder.objectRef<StatusHeld>('InstalledIntegration').implement({
  description: 'An integration installed on an organization, or enabled on one of its spaces or sites, and its status.',
  fields: (t) => ({
    status: t.field({
      type: InstallationStatusEnum,
      description: 'Whether it works there.',
      resolve: (s) => s.status,
    }),
    integration: t.field({
      type: IntegrationNode,
      description: 'The integration (it comes with the list).',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => integrationLink(s.integration.name, info),
    }),
    targetType: t.field({
      type: TargetTypeEnum,
      description: 'What it is installed on: the organization, or one of its spaces or sites.',
      resolve: (s) => s.target.type,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it is installed on.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(OrganizationNode, s.organizationId, info),
    }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space it is enabled on (null for another target).',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => (s.target.type === 'space' ? linkTo(SpaceNode, s.target.spaceId, info) : null),
    }),
    site: t.field({
      type: SiteRef,
      nullable: true,
      description: 'The site it is enabled on (null for another target).',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) =>
        s.target.type === 'site' ? (siteLink(s.organizationId, s.target.siteId, info) as never) : null,
    }),
  }),
});

const InstalledIntegrationEdge = builder.edgeObject({
  type: InstalledIntegrationType,
  name: 'InstalledIntegrationEdge',
  description: 'An installed integration of a list, with its cursor.',
});

const InstalledIntegrationConnection = builder.connectionObject(
  {
    type: InstalledIntegrationType,
    name: 'InstalledIntegrationConnection',
    description: 'A page of installed integrations and their statuses, with the size of the whole list.',
  },
  InstalledIntegrationEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  installations: t.connection(
    {
      type: IntegrationInstallationNode,
      nullable: true,
      description:
        'The integrations installed on the organization, each with its configuration and linked to its integration (admins; FORBIDDEN for others), by integration name.',
      args: { search: t.arg.string({ description: 'Only those whose integration’s name or title holds this text.' }) },
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(
          args,
          listOf(
            ctx.api,
            op.listOrganizationInstallations,
            { organizationId: org.id },
            {
              search: args.search ?? undefined,
            },
          ),
        );
        return mapNodes(connection, (items) => {
          primeIntegrations(
            ctx,
            items.map((item) => item.integration),
          );
          return items.flatMap((item) => primeInstallations(ctx, item.integration.name, [item.installation]));
        });
      },
    },
    InstallationConnection,
  ),
  integrationStatuses: t.connection(
    {
      type: InstalledIntegrationType,
      nullable: true,
      description:
        'The status of every integration installed on the organization (members), or with `target` on each of its spaces (those you can read) or sites; `space` or `site` narrows it to one.',
      args: {
        target: t.arg({ type: TargetTypeEnum, description: 'What the installations are on (default ORGANIZATION).' }),
        space: t.arg.id({ description: 'Only this space (platform id or global ID); with target SPACE.' }),
        site: t.arg.id({ description: 'Only this site (platform id or global ID); with target SITE.' }),
      },
      resolve: async (org, args, ctx) => {
        const space = args.space == null ? undefined : platformKey(String(args.space), 'Space');
        const site = args.site == null ? undefined : readSiteRef(String(args.site), 'Site').id;
        const connection = await listConnection(
          args,
          listOf(
            ctx.api,
            op.listOrganizationIntegrationsStatus,
            { organizationId: org.id },
            {
              target: args.target ?? undefined,
              space,
              site,
            },
          ),
        );
        return mapNodes(connection, (items) => {
          primeIntegrations(
            ctx,
            items.map((item) => item.integration),
          );
          return items.map((item) => ({ ...item, organizationId: org.id }));
        });
      },
    },
    InstalledIntegrationConnection,
  ),
  integrationStatus: t.field({
    type: InstallationStatusEnum,
    nullable: true,
    description:
      'The status of the installation of one integration on the organization (members); null with NOT_FOUND when it is not installed.',
    args: { integration: t.arg.string({ required: true, description: 'Name of the integration (or its global ID).' }) },
    extensions: upstream.fetch(1),
    resolve: async (org, args, ctx) => {
      const answer = await ctx.api.read(op.getOrganizationIntegrationStatus, {
        organizationId: org.id,
        integrationName: platformKey(args.integration, 'Integration'),
      });
      return answer.status;
    },
  }),
}));
