import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { acceptedMediaType } from '../../src/gateway/http/front.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let platform: TestPlatform;
let gateway: Gateway;
let spaceId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    limits: { maxRequestBytes: 4096 },
  });
  const answer = await platform.api('GET', '/orgs/acme/spaces?limit=1');
  spaceId = (answer.body as { items: Array<{ id: string }> }).items[0]!.id;
});

afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

interface Case {
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  /** The lane answers it (false: it hands the request to yoga). */
  lane: boolean;
}

const SPACE = 'query ($id: ID!) { space(id: $id) { platformId title visibility organization { title } } }';

function cases(): Case[] {
  const auth = { authorization: `Bearer ${platform.adminToken}` };
  const read = { query: SPACE, variables: { id: spaceId } };
  return [
    { name: 'a read', body: read, headers: auth, lane: true },
    {
      name: 'a read with an operation name and empty extensions',
      body: { ...read, query: `query Space${SPACE.slice(5)}`, operationName: 'Space', extensions: {} },
      headers: auth,
      lane: true,
    },
    {
      name: 'Accept: application/graphql-response+json',
      body: read,
      headers: { ...auth, accept: 'application/graphql-response+json' },
      lane: true,
    },
    { name: 'Accept: */*', body: read, headers: { ...auth, accept: '*/*' }, lane: true },
    {
      name: 'Accept listing both',
      body: read,
      headers: { ...auth, accept: 'application/graphql-response+json, application/json;q=0.9' },
      lane: true,
    },
    {
      name: 'Accept with charset',
      body: read,
      headers: { ...auth, accept: 'application/json; charset=utf-8' },
      lane: true,
    },
    { name: 'a cross-origin read', body: read, headers: { ...auth, origin: 'https://docs.example.test' }, lane: true },
    { name: 'a field error', body: { query: SPACE, variables: { id: 'no-such-space' } }, headers: auth, lane: true },
    {
      name: 'a field error asked as graphql-response+json',
      body: { query: SPACE, variables: { id: 'no-such-space' } },
      headers: { ...auth, accept: 'application/graphql-response+json' },
      lane: true,
    },
    { name: 'no credentials', body: read, lane: true },
    { name: 'variables that do not coerce', body: { query: SPACE, variables: { id: 12 } }, headers: auth, lane: true },
    {
      name: 'a missing variable, as graphql-response+json',
      body: { query: SPACE },
      headers: { ...auth, accept: 'application/graphql-response+json' },
      lane: true,
    },
    { name: 'an unknown operation name', body: { ...read, operationName: 'Nope' }, headers: auth, lane: false },
    {
      name: 'an operation over the cost limits',
      body: { query: '{ organizations(first: 1000) { nodes { spaces(first: 1000) { nodes { title } } } } }' },
      headers: auth,
      lane: true,
    },
    { name: 'an explained read', body: read, headers: { ...auth, 'x-explain': '1' }, lane: true },
    { name: 'a syntax error', body: { query: '{ space(id: ' }, headers: auth, lane: false },
    { name: 'a validation error', body: { query: '{ nothingHere }' }, headers: auth, lane: false },
    { name: 'an unknown parameter', body: { ...read, persisted: true }, headers: auth, lane: false },
    { name: 'a query that is not a string', body: { query: 42 }, headers: auth, lane: false },
    { name: 'variables that are a list', body: { query: SPACE, variables: [spaceId] }, headers: auth, lane: false },
    { name: 'a batch', body: [read], headers: auth, lane: false },
    { name: 'a body that is not JSON', body: '{"query": ', headers: auth, lane: false },
    { name: 'Accept: text/event-stream', body: read, headers: { ...auth, accept: 'text/event-stream' }, lane: false },
    { name: 'Accept: text/html', body: read, headers: { ...auth, accept: 'text/html' }, lane: false },
    {
      name: 'a charset the gateway does not answer in',
      body: read,
      headers: { ...auth, accept: 'application/json; charset=latin1' },
      lane: false,
    },
  ];
}

/** Status, headers and body of an answer, with the times (which differ from run to run) set to 0. */
async function comparable(response: Response) {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name.toLowerCase() !== 'content-length' && name.toLowerCase() !== 'date') headers[name.toLowerCase()] = value;
  });
  const text = await response.text();
  const isJson = /json/.test(response.headers.get('content-type') ?? '');
  const body = isJson
    ? (JSON.parse(text, (key, value: unknown) =>
        key.endsWith('Ms') && typeof value === 'number' ? 0 : value,
      ) as unknown)
    : text.replace(/"(\w+Ms)":[\d.]+/g, '"$1":0');
  return { status: response.status, headers, body };
}

function init(each: Case): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...each.headers },
    body: typeof each.body === 'string' ? each.body : JSON.stringify(each.body),
  };
}

describe('the direct lane', () => {
  it('answers exactly as yoga does, and hands yoga what it cannot answer', async () => {
    for (const each of cases()) {
      const before = { ...gateway.served };
      const viaFront = await comparable(await gateway.fetch('http://gateway.test/graphql', init(each)));
      const served = { lane: gateway.served.lane - before.lane, yoga: gateway.served.yoga - before.yoga };
      const viaYoga = await comparable(await gateway.yoga.fetch('http://gateway.test/graphql', init(each)));
      expect({ case: each.name, ...viaFront }).toEqual({ case: each.name, ...viaYoga });
      expect({ case: each.name, served }).toEqual({
        case: each.name,
        served: each.lane ? { lane: 1, yoga: 0 } : { lane: 0, yoga: 1 },
      });
    }
  });

  it('serves the reads it answers with data, the cost and the CORS headers', async () => {
    const response = await gateway.fetch('http://gateway.test/graphql', init(cases()[6]!));
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

  it('chooses the media type of the answer as yoga does', () => {
    expect(acceptedMediaType(undefined)).toBe('application/json');
    expect(acceptedMediaType('*/*')).toBe('application/json');
    expect(acceptedMediaType('application/*')).toBe('application/json');
    expect(acceptedMediaType('application/graphql-response+json')).toBe('application/graphql-response+json');
    expect(acceptedMediaType('application/graphql-response+json, */*')).toBe('application/graphql-response+json');
    expect(acceptedMediaType('application/json, application/graphql-response+json')).toBe('application/json');
    expect(acceptedMediaType('text/html, application/json')).toBe('application/json');
    expect(acceptedMediaType('text/html')).toBeUndefined();
    expect(acceptedMediaType('multipart/mixed, application/json')).toBeUndefined();
    expect(acceptedMediaType('application/json;charset=iso-8859-1')).toBeUndefined();
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

  it('answers a read in the lane with a correct length', async () => {
    const before = gateway.served.lane;
    const answer = await post(JSON.stringify({ query: SPACE, variables: { id: spaceId } }));
    expect(answer.status).toBe(200);
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.text));
    expect(answer.json.data.space.platformId).toBe(spaceId);
    expect(gateway.served.lane).toBe(before + 1);
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

  it('hands a body without a declared length to yoga, which answers it', async () => {
    const before = gateway.served.yoga;
    const answer = await post(Readable.from([JSON.stringify({ query: SPACE, variables: { id: spaceId } })]));
    expect(answer.status).toBe(200);
    expect(answer.json.data.space.platformId).toBe(spaceId);
    expect(gateway.served.yoga).toBe(before + 1);
  });

  it('refuses a declared body over the limit with 413 and a coded error, without reading it', async () => {
    const answer = await post(JSON.stringify({ query: `{ viewer { id } }`, variables: { pad: 'x'.repeat(5000) } }));
    expect(answer.status).toBe(413);
    expect(answer.json.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PAYLOAD_TOO_LARGE' });
  });

  it('answers a syntax error with 400 through yoga', async () => {
    const answer = await post(JSON.stringify({ query: '{ space(' }), { accept: 'application/graphql-response+json' });
    expect(answer.status).toBe(400);
    expect(answer.json.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });

  it('answers preflights, health and GET queries through yoga', async () => {
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
      headers: { authorization: `Bearer ${platform.adminToken}`, accept: 'application/json' },
    });
    const body = (await get.body.json()) as { data: { viewer: { email: string } } };
    expect(body.data.viewer.email).toMatch(/@/);
  });
});
