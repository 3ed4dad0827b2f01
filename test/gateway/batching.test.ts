import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let platform: TestPlatform;
let gateway: Gateway;
/** Admin alice and the spaces Guide and Runbooks. */
let org: TestOrg;
const spaceIds: Record<string, string> = {};
const log: Array<Record<string, any>> = [];
const POINTS = 1000;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, { id: 'batched', members: { alice: 'admin' } });
  for (const title of ['Guide', 'Runbooks']) spaceIds[title] = await org.space(title);
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    limits: { maxBatchOperations: 3, maxNodes: 1000 },
    rateLimits: { points: POINTS, windowMs: 60_000, failOpen: false },
    responseCache: { ttlMs: 60_000 },
    operationLog: pino({ level: 'info' }, { write: (line: string) => void log.push(JSON.parse(line)) }),
  });
});

afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

const SPACE = 'query BatchedSpace($id: ID!) { space(id: $id) { title } }';
const WITH_ORG = 'query BatchedSpaceWithOrg($id: ID!) { space(id: $id) { title organization { title } } }';

/** Sends `body` as alice; answers the status, the body and the requests the platform received for it. */
const send = (body: unknown) => postGraphQL(gateway, platform, body, { authorization: `Bearer ${org.token('alice')}` });

/** `send`, with the answer's headers. */
async function sendWithHeaders(body: unknown) {
  platform.app.stats.reset();
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token('alice')}` },
    body: JSON.stringify(body),
  });
  const headers = Object.fromEntries(response.headers);
  return { status: response.status, body: await response.json(), upstream: platform.app.stats.count, headers };
}

describe('batched requests', () => {
  it('answers each operation in order, with its own cost and rate limit, and charges their sum', async () => {
    log.length = 0;
    const before = await send({ query: '{ rateLimit { remaining } }' });
    const { status, body, upstream, headers } = await sendWithHeaders([
      { query: SPACE, variables: { id: spaceIds.Guide } },
      { query: WITH_ORG, variables: { id: spaceIds.Runbooks } },
    ]);
    expect(status).toBe(200);
    expect(body).toHaveLength(2);
    expect(body.map((answer: any) => answer.data.space.title)).toEqual(['Guide', 'Runbooks']);
    expect(body.map((answer: any) => answer.errors)).toEqual([undefined, undefined]);
    // One request for the first, two for the second: each counts its own.
    expect(body.map((answer: any) => answer.extensions.cost.upstreamRequests)).toEqual([1, 2]);
    expect(body.map((answer: any) => answer.extensions.cost.maxUpstreamRequests)).toEqual([1, 2]);
    expect(upstream).toBe(3);
    expect(body.map((answer: any) => answer.extensions.rateLimit.cost)).toEqual([1, 2]);
    const remaining = before.body.data.rateLimit.remaining;
    const after = await send({ query: '{ rateLimit { remaining } }' });
    expect(after.body.data.rateLimit.remaining).toBe(remaining - 3);
    // The headers say the caller's budget once the whole batch settled.
    expect(headers['x-ratelimit-remaining']).toBe(String(remaining - 3));
    expect(headers['x-ratelimit-used']).toBe(String(POINTS - remaining + 3));
    // One log line per operation, named, with the request's id.
    const lines = log.filter((line) => line.operationName?.startsWith('BatchedSpace'));
    expect(lines.map((line) => [line.operationName, line.upstreamRequests, line.status])).toEqual([
      ['BatchedSpace', 1, 200],
      ['BatchedSpaceWithOrg', 2, 200],
    ]);
    expect(lines[0]!.requestId).toBe(lines[1]!.requestId);
  });

  it('explains each operation of an explained batch on its own', async () => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${org.token('alice')}`, 'x-explain': '1' },
      body: JSON.stringify([
        { query: SPACE, variables: { id: spaceIds.Guide } },
        { query: WITH_ORG, variables: { id: spaceIds.Runbooks } },
      ]),
    });
    const body = (await response.json()) as any[];
    expect(body.map((answer) => answer.extensions.explain.requests.length)).toEqual([1, 2]);
    expect(body[0].extensions.explain.requests[0].path).toBe(`/spaces/${spaceIds.Guide}`);
  });

  it('logs each operation with the status it would have had alone, even one refused before it ran', async () => {
    const operations = [
      { query: SPACE, variables: { id: spaceIds.Guide } },
      { query: '{ organizations(first: 1000) { nodes { spaces(first: 1000) { nodes { title } } } } }' },
      { documentId: `sha256:${'0'.repeat(64)}` },
    ];
    const alone = [];
    for (const operation of operations) alone.push((await send(operation)).status);
    log.length = 0;
    const { body } = await send(operations);
    expect(body).toHaveLength(3);
    const lines = log.filter((line) => line.msg === 'operation');
    expect(lines.map((line) => line.status)).toEqual(alone);
    expect(lines.map((line) => [line.operationName, line.errorCodes])).toEqual([
      ['BatchedSpace', []],
      [null, ['BAD_USER_INPUT']],
      [null, body[2].errors.map((error: any) => error.extensions.code)],
    ]);
  });

  it('answers from the response cache per operation', async () => {
    const variables = { id: spaceIds.Guide };
    await send({ query: SPACE, variables });
    const { body, upstream } = await send([
      { query: SPACE, variables },
      { query: SPACE, variables: { id: spaceIds.Runbooks } },
    ]);
    expect(body.map((answer: any) => answer.extensions.responseCache.hit)).toEqual([true, false]);
    expect(upstream).toBe(1);
  });

  it('refuses an operation over a limit alone; the others run', async () => {
    const { status, body, upstream } = await send([
      { query: SPACE, variables: { id: spaceIds.Guide } },
      { query: '{ organizations(first: 1000) { nodes { spaces(first: 1000) { nodes { title } } } } }' },
      { query: 'query Broken { space(' },
    ]);
    expect(status).toBe(200);
    expect(body[0].data.space.title).toBe('Guide');
    expect(body[1].errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'nodes', max: 1000 });
    expect(body[2].errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'GRAPHQL_PARSE_FAILED' });
    expect(upstream).toBe(body[0].extensions.responseCache.hit ? 0 : 1);
  });

  it('refuses an operation that would answer in parts, alone', async () => {
    const { body } = await send([
      {
        query: 'query Deferred($id: ID!) { space(id: $id) { title ... @defer { visibility } } }',
        variables: { id: spaceIds.Guide },
      },
      {
        query: '# a comment first\nsubscription Watched($id: ID!) { spaceContentUpdated(spaceId: $id) { id } }',
        variables: { id: spaceIds.Guide },
      },
      {
        query: 'subscription Watched($id: ID!) { spaceContentUpdated(spaceId: $id) { id } }',
        variables: { id: spaceIds.Guide },
      },
    ]);
    for (const answer of body) {
      expect(answer.data ?? null).toBeNull();
      expect(answer.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'INCREMENTAL_IN_BATCH' });
    }
  });

  it('refuses a batch over the bound, and an empty one, with nothing run', async () => {
    const over = await send(Array.from({ length: 4 }, () => ({ query: SPACE, variables: { id: spaceIds.Guide } })));
    expect(over.status).toBe(413);
    expect(over.upstream).toBe(0);
    expect(over.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'BATCH_TOO_LARGE',
      limit: 'batchOperations',
      value: 4,
      max: 3,
    });
    const empty = await send([]);
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'EMPTY_BATCH' });
  });

  it('refuses every batch when batching is off', async () => {
    const single = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      limits: { maxBatchOperations: 0 },
    });
    try {
      const { status, body, upstream } = await postGraphQL(single, platform, [{ query: '{ __typename }' }]);
      expect([status, upstream]).toEqual([400, 0]);
      expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'BATCHING_DISABLED' });
    } finally {
      await single.close();
    }
  });
});
