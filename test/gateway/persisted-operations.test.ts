import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS } from '../../src/gateway/examples/operations.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { documentHash, MAX_ID_LENGTH, readManifest } from '../../src/gateway/policy/manifest.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let platform: TestPlatform;
let open: Gateway;
let persistedOnly: Gateway;
let prefixed: Gateway;
const TEAM_QUERY = 'query TeamCount { organization(id: "acme") { teams { totalCount } } }';

beforeAll(async () => {
  platform = await startTestPlatform();
  open = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false } });
  persistedOnly = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    persistedOperations: { persistedOnly: true, manifest: new Map([['team-count', TEAM_QUERY]]) },
  });
  // A manifest as graphql-codegen's client preset writes it: its keys are `sha256:<hex>`.
  prefixed = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    persistedOperations: {
      persistedOnly: true,
      manifest: new Map([[`sha256:${documentHash(TEAM_QUERY)}`, TEAM_QUERY]]),
    },
  });
});

afterAll(async () => {
  await open.close();
  await persistedOnly.close();
  await prefixed.close();
  await platform.destroy();
});

const post = (gateway: Gateway, body: unknown) => postGraphQL(gateway, platform, body);

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const DASHBOARD = EXAMPLE_OPERATIONS[0]!.document;

describe('persisted operations', () => {
  it('runs an example by its documentId, as it runs its text', async () => {
    const byId = await post(open, { documentId: documentHash(DASHBOARD) });
    const byText = await post(open, { query: DASHBOARD });
    expect(byId.body.errors).toBeUndefined();
    expect(byId.body.data).toEqual(byText.body.data);
    expect(byId.body.data.organizations.totalCount).toBeGreaterThan(0);
    expect(byId.upstream).toBe(byText.upstream);
  });

  it('takes documentId in a GET too', async () => {
    const response = await open.fetch(`http://gateway.test/graphql?documentId=${documentHash(DASHBOARD)}`, {
      headers: { authorization: `Bearer ${platform.adminToken}`, accept: 'application/json', 'x-graphql-csrf': '1' },
    });
    const body = (await response.json()) as any;
    expect(body.errors).toBeUndefined();
    expect(body.data.viewer.email).toMatch(/@/);
  });

  it('follows automatic persisted queries: unknown hash, then the document with its hash, then the hash alone', async () => {
    const hash = documentHash(TEAM_QUERY);
    const unknown = await post(open, { extensions: apq(hash) });
    expect(unknown.body.errors).toEqual([
      { message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } },
    ]);
    expect(unknown.upstream).toBe(0);
    const registered = await post(open, { query: TEAM_QUERY, extensions: apq(hash) });
    expect(registered.body.data.organization.teams.totalCount).toBeGreaterThan(0);
    const byHash = await post(open, { extensions: apq(hash) });
    expect(byHash.body).toMatchObject({ data: registered.body.data });
    expect(byHash.upstream).toBe(registered.upstream);
  });

  it('refuses to register a document under a hash that is not its own, before any upstream request', async () => {
    const answer = await post(open, { query: TEAM_QUERY, extensions: apq(documentHash('{ viewer { id } }')) });
    expect(answer.status).toBe(400);
    expect(answer.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'PERSISTED_QUERY_HASH_MISMATCH',
    });
    expect(answer.upstream).toBe(0);
  });
});

describe('persisted ids, bare or sha256:-prefixed', () => {
  it('finds an example by sha256:<hex>, as by the bare hash, in a POST and a GET', async () => {
    const hash = documentHash(DASHBOARD);
    const bare = await post(open, { documentId: hash });
    const withPrefix = await post(open, { documentId: `sha256:${hash}` });
    const upper = await post(open, { documentId: `sha256:${hash.toUpperCase()}` });
    expect(withPrefix.body.errors).toBeUndefined();
    expect(withPrefix.body.data).toEqual(bare.body.data);
    expect(upper.body.data).toEqual(bare.body.data);
    const response = await open.fetch(`http://gateway.test/graphql?documentId=sha256%3A${hash}`, {
      headers: { authorization: `Bearer ${platform.adminToken}`, accept: 'application/json', 'x-graphql-csrf': '1' },
    });
    expect(((await response.json()) as any).data).toEqual(bare.body.data);
  });

  it("reaches a manifest's prefixed key by its bare hash, the prefixed one and the APQ hash", async () => {
    const hash = documentHash(TEAM_QUERY);
    for (const body of [
      { documentId: hash },
      { documentId: `sha256:${hash}` },
      { extensions: apq(hash) },
      { extensions: apq(`sha256:${hash}`) },
    ]) {
      const answer = await post(prefixed, body);
      expect(answer.body.errors).toBeUndefined();
      expect(answer.body.data.organization.teams.totalCount).toBeGreaterThan(0);
    }
  });

  it('finds a document registered with APQ by documentId: sha256:<hex>', async () => {
    const query = 'query TeamNames { organization(id: "acme") { teams { nodes { title } } } }';
    const hash = documentHash(query);
    const registered = await post(open, { query, extensions: apq(hash) });
    expect(registered.body.errors).toBeUndefined();
    const byId = await post(open, { documentId: `sha256:${hash}` });
    expect(byId.body.errors).toBeUndefined();
    expect(byId.body.data).toEqual(registered.body.data);
  });

  it('refuses another prefix, a malformed sha256 and an id over the limit, with a code and no upstream request', async () => {
    const hash = documentHash(DASHBOARD);
    for (const documentId of [`md5:${hash.slice(0, 32)}`, `sha256:${hash.slice(1)}`, `sha256:${hash}0`]) {
      const answer = await post(open, { documentId });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([
        {
          message: expect.stringMatching(/^A persisted operation's id is its sha256 in hex, bare or as sha256:<hex>/),
          extensions: { code: 'BAD_USER_INPUT', reason: 'PERSISTED_QUERY_ID_UNSUPPORTED' },
        },
      ]);
      expect(answer.upstream).toBe(0);
    }
    const long = 'x'.repeat(MAX_ID_LENGTH + 1);
    for (const body of [{ documentId: long }, { extensions: apq(long) }]) {
      const answer = await post(open, body);
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([
        {
          message: `A persisted operation's id has at most ${MAX_ID_LENGTH} characters; this one has ${MAX_ID_LENGTH + 1}`,
          extensions: {
            code: 'BAD_USER_INPUT',
            reason: 'PERSISTED_QUERY_ID_TOO_LONG',
            limit: 'persistedQueryIdLength',
            value: MAX_ID_LENGTH + 1,
            max: MAX_ID_LENGTH,
          },
        },
      ]);
      expect(answer.upstream).toBe(0);
    }
  });
});

describe('PERSISTED_ONLY', () => {
  it('runs the documents of its manifest (and the examples) by id', async () => {
    const team = await post(persistedOnly, { documentId: 'team-count' });
    expect(team.body.data.organization.teams.totalCount).toBeGreaterThan(0);
    const dashboard = await post(persistedOnly, { extensions: apq(documentHash(DASHBOARD)) });
    expect(dashboard.body.errors).toBeUndefined();
  });

  it('refuses any other document before parsing it: text, broken text, a registration', async () => {
    for (const body of [
      { query: TEAM_QUERY },
      { query: '{ this does not parse' },
      { query: TEAM_QUERY, extensions: apq(documentHash(TEAM_QUERY)) },
    ]) {
      const answer = await post(persistedOnly, body);
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'PERSISTED_QUERY_ONLY',
      });
      expect(answer.upstream).toBe(0);
    }
    // Nothing was registered: the hash alone is still unknown.
    const later = await post(persistedOnly, { extensions: apq(documentHash(TEAM_QUERY)) });
    expect(later.body.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('asks for an id when the request has neither document nor id', async () => {
    const answer = await post(persistedOnly, { variables: {} });
    expect(answer.body.errors[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'PERSISTED_QUERY_ID_REQUIRED',
    });
  });
});

describe('the manifest file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'manifest-'));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("reads graphql-codegen's persisted-documents.json", () => {
    const manifest = readManifest(file('ok.json', JSON.stringify({ [documentHash(TEAM_QUERY)]: TEAM_QUERY })));
    expect([...manifest]).toEqual([[documentHash(TEAM_QUERY), TEAM_QUERY]]);
  });

  it("reads the client preset's manifest as written: sha256:<hex> keys (its default) and bare sha1 keys", () => {
    const hash = documentHash(TEAM_QUERY);
    const sha1 = 'a94a8fe5ccb19ba61c4c0873d391e987982fbbd3';
    const manifest = readManifest(
      file('preset.json', JSON.stringify({ [`sha256:${hash}`]: TEAM_QUERY, [sha1]: '{ viewer { id } }' }, null, 2)),
    );
    expect([...manifest]).toEqual([
      [hash, TEAM_QUERY],
      [sha1, '{ viewer { id } }'],
    ]);
    expect(() => readManifest(file('md5.json', JSON.stringify({ 'md5:0cc175b9': TEAM_QUERY })))).toThrow(
      /^PERSISTED_OPERATIONS_FILE has an id that is not taken: A persisted operation's id is its sha256/,
    );
  });

  it('names what is wrong with a file that is not one', () => {
    expect(() => readManifest(join(dir, 'missing.json'))).toThrow(/^PERSISTED_OPERATIONS_FILE cannot be read: /);
    expect(() => readManifest(file('text.json', 'query { x }'))).toThrow('PERSISTED_OPERATIONS_FILE is not JSON');
    expect(() => readManifest(file('list.json', '["query { x }"]'))).toThrow(/must map each id/);
    expect(() => readManifest(file('number.json', '{"a": 1}'))).toThrow(/must map each id .* at a$/);
  });
});

describe("graphql-codegen's client preset, end to end", () => {
  it('writes a manifest the gateway reads as written, and the id its documents carry runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-preset-'));
    writeFileSync(join(dir, 'team.graphql'), `${TEAM_QUERY}\n`);
    const config = {
      schema: 'schema.graphql',
      documents: [join(dir, 'team.graphql')],
      generates: { [`${join(dir, 'gql')}/`]: { preset: 'client', presetConfig: { persistedDocuments: true } } },
    };
    writeFileSync(join(dir, 'codegen.json'), JSON.stringify(config));
    await promisify(execFile)(join('node_modules', '.bin', 'graphql-codegen'), ['--config', join(dir, 'codegen.json')]);
    // The id the client sends: the hash the preset put in the typed document.
    const sent = /"__meta__":\{"hash":"([^"]+)"\}/.exec(readFileSync(join(dir, 'gql', 'graphql.ts'), 'utf8'))![1]!;
    expect(sent).toMatch(/^sha256:[0-9a-f]{64}$/);
    const manifest = readManifest(join(dir, 'gql', 'persisted-documents.json'));
    const gateway = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      persistedOperations: { persistedOnly: true, manifest },
    });
    try {
      // As the preset's client sends it, by its bare hash, and as Apollo's APQ link sends it.
      for (const body of [{ documentId: sent }, { documentId: sent.slice(7) }, { extensions: apq(sent.slice(7)) }]) {
        const answer = await post(gateway, { ...body, operationName: 'TeamCount' });
        expect(answer.body.errors).toBeUndefined();
        expect(answer.body.data.organization.teams.totalCount).toBeGreaterThan(0);
      }
    } finally {
      await gateway.close();
    }
  }, 180_000); // a guard: codegen loads the whole schema, seconds on a busy machine
});
