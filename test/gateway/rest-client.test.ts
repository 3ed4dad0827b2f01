import { Readable } from 'node:stream';
import { type Dispatcher, MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { GatewayError, redactSecrets } from '../../src/gateway/errors.js';
import {
  RestClient,
  parseBody,
  parseRetryAfter,
  queryString,
  type Exchange,
} from '../../src/gateway/upstream/client.js';
import type { CircuitBreaker } from '../../src/gateway/upstream/breaker.js';
import { reportExchanges, type UpstreamHook } from '../../src/gateway/upstream/hooks.js';
import { pingThrough, upstreamResilience, type ResilienceOptions } from '../../src/gateway/upstream/resilience.js';

const ORIGIN = 'http://upstream.test';
const item = z.object({ id: z.string(), count: z.number() });

let agent: MockAgent;
let client: RestClient;
/** The breaker of `client`'s requests. */
let breaker: CircuitBreaker;
let exchanges: Exchange[];
let warnings: string[];

/**
 * A client with the hooks a gateway gives it: the time budget, retries and breaker of `resilience`,
 * with the exchanges reported once per request, outside them.
 */
function resilientClient(
  resilience: ResilienceOptions,
  options: { dispatcher?: Dispatcher; logger?: Pick<Console, 'warn'>; report?: boolean } = {},
): { client: RestClient; breaker: CircuitBreaker } {
  const { hooks, breaker } = upstreamResilience(resilience);
  const report = options.report === false ? [] : [reportExchanges((exchange) => exchanges.push(exchange))];
  return {
    client: new RestClient({
      baseUrl: `${ORIGIN}/v1`,
      dispatcher: options.dispatcher ?? agent,
      ...(resilience.timeoutMs === undefined ? {} : { timeoutMs: resilience.timeoutMs }),
      hooks: [...report, ...hooks],
      ...(options.logger ? { logger: options.logger } : {}),
    }),
    breaker,
  };
}

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  exchanges = [];
  warnings = [];
  ({ client, breaker } = resilientClient(
    {
      // The default budget: an answer meant to come is never cut off on a busy machine. The tests of
      // the timeout give a hang far past a small budget of their own, so that only it can hit it.
      timeoutMs: 10_000,
      // Waits below 1, 2 ms: retried tests do not depend on the draw.
      retryBaseDelayMs: 1,
    },
    { logger: { warn: (message) => warnings.push(message) } },
  ));
});

afterEach(async () => {
  vi.useRealTimers();
  agent.assertNoPendingInterceptors();
  await agent.close();
});

const refused = () => Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:80'), { code: 'ECONNREFUSED' });
const reset = () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });

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
    expect(response).toEqual({ status: 200, data: { id: 's1', count: 3 }, bytes: 39 });
    expect(exchanges).toEqual([expect.objectContaining({ method: 'GET', path: '/spaces/s1', status: 200 })]);
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
    expect(
      (await client.request({ method: 'PATCH', path: '/spaces/s1', body: { title: 'New' }, schema: item })).data,
    ).toEqual({
      id: 's1',
      count: 1,
    });
    expect(await client.request({ method: 'DELETE', path: '/spaces/s1' })).toEqual({
      status: 205,
      data: undefined,
      bytes: 0,
    });
    expect(await client.request({ method: 'DELETE', path: '/spaces/s2' })).toEqual({
      status: 204,
      data: undefined,
      bytes: 0,
    });
  });

  it("reads a body up to the request's bound and refuses a larger one with a coded error, not as a failure of the upstream", async () => {
    const big = { id: 's1', count: 1, text: 'x'.repeat(10_000) };
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, big).times(6);
    const within = await client.request({ method: 'GET', path: '/spaces/s1', schema: item, maxBytes: 10_100 });
    expect(within.bytes).toBe(JSON.stringify(big).length);
    for (let i = 0; i < 5; i += 1) {
      const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item, maxBytes: 1_000 }));
      expect(error.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        limit: 'responseBytes',
        max: 1_000,
        value: expect.any(Number),
      });
      expect(error.extensions.value as number).toBeGreaterThan(1_000);
    }
    // Five refusals in a row, yet the upstream answered every time: the breaker stays closed.
    expect(breaker.status().state).toBe('closed');
  });

  it('downloads a signed URL up to the bound asked for, and refuses a larger answer as too large for the caller', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/files/spec.json?sig=abc', method: 'GET' })
      .reply(200, 'x'.repeat(5_000), { headers: { 'content-type': 'application/json' } })
      .times(2);
    expect(await client.download(`${ORIGIN}/v1/files/spec.json?sig=abc`, 5_000)).toEqual({
      text: 'x'.repeat(5_000),
      contentType: 'application/json',
    });
    const error = await failure(client.download(`${ORIGIN}/v1/files/spec.json?sig=abc`, 4_000));
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'responseBytes', max: 4_000 });
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
    // A GET answered 502, 503 or 504 is tried twice more before the answer is reported.
    const tries = [502, 503, 504].includes(status) ? 3 : 1;
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/orgs/o1', method: 'GET' })
      .reply(status, { error: { code: status, message: `upstream says ${status}` } })
      .times(tries);
    const error = await failure(client.request({ method: 'GET', path: '/orgs/o1', schema: item }));
    expect(error.code).toBe(code);
    expect(error.message).toBe(`upstream says ${status}`);
    expect(error.extensions).toEqual({ code, upstreamStatus: status });
    expect(exchanges).toEqual([expect.objectContaining({ status, retries: tries - 1 })]);
  });

  it('describes a failure without a JSON body by its route, without the query string', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1?shareKey=hidden', method: 'GET' })
      .reply(502, '<html>bad gateway</html>')
      .times(3);
    const error = await failure(
      client.request({ method: 'GET', path: '/spaces/s1', query: { shareKey: 'hidden' }, schema: item }),
    );
    expect(error.message).toBe('GET /spaces/s1 answered 502');
    expect(error.message).not.toContain('hidden');
  });

  it('reports a body that breaks the documented shape as UPSTREAM_INVALID_RESPONSE naming the field, not the value', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 'three' });
    const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item }));
    expect(error.code).toBe('UPSTREAM_INVALID_RESPONSE');
    expect(error.message).toBe(
      'GET /spaces/s1 answered a body that does not match the API at count: Invalid input: expected number, received string',
    );
    expect(error.extensions).toEqual({ code: 'UPSTREAM_INVALID_RESPONSE' });
    expect(warnings).toEqual([`Invalid upstream answer (logged once per operation and field): ${error.message}`]);
  });

  it('gives up after the timeout with UPSTREAM_TIMEOUT', async () => {
    // The answer's timer is set after the budget's: the budget always runs out first.
    agent.get(ORIGIN).intercept({ path: '/v1/slow', method: 'GET' }).reply(200, { id: 'x', count: 1 }).delay(1000);
    const { client: hurried } = resilientClient({ timeoutMs: 200 });
    const error = await failure(hurried.request({ method: 'GET', path: '/slow', schema: item }));
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(exchanges[0]?.status).toBeUndefined();
  });

  it('reports an unreachable upstream as UPSTREAM_UNAVAILABLE', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/down', method: 'GET' }).replyWithError(refused()).times(3);
    const error = await failure(client.request({ method: 'GET', path: '/down', schema: item }));
    expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).toBe('GET /down could not be reached (ECONNREFUSED)');
    expect(exchanges).toEqual([expect.objectContaining({ status: undefined, retries: 2 })]);
  });

  it('never lets credentials embedded in URLs or bearer tokens through an error message', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1/git/import', method: 'POST' })
      .reply(400, {
        error: { code: 400, message: 'cannot clone https://bot:ghp_SECRET@git.test/acme/docs.git (Bearer abc.def)' },
      });
    const error = await failure(
      client.request({
        method: 'POST',
        path: '/spaces/s1/git/import',
        body: { url: 'https://bot:ghp_SECRET@git.test/acme/docs.git' },
      }),
    );
    expect(error.message).toBe('cannot clone https://***@git.test/acme/docs.git (Bearer ***)');
  });
});

describe('RestClient retries', () => {
  it('retries a GET after a 503 and a reset connection, and reports one exchange with its retries', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(503, { error: { code: 503, message: 'busy' } });
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).replyWithError(reset());
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 1 });
    const own: Exchange[] = [];
    const before = performance.now();
    // Hooks a gateway adds around the client's own see the same exchange.
    const response = await client.withHooks([reportExchanges((e) => own.push(e))]).request({
      method: 'GET',
      path: '/spaces/s1',
      schema: item,
    });
    expect(response).toEqual({ status: 200, data: { id: 's1', count: 1 }, bytes: expect.any(Number) });
    expect(exchanges).toEqual([
      {
        method: 'GET',
        path: '/spaces/s1',
        status: 200,
        retries: 2,
        // Sent without its operation record: no template names it, and never its path with the id.
        route: '(other)',
        startedAt: expect.any(Number),
        endedAt: expect.any(Number),
      },
    ]);
    expect(own).toEqual(exchanges);
    expect(exchanges[0]!.startedAt).toBeGreaterThanOrEqual(before);
    expect(exchanges[0]!.endedAt).toBeGreaterThan(exchanges[0]!.startedAt);
  });

  it('retries a GET after "other side closed" (a keep-alive connection the upstream closed)', async () => {
    const closed = Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' });
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).replyWithError(closed);
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 1 });
    expect((await client.request({ method: 'GET', path: '/spaces/s1', schema: item })).data).toEqual({
      id: 's1',
      count: 1,
    });
    expect(exchanges[0]?.retries).toBe(1);
  });

  it('gives up after two retries with the last answer', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).replyWithError(reset());
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(504, '').times(2);
    const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item }));
    expect(error.extensions).toEqual({ code: 'UPSTREAM_TIMEOUT', upstreamStatus: 504 });
    expect(exchanges).toEqual([expect.objectContaining({ status: 504, retries: 2 })]);
  });

  it('does not retry a GET answered 500 or 4xx', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/a', method: 'GET' }).reply(500, '');
    agent.get(ORIGIN).intercept({ path: '/v1/b', method: 'GET' }).reply(404, '');
    expect((await failure(client.request({ method: 'GET', path: '/a' }))).code).toBe('UPSTREAM_UNAVAILABLE');
    expect((await failure(client.request({ method: 'GET', path: '/b' }))).code).toBe('NOT_FOUND');
    expect(exchanges.map((e) => e.retries)).toEqual([0, 0]);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'] as const)('never sends a %s twice once it went out', async (method) => {
    agent.get(ORIGIN).intercept({ path: '/v1/w/503', method }).reply(503, '');
    agent.get(ORIGIN).intercept({ path: '/v1/w/reset', method }).replyWithError(reset());
    expect((await failure(client.request({ method, path: '/w/503', body: {} }))).extensions).toEqual({
      code: 'UPSTREAM_UNAVAILABLE',
      upstreamStatus: 503,
    });
    expect((await failure(client.request({ method, path: '/w/reset', body: {} }))).message).toBe(
      `${method} /w/reset could not be reached (ECONNRESET)`,
    );
    expect(exchanges.map((e) => [e.status, e.retries])).toEqual([
      [503, 0],
      [undefined, 0],
    ]);
  });

  it('sends a write again when its connection was refused, since nothing went out', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces', method: 'POST' }).replyWithError(refused());
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces', method: 'POST', body: '{"title":"T"}' })
      .reply(201, { id: 's9', count: 0 });
    const response = await client.request({ method: 'POST', path: '/spaces', body: { title: 'T' }, schema: item });
    expect(response).toEqual({ status: 201, data: { id: 's9', count: 0 }, bytes: expect.any(Number) });
    expect(exchanges[0]?.retries).toBe(1);
  });

  /**
   * A client on a clock the test moves (`performance.now` and the timers of each try's budget), over
   * a dispatcher that answers each try as `answer` says: time passes only when the test says so.
   */
  function onTestClock(answer: (attempt: number, signal: AbortSignal) => Promise<Dispatcher.ResponseData>) {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const tries: AbortSignal[] = [];
    const dispatcher = {
      request: (options: Dispatcher.RequestOptions) => {
        tries.push(options.signal as AbortSignal);
        return answer(tries.length, options.signal as AbortSignal);
      },
    } as unknown as Dispatcher;
    const { client: timed } = resilientClient(
      // A wait below 1 ms between tries (a real one: node:timers/promises is not faked).
      { timeoutMs: 200, retryBaseDelayMs: 1 },
      { dispatcher },
    );
    return { timed, tries };
  }
  const status503 = () => Promise.resolve({ statusCode: 503, headers: {}, body: Readable.from([]) } as never);
  /** A try that never answers: it ends when its budget aborts it. */
  const hang = (signal: AbortSignal) =>
    new Promise<never>((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));

  it('keeps every try and wait within timeoutMs: a try gets what is left of it, not a budget of its own', async () => {
    // The first try takes 120 ms of the 200 ms budget and is answered 503; the second hangs.
    let secondTry!: () => void;
    const second = new Promise<void>((resolve) => (secondTry = resolve));
    const { timed, tries } = onTestClock((attempt, signal) => {
      if (attempt > 1) {
        secondTry();
        return hang(signal);
      }
      vi.advanceTimersByTime(120);
      return status503();
    });
    const outcome = failure(timed.request({ method: 'GET', path: '/slow' }));
    await second;
    // The second try is cut off once the 80 ms left are spent, not 200 ms after it began.
    vi.advanceTimersByTime(79);
    expect(tries[1]!.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(tries[1]!.aborted).toBe(true);
    const error = await outcome;
    expect(error.code).toBe('UPSTREAM_TIMEOUT');
    expect(error.message).toBe('GET /slow did not answer within 200 ms (2 tries)');
    expect(tries).toHaveLength(2);
    expect(exchanges).toEqual([expect.objectContaining({ status: undefined, retries: 1 })]);
  });

  it('starts no try it has no time for: a 503 at the end of the budget is the answer', async () => {
    const { timed, tries } = onTestClock(() => {
      vi.advanceTimersByTime(200);
      return status503();
    });
    const error = await failure(timed.request({ method: 'GET', path: '/slow' }));
    expect(error.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE', upstreamStatus: 503 });
    expect(tries).toHaveLength(1);
    expect(exchanges).toEqual([expect.objectContaining({ status: 503, retries: 0 })]);
  });
});

describe('RestClient and 429', () => {
  it('waits a Retry-After that fits in the budget and tries a GET once more', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': '0' } });
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 2 });
    expect((await client.request({ method: 'GET', path: '/spaces/s1', schema: item })).data).toEqual({
      id: 's1',
      count: 2,
    });
    expect(exchanges[0]).toMatchObject({ status: 200, retries: 1 });
  });

  it('waits for a Retry-After only once', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': '0' } })
      .times(2);
    const error = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item }));
    expect(error.extensions).toEqual({ code: 'RATE_LIMITED', upstreamStatus: 429, retryAfter: 0 });
    expect(exchanges[0]).toMatchObject({ status: 429, retries: 1 });
  });

  it('fails at once with RATE_LIMITED and retryAfter in seconds when the wait does not fit', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/a', method: 'GET' })
      .reply(429, { error: { code: 429, message: 'slow down' } }, { headers: { 'retry-after': '120' } });
    const inThirty = new Date(Date.now() + 30_000).toUTCString();
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/b', method: 'GET' })
      .reply(429, '', { headers: { 'retry-after': inThirty } });
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/c', method: 'POST' })
      .reply(429, '', { headers: { 'retry-after': '0' } });
    agent.get(ORIGIN).intercept({ path: '/v1/d', method: 'GET' }).reply(429, '');
    const a = await failure(client.request({ method: 'GET', path: '/a' }));
    expect(a.message).toBe('slow down');
    expect(a.extensions).toEqual({ code: 'RATE_LIMITED', upstreamStatus: 429, retryAfter: 120 });
    const asked = Date.now();
    const b = await failure(client.request({ method: 'GET', path: '/b' }));
    // The whole seconds from when it was read to the date (29 or 30: the date drops milliseconds).
    expect(b.extensions.retryAfter).toBeGreaterThanOrEqual(Math.ceil((Date.parse(inThirty) - Date.now()) / 1000));
    expect(b.extensions.retryAfter).toBeLessThanOrEqual(Math.ceil((Date.parse(inThirty) - asked) / 1000));
    // A write is never sent twice, whatever the upstream says.
    expect((await failure(client.request({ method: 'POST', path: '/c' }))).extensions).toEqual({
      code: 'RATE_LIMITED',
      upstreamStatus: 429,
      retryAfter: 0,
    });
    expect((await failure(client.request({ method: 'GET', path: '/d' }))).extensions).toEqual({
      code: 'RATE_LIMITED',
      upstreamStatus: 429,
    });
    expect(exchanges.map((e) => e.retries)).toEqual([0, 0, 0, 0]);
  });

  it('parseRetryAfter reads delay-seconds and HTTP dates', () => {
    const now = Date.parse('2025-01-01T12:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    for (const bad of ['', 'soon', '-1', '1.5', 'Wed, 99 Foo 2025']) expect(parseRetryAfter(bad, now)).toBeUndefined();
  });
});

describe('RestClient circuit breaker', () => {
  let breaking: RestClient;
  let breakingBreaker: CircuitBreaker;
  const T0 = Date.parse('2025-01-01T12:00:00Z');

  beforeEach(() => {
    // Only Date is faked: the breaker's clock moves on command, undici's timers stay real.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(T0);
    ({ client: breaking, breaker: breakingBreaker } = resilientClient({
      maxRetries: 0,
      breakerThreshold: 2,
      breakerCooldownMs: 1000,
    }));
  });

  it('opens after the threshold of failures in a row, fails fast, and closes after a successful probe', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(503, '');
    pool.intercept({ path: '/v1/a', method: 'GET' }).replyWithError(reset());
    expect((await failure(breaking.request({ method: 'GET', path: '/a' }))).upstreamStatus).toBe(503);
    expect(breakingBreaker.status()).toEqual({ state: 'closed', consecutiveFailures: 1, reopensAt: undefined });
    await failure(breaking.request({ method: 'GET', path: '/a' }));
    expect(breakingBreaker.status()).toEqual({ state: 'open', consecutiveFailures: 2, reopensAt: T0 + 1000 });

    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(200, { id: 'a', count: 1 });
    const fast = await failure(breaking.request({ method: 'POST', path: '/a' }));
    expect(fast.extensions).toEqual({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(fast.message).toBe(
      'The platform is failing (2 failed requests in a row), so POST /a was not sent: it will be tried again at 2025-01-01T12:00:01.000Z (in 1.0 s)',
    );
    expect(agent.pendingInterceptors()).toHaveLength(1);
    expect(exchanges.at(-1)).toMatchObject({ method: 'POST', status: undefined, retries: 0 });

    vi.setSystemTime(T0 + 1000);
    expect(breakingBreaker.status().state).toBe('half-open');
    expect((await breaking.request({ method: 'GET', path: '/a', schema: item })).data).toEqual({ id: 'a', count: 1 });
    expect(breakingBreaker.status()).toEqual({ state: 'closed', consecutiveFailures: 0, reopensAt: undefined });
  });

  it('reopens when the probe fails, and refuses other requests while the probe is out', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(502, '').times(2);
    await failure(breaking.request({ method: 'GET', path: '/a' }));
    await failure(breaking.request({ method: 'GET', path: '/a' }));
    vi.setSystemTime(T0 + 1500);
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(503, '').delay(30);
    const probe = failure(breaking.request({ method: 'GET', path: '/a' }));
    const meanwhile = await failure(breaking.request({ method: 'GET', path: '/a' }));
    expect(meanwhile.message).toBe(
      'The platform is failing (2 failed requests in a row), so GET /a was not sent: a trial request is under way, and it will be tried again once that one answers',
    );
    expect((await probe).upstreamStatus).toBe(503);
    expect(breakingBreaker.status()).toEqual({ state: 'open', consecutiveFailures: 3, reopensAt: T0 + 2500 });
  });

  it('does not count 4xx answers as failures, and a success resets the count', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(503, '');
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(404, '');
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(429, '');
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(500, '');
    for (let i = 0; i < 4; i += 1) await failure(breaking.request({ method: 'GET', path: '/a' }));
    expect(breakingBreaker.status()).toEqual({ state: 'closed', consecutiveFailures: 1, reopensAt: undefined });
  });

  it('counts timeouts and lets the base URL ping be its probe', async () => {
    const pool = agent.get(ORIGIN);
    // Answers whose timers are set after the 200 ms budget's: only the budget can end these tries.
    pool.intercept({ path: '/v1/a', method: 'GET' }).reply(200, {}).delay(1000).times(2);
    const { client: hurried, breaker: hurriedBreaker } = resilientClient(
      { timeoutMs: 200, maxRetries: 0, breakerThreshold: 2, breakerCooldownMs: 1000 },
      { report: false },
    );
    await failure(hurried.request({ method: 'GET', path: '/a' }));
    await failure(hurried.request({ method: 'GET', path: '/a' }));
    expect(hurriedBreaker.status().state).toBe('open');
    expect(await pingThrough(hurriedBreaker, hurried)).toEqual({
      reachable: false,
      durationMs: 0,
      reason: 'the circuit breaker is open',
    });
    vi.setSystemTime(T0 + 1000);
    pool.intercept({ path: '/v1', method: 'GET' }).reply(404, '');
    // The probe, with a budget a busy machine cannot spend on an answer that is there.
    expect(await pingThrough(hurriedBreaker, hurried, 10_000)).toEqual({
      reachable: true,
      status: 404,
      durationMs: expect.any(Number),
    });
    expect(hurriedBreaker.status().state).toBe('closed');
  });
});

describe('RestClient hooks', () => {
  it('alone, sends each request once, bounded by its pool: budget, retries and breaker are hooks its owner gives', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(503, '');
    // Answered in 20 ms: a try without a deadline arms no timer (one of Infinity, Node fires after 1 ms).
    pool.intercept({ path: '/v1/files/spec.json?sig=abc', method: 'GET' }).reply(200, '{}').delay(20);
    const bare = new RestClient({ baseUrl: `${ORIGIN}/v1`, dispatcher: agent });
    expect((await failure(bare.request({ method: 'GET', path: '/spaces/s1' }))).upstreamStatus).toBe(503);
    expect(await bare.download(`${ORIGIN}/v1/files/spec.json?sig=abc`, 1_000)).toEqual({
      text: '{}',
      contentType: undefined,
    });
  });

  it('runs them around the one fetch, first outermost, once per request whatever its tries', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(503, { error: { code: 503, message: 'busy' } });
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1', count: 1 });
    const seen: string[] = [];
    const hook = (name: string): UpstreamHook => ({
      name,
      async fetch(call, next) {
        seen.push(`${name} before (${call.tries} tries)`);
        const answer = await next(call);
        seen.push(`${name} after: ${answer.status} (${call.tries} tries)`);
        return answer;
      },
    });
    const hooked = new RestClient({
      baseUrl: `${ORIGIN}/v1`,
      dispatcher: agent,
      hooks: [hook('inner'), ...upstreamResilience({ retryBaseDelayMs: 1 }).hooks],
    });
    const response = await hooked
      .withHooks([hook('outer')])
      .request({ method: 'GET', path: '/spaces/s1', schema: item });
    expect(response.data).toEqual({ id: 's1', count: 1 });
    expect(seen).toEqual([
      'outer before (0 tries)',
      'inner before (0 tries)',
      'inner after: 200 (2 tries)',
      'outer after: 200 (2 tries)',
    ]);
  });

  it('lets a hook answer instead of the fetch', async () => {
    const answering: UpstreamHook = {
      name: 'answer from memory',
      fetch: async () => ({ status: 200, headers: {}, text: '{"id":"kept","count":2}', bytes: 23 }),
    };
    const response = await client.withHooks([answering]).request({ method: 'GET', path: '/spaces/s1', schema: item });
    expect(response).toEqual({ status: 200, data: { id: 'kept', count: 2 }, bytes: 23, etag: undefined });
    expect(exchanges).toEqual([]);
  });
});

describe('RestClient ping', () => {
  it('finds the upstream reachable when its base URL answers below 500', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1', method: 'GET' }).reply(401, '');
    agent.get(ORIGIN).intercept({ path: '/v1', method: 'GET' }).reply(503, '');
    agent.get(ORIGIN).intercept({ path: '/v1', method: 'GET' }).replyWithError(refused());
    expect(await client.ping()).toMatchObject({ reachable: true, status: 401 });
    expect(await client.ping()).toMatchObject({ reachable: false, status: 503, reason: 'GET /v1 answered 503' });
    expect(await client.ping()).toMatchObject({
      reachable: false,
      reason: 'GET /v1 could not be reached (ECONNREFUSED)',
    });
    expect(exchanges).toEqual([]);
  });
});

describe('RestClient and invalid answers', () => {
  const list = z.object({ items: z.array(item) });

  it('reports malformed JSON and bodies that are not objects as UPSTREAM_INVALID_RESPONSE, without retrying', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, '{"id": "s1", "count":');
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s2', method: 'GET' }).reply(200, '"s2"');
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s3', method: 'GET' }).reply(200, '');
    const malformed = await failure(client.request({ method: 'GET', path: '/spaces/s1', schema: item }));
    expect(malformed.extensions).toEqual({ code: 'UPSTREAM_INVALID_RESPONSE' });
    expect(malformed.message).toBe('GET /spaces/s1 answered a body that is not JSON');
    expect((await failure(client.request({ method: 'GET', path: '/spaces/s2', schema: item }))).message).toBe(
      'GET /spaces/s2 answered a body that is not a JSON object',
    );
    expect((await failure(client.request({ method: 'GET', path: '/spaces/s3', schema: item }))).message).toBe(
      'GET /spaces/s3 answered no body',
    );
    expect(exchanges.map((e) => [e.status, e.retries])).toEqual([
      [200, 0],
      [200, 0],
      [200, 0],
    ]);
    expect(breaker.status().consecutiveFailures).toBe(0);
  });

  it('logs an invalid operation and field once, whatever the ids and list positions', async () => {
    const broken = (at: number) => ({
      items: Array.from({ length: 10 }, (_, i) => ({ id: `i${i}`, count: i === at ? 'secret-value' : i })),
    });
    agent.get(ORIGIN).intercept({ path: '/v1/orgs/AbC123/spaces', method: 'GET' }).reply(200, broken(3));
    agent.get(ORIGIN).intercept({ path: '/v1/orgs/XyZ789/spaces', method: 'GET' }).reply(200, broken(7));
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/orgs/XyZ789/spaces', method: 'GET' })
      .reply(200, { items: [{ id: 1, count: 1 }] });
    const first = await failure(client.request({ method: 'GET', path: '/orgs/AbC123/spaces', schema: list }));
    expect(first.message).toBe(
      'GET /orgs/AbC123/spaces answered a body that does not match the API at items.3.count: Invalid input: expected number, received string',
    );
    expect(first.message).not.toContain('secret-value');
    expect(
      (await failure(client.request({ method: 'GET', path: '/orgs/XyZ789/spaces', schema: list }))).message,
    ).toContain('at items.7.count');
    expect(
      (await failure(client.request({ method: 'GET', path: '/orgs/XyZ789/spaces', schema: list }))).message,
    ).toContain('at items.0.id');
    expect(warnings).toEqual([
      `Invalid upstream answer (logged once per operation and field): ${first.message}`,
      expect.stringContaining('GET /orgs/XyZ789/spaces answered a body that does not match the API at items.0.id'),
    ]);
  });

  it('logs through the client when a body it returned is parsed later (as the per-request cache does)', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1' });
    const { data } = await client.request({ method: 'GET', path: '/spaces/s1', schema: z.unknown() });
    expect(() => parseBody(item, data, 'GET', '/spaces/s1')).toThrow(
      expect.objectContaining({
        code: 'UPSTREAM_INVALID_RESPONSE',
        message:
          'GET /spaces/s1 answered a body that does not match the API at count: Invalid input: expected number, received undefined',
      }),
    );
    expect(() => parseBody(item, data, 'GET', '/spaces/s1')).toThrow();
    expect(warnings).toHaveLength(1);
    // A body that did not come from a client is still refused, with nobody to log it.
    expect(() => parseBody(item, { id: 1 }, 'GET', '/x')).toThrow(
      expect.objectContaining({ code: 'UPSTREAM_INVALID_RESPONSE' }),
    );
    expect(warnings).toHaveLength(1);
  });
});

describe('helpers', () => {
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
    expect(redactSecrets('https://git.test/a?access_token=ghp_abc&ref=main')).toBe(
      'https://git.test/a?access_token=***&ref=main',
    );
    expect(redactSecrets('GET /spaces/x?shareKey=s3cret')).toBe('GET /spaces/x?shareKey=***');
    expect(redactSecrets('mail me at ada@acme.test')).toBe('mail me at ada@acme.test');
  });

  it('masks bearer tokens but leaves prose about them alone', () => {
    expect(redactSecrets('sent Authorization: Bearer D7XyqB37fR7o1zHF8XMK')).toBe('sent Authorization: Bearer ***');
    expect(redactSecrets('bearer abc.def-ghi')).toBe('bearer ***');
    expect(redactSecrets('Unsupported authorization scheme: only Bearer tokens are accepted')).toBe(
      'Unsupported authorization scheme: only Bearer tokens are accepted',
    );
    expect(redactSecrets('Bearer tokenABC123')).toBe('Bearer ***');
  });
});
