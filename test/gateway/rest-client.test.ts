import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError, redactSecrets } from '../../src/gateway/errors.js';
import { RestClient, route, queryString, type Exchange } from '../../src/gateway/rest/client.js';

const ORIGIN = 'http://upstream.test';
const item = z.object({ id: z.string(), count: z.number() });

let agent: MockAgent;
let client: RestClient;
let exchanges: Exchange[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  exchanges = [];
  client = new RestClient({
    baseUrl: `${ORIGIN}/v1`,
    dispatcher: agent,
    timeoutMs: 200,
    onExchange: (exchange) => exchanges.push(exchange),
  });
});

afterEach(async () => {
  agent.assertNoPendingInterceptors();
  await agent.close();
});

async function failure(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the request to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('RestClient', () => {
  it('forwards the authorization header, sends the sorted query and parses the body', async () => {
    agent
      .get(ORIGIN)
      .intercept({
        path: '/v1/spaces/s1?a=1&limit=5',
        method: 'GET',
        headers: { authorization: 'Bearer secret-token', accept: 'application/json' },
      })
      .reply(200, { id: 's1', count: 3, extra: 'dropped' });
    const response = await client.request({
      method: 'GET',
      path: '/spaces/s1',
      query: { limit: 5, a: 1, skipped: undefined },
      authorization: 'Bearer secret-token',
      schema: item,
    });
    expect(response).toEqual({ status: 200, data: { id: 's1', count: 3 } });
    expect(exchanges).toEqual([
      expect.objectContaining({ method: 'GET', path: '/spaces/s1', status: 200 }),
    ]);
  });

  it('sends JSON bodies and returns body-less answers', async () => {
    agent
      .get(ORIGIN)
      .intercept({
        path: '/v1/spaces/s1',
        method: 'PATCH',
        body: JSON.stringify({ title: 'New' }),
        headers: { 'content-type': 'application/json' },
      })
      .reply(200, { id: 's1', count: 1 });
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'DELETE' }).reply(205, '');
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s2', method: 'DELETE' }).reply(204, '');
    expect((await client.request({ method: 'PATCH', path: '/spaces/s1', body: { title: 'New' }, schema: item })).data).toEqual({
      id: 's1',
      count: 1,
    });
    expect(await client.request({ method: 'DELETE', path: '/spaces/s1' })).toEqual({ status: 205, data: undefined });
    expect(await client.request({ method: 'DELETE', path: '/spaces/s2' })).toEqual({ status: 204, data: undefined });
  });

  it.each([
    [400, 'BAD_USER_INPUT'],
    [401, 'UNAUTHENTICATED'],
    [403, 'FORBIDDEN'],
    [404, 'NOT_FOUND'],
    [409, 'CONFLICT'],
    [412, 'PRECONDITION_FAILED'],
    [422, 'BAD_USER_INPUT'],
    [429, 'RATE_LIMITED'],
    [500, 'UPSTREAM_UNAVAILABLE'],
    [502, 'UPSTREAM_UNAVAILABLE'],
    [503, 'UPSTREAM_UNAVAILABLE'],
    [504, 'UPSTREAM_TIMEOUT'],
  ] as const)('maps status %i to %s with the upstream message', async (status, code) => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/orgs/o1', method: 'GET' })
      .reply(status, { error: { code: status, message: `upstream says ${status}` } });
    const error = await failure(client.request({ method: 'GET', path: '/orgs/o1', schema: item }));
    expect(error.code).toBe(code);
    expect(error.message).toBe(`upstream says ${status}`);
    expect(error.extensions).toEqual({ code, upstreamStatus: status });
  });

  it('describes a failure without a JSON body by its route, without the query string', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1?shareKey=hidden', method: 'GET' }).reply(502, '<html>bad gateway</html>');
    const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', query: { shareKey: 'hidden' }, schema: item }));
    expect(error.message).toBe('GET /spaces/s1 answered 502');
    expect(error.message).not.toContain('hidden');
  });

  it('reports a body that breaks the documented shape as INTERNAL_SERVER_ERROR naming the field', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 'three' });
    const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item }));
    expect(error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.message).toMatch(/^GET \/spaces\/s1 answered a body that does not match the API at count:/);
  });

  it('gives up after the timeout with UPSTREAM_TIMEOUT', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/slow', method: 'GET' }).reply(200, { id: 'x', count: 1 }).delay(1000);
    const error = await failure(client.request({ method: 'GET', path: '/slow', schema: item }));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(exchanges[0]?.status).toBeUndefined();
  });

  it('reports an unreachable upstream as UPSTREAM_UNAVAILABLE', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/down', method: 'GET' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const error = await failure(client.request({ method: 'GET', path: '/down', schema: item }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toBe('GET /down could not be reached (ECONNREFUSED)');
  });

  it('never lets credentials embedded in URLs or bearer tokens through an error message', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1/git/import', method: 'POST' })
      .reply(400, { error: { code: 400, message: 'cannot clone https://bot:ghp_SECRET@git.test/acme/docs.git (Bearer abc.def)' } });
    const error = await failure(
      client.request({ method: 'POST', path: '/spaces/s1/git/import', body: { url: 'https://bot:ghp_SECRET@git.test/acme/docs.git' } }),
    );
    expect(error.message).toBe('cannot clone https://***@git.test/acme/docs.git (Bearer ***)');
  });
});

describe('helpers', () => {
  it('route encodes every interpolated id', () => {
    expect(route`/orgs/${'a/b'}/members/${'x?y'}`).toBe('/orgs/a%2Fb/members/x%3Fy');
  });

  it('queryString sorts keys and drops empty values', () => {
    expect(queryString({ b: 'two words', a: true, c: null, d: undefined, e: 0 })).toBe('?a=true&b=two+words&e=0');
    expect(queryString({})).toBe('');
  });

  it('redactSecrets removes user info from any URL scheme', () => {
    expect(redactSecrets('ssh://git:pw@host/x and https://token@host/y and http://host/z')).toBe(
      'ssh://***@host/x and https://***@host/y and http://host/z',
    );
  });
});

describe('redactSecrets', () => {
  it('removes the whole user info, even when a password holds an @, and secret query parameters', () => {
    expect(redactSecrets('https://user:p@ss@github.test/a')).toBe('https://***@github.test/a');
    expect(redactSecrets('https://git.test/a?access_token=ghp_abc&ref=main')).toBe('https://git.test/a?access_token=***&ref=main');
    expect(redactSecrets('GET /spaces/x?shareKey=s3cret')).toBe('GET /spaces/x?shareKey=***');
    expect(redactSecrets('mail me at ada@acme.test')).toBe('mail me at ada@acme.test');
  });
});
