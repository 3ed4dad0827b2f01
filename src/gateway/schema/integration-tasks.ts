import { z } from 'zod';
import * as op from '../upstream/contract/operations.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { payloadType } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { IntegrationNode, integrationLink, integrationName } from './integrations.js';

/**
 * `queueIntegrationTask`: a task an integration asks the platform to run later, delivered back to it
 * as a `task` event (its own code, with an installation token, or its developers).
 */

/** The platform's limits of a task: its JSON, and how long it may wait. */
const MAX_TASK_BYTES = 64 * 1024;
const MAX_SCHEDULE_SECONDS = 86_400;

const taskObject = z.record(z.string(), z.unknown(), { message: 'must be an object' }).superRefine((task, ctx) => {
  const bytes = Buffer.byteLength(JSON.stringify(task));
  if (bytes > MAX_TASK_BYTES)
    ctx.addIssue({ code: 'custom', message: `is ${bytes} bytes of JSON, more than the maximum of ${MAX_TASK_BYTES}` });
});

declareMutation('queueIntegrationTask', {
  description:
    'Queues a task of an integration (an installation token of it, or admins of its owner organization): after `schedule` seconds the platform delivers it to the integration’s endpoint as a signed `task` event. An integration has at most 100 tasks waiting: past them, a RATE_LIMITED error naming the limit.',
  input: 'The integration, the task and when to run it.',
  fields: {
    integrationName: inputField('String', 'Name of the integration (or Integration global ID).', integrationName),
    task: inputField(
      'JSON',
      `The task: a JSON object the integration receives back (at most ${MAX_TASK_BYTES} bytes of JSON).`,
      taskObject,
    ),
    schedule: inputField(
      'Int',
      `Seconds to wait before running it (0, the default, to ${MAX_SCHEDULE_SECONDS}).`,
      z
        .number()
        .int()
        .min(0, 'must be at least 0')
        .max(MAX_SCHEDULE_SECONDS, `must be at most ${MAX_SCHEDULE_SECONDS} seconds`)
        .nullish(),
    ),
  },
  payload: (name) =>
    payloadType<{ integration: string }>(name, (t) => ({
      queued: t.boolean({
        description: 'True once the task is queued.',
        resolve: (payload) => Boolean(payload.integration),
      }),
      integration: t.field({
        type: IntegrationNode,
        nullable: true,
        description: 'The integration whose task it is (its `id` costs no request).',
        extensions: upstream.link,
        resolve: (payload, _args, _ctx, info) =>
          payload.integration ? integrationLink(payload.integration, info) : null,
      }),
    })),
  run: async (i, ctx) => {
    await ctx.api.write(
      op.queueIntegrationTask,
      { integrationName: i.integrationName },
      { body: { task: i.task, ...(i.schedule != null ? { schedule: i.schedule } : {}) } },
    );
    return { integration: i.integrationName };
  },
});
