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
/** The key of an organization's clustering job: the prefix, then the organization's id. */
const KEY_PREFIX = 'conversations:';

/** Registers the job; call `queuePendingClustering` once the queue runs. */
export function registerConversations(jobs: JobQueue): void {
  jobs.register<{ organizationId: string }>(CLUSTER_PENDING_JOB, {
    interrupted: 'resume',
    run: async ({ organizationId }, { db }) => {
      await ingestConversationsInSlices(db, organizationId, [], new Date().toISOString());
    },
  });
}

/**
 * Queues the clustering of every organization whose issues an interrupted ingest left without a
 * cluster, unless one is queued or running already (resumed after the restart, or queued by an
 * earlier call): calling it again queues nothing more. The job's key names the organization's
 * clustering for that check; ingests of an organization are put in order by
 * `ingestConversationsInSlices`, whatever runs them.
 */
export function queuePendingClustering(db: Db, jobs: JobQueue): void {
  const organizations = db
    .prepare(
      `SELECT DISTINCT org_id FROM conversation_issues i WHERE cluster_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM jobs WHERE kind = ? AND key = ? || i.org_id AND state IN ('queued', 'running'))`,
    )
    .pluck(true)
    .all(CLUSTER_PENDING_JOB, KEY_PREFIX) as string[];
  for (const organizationId of organizations) {
    jobs.enqueue(CLUSTER_PENDING_JOB, { organizationId }, { key: `${KEY_PREFIX}${organizationId}` });
  }
}
