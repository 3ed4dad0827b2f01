import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { registerForEvents, type Registration } from '../../src/gateway/live/event-registration.js';
import { EventRegistrar } from '../../src/gateway/live/event-registrar.js';
import { freePort } from '../fixtures/ports.js';
import { PLATFORM_EVENTS_PATH } from '../../src/gateway/live/platform-events.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { until } from '../fixtures/wait.js';

/**
 * The platform's signed events, pushed to the gateway: a real platform delivers them to a gateway
 * listening on loopback, registered through the REST API as any upstream would have it. Polls are a
 * minute apart, so only a delivery can bring an event within a test's time.
 */
let platform: TestPlatform;
let gateway: Gateway;
let server: Server;
let url: string;
let registration: Registration;

beforeAll(async () => {
  // Failed deliveries are retried 50 ms, then 100 ms later: a delivery that cannot arrive fails within a test's time.
  platform = await startTestPlatform({ deliveryRetryBaseMs: 50 });
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    subscriptions: { pollMs: 60_000 },
    responseCache: { ttlMs: 60_000 },
  });
  server = createServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  registration = await registerForEvents({
    client: gateway.client,
    token: platform.adminToken,
    receiverUrl: `${url}${PLATFORM_EVENTS_PATH}`,
  });
  gateway.receiveEvents(registration);
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gateway.close();
  await platform.destroy();
});

async function send(query: string, variables: Record<string, unknown> = {}) {
  const answer = await postGraphQL(gateway, platform, { query, variables });
  expect(answer.body.errors).toBeUndefined();
  return answer.body;
}

/** A fresh space of acme that anyone may merge into, with a change request adding a page, both made through the gateway. */
async function spaceWithChange(title: string) {
  const { data } = await send(
    `mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { platformId } } }`,
    { title },
  );
  const spaceId = data.createSpace.space.platformId as string;
  await send(
    `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, mergeRules: { type: NONE } }) { space { id } } }`,
    {
      id: spaceId,
    },
  );
  const created = await send(
    `mutation ($id: ID!) { createChangeRequest(input: { spaceId: $id, subject: "Add a page" }) { changeRequest { id platformId } } }`,
    { id: spaceId },
  );
  const changeRequest = created.data.createChangeRequest.changeRequest;
  await send(
    `mutation ($id: ID!) { editChangeRequestContent(input: { changeRequestId: $id, changes: [{ insertPage: { markdown: "# Pushed\\n\\nHello." } }] }) { edits { pageId } } }`,
    { id: changeRequest.id },
  );
  return { spaceId, changeRequestId: changeRequest.platformId as string };
}

/** Merges on the platform itself, outside the gateway: what another client of the API does. */
async function mergeOnThePlatform(spaceId: string, changeRequestId: string): Promise<string> {
  const merged = await platform.api('POST', `/spaces/${spaceId}/change-requests/${changeRequestId}/merge`);
  expect(merged.status).toBe(200);
  return merged.body.revision as string;
}

/** The platform's answers to GETs of `path` since its stats were reset. */
const answersTo = (path: string) =>
  platform.app.stats.answers.filter((answer) => answer.method === 'GET' && answer.url.split('?')[0] === `/v1${path}`);

/** A delivery as the platform sends one, signed with `secret` at `at` (ms). */
function delivery(
  installation: string,
  secret: string,
  event: Record<string, unknown>,
  { eventId = `evt-${Math.random()}`, at = Date.now() }: { eventId?: string; at?: number } = {},
) {
  const boundary = '----test-boundary';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="event"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(event)}\r\n--${boundary}--\r\n`,
  );
  const t = Math.floor(at / 1000);
  const mac = createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
  return {
    body,
    headers: {
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'x-gitbook-signature': `t=${t},v1=${mac}`,
      'x-gitbook-event-id': eventId,
      'x-gitbook-event-type': String(event.type),
      'x-gitbook-installation-id': installation,
    } as Record<string, string>,
  };
}

const deliver = (sent: { body: Buffer; headers: Record<string, string> }) =>
  fetch(`${url}${PLATFORM_EVENTS_PATH}`, { method: 'POST', body: new Uint8Array(sent.body), headers: sent.headers });

/** The installation of acme, and its secret. */
function acmeInstallation(): [string, string] {
  const index = registration.organizations.indexOf('acme');
  return [...registration.secrets][index]!;
}

const CONTENT = `subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }`;

describe('registration', () => {
  it('installs the gateway on every organization the token administers, each with its signing secret', async () => {
    const { body } = await platform.api('GET', '/orgs');
    const organizations = (body.items as Array<{ id: string }>).map((organization) => organization.id);
    expect(registration.organizations).toEqual(organizations);
    expect(registration.skipped).toEqual([]);
    expect(registration.secrets.size).toBe(organizations.length);
    for (const secret of registration.secrets.values()) expect(secret).toMatch(/^[0-9a-f]{64}$/);
    // Every space, those made later too.
    const [installation] = acmeInstallation();
    const read = await platform.api('GET', `/integrations/graphql-gateway/installations/${installation}`);
    expect(read.body.space_selection).toBe('all');
  });

  it('sends the events of its own installing nowhere: no delivery refused for want of a secret', async () => {
    const { body } = await platform.api('GET', '/integrations/graphql-gateway/events', { query: { limit: 100 } });
    const installing = (body.items as Array<{ id: string; payload: { type: string } }>).filter(
      (event) => event.payload.type === 'installation_setup',
    );
    expect(installing.length).toBeGreaterThanOrEqual(registration.organizations.length);
    for (const event of installing) {
      const { body: read } = await platform.api('GET', `/integrations/graphql-gateway/events/${event.id}`);
      const lines = (read.trace.logs as Array<{ message: string }>).map((log) => log.message).join('\n');
      expect(lines).not.toMatch(/answered 401/);
    }
  });

  it('keeps the installations it made when it registers again, changing nothing the platform would tell of', async () => {
    const installing = async () =>
      (await platform.api('GET', '/integrations/graphql-gateway/events', { query: { limit: 100 } })).body.items.filter(
        (event: { payload: { type: string } }) => event.payload.type === 'installation_setup',
      ).length;
    const before = await installing();
    const again = await registerForEvents(
      { client: gateway.client, token: platform.adminToken, receiverUrl: `${url}${PLATFORM_EVENTS_PATH}` },
      { publish: false },
    );
    expect(again.secrets).toEqual(registration.secrets);
    // No update of an installation already covering every space: no event to deliver.
    expect(await installing()).toBe(before);
  });

  it('fails, saying why, for a token that administers no organization', async () => {
    const refused = await registerForEvents({
      client: gateway.client,
      token: platform.token('finn@acme.test'),
      receiverUrl: `${url}${PLATFORM_EVENTS_PATH}`,
    }).catch((error: Error) => error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toContain('needs an admin');
  });

  it('installs on the organizations the token administers and names those it does not', async () => {
    const initech = addOrg(platform, { id: 'initech', members: { zed: 'admin' } });
    addOrg(platform, { id: 'umbrella', members: { uma: 'admin', zed: 'read' }, users: { zed: initech.user('zed') } });
    const partial = await registerForEvents({
      client: gateway.client,
      token: initech.token('zed'),
      receiverUrl: `${url}${PLATFORM_EVENTS_PATH}`,
      integration: 'initech-events',
    });
    expect(partial.organizations).toEqual(['initech']);
    expect(partial.skipped.map(({ organization }) => organization)).toEqual(['umbrella']);
    expect(partial.secrets.size).toBe(1);
  });

  it('registers from several replicas at once: one installation per organization, the same secrets for all', async () => {
    const registrations = await Promise.all(
      Array.from({ length: 3 }, () =>
        registerForEvents({
          client: gateway.client,
          token: platform.adminToken,
          receiverUrl: `${url}${PLATFORM_EVENTS_PATH}`,
          integration: 'raced-events',
        }),
      ),
    );
    const [first] = registrations;
    expect(first!.secrets.size).toBe(registration.organizations.length);
    for (const other of registrations) expect(other.secrets).toEqual(first!.secrets);
    const { body } = await platform.api('GET', '/integrations/raced-events/installations');
    expect(body.count).toBe(registration.organizations.length);
  });
});

describe('events the platform delivers', () => {
  it('brings a merge made outside the gateway to a subscriber at once, with one read of the space', async () => {
    const { spaceId, changeRequestId } = await spaceWithChange('Pushed');
    const sub = await subscribe(url, CONTENT, { token: platform.adminToken, variables: { id: spaceId } });
    await sub.next();
    platform.app.stats.reset();
    const revision = await mergeOnThePlatform(spaceId, changeRequestId);
    const second = await sub.next();
    expect(second.data.spaceContentUpdated.platformId).toBe(revision);
    // The delivery's wake read the space once; no poll came (a minute apart).
    expect(answersTo(`/spaces/${spaceId}`).map((answer) => answer.status)).toEqual([200]);
    sub.close();
  });

  it('forgets the cached answers holding the space whose content changed outside the gateway', async () => {
    const { spaceId, changeRequestId } = await spaceWithChange('Cached');
    const query = `query ($id: ID!) { space(id: $id) { platformId revisionId } }`;
    const first = await send(query, { id: spaceId });
    expect((await send(query, { id: spaceId })).extensions.responseCache.hit).toBe(true);
    const revision = await mergeOnThePlatform(spaceId, changeRequestId);
    // Delivered once the receiver answered, which it does after the entries are gone.
    await until(async () => {
      const events = await platform.api('GET', '/integrations/graphql-gateway/events');
      return (events.body.items as Array<{ status: string; payload: { type: string; revisionId?: string } }>).some(
        (event) => event.payload.revisionId === revision && event.status === 'success',
      );
    });
    const after = await send(query, { id: spaceId });
    expect(after.extensions.responseCache.hit).toBe(false);
    expect(after.data.space.revisionId).toBe(revision);
    expect(after.data.space.revisionId).not.toBe(first.data.space.revisionId);
  });

  it('counts each delivery by type and outcome', async () => {
    const [installation, secret] = acmeInstallation();
    const gitSync = { type: 'space_gitsync_completed', spaceId: 'space-counted', state: 'success' };
    expect((await deliver(delivery(installation, secret, gitSync))).status).toBe(200);
    expect((await deliver(delivery(installation, 'f'.repeat(64), gitSync))).status).toBe(401);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain(`\ngraphql_gateway_platform_events_organizations ${registration.organizations.length}\n`);
    expect(metrics).toMatch(
      /graphql_gateway_platform_events_total\{type="space_gitsync_completed",outcome="accepted"\} [1-9]/,
    );
    expect(metrics).toMatch(
      /graphql_gateway_platform_events_total\{type="space_gitsync_completed",outcome="bad_signature"\} [1-9]/,
    );
  });
});

describe('polls under the events', () => {
  it('polls a space of an organization whose events it takes only as a safety net, others every interval', async () => {
    // Polls 100 ms apart, a minute for what the events cover: acme's, not globex's.
    const polling = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 100, pushedPollMs: 60_000 },
    });
    polling.receiveEvents({ secrets: new Map(), organizations: ['acme'] });
    const http = createServer(polling.handle);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      const created = await send(
        `mutation { createSpace(input: { organizationId: "globex", title: "Polled" }) { space { platformId } } }`,
      );
      const polled = created.data.createSpace.space.platformId as string;
      const { spaceId: pushed } = await spaceWithChange('Covered');
      const subs = await Promise.all(
        [pushed, polled].map((id) => subscribe(at, CONTENT, { token: platform.adminToken, variables: { id } })),
      );
      await Promise.all(subs.map((sub) => sub.next()));
      platform.app.stats.reset();
      await until(() => answersTo(`/spaces/${polled}`).length >= 5);
      // Five polls of globex's space came meanwhile; acme's waits a minute (or a delivery).
      expect(answersTo(`/spaces/${pushed}`)).toHaveLength(0);
      for (const sub of subs) sub.close();
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
      await polling.close();
    }
  });
});

describe('deliveries that fail', () => {
  it('polls again while the platform cannot deliver, and takes the events again once it can', async () => {
    // A receiver nobody listens on yet: every delivery fails, after its three attempts.
    const port = await freePort();
    const receiverUrl = `http://127.0.0.1:${port}${PLATFORM_EVENTS_PATH}`;
    const pushed: string[][] = [];
    const lines: string[] = [];
    const registrar = new EventRegistrar(
      { client: gateway.client, receiveEvents: ({ organizations }) => void pushed.push(organizations) },
      {
        token: platform.adminToken,
        receiverUrl,
        integration: 'unreached-events',
        pollMs: 100,
        logger: { info: (line) => void lines.push(line), error: (line) => void lines.push(line) },
        // Looked at by the test alone.
        refreshMs: 3_600_000,
        checkMs: 3_600_000,
      },
    );
    try {
      await registrar.register();
      expect(pushed).toEqual([registration.organizations]);
      await registrar.check();
      const first = await spaceWithChange('Unreached');
      await mergeOnThePlatform(first.spaceId, first.changeRequestId);
      await until(async () => {
        await registrar.check();
        return !registrar.delivering;
      });
      expect(pushed.at(-1)).toEqual([]);
      expect(lines.at(-1)).toBe(
        `Platform events: the platform's deliveries to ${receiverUrl} fail: subscriptions poll every 100 ms until one arrives`,
      );
      // A receiver there now: the next event arrives, and the organizations are pushed again.
      const receiver = createServer((_request, response) => response.end('{"received":true}'));
      await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
      try {
        const second = await spaceWithChange('Reached');
        await mergeOnThePlatform(second.spaceId, second.changeRequestId);
        await until(async () => {
          await registrar.check();
          return registrar.delivering;
        });
        expect(pushed.at(-1)).toEqual(registration.organizations);
        expect(lines.at(-1)).toBe(`Platform events: delivered to ${receiverUrl} again`);
      } finally {
        receiver.close();
      }
    } finally {
      registrar.stop();
    }
  });
});

describe('deliveries refused', () => {
  const event = { type: 'space_content_updated', spaceId: 'any', revisionId: 'r' };

  it('answers 503 until a registration gave it secrets, reading nothing', async () => {
    const unregistered = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
    try {
      const [installation, secret] = acmeInstallation();
      const sent = delivery(installation, secret, event);
      const answer = await unregistered.fetch(`http://gateway.test${PLATFORM_EVENTS_PATH}`, {
        method: 'POST',
        headers: sent.headers,
        body: new Uint8Array(sent.body),
      });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('5');
      expect((await answer.json()).errors[0].extensions).toEqual({
        code: 'PRECONDITION_FAILED',
        reason: 'EVENTS_NOT_READY',
      });
    } finally {
      await unregistered.close();
    }
  });

  it('refuses a delivery without a signature, of an unknown installation, or signed with another secret', async () => {
    const [installation, secret] = acmeInstallation();
    const signed = delivery(installation, secret, event);
    const { 'x-gitbook-signature': _, ...unsigned } = signed.headers;
    const cases = [
      { headers: unsigned, reason: 'SIGNATURE_MISSING' },
      { headers: { ...signed.headers, 'x-gitbook-installation-id': 'someone-else' }, reason: 'UNKNOWN_INSTALLATION' },
      { headers: delivery(installation, 'f'.repeat(64), event).headers, reason: 'SIGNATURE_INVALID' },
    ];
    for (const { headers, reason } of cases) {
      const answer = await deliver({ body: signed.body, headers });
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason } }] });
    }
  });

  it('refuses a body changed after it was signed', async () => {
    const [installation, secret] = acmeInstallation();
    const signed = delivery(installation, secret, event);
    const changed = Buffer.from(String(signed.body).replace('"any"', '"all"'));
    const answer = await deliver({ body: changed, headers: signed.headers });
    expect(answer.status).toBe(401);
    expect((await answer.json()).errors[0].extensions.reason).toBe('SIGNATURE_INVALID');
  });

  it('refuses a signature older than the tolerance, or from the future', async () => {
    const [installation, secret] = acmeInstallation();
    for (const at of [Date.now() - 301_000, Date.now() + 301_000]) {
      const answer = await deliver(delivery(installation, secret, event, { at }));
      expect(answer.status).toBe(401);
      expect((await answer.json()).errors[0].extensions.reason).toBe('SIGNATURE_EXPIRED');
    }
  });

  it('refuses the same delivery again, whatever other signatures or event id it is sent with', async () => {
    const [installation, secret] = acmeInstallation();
    const first = delivery(installation, secret, event, { eventId: 'evt-replayed' });
    expect((await deliver(first)).status).toBe(200);
    const signature = first.headers['x-gitbook-signature']!;
    const [t, v1] = signature.split(',');
    for (const headers of [
      first.headers,
      { ...first.headers, 'x-gitbook-event-id': 'evt-other' },
      { ...first.headers, 'x-gitbook-signature': `${t},v1=${'0'.repeat(64)},${v1}` },
      { ...first.headers, 'x-gitbook-signature': `${t},${v1!.toUpperCase().replace('V1', 'v1')}` },
    ]) {
      const again = await deliver({ body: first.body, headers });
      expect(again.status).toBe(409);
      expect((await again.json()).errors[0].extensions).toEqual({ code: 'CONFLICT', reason: 'EVENT_REPLAYED' });
    }
  });

  it("answers the platform's repeat of an event it took (a new signature, the same event id) 200, acting once", async () => {
    const [installation, secret] = acmeInstallation();
    const woken = vi.spyOn(gateway.live, 'wake');
    try {
      const spaceEvent = { ...event, spaceId: 'space-repeated' };
      expect((await deliver(delivery(installation, secret, spaceEvent, { eventId: 'evt-repeated' }))).status).toBe(200);
      const repeat = await deliver(
        delivery(installation, secret, spaceEvent, { eventId: 'evt-repeated', at: Date.now() + 1000 }),
      );
      expect(repeat.status).toBe(200);
      expect(await repeat.json()).toEqual({ received: true });
      expect(woken.mock.calls).toEqual([[['space-repeated']]]);
    } finally {
      woken.mockRestore();
    }
  });

  it('refuses a signed body that is not a form with an event, and answers GET with 405', async () => {
    const [installation, secret] = acmeInstallation();
    const signed = delivery(installation, secret, event);
    const t = Math.floor(Date.now() / 1000);
    const json = Buffer.from(JSON.stringify(event));
    const mac = createHmac('sha256', secret).update(`${t}.`).update(json).digest('hex');
    const answer = await deliver({
      body: json,
      headers: { ...signed.headers, 'content-type': 'application/json', 'x-gitbook-signature': `t=${t},v1=${mac}` },
    });
    expect(answer.status).toBe(400);
    expect((await answer.json()).errors[0].extensions.reason).toBe('EVENT_MALFORMED');
    const get = await fetch(`${url}${PLATFORM_EVENTS_PATH}`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('acts on nothing it refused', async () => {
    const [installation, secret] = acmeInstallation();
    const woken = vi.spyOn(gateway.live, 'wake');
    try {
      const spaceEvent = { ...event, spaceId: 'space-forged' };
      const forged = delivery(installation, 'f'.repeat(64), spaceEvent);
      expect((await deliver(forged)).status).toBe(401);
      const old = delivery(installation, secret, spaceEvent, { at: Date.now() - 400_000 });
      expect((await deliver(old)).status).toBe(401);
      expect(woken).not.toHaveBeenCalled();
      expect((await deliver(delivery(installation, secret, spaceEvent))).status).toBe(200);
      expect(woken.mock.calls).toEqual([[['space-forged']]]);
    } finally {
      woken.mockRestore();
    }
  });
});
