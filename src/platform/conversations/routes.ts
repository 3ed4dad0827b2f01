import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  badRequest,
  booleanParam,
  describeIssue,
  now,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
} from '../http.js';
import {
  CLUSTER_ORDER_BY,
  conversationChars,
  ingestConversationsInSlices,
  listClusters,
  listConversations,
  listIssues,
  MAX_CONVERSATION_CHARS,
  MAX_INGEST_BATCH,
  MAX_INGEST_CHARS,
  requireCluster,
  requireConversation,
  requireIssue,
  setClusterMuted,
} from './store.js';
import { clusterJson, conversationDetailJson, conversationJson, issueWithConversationJson } from './json.js';
import { httpUrlSchema } from '../schemas.js';

/** Longest message body, subject, and number of messages of one conversation. */
const MAX_BODY = 20_000;
const MAX_SUBJECT = 500;
const MAX_PARTS = 500;

/** Conversation ids are the client's: printable, no slash (they are path segments). */
const conversationId = z
  .string({ message: 'is required: the id of the conversation in its source' })
  .min(1, 'must be 1 to 200 characters')
  .max(200, 'must be 1 to 200 characters')
  .regex(/^[^/\p{Cc}\s]+$/u, 'must not contain slashes, spaces or control characters');

const sourceName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9._-]{0,49}$/,
    'must be 1 to 50 lower-case letters, digits, dots, dashes or underscores, such as intercom',
  );

const conversationBody = z
  .strictObject({
    id: conversationId,
    subject: z.string().max(MAX_SUBJECT, `must be at most ${MAX_SUBJECT} characters`).optional(),
    // Beside the documented fields: where the conversation comes from (else `metadata.attributes.source`, else `api`).
    source: sourceName.optional(),
    metadata: z
      .strictObject({
        url: httpUrlSchema.optional(),
        attributes: z
          .record(
            z.string().min(1, 'must have non-empty keys').max(100, 'must have keys of at most 100 characters'),
            z.string().max(1000, 'must be at most 1000 characters'),
          )
          .refine((attributes) => Object.keys(attributes).length <= 50, 'must have at most 50 attributes')
          .optional(),
        createdAt: z.iso
          .datetime({ offset: true, message: 'must be a date-time such as 2025-01-31T12:00:00Z' })
          .optional(),
      })
      .optional(),
    parts: z
      .array(
        z.strictObject({
          type: z.literal('message', { message: 'must be message' }),
          role: z.string().min(1, 'must be 1 to 50 characters').max(50, 'must be 1 to 50 characters'),
          body: z.string().max(MAX_BODY, `must be at most ${MAX_BODY} characters`),
        }),
      )
      .min(1, 'must hold at least one message')
      .max(MAX_PARTS, `must hold at most ${MAX_PARTS} messages`),
  })
  .superRefine((conversation, context) => {
    const chars = conversationChars(conversation);
    if (chars > MAX_CONVERSATION_CHARS) {
      context.addIssue({
        code: 'custom',
        path: ['parts'],
        message: `the subject and messages hold ${chars} characters, more than one conversation may (limit "conversation characters": ${chars}, at most ${MAX_CONVERSATION_CHARS})`,
      });
    }
  });

const listConversationsQuery = z.object({ ...pageParams, source: sourceName.optional() });
const listIssuesQuery = z.object({
  ...pageParams,
  cluster: z.string().min(1).optional(),
  conversation: z.string().min(1).optional(),
});
const listClustersQuery = z.object({
  ...pageParams,
  order: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).optional(),
  orderBy: z.enum(CLUSTER_ORDER_BY, { message: `must be one of ${CLUSTER_ORDER_BY.join(', ')}` }).optional(),
  muted: booleanParam.optional(),
});
const muteBody = z.strictObject({ muted: z.boolean({ message: 'is required: true or false' }) });

/**
 * The ingest body: one conversation or an array of at most `MAX_INGEST_BATCH`. Read here rather
 * than as a zod union, so a 400 names the field of the conversation that is wrong (`0.parts.1.body`).
 */
function parseIngestBody(body: unknown) {
  if (!Array.isArray(body)) return [parseBody(conversationBody, body)];
  if (body.length === 0)
    throw badRequest('Invalid body: must be a conversation or an array of 1 or more conversations');
  if (body.length > MAX_INGEST_BATCH)
    throw badRequest(
      `Invalid body: at most ${MAX_INGEST_BATCH} conversations in one ingest; send the others in further requests`,
    );
  const parsed = z.array(conversationBody).safeParse(body);
  if (!parsed.success) throw badRequest(describeIssue(parsed.error, 'body'));
  const chars = parsed.data.reduce((sum, conversation) => sum + conversationChars(conversation), 0);
  if (chars > MAX_INGEST_CHARS) {
    throw badRequest(
      `Invalid body: the conversations hold ${chars} characters, more than one ingest may (limit "ingest characters": ${chars}, at most ${MAX_INGEST_CHARS}); send the others in further requests`,
    );
  }
  return parsed.data;
}

type OrgParams = { organizationId: string };

/**
 * Conversations, their issues and issue clusters. Members of the organization (not guests) read
 * them; ingesting needs the admin role (the organization's `permissions.ingestConversations`);
 * muting a cluster needs the edit role.
 */
export function conversationRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/conversations', async (request) => {
    const query = parseQuery(listConversationsQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const window = pageWindow(query);
    const { rows, count } = listConversations(db, org.id, query, window);
    return pageOf(
      rows.map((row) => conversationJson(row, links)),
      count,
      window,
    );
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/conversations', async (request, reply) => {
    const conversations = parseIngestBody(request.body);
    const { db, access } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    await ingestConversationsInSlices(db, org.id, conversations, now());
    return reply.code(204).send();
  });

  app.get<{ Params: OrgParams & { conversationId: string } }>(
    '/orgs/:organizationId/conversations/:conversationId',
    async (request) => {
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'read');
      return conversationDetailJson(requireConversation(db, org.id, request.params.conversationId), links);
    },
  );

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/conversations-issues', async (request) => {
    const query = parseQuery(listIssuesQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const window = pageWindow(query);
    const { rows, count } = listIssues(db, org.id, query, window);
    return pageOf(
      rows.map((row) => issueWithConversationJson(db, row, links)),
      count,
      window,
    );
  });

  app.get<{ Params: OrgParams & { issueId: string } }>(
    '/orgs/:organizationId/conversations-issues/:issueId',
    async (request) => {
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'read');
      return issueWithConversationJson(db, requireIssue(db, org.id, request.params.issueId), links);
    },
  );

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/conversations-clusters', async (request) => {
    const query = parseQuery(listClustersQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'read');
    const window = pageWindow(query);
    const { rows, count } = listClusters(db, org.id, query, window);
    const at = Date.now();
    return pageOf(
      rows.map((row) => clusterJson(db, row, links, at)),
      count,
      window,
    );
  });

  app.get<{ Params: OrgParams & { clusterId: string } }>(
    '/orgs/:organizationId/conversations-clusters/:clusterId',
    async (request) => {
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'read');
      return clusterJson(db, requireCluster(db, org.id, request.params.clusterId), links);
    },
  );

  app.patch<{ Params: OrgParams & { clusterId: string } }>(
    '/orgs/:organizationId/conversations-clusters/:clusterId',
    async (request) => {
      const body = parseBody(muteBody, request.body);
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'edit');
      return clusterJson(
        db,
        setClusterMuted(db, requireCluster(db, org.id, request.params.clusterId), body.muted),
        links,
      );
    },
  );
}
