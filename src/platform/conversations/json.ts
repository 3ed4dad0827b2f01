import type { JSONDocument } from '../../document/model.js';
import { json } from '../http.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { pulseStart, weeklyPulse } from './pulse.js';
import {
  clusterIssueDates,
  requireConversation,
  type ClusterRow,
  type ConversationInput,
  type ConversationRow,
  type IssueRow,
} from './store.js';

/** The API shapes of conversations, their issues and issue clusters. */

const base = (links: Links, orgId: string) => `${links.api}/orgs/${orgId}`;

/** The API shape of a conversation. */
export function conversationJson(row: ConversationRow, links: Links) {
  return {
    object: 'conversation' as const,
    id: row.id,
    ...(row.subject !== null ? { subject: row.subject } : {}),
    createdAt: row.created_at,
    processedAt: row.processed_at,
    source: row.source,
    impact: row.impact,
    urls: {
      location: `${base(links, row.org_id)}/conversations/${encodeURIComponent(row.id)}`,
      ...(row.url ? { source: row.url } : {}),
    },
  };
}

/** A conversation with its messages and metadata. */
export function conversationDetailJson(row: ConversationRow, links: Links) {
  return {
    conversation: conversationJson(row, links),
    parts: JSON.parse(row.parts) as ConversationInput['parts'],
    metadata: {
      ...(row.url ? { url: row.url } : {}),
      attributes: json.parse<Record<string, string>>(row.attributes, {}),
      ...(row.metadata_created_at ? { createdAt: row.metadata_created_at } : {}),
    },
  };
}

/** The API shape of an issue. */
export function issueJson(row: IssueRow, links: Links) {
  return {
    object: 'conversation-issue' as const,
    id: row.id,
    title: row.title,
    details: JSON.parse(row.details) as JSONDocument,
    impact: row.impact,
    createdAt: row.created_at,
    ingestedAt: row.ingested_at,
    conversation: row.conversation_id,
    ...(row.cluster_id ? { cluster: row.cluster_id } : {}),
    urls: { location: `${base(links, row.org_id)}/conversations-issues/${row.id}` },
  };
}

/** An issue with its conversation (the item of issue lists and reads). */
export function issueWithConversationJson(db: Db, row: IssueRow, links: Links) {
  return {
    issue: issueJson(row, links),
    conversation: conversationJson(requireConversation(db, row.org_id, row.conversation_id), links),
  };
}

/** The API shape of a cluster; its weekly pulse is counted up to `now`. */
export function clusterJson(db: Db, row: ClusterRow, links: Links, now = Date.now()) {
  const dates = clusterIssueDates(db, row.id, pulseStart(now));
  return {
    object: 'issues-cluster' as const,
    id: row.id,
    label: row.label,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    icon: row.icon,
    summary: JSON.parse(row.summary) as JSONDocument,
    muted: row.muted === 1,
    impact: row.impact,
    weeklyPulse: weeklyPulse(dates, now),
    sources: json.parse<Record<string, number>>(row.sources, {}),
    stats: { issues: row.issue_count, conversations: row.conversation_count },
    urls: { location: `${base(links, row.org_id)}/conversations-clusters/${row.id}` },
  };
}
