import { decodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changesAccess, entitiesOfWrite, responseCacheKey } from '../../src/gateway/cache/response-cache.js';
import * as op from '../../src/gateway/upstream/contract/operations.js';
import type { Write } from '../../src/gateway/upstream/request.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let platform: TestPlatform;
let gateway: Gateway;
/** Admin alice (the default caller) and finn (`read`), with the spaces Guide and Runbooks. */
let org: TestOrg;
const spaceIds: Record<string, string> = {};

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, { id: 'cached', members: { alice: 'admin', finn: 'read' } });
  for (const title of ['Guide', 'Runbooks']) spaceIds[title] = await org.space(title);
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    responseCache: { ttlMs: 60_000 },
  });
});

afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

/** Runs an operation through the cached gateway; answers its body and the requests the platform received for it. */
const run = (query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  postGraphQL(gateway, platform, { query, variables }, headers);

const SPACE = 'query CachedSpace($id: ID!) { space(id: $id) { title visibility } }';

describe('the response cache', () => {
  it('answers a repeated operation from the cache: no upstream request, and says so', async () => {
    const id = spaceIds.Guide!;
    const first = await run(SPACE, { id });
    const second = await run(SPACE, { id });
    expect(first.upstream).toBe(1);
    expect(first.body.extensions.responseCache).toMatchObject({ hit: false, didCache: true, ttl: 60_000 });
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.extensions.responseCache).toEqual({ hit: true });
    expect(second.body.extensions.cost.upstreamRequests).toBe(0);
    expect(second.upstream).toBe(0);
  });

  it('never shares an entry between two tokens: each is answered as the platform sees it', async () => {
    const query = '{ viewer { email } }';
    const admin = await run(query);
    const finn = org.user('finn');
    const other = await run(query, {}, { authorization: `Bearer ${finn.token}` });
    expect(other.upstream).toBe(1);
    expect(other.body.data.viewer.email).toBe(finn.email);
    expect(admin.body.data.viewer.email).toBe(org.user('alice').email);
    const again = await run(query, {}, { authorization: `Bearer ${finn.token}` });
    expect(again).toMatchObject({ upstream: 0, body: { data: { viewer: { email: finn.email } } } });
  });

  it('never keeps an error answer: a missing object, a refused token', async () => {
    for (const headers of [{}, { authorization: 'Bearer not-a-token' }] as Array<Record<string, string>>) {
      const variables = { id: 'no-such-space' };
      const first = await run(SPACE, variables, headers);
      const second = await run(SPACE, variables, headers);
      expect(first.body.errors).toHaveLength(1);
      expect([first.upstream, second.upstream]).toEqual([1, 1]);
      expect(second.body.extensions.responseCache?.hit ?? false).toBe(false);
    }
  });

  it('answers fresh after a mutation through the gateway changes what it holds', async () => {
    const id = spaceIds.Guide!;
    await run(SPACE, { id });
    const renamed = await run(
      'mutation Rename($id: ID!) { updateSpace(input: { spaceId: $id, title: "Guide, renamed" }) { space { id title } } }',
      { id },
    );
    expect(renamed.body.data.updateSpace.space.title).toBe('Guide, renamed');
    const read = await run(SPACE, { id });
    expect(read.upstream).toBe(1);
    expect(read.body.data.space.title).toBe('Guide, renamed');
  });

  it("answers fresh after a mutation adds to a parent's list", async () => {
    const LIST = 'query Spaces { organization(id: "cached") { spaces(first: 100) { totalCount nodes { title } } } }';
    const before = await run(LIST);
    expect((await run(LIST)).upstream).toBe(0);
    await run(
      'mutation { createSpace(input: { organizationId: "cached", title: "Cache-fresh space" }) { space { title } } }',
    );
    const after = await run(LIST);
    expect(after.upstream).toBeGreaterThan(0);
    expect(after.body.data.organization.spaces.totalCount).toBe(before.body.data.organization.spaces.totalCount + 1);
    expect(after.body.data.organization.spaces.nodes.map((space: { title: string }) => space.title)).toContain(
      'Cache-fresh space',
    );
  });

  it('never keeps the state of a custom hostname: its DNS checks change it in the background', async () => {
    const siteId = await org.site('Hosted', { spaces: [spaceIds.Guide!] });
    const patched = await platform.api('PATCH', `/orgs/cached/sites/${siteId}`, {
      body: { hostname: 'docs.cached-example.com' },
    });
    expect(patched.status).toBe(200);
    await platform.app.jobs.drain();
    const query =
      'query Hosted($site: ID!) { site(organizationId: "cached", id: $site) { customHostname { status } } }';
    const first = await run(query, { site: siteId });
    expect(first.body.data.site.customHostname).toEqual({ status: 'PENDING' });
    expect(first.body.extensions.responseCache).toMatchObject({ hit: false, didCache: false });
    const second = await run(query, { site: siteId });
    expect(second.upstream).toBe(2);
  });

  it('never answers an explained request from the cache', async () => {
    const id = spaceIds.Runbooks!;
    await run(SPACE, { id });
    const explained = await run(SPACE, { id }, { 'x-explain': '1' });
    expect(explained.upstream).toBe(1);
    expect(explained.body.extensions.explain).toBeDefined();
  });

  it('counts hits and misses in the metrics', async () => {
    const text = await gateway.metrics.registry.metrics();
    const value = (result: string) =>
      Number(text.match(new RegExp(`^graphql_gateway_response_cache_total\\{result="${result}"\\} (\\d+)`, 'm'))?.[1]);
    expect(value('hit')).toBeGreaterThanOrEqual(3);
    expect(value('miss')).toBeGreaterThanOrEqual(5);
    // A hit runs nothing, yet is counted under its operation, as a success.
    expect(text).toMatch(
      /^graphql_gateway_operations_total\{operation_name="CachedSpace",operation_type="query",outcome="success"\} \d+/m,
    );
    expect(text).not.toMatch(/outcome="refused"/);
  });
});

describe('the key of an answer', () => {
  const key = (variableValues: Record<string, unknown>, sessionId = 'alice', operationName: string | null = 'Q') =>
    responseCacheKey({
      documentString: 'query Q($a: Int, $b: Int) { a: __typename }',
      operationName,
      variableValues,
      sessionId,
      context: {},
      request: new Request('http://gateway.test/graphql'),
    });

  it('is one for equal variables written in another order, nested objects included', () => {
    expect(key({ a: 1, b: { c: [1, { d: 2, e: 3 }], f: null } })).toBe(
      key({ b: { f: null, c: [1, { e: 3, d: 2 }] }, a: 1 }),
    );
    // A variable given as undefined is one left out, as JSON sends it.
    expect(key({ a: 1, b: undefined })).toBe(key({ a: 1 }));
  });

  it('differs with the variables, their types, the operation and the caller', () => {
    const keys = [
      key({ a: 1 }),
      key({ a: '1' }),
      key({ a: 2 }),
      key({ a: 1, b: null }),
      key({ a: [1] }),
      key({ a: 1 }, 'finn'),
      key({ a: 1 }, 'alice', null),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    for (const one of keys) expect(one).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('what a write forgets', () => {
  it('names the nodes of a write sent through its operation record, from its path parameters', () => {
    const names = (write: Write) =>
      entitiesOfWrite(write).map(({ typename, id }) => `${typename} ${decodeGlobalID(id).id}`);
    const merge = { path: '/spaces/sp-1/change-requests/cr-2/merge', operation: op.mergeChangeRequest };
    expect(names({ ...merge, params: { spaceId: 'sp-1', changeRequestId: 'cr-2' } })).toEqual([
      'Space sp-1',
      'ChangeRequest sp-1/cr-2',
    ]);
    const reply = {
      path: '/spaces/sp-1/change-requests/cr-2/comments/c-3/replies',
      operation: op.postCommentReplyInChangeRequest,
    };
    expect(names({ ...reply, params: { spaceId: 'sp-1', changeRequestId: 'cr-2', commentId: 'c-3' } })).toEqual([
      'Space sp-1',
      'ChangeRequest sp-1/cr-2',
      'Comment sp-1/cr-2/c-3',
    ]);
    const spaceReply = { path: '/spaces/sp-1/comments/c-3/replies', operation: op.postCommentReplyInSpace };
    expect(names({ ...spaceReply, params: { spaceId: 'sp-1', commentId: 'c-3' } })).toEqual([
      'Space sp-1',
      'Comment sp-1/c-3',
    ]);
    const publish = { path: '/orgs/acme/sites/site-1/publish', operation: op.publishSite };
    expect(names({ ...publish, params: { organizationId: 'acme', siteId: 'site-1' } })).toEqual([
      'Organization acme',
      'Site acme/site-1',
    ]);
    // Whether it changes who may read what is read on the operation's template.
    expect(changesAccess({ path: '/spaces/sp-1/move', operation: op.moveSpace, params: { spaceId: 'sp-1' } })).toBe(
      true,
    );
    expect(changesAccess({ ...merge, params: {} })).toBe(false);
  });
});
