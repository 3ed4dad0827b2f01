import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { compressToEncodedURIComponent } from '../../src/gateway/upstream/lz-string.js';
import { decompressFromEncodedURIComponent } from '../../src/platform/integrations/lz-string.js';
import { postGraphQL, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { installIntegration, publishIntegration } from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * An integration's UI rendered through the graph: `renderIntegrationUI` (GET, the request LZ-String compressed) and
 * `submitIntegrationUIAction` (POST) make the platform call the integration's endpoint, a loopback server here, with
 * a signed `ui_render` event; what it answers is checked (status, bytes, JSON, shape) and its failures are coded.
 */

const NAME = 'widgets';
const TIMEOUT_MS = 1000;
let g: TestGateway;
let org: TestOrg;
let outsider: string;
let receiver: Server;
let installation: string;
let secret: string;
let space: string;
/** What the endpoint answers next. */
let mode: 'element' | 'complete' | 'garbage' | 'shape' | 'status' | 'big' | 'silent' = 'element';
const received: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];

const ELEMENT = {
  type: 'element',
  element: { type: 'block', children: [{ type: 'text', children: 'Hello' }] },
  state: { count: 1 },
  props: { url: 'https://example.test' },
};

/** North (ada admin, finn read) installed WIDGETS (on every space); South (hana admin) did not. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false, deliveryTimeoutMs: TIMEOUT_MS });
  org = addOrg(g.platform, { id: 'north', members: { ada: 'admin', finn: 'read' } });
  outsider = addOrg(g.platform, { id: 'south', members: { hana: 'admin' } }).token('hana');
  space = await org.space('Handbook');
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks) });
      const json = (value: unknown, status = 200) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      if (mode === 'element') json(ELEMENT);
      else if (mode === 'complete') json({ type: 'complete', returnValue: { saved: true } });
      else if (mode === 'garbage') response.writeHead(200).end('<html>oops</html>');
      else if (mode === 'shape') json({ element: 'nope' });
      else if (mode === 'status') json({ error: 'down' }, 503);
      else if (mode === 'big') json({ ...ELEMENT, state: { blob: 'x'.repeat(300_000) } });
      // `silent` never answers: the platform gives up after its timeout.
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ui`;
  await publishIntegration(org, NAME, { visibility: 'public', endpoint });
  installation = await installIntegration(org, NAME);
  const base = `/integrations/${NAME}/installations/${installation}`;
  await g.platform.api('PATCH', base, { body: { space_selection: 'all' } });
  secret = (await g.platform.api('GET', `${base}/signing-secret`)).body.secret;
});

afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await g?.destroy();
});

const RENDER = `query ($name: String!, $context: JSON!, $state: JSON) {
  renderIntegrationUI(integration: $name, componentId: "counter", props: { url: "https://example.test" }, state: $state, context: $context) {
    type element state props returnValue
  } }`;
const ACTION = `mutation ($context: JSON!) {
  submitIntegrationUIAction(input: { integrationName: "${NAME}", componentId: "counter", props: {}, context: $context, action: { action: "save" } }) {
    render { type returnValue } userErrors { code field message }
  } }`;

/** The event the endpoint received last, checked for its signature. */
function lastEvent(): Record<string, any> {
  const { headers, body } = received.at(-1)!;
  expect(headers['x-gitbook-event-type']).toBe('ui_render');
  expect(headers['x-gitbook-installation-id']).toBe(installation);
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(headers['x-gitbook-signature']))!;
  expect(createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')).toBe(v1);
  const match = /name="event"\r\nContent-Type: application\/json\r\n\r\n(.*)\r\n/.exec(body.toString('utf8'));
  return JSON.parse(match![1]!);
}

describe('renderIntegrationUI', () => {
  it('renders a component on a space a member reads, with a signed ui_render event', async () => {
    mode = 'element';
    const context = { type: 'document', spaceId: space, editable: false, theme: 'light' };
    const answer = await g.gql(RENDER, { name: NAME, context, state: { count: 0 } }, { token: org.token('finn') });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.renderIntegrationUI).toEqual({
      type: 'ELEMENT',
      element: ELEMENT.element,
      state: ELEMENT.state,
      props: ELEMENT.props,
      returnValue: null,
    });
    expect(answer.upstreamRequests).toHaveLength(1);
    expect(answer.upstreamRequests[0]).toMatch(new RegExp(`^GET /v1/integrations/${NAME}/render\\?request=\\S+$`));
    expect(lastEvent()).toMatchObject({
      type: 'ui_render',
      installationId: installation,
      spaceId: space,
      auth: { userId: org.user('finn').id },
      componentId: 'counter',
      props: { url: 'https://example.test' },
      state: { count: 0 },
      context,
    });
  });

  it('is never answered from the response cache', async () => {
    mode = 'element';
    const cached = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      responseCache: { ttlMs: 60_000 },
    });
    try {
      const context = { type: 'configuration_account', organizationId: org.id, theme: 'light' };
      const calls = received.length;
      for (let i = 0; i < 2; i++) {
        const answer = await postGraphQL(cached, g.platform, { query: RENDER, variables: { name: NAME, context } });
        expect(answer.body.data.renderIntegrationUI.type).toBe('ELEMENT');
        expect(answer.upstream).toBe(1);
      }
      expect(received.length).toBe(calls + 2);
    } finally {
      await cached.close();
    }
  });

  it('sends an action as a write and answers the completed flow', async () => {
    mode = 'complete';
    const answer = await g.gql(ACTION, {
      context: { type: 'configuration_account', organizationId: org.id, theme: 'dark' },
    });
    expect(answer.data?.submitIntegrationUIAction).toEqual({
      render: { type: 'COMPLETE', returnValue: { saved: true } },
      userErrors: [],
    });
    expect(answer.upstreamRequests).toEqual([`POST /v1/integrations/${NAME}/render`]);
    expect(lastEvent()).toMatchObject({ action: { action: 'save' }, context: { organizationId: org.id } });
  });

  it('answers a coded error, never a 500, when the integration fails', async () => {
    const context = { type: 'document', spaceId: space, editable: false, theme: 'light' };
    const shown = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ui`;
    const cases = {
      garbage: `${shown} answered something other than JSON`,
      shape: `${shown} answered no rendered UI: its field "element": must be an object`,
      status: `${shown} answered 503`,
      big: `${shown} is larger than 262144 bytes`,
      silent: `${shown} did not answer within ${TIMEOUT_MS} ms`,
    } as const;
    for (const [failure, reason] of Object.entries(cases)) {
      mode = failure as typeof mode;
      const answer = await g.gql(RENDER, { name: NAME, context });
      expect(answer.data?.renderIntegrationUI, failure).toBeNull();
      expect(answer.errors?.map((e) => [e.extensions?.code, e.extensions?.upstreamStatus, e.message])).toEqual([
        ['PRECONDITION_FAILED', 424, `The integration could not render: ${reason}`],
      ]);
      // Not retried: the integration was called once.
      expect(answer.upstream, failure).toBe(1);
    }
    mode = 'garbage';
    const action = await g.gql(ACTION, {
      context: { type: 'configuration_account', organizationId: org.id, theme: 'dark' },
    });
    expect(action.data?.submitIntegrationUIAction).toMatchObject({
      render: null,
      userErrors: [{ code: 'PRECONDITION_FAILED' }],
    });
  });

  it('renders only where the caller reads and the integration is installed', async () => {
    mode = 'element';
    const calls = received.length;
    const elsewhere = await g.gql(
      RENDER,
      { name: NAME, context: { type: 'document', spaceId: space, editable: false, theme: 'light' } },
      { token: outsider },
    );
    expect(elsewhere.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    const notInstalled = await g.gql(
      RENDER,
      { name: NAME, context: { type: 'configuration_account', organizationId: 'south', theme: 'light' } },
      { token: outsider },
    );
    expect(notInstalled.errors?.map((e) => e.message)).toEqual(['Integration installation not found']);
    const noType = await g.gql(RENDER, { name: NAME, context: { spaceId: space } });
    expect(noType.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([
      ['BAD_USER_INPUT', 'context: must have a type'],
    ]);
    expect(noType.upstream).toBe(0);
    expect(received.length).toBe(calls);
  });
});

describe('the compressed request of GET …/render', () => {
  it('is LZ-String’s URI-safe encoding, read back by the platform', () => {
    expect(compressToEncodedURIComponent('hello')).toBe('BYUwNmD2Q');
    for (const text of ['a', 'hello hello hello', JSON.stringify(ELEMENT), 'héllo ✓ 𝄞'.repeat(40)])
      expect(decompressFromEncodedURIComponent(compressToEncodedURIComponent(text), 1_000_000)).toBe(text);
  });

  it('is refused when it is not of the format, or expands past its budget', async () => {
    const call = (request: string) => g.platform.api('GET', `/integrations/${NAME}/render`, { query: { request } });
    const garbled = await call('!!!');
    expect(garbled.status).toBe(400);
    expect(garbled.body.error.message).toBe(
      'Invalid query parameter "request": has a character out of the format (LZ-String, URI-safe)',
    );
    const bomb = compressToEncodedURIComponent('a'.repeat(300_000));
    expect(bomb.length).toBeLessThan(16_384);
    const expanded = await call(bomb);
    expect(expanded.status).toBe(413);
    expect(expanded.body.error).toMatchObject({ limit: 'renderRequestChars', max: 262_144 });
  });
});
