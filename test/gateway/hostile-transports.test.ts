import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ExecutionResult } from 'graphql';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import { pino } from 'pino';
// `ws` for the raw protocol (request headers, pongs, the masks, a refused upgrade's status and body), which
// the standard `WebSocket` does not expose; graphql-ws's clients use the standard one, as browsers do.
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http/server.js';
import { serveWebSockets, type WebSocketOptions } from '../../src/gateway/http/websocket.js';
import { documentHash } from '../../src/gateway/policy/manifest.js';
import type { OperationReport } from '../../src/gateway/telemetry/operations.js';
import { type Payload, payloadsOf } from '../fixtures/incremental.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

/**
 * Every transport under the budgets of `/graphql`, against a real listening server: WebSocket
 * (`graphql-transport-ws`) and GraphQL over SSE's single-connection mode (`/graphql/stream`), each
 * sent what a hostile client sends. Memory is measured as what the process holds (heap and
 * buffers), with bounds far from both the fixed and the broken figures; no time is asserted.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.destroy();
});

// What the process keeps, once its garbage is collected.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
/** Bytes the process holds in its heap and in buffers outside it, after two collections. */
function held(): number {
  gc();
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
const MB = 1024 * 1024;

interface Served {
  gateway: Gateway;
  url: string;
}

/** Runs `test` against a gateway of its own with `options`, served on a loopback port with WebSockets. */
async function withServer(
  options: Partial<GatewayOptions>,
  webSocketOptions: WebSocketOptions,
  test: (served: Served) => Promise<void>,
): Promise<void> {
  const gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, ...options });
  const server = createServer(gateway.handle);
  const sockets = serveWebSockets(server, gateway, webSocketOptions);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await test({ gateway, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  } finally {
    await sockets.close(0);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  }
}

/** A `graphql-transport-ws` client that shows the protocol as it goes: messages, the close, a refused upgrade. */
function connect(
  url: string,
  { headers = {}, autoPong = true }: { headers?: Record<string, string>; autoPong?: boolean } = {},
) {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
    headers,
    autoPong,
    // A zero mask spares masking tens of megabytes in the process that serves them too.
    generateMask: (mask) => mask.fill(0),
  });
  const received: any[] = [];
  const waiting: Array<() => void> = [];
  socket.on('message', (data) => {
    received.push(JSON.parse(String(data)));
    for (const wake of waiting.splice(0)) wake();
  });
  // A refused upgrade or a reset shows as the close.
  socket.on('error', () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const opened = new Promise<{ status: number; body: any } | undefined>((resolve) => {
    socket.on('open', () => resolve(undefined));
    socket.on('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(body) }));
    });
  });
  return {
    socket,
    opened,
    closed,
    send: (message: object | Buffer) =>
      socket.send(Buffer.isBuffer(message) ? message : JSON.stringify(message), { binary: false }),
    /** The first message of `type` (with `id`) received, or, when the socket closes first, how it closed. */
    async message(type: string, id?: string): Promise<any> {
      for (;;) {
        const found = received.find((message) => message.type === type && (id === undefined || message.id === id));
        if (found) {
          received.splice(received.indexOf(found), 1);
          return found;
        }
        if (socket.readyState >= WebSocket.CLOSING) return { type: 'closed', ...(await closed) };
        await Promise.race([new Promise<void>((resolve) => waiting.push(resolve)), closed]);
      }
    },
    /** Opens the connection as the admin (or `authorization`) and waits for its acknowledgement. */
    async init(payload: Record<string, unknown> = { Authorization: `Bearer ${platform.adminToken}` }) {
      await this.opened;
      this.send({ type: 'connection_init', payload });
      return this.message('connection_ack');
    },
  };
}

/** A message of exactly `bytes` bytes: `message` with padding in `pad`, as JSON. */
function padded(message: (pad: string) => object, bytes: number): Buffer {
  const bare = Buffer.byteLength(JSON.stringify(message('')));
  const text = JSON.stringify(message('a'.repeat(bytes - bare)));
  expect(Buffer.byteLength(text)).toBe(bytes);
  return Buffer.from(text);
}

/** A `connection_init` of `bytes` bytes without building its text: padding in `payload.pad`. */
function hugeInit(bytes: number): Buffer {
  const head = Buffer.from('{"type":"connection_init","payload":{"pad":"');
  const tail = Buffer.from('"}}');
  return Buffer.concat([head, Buffer.alloc(bytes - head.length - tail.length, 'a'), tail]);
}

/**
 * POSTs a JSON body of `bytes` bytes (a query string that never ends) to `url`, with or without
 * its `content-length`, written as the server reads it; stops once the answer comes. How much was
 * written before, and the most the process held meanwhile over what it held before.
 */
async function postHuge(
  url: string,
  { bytes, declared, headers = {} }: { bytes: number; declared: boolean; headers?: Record<string, string> },
): Promise<{ status: number; body: any; written: number; peak: number }> {
  const before = held();
  let peak = 0;
  const sampler = setInterval(() => {
    const { heapUsed, external } = process.memoryUsage();
    peak = Math.max(peak, heapUsed + external - before);
  }, 5);
  try {
    return await new Promise((resolve, reject) => {
      const request = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(declared ? { 'content-length': bytes } : {}), ...headers },
      });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let written = 0;
      let answered = false;
      request.on('response', (response) => {
        answered = true;
        let body = '';
        response.on('data', (part: Buffer) => (body += part));
        response.on('end', () => {
          request.destroy();
          resolve({ status: response.statusCode!, body: body ? JSON.parse(body) : null, written, peak });
        });
      });
      request.on('error', (error) => {
        if (!answered) reject(error);
      });
      const write = () => {
        while (!answered && written < bytes) {
          const part =
            written === 0 ? Buffer.concat([Buffer.from('{"query":"'), chunk]).subarray(0, chunk.length) : chunk;
          const size = Math.min(part.length, bytes - written);
          written += size;
          if (!request.write(part.subarray(0, size))) return void request.once('drain', write);
        }
        if (!answered) request.end();
      };
      write();
    });
  } finally {
    clearInterval(sampler);
  }
}

/** Reserves a stream of the single-connection mode as `token`: its stream token. */
async function reserve(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(`${url}/graphql/stream`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${platform.adminToken}`, ...headers },
  });
  expect(response.status).toBe(201);
  return response.text();
}

/** Connects to a reserved stream: its events as they come, and whether and when it ended. */
async function connectStream(url: string, token: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${url}/graphql/stream`, {
    headers: {
      authorization: `Bearer ${platform.adminToken}`,
      accept: 'text/event-stream',
      'x-graphql-event-stream-token': token,
      ...headers,
    },
    signal: abort.signal,
  });
  const events: Payload[] = [];
  const waiting: Array<() => void> = [];
  let over = false;
  const ended = (async () => {
    if (response.headers.get('content-type')?.startsWith('text/event-stream'))
      try {
        for await (const event of payloadsOf(response)) {
          events.push(event);
          for (const wake of waiting.splice(0)) wake();
        }
      } catch {
        // Closed by the test.
      }
    over = true;
    for (const wake of waiting.splice(0)) wake();
  })();
  return {
    response,
    ended,
    get over() {
      return over;
    },
    /** The next event of the operation `id` (its payload), or undefined when the stream ended first. */
    async next(id: string): Promise<any> {
      for (;;) {
        const index = events.findIndex((event: any) => event.id === id);
        if (index >= 0) return (events.splice(index, 1)[0] as any).payload;
        if (over) return undefined;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    close: () => abort.abort(),
  };
}

/** Sends an operation to the reserved stream `token`. */
function post(url: string, token: string, body: unknown) {
  return fetch(`${url}/graphql/stream`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${platform.adminToken}`,
      'content-type': 'application/json',
      'x-graphql-event-stream-token': token,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const CONTENT = `subscription ($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }`;

describe('WebSocket messages', () => {
  it('runs a message of exactly MAX_REQUEST_BYTES, and closes the connection at one byte more with 1009', async () => {
    await withServer({ limits: { maxRequestBytes: 4096 } }, {}, async ({ url }) => {
      const client = connect(url);
      expect((await client.init()).type).toBe('connection_ack');
      const subscribe = (id: string) => (pad: string) => ({
        id,
        type: 'subscribe',
        payload: { query: '{ __typename }', variables: { pad } },
      });
      client.send(padded(subscribe('at'), 4096));
      expect((await client.message('next', 'at')).payload.data).toEqual({ __typename: 'Query' });
      client.send(padded(subscribe('over'), 4097));
      expect(await client.message('next', 'over')).toEqual({ type: 'closed', code: 1009, reason: '' });
    });
  });

  it('reads four 60 MB connection_init at once no further than MAX_REQUEST_BYTES, and keeps nothing of them', async () => {
    // However slowly a loaded machine sends them, their size ends them, not the init timeout.
    await withServer({}, { initTimeoutMs: 60_000 }, async ({ gateway, url }) => {
      const init = hugeInit(60 * MB);
      const before = held();
      const clients = Array.from({ length: 4 }, () => connect(url));
      for (const client of clients) {
        await client.opened;
        client.send(init);
      }
      const outcomes = await Promise.all(clients.map((client) => client.message('connection_ack')));
      expect(outcomes.map((outcome) => outcome.code)).toEqual([1009, 1009, 1009, 1009]);
      await until(() => gateway.connections.heldBy('127.0.0.1') === 0);
      // The test's own 60 MB message is a buffer it still holds: counted out.
      expect((held() - before - init.length) / MB).toBeLessThan(16);
    });
  });

  it('keeps only the credentials of a connection_init within the limit, and closes one whose Authorization is over 16 KiB', async () => {
    await withServer({ limits: { maxRequestBytes: 40 * MB } }, {}, async ({ url }) => {
      const before = held();
      const client = connect(url);
      const pad = 'a'.repeat(30 * MB);
      expect((await client.init({ Authorization: `Bearer ${platform.adminToken}`, pad })).type).toBe('connection_ack');
      client.send({ id: 'me', type: 'subscribe', payload: { query: '{ viewer { email } }' } });
      expect((await client.message('next', 'me')).payload.data).toEqual({ viewer: { email: 'ada@acme.test' } });
      // The connection is open, and 30 MB of parameters it sent are not kept for its life.
      expect((held() - before - pad.length) / MB).toBeLessThan(16);
      client.socket.close();

      const oversized = connect(url);
      const closed = await oversized.init({ Authorization: `Bearer ${'t'.repeat(16 * 1024)}` });
      expect(closed).toEqual({
        type: 'closed',
        code: 4400,
        reason: 'connection_init: Authorization is 16391 bytes, the limit is 16384',
      });
    });
  });

  it('closes a connection whose operation id is over 256 characters', async () => {
    await withServer({}, {}, async ({ url }) => {
      const client = connect(url);
      await client.init();
      client.send({ id: 'i'.repeat(257), type: 'subscribe', payload: { query: '{ __typename }' } });
      expect(await client.message('next')).toEqual({
        type: 'closed',
        code: 4400,
        reason: 'Subscribe: id over 256 characters',
      });
    });
  });
});

describe('bodies of /graphql/stream', () => {
  it.each([
    ['with its content-length', true],
    ['without content-length', false],
  ])('answers a 100 MB POST %s 413 as /graphql does, reading no further than the limit', async (_, declared) => {
    await withServer({}, {}, async ({ url }) => {
      const token = await reserve(url);
      const toGraphql = await postHuge(`${url}/graphql`, { bytes: 100 * MB, declared });
      expect(toGraphql.status).toBe(413);
      const cases = {
        'a reserved stream': { 'x-graphql-event-stream-token': token },
        'a stream of its own': { accept: 'text/event-stream' },
      };
      for (const [name, headers] of Object.entries(cases)) {
        const answer = await postHuge(`${url}/graphql/stream`, { bytes: 100 * MB, declared, headers });
        expect({ name, status: answer.status, body: answer.body }).toEqual({
          name,
          status: 413,
          body: toGraphql.body,
        });
        expect(answer.body.errors[0].extensions).toEqual({
          code: 'BAD_USER_INPUT',
          reason: 'PAYLOAD_TOO_LARGE',
          limit: 1024 * 1024,
        });
        // Loopback buffers hold a few megabytes: the rest of the 100 MB was never asked for.
        expect(answer.written / MB, name).toBeLessThan(32);
        expect(answer.peak / MB, name).toBeLessThan(32);
      }
    });
  });

  it('accepts a body of exactly MAX_REQUEST_BYTES and refuses one byte more', async () => {
    await withServer({ limits: { maxRequestBytes: 4096 } }, {}, async ({ url }) => {
      const token = await reserve(url);
      const body = (id: string) => (pad: string) => ({
        query: '{ __typename }',
        variables: { pad },
        extensions: { operationId: id },
      });
      expect((await post(url, token, padded(body('at'), 4096).toString())).status).toBe(202);
      const over = await post(url, token, padded(body('over'), 4097).toString());
      expect(over.status).toBe(413);
      expect(((await over.json()) as any).errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        reason: 'PAYLOAD_TOO_LARGE',
        limit: 4096,
      });
    });
  });

  it('refuses an operation id over 256 characters', async () => {
    await withServer({}, {}, async ({ url }) => {
      const token = await reserve(url);
      const answer = await post(url, token, { query: '{ __typename }', extensions: { operationId: 'i'.repeat(257) } });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as any).errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        limit: 'operationId',
        value: 257,
        max: 256,
      });
    });
  });
});

describe("the platform's deliveries at /platform-events", () => {
  /** Headers of a delivery of a known installation, signed now with a made-up MAC: only the body can tell. */
  const signedHeaders = () => ({
    'content-type': 'multipart/form-data; boundary=x',
    'x-gitbook-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'ab'.repeat(32)}`,
    'x-gitbook-installation-id': 'installation',
    'x-gitbook-event-id': 'event',
    'x-gitbook-event-type': 'space_content_updated',
  });
  const known = { secrets: new Map([['installation', 'f'.repeat(64)]]), organizations: [] };

  it.each([
    ['with its content-length', true],
    ['without content-length', false],
  ])('answers a 100 MB delivery %s 413, reading no further than MAX_REQUEST_BYTES', async (_, declared) => {
    await withServer({}, {}, async ({ gateway, url }) => {
      gateway.receiveEvents(known);
      const answer = await postHuge(`${url}/platform-events`, { bytes: 100 * MB, declared, headers: signedHeaders() });
      expect(answer.status).toBe(413);
      expect(answer.body.errors[0].extensions).toEqual({
        code: 'BAD_USER_INPUT',
        reason: 'PAYLOAD_TOO_LARGE',
        limit: 1024 * 1024,
      });
      expect(answer.written / MB).toBeLessThan(32);
      expect(answer.peak / MB).toBeLessThan(32);
    });
  });

  it('refuses a delivery without a signature, or of an installation it does not know, before reading its body', async () => {
    await withServer({}, {}, async ({ gateway, url }) => {
      gateway.receiveEvents(known);
      const { 'x-gitbook-signature': _, ...unsigned } = signedHeaders();
      for (const [headers, reason] of [
        [unsigned, 'SIGNATURE_MISSING'],
        [{ ...signedHeaders(), 'x-gitbook-installation-id': 'another' }, 'UNKNOWN_INSTALLATION'],
      ] as const) {
        const answer = await postHuge(`${url}/platform-events`, { bytes: 100 * MB, declared: false, headers });
        expect(answer.status).toBe(401);
        expect(answer.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED', reason });
        expect(answer.written / MB).toBeLessThan(32);
      }
    });
  });

  it('spends a point of the address per refusal that cost work, refuses it at once once spent, and nothing for the rest', async () => {
    await withServer({ rateLimits: { points: 5, windowMs: 60_000, failOpen: false } }, {}, async ({ gateway, url }) => {
      gateway.receiveEvents(known);
      const send = (headers: Record<string, string>) =>
        fetch(`${url}/platform-events`, { method: 'POST', headers, body: 'x' });
      // Refused off their headers (another integration's installation, no signature): free.
      const { 'x-gitbook-signature': _, ...unsigned } = signedHeaders();
      for (let sent = 0; sent < 10; sent += 1) {
        expect((await send({ ...signedHeaders(), 'x-gitbook-installation-id': 'another' })).status).toBe(401);
        expect((await send(unsigned)).status).toBe(401);
      }
      // A signature computed and wrong: a point each.
      const statuses: number[] = [];
      for (let sent = 0; sent < 7; sent += 1) statuses.push((await send(signedHeaders())).status);
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
      const refused = await send(signedHeaders());
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await refused.json()).errors[0].extensions).toEqual({
        code: 'RATE_LIMITED',
        reason: 'ADDRESS_BUDGET_SPENT',
      });
      // A budget of its own: the address's GraphQL requests are not refused for it.
      const graphql = await fetch(
        `${url}/graphql?query=${encodeURIComponent('{ organization(id: "acme") { title } }')}`,
        { headers: { 'x-graphql-csrf': '1' } },
      );
      expect(graphql.status).not.toBe(429);
    });
  });

  it('gives a page of another site nothing: a form it posts is refused, with no CORS header to read it by', async () => {
    await withServer({ corsOrigins: ['https://app.example.test'] }, {}, async ({ gateway, url }) => {
      gateway.receiveEvents(known);
      // What a page can send without a preflight: a form, with its origin and no signature.
      const form = new FormData();
      form.set('event', JSON.stringify({ type: 'space_content_updated', spaceId: 's' }));
      const answer = await fetch(`${url}/platform-events`, {
        method: 'POST',
        headers: { origin: 'https://evil.example.test' },
        body: form,
      });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  it('acts on none of a thousand forged deliveries: no upstream request', async () => {
    await withServer({}, {}, async ({ gateway, url }) => {
      gateway.receiveEvents(known);
      const body = `--x\r\nContent-Disposition: form-data; name="event"\r\n\r\n{"type":"space_content_updated","spaceId":"s"}\r\n--x--\r\n`;
      platform.app.stats.reset();
      const statuses = new Set<number>();
      for (let sent = 0; sent < 1000; sent += 50) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, () =>
            fetch(`${url}/platform-events`, { method: 'POST', headers: signedHeaders(), body }),
          ),
        );
        for (const answer of answers) statuses.add(answer.status);
      }
      expect([...statuses]).toEqual([401]);
      expect(platform.app.stats.count).toBe(0);
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toContain(
        'graphql_gateway_platform_events_total{type="space_content_updated",outcome="bad_signature"} 1000',
      );
    });
  });
});

describe('persisted-only on /graphql/stream', () => {
  const LANE = 'query Lane { viewer { email } }';

  it('answers an operation sent as text as /graphql does, before its document is parsed, and runs a persisted one', async () => {
    const manifest = new Map([[documentHash(LANE), LANE]]);
    await withServer({ persistedOperations: { manifest, persistedOnly: true } }, {}, async ({ url }) => {
      const token = await reserve(url);
      const stream = await connectStream(url, token);
      try {
        // Not a document at all: refused for being text, never parsed.
        const text = { query: '{', extensions: { operationId: 'op' } };
        const refused = await post(url, token, text);
        const overHttp = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
          body: JSON.stringify(text),
        });
        expect(refused.status).toBe(400);
        const answer = (await refused.json()) as ExecutionResult;
        const expected = (await overHttp.json()) as ExecutionResult;
        expect(overHttp.status).toBe(400);
        // The same answer, but for the time it took.
        const timeless = (result: ExecutionResult) => ({
          ...result,
          extensions: { ...result.extensions, cost: { ...(result.extensions?.cost as object), durationMs: 0 } },
        });
        expect(timeless(answer)).toEqual(timeless(expected));
        expect(answer.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'PERSISTED_QUERY_ONLY' });

        // The refused operation left nothing behind: its id serves the next one.
        const persisted = {
          query: '',
          extensions: { operationId: 'op', persistedQuery: { version: 1, sha256Hash: documentHash(LANE) } },
        };
        expect((await post(url, token, persisted)).status).toBe(202);
        expect((await stream.next('op')).data).toEqual({ viewer: { email: 'ada@acme.test' } });
      } finally {
        stream.close();
      }
    });
  });
});

describe('WebSockets from pages of other sites', () => {
  it('refuses the upgrade a page of another origin asks for, and admits its own pages, listed origins and clients that are no page', async () => {
    await withServer({ corsOrigins: ['https://app.example.test'] }, {}, async ({ url }) => {
      const evil = connect(url, { headers: { origin: 'https://evil.example.test' } });
      expect(await evil.opened).toEqual({
        status: 403,
        body: {
          errors: [
            {
              message:
                'Pages of https://evil.example.test may not open WebSockets to this gateway: only its own pages and those of CORS_ORIGINS may',
              extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' },
            },
          ],
        },
      });
      // The same host on another port is another origin; `null` (a sandboxed page) is no allowed one.
      for (const origin of [url.replace(/:(\d+)$/, ':1'), 'null'])
        expect((await connect(url, { headers: { origin } }).opened)?.status, origin).toBe(403);
      const admitted: Array<Record<string, string>> = [{ origin: url }, { origin: 'https://app.example.test' }, {}];
      for (const headers of admitted) {
        const client = connect(url, { headers });
        expect(await client.opened, JSON.stringify(headers)).toBeUndefined();
        expect((await client.init()).type).toBe('connection_ack');
        client.socket.close();
      }
    });
  });
});

describe('connections per address', () => {
  it('refuses the connection past MAX_CONNECTIONS_PER_ADDRESS, WebSockets and event streams together, with 429', async () => {
    await withServer({ trustedProxies: 1, connections: { maxPerAddress: 3 } }, {}, async ({ gateway, url }) => {
      const from = (address: string) => ({ 'x-forwarded-for': address });
      const first = [connect(url, { headers: from('198.51.100.1') }), connect(url, { headers: from('198.51.100.1') })];
      for (const client of first) expect((await client.init()).type).toBe('connection_ack');
      const stream = await connectStream(url, await reserve(url, from('198.51.100.1')), from('198.51.100.1'));
      expect(stream.response.status).toBe(200);
      expect(gateway.connections.heldBy('198.51.100.1')).toBe(3);

      const refusal = {
        errors: [
          {
            message:
              'This address holds its most open connections (3, WebSockets and event streams together): close one first',
            extensions: { code: 'RATE_LIMITED', limit: 'connectionsPerAddress', value: 4, max: 3 },
          },
        ],
      };
      const fourth = connect(url, { headers: from('198.51.100.1') });
      expect(await fourth.opened).toEqual({ status: 429, body: refusal });
      const fourthStream = await connectStream(url, await reserve(url, from('198.51.100.1')), from('198.51.100.1'));
      expect(fourthStream.response.status).toBe(429);
      expect(await fourthStream.response.json()).toEqual(refusal);

      // Another address has its own share; a closed connection gives its slot back.
      const other = connect(url, { headers: from('198.51.100.2') });
      expect((await other.init()).type).toBe('connection_ack');
      first[0]!.socket.close();
      await until(() => gateway.connections.heldBy('198.51.100.1') === 2);
      const again = connect(url, { headers: from('198.51.100.1') });
      expect((await again.init()).type).toBe('connection_ack');
      stream.close();
      await until(() => gateway.connections.heldBy('198.51.100.1') === 2);
      for (const client of [first[1]!, other, again]) client.socket.close();
      await until(() => gateway.connections.heldBy('198.51.100.1') === 0);
    });
  });

  it('holds a caller to MAX_SUBSCRIPTIONS_PER_CALLER however many connections and lanes it opens', async () => {
    await withServer({ subscriptions: { pollMs: 200, maxPerCaller: 2 } }, {}, async ({ gateway, url }) => {
      const variables = { id: platform.spaceId('Getting started') };
      const clients = Array.from({ length: 3 }, () =>
        createClient({
          url: `${url.replace('http', 'ws')}/graphql`,
          webSocketImpl: globalThis.WebSocket,
          connectionParams: { Authorization: `Bearer ${platform.adminToken}` },
          retryAttempts: 0,
          lazy: true,
        }),
      );
      const sse = createSseClient({
        url: `${url}/graphql/stream`,
        singleConnection: true,
        headers: { authorization: `Bearer ${platform.adminToken}` },
        retryAttempts: 0,
      });
      try {
        const admitted = clients.slice(0, 2).map((client) => client.iterate<any>({ query: CONTENT, variables }));
        for (const events of admitted) expect((await events.next()).value.errors).toBeUndefined();
        const refusedOverWebSocket = await clients[2]!.iterate<any>({ query: CONTENT, variables }).next();
        const refusedOverStream = await sse.iterate<any>({ query: CONTENT, variables }).next();
        // Apollo's multipart subscriptions: refused before any part, as JSON (which its Accept allows).
        const overMultipart = await fetch(`${url}/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/json',
            authorization: `Bearer ${platform.adminToken}`,
          },
          body: JSON.stringify({ query: CONTENT, variables }),
        });
        const refusedOverMultipart = { value: await overMultipart.json() };
        for (const refused of [refusedOverWebSocket, refusedOverStream, refusedOverMultipart])
          expect(refused.value.errors[0].extensions).toMatchObject({
            code: 'RATE_LIMITED',
            limit: 'subscriptionsPerCaller',
            max: 2,
          });
        expect(gateway.live.subscriptions).toBe(2);
      } finally {
        sse.dispose();
        for (const client of clients) await client.dispose();
      }
    });
  });
});

/**
 * The idle timeout and the ping interval of these tests: short, yet long enough that a busy
 * machine never takes them for a connection that does nothing (the one between an
 * acknowledgement and the operation that follows it, a pong to a ping), so that only the silent
 * peers run into them.
 */
const IDLE_MS = 1_000;
const PING_MS = 1_000;

describe('connections that do nothing', () => {
  it('closes a WebSocket that sends no connection_init within WEBSOCKET_INIT_TIMEOUT_MS with 4408', async () => {
    await withServer({}, { initTimeoutMs: 200 }, async ({ gateway, url }) => {
      const silent = connect(url);
      await silent.opened;
      expect(await silent.closed).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
      await until(() => gateway.connections.heldBy('127.0.0.1') === 0);
    });
  });

  it('closes a WebSocket that runs no operation for the idle timeout, never one running a subscription', async () => {
    await withServer({ connections: { idleMs: IDLE_MS }, subscriptions: { pollMs: 100 } }, {}, async ({ url }) => {
      const busy = connect(url);
      await busy.init();
      busy.send({
        id: 'live',
        type: 'subscribe',
        payload: { query: CONTENT, variables: { id: platform.spaceId('Getting started') } },
      });
      expect((await busy.message('next', 'live')).payload.data.spaceContentUpdated.platformId).toBeTruthy();
      // Idle connections opened after it close, one after the other, while it runs its subscription.
      for (let idle = 0; idle < 3; idle += 1) {
        const quiet = connect(url);
        await quiet.init();
        expect(await quiet.closed).toEqual({
          code: 1000,
          reason: `Idle: no operation for ${IDLE_MS} ms, connect again to run one`,
        });
      }
      expect(busy.socket.readyState).toBe(WebSocket.OPEN);
      // Once its subscription is complete, it is idle too.
      busy.send({ id: 'live', type: 'complete' });
      expect((await busy.closed).code).toBe(1000);
    });
  });

  it('drops a peer that stops answering pings, and keeps one that answers', async () => {
    await withServer({ connections: { idleMs: 0 } }, { pingMs: PING_MS }, async ({ gateway, url }) => {
      const answering = connect(url);
      await answering.init();
      const gone = connect(url, { autoPong: false });
      await gone.init();
      expect((await gone.closed).code).toBe(1006);
      expect(answering.socket.readyState).toBe(WebSocket.OPEN);
      await until(() => gateway.connections.heldBy('127.0.0.1') === 1);
      answering.socket.close();
    });
  });

  it('ends a connected stream of /graphql/stream that runs no operation for the idle timeout, never one running a subscription', async () => {
    await withServer(
      { connections: { idleMs: IDLE_MS }, subscriptions: { pollMs: 100 } },
      {},
      async ({ gateway, url }) => {
        const token = await reserve(url);
        const busy = await connectStream(url, token);
        const operation = {
          query: CONTENT,
          variables: { id: platform.spaceId('Getting started') },
          extensions: { operationId: 'live' },
        };
        expect((await post(url, token, operation)).status).toBe(202);
        expect((await busy.next('live')).data.spaceContentUpdated.platformId).toBeTruthy();
        // Idle streams connected after it end, one after the other, while it runs its subscription.
        for (let idle = 0; idle < 3; idle += 1) {
          const quiet = await connectStream(url, await reserve(url));
          await quiet.ended;
        }
        expect(busy.over).toBe(false);
        // Once its subscription is complete, it is idle too, and its slot is given back.
        const completed = await fetch(`${url}/graphql/stream?operationId=live`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${platform.adminToken}`, 'x-graphql-event-stream-token': token },
        });
        expect(completed.status).toBe(200);
        await busy.ended;
        await until(() => gateway.connections.heldBy('127.0.0.1') === 0);
        expect(gateway.live.subscriptions).toBe(0);
      },
    );
  });
});

describe('one plugin chain for every lane', () => {
  it('logs a subscription its client ends, on every lane, as answered (200), never as a client gone (499)', async () => {
    const lines: OperationReport[] = [];
    const others: OperationReport[] = [];
    const operationLog = pino(
      { level: 'info' },
      {
        write: (line: string) => {
          const report = JSON.parse(line) as OperationReport;
          (report.operationName === 'Followed' ? lines : others).push(report);
        },
      },
    );
    const query = 'subscription Followed($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }';
    const variables = { id: platform.spaceId('Getting started') };
    const authorization = `Bearer ${platform.adminToken}`;
    await withServer({ operationLog }, {}, async ({ url }) => {
      // graphql-ws: `complete`.
      const ws = connect(url);
      await ws.init();
      ws.send({ id: 'live', type: 'subscribe', payload: { query, variables } });
      expect((await ws.message('next', 'live')).payload.data.spaceContentUpdated).toBeTruthy();
      ws.send({ id: 'live', type: 'complete' });
      await until(() => lines.length === 1);
      ws.socket.close();

      // GraphQL over SSE, single connection: the client's `DELETE` of its operation.
      const single = createSseClient({
        url: `${url}/graphql/stream`,
        singleConnection: true,
        headers: { authorization },
        retryAttempts: 0,
      });
      try {
        const events = single.iterate<any>({ query, variables });
        expect((await events.next()).value.data.spaceContentUpdated).toBeTruthy();
        await events.return?.();
        await until(() => lines.length === 2);
      } finally {
        single.dispose();
      }

      // GraphQL over SSE, distinct connections: the client closes its stream.
      const abort = new AbortController();
      const sse = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query, variables }),
        signal: abort.signal,
      });
      for await (const payload of payloadsOf(sse)) {
        expect((payload as any).data.spaceContentUpdated).toBeTruthy();
        break;
      }
      abort.abort();
      await until(() => lines.length === 3);
    });
    expect(lines.map(({ operationName, operationType, status }) => ({ operationName, operationType, status }))).toEqual(
      Array(3).fill({ operationName: 'Followed', operationType: 'subscription', status: 200 }),
    );
    // The stream lane's own requests (reserving, reading, closing it) are no operation, and have no line.
    expect(others).toEqual([]);
  });

  it('runs an operation over HTTP, SSE, WebSocket and both modes of /graphql/stream through the same hooks, each with its extensions and its log line', async () => {
    const lines: OperationReport[] = [];
    const operationLog = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const hooks = { onParams: 0, onExecute: 0, onResultProcess: 0 };
    const lane = (params: { query?: unknown }) => typeof params.query === 'string' && params.query.includes('Lane');
    const probe = {
      onParams: ({ params }: { params: { query?: unknown } }) => void (lane(params) && hooks.onParams++),
      onExecute: ({ args }: { args: { operationName?: string | null } }) =>
        void (args.operationName === 'Lane' && hooks.onExecute++),
      onResultProcess: ({ result }: { result: unknown }) =>
        void ((result as ExecutionResult)?.data?.viewer && hooks.onResultProcess++),
    };
    await withServer({ operationLog, plugins: [probe] }, {}, async ({ url }) => {
      const query = 'query Lane { viewer { email } }';
      const body = JSON.stringify({ query, operationName: 'Lane' });
      const headers = { authorization: `Bearer ${platform.adminToken}`, 'content-type': 'application/json' };
      platform.app.stats.reset();
      const answers: Record<string, any> = {};

      answers.http = await (await fetch(`${url}/graphql`, { method: 'POST', headers, body })).json();
      const sse = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body,
      });
      for await (const payload of payloadsOf(sse)) answers.sse = payload;
      const own = await fetch(`${url}/graphql/stream`, {
        method: 'POST',
        headers: { ...headers, accept: 'text/event-stream' },
        body,
      });
      for await (const payload of payloadsOf(own)) answers.streamOfItsOwn = payload;

      const ws = connect(url);
      await ws.init();
      ws.send({ id: 'lane', type: 'subscribe', payload: { query, operationName: 'Lane' } });
      answers.webSocket = (await ws.message('next', 'lane')).payload;
      ws.socket.close();

      const single = createSseClient({
        url: `${url}/graphql/stream`,
        singleConnection: true,
        headers: { authorization: `Bearer ${platform.adminToken}` },
        retryAttempts: 0,
      });
      try {
        answers.singleConnection = (await single.iterate<any>({ query, operationName: 'Lane' }).next()).value;
      } finally {
        single.dispose();
      }

      const lanes = ['http', 'sse', 'streamOfItsOwn', 'webSocket', 'singleConnection'];
      for (const name of lanes) {
        expect({ name, data: answers[name].data }).toEqual({ name, data: { viewer: { email: 'ada@acme.test' } } });
        expect(answers[name].extensions.cost, name).toMatchObject({ upstreamRequests: 1, maxUpstreamRequests: 1 });
      }
      expect(platform.app.stats.count).toBe(5);
      expect(hooks).toEqual({ onParams: 5, onExecute: 5, onResultProcess: 5 });
      await until(() => lines.filter((line) => line.operationName === 'Lane').length === 5);
      for (const line of lines.filter((entry) => entry.operationName === 'Lane'))
        expect(line).toMatchObject({ operationType: 'query', upstreamRequests: 1, errorCodes: [] });
    });
  });
});
