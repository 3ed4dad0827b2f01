import { createSchema, createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useMultipartSubscriptions } from '../../src/gateway/http/multipart-subscriptions.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

const APOLLO_ACCEPT = 'multipart/mixed;boundary="graphql";subscriptionSpec=1.0,application/json';

/** A subscription that sends `count` numbers, `gapMs` apart, and notes when it is ended. */
function countingYoga(heartbeatMs: number) {
  const ended: string[] = [];
  const yoga = createYoga({
    logging: false,
    plugins: [useMultipartSubscriptions(heartbeatMs)],
    schema: createSchema({
      typeDefs: 'type Query { ok: Boolean } type Subscription { count(to: Int!, gapMs: Int!): Int }',
      resolvers: {
        Subscription: {
          count: {
            subscribe: async function* (_: unknown, { to, gapMs }: { to: number; gapMs: number }) {
              try {
                for (let n = 1; n <= to; n += 1) {
                  await new Promise((resolve) => setTimeout(resolve, gapMs));
                  yield { count: n };
                }
              } finally {
                ended.push('ended');
              }
            },
          },
        },
      },
    }),
  });
  const subscribe = (to: number, gapMs: number, signal?: AbortSignal) =>
    yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      signal,
      headers: { 'content-type': 'application/json', accept: APOLLO_ACCEPT },
      body: JSON.stringify({ query: `subscription { count(to: ${to}, gapMs: ${gapMs}) }` }),
    });
  return { subscribe, ended };
}

/** The JSON bodies of a multipart body's parts, as Apollo Client reads them (split on `\r\n--graphql`). */
function partsOf(text: string): unknown[] {
  return text
    .split('\r\n--graphql')
    .slice(1)
    .filter((part) => part !== '--\r\n' && part.includes('\r\n\r\n'))
    .map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)));
}

describe("subscriptions over HTTP multipart (Apollo's protocol)", () => {
  it('sends each event as a payload part, then the closing boundary', async () => {
    const { subscribe, ended } = countingYoga(60_000);
    const response = await subscribe(3, 1);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('multipart/mixed;boundary="graphql";subscriptionSpec=1.0');
    const text = await response.text();
    expect(text.startsWith('\r\n--graphql\r\ncontent-type: application/json; charset=utf-8\r\n\r\n')).toBe(true);
    expect(text.endsWith('\r\n--graphql--\r\n')).toBe(true);
    expect(partsOf(text)).toEqual([1, 2, 3].map((count) => ({ payload: { data: { count } } })));
    expect(ended).toEqual(['ended']);
  });

  it('sends an empty part while no event comes, which the client skips', async () => {
    const { subscribe } = countingYoga(10);
    const text = await (await subscribe(1, 100)).text();
    const parts = partsOf(text);
    expect(parts.filter((part) => JSON.stringify(part) === '{}').length).toBeGreaterThan(0);
    expect(parts.at(-1)).toEqual({ payload: { data: { count: 1 } } });
  });

  it('ends the subscription when the client goes away', async () => {
    const { subscribe, ended } = countingYoga(60_000);
    const controller = new AbortController();
    const response = await subscribe(1000, 5, controller.signal);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    controller.abort();
    await until(() => ended.length > 0);
    expect(ended).toEqual(['ended']);
  });

  it('leaves an answer that is not a stream as it was', async () => {
    const plain = await createYoga({
      logging: false,
      plugins: [useMultipartSubscriptions()],
      schema: createSchema({ typeDefs: 'type Query { ok: Boolean }', resolvers: { Query: { ok: () => true } } }),
    }).fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: APOLLO_ACCEPT },
      body: JSON.stringify({ query: '{ ok }' }),
    });
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(await plain.json()).toEqual({ data: { ok: true } });
  });
});

describe('406, naming what the client sent', () => {
  let platform: TestPlatform;
  let gateway: Gateway;
  beforeAll(async () => {
    platform = await startTestPlatform({ seed: false });
    gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
  });
  afterAll(async () => {
    await gateway.close();
    await platform.destroy();
  });

  /** The 406 a request accepting only `accept` gets for `query`: its one error. */
  async function refusal(accept: string, query: string) {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query }),
    });
    expect(response.status).toBe(406);
    const [error] = (await response.json()).errors;
    expect(error.extensions).toEqual({ code: 'BAD_USER_INPUT', reason: 'NOT_ACCEPTABLE' });
    return error as { message: string };
  }

  it('says which Accept was sent and which formats a subscription can come in', async () => {
    const error = await refusal('application/json', 'subscription { spaceContentUpdated(spaceId: "s1") { id } }');
    expect(error.message).toContain('The Accept header sent (application/json)');
    expect(error.message).toContain('text/event-stream');
    expect(error.message).toContain('subscriptionSpec=1.0');
    expect(error.message).not.toMatch(/come in: application\/json/);
  });

  it('says which formats a query can come in', async () => {
    const error = await refusal('image/png', '{ __typename }');
    expect(error.message).toContain('The Accept header sent (image/png)');
    expect(error.message).toContain('application/json');
  });
});
