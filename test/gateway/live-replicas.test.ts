import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { sharedStateUp, startTestRedis, type TestRedis } from '../fixtures/redis.js';
import { until } from '../fixtures/wait.js';
import { subscribe } from '../fixtures/subscriptions.js';

/**
 * Two replicas sharing a real redis-server follow one space for one token: one of them polls the
 * platform (the holder of the lease), and the other's subscriber gets the events of its polls.
 */
const POLL_MS = 200;
let platform: TestPlatform;
let redis: TestRedis;
const replicas: Array<{ gateway: Gateway; server: Server; url: string }> = [];

beforeAll(async () => {
  [platform, redis] = await Promise.all([startTestPlatform(), startTestRedis()]);
  for (let i = 0; i < 2; i += 1) {
    const gateway = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      redisUrl: redis.url,
      subscriptions: { pollMs: POLL_MS },
      logger: { error: () => {}, info: () => {} },
    });
    const server = createServer(gateway.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    replicas.push({ gateway, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  }
  await until(async () => (await Promise.all(replicas.map(({ gateway }) => sharedStateUp(gateway)))).every(Boolean));
});

afterAll(async () => {
  for (const { gateway, server } of replicas) {
    server.closeAllConnections();
    server.close();
    await gateway.close();
  }
  await redis.stop();
  await platform.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function gql(query: string, variables: Record<string, unknown> = {}) {
  const answer = await postGraphQL(replicas[0]!.gateway, platform, { query, variables });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data;
}

/** A new space anyone may merge into, and a function that merges one more page into it. */
async function mergeableSpace(title: string) {
  const { createSpace } = await gql(
    'mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { platformId } } }',
    { title },
  );
  const spaceId = createSpace.space.platformId as string;
  await gql(
    'mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } } }',
    {
      id: spaceId,
    },
  );
  const mergePage = async (page: string) => {
    const { createChangeRequest } = await gql(
      'mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "A page" }) { changeRequest { id } } }',
      { id: spaceId },
    );
    const id = createChangeRequest.changeRequest.id as string;
    await gql(
      'mutation ($id: ID!, $markdown: String!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: $markdown } }] }) { edits { pageId } } }',
      { id, markdown: `# ${page}\n\nText.` },
    );
    const { mergeChangeRequest } = await gql(
      'mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { revision { platformId } } }',
      { id },
    );
    return mergeChangeRequest.revision.platformId as string;
  };
  return { spaceId, mergePage };
}

const CONTENT = 'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }';
const polls = (spaceId: string) =>
  platform.app.stats.requests.filter((line) => line.split('?')[0] === `GET /v1/spaces/${spaceId}`).length;
/** Polls the platform answered for `spaceId` since its stats were reset. */
const answeredPolls = (spaceId: string) =>
  platform.app.stats.answers.filter((answer) => answer.url.split('?')[0] === `/v1/spaces/${spaceId}`).length;
/** Waits until some replica holds the lease of a followed resource in Redis. */
async function leaseTaken(): Promise<void> {
  const client = new Redis(redis.url);
  try {
    await until(async () => (await client.keys('lease:*')).length > 0);
  } finally {
    client.disconnect();
  }
}

describe('subscriptions across replicas', () => {
  it('polls once per interval for both replicas, and brings a poll of one to the subscribers of the other', async () => {
    const { spaceId, mergePage } = await mergeableSpace('Followed by two replicas');
    const [a, b] = replicas;
    const onA = await subscribe(a!.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    const first = (await onA.next()).data.spaceContentUpdated.platformId;
    // A's second poll takes the lease; B's first read is its own, then it polls no more.
    await leaseTaken();
    const onB = await subscribe(b!.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    expect((await onB.next()).data.spaceContentUpdated.platformId).toBe(first);

    platform.app.stats.reset();
    const since = performance.now();
    await until(() => answeredPolls(spaceId) >= 5);
    // One poll per interval for both: each starts an interval after the last one ended, so a busy
    // machine polls less often, never more (a poll of each replica would be two per interval).
    expect(polls(spaceId)).toBeLessThanOrEqual((performance.now() - since) / POLL_MS + 1);

    const merged = await mergePage('Seen everywhere');
    expect((await onA.next()).data.spaceContentUpdated.platformId).toBe(merged);
    expect((await onB.next()).data.spaceContentUpdated.platformId).toBe(merged);
    onA.close();
    onB.close();
    await until(() => replicas.every(({ gateway }) => gateway.live.polled === 0));
  });

  it('reads again what it follows when its channels come back: what was sent meanwhile is lost', async () => {
    const { spaceId, mergePage } = await mergeableSpace('Followed through a lost channel');
    const b = replicas[1]!;
    const onB = await subscribe(b.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    const first = (await onB.next()).data.spaceContentUpdated.platformId;
    const client = new Redis(redis.url);
    let leases: string[] = [];
    try {
      // Another holder that never polls: B follows, and hears of changes only over its channel.
      await until(async () => (await client.keys('lease:*')).length > 0);
      leases = await client.keys('lease:*');
      for (const lease of leases) await client.set(lease, 'a replica gone quiet', 'PX', 60_000);
      await sleep(2 * POLL_MS);
      // The channel's connection drops; a change made now reaches no channel.
      await client.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      const merged = await mergePage('Made while the channel was down');
      expect(merged).not.toBe(first);
      // Back, B reads it itself: its subscriber is told.
      expect((await onB.next()).data.spaceContentUpdated.platformId).toBe(merged);
    } finally {
      onB.close();
      // The next test finds its own lease.
      if (leases.length > 0) await client.del(...leases);
      client.disconnect();
    }
    await until(() => b.gateway.live.polled === 0);
  });

  it('moves the lease when its holder stops extending it, and when it leaves', async () => {
    const { spaceId, mergePage } = await mergeableSpace('Holder goes away');
    const [a, b] = replicas;
    const onA = await subscribe(a!.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    await onA.next();
    await leaseTaken();
    const onB = await subscribe(b!.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    await onB.next();

    // A holder that died leaves its lease until it runs out: three polls at most.
    const client = new Redis(redis.url);
    const [lease] = await client.keys('lease:*');
    expect(lease).toBeDefined();
    await client.set(lease!, 'a replica that died', 'PX', 3 * POLL_MS);
    const merged = await mergePage('After a holder died');
    expect((await onB.next()).data.spaceContentUpdated.platformId).toBe(merged);
    expect((await onA.next()).data.spaceContentUpdated.platformId).toBe(merged);

    // The holder's last subscriber leaves: it gives the lease up, and the other replica polls.
    const holder = await client.get(lease!);
    client.disconnect();
    onA.close();
    await until(() => a!.gateway.live.polled === 0);
    const again = await mergePage('After the holder left');
    expect((await onB.next()).data.spaceContentUpdated.platformId).toBe(again);
    expect(holder).not.toBe('a replica that died');
    onB.close();
  });
});
