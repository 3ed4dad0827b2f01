import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../../src/gateway/errors.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { RestClient } from '../../src/gateway/upstream/client.js';
import { upstreamDedupe } from '../../src/gateway/upstream/dedupe.js';
import { reportExchanges, type Exchange, type UpstreamHook } from '../../src/gateway/upstream/hooks.js';
import { upstreamResilience } from '../../src/gateway/upstream/resilience.js';
import { COST_DASHBOARD } from '../fixtures/dashboards.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const ORIGIN = 'http://upstream.test';
const item = z.object({ id: z.string() });

describe('identical GETs in flight share one upstream request', () => {
  let agent: MockAgent;
  let client: RestClient;
  let sent: Exchange[];

  beforeEach(() => {
    agent = new MockAgent();
    agent.disableNetConnect();
    sent = [];
    // What reaches the platform is counted inside the sharing; every caller goes through it.
    client = new RestClient({
      baseUrl: `${ORIGIN}/v1`,
      dispatcher: agent,
      hooks: [reportExchanges((exchange) => sent.push(exchange)), ...upstreamResilience({ maxRetries: 0 }).hooks],
    }).withHooks([upstreamDedupe()]);
  });
  afterEach(async () => {
    agent.assertNoPendingInterceptors();
    await agent.close();
  });

  const get = (authorization: string, signal?: AbortSignal) =>
    client.request({ method: 'GET', path: '/spaces/s1', schema: item, authorization, signal });

  it('sends one GET for the same credentials, one per credentials, and each write', async () => {
    const pool = agent.get(ORIGIN);
    pool
      .intercept({ path: '/v1/spaces/s1', method: 'GET', headers: { authorization: 'Bearer a' } })
      .reply(200, { id: 'for a' });
    pool
      .intercept({ path: '/v1/spaces/s1', method: 'GET', headers: { authorization: 'Bearer b' } })
      .reply(200, { id: 'for b' });
    pool.intercept({ path: '/v1/spaces/s1', method: 'PATCH' }).reply(200, { id: 's1' }).times(2);
    const patch = () => client.request({ method: 'PATCH', path: '/spaces/s1', body: {}, authorization: 'Bearer a' });
    const answers = await Promise.all([get('Bearer a'), get('Bearer b'), get('Bearer a'), patch(), patch()]);
    expect(answers.map((answer) => answer.data)).toEqual([
      { id: 'for a' },
      { id: 'for b' },
      { id: 'for a' },
      undefined,
      undefined,
    ]);
    // Each caller parses its own copy of the body.
    expect(answers[0]!.data).not.toBe(answers[2]!.data);
    expect(sent.map((exchange) => exchange.method).sort()).toEqual(['GET', 'GET', 'PATCH', 'PATCH']);
  });

  it('sends a fresh GET (after a change it was told of) alone, and lets the GETs after it join it', async () => {
    const pool = agent.get(ORIGIN);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 'before the change' }).delay(50);
    pool.intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 'after the change' });
    const fresh = () =>
      client.request({ method: 'GET', path: '/spaces/s1', schema: item, authorization: 'Bearer a', fresh: true });
    const answers = await Promise.all([get('Bearer a'), fresh(), get('Bearer a')]);
    expect(answers.map((answer) => answer.data)).toEqual([
      { id: 'before the change' },
      { id: 'after the change' },
      { id: 'after the change' },
    ]);
    expect(sent).toHaveLength(2);
  });

  it('sends a GET again once the shared one answered', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 'first' });
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 'second' });
    expect((await get('Bearer a')).data).toEqual({ id: 'first' });
    expect((await get('Bearer a')).data).toEqual({ id: 'second' });
    expect(sent).toHaveLength(2);
  });

  it('gives every waiter the failure as its own error', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1', method: 'GET' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:80'), { code: 'ECONNREFUSED' }));
    const errors = await Promise.all([get('Bearer a'), get('Bearer a'), get('Bearer a')].map((p) => p.catch((e) => e)));
    for (const error of errors) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('UPSTREAM_UNAVAILABLE');
      expect((error as GatewayError).message).toBe('GET /spaces/s1 could not be reached (ECONNREFUSED)');
    }
    expect(new Set(errors).size).toBe(3);
    expect(sent).toHaveLength(1);
  });

  it('gives every waiter the timeout of the shared request', async () => {
    const hurried = new RestClient({
      baseUrl: `${ORIGIN}/v1`,
      dispatcher: agent,
      timeoutMs: 100,
      hooks: [
        reportExchanges((exchange) => sent.push(exchange)),
        ...upstreamResilience({ timeoutMs: 100, maxRetries: 0 }).hooks,
      ],
    }).withHooks([upstreamDedupe()]);
    // The answer's timer is set after the budget's: the budget always runs out first.
    agent.get(ORIGIN).intercept({ path: '/v1/slow', method: 'GET' }).reply(200, { id: 'x' }).delay(1000);
    const slow = () =>
      hurried.request({ method: 'GET', path: '/slow', schema: item }).then(
        () => undefined,
        (e: GatewayError) => e.code,
      );
    const errors = await Promise.all([slow(), slow()]);
    expect(errors).toEqual(['UPSTREAM_TIMEOUT', 'UPSTREAM_TIMEOUT']);
    expect(sent).toHaveLength(1);
  });

  it('lets a waiter whose client went away leave without cancelling the request for the others', async () => {
    agent.get(ORIGIN).intercept({ path: '/v1/spaces/s1', method: 'GET' }).reply(200, { id: 's1' });
    const gone = new AbortController();
    // The one that sent it leaves: the others still get the answer.
    const leaving = get('Bearer a', gone.signal).catch((e: GatewayError) => e);
    const staying = [get('Bearer a'), get('Bearer a', new AbortController().signal)];
    gone.abort();
    expect(await leaving).toMatchObject({ name: 'AbandonedRequestError' });
    expect((await Promise.all(staying)).map((answer) => answer.data)).toEqual([{ id: 's1' }, { id: 's1' }]);
    expect(sent).toEqual([expect.objectContaining({ status: 200 })]);
  });

  it('refuses an answer past a waiter’s own byte bound', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: '/v1/spaces/s1', method: 'GET' })
      .reply(200, { id: 'a'.repeat(100) });
    const [large, small] = await Promise.all([
      get('Bearer a'),
      client
        .request({ method: 'GET', path: '/spaces/s1', schema: item, authorization: 'Bearer a', maxBytes: 50 })
        .catch((e: GatewayError) => e),
    ]);
    expect(large.data.id).toHaveLength(100);
    expect(small).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', limit: 'responseBytes', max: 50 } });
    expect(sent).toHaveLength(1);
  });
});

describe('20 concurrent identical dashboards', () => {
  const N = 20;
  let platform: TestPlatform;
  let admin: string;
  let member: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    admin = platform.adminToken;
    member = platform.token('finn@acme.test');
  });
  afterAll(async () => {
    await platform.destroy();
  });

  /**
   * A gateway whose upstream requests wait until `expected(token)` GraphQL requests of that token
   * asked for the same path: every dashboard of a wave has asked before any of its answers comes,
   * however busy the machine (no timing involved).
   */
  function gatedGateway(upstreamDedupe: boolean, expected: (authorization: string) => number): Gateway {
    const asked = new Map<string, number>();
    const held = new Map<string, Array<() => void>>();
    const keyOf = (call: { headers: Record<string, string>; target: string }) =>
      `${call.headers.authorization}\u0000${call.target}`;
    const asking: UpstreamHook = {
      name: 'count the GraphQL requests asking',
      fetch(call, next) {
        const key = keyOf(call);
        const count = (asked.get(key) ?? 0) + 1;
        asked.set(key, count);
        if (count === expected(call.headers.authorization!)) for (const release of held.get(key) ?? []) release();
        return next(call);
      },
    };
    const gate: UpstreamHook = {
      name: 'hold each request until every dashboard asked',
      async fetch(call, next) {
        const key = keyOf(call);
        if ((asked.get(key) ?? 0) < expected(call.headers.authorization!))
          await new Promise<void>((resolve) => held.set(key, [...(held.get(key) ?? []), resolve]));
        return next(call);
      },
    };
    return createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      upstreamDedupe,
      clientOptions: { hooks: [gate] },
      plugins: [{ upstreamHooks: [asking] } as never],
    });
  }

  async function dashboards(gateway: Gateway, tokens: string[]) {
    platform.app.stats.reset();
    const answers = await Promise.all(
      tokens.map(async (token) => {
        const response = await gateway.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ query: COST_DASHBOARD }),
        });
        return (await response.json()) as { data?: unknown; errors?: unknown; extensions: { cost: Cost } };
      }),
    );
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    return { answers, sent: platform.app.stats.count };
  }
  interface Cost {
    upstreamRequests: number;
  }

  /** The platform's requests for one dashboard of `token`, alone. */
  async function one(token: string): Promise<{ sent: number; data: unknown }> {
    const gateway = gatedGateway(true, () => 1);
    try {
      const { answers, sent } = await dashboards(gateway, [token]);
      expect(answers[0]!.extensions.cost.upstreamRequests).toBe(sent);
      return { sent, data: answers[0]!.data };
    } finally {
      await gateway.close();
    }
  }

  it('cost the platform the requests of one, each reporting its own count', async () => {
    const alone = await one(admin);
    const gateway = gatedGateway(true, () => N);
    try {
      const { answers, sent } = await dashboards(gateway, Array(N).fill(admin));
      expect(sent).toBe(alone.sent);
      // The metrics count what the platform received.
      const metrics = await gateway.metrics.registry.getSingleMetricAsString('graphql_gateway_upstream_requests_total');
      const counted = metrics
        .split('\n')
        .filter((line) => line.startsWith('graphql_gateway_upstream_requests_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
      expect(counted).toBe(sent);
      for (const answer of answers) {
        expect(answer.data).toEqual(alone.data);
        expect(answer.extensions.cost.upstreamRequests).toBe(alone.sent);
      }
    } finally {
      await gateway.close();
    }
  });

  it('cost 20 times that with UPSTREAM_DEDUPE=0', async () => {
    const alone = await one(admin);
    const gateway = gatedGateway(false, () => N);
    try {
      const { sent } = await dashboards(gateway, Array(N).fill(admin));
      expect(sent).toBe(N * alone.sent);
    } finally {
      await gateway.close();
    }
  });

  it('never share a request between two tokens', async () => {
    const [ofAdmin, ofMember] = [await one(admin), await one(member)];
    const gateway = gatedGateway(true, () => N / 2);
    try {
      const tokens = Array.from({ length: N }, (_, index) => (index % 2 === 0 ? admin : member));
      const { answers, sent } = await dashboards(gateway, tokens);
      expect(sent).toBe(ofAdmin.sent + ofMember.sent);
      for (const [index, answer] of answers.entries())
        expect(answer.data).toEqual(index % 2 === 0 ? ofAdmin.data : ofMember.data);
    } finally {
      await gateway.close();
    }
  });
});
