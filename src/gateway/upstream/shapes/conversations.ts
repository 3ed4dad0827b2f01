import { z } from 'zod';
import { dateTime, document, url } from './common.js';

/** Shapes of support conversations, the issues found in them, and the clusters of issues. */

export const IMPACTS = ['low', 'medium', 'high'] as const;
export const CLUSTER_ORDER_BY = ['updatedAt', 'createdAt', 'issues', 'conversations', 'impact'] as const;

export const conversation = z.object({
  object: z.literal('conversation'),
  id: z.string(),
  subject: z.string().optional(),
  createdAt: dateTime,
  processedAt: dateTime.optional(),
  source: z.string().optional(),
  impact: z.enum(IMPACTS).optional(),
  urls: z.object({ location: url, source: url.optional() }),
});
export type Conversation = z.infer<typeof conversation>;

export const CONVERSATION_PART_TYPES = ['message'] as const;

/** A part of a conversation; `role` is the source's own (`user` for the person asking, anything else for the other side). */
export const conversationPart = z.object({ type: z.enum(CONVERSATION_PART_TYPES), role: z.string(), body: z.string() });

export const conversationDetail = z.object({
  conversation,
  parts: z.array(conversationPart),
  metadata: z.object({
    url: url.optional(),
    attributes: z.record(z.string(), z.string()).default({}),
    createdAt: dateTime.optional(),
  }),
});
export type ConversationDetail = z.infer<typeof conversationDetail>;

export const conversationIssue = z.object({
  object: z.literal('conversation-issue'),
  id: z.string(),
  title: z.string(),
  details: document,
  impact: z.enum(IMPACTS),
  createdAt: dateTime,
  ingestedAt: dateTime.optional(),
  conversation: z.string(),
  cluster: z.string().optional(),
  urls: z.object({ location: url }),
});
export type ConversationIssue = z.infer<typeof conversationIssue>;

/** An issue with its conversation: the item of issue lists and reads. */
export const issueItem = z.object({ issue: conversationIssue, conversation });
export type IssueItem = z.infer<typeof issueItem>;

export const issuesCluster = z.object({
  object: z.literal('issues-cluster'),
  id: z.string(),
  label: z.string(),
  createdAt: dateTime,
  updatedAt: dateTime,
  icon: z.string().optional(),
  summary: document.optional(),
  muted: z.boolean(),
  impact: z.enum(IMPACTS),
  weeklyPulse: z.array(z.number()),
  sources: z.record(z.string(), z.number()).default({}),
  stats: z.object({ issues: z.number(), conversations: z.number() }),
  urls: z.object({ location: url }),
});
export type IssuesCluster = z.infer<typeof issuesCluster>;
