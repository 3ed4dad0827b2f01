import { mkdtempSync, rmSync } from 'node:fs';
import {
  Agent,
  request as httpRequest,
  type ClientRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type RunningPlatform } from '../../src/platform/server.js';
import { createRng, findLeak, nestedArrays, nestedObjects, randomText } from '../fixtures/fuzz.js';
import { servedOperations } from '../fixtures/operations.js';
import { buildFuzzTargets, type FuzzRequest, type FuzzTargets, routeCases } from '../fixtures/platform-fuzz.js';
import { startTestPlatform } from '../fixtures/platform.js';

// Fixed, so every run sends the same cases; FUZZ_SEED explores others locally.
const SEED = Number(process.env.FUZZ_SEED ?? 20240611);
const ROUTE_CASES = 1500;
const RAW_CASES = 200;
/**
 * How long one request may go unanswered before it counts as hung, naming its case: a guard, far
 * past what a busy machine takes. How fast the answers come is measured in `bench/run.ts`
 * (section platformFuzz), never asserted here.
 */
const HUNG_MS = 60_000;
/** How long a test of many cases may take before it counts as hung: seconds alone, several times that on a busy machine. */
const FUZZ_GUARD_MS = 300_000;

let platform: RunningPlatform;
let dataDir: string;
let port: number;
let agent: Agent;
let adminToken: string;
let targets: FuzzTargets;
/** Problems found, per test; each test ends by expecting none. */
let problems: string[] = [];
let sent = 0;

// The organizations are built through the test platform, then the fuzzing runs on the platform alone over the
// same database, without the test fixture's check of every answer against the API description: that check runs
// inside the platform's answer path, so it would count in the time of each answer, and it judges requests of
// the API, not deliberately broken ones.
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'platform-fuzz-'));
  const builder = await startTestPlatform({ seed: false, dataDir });
  targets = await buildFuzzTargets(builder);
  await builder.destroy();
  platform = await startPlatform({ dataDir, port: 0, seed: false });
  port = Number(new URL(platform.url).port);
  agent = new Agent({ keepAlive: true, maxSockets: 1 });
  adminToken = targets.tokens[0]!;
});
afterAll(async () => {
  agent?.destroy();
  await platform?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders | Record<string, string>;
  text: string;
}

/** Sends a well-formed request with `node:http` (over one keep-alive connection) and checks the answer. */
async function send(request: FuzzRequest): Promise<Answer | undefined> {
  sent += 1;
  // node:http sends the body of a GET, HEAD, DELETE or OPTIONS without framing it, and the
  // platform then rightly reads it as the next request: a body always gets its length.
  const headers =
    request.body === undefined
      ? request.headers
      : { 'content-length': String(Buffer.byteLength(request.body)), ...request.headers };
  const answer = await new Promise<Answer | string>((resolve) => {
    const outgoing = requestOrError(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) => resolve(`the answer broke off: ${error.message}`));
      },
    );
    if (typeof outgoing === 'string') return resolve(`could not be sent (fix the generator): ${outgoing}`);
    outgoing.on('error', (error) => resolve(`no answer: ${error.message}`));
    outgoing.setTimeout(HUNG_MS, () => outgoing.destroy(new Error(`no answer in ${HUNG_MS / 1000} s`)));
    outgoing.end(request.body);
  });
  const source = `${request.path} ${request.body ?? ''} ${JSON.stringify(request.headers ?? {})}`;
  if (typeof answer === 'string') {
    problems.push(`${summarize(request)}: ${answer}`);
    return undefined;
  }
  check(answer, request.method, summarize(request), source);
  return answer;
}

/** `http.request`, or why it refused to send (a path or header `node:http` finds malformed). */
function requestOrError(
  options: RequestOptions,
  onResponse: (response: IncomingMessage) => void,
): ClientRequest | string {
  try {
    return httpRequest(options, onResponse);
  } catch (error) {
    return String(error);
  }
}

/** Writes bytes on a fresh connection (for what `node:http` refuses to send), reads until it closes, and checks the answer. */
async function sendRaw(label: string, bytes: string | Buffer, method = 'GET'): Promise<Answer | undefined> {
  sent += 1;
  const received = await new Promise<Buffer | string>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(`no answer in ${HUNG_MS / 1000} s`);
    }, HUNG_MS);
    socket.on('data', (chunk) => chunks.push(chunk));
    // The server may reset a connection it refused while bytes were still arriving.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.write(bytes, () => socket.end());
  });
  const where = `${label} (raw ${JSON.stringify(String(bytes).slice(0, 120))})`;
  if (typeof received === 'string') {
    problems.push(`${where}: ${received}`);
    return undefined;
  }
  const answer = parseRawAnswer(received);
  if (!answer) {
    problems.push(`${where}: no HTTP answer, got ${JSON.stringify(received.toString('latin1').slice(0, 200))}`);
    return undefined;
  }
  check(answer, method, where, String(bytes));
  return answer;
}

/** The last final (non-1xx) answer of a raw HTTP/1.1 exchange, its chunked body decoded. */
function parseRawAnswer(bytes: Buffer): Answer | undefined {
  let text = bytes.toString('latin1');
  for (;;) {
    const end = text.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? Number.NaN);
    if (Number.isNaN(status)) return undefined;
    let rest = text.slice(end + 4);
    if (status < 200) {
      text = rest;
      continue;
    }
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    if (headers['transfer-encoding'] === 'chunked') {
      let body = '';
      for (;;) {
        const lineEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.slice(0, lineEnd), 16);
        if (!(size > 0)) break;
        body += rest.slice(lineEnd + 2, lineEnd + 2 + size);
        rest = rest.slice(lineEnd + 2 + size + 2);
      }
      rest = body;
    } else if (headers['content-length'] !== undefined) {
      rest = rest.slice(0, Number(headers['content-length']));
    }
    return { status, headers, text: Buffer.from(rest, 'latin1').toString('utf8') };
  }
}

function summarize(request: FuzzRequest): string {
  const path =
    request.path.length > 120 ? `${request.path.slice(0, 120)}… (${request.path.length} chars)` : request.path;
  const body = request.body === undefined ? '' : ` ${JSON.stringify(String(request.body).slice(0, 100))}`;
  return `${request.label} (${request.method} ${path}${body})`;
}

/**
 * The rules of every answer: no 5xx, no stack or internal path, and every error in the
 * platform's shape `{ error: { code, message } }` with `code` equal to the status.
 */
function check(answer: Answer, method: string, where: string, source: string): void {
  const fail = (what: string): void => {
    problems.push(`${where}: ${what}; answer ${answer.status} ${JSON.stringify(answer.text.slice(0, 300))}`);
  };
  if (answer.status >= 500) fail(`status ${answer.status}`);
  const leak = findLeak(answer.text, source);
  if (leak) fail(`leaks a ${leak}`);
  if (method === 'HEAD' || answer.status === 204 || answer.status === 205) {
    if (answer.text !== '') fail('a body where none may be');
    return;
  }
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    fail('the body is not JSON');
    return;
  }
  if (answer.status < 400) return;
  const error = (body as { error?: { code?: unknown; message?: unknown } })?.error;
  if (!error || error.code !== answer.status || typeof error.message !== 'string' || error.message === '') {
    fail('not in the error shape { error: { code: <status>, message } }');
  } else if (
    Object.keys(body as object).length !== 1 ||
    !errorShapes.some((keys) => sameKeys(Object.keys(error), keys))
  ) {
    fail("more than { error: { code, message } }, or a budget's { limit, value, max } or a 404's parameter besides");
  }
}

/**
 * The keys of an error: any error's, a refused budget's (which names it, the value and the
 * maximum), or a 404's that names the path parameter naming nothing.
 */
const errorShapes = [
  ['code', 'message'],
  ['code', 'message', 'limit', 'value', 'max'],
  ['code', 'message', 'parameter'],
];
const sameKeys = (keys: string[], expected: string[]) =>
  keys.length === expected.length && expected.every((key) => keys.includes(key));

function expectNoProblems(minimumFuzzRequest: number, before: number): void {
  expect(problems.slice(0, 15), `${problems.length} problems (seed ${SEED}), first ones listed`).toEqual([]);
  expect(sent - before).toBeGreaterThanOrEqual(minimumFuzzRequest);
}

describe('the platform under hostile input', () => {
  it('answers random requests to every route: odd ids, query strings, bodies, headers', {
    timeout: FUZZ_GUARD_MS,
  }, async () => {
    problems = [];
    const before = sent;
    const rng = createRng(SEED);
    const routes = [
      ...servedOperations(platform.app.registeredRoutes).map(({ method, path }) => ({ method, path })),
      { method: 'GET', path: '/health' },
      { method: 'GET', path: '/ready' },
      { method: 'PUT', path: '/storage/upload' },
    ];
    for (const request of routeCases(rng, ROUTE_CASES, { routes, ...targets })) await send(request);
    expectNoProblems(ROUTE_CASES, before);
  });

  it('answers hostile paths, query strings, bodies and headers', { timeout: FUZZ_GUARD_MS }, async () => {
    problems = [];
    const before = sent;
    const auth = { authorization: `Bearer ${adminToken}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const space = targets.publicSpace;
    const org = targets.org;
    const cases: FuzzRequest[] = [
      { label: 'path of 10 KB', method: 'GET', path: `/v1/orgs/${'a'.repeat(10_000)}`, headers: auth },
      { label: 'path of 15 KB', method: 'GET', path: `/v1/${'a/'.repeat(7_500)}`, headers: auth },
      { label: 'id of 500', method: 'GET', path: `/v1/spaces/${'s'.repeat(500)}`, headers: auth },
      { label: 'id of 501', method: 'GET', path: `/v1/spaces/${'s'.repeat(501)}`, headers: auth },
      { label: 'percent garbage', method: 'GET', path: '/v1/orgs/%E0%A4%A/members', headers: auth },
      { label: 'lone percent', method: 'GET', path: '/v1/%', headers: auth },
      { label: 'encoded null', method: 'GET', path: `/v1/orgs/${org}%00`, headers: auth },
      { label: 'overlong UTF-8', method: 'GET', path: '/v1/orgs/%C0%AE%C0%AE/x', headers: auth },
      { label: 'dot segments', method: 'GET', path: '/v1/orgs/../../../etc/passwd', headers: auth },
      { label: 'encoded dot segments', method: 'GET', path: '/v1/orgs/%2e%2e/%2e%2e/etc/passwd', headers: auth },
      { label: 'encoded slash in an id', method: 'GET', path: `/v1/orgs/${org}%2Fmembers`, headers: auth },
      { label: 'double slashes', method: 'GET', path: `//v1//orgs//${org}`, headers: auth },
      { label: 'root', method: 'GET', path: '/', headers: auth },
      { label: 'api root', method: 'GET', path: '/v1', headers: auth },
      { label: 'no route, no token', method: 'GET', path: '/v1/nothing-here' },
      { label: 'query of 15 KB', method: 'GET', path: `/v1/orgs?limit=${'1'.repeat(15_000)}`, headers: auth },
      { label: '2000 repeated keys', method: 'GET', path: `/v1/orgs?${'limit=1&'.repeat(2000)}`, headers: auth },
      {
        label: '1000 distinct keys',
        method: 'GET',
        path: `/v1/orgs?${Array.from({ length: 1000 }, (_, i) => `k${i}=${i}`).join('&')}`,
        headers: auth,
      },
      { label: 'array syntax', method: 'GET', path: '/v1/orgs?limit[]=1&limit[]=2&page[o]=1', headers: auth },
      {
        label: 'prototype keys',
        method: 'GET',
        path: '/v1/orgs?__proto__=1&constructor=2&hasOwnProperty=3',
        headers: auth,
      },
      { label: 'empty keys', method: 'GET', path: '/v1/orgs?&&=&==&limit', headers: auth },
      { label: 'percent garbage in the query', method: 'GET', path: '/v1/orgs?limit=%&page=%zz&%=1', headers: auth },
      {
        label: 'forged page token',
        method: 'GET',
        path: `/v1/orgs?page=${Buffer.from('{"o":1e400}').toString('base64url')}`,
        headers: auth,
      },
      { label: 'invalid JSON', method: 'PATCH', path: `/v1/spaces/${space}`, headers: json, body: '{"title":' },
      {
        label: 'JSON with a BOM',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: '\ufeff{"title":"x"}',
      },
      { label: 'JSON array', method: 'PATCH', path: `/v1/spaces/${space}`, headers: json, body: '[{"title":"x"}]' },
      { label: 'JSON string', method: 'PATCH', path: `/v1/spaces/${space}`, headers: json, body: '"title"' },
      { label: 'JSON null', method: 'PATCH', path: `/v1/spaces/${space}`, headers: json, body: 'null' },
      {
        label: 'wrong types',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: JSON.stringify({ title: 5, emoji: [], visibility: {}, language: null }),
      },
      {
        label: 'unknown fields',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: JSON.stringify({ nope: 1, __proto__: { admin: true } }),
      },
      {
        label: 'prototype pollution',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: '{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
      },
      {
        label: '1 MB title',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: JSON.stringify({ title: 't'.repeat(1_000_000) }),
      },
      {
        label: 'body just under the body limit',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: JSON.stringify({ title: 't'.repeat(5 * 1024 * 1024 - 20) }),
      },
      {
        label: 'body just over the body limit',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: JSON.stringify({ title: 't'.repeat(5 * 1024 * 1024) }),
      },
      {
        label: 'arrays nested 100000 deep',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: `{"title":${nestedArrays(100_000)}}`,
      },
      {
        label: 'objects nested 100000 deep',
        method: 'PATCH',
        path: `/v1/spaces/${space}`,
        headers: json,
        body: `{"title":${nestedObjects(100_000)}}`,
      },
      {
        label: 'a document nested 10000 deep',
        method: 'PUT',
        path: `/v1/orgs/${org}/agent-instructions`,
        headers: json,
        body: `{"instructions":{"object":"document","data":{},"nodes":[${'{"object":"block","type":"paragraph","nodes":['.repeat(10_000)}${']}'.repeat(10_000)}]}}`,
      },
      {
        label: 'a document nested 1000 deep',
        method: 'PUT',
        path: `/v1/orgs/${org}/agent-instructions`,
        headers: json,
        body: `{"instructions":{"object":"document","data":{},"nodes":[${'{"object":"block","type":"paragraph","nodes":['.repeat(1_000)}${']}'.repeat(1_000)}]}}`,
      },
      {
        label: 'a document with 20000 nodes',
        method: 'PUT',
        path: `/v1/orgs/${org}/agent-instructions`,
        headers: json,
        body: JSON.stringify({
          instructions: {
            object: 'document',
            data: {},
            nodes: Array.from({ length: 20_000 }, () => ({ object: 'block', type: 'paragraph' })),
          },
        }),
      },
      {
        label: 'memberships with 50000 keys',
        method: 'PUT',
        path: `/v1/orgs/${org}/teams`,
        headers: json,
        body: JSON.stringify({
          title: 'Fuzz',
          memberships: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`u${i}`, { role: 'member' }])),
        }),
      },
      {
        label: '10000 users invited',
        method: 'POST',
        path: `/v1/collections/${targets.guides}/permissions`,
        headers: json,
        body: JSON.stringify({ role: 'read', users: Array.from({ length: 10_000 }, (_, i) => `u${i}`) }),
      },
      { label: 'body on GET', method: 'GET', path: '/v1/user', headers: json, body: '{"x":' },
      {
        label: 'body on DELETE',
        method: 'DELETE',
        path: `/v1/orgs/${org}/link-invites/none`,
        headers: json,
        body: '{"x":1}',
      },
      {
        label: 'text/plain body',
        method: 'POST',
        path: `/v1/orgs/${org}/ping`,
        headers: { ...auth, 'content-type': 'text/plain' },
        body: 'hello',
      },
      {
        label: 'form body',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'title=x',
      },
      {
        label: 'multipart body',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: { ...auth, 'content-type': 'multipart/form-data; boundary=b' },
        body: '--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nx\r\n--b--',
      },
      {
        label: 'no content type',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: auth,
        body: '{"title":"x"}',
      },
      {
        label: 'content type garbage',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: { ...auth, 'content-type': 'application/json; charset=klingon' },
        body: '{"title":"x"}',
      },
      {
        label: 'json subtype',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: { ...auth, 'content-type': 'application/merge-patch+json' },
        body: '{"title":"x"}',
      },
      {
        label: 'gzip we cannot read',
        method: 'POST',
        path: `/v1/orgs/${org}/collections`,
        headers: { ...json, 'content-encoding': 'gzip' },
        body: '{"title":"x"}',
      },
      { label: 'no token', method: 'GET', path: '/v1/user' },
      { label: 'empty bearer', method: 'GET', path: '/v1/user', headers: { authorization: 'Bearer ' } },
      { label: 'basic auth', method: 'GET', path: '/v1/user', headers: { authorization: 'Basic YWRhOnNlY3JldA==' } },
      { label: 'two tokens', method: 'GET', path: '/v1/user', headers: { authorization: 'Bearer a b' } },
      {
        label: 'two authorization headers',
        method: 'GET',
        path: '/v1/user',
        headers: { authorization: ['Bearer a', `Bearer ${adminToken}`] },
      },
      {
        label: '15 KB token',
        method: 'GET',
        path: '/v1/user',
        headers: { authorization: `Bearer ${'t'.repeat(15_000)}` },
      },
      { label: 'token with SQL', method: 'GET', path: '/v1/user', headers: { authorization: "Bearer ' OR '1'='1" } },
      {
        label: '100 headers of 100 bytes',
        method: 'GET',
        path: '/v1/user',
        headers: {
          ...auth,
          ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, 'h'.repeat(100)])),
        },
      },
      {
        label: 'header of 20 KB',
        method: 'GET',
        path: '/v1/user',
        headers: { ...auth, 'x-big': 'h'.repeat(20_000) },
      },
      {
        label: 'headers of 64 KB',
        method: 'GET',
        path: '/v1/user',
        headers: {
          ...auth,
          ...Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`x-h${i}`, 'h'.repeat(1000)])),
        },
      },
      { label: 'query of 20 KB', method: 'GET', path: `/v1/orgs?limit=${'1'.repeat(20_000)}`, headers: auth },
      {
        label: 'unsupported expectation',
        method: 'POST',
        path: `/v1/orgs/${org}/ping`,
        headers: { ...json, expect: '100-banana' },
        body: '{}',
      },
      { label: 'OPTIONS', method: 'OPTIONS', path: '/v1/user', headers: auth },
      { label: 'TRACE', method: 'TRACE', path: '/v1/user', headers: auth },
      { label: 'PROPFIND', method: 'PROPFIND', path: '/v1/user', headers: auth },
      { label: 'HEAD', method: 'HEAD', path: '/v1/user', headers: auth },
    ];
    for (const request of cases) await send(request);
    expectNoProblems(cases.length, before);
  });

  it('answers what node:http would not send: malformed request lines, headers and framing, in the error shape', {
    timeout: FUZZ_GUARD_MS,
  }, async () => {
    problems = [];
    const before = sent;
    const rng = createRng(SEED + 1);
    const token = adminToken;
    const org = targets.org;
    const valid = `GET /v1/user HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;
    const fixed: Array<[string, string | Buffer, number?]> = [
      ['valid', valid, 200],
      ['header of 20 KB', `GET /v1/user HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
      ['request line of 20 KB', `GET /v1/${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
      ['garbage request line', 'GARBAGE\r\n\r\n', 400],
      ['invalid method', 'G@T /v1/user HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['unknown HTTP version', 'GET /v1/user HTTP/9.9\r\nHost: x\r\n\r\n', 400],
      ['no version', 'GET /v1/user\r\nHost: x\r\n\r\n'],
      ['null byte in the path', 'GET /v1/us\0er HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['space in the path', 'GET /v1/us er HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      [
        'raw UTF-8 in the path',
        Buffer.from('GET /v1/orgs/café HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 'utf8'),
      ],
      ['no Host', 'GET /v1/user HTTP/1.1\r\nConnection: close\r\n\r\n', 400],
      [
        'two Hosts',
        `GET /v1/user HTTP/1.1\r\nHost: a\r\nHost: b\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ],
      ['HTTP/1.0 without Host', `GET /v1/user HTTP/1.0\r\nAuthorization: Bearer ${token}\r\n\r\n`, 200],
      ['space in a header name', 'GET /v1/user HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400],
      ['header without a colon', 'GET /v1/user HTTP/1.1\r\nHost: x\r\nBadHeader\r\n\r\n', 400],
      ['null byte in a header', `GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\0\r\n\r\n`, 400],
      [
        'control characters in a token',
        'GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u0001\u0002\r\nConnection: close\r\n\r\n',
      ],
      [
        'latin-1 token',
        Buffer.from(
          'GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \u00e9\u00ff\r\nConnection: close\r\n\r\n',
          'latin1',
        ),
      ],
      ['bare LF line ends', `GET /v1/user HTTP/1.1\nHost: x\nAuthorization: Bearer ${token}\nConnection: close\n\n`],
      ['obsolete line folding', `GET /v1/user HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n`],
      [
        'Content-Length and Transfer-Encoding',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
        400,
      ],
      [
        'two Content-Lengths',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
        400,
      ],
      [
        'Content-Length not a number',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n`,
        400,
      ],
      ['negative Content-Length', `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`, 400],
      [
        'huge Content-Length',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 99999999999\r\n\r\n{}`,
        413,
      ],
      [
        'invalid chunk size',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n`,
        400,
      ],
      [
        'unknown transfer coding',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: banana\r\n\r\n{}`,
        400,
      ],
      [
        'body shorter than declared',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{}`,
      ],
      [
        'unsupported expectation',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nExpect: 100-banana\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
        417,
      ],
      [
        '100-continue',
        `POST /v1/orgs/${org}/ping HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
      ],
      [
        'absolute-form target',
        `GET http://evil.test/v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ],
      ['asterisk-form target', 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
      ['CONNECT', 'CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n', 405],
      [
        'upgrade to websocket',
        `GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      ],
      [
        'upgrade to h2c',
        `GET /v1/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n`,
      ],
      ['pipelined after a valid request', `${valid.replace('Connection: close\r\n', '')}GARBAGE\r\n\r\n`],
      ['TLS handshake', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03]), 400],
      ['HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400],
      ['request cut short', 'GET /v1/user HTTP/1.1\r\nHost: x\r\n', 400],
    ];
    for (const [label, bytes, expected] of fixed) {
      const answer = await sendRaw(label, bytes, label === 'CONNECT' ? 'CONNECT' : 'GET');
      if (answer && expected !== undefined && answer.status !== expected)
        problems.push(`${label}: status ${answer.status}, expected ${expected}`);
    }
    // A valid request with random bytes dropped, doubled, replaced or inserted, and plain garbage.
    for (let i = 0; i < RAW_CASES; i += 1) {
      const bytes = [...valid];
      for (let change = rng.between(1, 4); change > 0; change -= 1) {
        const at = rng.int(bytes.length);
        const kind = rng.int(4);
        if (kind === 0) bytes.splice(at, 1);
        else if (kind === 1) bytes.splice(at, 0, bytes[at]!);
        else if (kind === 2) bytes.splice(at, 1, String.fromCharCode(rng.int(256)));
        else bytes.splice(at, 0, rng.pick(['\r\n', '\0', ' ', ':', '\r', '\n', '%', 'é', '\u00ff']));
      }
      const text = rng.chance(0.1) ? randomText(rng, rng.between(1, 300)) : bytes.join('');
      await sendRaw(`raw #${i}`, Buffer.from(text, 'latin1'));
    }
    expectNoProblems(fixed.length + RAW_CASES, before);
  });

  it('still answers afterwards', async () => {
    const user = await fetch(`${platform.url}/user`, { headers: { authorization: `Bearer ${adminToken}` } });
    expect(user.status).toBe(200);
    expect(((await user.json()) as { email: string }).email).toBe(targets.adminEmail);
    const health = await fetch(`http://127.0.0.1:${port}/health`);
    expect(health.status).toBe(200);
  });
});
