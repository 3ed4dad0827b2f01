import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { serveWebSockets } from '../../src/gateway/http/websocket.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { subscribe, type Subscription } from '../fixtures/subscriptions.js';
import { until } from '../fixtures/wait.js';
import { reportExchanges, type Exchange } from '../../src/gateway/upstream/hooks.js';

/**
 * Subscriptions over SSE, against a real platform polled every 100 ms: one poll per resource and
 * token however many subscribe, counted at the platform.
 */
const POLL_MS = 100;
let platform: TestPlatform;
let gateway: Gateway;
let server: Server;
let url: string;

/** Serves `gateway` on a loopback port, as `npm start` does. */
async function listen(served: Gateway): Promise<{ server: Server; url: string }> {
  const http = createServer(served.handle);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { server: http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}` };
}

async function stop(http: Server): Promise<void> {
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
}

let webSockets: { close(): Promise<void> };
/** Every upstream request of the shared gateway, once it ended: when each poll started. */
const exchanges: Exchange[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    subscriptions: { pollMs: POLL_MS },
    clientOptions: { hooks: [reportExchanges((exchange) => exchanges.push(exchange))] },
  });
  ({ server, url } = await listen(gateway));
  webSockets = serveWebSockets(server, gateway, { maxPerConnection: 3 });
});
afterAll(async () => {
  await webSockets.close();
  await stop(server);
  await gateway.close();
  await platform.destroy();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Requests the platform received for `path` (query strings aside) since its stats were reset. */
const requestsTo = (path: string) =>
  platform.app.stats.requests.filter((line) => line.split('?')[0] === `GET /v1${path}`).length;
/** The platform's answers to GETs of `path` (query strings aside) since its stats were reset, in order. */
const answersTo = (path: string) =>
  platform.app.stats.answers.filter((answer) => answer.method === 'GET' && answer.url.split('?')[0] === `/v1${path}`);

async function send(query: string, variables: Record<string, unknown> = {}) {
  const answer = await postGraphQL(gateway, platform, { query, variables });
  expect(answer.body.errors).toBeUndefined();
  return answer.body.data;
}

const CONTENT = `subscription ($id: ID!) {
  spaceContentUpdated(spaceId: $id) { platformId space { title } changes { changes { ... on PageCreatedChange { page { title } } } } }
}`;

/** A fresh space whose merge rules let anyone merge, and a change request on it that adds a page. */
async function spaceWithChange(title: string) {
  const { createSpace } = await send(
    `mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { id platformId } } }`,
    { title },
  );
  const spaceId = createSpace.space.platformId as string;
  await send(
    `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } } }`,
    {
      id: spaceId,
    },
  );
  const { createChangeRequest } = await send(
    `mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Add a page" }) { changeRequest { id platformId } } }`,
    { id: spaceId },
  );
  const changeRequestId = createChangeRequest.changeRequest.id as string;
  const changeRequestPlatformId = createChangeRequest.changeRequest.platformId as string;
  await send(
    `mutation ($id: ID!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: "# Welcome\\n\\nHello." } }] }) { edits { pageId } } }`,
    { id: changeRequestId },
  );
  const merge = () =>
    send(
      `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { result revision { platformId } } }`,
      {
        id: changeRequestId,
      },
    );
  return { spaceId, changeRequestId, changeRequestPlatformId, merge };
}

/**
 * The hub's counts once they reach `expected`: a closed stream reaches the server a little later,
 * how much later depends on the machine's load (the test's timeout guards counts that never come).
 */
async function settled(expected: { subscriptions: number; polled: number }) {
  const counts = () => ({ subscriptions: gateway.live.subscriptions, polled: gateway.live.polled });
  await until(() => JSON.stringify(counts()) === JSON.stringify(expected));
  return counts();
}

describe('spaceContentUpdated', () => {
  it('sends the current revision, then the one a merge makes, found by the next poll', async () => {
    const { spaceId, merge } = await spaceWithChange('Followed');
    const before = (await platform.api('GET', `/spaces/${spaceId}`)).body.revision;
    const sub = await subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    const first = await sub.next();
    expect(first.data.spaceContentUpdated).toMatchObject({ platformId: before, space: { title: 'Followed' } });
    expect(first.extensions.cost).toMatchObject({ subscriptions: 1 });

    // A while later: the next event's duration is its own (from the new version's arrival), so it
    // is within the time since the merge was sent, never the half second more since the subscription began.
    await sleep(500);
    const mergeSent = performance.now();
    const merged = await merge();
    platform.app.stats.reset();
    const second = await sub.next();
    expect(second.extensions.cost.durationMs).toBeLessThanOrEqual(performance.now() - mergeSent);
    expect(second.data.spaceContentUpdated.platformId).toBe(merged.mergeChangeRequest.revision.platformId);
    expect(second.data.spaceContentUpdated.changes.changes).toEqual([{ page: { title: 'Welcome' } }]);
    // Found by the first poll after the merge, or the next one when a poll was under way meanwhile
    // (the polls after the one that found it, while its event was on its way, do not count).
    const found = answersTo(`/spaces/${spaceId}`).findIndex((answer) => answer.status === 200);
    expect(found + 1).toBeLessThanOrEqual(2);
    // The event's own requests are in its cost: its revision's changes, read for it.
    expect(second.extensions.cost.upstreamRequests).toBeGreaterThan(0);
    // Each event within its bound: the first's holds the space's read, a later one's only its own.
    for (const event of [first, second])
      expect(event.extensions.cost.upstreamRequests).toBeLessThanOrEqual(event.extensions.cost.maxUpstreamRequests);
    expect(first.extensions.cost.maxUpstreamRequests - second.extensions.cost.maxUpstreamRequests).toBe(1);
    sub.close();
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  });

  it('sends the revision a merge through the gateway makes at once, with one read, not at the next poll', async () => {
    // A poll a minute: only the wake of the merge can bring the event within the test's time.
    const slow = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 60_000 },
    });
    const served = await listen(slow);
    try {
      const { spaceId, changeRequestId } = await spaceWithChange('Woken');
      const sub = await subscribe(served.url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
      await sub.next();
      platform.app.stats.reset();
      const merged = await postGraphQL(slow, platform, {
        query:
          'mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { revision { platformId } } }',
        variables: { id: changeRequestId },
      });
      const second = await sub.next();
      expect(second.data.spaceContentUpdated.platformId).toBe(merged.body.data.mergeChangeRequest.revision.platformId);
      // One read of the space found it: the wake's, no other poll.
      expect(answersTo(`/spaces/${spaceId}`).map((answer) => answer.status)).toEqual([200]);
      sub.close();
    } finally {
      await stop(served.server);
      await slow.close();
    }
  });

  it('polls once per interval for 100 subscribers with one token, and not at all once they are gone', async () => {
    const spaceId = platform.spaceId('Getting started');
    const subs: Subscription[] = await Promise.all(
      Array.from({ length: 100 }, () =>
        subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } }),
      ),
    );
    await Promise.all(subs.map((sub) => sub.next()));
    expect({ subscriptions: gateway.live.subscriptions, polled: gateway.live.polled }).toEqual({
      subscriptions: 100,
      polled: 1,
    });
    platform.app.stats.reset();
    const since = performance.now();
    await until(() => answersTo(`/spaces/${spaceId}`).length >= 5);
    const polls = requestsTo(`/spaces/${spaceId}`);
    // One poll per interval for the 100 of them: each poll starts an interval after the previous
    // one ended, so a busy machine polls less often, never more (one poll per subscriber would be 100).
    expect(polls).toBeLessThanOrEqual((performance.now() - since) / POLL_MS + 1);
    // Nothing changed: every poll after the first was answered 304, with nothing read or sent.
    expect(answersTo(`/spaces/${spaceId}`).filter((answer) => answer.status !== 304)).toEqual([]);
    expect(platform.app.stats.count).toBe(polls);

    for (const sub of subs) sub.close();
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
    const gone = performance.now();
    // Three intervals later, no poll started after they were gone (one sent just before may still
    // have been on its way); a busy machine only gives a wrong poll more time to show.
    await sleep(3 * POLL_MS);
    expect(exchanges.filter((exchange) => exchange.path === `/spaces/${spaceId}` && exchange.startedAt > gone)).toEqual(
      [],
    );
  });

  it('never shares a poll between tokens: each sees what it may read, a reader without access gets NOT_FOUND', async () => {
    const secret = (
      await platform.api('POST', '/orgs/acme/spaces', { body: { title: 'Admins only', visibility: 'private' } })
    ).body.id as string;
    const outsider = platform.token('gus@partner.test');
    const admin = await subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: secret } });
    const other = await subscribe(url, CONTENT, { token: outsider, variables: { id: secret } });
    expect((await admin.next()).data.spaceContentUpdated.space.title).toBe('Admins only');
    const refused = await other.next();
    expect(refused.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await other.completed;
    expect(await settled({ subscriptions: 1, polled: 1 })).toEqual({ subscriptions: 1, polled: 1 });
    admin.close();
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  });

  it('ends with NOT_FOUND when the space is deleted, and with UNAUTHENTICATED when the token is revoked', async () => {
    const spaceId = (await platform.api('POST', '/orgs/acme/spaces', { body: { title: 'Doomed' } })).body.id as string;
    const sub = await subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    await sub.next();
    await platform.api('DELETE', `/spaces/${spaceId}`);
    expect((await sub.next()).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    await sub.completed;

    const token = platform.token('finn@acme.test');
    const reader = await subscribe(url, CONTENT, { token, variables: { id: platform.spaceId('Getting started') } });
    await reader.next();
    platform.db.prepare('DELETE FROM api_tokens WHERE token = ?').run(token);
    expect((await reader.next()).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    await reader.completed;
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  });

  it('leaves nothing behind after 1,000 subscriptions opened and closed', async () => {
    const spaceId = platform.spaceId('Getting started');
    for (let round = 0; round < 100; round += 1) {
      const subs = await Promise.all(
        Array.from({ length: 10 }, () =>
          subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } }),
        ),
      );
      await Promise.all(subs.map((sub) => sub.next()));
      for (const sub of subs) sub.close();
    }
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  }, 300_000); // a guard, not a bound: 100 rounds of 10 streams take seconds alone, several times that on a busy machine
});

describe('changeRequestUpdated', () => {
  it('sends the change request, then each change of it: a review, the merge', async () => {
    const { spaceId, changeRequestId, changeRequestPlatformId, merge } = await spaceWithChange('Reviewed');
    const sub = await subscribe(
      url,
      `subscription ($id: ID!) { changeRequestUpdated(changeRequestId: $id) { status reviews { totalCount nodes { status } } } }`,
      { token: platform.adminToken, variables: { id: changeRequestId } },
    );
    const first = (await sub.next()).data.changeRequestUpdated;
    expect(first.reviews.totalCount).toBe(0);
    // A review changes the reviews, not the change request: followed all the same.
    const review = await platform.api('POST', `/spaces/${spaceId}/change-requests/${changeRequestPlatformId}/reviews`, {
      token: platform.token('ben@acme.test'),
      body: { status: 'approved' },
    });
    expect(review.status).toBe(201);
    const reviewed = (await sub.next()).data.changeRequestUpdated;
    expect(reviewed.reviews).toEqual({ totalCount: 1, nodes: [{ status: 'APPROVED' }] });
    await merge();
    const merged = (await sub.next()).data.changeRequestUpdated;
    expect(merged.status).toBe('MERGED');
    sub.close();
  });
});

describe('the other followed resources', () => {
  it('each sends its object as it is first', async () => {
    const first = async (path: string) => (await platform.api('GET', path, { query: { limit: 1 } })).body.items[0];
    const translation = await first('/orgs/acme/translations');
    const spec = await first('/orgs/acme/openapi');
    const site = await first('/orgs/acme/sites');
    const cases = [
      {
        query: `subscription ($id: ID!) { translationUpdated(translationId: $id, organizationId: "acme") { platformId } }`,
        variables: { id: translation.id },
        expected: { translationUpdated: { platformId: translation.id } },
      },
      {
        query: `subscription ($slug: String!) { openApiSpecUpdated(organizationId: "acme", slug: $slug) { slug } }`,
        variables: { slug: spec.slug },
        expected: { openApiSpecUpdated: { slug: spec.slug } },
      },
      {
        query: `subscription ($id: ID!) { siteUpdated(organizationId: "acme", siteId: $id) { platformId title } }`,
        variables: { id: site.id },
        expected: { siteUpdated: { platformId: site.id, title: site.title } },
      },
    ];
    for (const { query, variables, expected } of cases) {
      const sub = await subscribe(url, query, { token: platform.adminToken, variables });
      const event = await sub.next();
      expect(event).toMatchObject({ data: expected });
      sub.close();
    }
    // A space that Git Sync does not follow has no state to follow.
    const unsynced = await subscribe(url, `subscription ($id: ID!) { gitSyncUpdated(spaceId: $id) { url } }`, {
      token: platform.adminToken,
      variables: { id: platform.spaceId('Getting started') },
    });
    expect((await unsynced.next()).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  });
});

describe('over WebSocket (graphql-transport-ws)', () => {
  /** A graphql-ws client of the test gateway, with `token` in its connection_init payload. */
  const client = (token = platform.adminToken) =>
    createClient({
      url: `${url.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${token}` },
      retryAttempts: 0,
    });

  it('runs subscriptions and queries through the same chain as HTTP, and stops polling when completed', async () => {
    const ws = client();
    try {
      const spaceId = platform.spaceId('Getting started');
      const events = ws.iterate<any>({ query: CONTENT, variables: { id: spaceId } });
      const first = await events.next();
      expect(first.value.data.spaceContentUpdated.space.title).toBe('Getting started');
      expect(first.value.extensions.cost).toMatchObject({ subscriptions: 1 });
      expect(await settled({ subscriptions: 1, polled: 1 })).toEqual({ subscriptions: 1, polled: 1 });
      await events.return?.(undefined);
      expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });

      const query = ws.iterate<any>({ query: '{ viewer { email } }' });
      const answer = await query.next();
      expect(answer.value.data.viewer.email).toBe('ada@acme.test');
      expect(answer.value.extensions.cost.upstreamRequests).toBe(1);
    } finally {
      await ws.dispose();
    }
  });

  it('refuses one operation past MAX_SUBSCRIPTIONS_PER_CONNECTION, and ends all with the socket', async () => {
    const ws = client();
    const variables = { id: platform.spaceId('Getting started') };
    const open = Array.from({ length: 3 }, () => ws.iterate<any>({ query: CONTENT, variables }));
    await Promise.all(open.map((events) => events.next()));
    const fourth = ws.iterate<any>({ query: CONTENT, variables });
    await expect(fourth.next()).rejects.toMatchObject([
      { extensions: { code: 'RATE_LIMITED', limit: 'subscriptionsPerConnection', max: 3 } },
    ]);
    expect(gateway.live.subscriptions).toBe(3);
    await ws.dispose();
    expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
  });

  it('reads the token of the connection: another token sees only what it may', async () => {
    const ws = client(platform.token('gus@partner.test'));
    try {
      const secret = (
        await platform.api('POST', '/orgs/acme/spaces', { body: { title: 'Private to acme', visibility: 'private' } })
      ).body.id as string;
      const events = ws.iterate<any>({ query: CONTENT, variables: { id: secret } });
      const refused = await events.next();
      expect(refused.value.errors[0].extensions.code).toBe('NOT_FOUND');
    } finally {
      await ws.dispose();
    }
  });
});

describe("over GraphQL over SSE's single-connection mode", () => {
  it('runs several subscriptions over one event stream through the whole chain, and stops polling when they complete', async () => {
    const sse = createSseClient({
      url: `${url}/graphql/stream`,
      singleConnection: true,
      headers: { authorization: `Bearer ${platform.adminToken}` },
      retryAttempts: 0,
    });
    try {
      const events = [platform.spaceId('Getting started'), platform.spaceId('Tutorials')].map((id) =>
        sse.iterate<any>({ query: CONTENT, variables: { id } }),
      );
      const firsts = await Promise.all(events.map((iterator) => iterator.next()));
      expect(firsts.map((first) => first.value.data.spaceContentUpdated.space.title)).toEqual([
        'Getting started',
        'Tutorials',
      ]);
      // Each operation ran through the whole chain, as one over HTTP: its events carry their cost.
      for (const first of firsts) expect(first.value.extensions.cost).toMatchObject({ subscriptions: 1 });
      expect(await settled({ subscriptions: 2, polled: 2 })).toEqual({ subscriptions: 2, polled: 2 });
      await Promise.all(events.map((iterator) => iterator.return?.(undefined)));
      expect(await settled({ subscriptions: 0, polled: 0 })).toEqual({ subscriptions: 0, polled: 0 });
    } finally {
      sse.dispose();
    }
  });
});

describe('reserved event streams nobody connects to', () => {
  it('refuses a caller past its reservations, and drops one unconnected with its operations', async () => {
    const small = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: POLL_MS },
      // Long enough for the six requests before the drop on a busy machine (3 s was not, beside the whole suite at a
      // load of 10); the test then waits for the drop.
      eventStreams: { reservationMs: 10_000, maxReservedPerCaller: 2 },
    });
    const served = await listen(small);
    const headers = { authorization: `Bearer ${platform.adminToken}` };
    const reserve = () => fetch(`${served.url}/graphql/stream`, { method: 'PUT', headers });
    try {
      const tokens = await Promise.all([reserve(), reserve()].map(async (r) => (await r).text()));
      const third = await reserve();
      expect(third.status).toBe(429);
      expect(((await third.json()) as any).errors[0].extensions).toEqual({
        code: 'RATE_LIMITED',
        limit: 'reservedEventStreams',
        max: 2,
      });
      // An operation sent to a reserved stream runs, though nobody reads it…
      const sent = await fetch(`${served.url}/graphql/stream`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'x-graphql-event-stream-token': tokens[0]! },
        body: JSON.stringify({
          query: CONTENT,
          variables: { id: platform.spaceId('Getting started') },
          extensions: { operationId: 'unread' },
        }),
      });
      expect(sent.status).toBe(202);
      // Another caller can neither post to that stream nor read it.
      const other = {
        authorization: `Bearer ${platform.token('ben@acme.test')}`,
        'x-graphql-event-stream-token': tokens[0]!,
      };
      const intruding = await fetch(`${served.url}/graphql/stream`, {
        method: 'POST',
        headers: { ...other, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: CONTENT,
          variables: { id: platform.spaceId('Tutorials') },
          extensions: { operationId: 'x' },
        }),
      });
      expect(intruding.status).toBe(404);
      const reading = await fetch(`${served.url}/graphql/stream`, {
        headers: { ...other, accept: 'text/event-stream' },
      });
      expect(reading.status).toBe(404);
      await until(() => small.live.subscriptions > 0);
      expect(small.live.subscriptions).toBe(1);
      // …until its stream is dropped, unconnected: then it ends, and the caller may reserve again.
      await until(() => small.live.subscriptions === 0);
      expect((await reserve()).status).toBe(201);
    } finally {
      await stop(served.server);
      await small.close();
    }
  });
});

describe('limits', () => {
  /** Runs `test` against a gateway of its own with these subscription limits, served on a loopback port. */
  async function withGateway(
    limits: { maxSubscriptions?: number; maxPerCaller?: number },
    test: (small: Gateway, served: { url: string }) => Promise<void>,
  ): Promise<void> {
    const small = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: POLL_MS, ...limits },
    });
    const served = await listen(small);
    try {
      await test(small, served);
    } finally {
      await stop(served.server);
      await small.close();
    }
  }

  it('gives back the slot of a subscription answered 406 (a client that accepts no stream)', async () => {
    await withGateway({ maxSubscriptions: 2 }, async (small, served) => {
      const variables = { id: platform.spaceId('Getting started') };
      // Without a valid token (a fresh one is a fresh caller): the platform is never asked.
      platform.app.stats.reset();
      for (const [index, accept] of ['application/json', 'multipart/mixed'].entries()) {
        const response = await fetch(`${served.url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept, authorization: `Bearer not-a-token-${index}` },
          body: JSON.stringify({ query: CONTENT, variables }),
        });
        expect(response.status).toBe(406);
        await response.body?.cancel();
      }
      expect(platform.app.stats.requests).toEqual([]);
      // Nothing is open: no slot of the gateway may stay held, or a valid caller is refused.
      await until(() => small.live.subscriptions === 0);
      const sub = await subscribe(served.url, CONTENT, { token: platform.adminToken, variables });
      expect((await sub.next()).errors).toBeUndefined();
      sub.close();
    });
  });

  it('refuses a caller past MAX_SUBSCRIPTIONS_PER_CALLER, and leaves the room to other callers', async () => {
    await withGateway({ maxPerCaller: 2 }, async (small, served) => {
      const variables = { id: platform.spaceId('Getting started') };
      const open = [
        await subscribe(served.url, CONTENT, { token: platform.adminToken, variables }),
        await subscribe(served.url, CONTENT, { token: platform.adminToken, variables }),
      ];
      for (const sub of open) expect((await sub.next()).errors).toBeUndefined();
      const third = await (await subscribe(served.url, CONTENT, { token: platform.adminToken, variables })).next();
      expect(third.errors?.[0]?.extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limit: 'subscriptionsPerCaller',
        max: 2,
      });
      // Another caller is not held back by the first.
      const other = await subscribe(served.url, CONTENT, { token: platform.token('ben@acme.test'), variables });
      expect((await other.next()).data?.spaceContentUpdated).toBeTruthy();
      expect(small.live.subscriptions).toBe(3);
      // A closed subscription gives its slot back.
      open[0]!.close();
      await until(() => small.live.subscriptions === 2);
      const again = await subscribe(served.url, CONTENT, { token: platform.adminToken, variables });
      expect((await again.next()).errors).toBeUndefined();
      for (const sub of [open[1]!, other, again]) sub.close();
    });
  });

  it('admits exactly MAX_SUBSCRIPTIONS_PER_CALLER of a burst sent at once', async () => {
    await withGateway({ maxPerCaller: 3 }, async (small, served) => {
      const variables = { id: platform.spaceId('Getting started') };
      const subs = await Promise.all(
        Array.from({ length: 8 }, () => subscribe(served.url, CONTENT, { token: platform.adminToken, variables })),
      );
      const firsts = await Promise.all(subs.map((sub) => sub.next()));
      const refused = firsts.filter((first) => first.errors?.[0]?.extensions?.limit === 'subscriptionsPerCaller');
      expect({ admitted: firsts.filter((first) => !first.errors).length, refused: refused.length }).toEqual({
        admitted: 3,
        refused: 5,
      });
      expect(small.live.subscriptions).toBe(3);
      for (const sub of subs) sub.close();
    });
  });

  it('refuses a subscription past MAX_SUBSCRIPTIONS with RATE_LIMITED, naming the limit', async () => {
    await withGateway({ maxSubscriptions: 2 }, async (_small, served) => {
      const variables = { id: platform.spaceId('Getting started') };
      const open = [await subscribe(served.url, CONTENT, { token: platform.adminToken, variables })];
      open.push(await subscribe(served.url, CONTENT, { token: platform.adminToken, variables }));
      await Promise.all(open.map((sub) => sub.next()));
      const third = await subscribe(served.url, CONTENT, { token: platform.adminToken, variables });
      const refused = await third.next();
      expect(refused.errors?.[0]?.extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limit: 'subscriptions',
        max: 2,
      });
      for (const sub of open) sub.close();
    });
  });
});
