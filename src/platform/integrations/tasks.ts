import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, forbidden, newId, overLimit, parseBody } from '../http.js';
import type { JobQueue } from '../jobs.js';
import type { Db } from '../store/db.js';
import { recordEvent } from './events.js';
import { InstallationAccess } from './installation-tokens.js';
import { integrationById, isOwnerAdmin, requireIntegration } from './store.js';

/**
 * Tasks an integration asks to run later (`POST /integrations/{name}/tasks`): the integration's own
 * code (an installation token of it) or its developers (admins of the owner organization) queue a
 * `task` object, run after `schedule` seconds (at most a day). Each task is a job of the platform's
 * queue, so a restart loses none; when it comes due it is recorded as a `task` event of the
 * integration (of the token's installation), which is delivered to its endpoint (or tunnel) like
 * every event: signed, retried, traced. An integration has at most `MAX_QUEUED_TASKS` tasks waiting.
 */

export const TASK_JOB = 'integration-task';
/** Tasks of one integration waiting to run, at most. */
export const MAX_QUEUED_TASKS = 100;
/** Bytes of a task's JSON, at most. */
export const MAX_TASK_BYTES = 64 * 1024;
/** The description's limit of `schedule`, in seconds. */
export const MAX_TASK_SCHEDULE_SECONDS = 86_400;

interface TaskJob {
  integrationId: string;
  installationId: string | null;
  task: Record<string, unknown>;
}

const taskBody = z.object({
  task: z.record(z.string(), z.unknown(), { message: 'must be an object' }),
  schedule: z
    .number({ message: 'must be a number of seconds' })
    .min(0, 'must be at least 0')
    .max(MAX_TASK_SCHEDULE_SECONDS, `must be at most ${MAX_TASK_SCHEDULE_SECONDS} seconds`)
    .optional(),
});

/** The key prefix of the jobs of one integration's tasks (each task has a key of its own: none waits for another). */
const keyPrefix = (integrationId: string) => `${TASK_JOB}:${integrationId}:`;

/** Registers the task job with the queue: a due task becomes a `task` event, delivered as events are. */
export function registerIntegrationTasks(queue: JobQueue): void {
  queue.register<TaskJob>(TASK_JOB, {
    // Recording the event is one transaction: a restart before it runs the task again, never twice after.
    interrupted: 'resume',
    run: async (job, { db }) => {
      const integration = integrationById(db, job.integrationId);
      // Gone with its integration, or with the installation that queued it.
      if (!integration) return;
      if (job.installationId !== null) {
        const installed = db
          .prepare('SELECT 1 FROM integration_installations WHERE id = ? AND integration_id = ?')
          .get(job.installationId, integration.id);
        if (!installed) return;
      }
      db.transaction(() => {
        recordEvent(db, integration, {
          type: 'task',
          installationId: job.installationId,
          task: job.task,
        });
      })();
    },
  });
}

/** The tasks of an integration waiting to run. */
function queuedTasks(db: Db, integrationId: string): number {
  return db
    .prepare("SELECT COUNT(*) FROM jobs WHERE kind = ? AND state IN ('queued', 'running') AND substr(key, 1, ?) = ?")
    .pluck(true)
    .get(TASK_JOB, keyPrefix(integrationId).length, keyPrefix(integrationId)) as number;
}

type NameParams = { integrationName: string };

/** `POST /integrations/{name}/tasks` (204): for an installation token of the integration, or its developers. */
export function integrationTaskRoutes(app: FastifyInstance, options: { queue: JobQueue }): void {
  app.post<{ Params: NameParams }>('/integrations/:integrationName/tasks', async (request, reply) => {
    const body = parseBody(taskBody, request.body);
    const { db, access } = request.ctx;
    let integration: ReturnType<typeof requireIntegration>;
    let installationId: string | null = null;
    if (access instanceof InstallationAccess) {
      integration = access.caller.integration;
      if (integration.name !== request.params.integrationName)
        throw forbidden('An installation token queues the tasks of its own integration alone');
      installationId = access.caller.installation.id;
    } else {
      integration = requireIntegration(db, access, request.params.integrationName);
      if (!isOwnerAdmin(access, integration))
        throw forbidden('Queueing a task of an integration needs the admin role in the organization that owns it');
    }
    const bytes = Buffer.byteLength(JSON.stringify(body.task));
    if (bytes > MAX_TASK_BYTES)
      throw overLimit(`A task is at most ${MAX_TASK_BYTES} bytes of JSON`, {
        limit: 'taskBytes',
        value: bytes,
        max: MAX_TASK_BYTES,
      });
    db.transaction(() => {
      const waiting = queuedTasks(db, integration.id);
      if (waiting >= MAX_QUEUED_TASKS) {
        throw new ApiError(429, `An integration has at most ${MAX_QUEUED_TASKS} tasks waiting to run`, {
          limit: 'queuedTasks',
          value: waiting + 1,
          max: MAX_QUEUED_TASKS,
        });
      }
      options.queue.enqueue(
        TASK_JOB,
        { integrationId: integration.id, installationId, task: body.task } satisfies TaskJob,
        {
          key: `${keyPrefix(integration.id)}${newId()}`,
          runAfter: Date.now() + Math.round((body.schedule ?? 0) * 1000),
        },
      );
    })();
    return reply.code(204).send();
  });
}
