import type { RequestApi } from './request.js';
import { route } from './client.js';
import { type Filters, restPages, sendFor } from './operation.js';
import { conversation, conversationDetail, issueItem, issuesCluster } from './shapes/conversations.js';

/** `GET /orgs/{organizationId}/conversations/{conversationId}`: the conversation with its messages and metadata. */
export const getConversation = (api: RequestApi, organizationId: string, conversationId: string) =>
  api.get(route`/orgs/${organizationId}/conversations/${conversationId}`, conversationDetail);

/** `GET /orgs/{organizationId}/conversations`, newest first. */
export const listConversations = (api: RequestApi, organizationId: string, filters: Filters<'source'>) =>
  restPages(api, route`/orgs/${organizationId}/conversations`, conversation, filters);

/** `POST /orgs/{organizationId}/conversations` (no body answered): ingests conversations. */
export const ingestConversations = (api: RequestApi, organizationId: string, conversations: object[]) =>
  api.send('POST', route`/orgs/${organizationId}/conversations`, { body: conversations });

/** `GET /orgs/{organizationId}/conversations-issues/{issueId}`: the issue with its conversation. */
export const getConversationIssue = (api: RequestApi, organizationId: string, issueId: string) =>
  api.get(route`/orgs/${organizationId}/conversations-issues/${issueId}`, issueItem);

/** `GET /orgs/{organizationId}/conversations-issues`, each with its conversation. */
export const listConversationIssues = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'cluster' | 'conversation'>,
) => restPages(api, route`/orgs/${organizationId}/conversations-issues`, issueItem, filters);

/** `GET /orgs/{organizationId}/conversations-clusters/{clusterId}` */
export const getIssuesCluster = (api: RequestApi, organizationId: string, clusterId: string) =>
  api.get(route`/orgs/${organizationId}/conversations-clusters/${clusterId}`, issuesCluster);

/** `GET /orgs/{organizationId}/conversations-clusters` */
export const listIssuesClusters = (
  api: RequestApi,
  organizationId: string,
  filters: Filters<'orderBy' | 'order' | 'muted'>,
) => restPages(api, route`/orgs/${organizationId}/conversations-clusters`, issuesCluster, filters);

/** `PATCH /orgs/{organizationId}/conversations-clusters/{clusterId}`: mutes or unmutes the cluster. */
export const setIssuesClusterMuted = (api: RequestApi, organizationId: string, clusterId: string, muted: boolean) =>
  sendFor(api, 'PATCH', route`/orgs/${organizationId}/conversations-clusters/${clusterId}`, issuesCluster, {
    body: { muted },
  });
