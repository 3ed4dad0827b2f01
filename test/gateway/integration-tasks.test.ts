import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { installIntegration, publishIntegration } from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * `queueIntegrationTask` end to end: an integration (its installation token) or its developers queue a task, which
 * the platform's job queue delivers back to the integration's endpoint as a signed `task` event when it comes due;
 * the input is checked before any request, and an integration has a bounded number of tasks waiting.
 */

const NAME = 'chores';
let g: TestGateway;
let org: TestOrg;
let receiver: Server;
let installation: string;
let installationToken: string;
let secret: string;
const deliveries: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];

/** North (ada admin, finn read) owns CHORES, installed on North, whose endpoint is a loopback receiver. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false, deliveryRetryBaseMs: 10 });
  org = addOrg(g.platform, { id: 'north', members: { ada: 'admin', finn: 'read' } });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
  await publishIntegration(org, NAME, { endpoint });
  installation = await installIntegration(org, NAME);
  const base = `/integrations/${NAME}/installations/${installation}`;
  secret = (await g.platform.api('GET', `${base}/signing-secret`, { token: org.token('ada') })).body.secret;
  installationToken = (await g.platform.api('POST', `${base}/tokens`, { token: org.token('ada') })).body.token;
  await g.platform.app.jobs.drain();
  deliveries.length = 0;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await g?.destroy();
});

const QUEUE = `mutation ($name: String!, $task: JSON!, $schedule: Int) {
  queueIntegrationTask(input: { integrationName: $name, task: $task, schedule: $schedule }) {
    queued integration { id } userErrors { code field message }
  } }`;

/** The fields of a delivered multipart body, parsed. */
function fieldsOf(body: Buffer): Record<string, any> {
  const fields: Record<string, any> = {};
  for (const match of body
    .toString('utf8')
    .matchAll(/name="(\w+)"\r\nContent-Type: application\/json\r\n\r\n(.*)\r\n/g))
    fields[match[1]!] = JSON.parse(match[2]!);
  return fields;
}

describe('queueIntegrationTask', () => {
  it('delivers a task queued with an installation token as a signed task event of the installation', async () => {
    const queued = await g.gql(QUEUE, { name: NAME, task: { kind: 'sync', page: 3 } }, { token: installationToken });
    expect(queued.data).toEqual({
      queueIntegrationTask: {
        queued: true,
        integration: { id: Buffer.from(`Integration:${NAME}`).toString('base64') },
        userErrors: [],
      },
    });
    expect(queued.upstreamRequests).toEqual([`POST /v1/integrations/${NAME}/tasks`]);

    await g.platform.app.jobs.drain();
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    expect(delivery!.headers['x-gitbook-event-type']).toBe('task');
    expect(delivery!.headers['x-gitbook-installation-id']).toBe(installation);
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(delivery!.headers['x-gitbook-signature']))!;
    expect(createHmac('sha256', secret).update(`${t}.`).update(delivery!.body).digest('hex')).toBe(v1);
    expect(fieldsOf(delivery!.body).event).toMatchObject({ type: 'task', task: { kind: 'sync', page: 3 } });
  });

  it('waits for its schedule on the job queue, then delivers a developer’s task', async () => {
    deliveries.length = 0;
    const queued = await g.gql(
      QUEUE,
      { name: NAME, task: { kind: 'later' }, schedule: 3600 },
      { token: org.token('ada') },
    );
    expect(queued.data?.queueIntegrationTask.userErrors).toEqual([]);
    const job = g.platform.db
      .prepare("SELECT id, run_after FROM jobs WHERE kind = 'integration-task' AND state = 'queued'")
      .get() as { id: number; run_after: number };
    expect(job.run_after).toBeGreaterThan(Date.now() + 3500_000);
    expect(deliveries).toHaveLength(0);
    // An hour later.
    g.platform.db.prepare('UPDATE jobs SET run_after = ? WHERE id = ?').run(Date.now(), job.id);
    await g.platform.app.jobs.drain();
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]!.headers['x-gitbook-installation-id']).toBeUndefined();
    expect(fieldsOf(deliveries[0]!.body).event).toMatchObject({ type: 'task', task: { kind: 'later' } });
  });

  it('checks the input before any request, and who may queue', async () => {
    const late = await g.gql(QUEUE, { name: NAME, task: {}, schedule: 90_000 });
    expect(late.data?.queueIntegrationTask.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['schedule'], message: 'schedule: must be at most 86400 seconds' },
    ]);
    const big = await g.gql(QUEUE, { name: NAME, task: { text: 'x'.repeat(70_000) } });
    expect(big.data?.queueIntegrationTask.userErrors).toEqual([
      {
        code: 'BAD_USER_INPUT',
        field: ['task'],
        message: 'task: is 70011 bytes of JSON, more than the maximum of 65536',
      },
    ]);
    expect(late.upstream + big.upstream).toBe(0);
    const member = await g.gql(QUEUE, { name: NAME, task: {} }, { token: org.token('finn') });
    expect(member.data?.queueIntegrationTask).toMatchObject({ queued: false, userErrors: [{ code: 'FORBIDDEN' }] });
  });

  it('keeps at most 100 tasks of an integration waiting', async () => {
    for (let i = 0; i < 100; i++) {
      const answer = await g.platform.api('POST', `/integrations/${NAME}/tasks`, {
        token: installationToken,
        body: { task: { i }, schedule: 3600 },
      });
      expect(answer.status).toBe(204);
    }
    const over = await g.gql(QUEUE, { name: NAME, task: { i: 100 } }, { token: installationToken });
    // Not a user error: a rate limit of the whole operation, with its limit, value and maximum.
    expect(over.data).toBeNull();
    expect(over.errors?.[0]?.extensions).toEqual({
      code: 'RATE_LIMITED',
      upstreamStatus: 429,
      limit: 'queuedTasks',
      value: 101,
      max: 100,
    });
    expect(over.errors?.[0]?.message).toBe('An integration has at most 100 tasks waiting to run');
    g.platform.db.prepare("DELETE FROM jobs WHERE kind = 'integration-task'").run();
  });
});
