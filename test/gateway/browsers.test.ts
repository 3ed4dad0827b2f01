import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { graphiqlOptionsOf } from '../fixtures/graphiql.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const APP = 'https://app.example.test';
const EVIL = 'http://evil.example';
const VIEWER = '{ viewer { email } }';
const ENDPOINT = 'http://gateway.test/graphql';

/** The `access-control-*` headers of an answer, and its `vary`. */
/** The CORS headers of an answer: `access-control-*`, and `vary` when it names the origin (not, say, the encoding). */
function corsHeadersOf(response: Response): Record<string, string> {
  return Object.fromEntries(
    [...response.headers].filter(
      ([name, value]) => name.startsWith('access-control-') || (name === 'vary' && /\borigin\b/i.test(value)),
    ),
  );
}

describe('browsers', () => {
  let platform: TestPlatform;
  /** As `npm start` builds it: no CORS_ORIGINS, CSRF prevention on. */
  let plain: Gateway;
  /** With `CORS_ORIGINS=https://app.example.test,http://localhost:3000`. */
  let listed: Gateway;

  beforeAll(async () => {
    platform = await startTestPlatform();
    plain = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: true } });
    listed = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      corsOrigins: [APP, 'http://localhost:3000'],
    });
  });

  afterAll(async () => {
    await Promise.all([plain?.close(), listed?.close()]);
    await platform?.destroy();
  });

  /** Sends `init` to `gateway` at `url`, and answers the response and the requests the platform received for it. */
  async function send(gateway: Gateway, init: RequestInit, url = ENDPOINT) {
    platform.app.stats.reset();
    const response = await gateway.fetch(url, init);
    const body = await response.text();
    return { response, status: response.status, body, upstream: platform.app.stats.count };
  }

  const jsonPost = (origin: string, extra: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: {
      origin,
      'content-type': 'application/json',
      authorization: `Bearer ${platform.adminToken}`,
      ...extra,
    },
    body: JSON.stringify({ query: VIEWER }),
  });
  const preflight = (origin: string): RequestInit => ({
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type',
    },
  });

  describe('CORS', () => {
    it('sends no CORS header by default, to any origin, for any request', async () => {
      for (const origin of [EVIL, APP]) {
        const answered = await send(plain, jsonPost(origin));
        expect(answered.status).toBe(200);
        expect(JSON.parse(answered.body).data).toEqual({ viewer: { email: 'ada@acme.test' } });
        expect(corsHeadersOf(answered.response), origin).toEqual({});
        expect(corsHeadersOf((await send(plain, preflight(origin))).response), origin).toEqual({});
      }
      // The case: GraphiQL's page, asked for by a page of another site.
      const page = await send(plain, { headers: { accept: 'text/html', origin: EVIL } });
      expect(page.status).toBe(200);
      expect(corsHeadersOf(page.response)).toEqual({});
    });

    it('lets a listed origin read answers, without credentials, and answers its preflight', async () => {
      const answered = await send(listed, jsonPost(APP));
      expect(answered.status).toBe(200);
      expect(answered.upstream).toBe(1);
      expect(corsHeadersOf(answered.response)).toEqual({
        'access-control-allow-origin': APP,
        'access-control-expose-headers':
          'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-used, x-ratelimit-reset',
        'access-control-max-age': '7200',
        vary: 'Origin',
      });
      const preflighted = await send(listed, preflight('http://localhost:3000'));
      expect(preflighted.status).toBe(204);
      expect(preflighted.upstream).toBe(0);
      expect(corsHeadersOf(preflighted.response)).toEqual({
        'access-control-allow-origin': 'http://localhost:3000',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-expose-headers':
          'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-used, x-ratelimit-reset',
        'access-control-max-age': '7200',
        vary: 'Origin, Access-Control-Request-Headers',
      });
    });

    it('gives an origin that is not listed nothing to read, its preflight included', async () => {
      // Other sites, another port or scheme of a listed one, and the `null` of sandboxed pages.
      for (const origin of [EVIL, 'https://app.example.test:8443', 'http://app.example.test', 'null']) {
        const answered = await send(listed, jsonPost(origin));
        expect(corsHeadersOf(answered.response), origin).toEqual({});
        expect(corsHeadersOf((await send(listed, preflight(origin))).response), origin).toEqual({});
      }
    });
  });

  describe('CSRF prevention', () => {
    const refusal = {
      errors: [
        {
          message: expect.stringMatching(
            /may come from a page of another site \(cross-site request forgery\): send one of the headers x-graphql-csrf, apollo-require-preflight, x-apollo-operation-name, x-graphql-yoga-csrf with any value \(such as x-graphql-csrf: 1\), or POST the operation as application\/json$/,
          ),
          extensions: {
            code: 'BAD_USER_INPUT',
            reason: 'CSRF_HEADER_REQUIRED',
            headers: [
              'x-graphql-csrf',
              'apollo-require-preflight',
              'x-apollo-operation-name',
              'x-graphql-yoga-csrf',
              'x-graphql-event-stream-token',
            ],
          },
        },
      ],
    };
    const FORM = 'application/x-www-form-urlencoded';
    const formBody = `query=${encodeURIComponent(VIEWER)}`;
    const auth = () => ({ authorization: `Bearer ${platform.adminToken}` });
    const form = () => {
      const body = new FormData();
      body.set('operations', JSON.stringify({ query: VIEWER }));
      body.set('map', '{}');
      return body;
    };
    /** Every request a page of another site can make a browser send without a preflight, as that page would. */
    const simpleRequests = (): Array<[string, RequestInit, string?]> => [
      ['GET', { headers: auth() }, `${ENDPOINT}?query=${encodeURIComponent(VIEWER)}`],
      [
        'GET over SSE',
        { headers: { ...auth(), accept: 'text/event-stream' } },
        `${ENDPOINT}?query=${encodeURIComponent(VIEWER)}`,
      ],
      [
        'text/plain',
        {
          method: 'POST',
          headers: { ...auth(), 'content-type': 'text/plain' },
          body: JSON.stringify({ query: VIEWER }),
        },
      ],
      [
        'text/plain naming JSON in a parameter',
        {
          method: 'POST',
          headers: { ...auth(), 'content-type': 'text/plain;a=application/json' },
          body: JSON.stringify({ query: VIEWER }),
        },
      ],
      ['a form', { method: 'POST', headers: { ...auth(), 'content-type': FORM }, body: formBody }],
      ['multipart', { method: 'POST', headers: auth(), body: form() }],
      ['no content type', { method: 'POST', headers: auth(), body: new Blob([JSON.stringify({ query: VIEWER })]) }],
      ['the SSE lane', { headers: { accept: 'text/event-stream' } }, `${ENDPOINT}/stream?token=guessed`],
    ];

    it('refuses each request a browser sends without a preflight when it carries no CSRF header', async () => {
      for (const [label, init, url] of simpleRequests()) {
        const refused = await send(plain, init, url);
        expect({ label, status: refused.status, upstream: refused.upstream }).toEqual({
          label,
          status: 400,
          upstream: 0,
        });
        expect(refused.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(JSON.parse(refused.body), label).toEqual(refusal);
      }
    });

    it('accepts each CSRF header on a GET, and a form or multipart request with one', async () => {
      for (const header of [
        'x-graphql-csrf',
        'apollo-require-preflight',
        'x-apollo-operation-name',
        'x-graphql-yoga-csrf',
      ]) {
        const accepted = await send(
          plain,
          { headers: { ...auth(), [header]: '1' } },
          `${ENDPOINT}?query=${encodeURIComponent(VIEWER)}`,
        );
        expect({ header, status: accepted.status, upstream: accepted.upstream }).toEqual({
          header,
          status: 200,
          upstream: 1,
        });
        expect(JSON.parse(accepted.body).data, header).toEqual({ viewer: { email: 'ada@acme.test' } });
      }
      const withHeader = { ...auth(), 'apollo-require-preflight': 'true' };
      for (const [label, init] of [
        ['a form', { headers: { ...withHeader, 'content-type': FORM }, body: formBody }],
        ['multipart', { headers: withHeader, body: form() }],
      ] as const) {
        const accepted = await send(plain, { method: 'POST', ...init });
        expect({ label, status: accepted.status, upstream: accepted.upstream }).toEqual({
          label,
          status: 200,
          upstream: 1,
        });
        expect(JSON.parse(accepted.body).data, label).toEqual({ viewer: { email: 'ada@acme.test' } });
      }
      // graphql-sse's client in single-connection mode names its stream in a header: its GET connects.
      const token = (await send(plain, { method: 'PUT', headers: auth() }, `${ENDPOINT}/stream`)).body;
      const stream = await plain.fetch(`${ENDPOINT}/stream`, {
        headers: { ...auth(), accept: 'text/event-stream', 'x-graphql-event-stream-token': token },
      });
      expect([stream.status, stream.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
      await stream.body?.cancel();
    });

    it('needs no header for a JSON POST, other methods, GraphiQL, health, readiness and metrics', async () => {
      const answered = await send(plain, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ query: VIEWER }),
      });
      expect([answered.status, answered.upstream, JSON.parse(answered.body).data]).toEqual([
        200,
        1,
        { viewer: { email: 'ada@acme.test' } },
      ]);
      const reserved = await send(plain, { method: 'PUT', headers: auth() }, `${ENDPOINT}/stream`);
      expect(reserved.status).toBe(201);
      const page = await send(plain, { headers: { accept: 'text/html' } });
      expect([page.status, page.response.headers.get('content-type')]).toEqual([200, 'text/html']);
      // GraphiQL's own requests carry a CSRF header: its subscriptions are GETs.
      expect(graphiqlOptionsOf(page.body).additionalHeaders).toEqual({ 'x-graphql-csrf': '1' });
      for (const path of ['/health', '/ready', '/metrics']) {
        const probe = await send(plain, {}, `http://gateway.test${path}`);
        expect({ path, status: probe.status }).toEqual({ path, status: 200 });
      }
    });

    it('can be turned off', async () => {
      const off = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, csrfPrevention: false });
      try {
        const accepted = await send(off, { headers: auth() }, `${ENDPOINT}?query=${encodeURIComponent(VIEWER)}`);
        expect([accepted.status, accepted.upstream]).toEqual([200, 1]);
      } finally {
        await off.close();
      }
    });
  });
});
