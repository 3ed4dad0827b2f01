import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createGateway, type Gateway } from '../src/gateway/http/server.js';
import { registerForEvents } from '../src/gateway/live/event-registration.js';
import { demoAdminToken } from '../src/supervisor.js';
import { PLATFORM_EVENTS_PATH } from '../src/gateway/live/events-path.js';
import { startPlatform, type RunningPlatform } from '../src/platform/server.js';
import { percentile } from '../test/fixtures/stats.js';
import { payloadsOf } from '../test/fixtures/incremental.js';
import { subscribe, type Subscription } from '../test/fixtures/subscriptions.js';

/**
 * Live and incremental delivery (issue 21), the gateway and the embedded platform in this process,
 * over loopback sockets:
 *
 * - `@defer`: with 20 ms per upstream request, when a dashboard's first payload and its deferred
 *   part arrive, against the time its levels of upstream requests take (target: the first payload
 *   within 10 ms of its own requests).
 * - subscriptions: upstream requests per minute for 1, 100 and 1,000 subscribers of one space with
 *   one token (`SUBSCRIPTION_POLL_MS` 2000); the time from a merge through the gateway to its event at
 *   each of 100 subscribers; the heap after 1,000 subscriptions opened and closed.
 *
 *   npx tsx bench/live.ts          (BENCH_SMOKE=1: a few rounds, a 100 ms interval, answers checked)
 */

const SMOKE = process.env.BENCH_SMOKE === '1';
const POLL_MS = SMOKE ? 100 : 2000;
/**
 * How long an event may take to come: the target of a full run; none in a smoke run, which checks
 * the answers on a machine busy with the whole test suite (the smoke test's budget is its guard).
 */
const within = (ms: number) => (SMOKE ? undefined : ms);

/**
 * Waits until the subscriptions closed have reached the server: a full run fails when one is still
 * open 2 s later (something kept it); a smoke run waits as long as its machine takes.
 */
async function allClosed(served: Served): Promise<void> {
  for (let wait = 0; (SMOKE || wait < 200) && served.gateway.live.subscriptions > 0; wait += 1) await sleep(10);
  assert.equal(served.gateway.live.subscriptions, 0);
}

interface Served {
  platform: RunningPlatform;
  gateway: Gateway;
  url: string;
  token: string;
  close(): Promise<void>;
}

/**
 * The platform and a gateway in this process. With `push`, as `npm start` has them: the platform
 * delivers its events to the gateway's receiver on loopback (`eventReceivers`), which registered with
 * the demo admin's token.
 */
async function serve(delayMs: number, { push = false } = {}): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-live-'));
  // Listening first: the platform is told where the receiver is as it starts.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const receiverUrl = `${url}${PLATFORM_EVENTS_PATH}`;
  const platform = await startPlatform({
    dataDir,
    port: 0,
    delayMs,
    ...(push ? { eventReceivers: [receiverUrl] } : {}),
  });
  const gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    subscriptions: { pollMs: POLL_MS, ...(SMOKE ? { pushedPollMs: 10 * POLL_MS } : {}) },
  });
  server.on('request', gateway.handle);
  const token = demoAdminToken(platform.tokens)!;
  if (push) gateway.receiveEvents(await registerForEvents({ client: gateway.client, token, receiverUrl }));
  return {
    platform,
    gateway,
    url,
    token,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await gateway.close();
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function gql(served: Served, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(`${served.url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${served.token}` },
    body: JSON.stringify({ query, variables }),
  });
  const answer = (await response.json()) as { data?: any; errors?: unknown };
  assert.equal(answer.errors, undefined, JSON.stringify(answer.errors));
  return answer.data;
}

const ms = (value: number) => value.toFixed(1);
const sleep = (duration: number) => new Promise((resolve) => setTimeout(resolve, duration));

async function deferred(): Promise<void> {
  const delay = 20;
  const served = await serve(delay);
  try {
    const teams = `teams(first: 5) { nodes { title members(first: 5) { nodes { role member { user { displayName } } } } } }`;
    const query = `{ organization(id: "acme") { title spaces(first: 3) { nodes { title } } ... @defer { ${teams} } } }`;
    const rounds = SMOKE ? 2 : 20;
    const first: number[] = [];
    const last: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const started = performance.now();
      const response = await fetch(`${served.url}/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'multipart/mixed',
          authorization: `Bearer ${served.token}`,
        },
        body: JSON.stringify({ query }),
      });
      let count = 0;
      for await (const payload of payloadsOf(response as unknown as globalThis.Response)) {
        assert.equal(payload.errors, undefined);
        if (count === 0) first.push(performance.now() - started);
        count += 1;
        if (payload.hasNext === false) last.push(performance.now() - started);
      }
      assert.ok(count >= 2, 'the deferred part came in a payload of its own');
    }
    // The first payload needs two levels of requests (the organization, then its spaces); the
    // deferred part three (its teams, then each team's members).
    console.log(
      `\n## @defer: a dashboard with its teams deferred, ${delay} ms per upstream request, ${rounds} rounds\n`,
    );
    console.log('| payload | levels of requests | their time | median ms | p90 ms | median over its requests |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(
      `| first | 2 | ${2 * delay} ms | ${ms(percentile(first, 50))} | ${ms(percentile(first, 90))} | ${ms(percentile(first, 50) - 2 * delay)} ms |`,
    );
    console.log(
      `| last (deferred) | 3 | ${3 * delay} ms | ${ms(percentile(last, 50))} | ${ms(percentile(last, 90))} | ${ms(percentile(last, 50) - 3 * delay)} ms |`,
    );
    console.log('| target (issue 21), first payload | | | | | ≤ 10 ms |');
  } finally {
    await served.close();
  }
}

const CONTENT = `subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }`;

/** Upstream requests the platform receives per minute for `count` subscribers of one space. */
async function requestsPerMinute(served: Served, spaceId: string, count: number): Promise<number> {
  const subs: Subscription[] = [];
  for (let opened = 0; opened < count; opened += 100) {
    const batch = Math.min(100, count - opened);
    subs.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () =>
          subscribe(served.url, CONTENT, { token: served.token, variables: { id: spaceId } }),
        ),
      )),
    );
  }
  await Promise.all(subs.map((sub) => sub.next(within(30_000))));
  assert.equal(served.gateway.live.subscriptions, count);
  assert.equal(served.gateway.live.polled, 1);
  const window = SMOKE ? 5 * POLL_MS : 20_000;
  served.platform.app.stats.reset();
  await sleep(window);
  const received = served.platform.app.stats.count;
  for (const sub of subs) sub.close();
  return (received * 60_000) / window;
}

async function subscriptions(): Promise<void> {
  const served = await serve(0);
  try {
    const spaceId = (
      await served.platform.app.inject({
        method: 'GET',
        url: '/v1/orgs/acme/spaces?limit=1',
        headers: { authorization: `Bearer ${served.token}` },
      })
    ).json().items[0].id as string;
    console.log(`\n## Subscriptions: one space, one token, SUBSCRIPTION_POLL_MS ${POLL_MS}\n`);
    console.log('| subscribers | upstream requests per minute | per subscriber |');
    console.log('|---:|---:|---:|');
    for (const count of SMOKE ? [1, 100] : [1, 100, 1000]) {
      const perMinute = await requestsPerMinute(served, spaceId, count);
      console.log(`| ${count} | ${perMinute.toFixed(1)} | ${(perMinute / count).toFixed(3)} |`);
      await allClosed(served);
    }

    // A merge through the gateway, then the time until each of 100 subscribers has its event.
    const { createSpace } = await gql(
      served,
      `mutation { createSpace(input: { organizationId: "acme", title: "Followed" }) { space { platformId } } }`,
    );
    const followed = createSpace.space.platformId as string;
    await gql(
      served,
      `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } } }`,
      { id: followed },
    );
    const subs = await Promise.all(
      Array.from({ length: 100 }, () =>
        subscribe(served.url, CONTENT, { token: served.token, variables: { id: followed } }),
      ),
    );
    await Promise.all(subs.map((sub) => sub.next()));
    await mergesToEvents(served, followed, subs, {
      merges: SMOKE ? 2 : 10,
      title: 'merge through the gateway → event',
      eventWithinMs: POLL_MS * 3,
      merge: async (changeRequest) => {
        const { mergeChangeRequest } = await gql(
          served,
          `mutation ($id: ID!) { mergeChangeRequest(input: { changeRequestId: $id }) { revision { platformId } } }`,
          { id: changeRequest.id },
        );
        return mergeChangeRequest.revision.platformId as string;
      },
    });
    for (const sub of subs) sub.close();
    console.log(`| target (issue 21) | | | ≤ ${POLL_MS + 100} |`);

    // Memory: 1,000 subscriptions opened and closed, 10 at a time.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = () => {
      gc();
      return process.memoryUsage().heapUsed / 2 ** 20;
    };
    await allClosed(served);
    const before = heap();
    const cycles = SMOKE ? 20 : 1000;
    for (let opened = 0; opened < cycles; opened += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, () =>
          subscribe(served.url, CONTENT, { token: served.token, variables: { id: spaceId } }),
        ),
      );
      await Promise.all(batch.map((sub) => sub.next()));
      for (const sub of batch) sub.close();
    }
    await allClosed(served);
    const after = heap();
    console.log(
      `\nHeap after ${cycles} subscriptions opened and closed: ${before.toFixed(1)} MiB before, ${after.toFixed(1)} MiB after (${(after - before).toFixed(1)} MiB).`,
    );
  } finally {
    await served.close();
  }
}

/**
 * The platform's events pushed to the gateway (issue 36): a merge made on the platform itself, not
 * through the gateway, then the time until each of 100 subscribers has its revision; and the upstream
 * requests per minute of 100 subscribers of a space whose events the gateway takes (polled every
 * `SUBSCRIPTION_PUSHED_POLL_MS`, 30 s, as a safety net).
 */
async function pushed(): Promise<void> {
  const served = await serve(0, { push: true });
  try {
    const { createSpace } = await gql(
      served,
      `mutation { createSpace(input: { organizationId: "acme", title: "Pushed" }) { space { platformId } } }`,
    );
    const followed = createSpace.space.platformId as string;
    const subs = await Promise.all(
      Array.from({ length: 100 }, () =>
        subscribe(served.url, CONTENT, { token: served.token, variables: { id: followed } }),
      ),
    );
    await Promise.all(subs.map((sub) => sub.next()));
    // Nothing of the registration is left to deliver: the merges' events alone are measured.
    await settledDeliveries(served);
    const window = SMOKE ? 5 * POLL_MS : 60_000;
    served.platform.app.stats.reset();
    await sleep(window);
    const perMinute = (served.platform.app.stats.count * 60_000) / window;
    console.log(`\n## Pushed by the platform's events: 100 subscribers of one space, one token\n`);
    console.log(
      `Upstream requests per minute while nothing changes: ${perMinute.toFixed(1)} (polled: 30 at SUBSCRIPTION_POLL_MS 2000).`,
    );
    await mergesToEvents(served, followed, subs, {
      merges: SMOKE ? 2 : 20,
      title: 'merge on the platform → event',
      eventWithinMs: 3_000,
      // Merged on the platform, as another client of the API would: only its event tells the gateway.
      merge: async (changeRequest) => {
        const response = await fetch(
          `${served.platform.url}/spaces/${followed}/change-requests/${changeRequest.platformId}/merge`,
          { method: 'POST', headers: { authorization: `Bearer ${served.token}` } },
        );
        assert.equal(response.status, 200);
        return ((await response.json()) as { revision: string }).revision;
      },
    });
    for (const sub of subs) sub.close();
    console.log('| target (issue 36) | ≤ 100 | ≤ 300 | |');
  } finally {
    await served.close();
  }
}

/**
 * `merges` change requests of `followed`, each adding a page and merged by `merge` (which answers
 * the revision it made) at a random moment of the poll's interval, as merges land in use; then the
 * time until each subscriber has that revision, printed as a table titled `title`.
 */
async function mergesToEvents(
  served: Served,
  followed: string,
  subs: Subscription[],
  options: {
    merges: number;
    title: string;
    eventWithinMs: number;
    merge: (changeRequest: { id: string; platformId: string }) => Promise<string>;
  },
): Promise<void> {
  const latencies: number[] = [];
  const slowest: number[] = [];
  for (let merge = 0; merge < options.merges; merge += 1) {
    const { createChangeRequest } = await gql(
      served,
      `mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Bench" }) { changeRequest { id platformId } } }`,
      { id: followed },
    );
    const changeRequest = createChangeRequest.changeRequest as { id: string; platformId: string };
    await gql(
      served,
      `mutation ($id: ID!, $md: String!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: $md } }] }) { edits { pageId } } }`,
      { id: changeRequest.id, md: `# Page ${merge}\n\nText.` },
    );
    await sleep(Math.random() * POLL_MS);
    const revision = await options.merge(changeRequest);
    const merged = performance.now();
    const arrivals = await Promise.all(
      subs.map(async (sub) => {
        const event = await sub.next(within(options.eventWithinMs));
        assert.equal(event.data.spaceContentUpdated.platformId, revision);
        return performance.now() - merged;
      }),
    );
    latencies.push(...arrivals);
    slowest.push(Math.max(...arrivals));
  }
  console.log(
    `\n| ${options.title}, ${subs.length} subscribers, ${options.merges} merges | median ms | p99 ms | max ms |`,
  );
  console.log('|---|---:|---:|---:|');
  console.log(
    `| each subscriber | ${ms(percentile(latencies, 50))} | ${ms(percentile(latencies, 99))} | ${ms(Math.max(...latencies))} |`,
  );
  console.log(
    `| the last of the ${subs.length}, per merge | ${ms(percentile(slowest, 50))} | ${ms(percentile(slowest, 99))} | ${ms(Math.max(...slowest))} |`,
  );
}

/** Waits until the platform has no event of the gateway's integration left to deliver. */
async function settledDeliveries(served: Served): Promise<void> {
  for (;;) {
    const answer = await served.platform.app.inject({
      method: 'GET',
      url: '/v1/integrations/graphql-gateway/events?limit=100',
      headers: { authorization: `Bearer ${served.token}` },
    });
    if (!answer.json().items.some((event: { status: string }) => event.status === 'pending')) return;
    await sleep(50);
  }
}

console.log(`# bench/live.ts, Node ${process.version}, ${cpus().length} CPUs${SMOKE ? ', smoke run' : ''}`);
await deferred();
await subscriptions();
await pushed();
console.log('\nbench/live.ts done.');
