import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { documentHash } from '../../src/gateway/policy/manifest.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { sharedStateUp, startTestRedis, type TestRedis } from '../fixtures/redis.js';
import { until } from '../fixtures/wait.js';
import { redisState } from '../../src/gateway/state/redis.js';
import { ENTRY_OVERHEAD_BYTES } from '../../src/gateway/state/store.js';
import { Redis } from 'ioredis';

/** Two gateways, as two replicas would be, sharing one real redis-server. */
let platform: TestPlatform;
let redis: TestRedis;
let a: Gateway;
let b: Gateway;
const quiet = { error: () => {}, info: () => {} };
/** Admin alice, finn (`read`, with a direct `edit` grant on the private space Runbooks), a team. */
let org: TestOrg;
const spaceIds: Record<string, string> = {};

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, { id: 'shared', members: { alice: 'admin', finn: 'read' } });
  for (const title of ['Guide', 'Decisions']) spaceIds[title] = await org.space(title);
  spaceIds.Runbooks = await org.space('Runbooks', { visibility: 'private' });
  await org.grant({ space: spaceIds.Runbooks }, 'edit', { users: ['finn'] });
  await org.team('Writers', ['finn']);
  redis = await startTestRedis();
  const options = {
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    redisUrl: redis.url,
    responseCache: { ttlMs: 60_000 },
    persistedOperations: { maxBytes: 64 * 1024 },
    logger: quiet,
  };
  a = createGateway(options);
  b = createGateway(options);
  await until(async () => (await sharedStateUp(a)) && (await sharedStateUp(b)));
});

afterAll(async () => {
  await a.close();
  await b.close();
  await redis.stop();
  await platform.destroy();
});

const run = (gateway: Gateway, body: unknown) => postGraphQL(gateway, platform, body);

const SPACE = 'query SharedSpace($id: ID!) { space(id: $id) { title } }';

describe('state shared through Redis', () => {
  it('serves through one replica what another cached, and forgets it after a mutation through either', async () => {
    const id = spaceIds.Guide!;
    const cached = await run(a, { query: SPACE, variables: { id } });
    expect(cached.upstream).toBe(1);
    const hit = await run(b, { query: SPACE, variables: { id } });
    expect(hit).toMatchObject({
      upstream: 0,
      body: { data: cached.body.data, extensions: { responseCache: { hit: true } } },
    });
    await run(b, {
      query:
        'mutation ($id: ID!) { updateSpace(input: { spaceId: $id, title: "Shared and renamed" }) { space { id title } } }',
      variables: { id },
    });
    const fresh = await run(a, { query: SPACE, variables: { id } });
    expect(fresh.upstream).toBe(1);
    expect(fresh.body.data.space.title).toBe('Shared and renamed');
  });

  it('knows on one replica the persisted query registered on another', async () => {
    const query = 'query SharedTeams { organization(id: "shared") { teams { totalCount } } }';
    const extensions = { persistedQuery: { version: 1, sha256Hash: documentHash(query) } };
    expect((await run(b, { extensions })).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    await run(a, { query, extensions });
    const byHash = await run(b, { extensions });
    expect(byHash.body.errors).toBeUndefined();
    expect(byHash.body.data.organization.teams.totalCount).toBeGreaterThan(0);
  });

  it('keeps answering while Redis is down, counts the failures, and shares again once it is back', async () => {
    const id = spaceIds.Runbooks!;
    await redis.stop();
    await until(async () => !(await sharedStateUp(a)));
    for (const gateway of [a, b]) {
      const answer = await run(gateway, { query: SPACE, variables: { id } });
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.upstream).toBe(1);
    }
    expect(await a.metrics.registry.metrics()).toMatch(
      /^graphql_gateway_shared_state_errors_total\{operation="get"\} [1-9]/m,
    );
    await redis.start();
    await until(async () => (await sharedStateUp(a)) && (await sharedStateUp(b)));
    expect((await run(a, { query: SPACE, variables: { id } })).upstream).toBe(1);
    expect((await run(b, { query: SPACE, variables: { id } })).upstream).toBe(0);
  });

  it("claims a delivery of the platform's events once for every replica, and on its own replica while Redis is down", async () => {
    const replicas = [redisState(redis.url), redisState(redis.url)];
    try {
      await until(() => replicas.every((state) => state.connected()));
      const [one, two] = replicas.map((state) => state.claims('platform-event:', { maxBytes: 64 * 1024 }));
      const key = `signature:${Math.random()}`;
      // At once on both replicas: exactly one takes it.
      const taken = await Promise.all([one!.claim(key, 60_000), two!.claim(key, 60_000)]);
      expect(taken.sort()).toEqual([false, true]);
      expect(await one!.claim(key, 60_000)).toBe(false);
      await redis.stop();
      await until(async () => !(await sharedStateUp(a)));
      const offline = `event:${Math.random()}`;
      expect(await one!.claim(offline, 60_000)).toBe(true);
      // This replica remembers it; another cannot know while Redis is away.
      expect(await one!.claim(offline, 60_000)).toBe(false);
    } finally {
      if (redis.pid === undefined) await redis.start();
      await Promise.all(replicas.map((state) => state.close()));
    }
    await until(async () => (await sharedStateUp(a)) && (await sharedStateUp(b)));
  });

  it('answers while Redis stalls, and forgets after it what a mutation changed meanwhile', async () => {
    const id = spaceIds.Decisions!;
    const title = async (gateway: Gateway) => {
      const answer = await run(gateway, { query: SPACE, variables: { id } });
      return { title: answer.body.data.space.title, hit: answer.body.extensions.responseCache?.hit === true };
    };
    await title(a);
    expect(await title(b)).toEqual({ title: 'Decisions', hit: true });
    // A stalled server: its connections stay open, and nothing answers.
    process.kill(redis.pid!, 'SIGSTOP');
    try {
      // Each command waits its timeout at most, never the whole request's.
      const renamed = await run(b, {
        query:
          'mutation ($id: ID!) { updateSpace(input: { spaceId: $id, title: "Renamed while Redis stalled" }) { space { title } } }',
        variables: { id },
      });
      expect(renamed.body.errors).toBeUndefined();
      const read = await run(a, { query: '{ viewer { displayName } }' });
      expect(read.body.errors).toBeUndefined();
      expect(await b.metrics.registry.metrics()).toMatch(
        /^graphql_gateway_shared_state_errors_total\{operation="invalidate"\} [1-9]/m,
      );
    } finally {
      process.kill(redis.pid!, 'SIGCONT');
    }
    // The invalidation Redis did not take is owed, and done once it answers again: no replica
    // serves the answer cached before the mutation.
    await until(async () => (await title(a)).title === 'Renamed while Redis stalled');
    // A stalled connection is dropped and made again: the replicas share again once it is ready.
    await until(async () => (await sharedStateUp(a)) && (await sharedStateUp(b)));
    expect((await title(b)).title).toBe('Renamed while Redis stalled');
    expect(await title(a)).toEqual({ title: 'Renamed while Redis stalled', hit: true });
  });

  it('forgets every cached answer, and nothing else, when it owes more invalidations than it keeps', async () => {
    const state = redisState(redis.url, { maxOwedInvalidations: 1 });
    const cache = state.responseCache('owed-test:', { maxBytes: 1024 * 1024 });
    const client = new Redis(redis.url);
    try {
      await until(() => state.connected());
      await cache.set('space1', { data: {} }, [{ typename: 'Space', id: 1 }], 60_000);
      await cache.set('team5', { data: {} }, [{ typename: 'Team', id: 5 }], 60_000);
      await client.set('elsewhere', 'kept');
      process.kill(redis.pid!, 'SIGSTOP');
      try {
        await cache.invalidate([
          { typename: 'Space', id: 1 },
          { typename: 'Space', id: 2 },
        ]);
      } finally {
        process.kill(redis.pid!, 'SIGCONT');
      }
      // Two owed, one kept: once Redis answers, the whole cache goes, the unrelated entry too.
      await until(async () => (await client.keys('owed-test:*')).length === 0);
      expect(await client.get('elsewhere')).toBe('kept');
    } finally {
      client.disconnect();
      await state.close();
    }
  });

  it('keeps the index of a busy type to the entries alive, and forgets thousands in one invalidation', async () => {
    const state = redisState(redis.url);
    const cache = state.responseCache('index-test:', { maxBytes: 64 * 1024 * 1024 });
    const client = new Redis(redis.url);
    try {
      await until(() => state.connected());
      const space = (id: number) => [{ typename: 'Space', id }];
      for (let i = 0; i < 20; i += 1) await cache.set(`short${i}`, { data: { i } }, space(i), 30);
      await new Promise((resolve) => setTimeout(resolve, 60));
      await cache.set('long', { data: {} }, space(99), 60_000);
      // The 20 ended entries left the type's index with the next write.
      expect(await client.zcard('index-test:type:Space')).toBe(1);

      for (let i = 0; i < 1_200; i += 1) await cache.set(`many${i}`, { data: { i } }, space(i), 60_000);
      await cache.invalidate([{ typename: 'Space' }]);
      expect(await client.keys('index-test:entry:*')).toEqual([]);
      expect(await client.exists('index-test:type:Space')).toBe(0);
    } finally {
      client.disconnect();
      await state.close();
    }
  });
  it('keeps a flood of registered documents within their bytes in Redis, for every replica together', async () => {
    const client = new Redis(redis.url);
    try {
      const documents = Array.from(
        { length: 40 },
        (_, i) => `# ${i} ${'x'.repeat(4 * 1024)}\nquery Flood${i} { __typename }`,
      );
      for (const [index, query] of documents.entries()) {
        const extensions = { persistedQuery: { version: 1, sha256Hash: documentHash(query) } };
        const registered = await run(index % 2 === 0 ? a : b, { query, extensions });
        expect(registered.body.data).toEqual({ __typename: 'Query' });
      }
      // The documents Redis holds, whatever their keys: some 4 KiB each, within 64 KiB.
      const entries = [];
      for (const key of await client.keys('apq:*'))
        if (key !== 'apq:bytes' && (await client.type(key)) === 'string') entries.push(key);
      expect(entries.length).toBeLessThan(16);
      const bytes = Number(await client.get('apq:bytes'));
      expect(bytes).toBeLessThanOrEqual(64 * 1024);
      let held = 0;
      for (const key of entries) held += (await client.strlen(key)) + key.length - 'apq:entry:'.length;
      expect(held + entries.length * ENTRY_OVERHEAD_BYTES).toBe(bytes);
      expect(entries.length).toBe(await client.zcard('apq:used'));
      expect(entries.length).toBeGreaterThan(5);
      const byHash = (query: string) =>
        run(b, { extensions: { persistedQuery: { version: 1, sha256Hash: documentHash(query) } } });
      expect((await byHash(documents.at(-1)!)).body.data).toEqual({ __typename: 'Query' });
      expect((await byHash(documents[0]!)).body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    } finally {
      client.disconnect();
    }
  });

  it('keeps the response cache within its bytes in Redis, the entries ending soonest going first', async () => {
    const state = redisState(redis.url);
    const cache = state.responseCache('bytes-test:', { maxBytes: 16 * 1024, maxEntryBytes: 4 * 1024 });
    const client = new Redis(redis.url);
    try {
      await until(() => state.connected());
      for (let i = 0; i < 100; i += 1) {
        const data = { data: { text: 'x'.repeat((i * 53) % 3000) } };
        await cache.set(`entry${i}`, data, [{ typename: 'Space', id: i % 5 }], 60_000 + i);
        expect(Number(await client.get('bytes-test:bytes'))).toBeLessThanOrEqual(16 * 1024);
      }
      const entries = await client.keys('bytes-test:entry:*');
      expect(entries.length).toBe(await client.zcard('bytes-test:ends'));
      expect(entries).toContain('bytes-test:entry:entry99');
      expect(await client.exists('bytes-test:entry:entry0')).toBe(0);
      // What went left no trace in the index of the objects that held it.
      const held = new Set(entries.map((key) => key.slice('bytes-test:entry:'.length)));
      for (let id = 0; id < 5; id += 1) {
        for (const entry of await client.zrange(`bytes-test:entity:Space:${id}`, 0, -1)) expect(held).toContain(entry);
      }
      expect(await cache.get('entry99')).toEqual({ data: { text: 'x'.repeat((99 * 53) % 3000) } });
      // An answer over the size of an entry is not kept.
      await cache.set('too-large', { data: { text: 'x'.repeat(4 * 1024) } }, [], 60_000);
      expect(await cache.get('too-large')).toBeUndefined();
      // Forgetting all of it leaves nothing, its count included.
      await cache.clear();
      expect(await client.keys('bytes-test:*')).toEqual([]);
    } finally {
      client.disconnect();
      await state.close();
    }
  });

  it("forgets through every replica what a removed member read, once the removal's answer is out", async () => {
    const finn = { authorization: `Bearer ${org.token('finn')}` };
    const variables = { id: spaceIds.Runbooks };
    const read = (gateway: Gateway) => postGraphQL(gateway, platform, { query: SPACE, variables }, finn);
    expect((await read(a)).body.errors).toBeUndefined();
    expect((await read(b)).upstream).toBe(0);
    const removed = await run(b, {
      query: `mutation { removeMember(input: { organizationId: "shared", userId: "${org.user('finn').id}" }) { deleted } }`,
    });
    expect(removed.body.data.removeMember.deleted).toBe(true);
    const again = await read(a);
    expect(again.upstream).toBe(1);
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
