import type { GatewayContext } from '../context.js';
import * as op from '../upstream/contract/operations.js';
import type { AuditEvent, AuditEventDetails } from '../upstream/contract/types.js';
import { listOf, type RestPages } from '../upstream/operation.js';
import { builder } from './kit/builder.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { restEnum } from './kit/enums.js';
import { compositeKey, platformKey } from './kit/ids.js';
import { brandAs, linkTo, type Loadable, loadOrThrow, organizationNode, primeInOrganization } from './kit/loaders.js';
import { follow } from './kit/live.js';
import { upstream } from './kit/upstream-cost.js';
import { ChangeRequestNode } from './change-requests/change-request.js';
import { CollectionNode } from './collections.js';
import { OrganizationNode } from './organizations.js';
import { SiteRef } from './sites/site.js';
import { SpaceNode } from './spaces.js';
import { TeamNode } from './teams.js';
import { UserNode } from './users.js';

/**
 * Audit events of an organization (admins): every write of the platform, through any route or job,
 * with who made it, from where, and what it changed. `Organization.auditEvents` lists them newest
 * first with the platform's filters; an `AuditEvent`'s global ID carries its organization, and its
 * actor and target link to their nodes when the graph has them.
 */

/** Most events the platform answers in one page (the description's maximum of `limit`). */
const MAX_AUDIT_PAGE = 100;

type HeldEvent = AuditEvent &
  Partial<Pick<AuditEventDetails, 'correlationId' | 'executionId' | 'payload' | 'schemaVersion'>>;

export const AuditEventNode = organizationNode<HeldEvent>('AuditEvent', (organizationId, auditEventId, ctx) =>
  ctx.api.read(op.getOrganizationAuditEvent, { organizationId, auditEventId }),
);

const ActorTypeEnum = restEnum('AuditActorType', 'Who made a recorded change.', {
  user: 'A person, with their API token.',
  integration: 'An integration acting on its own.',
  installation: 'An integration’s installation, with its installation token.',
  system: 'The platform itself: background work, seeds and maintenance.',
  support: 'The platform’s support staff.',
});

const SourceEnum = restEnum('AuditSource', 'The entry point through which a change was made.', {
  ui: 'The platform’s own application.',
  api: 'The REST API (and this gateway).',
  integration: 'An integration’s calls.',
  webhook: 'An incoming webhook.',
  workflow: 'Background work of the platform (a job).',
  script: 'A script run on the platform (its demo data, maintenance).',
  support: 'The platform’s support tools.',
});

/** The details of an event: held when it came from `node(id:)`, else read once (the list does not carry them). */
async function detailsOf(event: InOrg, ctx: GatewayContext): Promise<AuditEventDetails> {
  if (event.schemaVersion !== undefined && event.payload !== undefined) return event as AuditEventDetails;
  return ctx.api.read(op.getOrganizationAuditEvent, {
    organizationId: event.organizationId,
    auditEventId: event.id,
  });
}

type InOrg = HeldEvent & { organizationId: string };

const AuditActorType = builder.objectRef<{ actor: AuditEvent['actor'] }>('AuditActor').implement({
  description: 'Who made a recorded change, as recorded then.',
  fields: (t) => ({
    type: t.field({ type: ActorTypeEnum, description: 'What kind of actor.', resolve: (a) => a.actor.type }),
    platformId: t.string({ description: 'Its stable id on the platform.', resolve: (a) => a.actor.id }),
    label: t.string({
      nullable: true,
      description: 'Its name when the change was made.',
      resolve: (a) => a.actor.label ?? null,
    }),
    user: t.field({
      type: UserNode,
      nullable: true,
      description: 'The user, when the actor is one.',
      extensions: upstream.link,
      resolve: (a, _args, _ctx, info) => (a.actor.type === 'user' ? linkTo(UserNode, a.actor.id, info) : null),
    }),
  }),
});

/** How the graph reads a target type: its node and key, from the event (and its details when needed). */
const TARGET_NODES: Record<
  string,
  { typename: string; ref: Loadable<unknown>; key: (e: InOrg, ctx: GatewayContext) => Promise<string> | string }
> = {
  space: { typename: 'Space', ref: SpaceNode as Loadable<unknown>, key: (e) => e.target.id },
  collection: { typename: 'Collection', ref: CollectionNode as Loadable<unknown>, key: (e) => e.target.id },
  organization: { typename: 'Organization', ref: OrganizationNode as Loadable<unknown>, key: (e) => e.target.id },
  member: { typename: 'User', ref: UserNode as Loadable<unknown>, key: (e) => e.target.id },
  team: {
    typename: 'Team',
    ref: TeamNode as Loadable<unknown>,
    key: (e) => compositeKey(e.organizationId, e.target.id),
  },
  site: {
    typename: 'Site',
    ref: SiteRef as Loadable<unknown>,
    key: (e) => compositeKey(e.organizationId, e.target.id),
  },
  change_request: {
    typename: 'ChangeRequest',
    ref: ChangeRequestNode as Loadable<unknown>,
    key: async (e, ctx) => {
      const { payload } = await detailsOf(e, ctx);
      return compositeKey(String(payload.spaceId), e.target.id);
    },
  },
};

const AuditTargetType = builder.objectRef<InOrg>('AuditTarget').implement({
  description: 'What a recorded change was made to, as recorded then.',
  fields: (t) => ({
    type: t.string({
      description: 'Its kind (`space`, `site_redirect`, `member`…).',
      resolve: (e) => e.target.type,
    }),
    platformId: t.string({ description: 'Its stable id on the platform.', resolve: (e) => e.target.id }),
    label: t.string({
      nullable: true,
      description: 'Its name when the change was made.',
      resolve: (e) => e.target.label ?? null,
    }),
    node: t.field({
      type: builder.nodeInterfaceRef(),
      nullable: true,
      description:
        'The object now, when the graph has its type (a space, collection, site, change request, team, member’s user or the organization); null for other types, and with NOT_FOUND when it is gone.',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) => {
        const known = TARGET_NODES[e.target.type];
        if (!known) return null;
        const node = (await loadOrThrow(known.ref, ctx, await known.key(e, ctx))) as object;
        brandAs(node, known.typename);
        return node as never;
      },
    }),
  }),
});

AuditEventNode.implement({
  description: 'A recorded change to an organization: who made it, from where, to what, and when.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the event on the platform.' }),
    occurredAt: t.field({ type: 'DateTime', description: 'When the change was made.', resolve: (e) => e.occurredAt }),
    action: t.exposeString('action', {
      description:
        'What was done: a stable action name (`space.created`); `Organization.auditEventActions` labels them.',
    }),
    source: t.field({ type: SourceEnum, description: 'Where the change came from.', resolve: (e) => e.source }),
    actor: t.field({ type: AuditActorType, description: 'Who made the change.', resolve: (e) => ({ actor: e.actor }) }),
    target: t.field({ type: AuditTargetType, description: 'What the change was made to.', resolve: (e) => e }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (e, _args, _ctx, info) => linkTo(OrganizationNode, e.organizationId, info),
    }),
    correlationId: t.string({
      description: 'Shared by the events of one action of a caller (one GraphQL request, one job).',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) => (await detailsOf(e, ctx)).correlationId ?? '',
    }),
    executionId: t.string({
      description: 'The operation that recorded it (the platform’s request, or the job).',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) => (await detailsOf(e, ctx)).executionId ?? '',
    }),
    schemaVersion: t.int({
      description: 'Version of the schema of `payload` for its action.',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) => (await detailsOf(e, ctx)).schemaVersion,
    }),
    payload: t.field({
      type: 'JSON',
      description:
        'Details of the change allowed to be shown (`changed`: the fields an update changed; the role given…): never a secret.',
      extensions: upstream.fetch(1),
      resolve: async (e, _args, ctx) => (await detailsOf(e, ctx)).payload,
    }),
  }),
});

const AuditEventEdge = builder.edgeObject({
  type: AuditEventNode,
  name: 'AuditEventEdge',
  description: 'An audit event of a list, with its cursor.',
});

const AuditEventConnection = builder.connectionObject(
  {
    type: AuditEventNode,
    name: 'AuditEventConnection',
    description: 'A page of audit events, newest first, with the size of the whole (filtered) list.',
  },
  AuditEventEdge,
);

const AuditEventActionType = builder.objectRef<{ id: string; label: string }>('AuditEventAction').implement({
  description: 'An action audit events record, with its label.',
  fields: (t) => ({
    action: t.exposeString('id', { description: 'The stable action name (`member.role_updated`).' }),
    label: t.exposeString('label', { description: 'What it says, for people.' }),
  }),
});

/** A list whose pages the platform bounds at MAX_AUDIT_PAGE: longer pages are read in several. */
function boundedPages<T>(pages: RestPages<T>): RestPages<T> {
  return { read: (page, limit) => pages.read(page, Math.min(limit, MAX_AUDIT_PAGE)), first: pages.first };
}

builder.objectFields(OrganizationNode, (t) => ({
  auditEvents: t.connection(
    {
      type: AuditEventNode,
      nullable: true,
      description: `Its audit events (admins; FORBIDDEN for others), newest first: every change made through any route or job. Read ${MAX_AUDIT_PAGE} per upstream request.`,
      args: {
        actor: t.arg.string({ description: 'Only the changes of this actor (`AuditActor.platformId`).' }),
        action: t.arg.string({ description: 'Only this action (`space.created`).' }),
        target: t.arg.string({ description: 'Only the changes to this object (`AuditTarget.platformId`).' }),
        from: t.arg({ type: 'DateTime', description: 'Only the changes made at or after this time.' }),
        to: t.arg({ type: 'DateTime', description: 'Only the changes made at or before this time.' }),
      },
      // `first` up to 1000 reads up to 10 pages of the platform's 100.
      extensions: upstream.fetch(1000 / MAX_AUDIT_PAGE),
      resolve: async (org, args, ctx) => {
        const filters = Object.fromEntries(
          (['actor', 'action', 'target', 'from', 'to'] as const)
            .filter((name) => args[name] != null)
            .map((name) => [name, String(args[name])]),
        );
        const pages = boundedPages(
          listOf(ctx.api, op.listOrganizationAuditEvents, { organizationId: org.id }, filters),
        );
        const connection = await listConnection(args, pages);
        return mapNodes(connection, (items) => primeInOrganization(AuditEventNode, ctx, org.id, items));
      },
    },
    AuditEventConnection,
  ),
  auditEventActions: t.field({
    type: [AuditEventActionType],
    nullable: true,
    description: 'The actions audit events record, with their labels (admins; FORBIDDEN for others).',
    extensions: upstream.fetch(1),
    resolve: async (org, _args, ctx) =>
      (await ctx.api.read(op.listOrganizationAuditEventActions, { organizationId: org.id })).items,
  }),
}));

/** Events an `auditEventsAdded` event holds: the newest. */
const FOLLOWED_EVENTS = 20;

const AuditEventsUpdate = builder
  .objectRef<{ organizationId: string; events: AuditEvent[]; count: number }>('AuditEventsUpdate')
  .implement({
    description: 'The newest audit events of an organization, as they are now.',
    fields: (t) => ({
      organization: t.field({
        type: OrganizationNode,
        description: 'The organization followed.',
        extensions: upstream.link,
        resolve: (e, _args, _ctx, info) => linkTo(OrganizationNode, e.organizationId, info),
      }),
      totalCount: t.int({ description: 'How many events it holds.', resolve: (e) => e.count }),
      events: t.field({
        type: [AuditEventNode],
        description: `The newest ${FOLLOWED_EVENTS} events, newest first.`,
        resolve: (e, _args, ctx) => primeInOrganization(AuditEventNode, ctx, e.organizationId, e.events),
      }),
    }),
  });

builder.subscriptionField('auditEventsAdded', (t) =>
  t.field({
    type: AuditEventsUpdate,
    description:
      'The newest audit events of an organization (admins): first as they are, then after each new event. One poll per organization and token, shared by its subscribers. Ends with FORBIDDEN or NOT_FOUND when you may no longer read them.',
    args: {
      organizationId: t.arg.id({ required: true, description: 'The organization: its global ID or platform id.' }),
    },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const organizationId = platformKey(String(args.organizationId), 'Organization');
      return follow(
        ctx,
        `audit-events ${organizationId}`,
        async (api) => {
          const page = await api.read(op.listOrganizationAuditEvents, { organizationId }, { limit: FOLLOWED_EVENTS });
          return { organizationId, events: page.items, count: page.count };
        },
        (value) => value.events[0]?.id ?? null,
      );
    },
    resolve: (event) => event,
  }),
);
