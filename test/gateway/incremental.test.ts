import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import type { OperationReport } from '../../src/gateway/telemetry/operations.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { assemble, payloadsOf, type Payload } from '../fixtures/incremental.js';

/**
 * Answers in parts: `@defer` and `@stream` over `multipart/mixed` and `text/event-stream`, with an
 * upstream that takes 20 ms per request, so that each level of requests shows in when parts arrive.
 */
let g: TestGateway;
let cached: Gateway;
const reports: OperationReport[] = [];

beforeAll(async () => {
  g = await startTestGateway({ delayMs: 20 });
  cached = createGateway({
    upstreamUrl: g.platform.url,
    graphiql: { enabled: false },
    responseCache: { ttlMs: 60_000 },
    operationLog: pino({ level: 'info' }, { write: (line: string) => void reports.push(JSON.parse(line)) }),
  });
});
afterAll(async () => {
  await cached.close();
  await g.destroy();
});

const TEAMS = `teams(first: 5) { nodes { title members(first: 5) { nodes { role member { user { displayName } } } } } }`;
const DASHBOARD = `query Dashboard { organization(id: "acme") { title spaces(first: 3) { nodes { title } } ... @defer(label: "teams") { ${TEAMS} } } }`;
const WHOLE = `query Dashboard { organization(id: "acme") { title spaces(first: 3) { nodes { title } } ${TEAMS} } }`;

/** Sends `query` to `gateway` asking for parts in `accept`; each payload with the platform's answers so far. */
async function inParts(
  query: string,
  accept: string,
  { gateway = g.gateway, headers = {} }: { gateway?: Gateway; headers?: Record<string, string> } = {},
) {
  g.platform.app.stats.reset();
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept,
      authorization: `Bearer ${g.platform.adminToken}`,
      ...headers,
    },
    body: JSON.stringify({ query }),
  });
  const arrivals: Array<{ payload: Payload; answered: string[] }> = [];
  for await (const payload of payloadsOf(response)) {
    arrivals.push({ payload, answered: g.platform.app.stats.answers.map((answer) => answer.url) });
  }
  return {
    response,
    arrivals,
    payloads: arrivals.map((arrival) => arrival.payload),
    upstream: g.platform.app.stats.count,
  };
}

const teamMembers = (urls: string[]) => urls.filter((url) => /\/teams\/[^/]+\/members/.test(url));

describe('@defer', () => {
  it('sends the first payload once its own requests are answered, the deferred part when its requests end', async () => {
    const { response, arrivals, payloads, upstream } = await inParts(DASHBOARD, 'multipart/mixed');
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const [first, ...later] = arrivals;
    // The first payload waited for the organization and its spaces, not for the deferred teams' members.
    expect(first!.answered).toEqual(
      expect.arrayContaining(['/v1/orgs/acme', expect.stringMatching(/^\/v1\/orgs\/acme\/spaces/)]),
    );
    expect(teamMembers(first!.answered)).toEqual([]);
    expect(first!.payload).toMatchObject({ hasNext: true, data: { organization: { title: 'Acme Docs' } } });
    expect(first!.payload.data.organization.teams).toBeUndefined();
    // The deferred part came with the last payload, after its requests were answered.
    const last = later.at(-1)!;
    expect(last.payload.hasNext).toBe(false);
    expect(teamMembers(last.answered).length).toBeGreaterThan(0);
    expect(later.flatMap((arrival) => arrival.payload.incremental ?? []).map((part) => part.label)).toEqual(['teams']);

    // Its cost: the first payload's bound covers the deferred part; the last counts every request.
    const firstCost = first!.payload.extensions.cost;
    const lastCost = last.payload.extensions.cost;
    expect(firstCost.upstreamRequests).toBeLessThan(upstream);
    expect(lastCost.upstreamRequests).toBe(upstream);
    expect(firstCost.maxUpstreamRequests).toBeGreaterThanOrEqual(upstream);

    // Put together, it is the answer of the same operation without @defer.
    const whole = await g.gql(WHOLE);
    expect(assemble(payloads)).toEqual({ data: whole.data, errors: [] });
    expect(whole.upstream).toBe(upstream);
  });

  it('is the same over text/event-stream', async () => {
    const sse = await inParts(DASHBOARD, 'text/event-stream');
    expect(sse.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const multipart = await inParts(DASHBOARD, 'multipart/mixed');
    expect(sse.payloads.length).toBeGreaterThan(1);
    expect(assemble(sse.payloads)).toEqual(assemble(multipart.payloads));
  });

  it('explains, in its last payload, which requests each deferred field made', async () => {
    const { payloads } = await inParts(DASHBOARD, 'multipart/mixed', { headers: { 'x-explain': '1' } });
    expect(payloads[0]!.extensions.explain).toBeUndefined();
    const explain = payloads.at(-1)!.extensions.explain;
    const served = JSON.stringify(explain);
    expect(served).toMatch(/teams\/[^"]+\/members/);
    expect(served).toContain('organization.teams');
  });

  it('is never served from the response cache nor kept in it, and is logged once, when its last part left', async () => {
    reports.length = 0;
    for (let round = 0; round < 2; round += 1) {
      const { payloads, upstream } = await inParts(DASHBOARD, 'multipart/mixed', { gateway: cached });
      expect(upstream).toBeGreaterThan(2);
      expect(payloads.at(-1)!.extensions.cost.upstreamRequests).toBe(upstream);
      expect(payloads.some((payload) => payload.extensions?.responseCache?.hit)).toBe(false);
    }
    // The same operation without @defer is cached as usual.
    const again = await inParts(WHOLE, 'application/json', { gateway: cached });
    expect(again.upstream).toBeGreaterThan(0);
    expect(reports.map((report) => [report.operationName, report.status, report.cacheHit])).toEqual([
      ['Dashboard', 200, null],
      ['Dashboard', 200, null],
      ['Dashboard', 200, false],
    ]);
    expect(reports[0]!.upstreamRequests).toBeGreaterThan(2);
  });
});

describe('misplaced directives', () => {
  it('are refused before anything runs: @stream off a list, two parts with one label', async () => {
    for (const query of [
      '{ organization(id: "acme") { title @stream } }',
      '{ organization(id: "acme") { ... @defer(label: "a") { title } ... @defer(label: "a") { platformId } } }',
    ]) {
      const answer = await g.gql(query);
      expect(answer.upstream).toBe(0);
      expect(answer.errors?.[0]?.extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'GRAPHQL_VALIDATION_FAILED',
      });
    }
  });
});

describe('subscriptions and the response cache', () => {
  it('never serve a subscription from the cache nor keep its events', async () => {
    const query = `subscription Follow($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }`;
    const variables = { id: g.platform.spaceId('Getting started') };
    // The cache marks every answer it looks at (`extensions.responseCache`): twice, neither event is marked.
    for (let round = 0; round < 2; round += 1) {
      const response = await cached.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          authorization: `Bearer ${g.platform.adminToken}`,
        },
        body: JSON.stringify({ query, variables }),
      });
      for await (const payload of payloadsOf(response)) {
        expect(payload.extensions?.responseCache).toBeUndefined();
        expect(payload.data.spaceContentUpdated.platformId).toBeTruthy();
        break;
      }
    }
  });
});

describe('@stream', () => {
  it('sends the first items with the first payload and each other one after, adding up to the whole list', async () => {
    const streamed = `{ organization(id: "acme") { spaces(first: 4) { nodes @stream(initialCount: 1) { title } } } }`;
    const { payloads } = await inParts(streamed, 'multipart/mixed');
    expect(payloads[0]!.data.organization.spaces.nodes).toHaveLength(1);
    const items = payloads
      .slice(1)
      .flatMap((payload) => payload.incremental ?? [])
      .flatMap((part) => part.items ?? []);
    expect(items.length).toBe(3);
    const whole = await g.gql(streamed.replace(' @stream(initialCount: 1)', ''));
    expect(assemble(payloads).data).toEqual(whole.data);
  });
});
