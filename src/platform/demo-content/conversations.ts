import { DEMO_CLUSTER_ID } from '../conversations/demo.js';
import {
  clusterOfConversation,
  type ConversationInput,
  ingestConversations,
  renameCluster,
  requireCluster,
  setClusterMuted,
} from '../conversations/store.js';
import type { Db } from '../store/db.js';
import { type DemoConversations, loadDemoConversations } from './load.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * Seeds the demo conversations (`conversations.json`) week by week, each week's conversations ingested at the end
 * of that week (or now for the current one), so later weeks join the clusters earlier ones formed; then names and
 * mutes the clusters the data names by one of their conversations.
 */
export function seedDemoConversations(db: Db, now: number, data: DemoConversations = loadDemoConversations()): void {
  if (!data.clusters.some((cluster) => cluster.id === DEMO_CLUSTER_ID))
    throw new Error(`Demo conversations name no cluster "${DEMO_CLUSTER_ID}" (DEMO_CLUSTER_ID)`);
  const byWeek = Map.groupBy(data.conversations, (conversation) => Math.floor(conversation.daysAgo / 7));
  for (const week of [...byWeek.keys()].sort((a, b) => b - a)) {
    const at = new Date(now - Math.max(0, week * 7 - 1) * DAY).toISOString();
    const inputs = byWeek.get(week)!.map(
      (conversation): ConversationInput => ({
        id: conversation.id,
        ...(conversation.subject ? { subject: conversation.subject } : {}),
        source: conversation.source,
        metadata: {
          url: conversation.url,
          attributes: conversation.attributes ?? {},
          createdAt: new Date(now - conversation.daysAgo * DAY).toISOString(),
        },
        parts: conversation.messages.map((message) =>
          typeof message === 'string'
            ? { type: 'message' as const, role: 'user', body: message }
            : { type: 'message' as const, role: 'assistant', body: message.agent },
        ),
      }),
    );
    ingestConversations(db, data.org, inputs, at);
  }
  for (const cluster of data.clusters) {
    const found = clusterOfConversation(db, data.org, cluster.conversation);
    if (!found) throw new Error(`Demo conversation "${cluster.conversation}" is in no cluster`);
    const id = cluster.id ?? found;
    if (cluster.id) renameCluster(db, data.org, found, cluster.id);
    if (cluster.muted) setClusterMuted(db, requireCluster(db, data.org, id), true);
  }
}
