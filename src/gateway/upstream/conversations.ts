import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { ConversationInput } from './contract/types.js';
import { type Filters, listOf } from './operation.js';

/** `GET /orgs/{organizationId}/conversations/{conversationId}`: the conversation with its messages and metadata. */
export const getConversation = (api: RequestApi, organizationId: string, conversationId: string) =>
  api.read(op.getConversation, { organizationId, conversationId });

/** `GET /orgs/{organizationId}/conversations`, newest first. */
export const listConversations = (api: RequestApi, organizationId: string, filters: Filters<'source'>) =>
  listOf(api, op.listConversations, { organizationId }, filters);

/** `POST /orgs/{organizationId}/conversations` (no body answered): ingests conversations. */
export const ingestConversations = (api: RequestApi, organizationId: string, conversations: ConversationInput[]) =>
  api.write(op.ingestConversations, { organizationId }, { body: conversations });

/** `GET /orgs/{organizationId}/conversations-issues/{issueId}`: the issue with its conversation. */
export const getConversationIssue = (api: RequestApi, organizationId: string, issueId: string) =>
  api.read(op.getConversationIssue, { organizationId, issueId });

/** `GET /orgs/{organizationId}/conversations-issues`, each with its conversation. */
export const listConversationIssues = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'cluster' | 'conversation'>,
) => listOf(api, op.listConversationIssues, { organizationId }, filters);

/** `GET /orgs/{organizationId}/conversations-clusters/{clusterId}` */
export const getIssuesCluster = (api: RequestApi, organizationId: string, clusterId: string) =>
  api.read(op.getIssuesCluster, { organizationId, clusterId });

/** `GET /orgs/{organizationId}/conversations-clusters` */
export const listIssuesClusters = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'orderBy' | 'order' | 'muted'>,
) => listOf(api, op.listIssuesClusters, { organizationId }, filters);

/** `PATCH /orgs/{organizationId}/conversations-clusters/{clusterId}`: mutes or unmutes the cluster. */
export const setIssuesClusterMuted = async (
  api: RequestApi,
  organizationId: string,
  clusterId: string,
  muted: boolean,
) => (await api.write(op.updateIssuesCluster, { organizationId, clusterId }, { body: { muted } })).data;
