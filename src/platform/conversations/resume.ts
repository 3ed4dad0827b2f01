import type { JobQueue } from '../jobs.js';
import type { Db } from '../store/db.js';
import { ingestConversationsInSlices } from './store.js';

/**
 * An ingest writes each conversation in a transaction of its own, then clusters the new issues:
 * a restart in between leaves issues without a cluster, which the lists do not show. At start,
 * each organization holding such issues gets a job that clusters them (what its next ingest
 * would do), so an interrupted ingest is finished without waiting for another one.
 */
export const CLUSTER_PENDING_JOB = 'conversations.cluster-pending';

/** Registers the job; call `queuePendingClustering` once the queue runs. */
export function registerConversations(jobs: JobQueue): void {
  jobs.register<{ organizationId: string }>(CLUSTER_PENDING_JOB, {
    interrupted: 'resume',
    run: async ({ organizationId }, { db }) => {
      await ingestConversationsInSlices(db, organizationId, [], new Date().toISOString());
    },
  });
}

/** Queues the clustering of every organization whose issues an interrupted ingest left without a cluster. */
export function queuePendingClustering(db: Db, jobs: JobQueue): void {
  const organizations = db
    .prepare('SELECT DISTINCT org_id FROM conversation_issues WHERE cluster_id IS NULL')
    .pluck(true)
    .all() as string[];
  for (const organizationId of organizations) {
    jobs.enqueue(CLUSTER_PENDING_JOB, { organizationId }, { key: `conversations:${organizationId}` });
  }
}
