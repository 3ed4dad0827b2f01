import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { askInParts, type Payload, payloadsOf } from '../fixtures/incremental.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { subscribe } from '../fixtures/subscriptions.js';

let platform: TestPlatform;
let gateway: Gateway;
let spaceId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    limits: { maxRequestBytes: 4096 },
    corsOrigins: ['https://docs.example.test'],
  });
  const answer = await platform.api('GET', '/orgs/acme/spaces?limit=1');
  spaceId = (answer.body as { items: Array<{ id: string }> }).items[0]!.id;
});

afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

const SPACE = 'query ($id: ID!) { space(id: $id) { platformId title visibility organization { title } } }';

/** Every hook of yoga's and envelop's plugin interfaces that a query request goes through. */
const HOOKS = [
  'onRequest',
  'onRequestParse',
  'onParams',
  'onParse',
  'onValidate',
  'onContextBuilding',
  'onExecute',
  'onResultProcess',
  'onResponse',
] as const;
type Hook = (typeof HOOKS)[number];

/**
 * A plugin that notes each hook it sees, by the request's `x-probe` header: what any plugin added
 * to the gateway would see.
 */
function probePlugin(seen: Map<string, Hook[]>): Plugin {
  const note = (hook: Hook, request: Request | undefined) => {
    const probe = request?.headers.get('x-probe');
    if (probe) seen.set(probe, [...(seen.get(probe) ?? []), hook]);
  };
  const requestOf = (context: unknown) => (context as { request?: Request }).request;
  return {
    onRequest: ({ request }) => note('onRequest', request),
    onRequestParse: ({ request }) => note('onRequestParse', request),
    onParams: ({ request }) => note('onParams', request),
    onParse: ({ context }) => note('onParse', requestOf(context)),
    onValidate: ({ context }) => note('onValidate', requestOf(context)),
    onContextBuilding: ({ context }) => note('onContextBuilding', requestOf(context)),
    onExecute: ({ args }) => note('onExecute', requestOf(args.contextValue)),
    onResultProcess: ({ request }) => note('onResultProcess', request),
    onResponse: ({ request }) => note('onResponse', request),
  };
}

describe('one plugin chain for every request', () => {
  const seen = new Map<string, Hook[]>();
  let probed: Gateway;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    probed = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, plugins: [probePlugin(seen)] });
    server = createServer(probed.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await probed.close();
  });

  const json = { 'content-type': 'application/json' };
  const read = () => JSON.stringify({ query: SPACE, variables: { id: spaceId } });

  /** Sends one request marked `probe`, by a socket to the listener or through `fetch`; answers its status. */
  async function send(
    probe: string,
    how: 'fetch' | 'socket',
    init: { method: 'GET' | 'POST'; path?: string; headers?: Record<string, string>; body?: string },
  ): Promise<number> {
    const headers = { authorization: `Bearer ${platform.adminToken}`, ...init.headers, 'x-probe': probe };
    const path = init.path ?? '/graphql';
    if (how === 'fetch') {
      const response = await probed.fetch(`http://gateway.test${path}`, { ...init, headers });
      await response.text();
      return response.status;
    }
    const response = await request(`${url}${path}`, { method: init.method, headers, body: init.body });
    await response.body.dump();
    return response.statusCode;
  }

  it('runs every hook of every plugin once per request: JSON POSTs and GETs, by socket or fetch', async () => {
    const getPath = `/graphql?query=${encodeURIComponent(SPACE)}&variables=${encodeURIComponent(JSON.stringify({ id: spaceId }))}`;
    const csrf = { 'x-graphql-csrf': '1' };
    const kinds: Record<string, () => Promise<number>> = {
      'post-socket': () => send('post-socket', 'socket', { method: 'POST', headers: json, body: read() }),
      'post-fetch': () => send('post-fetch', 'fetch', { method: 'POST', headers: json, body: read() }),
      'post-graphql-response': () =>
        send('post-graphql-response', 'socket', {
          method: 'POST',
          headers: { ...json, accept: 'application/graphql-response+json' },
          body: read(),
        }),
      'get-socket': () => send('get-socket', 'socket', { method: 'GET', path: getPath, headers: csrf }),
      'get-fetch': () => send('get-fetch', 'fetch', { method: 'GET', path: getPath, headers: csrf }),
    };
    for (const [probe, run] of Object.entries(kinds)) {
      expect({ probe, status: await run() }).toEqual({ probe, status: 200 });
      expect({ probe, hooks: seen.get(probe) }).toEqual({ probe, hooks: [...HOOKS] });
    }
  });

  it('runs the hooks up to the step that fails, for a document that does not parse', async () => {
    const status = await send('syntax', 'socket', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ query: '{ space(' }),
    });
    expect(status).toBe(200);
    expect(seen.get('syntax')).toEqual([
      'onRequest',
      'onRequestParse',
      'onParams',
      'onParse',
      'onResultProcess',
      'onResponse',
    ]);
  });
});

describe('answers', () => {
  it('serves reads with data, the cost and the CORS headers', async () => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${platform.adminToken}`,
        origin: 'https://docs.example.test',
      },
      body: JSON.stringify({ query: SPACE, variables: { id: spaceId } }),
    });
    const body = (await response.json()) as {
      data: { space: { platformId: string } };
      extensions: { cost: { upstreamRequests: number } };
    };
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://docs.example.test');
    expect(body.data.space.platformId).toBe(spaceId);
    expect(body.extensions.cost.upstreamRequests).toBe(2);
  });
});

describe('answers in the order of the selection', () => {
  const ask = async (query: string) => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
      body: JSON.stringify({ query, variables: { id: spaceId } }),
    });
    return ((await response.json()) as { data: Record<string, any> }).data;
  };

  it('writes the keys of every object as they were selected, fields that waited on the platform included', async () => {
    const data = await ask(
      'query ($id: ID!) { space(id: $id) { title organization { title } __typename platformId } __typename viewer { displayName } a: __typename }',
    );
    expect(Object.keys(data)).toEqual(['space', '__typename', 'viewer', 'a']);
    expect(Object.keys(data.space)).toEqual(['title', 'organization', '__typename', 'platformId']);
  });

  it('writes the parts of an answer (@defer) and the events of a subscription in the order of their selection', async () => {
    const response = await askInParts(gateway, platform.adminToken, {
      query:
        'query ($id: ID!) { __typename space(id: $id) { organization { title } __typename platformId } ... @defer { viewer { displayName } a: __typename } }',
      variables: { id: spaceId },
    });
    const payloads: Payload[] = [];
    for await (const payload of payloadsOf(response)) payloads.push(payload);
    expect(Object.keys(payloads[0]!.data)).toEqual(['__typename', 'space']);
    expect(Object.keys(payloads[0]!.data.space)).toEqual(['organization', '__typename', 'platformId']);
    const deferred = payloads.flatMap((payload) => payload.incremental ?? []);
    expect(Object.keys(deferred[0]!.data)).toEqual(['viewer', 'a']);

    const server = createServer(gateway.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const events = await subscribe(
      `http://127.0.0.1:${port}`,
      'subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { __typename space { title } platformId } }',
      { token: platform.adminToken, variables: { id: spaceId } },
    );
    try {
      const first = await events.next();
      expect(Object.keys(first.data.spaceContentUpdated)).toEqual(['__typename', 'space', 'platformId']);
    } finally {
      events.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('operations refused before they run', () => {
  const ask = async (body: unknown) => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${platform.adminToken}`,
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('answers 400 without data, as GraphQL over HTTP asks: a variable that does not fit, an unknown operation', async () => {
    const missing = await ask({ query: 'query ($id: ID!) { space(id: $id) { title } }', variables: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.data).toBeUndefined();
    expect(missing.body.errors[0]).toMatchObject({
      message: expect.stringMatching(/\$id/),
      extensions: { code: 'BAD_USER_INPUT' },
    });
    const unknown = await ask({ query: 'query A { __typename } query B { __typename }', operationName: 'C' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'OPERATION_RESOLUTION_FAILURE',
    });
  });
});

describe('the gateway over HTTP (the listener `npm start` serves)', () => {
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer(gateway.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function post(body: string | Readable, headers: Record<string, string> = {}) {
    const response = await request(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}`, ...headers },
      body,
    });
    const text = await response.body.text();
    return {
      status: response.statusCode,
      headers: response.headers,
      text,
      json: text ? (JSON.parse(text) as any) : undefined,
    };
  }

  it('answers a read with a correct length', async () => {
    const answer = await post(JSON.stringify({ query: SPACE, variables: { id: spaceId } }));
    expect(answer.status).toBe(200);
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
    expect(answer.json.data.space.platformId).toBe(spaceId);
  });

  it('keeps non-ASCII text intact both ways', async () => {
    const title = 'Überblick — 概要 ✓';
    const created = await post(
      JSON.stringify({
        query:
          'mutation ($title: String!) { createSpace(input: { organizationId: "acme", title: $title }) { space { title } } }',
        variables: { title },
      }),
    );
    expect(created.json.errors).toBeUndefined();
    expect(created.json.data.createSpace.space.title).toBe(title);
    expect(Number(created.headers['content-length'])).toBe(Buffer.byteLength(created.text));
  });

  it('answers a body without a declared length', async () => {
    const answer = await post(Readable.from([JSON.stringify({ query: SPACE, variables: { id: spaceId } })]));
    expect(answer.status).toBe(200);
    expect(answer.json.data.space.platformId).toBe(spaceId);
  });

  it('refuses a body without a declared length once it passes the limit, with 413 and a coded error', async () => {
    const padding = 'x'.repeat(1000);
    const chunks = [`{"query":"{ viewer { id } }","variables":{"pad":"`, ...Array(6).fill(padding), '"}}'];
    const answer = await post(Readable.from(chunks));
    expect(answer.status).toBe(413);
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses a declared body over the limit with 413 and a coded error, without reading it', async () => {
    const answer = await post(JSON.stringify({ query: `{ viewer { id } }`, variables: { pad: 'x'.repeat(5000) } }));
    expect(answer.status).toBe(413);
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a body that is not JSON, and a POST without a body, with 400 whatever the Accept header', async () => {
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      for (const body of ['{"query": ', '']) {
        const answer = await post(body, { accept });
        expect({ accept, body, status: answer.status }).toEqual({ accept, body, status: 400 });
        expect(answer.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' });
      }
    }
    // A document that does not parse is a GraphQL error: 200 for a client that accepts only application/json.
    const legacy = await post(JSON.stringify({ query: '{ space(' }), { accept: 'application/json' });
    expect(legacy.status).toBe(200);
  });

  it('answers a syntax error with 400', async () => {
    const answer = await post(JSON.stringify({ query: '{ space(' }), { accept: 'application/graphql-response+json' });
    expect(answer.status).toBe(400);
    expect(answer.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers preflights, health and GET queries', async () => {
    const preflight = await request(`${url}/graphql`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://docs.example.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    await preflight.body.dump();
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://docs.example.test');
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization, content-type');

    const health = await request(`${url}/health`);
    expect(await health.body.json()).toEqual({ status: 'ok' });

    const get = await request(`${url}/graphql?query=${encodeURIComponent('{ viewer { email } }')}`, {
      headers: { authorization: `Bearer ${platform.adminToken}`, accept: 'application/json', 'x-graphql-csrf': '1' },
    });
    const body = (await get.body.json()) as { data: { viewer: { email: string } } };
    expect(body.data.viewer.email).toMatch(/@/);
  });
});
