import { z } from 'zod';
import { type ConnectionArgs, listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { BadUserInputError } from '../errors.js';
import { compositeKey } from './kit/ids.js';
import { listOrganizationChangeRequests } from '../upstream/change-requests.js';
import {
  getConversation,
  getConversationIssue,
  getIssuesCluster,
  ingestConversations,
  listConversationIssues,
  listConversations,
  listIssuesClusters,
  setIssuesClusterMuted,
} from '../upstream/conversations.js';
import type {
  Conversation,
  ConversationDetail,
  ConversationIssue,
  ConversationIssueWithConversation,
  ConversationPart as RestConversationPart,
  IssuesCluster,
} from '../upstream/contract/types.js';
import type { listIssuesClusters as listClustersRecord } from '../upstream/contract/operations.js';
import type { QueryOf } from '../upstream/record.js';
import { builder } from './kit/builder.js';
import {
  ChangeRequestConnection,
  ChangeRequestNode,
  ChangeRequestStatusEnum,
  listRequests,
} from './change-requests/index.js';
import { linkTo, loadOrThrow, organizationNode, primeInOrganization, type InOrganization } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { DocumentType } from './kit/document.js';
import { objectPayload, payloadType } from './kit/payloads.js';
import { OrderEnum, restEnum } from './kit/enums.js';
import { readOwnedId } from './kit/ids.js';
import { SpaceNode } from './spaces.js';
import { organizationTarget } from './targets.js';

/**
 * Support conversations an organization ingests, the issues the platform finds in them, and the
 * clusters it groups similar issues into (which change requests can address). Every global ID
 * carries the organization.
 */

type ConversationHeld = InOrganization<Conversation & Partial<Pick<ConversationDetail, 'parts' | 'metadata'>>>;
type IssueHeld = InOrganization<ConversationIssue>;
type ClusterHeld = InOrganization<IssuesCluster>;

export const ConversationNode = organizationNode<
  Conversation & Partial<Pick<ConversationDetail, 'parts' | 'metadata'>>
>('Conversation', async (organizationId, id, ctx) => {
  const detail = await getConversation(ctx.api, organizationId, id);
  return { ...detail.conversation, parts: detail.parts, metadata: detail.metadata };
});

export const ConversationIssueNode = organizationNode<ConversationIssue>(
  'ConversationIssue',
  async (organizationId, id, ctx) => {
    const item = await getConversationIssue(ctx.api, organizationId, id);
    primeInOrganization(ConversationNode, ctx, organizationId, [item.conversation]);
    return item.issue;
  },
);

export const IssuesClusterNode = organizationNode<IssuesCluster>('IssuesCluster', (organizationId, id, ctx) =>
  getIssuesCluster(ctx.api, organizationId, id),
);

/** The messages and metadata of a conversation: a list item has neither, its own read has both. */
async function detailOf(ctx: GatewayContext, held: ConversationHeld) {
  if (held.parts && held.metadata) return { parts: held.parts, metadata: held.metadata };
  return getConversation(ctx.api, held.organizationId, held.id);
}

/** Primes the issues of a list (and the conversations that come with them); answers the issues. */
function primeIssues(
  ctx: GatewayContext,
  organizationId: string,
  items: Iterable<ConversationIssueWithConversation>,
): IssueHeld[] {
  const list = [...items];
  primeInOrganization(
    ConversationNode,
    ctx,
    organizationId,
    list.map((item) => item.conversation),
  );
  return primeInOrganization(
    ConversationIssueNode,
    ctx,
    organizationId,
    list.map((item) => item.issue),
  );
}

const ImpactEnum = restEnum('IssueImpact', 'How badly an issue hurts the people who raise it.', {
  low: 'A question or an annoyance.',
  medium: 'Blocking someone, or raised again and again.',
  high: 'Losing data, or blocking someone again and again.',
});

const PartTypeEnum = restEnum('ConversationPartType', 'The kind of a part of a conversation.', {
  message: 'A message.',
} satisfies Record<RestConversationPart['type'], string>);

const ConversationPart = builder.objectRef<ConversationDetail['parts'][number]>('ConversationPart').implement({
  description: 'A message of a conversation.',
  fields: (t) => ({
    type: t.field({ type: PartTypeEnum, description: 'Kind of part.', resolve: (part) => part.type }),
    role: t.exposeString('role', {
      description:
        'Who wrote it: `user` for the person asking, anything else for the other side (`assistant`, `agent`).',
    }),
    body: t.exposeString('body', { description: 'Text of the message.' }),
  }),
});

const ConversationMetadata = builder.objectRef<ConversationDetail['metadata']>('ConversationMetadata').implement({
  description: 'What the source said about a conversation.',
  fields: (t) => ({
    url: t.string({
      nullable: true,
      description: 'The conversation in its source (a ticket, a chat).',
      resolve: (m) => m.url ?? null,
    }),
    attributes: t.field({
      type: 'JSON',
      description: 'Attributes given by the source, as a map of strings.',
      resolve: (m) => m.attributes,
    }),
    createdAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it started in its source.',
      resolve: (m) => m.createdAt ?? null,
    }),
  }),
});

const IssueConnection = builder.connectionObject(
  {
    type: ConversationIssueNode,
    name: 'ConversationIssueConnection',
    description: 'A page of conversation issues, newest first, with the size of the whole list.',
  },
  { name: 'ConversationIssueEdge', description: 'An issue of a list, with its cursor.' },
);

/** Lists issues of an organization with the filters of the platform. */
async function listIssues(
  ctx: GatewayContext,
  organizationId: string,
  args: ConnectionArgs,
  filters: { cluster?: string | undefined; conversation?: string | undefined },
) {
  const connection = await listConnection(args, listConversationIssues(ctx.api, organizationId, filters));
  return mapNodes(connection, (items) => primeIssues(ctx, organizationId, items));
}

ConversationNode.implement({
  description:
    'A support conversation (a chat, a ticket, docs feedback) ingested by an organization, split into the issues it raises.',
  fields: (t) => ({
    platformId: t.exposeString('id', {
      description: 'Id of the conversation in its source (the id it was ingested with).',
    }),
    subject: t.string({
      nullable: true,
      description: 'Its subject, when it had one.',
      resolve: (c) => c.subject ?? null,
    }),
    source: t.string({
      nullable: true,
      description: 'Where it comes from (`intercom`, `email`, …).',
      resolve: (c) => c.source ?? null,
    }),
    impact: t.field({
      type: ImpactEnum,
      nullable: true,
      description: 'The highest impact of its issues.',
      resolve: (c) => c.impact ?? null,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it took place.', resolve: (c) => c.createdAt }),
    processedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the platform last split it into issues.',
      resolve: (c) => c.processedAt ?? null,
    }),
    sourceUrl: t.string({
      nullable: true,
      description: 'The conversation in its source.',
      resolve: (c) => c.urls.source ?? null,
    }),
    parts: t.field({
      type: [ConversationPart],
      nullable: true,
      description: 'Its messages, in order (read with the conversation; one request for a conversation of a list).',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx) => (await detailOf(ctx, c)).parts,
    }),
    metadata: t.field({
      type: ConversationMetadata,
      nullable: true,
      description: 'What its source said about it.',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx) => (await detailOf(ctx, c)).metadata,
    }),
    issues: t.connection(
      {
        type: ConversationIssueNode,
        description: 'The issues found in it.',
        resolve: (c, args, ctx) => listIssues(ctx, c.organizationId, args, { conversation: c.id }),
      },
      IssueConnection,
    ),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization that ingested it.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) => linkTo(OrganizationNode, c.organizationId, info),
    }),
  }),
});

ConversationIssueNode.implement({
  description: 'A problem someone raised in a conversation, as the platform found it.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the issue on the platform.' }),
    title: t.exposeString('title', { description: 'The problem in a sentence.' }),
    details: t.field({
      type: DocumentType,
      description: 'What the person said about it.',
      resolve: (i) => i.details,
    }),
    impact: t.field({ type: ImpactEnum, description: 'How badly it hurts.', resolve: (i) => i.impact }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was raised (the conversation’s date).',
      resolve: (i) => i.createdAt,
    }),
    ingestedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was ingested.',
      resolve: (i) => i.ingestedAt ?? null,
    }),
    conversation: t.field({
      type: ConversationNode,
      description: 'The conversation it was raised in (comes with the issue).',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) =>
        linkTo(
          ConversationNode,
          compositeKey(i.organizationId, i.conversation),
          info,
          () => ({ id: i.conversation, organizationId: i.organizationId }) as ConversationHeld,
        ),
    }),
    cluster: t.field({
      type: IssuesClusterNode,
      nullable: true,
      description: 'The cluster of similar issues it belongs to.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) =>
        i.cluster
          ? linkTo(
              IssuesClusterNode,
              compositeKey(i.organizationId, i.cluster),
              info,
              () => ({ id: i.cluster!, organizationId: i.organizationId }) as ClusterHeld,
            )
          : null,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (i, _args, _ctx, info) => linkTo(OrganizationNode, i.organizationId, info),
    }),
  }),
});

const SourceCount = builder.objectRef<{ source: string; count: number }>('ConversationSourceCount').implement({
  description: 'How many conversations of a cluster came from one source.',
  fields: (t) => ({
    source: t.exposeString('source', { description: 'The source (`intercom`, `email`, …).' }),
    count: t.exposeInt('count', { description: 'Conversations from it.' }),
  }),
});

const ClusterStats = builder.objectRef<IssuesCluster['stats']>('IssuesClusterStats').implement({
  description: 'The size of a cluster.',
  fields: (t) => ({
    issues: t.exposeInt('issues', { description: 'Issues in it.' }),
    conversations: t.exposeInt('conversations', { description: 'Distinct conversations its issues come from.' }),
  }),
});

IssuesClusterNode.implement({
  description:
    'Similar issues of many conversations, grouped by the platform: a recurring problem worth a change to the documentation.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the cluster on the platform.' }),
    label: t.exposeString('label', { description: 'A short name made of its most telling terms.' }),
    icon: t.string({ nullable: true, description: 'An icon name for it.', resolve: (c) => c.icon ?? null }),
    summary: t.field({
      type: DocumentType,
      nullable: true,
      description: 'What the problem is, in a few sentences.',
      resolve: (c) => c.summary ?? null,
    }),
    muted: t.exposeBoolean('muted', {
      description: 'Muted: left out of suggestions, and no new change request may address it.',
    }),
    impact: t.field({
      type: ImpactEnum,
      description: 'How badly it hurts, from its issues.',
      resolve: (c) => c.impact,
    }),
    weeklyPulse: t.field({
      type: ['Int'],
      description: 'Issues raised each week of the last 13 weeks, oldest first.',
      resolve: (c) => c.weeklyPulse,
    }),
    sources: t.field({
      type: [SourceCount],
      description: 'Conversations by source, most first.',
      resolve: (c) =>
        Object.entries(c.sources)
          .map(([source, count]) => ({ source, count }))
          .sort((a, b) => b.count - a.count || a.source.localeCompare(b.source)),
    }),
    stats: t.field({ type: ClusterStats, description: 'Its size.', resolve: (c) => c.stats }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When its first issue was grouped.',
      resolve: (c) => c.createdAt,
    }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (c) => c.updatedAt }),
    issues: t.connection(
      {
        type: ConversationIssueNode,
        description: 'Its issues, newest first.',
        resolve: (c, args, ctx) => listIssues(ctx, c.organizationId, args, { cluster: c.id }),
      },
      IssueConnection,
    ),
    changeRequests: t.connection(
      {
        type: ChangeRequestNode,
        nullable: true,
        description:
          'Change requests of the organization that address it (open ones unless `status` says otherwise), newest first.',
        args: {
          status: t.arg({ type: ChangeRequestStatusEnum, description: 'Only those in this state (default OPEN).' }),
        },
        resolve: (c, args, ctx) =>
          listRequests(ctx, { ...args, conversationsIssuesCluster: c.id }, (filters) =>
            listOrganizationChangeRequests(ctx.api, c.organizationId, filters),
          ),
      },
      ChangeRequestConnection,
    ),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) => linkTo(OrganizationNode, c.organizationId, info),
    }),
  }),
});

builder.objectFields(ChangeRequestNode, (t) => ({
  conversationsIssuesCluster: t.field({
    type: IssuesClusterNode,
    nullable: true,
    description: 'The issue cluster (of support conversations) it addresses, if any.',
    extensions: upstream.fetch(2),
    resolve: async (r, _args, ctx) => {
      if (!r.conversationsIssuesCluster) return null;
      const space = await SpaceNode.getDataloader(ctx).load(r.space);
      if (space instanceof Error) throw space;
      const cluster = await IssuesClusterNode.getDataloader(ctx).load(
        compositeKey(space.organization, r.conversationsIssuesCluster),
      );
      if (cluster instanceof Error) throw cluster;
      return cluster;
    },
  }),
}));

// --- Lists of an organization ------------------------------------------------------------------

const ConversationConnection = builder.connectionObject(
  {
    type: ConversationNode,
    name: 'ConversationConnection',
    description: 'A page of conversations, newest first, with the size of the whole list.',
  },
  { name: 'ConversationEdge', description: 'A conversation of a list, with its cursor.' },
);

const ClusterConnection = builder.connectionObject(
  {
    type: IssuesClusterNode,
    name: 'IssuesClusterConnection',
    description: 'A page of issue clusters, with the size of the whole list.',
  },
  { name: 'IssuesClusterEdge', description: 'A cluster of a list, with its cursor.' },
);

/** What the platform sorts clusters by. */
type ClusterOrderBy = NonNullable<NonNullable<QueryOf<typeof listClustersRecord>>['orderBy']>;

const ClusterOrderByEnum = builder.enumType('IssuesClusterOrderBy', {
  description: 'What issue clusters are sorted by.',
  values: {
    UPDATED_AT: { value: 'updatedAt', description: 'When they last changed (default).' },
    CREATED_AT: { value: 'createdAt', description: 'When they were formed.' },
    ISSUES: { value: 'issues', description: 'Their number of issues.' },
    CONVERSATIONS: { value: 'conversations', description: 'Their number of conversations.' },
    IMPACT: { value: 'impact', description: 'Their impact.' },
  } satisfies Record<string, { value: ClusterOrderBy; description: string }>,
});

/**
 * An argument naming a node of organization `organizationId` by global ID or platform id: the
 * platform id. A global ID of another organization's node is BAD_USER_INPUT naming `argument`.
 */
function idFilter(
  value: string | null | undefined,
  typename: string,
  organizationId: string,
  argument: string,
): string | undefined {
  if (value == null) return undefined;
  const read = readOwnedId(value, typename);
  if (!read)
    throw new BadUserInputError(
      `\`${argument}\` is not a valid id of ${typename === 'IssuesCluster' ? 'an issue cluster' : 'a conversation'}`,
      [argument],
    );
  const { id, organizationId: org = organizationId } = read;
  if (org !== organizationId)
    throw new BadUserInputError(
      `\`${argument}\` is the id of ${typename === 'IssuesCluster' ? 'an issue cluster' : 'a conversation'} of another organization`,
      [argument],
    );
  return id;
}

builder.objectFields(OrganizationNode, (t) => ({
  conversations: t.connection(
    {
      type: ConversationNode,
      nullable: true,
      description: 'Support conversations the organization ingested, newest first (members, not guests).',
      args: { source: t.arg.string({ description: 'Only those from this source (`intercom`, `email`, …).' }) },
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(
          args,
          listConversations(ctx.api, org.id, { source: args.source ?? undefined }),
        );
        return mapNodes(connection, (items) => primeInOrganization(ConversationNode, ctx, org.id, items));
      },
    },
    ConversationConnection,
  ),
  conversation: t.field({
    type: ConversationNode,
    nullable: true,
    description: 'A conversation by the id it was ingested with; null with NOT_FOUND when there is none.',
    args: { id: t.arg.id({ required: true, description: 'Id of the conversation in its source, or its global ID.' }) },
    extensions: upstream.fetch(1),
    resolve: (org, args, ctx) =>
      loadOrThrow(
        ConversationNode,
        ctx,
        compositeKey(org.id, idFilter(String(args.id), 'Conversation', org.id, 'id')!),
      ),
  }),
  conversationIssues: t.connection(
    {
      type: ConversationIssueNode,
      nullable: true,
      description: 'Issues found in the organization’s conversations, newest first.',
      args: {
        clusterId: t.arg.id({ description: 'Only those of this cluster (platform id or global ID).' }),
        conversationId: t.arg.id({ description: 'Only those of this conversation (its id or global ID).' }),
      },
      resolve: (org, args, ctx) =>
        listIssues(ctx, org.id, args, {
          cluster: idFilter(args.clusterId as string | null, 'IssuesCluster', org.id, 'clusterId'),
          conversation: idFilter(args.conversationId as string | null, 'Conversation', org.id, 'conversationId'),
        }),
    },
    IssueConnection,
  ),
  issuesClusters: t.connection(
    {
      type: IssuesClusterNode,
      nullable: true,
      description:
        'Clusters of similar issues, most recently changed first unless `orderBy` and `order` say otherwise.',
      args: {
        orderBy: t.arg({ type: ClusterOrderByEnum, description: 'What to sort by (default UPDATED_AT).' }),
        order: t.arg({ type: OrderEnum, description: 'Direction (default DESC).' }),
        muted: t.arg.boolean({ description: 'Only muted clusters (true) or only the others (false).' }),
      },
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(
          args,
          listIssuesClusters(ctx.api, org.id, {
            orderBy: args.orderBy ?? undefined,
            order: args.order ?? undefined,
            muted: args.muted ?? undefined,
          }),
        );
        return mapNodes(connection, (items) => primeInOrganization(IssuesClusterNode, ctx, org.id, items));
      },
    },
    ClusterConnection,
  ),
  issuesCluster: t.field({
    type: IssuesClusterNode,
    nullable: true,
    description: 'An issue cluster by id; null with NOT_FOUND when there is none.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the cluster.' }) },
    extensions: upstream.fetch(1),
    resolve: (org, args, ctx) =>
      loadOrThrow(
        IssuesClusterNode,
        ctx,
        compositeKey(org.id, idFilter(String(args.id), 'IssuesCluster', org.id, 'id')!),
      ),
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const ConversationPartInput = inputObject('ConversationPartInput', {
  description: 'A message of a conversation.',
  fields: {
    role: inputField(
      'String',
      'Who wrote it: `user` for the person asking, `assistant` or `agent` for the other side (1 to 50 characters).',
      z.string().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters'),
    ),
    body: inputField(
      'String',
      'Text of the message, at most 20000 characters.',
      z.string().max(20_000, 'must be at most 20000 characters'),
    ),
  },
});

const ConversationMetadataInput = inputObject('ConversationMetadataInput', {
  description: 'What the source says about a conversation.',
  fields: {
    url: inputField(
      'String',
      'The conversation in its source (http or https).',
      z
        .string()
        .url('must be an absolute URL')
        .refine((v) => /^https?:\/\//i.test(v), 'must be an http or https URL')
        .nullish(),
    ),
    attributes: inputField(
      'JSON',
      'Attributes as a map of strings (at most 50; keys of 1 to 100 characters, values of at most 1000).',
      z
        .record(
          z.string().min(1, 'must have non-empty keys').max(100, 'must have keys of at most 100 characters'),
          z.string().max(1000, 'must be at most 1000 characters'),
        )
        .refine((a) => Object.keys(a).length <= 50, 'must have at most 50 attributes')
        .nullish(),
    ),
    createdAt: inputField(
      'DateTime',
      'When it started in its source.',
      z.iso.datetime({ offset: true, message: 'must be a date-time such as 2025-01-31T12:00:00Z' }).nullish(),
    ),
  },
});

const ConversationInput = inputObject('ConversationInput', {
  description: 'A conversation to ingest; one already ingested with the same id is replaced, never duplicated.',
  fields: {
    id: inputField(
      'ID',
      'Its id in its source: 1 to 200 characters, no slash, space or control character.',
      z
        .string()
        .min(1, 'must be 1 to 200 characters')
        .max(200, 'must be 1 to 200 characters')
        .regex(/^[^/\p{Cc}\s]+$/u, 'must not contain slashes, spaces or control characters'),
    ),
    subject: inputField(
      'String',
      'Its subject, at most 500 characters.',
      z.string().max(500, 'must be at most 500 characters').nullish(),
    ),
    source: inputField(
      'String',
      'Where it comes from: lower-case letters, digits, dots, dashes or underscores (`intercom`).',
      z
        .string()
        .regex(/^[a-z0-9][a-z0-9._-]{0,49}$/, 'must be 1 to 50 lower-case letters, digits, dots, dashes or underscores')
        .nullish(),
    ),
    metadata: inputField(
      ConversationMetadataInput.type,
      'What its source says about it.',
      ConversationMetadataInput.schema.nullish(),
    ),
    parts: inputField(
      [ConversationPartInput.type],
      'Its messages, in order (1 to 500).',
      z
        .array(ConversationPartInput.schema)
        .min(1, 'must hold at least one message')
        .max(500, 'must hold at most 500 messages'),
    ),
  },
});

/** The REST body of a checked conversation. */
function restConversation(c: z.output<typeof ConversationInput.schema>) {
  const metadata = c.metadata
    ? {
        ...(c.metadata.url != null && { url: c.metadata.url }),
        ...(c.metadata.attributes != null && { attributes: c.metadata.attributes }),
        ...(c.metadata.createdAt != null && { createdAt: c.metadata.createdAt }),
      }
    : undefined;
  return {
    id: c.id,
    ...(c.subject != null && { subject: c.subject }),
    ...(c.source != null && { source: c.source }),
    ...(metadata && { metadata }),
    parts: c.parts.map((part) => ({ type: 'message' as const, role: part.role, body: part.body })),
  };
}

declareMutation('ingestConversations', {
  description:
    'Ingests support conversations (admins): each is split into the issues it raises, and the issues are grouped with similar ones into clusters. A conversation whose id was ingested before is replaced.',
  input: 'The organization and 1 to 100 conversations.',
  fields: {
    organizationId: organizationIdField,
    conversations: inputField(
      [ConversationInput.type],
      'The conversations, 1 to 100; each id once.',
      z
        .array(ConversationInput.schema)
        .min(1, 'must hold 1 to 100 conversations')
        .max(100, 'must hold 1 to 100 conversations')
        .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'must give each id once'),
    ),
  },
  payload: (name) =>
    payloadType<{ ingested: number; organizationId: string; ids: string[] }>(name, (t) => ({
      ingested: t.int({
        nullable: true,
        description: 'How many conversations were ingested (new or replaced).',
        resolve: (p) => p.ingested ?? null,
      }),
      conversations: t.field({
        type: [ConversationNode],
        nullable: true,
        description: 'The conversations as ingested, with their issues (one request each for more than their ids).',
        extensions: upstream.links(100),
        resolve: (p, _args, _ctx, info) =>
          p.ids?.map((id) =>
            linkTo(
              ConversationNode,
              compositeKey(p.organizationId!, id),
              info,
              () => ({ id, organizationId: p.organizationId! }) as ConversationHeld,
            ),
          ) ?? null,
      }),
    })),
  run: async (i, ctx) => {
    await ingestConversations(ctx.api, i.organizationId, i.conversations.map(restConversation));
    return {
      ingested: i.conversations.length,
      organizationId: i.organizationId,
      ids: i.conversations.map((c) => c.id),
    };
  },
});

const { fields: clusterTarget, resolve: resolveCluster } = organizationTarget(
  'IssuesCluster',
  'clusterId',
  'The cluster: its global ID, or its platform id with `organizationId`.',
);

declareMutation('setIssuesClusterMuted', {
  description:
    'Mutes an issue cluster (left out of suggestions; no new change request may address it) or unmutes it (the edit role).',
  input: 'The cluster and whether it is muted.',
  fields: { ...clusterTarget, muted: inputField('Boolean', 'True to mute it, false to unmute it.', z.boolean()) },
  check: (input) => input.transform(resolveCluster),
  payload: (name) => objectPayload(name, 'cluster', IssuesClusterNode, 'The cluster after the change.'),
  run: async (i, ctx) => {
    const data = await setIssuesClusterMuted(ctx.api, i.organizationId, i.clusterId, i.muted);
    return { cluster: primeInOrganization(IssuesClusterNode, ctx, i.organizationId, [data])[0]! };
  },
});
