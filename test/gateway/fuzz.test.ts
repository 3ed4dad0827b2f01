import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/gateway/errors.js';
import { MAX_NESTING } from '../../src/gateway/policy/limits.js';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import {
  createRng,
  describeBody,
  findLeak,
  mutateDocumentTimes,
  nestedArrays,
  nestedObjects,
  ODD_VALUES,
  randomJson,
  randomText,
  type Rng,
} from '../fixtures/fuzz.js';
import { addOrg, addUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

// Fixed, so every run sends the same cases; FUZZ_SEED explores others locally.
const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const MUTATED_CASES = 1500;
const ENDPOINT = 'http://gateway.test/graphql';
const CODES: ReadonlySet<string> = new Set(ERROR_CODES);
const LIMIT = 1024 * 1024;

let platform: TestPlatform;
let gateway: Gateway;
/** What the gateway logged as unexpected errors: each one is a bug the fuzz found. */
const logged: string[] = [];
/** Problems found, per test; each test ends by expecting none. */
let problems: string[] = [];
let sent = 0;

/** Team Writers of Northwind. */
let writers: string;

/**
 * Northwind (e-mail domain northwind.test): ada admin, finn `read`, ben `edit`; a public space, a Guides collection
 * with a space, team Writers. Southwind: ada admin.
 */
beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  const org = addOrg(platform, {
    id: 'northwind',
    members: { ada: 'admin', finn: 'read', ben: 'edit' },
    users: { ada: addUser(platform, 'ada', { name: 'Ada Lovelace' }) },
    emailDomains: ['northwind.test'],
  });
  addOrg(platform, { id: 'southwind', members: { ada: 'admin' }, users: { ada: org.user('ada') } });
  await org.space('Release notes', { visibility: 'public' });
  await org.space('Getting started', { parent: await org.collection('Guides') });
  writers = await org.team('Writers', ['ben', 'finn']);
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    logger: { error: (message: string) => logged.push(message), info: () => {} },
  });
});
afterAll(async () => {
  await gateway?.close();
  await platform?.destroy();
});

interface Sent {
  label: string;
  url?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: BodyInit | null;
  /** The body as text, for leak checks and failure messages (defaults to `body` when a string). */
  source?: string;
  /** `content-type: application/json` and the admin's token unless false. */
  defaults?: boolean;
}

interface Answer {
  status: number;
  ms: number;
  text: string;
  json: unknown;
}

/** Sends one request through the gateway's `fetch`, measures it, and records every rule it breaks. */
async function send(request: Sent): Promise<Answer> {
  // With the CSRF header, as a client sends it: GETs, forms and multipart reach their parsers.
  const headers: Record<string, string> =
    request.defaults === false
      ? {}
      : { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}`, 'x-graphql-csrf': '1' };
  Object.assign(headers, request.headers);
  // An empty value in `headers` removes the default header.
  for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name];
  const method = request.method ?? 'POST';
  const source = request.source ?? (typeof request.body === 'string' ? request.body : '');
  const url = request.url ?? ENDPOINT;
  sent += 1;
  const loggedBefore = logged.length;
  const started = performance.now();
  let status = 0;
  let text = '';
  let contentType = '';
  try {
    const response = await gateway.fetch(url, {
      method,
      headers,
      body: request.body ?? null,
      ...(request.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
    status = response.status;
    contentType = response.headers.get('content-type') ?? '';
    text = await response.text();
  } catch (error) {
    problems.push(`${request.label}: gateway.fetch threw ${String(error)}`);
    return { status, ms: 0, text, json: undefined };
  }
  const ms = performance.now() - started;
  const where = `${request.label} (${method} ${url.length > 100 ? `${url.slice(0, 100)}…` : url} ${describeBody(source || request.body)})`;
  const fail = (what: string) =>
    problems.push(`${where}: ${what}; answer ${status} ${JSON.stringify(text.slice(0, 300))}`);
  if (status >= 500) fail(`status ${status}`);
  if (logged.length > loggedBefore)
    fail(`the gateway logged an unexpected error: ${logged[loggedBefore]!.split('\n')[0]}`);
  // How long a case takes is not checked here (a loaded machine would fail it): bench/hardening*.ts measures it.
  const leak = findLeak(text, source + url);
  if (leak) fail(`leaks a ${leak}`);
  // A CORS preflight is answered 204, which never has a body.
  if (method === 'OPTIONS' && status === 204) return { status, ms, text, json: undefined };
  let json: unknown;
  try {
    json = contentType.includes('text/event-stream') ? eventStreamPayloads(text) : JSON.parse(text);
  } catch {
    fail(`the body is not JSON (content-type ${contentType || 'none'})`);
    return { status, ms, text, json };
  }
  for (const result of Array.isArray(json) ? json : [json]) checkResult(result, status, fail);
  return { status, ms, text, json };
}

function eventStreamPayloads(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
}

/** A GraphQL answer: an object, errors (if any) each with a message and a code of the gateway's list. */
function checkResult(result: unknown, status: number, fail: (what: string) => void): void {
  if (typeof result !== 'object' || result === null || Array.isArray(result)) {
    fail('the answer is not a JSON object');
    return;
  }
  const { errors, data } = result as { errors?: unknown; data?: unknown };
  if (errors === undefined) {
    if (status >= 400) fail('an error status without errors');
    if (data === undefined) fail('neither data nor errors');
    return;
  }
  if (!Array.isArray(errors) || errors.length === 0) {
    fail('errors is not a non-empty list');
    return;
  }
  for (const error of errors as Array<{ message?: unknown; extensions?: { code?: unknown } }>) {
    if (typeof error?.message !== 'string') fail('an error without a message');
    const code = error?.extensions?.code;
    if (typeof code !== 'string' || !CODES.has(code)) fail(`an error whose code is ${JSON.stringify(code)}`);
  }
}

function expectNoProblems(minimumSent: number, before: number): void {
  const shown = problems.slice(0, 15);
  expect(shown, `${problems.length} problems (seed ${SEED}), first ones listed`).toEqual([]);
  expect(logged, 'unexpected errors logged by the gateway').toEqual([]);
  expect(sent - before).toBeGreaterThanOrEqual(minimumSent);
}

/** A valid operation of the real schema, with the variables it runs with. */
interface Operation {
  query: string;
  variables?: Record<string, unknown>;
}

/** Real operations (queries and mutations, fragments, directives) over the test's organizations, the seeds of every mutation. */
function corpus(): Operation[] {
  const space = platform.spaceId('Release notes');
  const guides = platform.collectionId('Guides');
  const finn = platform.userId('finn@example.test');
  return [
    { query: '{ viewer { platformId displayName email } }' },
    {
      query:
        'query Orgs($first: Int, $after: String) { organizations(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id platformId title members(first: 3) { totalCount nodes { role user { displayName } } } } } } }',
      variables: { first: 2 },
    },
    {
      query:
        'query Org($id: ID!) { organization(id: $id) { title plan defaultRole emailDomains spaces(first: 5) { totalCount nodes { title visibility parent { title } } } collections(first: 5) { nodes { title parent { id } } } teams(first: 5) { nodes { title memberCount } } } }',
      variables: { id: 'northwind' },
    },
    {
      query:
        'query Space($id: ID!) { space(id: $id) { id title emoji visibility organization { title } parent { title parent { title } } urls { app public } counts { comments } } }',
      variables: { id: space },
    },
    {
      query:
        'query Node($id: ID!) { node(id: $id) { id __typename ... on Space { title } ... on Organization { title } } }',
      variables: { id: encodeGlobalID('Space', space) },
    },
    {
      query: 'query Nodes($ids: [ID!]!) { nodes(ids: $ids) { id ... on Collection { title } } }',
      variables: { ids: [encodeGlobalID('Collection', guides), 'garbage'] },
    },
    {
      query:
        'query Collection($id: ID!) { collection(id: $id) { title parent { title } spaces(first: 10) { nodes { title } } } }',
      variables: { id: guides },
    },
    {
      query:
        'query Team($org: ID, $id: ID!) { team(organizationId: $org, id: $id) { title memberCount members(first: 5) { nodes { role member { user { email } } } } } }',
      variables: { org: 'northwind', id: writers },
    },
    {
      query:
        'query Member($org: ID!, $user: ID!) { member(organizationId: $org, userId: $user) { role isGuest user { displayName } spaces(first: 2) { totalCount } } }',
      variables: { org: 'northwind', user: finn },
    },
    {
      query: 'query ByDomain($domain: String!) { organizationsByEmailDomain(domain: $domain) { title } }',
      variables: { domain: 'northwind.test' },
    },
    {
      query:
        'query WithFragments { viewer { ...U } organizations(first: 2) { nodes { ...O } } } fragment U on User { id displayName } fragment O on Organization { id title spaces(first: 2) { nodes { ...S } } } fragment S on Space { title }',
    },
    {
      query: 'query Dir($with: Boolean!) { viewer { id email @include(if: $with) displayName @skip(if: $with) } }',
      variables: { with: true },
    },
    {
      query:
        'mutation CreateTeam($input: CreateTeamInput!) { createTeam(input: $input) { team { id title } userErrors { message code field } } }',
      variables: { input: { organizationId: 'northwind', title: 'Fuzz team' } },
    },
    {
      query:
        'mutation UpdateSpace($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { title emoji } userErrors { message code field } } }',
      variables: { input: { spaceId: space, title: 'Release notes', language: 'en' } },
    },
    {
      query:
        'mutation CreateCollection($input: CreateCollectionInput!) { createCollection(input: $input) { collection { title } userErrors { message code field } } }',
      variables: { input: { organizationId: 'northwind', title: 'Fuzz collection', parentId: guides } },
    },
    {
      query:
        'mutation Invite($input: InviteToCollectionInput!) { inviteToCollection(input: $input) { userErrors { message code field upstreamStatus } } }',
      variables: { input: { collectionId: guides, role: 'READ', userIds: [finn] } },
    },
    {
      query: `mutation { updateOrganization(input: { organizationId: "${'southwind'}", inviteLinks: true }) { organization { title inviteLinks } userErrors { code message } } }`,
    },
  ];
}

/** The variables of an operation with one random change: a value of the wrong type or shape, a key added or dropped. */
function mutateVariables(rng: Rng, variables: Record<string, unknown> | undefined): unknown {
  const copy = structuredClone(variables ?? {}) as Record<string, unknown>;
  const keys = Object.keys(copy);
  const key = keys.length ? rng.pick(keys) : 'x';
  const target = copy[key];
  switch (rng.int(7)) {
    case 0:
      copy[key] = randomJson(rng);
      break;
    case 1:
      if (target && typeof target === 'object' && !Array.isArray(target)) {
        const inner = target as Record<string, unknown>;
        const field = rng.pick([...Object.keys(inner), 'unknownField']);
        inner[field] = rng.chance(0.5) ? rng.pick(ODD_VALUES) : randomJson(rng);
      } else copy[key] = { value: target };
      break;
    case 2:
      delete copy[key];
      break;
    case 3:
      copy[randomText(rng, rng.between(1, 10))] = randomJson(rng);
      break;
    case 4:
      copy[key] = 'v'.repeat(rng.between(1_000, 120_000));
      break;
    case 5:
      copy[key] = JSON.parse(
        rng.chance(0.5) ? nestedArrays(rng.between(10, 500)) : nestedObjects(rng.between(10, 500)),
      );
      break;
    default:
      return rng.pick([null, [], 'variables', 42, [copy]]);
  }
  return copy;
}

// A guard, not a bound: a test of many cases takes seconds alone, several times that on a busy machine.
describe('the gateway under hostile input', { timeout: 300_000 }, () => {
  it('answers every mutation of real operations with coded errors, without leaks', async () => {
    problems = [];
    logged.length = 0;
    const before = sent;
    const rng = createRng(SEED);
    const operations = corpus();
    // The corpus is real: each operation is valid for the schema before it is mutated.
    for (const operation of operations) {
      const answer = await send({ label: 'corpus', body: JSON.stringify(operation) });
      const reasons = ((answer.json as { errors?: Array<{ extensions?: { reason?: string } }> }).errors ?? []).map(
        (e) => e.extensions?.reason,
      );
      expect(reasons, operation.query).not.toContain('GRAPHQL_VALIDATION_FAILED');
    }
    for (let i = 0; i < MUTATED_CASES; i += 1) {
      const operation = rng.pick(operations);
      const query = rng.chance(0.85) ? mutateDocumentTimes(rng, operation.query, 3) : operation.query;
      const variables = rng.chance(0.35) ? mutateVariables(rng, operation.variables) : operation.variables;
      const headers: Record<string, string> = rng.chance(0.1) ? { 'x-explain': '1' } : {};
      if (rng.chance(0.1)) {
        const params = new URLSearchParams({ query });
        if (variables !== undefined) params.set('variables', JSON.stringify(variables));
        await send({ label: `mutated #${i} via GET`, method: 'GET', url: `${ENDPOINT}?${params}`, headers });
      } else {
        await send({ label: `mutated #${i}`, body: JSON.stringify({ query, variables }), headers });
      }
    }
    expectNoProblems(MUTATED_CASES, before);
  });

  it('answers hostile documents: long strings, deep nesting, aliases, directives, fragment cycles, many variables', async () => {
    problems = [];
    logged.length = 0;
    const before = sent;
    const rng = createRng(SEED + 1);
    const space = platform.spaceId('Release notes');
    const big = (n: number) => 'n'.repeat(n);
    // A string is the body as sent: JSON.stringify cannot write values nested 10,000 deep.
    const documents: Array<[string, Operation | string]> = [
      // Long strings.
      [
        '100 KB name',
        {
          query:
            'mutation ($t: String!) { createTeam(input: { organizationId: "northwind", title: $t }) { userErrors { code message } } }',
          variables: { t: big(100_000) },
        },
      ],
      [
        '100 KB inline string',
        {
          query: `mutation { createTeam(input: { organizationId: "northwind", title: "${big(100_000)}" }) { userErrors { code } } }`,
        },
      ],
      ['100 KB id', { query: `{ space(id: "${big(100_000)}") { id } }` }],
      ['100 KB global id', { query: `{ node(id: "${big(100_000)}") { id } }` }],
      ['100 KB token', { query: big(100_000) }],
      ['100 KB field name', { query: `{ viewer { ${big(100_000)} } }` }],
      ['100 KB variable name', { query: `query ($${big(100_000)}: Int) { viewer { id } }` }],
      ['100 KB operation name', { query: `query ${big(100_000)} { viewer { id } }`, variables: {} }],
      ['100 KB block string', { query: `{ space(id: """${'\n'.repeat(100_000)}""") { id } }` }],
      ['100 KB of escapes', { query: `{ space(id: "${'\\u0000'.repeat(20_000)}") { id } }` }],
      ['100 KB comment', { query: `{ viewer { id } } #${big(100_000)}` }],
      ['900 KB of blanks', { query: `{ viewer { id } }${' '.repeat(900_000)}` }],
      ['100 KB number', { query: `{ organizations(first: ${'9'.repeat(100_000)}) { totalCount } }` }],
      [
        '100 KB email domain',
        {
          query: 'query ($d: String!) { organizationsByEmailDomain(domain: $d) { title } }',
          variables: { d: `${big(100_000)}.test` },
        },
      ],
      // Deep nesting.
      [
        'selection depth 1000 (real fields)',
        {
          query: `{ space(id: "${space}") { ${'organization { spaces(first: 1) { nodes { '.repeat(333)}id${' } } }'.repeat(333)} } }`,
        },
      ],
      ['selection depth 1000 (unknown fields)', { query: `{ ${'a { '.repeat(1000)}b${' }'.repeat(1000)} }` }],
      [
        'inline fragments nested 1000 deep',
        { query: `{ ${'... on Query { '.repeat(1000)}viewer { id }${' }'.repeat(1000)} }` },
      ],
      ['list literal nested 1000 deep', { query: `{ nodes(ids: ${nestedArrays(1000, '"x"')}) { id } }` }],
      [
        'object literal nested 1000 deep',
        {
          query: `mutation { createTeam(input: ${nestedObjects(1000, 'a', '1').replace(/"/g, '')}) { userErrors { code } } }`,
        },
      ],
      [
        'list variable nested 1000 deep',
        {
          query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
          variables: { ids: JSON.parse(nestedArrays(1000, '"x"')) },
        },
      ],
      [
        'list variable nested 10000 deep',
        `{"query":"query ($ids: [ID!]!) { nodes(ids: $ids) { id } }","variables":{"ids":${nestedArrays(10_000)}}}`,
      ],
      [
        'input variable nested 1000 deep',
        {
          query: 'mutation ($i: CreateTeamInput!) { createTeam(input: $i) { userErrors { code } } }',
          variables: { i: JSON.parse(nestedObjects(1000)) },
        },
      ],
      ['unused variable nested 10000 deep', `{"query":"{ viewer { id } }","variables":{"x":${nestedObjects(10_000)}}}`],
      [
        'input variable nested 10000 deep',
        `{"query":"mutation ($i: CreateTeamInput!) { createTeam(input: $i) { userErrors { code } } }","variables":{"i":${nestedObjects(10_000, 'title')}}}`,
      ],
      [
        'selection nested just below the bracket limit',
        { query: `{ ${'a { '.repeat(MAX_NESTING - 1)}b${' }'.repeat(MAX_NESTING - 1)} }` },
      ],
      [
        'inline fragments nested just below the bracket limit',
        { query: `{ viewer { ${'... on User { '.repeat(MAX_NESTING - 2)}id${' }'.repeat(MAX_NESTING - 2)} } }` },
      ],
      [
        'list literal nested just below the bracket limit',
        { query: `{ nodes(ids: ${nestedArrays(MAX_NESTING - 2, '"x"')}) { id } }` },
      ],
      ['list type nested 1000 deep', { query: `query ($x: ${nestedArrays(1000, 'Int')}) { viewer { id } }` }],
      // Many aliases.
      [
        '1000 aliases of one field',
        { query: `{ viewer { ${Array.from({ length: 1000 }, (_, i) => `a${i}: id`).join(' ')} } }` },
      ],
      [
        '1000 root aliases',
        { query: `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: viewer { id }`).join(' ')} }` },
      ],
      [
        '2000 fields under one response name',
        { query: `{ viewer { ${Array.from({ length: 2000 }, (_, i) => (i % 2 ? 'x: id' : 'x: email')).join(' ')} } }` },
      ],
      [
        '1000 aliased connections with different arguments',
        {
          query: `{ organizations { nodes { ${Array.from({ length: 1000 }, (_, i) => `s: spaces(first: ${i}) { totalCount }`).join(' ')} } } }`,
        },
      ],
      [
        '500 aliased connections',
        {
          query: `{ organizations { nodes { ${Array.from({ length: 500 }, (_, i) => `s${i}: spaces(first: 1000) { nodes { id } }`).join(' ')} } } }`,
        },
      ],
      // Many directives.
      ['2000 @skip on one field', { query: `{ viewer ${'@skip(if: false) '.repeat(2000)}{ id } }` }],
      ['1500 @include on one field', { query: `{ viewer { id ${'@include(if: true) '.repeat(1500)}} }` }],
      ['1500 fields with @include', { query: `{ viewer { ${'id @include(if: true) '.repeat(1500)}} }` }],
      ['4000 unknown directives', { query: `{ viewer { id ${'@nope '.repeat(4000)}} }` }],
      [
        '1000 directives with variables',
        { query: `query ($v: Boolean!) { viewer { ${'email @skip(if: $v) '.repeat(1000)}} }`, variables: { v: false } },
      ],
      // Fragments.
      ['self-spreading fragment', { query: '{ viewer { ...A } } fragment A on User { id ...A }' }],
      ['fragment cycle', { query: '{ viewer { ...A } } fragment A on User { id ...B } fragment B on User { ...A }' }],
      [
        'fragment cycle of 500',
        {
          query: `{ viewer { ...F0 } } ${Array.from({ length: 500 }, (_, i) => `fragment F${i} on User { id ...F${(i + 1) % 500} }`).join(' ')}`,
        },
      ],
      ['unknown fragment', { query: '{ viewer { ...Nope } }' }],
      ['fragment on an unknown type', { query: '{ viewer { ...A } } fragment A on Nope { id }' }],
      [
        'fragment spreading twice, 40 levels',
        {
          query: `{ viewer { ...F0 } } ${Array.from({ length: 40 }, (_, i) => `fragment F${i} on User { id ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F40 on User { id }`,
        },
      ],
      [
        'fragment selecting twice, 40 levels',
        {
          query: `{ viewer { ...F0 } } ${Array.from({ length: 40 }, (_, i) => `fragment F${i} on User { a: displayName ...F${i + 1} b: displayName ...F${i + 1} }`).join(' ')} fragment F40 on User { id }`,
        },
      ],
      [
        'fragments through connections, 12 levels',
        {
          query: `{ space(id: "${space}") { ...F0 } } ${Array.from({ length: 12 }, (_, i) => `fragment F${i} on Space { organization { spaces(first: 2) { nodes { ...F${i + 1} ...F${i + 1} } } } }`).join(' ')} fragment F12 on Space { id }`,
        },
      ],
      [
        'fragment chain of 1000',
        {
          query: `{ viewer { ...F0 } } ${Array.from({ length: 1000 }, (_, i) => `fragment F${i} on User { ...F${i + 1} }`).join(' ')} fragment F1000 on User { id }`,
        },
      ],
      [
        '3000 spreads of one fragment',
        { query: `{ viewer { ${'...F '.repeat(3000)}} } fragment F on User { id displayName }` },
      ],
      // Variables.
      [
        '2000 declared variables',
        {
          query: `query (${Array.from({ length: 2000 }, (_, i) => `$v${i}: Int`).join(' ')}) { viewer { id } }`,
          variables: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`v${i}`, i])),
        },
      ],
      [
        '50000 variables sent',
        {
          query: '{ viewer { id } }',
          variables: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`v${i}`, i])),
        },
      ],
      [
        '100000 ids',
        {
          query: 'query ($ids: [ID!]!) { nodes(ids: $ids) { id } }',
          variables: { ids: Array.from({ length: 100_000 }, (_, i) => `${i}`) },
        },
      ],
      [
        '5000 ids inline',
        { query: `{ nodes(ids: [${Array.from({ length: 3000 }, (_, i) => `"x${i}"`).join(',')}]) { id } }` },
      ],
      [
        'variable of an input type given a list',
        {
          query: 'mutation ($i: CreateTeamInput!) { createTeam(input: $i) { userErrors { code } } }',
          variables: { i: [1, 2, 3] },
        },
      ],
      ['variable of an unknown type', { query: 'query ($x: Nope) { viewer { id } }', variables: { x: 1 } }],
      ['variable of an output type', { query: 'query ($x: Space) { viewer { id } }', variables: { x: {} } }],
      [
        '2000 operations, one chosen',
        { query: Array.from({ length: 2000 }, (_, i) => `query Q${i} { viewer { id } }`).join(' '), variables: {} },
      ],
      // Numbers.
      ['huge first', { query: '{ organizations(first: 2147483647) { totalCount nodes { id } } }' }],
      ['first above Int', { query: '{ organizations(first: 99999999999999999999) { totalCount } }' }],
      ['negative first', { query: '{ organizations(first: -5) { nodes { id } } }' }],
      [
        'first as a float variable',
        { query: 'query ($f: Int) { organizations(first: $f) { totalCount } }', variables: { f: 1e300 } },
      ],
      [
        'nested first 1000 × 1000 × 1000',
        {
          query:
            '{ organizations(first: 1000) { nodes { spaces(first: 1000) { nodes { organization { members(first: 1000) { nodes { role } } } } } } } }',
        },
      ],
      [
        'introspection 6 levels',
        { query: '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }' },
      ],
    ];
    for (const [label, operation] of documents) {
      await send({ label, body: typeof operation === 'string' ? operation : JSON.stringify(operation) });
    }
    // The same shapes at random sizes and positions.
    for (let i = 0; i < 150; i += 1) {
      const n = rng.between(1, 3000);
      const shape = rng.int(6);
      const query = [
        () => `{ ${'viewer { '.repeat(rng.between(1, 3))}${'x { '.repeat(n)}id${' }'.repeat(n)}${' }'.repeat(3)}`,
        () =>
          `{ viewer { ${Array.from({ length: n }, (_, k) => `a${k}: ${rng.pick(['id', 'email', 'displayName'])}`).join(' ')} } }`,
        () =>
          `{ viewer { id ${`@${rng.pick(['skip', 'include'])}(if: ${rng.pick(['true', 'false', '$v', '1', 'null'])}) `.repeat(n)}} }`,
        () =>
          `{ viewer { ...F0 } } ${Array.from({ length: n % 60 }, (_, k) => `fragment F${k} on User { id ${'...F'.concat(String(rng.int(n % 60 || 1)), ' ').repeat(rng.between(1, 3))}}`).join(' ')}`,
        () =>
          `query (${Array.from({ length: n }, (_, k) => `$v${k}: ${rng.pick(['Int', 'String!', '[ID!]', 'Boolean', 'CreateTeamInput'])}`).join(' ')}) { viewer { id } }`,
        () => `{ nodes(ids: ${nestedArrays(n, `"${randomText(rng, 5).replace(/["\\]/g, '')}"`)}) { id } }`,
      ][shape]!();
      const variables = rng.chance(0.5) ? { v: randomJson(rng) } : undefined;
      await send({ label: `hostile #${i} shape ${shape} size ${n}`, body: JSON.stringify({ query, variables }) });
    }
    expectNoProblems(documents.length + 150, before);
  });

  it('answers hostile HTTP: content types, invalid or non-object JSON, batches, long GETs, unknown methods', async () => {
    problems = [];
    logged.length = 0;
    const before = sent;
    const rng = createRng(SEED + 2);
    const query = '{ viewer { displayName } }';
    const valid = JSON.stringify({ query });
    const form = new FormData();
    form.append('operations', valid);
    form.append('map', '{}');
    const manyParts = new FormData();
    for (let i = 0; i < 2000; i += 1) manyParts.append(`part${i}`, 'x');
    manyParts.append('operations', valid);
    const requests: Sent[] = [
      { label: 'text/plain', headers: { 'content-type': 'text/plain' }, body: valid },
      { label: 'no content type', headers: { 'content-type': '' }, body: valid },
      { label: 'no content type, no token', defaults: false, body: valid },
      {
        label: 'form-urlencoded',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ query }).toString(),
      },
      {
        label: 'form-urlencoded garbage',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '%%%&&&=&query=%zz&variables=%7B',
      },
      {
        label: 'form-urlencoded repeated keys',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: `query=${encodeURIComponent(query)}&query=x&variables={}&variables=[]`,
      },
      { label: 'multipart', headers: { 'content-type': '' }, body: form },
      { label: 'multipart with 2000 parts', headers: { 'content-type': '' }, body: manyParts },
      {
        label: 'multipart garbage',
        headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
        body: '--xyz\r\ngarbage',
      },
      { label: 'multipart without boundary', headers: { 'content-type': 'multipart/form-data' }, body: valid },
      { label: 'application/graphql', headers: { 'content-type': 'application/graphql' }, body: query },
      { label: 'application/graphql garbage', headers: { 'content-type': 'application/graphql' }, body: '{{{{' },
      { label: 'json in utf-16', headers: { 'content-type': 'application/json; charset=utf-16' }, body: valid },
      { label: 'json with a BOM', body: `\ufeff${valid}` },
      { label: 'xml', headers: { 'content-type': 'application/xml' }, body: '<query/>' },
      {
        label: 'octet-stream',
        headers: { 'content-type': 'application/octet-stream' },
        body: new Uint8Array([0, 1, 2, 255]),
      },
      { label: 'empty json body', body: '' },
      { label: 'invalid json', body: '{"query":' },
      { label: 'json number', body: '42' },
      { label: 'json string', body: '"{ viewer { id } }"' },
      { label: 'json null', body: 'null' },
      { label: 'json true', body: 'true' },
      { label: 'empty batch', body: '[]' },
      { label: 'batch of two', body: JSON.stringify([{ query }, { query }]) },
      { label: 'batch of 1000', body: JSON.stringify(Array.from({ length: 1000 }, () => ({ query }))) },
      { label: 'batch of numbers', body: '[1,2,3]' },
      { label: 'body nested 100000 deep', body: nestedArrays(100_000) },
      { label: 'object nested 100000 deep', body: nestedObjects(100_000, 'query') },
      { label: 'query is an object', body: JSON.stringify({ query: { kind: 'Document' } }) },
      { label: 'query is null', body: JSON.stringify({ query: null }) },
      { label: 'variables is a string', body: JSON.stringify({ query, variables: '{"a":1}' }) },
      { label: 'variables is an array', body: JSON.stringify({ query, variables: [1] }) },
      { label: 'operationName is a number', body: JSON.stringify({ query, operationName: 5 }) },
      { label: 'operationName unknown', body: JSON.stringify({ query, operationName: 'Nope' }) },
      { label: 'extensions is a string', body: JSON.stringify({ query, extensions: 'x' }) },
      {
        label: 'persisted query hash',
        body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }),
      },
      { label: 'duplicate keys', body: `{"query":"${query}","query":{}}` },
      {
        label: '__proto__ key',
        body: `{"query":"${query}","__proto__":{"polluted":1},"variables":{"__proto__":{"x":1}}}`,
      },
      { label: 'GET without query', method: 'GET', body: null },
      { label: 'GET', method: 'GET', url: `${ENDPOINT}?query=${encodeURIComponent(query)}` },
      {
        label: 'GET mutation',
        method: 'GET',
        url: `${ENDPOINT}?query=${encodeURIComponent('mutation { pingOrganization(input: { organizationId: "northwind" }) { userErrors { code } } }')}`,
      },
      { label: 'GET 100 KB query', method: 'GET', url: `${ENDPOINT}?query=${'x'.repeat(100_000)}` },
      { label: 'GET 1 MB query', method: 'GET', url: `${ENDPOINT}?query=${'x'.repeat(LIMIT)}` },
      {
        label: 'GET 1 MB of variables',
        method: 'GET',
        url: `${ENDPOINT}?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ v: 'v'.repeat(LIMIT) }))}`,
      },
      {
        label: 'GET invalid variables',
        method: 'GET',
        url: `${ENDPOINT}?query=${encodeURIComponent(query)}&variables=%7B`,
      },
      {
        label: 'GET repeated query keys',
        method: 'GET',
        url: `${ENDPOINT}?${'query=x&'.repeat(5000)}query=${encodeURIComponent(query)}`,
      },
      { label: 'GET percent garbage', method: 'GET', url: `${ENDPOINT}?query=%E0%A4%A&variables=%00%ff&extensions=%` },
      {
        label: 'GET accepting HTML only',
        method: 'GET',
        url: `${ENDPOINT}?query=${encodeURIComponent(query)}`,
        headers: { accept: 'text/html' },
      },
      { label: 'accepting images only', headers: { accept: 'image/png' }, body: valid },
      { label: 'accepting nothing', headers: { accept: '*/*;q=0' }, body: valid },
      { label: 'event stream', headers: { accept: 'text/event-stream' }, body: valid },
      {
        label: 'graphql-response+json',
        headers: { accept: 'application/graphql-response+json' },
        body: JSON.stringify({ query: '{ viewer { nope } }' }),
      },
      { label: 'unknown path', url: 'http://gateway.test/nope', method: 'GET' },
      { label: 'path below the endpoint', url: `${ENDPOINT}/x`, body: valid },
      { label: 'traversal path', url: 'http://gateway.test/graphql/../graphql/%2e%2e/%00', body: valid },
      { label: 'basic authorization', headers: { authorization: 'Basic YWRhOnNlY3JldA==' }, body: valid },
      { label: 'two bearer tokens', headers: { authorization: 'Bearer a b' }, body: valid },
      { label: 'revoked token', headers: { authorization: 'Bearer not-a-token' }, body: valid },
      { label: '20 KB token', headers: { authorization: `Bearer ${'t'.repeat(20_000)}` }, body: valid },
      { label: 'token with control characters', headers: { authorization: 'Bearer a\tb' }, body: valid },
      { label: 'x-explain garbage', headers: { 'x-explain': 'yes please' }, body: valid },
    ];
    for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'FOO', 'M-SEARCH', 'get', 'post']) {
      requests.push({
        label: `method ${method}`,
        method,
        body: ['HEAD', 'GET', 'get'].includes(method) ? null : valid,
      });
    }
    for (const request of requests) await send(request);
    // Random bodies: valid ones cut short, random JSON, random text, under random content types.
    for (let i = 0; i < 200; i += 1) {
      const kind = rng.int(4);
      const body =
        kind === 0
          ? valid.slice(0, rng.int(valid.length))
          : kind === 1
            ? JSON.stringify(randomJson(rng, 4))
            : kind === 2
              ? randomText(rng, rng.between(0, 2000))
              : JSON.stringify({
                  query: randomText(rng, rng.between(0, 500)),
                  variables: randomJson(rng),
                  operationName: randomJson(rng, 1),
                });
      const contentType = rng.pick([
        'application/json',
        'application/json',
        'application/graphql',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=b',
        randomText(rng, 12),
      ]);
      const headers: Record<string, string> = {};
      // Header values cannot hold control characters: a client could not send them.
      headers['content-type'] = /^[\x20-\x7e]*$/.test(contentType) ? contentType : 'application/json';
      await send({
        label: `random body #${i} (${kind})`,
        method: rng.pick(['POST', 'POST', 'POST', 'PUT', 'PATCH']),
        headers,
        body,
      });
    }
    expectNoProblems(requests.length + 200, before);
  });

  it('answers bodies just below and just above the 1 MB limit, with or without a declared length', async () => {
    problems = [];
    logged.length = 0;
    const before = sent;
    const shell = (size: number) => {
      const empty = JSON.stringify({ query: '{ viewer { id } }', variables: { pad: '' } });
      return JSON.stringify({ query: '{ viewer { id } }', variables: { pad: 'p'.repeat(size - empty.length) } });
    };
    const stream = (text: string) => {
      const bytes = new TextEncoder().encode(text);
      return new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 64 * 1024) controller.enqueue(bytes.slice(at, at + 64 * 1024));
          controller.close();
        },
      });
    };
    for (const size of [LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 1000, 2 * LIMIT]) {
      const text = shell(size);
      const answer = await send({ label: `${size} bytes`, body: text, source: '' });
      expect(answer.status, `${size} bytes`).toBe(size > LIMIT ? 413 : 200);
      const streamed = await send({ label: `${size} bytes without a length`, body: stream(text), source: '' });
      expect(streamed.status, `${size} bytes streamed`).toBe(size > LIMIT ? 413 : 200);
    }
    const lie = await send({
      label: 'a declared length larger than the limit',
      headers: { 'content-length': String(LIMIT + 1) },
      body: '{}',
    });
    expect([400, 413]).toContain(lie.status);
    expectNoProblems(11, before);
  });

  it('names the limit or the fault of what the fuzz found answered badly before', async () => {
    const extensionsOf = async (request: Sent) => {
      const answer = await send(request);
      return {
        status: answer.status,
        extensions: (answer.json as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions,
      };
    };
    problems = [];
    logged.length = 0;
    const fanOut = `{ viewer { ...F0 } } ${Array.from({ length: 40 }, (_, i) => `fragment F${i} on User { id ...F${i + 1} ...F${i + 1} }`).join(' ')} fragment F40 on User { id }`;
    expect(await extensionsOf({ label: 'fragment fan-out', body: JSON.stringify({ query: fanOut }) })).toEqual({
      status: 200,
      extensions: {
        code: 'BAD_USER_INPUT',
        reason: 'GRAPHQL_VALIDATION_FAILED',
        limit: 'expandedFields',
        value: 2 ** 41,
        max: 20_000,
      },
    });
    expect(
      await extensionsOf({
        label: 'nested lists',
        body: JSON.stringify({ query: `{ nodes(ids: ${nestedArrays(3000, '"x"')}) { id } }` }),
      }),
    ).toEqual({
      status: 200,
      extensions: {
        code: 'BAD_USER_INPUT',
        reason: 'GRAPHQL_PARSE_FAILED',
        limit: 'nesting',
        value: 3002,
        max: MAX_NESTING,
      },
    });
    expect(
      await extensionsOf({
        label: 'GET with invalid variables',
        method: 'GET',
        url: `${ENDPOINT}?query=%7B__typename%7D&variables=%7B`,
      }),
    ).toEqual({
      status: 400,
      extensions: { code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST' },
    });
    expect(await extensionsOf({ label: 'text/plain', headers: { 'content-type': 'text/plain' }, body: '{}' })).toEqual({
      status: 415,
      extensions: { code: 'BAD_USER_INPUT', reason: 'UNSUPPORTED_MEDIA_TYPE' },
    });
    expect(
      await extensionsOf({
        label: 'images only',
        headers: { accept: 'image/png' },
        body: '{"query":"{ __typename }"}',
      }),
    ).toEqual({
      status: 406,
      extensions: { code: 'BAD_USER_INPUT', reason: 'NOT_ACCEPTABLE' },
    });
    expect(await extensionsOf({ label: 'unknown path', method: 'GET', url: 'http://gateway.test/nope' })).toEqual({
      status: 404,
      extensions: { code: 'NOT_FOUND', reason: 'NOT_FOUND' },
    });
    expectNoProblems(6, sent - 6);
  });

  // A known bug the fuzz found (seeds 4 and 5), left to the owners of src/gateway/upstream/encode.ts and
  // upstream/client.ts: an id holding a lone surrogate makes encodeURIComponent throw while the REST
  // path is built, answered INTERNAL_SERVER_ERROR and logged. Once fixed, this fails: make it `it`.
  it('answers ids holding a lone surrogate without an internal error', async () => {
    problems = [];
    logged.length = 0;
    for (const query of [
      'query ($id: ID!) { space(id: $id) { id } }',
      'query ($id: ID!) { team(id: $id, organizationId: "northwind") { id } }',
    ]) {
      const answer = await send({
        label: 'lone surrogate',
        body: JSON.stringify({ query, variables: { id: 'a\ud800b' } }),
      });
      const codes = (answer.json as { errors?: Array<{ extensions: { code: string } }> }).errors?.map(
        (error) => error.extensions.code,
      );
      expect(codes).not.toContain('INTERNAL_SERVER_ERROR');
    }
    expect(logged).toEqual([]);
  });

  // How fast the refusal is, is measured in bench/run.ts (section costModel); here, that it comes
  // from the byte budget: with the limit read, before anything is parsed or asked of the platform.
  it('refuses a 1 MB query at the byte budget, having read no more than the limit', async () => {
    platform.app.stats.reset();
    const response = await gateway.fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
      body: JSON.stringify({ query: 'x'.repeat(LIMIT) }),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'PAYLOAD_TOO_LARGE',
      limit: LIMIT,
    });

    // A body that never ends, read chunk by chunk: the answer can only come from the bound, since
    // the end the parser would wait for never comes; the rest is never asked for.
    const CHUNK = 64 * 1024;
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulled += CHUNK;
          controller.enqueue(new Uint8Array(CHUNK).fill(0x78));
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const endlessAnswer = await gateway.fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(endlessAnswer.status).toBe(413);
    expect(((await endlessAnswer.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]!.extensions).toEqual({
      code: 'BAD_USER_INPUT',
      reason: 'PAYLOAD_TOO_LARGE',
      limit: LIMIT,
    });
    expect(cancelled).toBe(true);
    expect(pulled).toBeGreaterThan(LIMIT);
    expect(pulled).toBeLessThanOrEqual(LIMIT + 2 * CHUNK);
    expect(platform.app.stats.count).toBe(0);
  });

  it('still answers a normal query correctly afterwards', async () => {
    const response = await gateway.fetch(ENDPOINT, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
      body: JSON.stringify({ query: '{ viewer { displayName } organization(id: "northwind") { platformId } }' }),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { data: unknown; errors?: unknown };
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ viewer: { displayName: 'Ada Lovelace' }, organization: { platformId: 'northwind' } });
  });
});
