import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { changesAccess } from '../../src/gateway/cache/response-cache.js';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway/http/server.js';
import { BYTES_PER_POINT } from '../../src/gateway/gateway-work.js';
import { parsedDocumentCache } from '../../src/gateway/policy/limits.js';
import { documentHash } from '../../src/gateway/policy/manifest.js';
import { memoryClaims, memoryResponseCache, memoryStore } from '../../src/gateway/state/memory.js';
import { ENTRY_OVERHEAD_BYTES } from '../../src/gateway/state/store.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/*
 * What a hostile client does to the gateway's stores: floods of registered documents and of cached
 * answers stay within their bytes, registration is paid for and only of what runs, and cached
 * answers do not outlive a change of who may read them.
 */

let platform: TestPlatform;
const gateways: Gateway[] = [];
const KiB = 1024;
/**
 * Northwind: ada admin, ben `create`, cy `review`, dee `edit` (in team Writers), eve `comment`, finn `read`
 * (`edit` on Runbooks, in Engineering), gus a guest (`read` on Guides); team Platform of dee; a public space.
 */
let org: TestOrg;
const ids = {} as Record<
  'guides' | 'internal' | 'engineering' | 'runbooks' | 'public' | 'writers' | 'platform',
  string
>;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, {
    id: 'northwind',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
  });
  ids.guides = await org.collection('Guides');
  ids.internal = await org.collection('Internal');
  ids.engineering = await org.collection('Engineering', { defaultLevel: 'read' });
  ids.runbooks = await org.space('Runbooks', { parent: ids.engineering });
  ids.public = await org.space('Release notes', { visibility: 'public' });
  ids.writers = await org.team('Writers', ['dee'], { owners: ['ben'] });
  ids.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ space: ids.runbooks }, 'edit', { users: ['finn'] });
  await org.grant({ collection: ids.guides }, 'read', { users: ['gus'] });
  // Twenty spaces in all, as a documentation site has: their list is some 5 KiB, 1.5 KiB for 8.
  for (const [i, emoji] of [
    '👋',
    '🧭',
    '⚡',
    '🔒',
    '🚀',
    '📣',
    '🗺️',
    '📘',
    '🟢',
    '🎨',
    '🔌',
    '🏛️',
    '✅',
    '🚒',
    '🐾',
    '🧾',
    '🗒️',
    '📗',
  ].entries()) {
    await org.space(i === 0 ? 'Getting started' : `Guide ${i}`, { emoji });
  }
});

afterAll(async () => {
  await Promise.all(gateways.map((gateway) => gateway.close()));
  await platform.destroy();
});

function gatewayWith(options: Partial<GatewayOptions> = {}): Gateway {
  const gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, ...options });
  gateways.push(gateway);
  return gateway;
}

const post = (gateway: Gateway, body: unknown, headers: Record<string, string> = {}) =>
  postGraphQL(gateway, platform, body, headers);
const apq = (document: string) => ({ persistedQuery: { version: 1, sha256Hash: documentHash(document) } });
/** A unique document of about `bytes` bytes that asks for nothing upstream. */
const padded = (bytes: number) => `# ${randomBytes(bytes / 2).toString('hex')}\n{ __typename }`;
/** Megabytes of heap in use once the garbage is collected. */
const heapMiB = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    return process.memoryUsage().heapUsed / 1024 / 1024;
  };
})();
/** Whether the gateway knows `document` by its hash alone. */
const known = async (gateway: Gateway, document: string) => {
  const answer = await post(gateway, { extensions: apq(document) });
  return answer.body.errors?.[0]?.extensions?.code !== 'PERSISTED_QUERY_NOT_FOUND';
};

describe('registered persisted queries', () => {
  it('keeps a flood of unique documents within the store, the least recently used going first', async () => {
    const maxBytes = 64 * KiB;
    const gateway = gatewayWith({ persistedOperations: { maxBytes } });
    const documents = Array.from({ length: 40 }, () => padded(4 * KiB));
    const [first, second] = documents;
    for (const [index, document] of documents.entries()) {
      const registered = await post(gateway, { query: document, extensions: apq(document) });
      expect(registered.body).toMatchObject({ data: { __typename: 'Query' } });
      // The first, used again and again, stays; the second, never used again, goes.
      if (index > 0) expect(await known(gateway, first!)).toBe(true);
    }
    const kept = [];
    for (const document of documents) if (await known(gateway, document)) kept.push(document);
    const entryBytes = Buffer.byteLength(documents[2]!) + 64 + ENTRY_OVERHEAD_BYTES;
    expect(kept.length).toBeLessThanOrEqual(Math.floor(maxBytes / entryBytes));
    expect(kept.length).toBeGreaterThan(5);
    expect(kept).toContain(first);
    expect(kept).not.toContain(second);
    expect(kept).toContain(documents.at(-1));
  });

  it('holds no more bytes than its budget in memory, whatever it is given', async () => {
    const store = memoryStore({ maxBytes: 10 * KiB, maxEntryBytes: 4 * KiB });
    for (let i = 0; i < 100; i += 1) {
      await store.set(`key-${i}`, 'x'.repeat(100 + ((i * 37) % 3000)));
      expect(store.bytes).toBeLessThanOrEqual(10 * KiB);
    }
    expect(await store.get('key-99')).toBeDefined();
    expect(await store.get('key-0')).toBeUndefined();
    await store.set('too-large', 'x'.repeat(4 * KiB));
    expect(await store.get('too-large')).toBeUndefined();
  });

  it('refuses a document over the size limit with a coded error, before parsing it, and keeps nothing', async () => {
    const gateway = gatewayWith();
    // What a flood sent: a megabyte of comment before `{ __typename }`, under its own hash.
    const document = padded(1000 * KiB);
    const bytes = Buffer.byteLength(document);
    const answer = await post(gateway, { query: document, extensions: apq(document) });
    expect(answer.status).toBe(400);
    expect(answer.body.errors).toEqual([
      {
        message: `Persisted query too large to register: ${bytes} bytes, the limit is 131072; send this document without extensions.persistedQuery, or make it smaller`,
        extensions: {
          code: 'BAD_USER_INPUT',
          reason: 'PERSISTED_QUERY_TOO_LARGE',
          limit: 'persistedQueryBytes',
          value: bytes,
          max: 131_072,
        },
      },
    ]);
    expect(answer.upstream).toBe(0);
    expect(await known(gateway, document)).toBe(false);
  });

  it('registers nothing that does not run: a document that does not parse, validate or pass the cost limits', async () => {
    const gateway = gatewayWith();
    const aliases = Array.from({ length: 101 }, (_, index) => `a${index}: __typename`).join(' ');
    const refused = {
      parse: '{ viewer { email }',
      validate: '{ noSuchField }',
      aliases: `{ ${aliases} }`,
    };
    for (const [step, document] of Object.entries(refused)) {
      const answer = await post(gateway, { query: document, extensions: apq(document) });
      expect({ step, errors: answer.body.errors?.length }).toEqual({ step, errors: 1 });
      expect(answer.body.data ?? null).toBeNull();
      expect(answer.upstream).toBe(0);
      expect({ step, known: await known(gateway, document) }).toEqual({ step, known: false });
    }
    // One that runs is registered.
    const runs = '{ viewer { email } }';
    await post(gateway, { query: runs, extensions: apq(runs) });
    expect(await known(gateway, runs)).toBe(true);
  });

  it('charges the registration in extensions.cost.gatewayPoints, and nothing for a later run by hash', async () => {
    const gateway = gatewayWith();
    const document = padded(BYTES_PER_POINT + 4 * KiB);
    const registered = await post(gateway, { query: document, extensions: apq(document) });
    expect(registered.body.extensions.cost).toMatchObject({ upstreamRequests: 0, gatewayPoints: 2 });
    const byHash = await post(gateway, { extensions: apq(document) });
    expect(byHash.body.data).toEqual({ __typename: 'Query' });
    expect(byHash.body.extensions.cost.gatewayPoints).toBeUndefined();
    // The same document sent as text alone registers nothing, and costs nothing of the kind.
    const text = padded(BYTES_PER_POINT);
    const plain = await post(gateway, { query: text });
    expect(plain.body.extensions.cost.gatewayPoints).toBeUndefined();
    expect(await known(gateway, text)).toBe(false);
  });

  it('registers a document whose answer the response cache holds: such a request runs', async () => {
    const gateway = gatewayWith({ responseCache: { ttlMs: 60_000 } });
    const document = '{ viewer { email displayName } }';
    expect((await post(gateway, { query: document })).body.extensions.responseCache.didCache).toBe(true);
    const registering = await post(gateway, { query: document, extensions: apq(document) });
    expect(registering.upstream).toBe(1);
    expect(registering.body.extensions.responseCache).toBeUndefined();
    expect(await known(gateway, document)).toBe(true);
  });
});

describe("the platform's deliveries already taken", () => {
  it('remembers a flood of claims within its bytes, the oldest going first, each still refused while kept', async () => {
    const claims = memoryClaims({ maxBytes: 64 * KiB });
    for (let i = 0; i < 100_000; i += 1) expect(await claims.claim(`signature:${i}`, 600_000)).toBe(true);
    expect(claims.bytes).toBeLessThanOrEqual(64 * KiB);
    expect(claims.bytes).toBeGreaterThan(60 * KiB);
    // The newest are still refused; the oldest were forgotten to stay within the bytes.
    expect(await claims.claim('signature:99999', 600_000)).toBe(false);
    expect(await claims.claim('signature:0', 600_000)).toBe(true);
  });

  it('takes a key again once its claim ended', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const claims = memoryClaims({ maxBytes: 64 * KiB });
      expect(await claims.claim('event:1', 1000)).toBe(true);
      vi.advanceTimersByTime(999);
      expect(await claims.claim('event:1', 60_000)).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await claims.claim('event:1', 60_000)).toBe(true);
      expect(await claims.claim('event:1', 60_000)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('parsed documents', () => {
  it('keeps the documents it parsed within their heap: a flood of unique 9,000-token documents', async () => {
    const gateway = gatewayWith();
    // Each parses (9,000 tokens, under the limit) and fails validation: about 4 MB of heap as a parsed document.
    const documents = Array.from({ length: 40 }, (_, i) => `# ${i}\n{ ${'a '.repeat(9000)}}`);
    const before = heapMiB();
    for (const query of documents) {
      const answer = await post(gateway, { query });
      expect(answer.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(answer.upstream).toBe(0);
    }
    // Without a bound, all 40 stay: some 170 MB.
    expect(heapMiB() - before).toBeLessThan(48);
  });

  it('weighs a parsed document by its tokens, and keeps no more than its bytes', () => {
    const cache = parsedDocumentCache(1024 * KiB);
    const large = `{ ${'a '.repeat(9000)}}`;
    cache.documentCache.set(large, parse(large));
    expect(cache.documentCache.get(large)).toBeUndefined();
    const small = Array.from({ length: 400 }, (_, i) => `query Q${i} { viewer { id email displayName } }`);
    for (const source of small) cache.documentCache.set(source, parse(source));
    expect(cache.documentCache.get(small.at(-1)!)).toBeDefined();
    expect(cache.documentCache.get(small[0]!)).toBeUndefined();
  });
});

describe("the response cache's bytes", () => {
  /** A list of `first` spaces of the organization: about 5 KiB for all of them, 1.5 KiB for 8. */
  const spaces = (first: number, name: string) =>
    `query ${name} { organization(id: "northwind") { spaces(first: ${first}) { nodes { id platformId title emoji visibility createdAt urls { app } } } } }`;

  it('keeps under its bytes, the least recently used going first, and not an answer over its size', async () => {
    const gateway = gatewayWith({ responseCache: { ttlMs: 60_000, maxBytes: 16 * KiB, maxEntryBytes: 4 * KiB } });
    const run = (query: string) => post(gateway, { query });
    // Twenty entries of some 2 KiB (the operation's name makes each its own).
    const queries = Array.from({ length: 20 }, (_, i) => spaces(8, `Spaces${i}`));
    for (const query of queries) expect((await run(query)).body.extensions.responseCache.didCache).toBe(true);
    const hits = [];
    for (const query of queries.toReversed()) if ((await run(query)).upstream === 0) hits.push(query);
    expect(hits.length).toBeGreaterThan(2);
    expect(hits.length).toBeLessThanOrEqual(8);
    expect(hits[0]).toBe(queries.at(-1));
    expect(hits).not.toContain(queries[0]);

    const large = spaces(100, 'AllSpaces');
    const first = await run(large);
    expect(first.body.errors).toBeUndefined();
    expect(first.upstream).toBe(2);
    expect(JSON.stringify(first.body.data).length).toBeGreaterThan(4 * KiB);
    expect(first.body.extensions.responseCache).toEqual({ hit: false, didCache: false });
    expect((await run(large)).upstream).toBe(first.upstream);
  });

  it('holds no more bytes than its budget in memory, and gives them back as it forgets', async () => {
    const cache = memoryResponseCache({ maxBytes: 16 * KiB, maxEntryBytes: 4 * KiB });
    for (let i = 0; i < 200; i += 1) {
      cache.set(
        `entry${i}`,
        { data: { text: 'x'.repeat((i * 53) % 3500) } },
        [{ typename: 'Space', id: i % 7 }],
        60_000,
      );
      expect(cache.bytes).toBeLessThanOrEqual(16 * KiB);
    }
    expect(cache.get('entry199')).toEqual({ data: { text: 'x'.repeat((199 * 53) % 3500) } });
    cache.set('too-large', { data: { text: 'x'.repeat(4 * KiB) } }, [], 60_000);
    expect(cache.get('too-large')).toBeUndefined();
    cache.invalidate([{ typename: 'Space' }]);
    expect(cache.bytes).toBe(0);
    cache.set('again', { data: {} }, [], 60_000);
    expect(cache.bytes).toBeGreaterThan(0);
    await cache.clear();
    expect([cache.bytes, cache.get('again')]).toEqual([0, undefined]);
  });

  it("keeps an answer holding a space's content no longer than the setting", async () => {
    const gateway = gatewayWith({ responseCache: { ttlMs: 60_000 } });
    const answer = await post(gateway, {
      query: 'query Content($id: ID!) { space(id: $id) { content { id pages { title } } } }',
      variables: { id: platform.spaceId('Getting started') },
    });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.extensions.responseCache).toEqual({ hit: false, didCache: true, ttl: 60_000 });
  });
});

describe('the response cache follows permissions', () => {
  const RUNBOOKS = 'query Runbooks($id: ID!) { space(id: $id) { title content { pages { title } } } }';
  const PUBLIC = 'query Public($id: ID!) { space(id: $id) { title } }';

  it("answers a removed member's identical query fresh: no cached answer outlives the membership", async () => {
    const gateway = gatewayWith({ responseCache: { ttlMs: 60_000 } });
    const finn = { authorization: `Bearer ${org.token('finn')}` };
    const variables = { id: ids.runbooks };
    const read = await post(gateway, { query: RUNBOOKS, variables }, finn);
    expect(read.body.errors).toBeUndefined();
    expect((await post(gateway, { query: RUNBOOKS, variables }, finn)).upstream).toBe(0);
    const removed = await post(gateway, {
      query: `mutation { removeMember(input: { organizationId: "northwind", userId: "${org.user('finn').id}" }) { deleted userErrors { message } } }`,
    });
    expect(removed.body.data.removeMember).toEqual({ deleted: true, userErrors: [] });
    const again = await post(gateway, { query: RUNBOOKS, variables }, finn);
    expect(again.upstream).toBe(1);
    expect(again.body.data.space).toBeNull();
    expect(again.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('forgets every cached answer after each change of who may read what, and keeps them after other writes', async () => {
    const gateway = gatewayWith({ responseCache: { ttlMs: 60_000 } });
    const eve = { authorization: `Bearer ${org.token('eve')}` };
    const variables = { id: ids.public };
    const user = (key: string) => org.user(key).id;
    const runbooks = ids.runbooks;
    const changes: Record<string, string> = {
      updateMember: `updateMember(input: { organizationId: "northwind", userId: "${user('cy')}", role: COMMENT })`,
      setTeamMember: `setTeamMember(input: { organizationId: "northwind", teamId: "${ids.platform}", userId: "${user('eve')}" })`,
      removeTeamMember: `removeTeamMember(input: { organizationId: "northwind", teamId: "${ids.writers}", userId: "${user('dee')}" })`,
      inviteToCollection: `inviteToCollection(input: { collectionId: "${ids.internal}", role: READ, userIds: ["${user('ben')}"] })`,
      removeCollectionUser: `removeCollectionUser(input: { collectionId: "${ids.guides}", userId: "${user('gus')}" })`,
      updateCollection: `updateCollection(input: { collectionId: "${ids.engineering}", defaultLevel: INHERIT })`,
      updateSpace: `updateSpace(input: { spaceId: "${runbooks}", defaultLevel: READ })`,
      moveSpace: `moveSpace(input: { spaceId: "${runbooks}", parentId: null })`,
    };
    for (const [name, mutation] of Object.entries(changes)) {
      await post(gateway, { query: PUBLIC, variables }, eve);
      expect({ name, upstream: (await post(gateway, { query: PUBLIC, variables }, eve)).upstream }).toEqual({
        name,
        upstream: 0,
      });
      const changed = await post(gateway, { query: `mutation { ${mutation} { userErrors { message } } }` });
      expect({ name, errors: changed.body.errors, userErrors: changed.body.data?.[name]?.userErrors }).toEqual({
        name,
        errors: undefined,
        userErrors: [],
      });
      expect({ name, upstream: (await post(gateway, { query: PUBLIC, variables }, eve)).upstream }).toEqual({
        name,
        upstream: 1,
      });
    }
    // A write that changes no one's access forgets only what it changed.
    const edited = await post(gateway, {
      query: `mutation { createChangeRequest(input: { spaceId: "${runbooks}", subject: "Kept" }) { userErrors { message } } }`,
    });
    expect(edited.body.data.createChangeRequest.userErrors).toEqual([]);
    expect((await post(gateway, { query: PUBLIC, variables }, eve)).upstream).toBe(0);
  });

  it('names the REST writes that change who may read what', () => {
    const access = [
      '/orgs/acme',
      '/orgs/acme/members/u1',
      '/orgs/acme/members/u1/sso',
      '/orgs/acme/join',
      '/orgs/acme/link-invites/i1',
      '/orgs/acme/teams',
      '/orgs/acme/teams/t1/members/u1',
      '/orgs/acme/saml/p1',
      '/orgs/acme/sites/s1',
      '/orgs/acme/sites/s1/publish',
      '/orgs/acme/sites/s1/share-links/l1',
      '/orgs/acme/sites/s1/publishing/auth/regenerate',
      '/orgs/acme/sites/s1/site-spaces/ss1',
      '/orgs/acme/openapi/petstore',
      '/spaces/sp1',
      '/spaces/sp1/move',
      '/spaces/sp1/transfer',
      '/spaces/sp1/restore',
      '/collections/c1',
      '/collections/c1/permissions/users/u1',
      '/collections/c1/transfer',
      '/integrations/intg/installations/i1/spaces/sp1',
    ];
    const content = [
      '/orgs/acme/spaces',
      '/orgs/acme/sites',
      '/orgs/acme/sites/s1/structure/sort',
      '/orgs/acme/translations/t1/run',
      '/orgs/acme/fonts/f1',
      '/orgs/acme/ping',
      '/spaces/sp1/change-requests/cr1/merge',
      '/spaces/sp1/content/template',
      '/spaces/sp1/duplicate',
      '/spaces/sp1/git/import',
      '/integrations/intg/installations/i1/tokens',
      '/integrations/intg/dev',
    ];
    expect(access.filter((path) => !changesAccess(path))).toEqual([]);
    expect(content.filter(changesAccess)).toEqual([]);
  });
});
