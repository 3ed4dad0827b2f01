import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingParameter } from '../../src/platform/http.js';
import { newId, newSecret, withStableIds } from '../../src/platform/http.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const ORG = 'northwind';
const SOUTH = 'southwind';
/** Southwind's hostname, which no other organization may take. */
const SOUTH_HOSTNAME = 'southwind-docs';
let p: TestPlatform;
let org: TestOrg;
let ada: string;
let hana: TestUser;
/** Northwind's "Status page" space. */
let spaceId: string;
/** Northwind's collections: Product > Guides (gus has `read`) > Advanced, and Internal; Southwind's Handbook. */
const C = {} as Record<'product' | 'guides' | 'advanced' | 'internal' | 'southHandbook', string>;
/** Northwind's teams: Writers (dee) and Platform (owner dee). */
const T = {} as Record<'writers' | 'platform', string>;

/**
 * Northwind: ada admin, dee `edit`, finn `read`, gus a guest with `read` on Guides. Southwind (its own hostname):
 * ada admin, hana `edit`, who is not in Northwind.
 */
beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  const users = { ada: addUser(p, 'ada') };
  org = addOrg(p, { id: ORG, members: { ada: 'admin', dee: 'edit', finn: 'read', gus: null }, users });
  const south = addOrg(p, { id: SOUTH, members: { ada: 'admin', hana: 'edit' }, users });
  ada = org.user('ada').id;
  hana = south.user('hana');
  expect((await p.api('PATCH', `/orgs/${SOUTH}`, { body: { hostname: SOUTH_HOSTNAME } })).status).toBe(200);
  C.southHandbook = await south.collection('Handbook');
  C.product = await org.collection('Product');
  C.guides = await org.collection('Guides', { parent: C.product });
  C.advanced = await org.collection('Advanced', { parent: C.guides });
  C.internal = await org.collection('Internal');
  T.writers = await org.team('Writers', ['dee']);
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: C.guides }, 'read', { users: ['gus'] });
  spaceId = await org.space('Status page');
});

afterAll(async () => {
  await p?.destroy();
});

describe('ids', () => {
  const made = () => [newId(), newId(8), newSecret()];

  it('are random, except inside withStableIds, which repeats its sequence and keeps secrets random', () => {
    expect(newId()).not.toBe(newId());
    const first = withStableIds('seed', made);
    const second = withStableIds('seed', made);
    expect(second.slice(0, 2)).toEqual(first.slice(0, 2));
    expect(first[0]).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(first[1]).toMatch(/^[A-Za-z0-9]{8}$/);
    expect(second[2]).not.toBe(first[2]);
    expect(withStableIds('other seed', made)[0]).not.toBe(first[0]);
  });

  it('restore the outer sequence after a nested one, and refuse a seed that is not synchronous', () => {
    const [outer, inner, after] = withStableIds('outer', () => [
      newId(),
      withStableIds('inner', () => newId()),
      newId(),
    ]);
    expect(withStableIds('inner', () => newId())).toBe(inner);
    expect(withStableIds('outer', () => [newId(), newId()])).toEqual([outer, after]);
    expect(() => withStableIds('async', async () => newId())).toThrow('synchronous');
    expect(newId()).not.toBe(newId());
  });
});

const pageToken = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');

/** Every paginated list of the platform, with SQL (LIMIT/OFFSET) and in-memory windows alike. */
const LISTS = () => [
  '/orgs',
  `/orgs/${ORG}/members`,
  `/orgs/${ORG}/members/${ada}/spaces`,
  `/orgs/${ORG}/members/${ada}/teams`,
  `/orgs/${ORG}/teams`,
  `/orgs/${ORG}/teams/${T.writers}/members`,
  `/orgs/${ORG}/collections`,
  `/orgs/${ORG}/spaces`,
  `/collections/${C.product}/spaces`,
  `/collections/${C.guides}/permissions/users`,
  `/collections/${C.guides}/permissions/aggregate`,
];

describe('page tokens', () => {
  it('answers 400, not 500, for forged tokens with an offset SQLite cannot take', async () => {
    const forged = [
      { o: 1e20 },
      { o: 2 ** 63 },
      { o: Number.MAX_SAFE_INTEGER + 1 },
      { o: 1_000_000_001 },
      { o: -1 },
      { o: 1.5 },
      { o: '5' },
      null,
      [1],
    ];
    for (const path of LISTS()) {
      for (const payload of forged) {
        const answer = await p.api('GET', path, { query: { page: pageToken(payload) } });
        expect(answer.status, `${path} ${JSON.stringify(payload)}`).toBe(400);
        expect(answer.body.error.message).toContain('"page"');
      }
    }
  });

  it('accepts a large offset within the cap and answers an empty page', async () => {
    for (const path of LISTS()) {
      const answer = await p.api('GET', path, { query: { page: pageToken({ o: 1_000_000_000 }) } });
      expect(answer.status, path).toBe(200);
      expect(answer.body.items).toEqual([]);
      expect(answer.body.next).toBeUndefined();
    }
  });
});

describe('query values', () => {
  it('answers 400 for limits out of range or not whole numbers, however they are written', async () => {
    const limits = ['99999999999999999999999', '1e21', '0', '-1', '1001', '2.5', 'NaN', 'Infinity', '', 'ten'];
    for (const path of LISTS()) {
      for (const limit of limits) {
        const answer = await p.api('GET', path, { query: { limit } });
        expect(answer.status, `${path} limit=${limit}`).toBe(400);
        expect(answer.body.error.message).toContain('"limit"');
      }
    }
  });

  it('answers 404, not 500, for unusual ids in paths', async () => {
    const odd = ['%F0%9F%98%80', '%00', 'caf%C3%A9', 'x'.repeat(400), "'%20OR%201=1--"];
    for (const id of odd) {
      for (const path of [
        `/orgs/${id}`,
        `/collections/${id}`,
        `/spaces/${id}`,
        `/orgs/${ORG}/members/${id}`,
        `/orgs/${ORG}/teams/${id}`,
      ]) {
        const answer = await p.api('GET', path);
        expect(answer.status, path).toBe(404);
        expect(answer.body.error.code).toBe(404);
      }
    }
  });
});

describe('repeated query parameters', () => {
  it('answers 400 naming a parameter given more than once', async () => {
    const cases: Array<[string, string]> = [
      ['/orgs?limit=2&limit=3', 'limit'],
      ['/orgs?limit=2&limit=2', 'limit'],
      [`/orgs/${ORG}/members?page=a&page=b`, 'page'],
      [`/orgs/${ORG}/members?role=read&role=edit`, 'role'],
      [`/orgs/${ORG}/members?search=a&search=b`, 'search'],
      [`/orgs/${ORG}/members?sort=name&sort=name`, 'sort'],
      [`/orgs/${ORG}/teams?title=a&title=b`, 'title'],
      [`/orgs/${ORG}/collections?nested=true&nested=false`, 'nested'],
    ];
    for (const [path, name] of cases) {
      const answer = await p.api('GET', path);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.message).toBe(`Invalid query field "${name}": must be given once, not 2 times`);
    }
    const shareKey = await p.api('GET', `/spaces/${spaceId}?shareKey=a&shareKey=b&shareKey=c`);
    expect(shareKey.status).toBe(400);
    expect(shareKey.body.error.message).toBe('Invalid query field "shareKey": must be given once, not 3 times');
  });

  it('ignores parameters an endpoint does not read, repeated or not', async () => {
    const answer = await p.api('GET', '/orgs?unused=1&unused=2&limit=1');
    expect(answer.status).toBe(200);
    expect(answer.body.items).toHaveLength(1);
  });
});

describe('authorization header', () => {
  const call = (authorization?: string) =>
    fetch(`${p.url}/user`, { headers: authorization === undefined ? {} : { authorization } });

  it('answers 401 saying only Bearer tokens are accepted, without echoing the header', async () => {
    for (const header of [
      'Basic abc',
      'Basic YWRhOnNlY3JldA==',
      'Token s3cr3t-value',
      'Digest username="ada"',
      's3cr3t-value',
    ]) {
      const answer = await call(header);
      expect(answer.status, header).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe('Bearer');
      const text = await answer.text();
      const body = JSON.parse(text);
      expect(body.error).toEqual({
        code: 401,
        message:
          'Unsupported authorization scheme: only Bearer tokens are accepted; send "Authorization: Bearer <token>"',
      });
      for (const part of header.split(/\s+/)) expect(text, header).not.toContain(part);
    }
  });

  it('tells a missing, a malformed and an unknown Bearer token apart', async () => {
    const missing = await call();
    expect(missing.status).toBe(401);
    expect((await missing.json()).error.message).toBe('Missing authorization: send "Authorization: Bearer <token>"');
    for (const header of ['Bearer', 'Bearer a b', 'bearer   ']) {
      const answer = await call(header);
      expect(answer.status, header).toBe(401);
      expect((await answer.json()).error.message, header).toMatch(/^(Malformed|Missing) authorization: /);
    }
    const unknown = await call('Bearer not-a-real-token');
    expect(unknown.status).toBe(401);
    const text = await unknown.text();
    expect(JSON.parse(text).error.message).toBe('Invalid or revoked API token');
    expect(text).not.toContain('not-a-real-token');
    expect((await call(`bearer ${p.adminToken}`)).status).toBe(200);
  });
});

describe('field errors', () => {
  const FIELD_ERROR = /^Invalid (body|query) field "([^"]+)": \S.*$/s;

  it('names the field of every 400 about a body or query field as `Invalid body|query field "<path>": <reason>`', async () => {
    const space = spaceId;
    const cases: Array<[method: string, path: string, body: unknown, where: 'body' | 'query', field: string]> = [
      ['PUT', `/orgs/${ORG}/teams`, { title: 'A', extra: true }, 'body', 'extra'],
      ['PATCH', `/orgs/${ORG}`, { title: 'Acme', a: 1, b: 2 }, 'body', 'a'],
      ['PATCH', `/orgs/${ORG}`, { mergeRules: { type: 'none', x: 1 } }, 'body', 'mergeRules.x'],
      ['PATCH', `/orgs/${ORG}`, { mergeRules: { type: 'weird' } }, 'body', 'mergeRules.type'],
      ['PATCH', `/orgs/${ORG}`, { hostname: SOUTH_HOSTNAME }, 'body', 'hostname'],
      ['PATCH', `/orgs/${ORG}`, { logo: 'javascript:alert(1)' }, 'body', 'logo'],
      [
        'PATCH',
        `/orgs/${ORG}`,
        {
          mergeRules: {
            type: 'rules',
            rules: [{ rule: 'require_specific_reviewers', users: [hana.id] }],
          },
        },
        'body',
        'mergeRules.rules.0.users.0',
      ],
      [
        'POST',
        `/spaces/${space}/move`,
        { position: { before: { type: 'space', space: 'x', extra: 1 } } },
        'body',
        'position.before.extra',
      ],
      ['POST', `/spaces/${space}/move`, { position: { before: { type: 'space', space } } }, 'body', 'position.before'],
      [
        'POST',
        `/spaces/${space}/move`,
        { position: { after: { type: 'space', space: 'elsewhere' } } },
        'body',
        'position.after',
      ],
      ['POST', `/spaces/${space}/move`, { position: {} }, 'body', 'position'],
      ['POST', `/orgs/${ORG}/spaces`, { visibility: 'in-collection' }, 'body', 'visibility'],
      ['POST', `/orgs/${ORG}/spaces`, { emoji: 'not an emoji at all' }, 'body', 'emoji'],
      ['POST', `/collections/${C.product}/move`, { parent: C.advanced }, 'body', 'parent'],
      ['POST', `/collections/${C.product}/permissions`, { role: 'read', users: [''] }, 'body', 'users.0'],
      ['PUT', `/orgs/${ORG}/teams`, { title: 'A', members: [ada, hana.id] }, 'body', 'members.1'],
      ['PUT', `/orgs/${ORG}/teams/${T.platform}/members`, { remove: [hana.id] }, 'body', 'remove.0'],
      ['GET', `/orgs/${ORG}/members?role=owner`, undefined, 'query', 'role'],
      ['GET', `/orgs/${ORG}/members?limit=0`, undefined, 'query', 'limit'],
      ['GET', `/orgs/${ORG}/collections?nested=maybe`, undefined, 'query', 'nested'],
    ];
    for (const [method, path, body, where, field] of cases) {
      const answer = await p.api(method, path, { body });
      const label = `${method} ${path} ${JSON.stringify(body)}`;
      expect(answer.status, label).toBe(400);
      const match = FIELD_ERROR.exec(answer.body.error.message);
      expect(match, `${label}: ${answer.body.error.message}`).not.toBeNull();
      expect([match![1], match![2]], label).toEqual([where, field]);
    }
  });

  it('names every unknown field, nested ones by their dotted path', async () => {
    const answer = await p.api('PATCH', `/orgs/${ORG}`, { body: { title: 'Acme', a: 1, b: 2 } });
    expect(answer.body.error.message).toBe('Invalid body field "a": is not a known field (nor "b")');
    const nested = await p.api('PATCH', `/orgs/${ORG}`, { body: { mergeRules: { type: 'none', x: 1 } } });
    expect(nested.body.error.message).toBe('Invalid body field "mergeRules.x": is not a known field');
  });

  it('keeps `Invalid body: <reason>` for problems of the body as a whole', async () => {
    for (const body of [{}, [1], 'text']) {
      const answer = await p.api('PATCH', `/orgs/${ORG}`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toMatch(/^Invalid body: /);
    }
    const broken = await fetch(`${p.url}/orgs/${ORG}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${p.adminToken}`, 'content-type': 'application/json' },
      body: '{"title":',
    });
    expect(broken.status).toBe(400);
    expect((await broken.json()).error.message).toBe('Invalid body: not valid JSON');
  });

  it('names the body limit, the size and the maximum of a body over it', async () => {
    const max = 5 * 1024 * 1024;
    const body = JSON.stringify({ title: 'x'.repeat(max) });
    const answer = await fetch(`${p.url}/orgs/${ORG}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${p.adminToken}`, 'content-type': 'application/json' },
      body,
    });
    expect(answer.status).toBe(413);
    expect(await answer.json()).toEqual({
      error: {
        code: 413,
        message: `The request body is larger than ${max} bytes`,
        limit: 'requestBytes',
        value: Buffer.byteLength(body),
        max,
      },
    });
  });
});

describe('references in a body that do not exist', () => {
  it('answer 404 `<What> not found: body field "<path>"`, naming the value', async () => {
    const space = spaceId;
    const cases: Array<[method: string, path: string, body: unknown, message: string]> = [
      [
        'POST',
        `/orgs/${ORG}/collections`,
        { parent: 'nope' },
        'Parent collection not found: body field "parent" ("nope")',
      ],
      [
        'POST',
        `/orgs/${ORG}/spaces`,
        { parent: C.southHandbook },
        `Parent collection not found: body field "parent" ("${C.southHandbook}")`,
      ],
      [
        'POST',
        `/collections/${C.internal}/move`,
        { parent: 'nope' },
        'Parent collection not found: body field "parent" ("nope")',
      ],
      [
        'POST',
        `/spaces/${space}/move`,
        { parent: 'nope' },
        'Parent collection not found: body field "parent" ("nope")',
      ],
      [
        'POST',
        `/spaces/${space}/transfer`,
        { organization: 'nope' },
        'Target organization not found: body field "organization" ("nope")',
      ],
      [
        'POST',
        `/spaces/${space}/transfer`,
        { organization: SOUTH, parent: 'nope' },
        'Parent collection not found: body field "parent" ("nope")',
      ],
      [
        'POST',
        `/collections/${C.internal}/transfer`,
        { organization: 'nope' },
        'Target organization not found: body field "organization" ("nope")',
      ],
      [
        'POST',
        `/collections/${C.internal}/permissions`,
        { role: 'read', users: [ada, 'ghost'] },
        'User not found: body field "users.1" ("ghost")',
      ],
      [
        'POST',
        `/collections/${C.internal}/permissions`,
        { role: 'read', teams: ['team-nobody'] },
        'Team not found: body field "teams.0" ("team-nobody")',
      ],
      [
        'PUT',
        `/orgs/${ORG}/teams`,
        { title: 'Ghosts', members: ['ghost'] },
        'User not found: body field "members.0" ("ghost")',
      ],
      [
        'PUT',
        `/orgs/${ORG}/teams/${T.platform}/members`,
        { add: ['ghost@acme.test'] },
        'User not found: body field "add.0" ("ghost@acme.test")',
      ],
      [
        'PATCH',
        `/orgs/${ORG}`,
        { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ['ghost'] }] } },
        'User not found: body field "mergeRules.rules.0.users.0" ("ghost")',
      ],
      [
        'PATCH',
        `/orgs/${ORG}`,
        { defaultContent: { type: 'site', site: 'nope' } },
        'Site not found: body field "defaultContent.site" ("nope")',
      ],
    ];
    for (const [method, path, body, message] of cases) {
      const answer = await p.api(method, path, { body });
      const label = `${method} ${path} ${JSON.stringify(body)}`;
      expect(answer.status, label).toBe(404);
      expect(answer.body.error, label).toEqual({ code: 404, message });
    }
    expect((await p.api('GET', `/spaces/${space}`)).body.organization).toBe(ORG);
    expect((await p.api('GET', `/orgs/${ORG}/teams`, { query: { title: 'Ghosts' } })).body.count).toBe(0);
  });
});

describe('logs', () => {
  it('show request paths without their query strings, which may carry share keys', async () => {
    const lines: string[] = [];
    const { createPlatform } = await import('../../src/platform/app.js');
    const app = createPlatform({
      db: p.db,
      logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } },
    });
    const response = await app.inject({
      method: 'GET',
      url: `/v1/spaces/${spaceId}?shareKey=very-secret-key`,
      headers: { authorization: `Bearer ${p.adminToken}` },
    });
    await app.close();
    expect(response.statusCode).toBe(200);
    expect(lines.join('\n')).toContain(`/v1/spaces/${spaceId}?…`);
    expect(lines.join('\n')).not.toContain('very-secret-key');
    expect(lines.join('\n')).not.toContain(p.adminToken);
  });
});

describe('request statistics', () => {
  it('keep the latest requests, not every request since the start', async () => {
    const { createPlatform } = await import('../../src/platform/app.js');
    const app = createPlatform({ db: p.db });
    for (let index = 0; index < 2100; index += 1) {
      const response = await app.inject({
        method: 'GET',
        url: `/v1/orgs/${ORG}?n=${index}`,
        headers: { authorization: `Bearer ${p.adminToken}` },
      });
      expect(response.statusCode).toBe(200);
    }
    const { stats } = app;
    await app.close();
    expect(stats.count).toBe(2100);
    expect(stats.requests.length).toBeGreaterThanOrEqual(1000);
    expect(stats.requests.length).toBeLessThanOrEqual(2000);
    expect(stats.requests.at(-1)).toBe(`GET /v1/orgs/${ORG}?n=2099`);
    expect(stats.answers.length).toBeLessThanOrEqual(2000);
    expect(stats.answers.at(-1)).toEqual({ method: 'GET', url: `/v1/orgs/${ORG}?n=2099`, status: 200 });
  });
});

describe('guests', () => {
  it('cannot list who has access to a collection shared with them', async () => {
    const gus = { token: org.token('gus') };
    expect((await p.api('GET', `/collections/${C.guides}`, gus)).status).toBe(200);
    for (const path of ['permissions/users', 'permissions/aggregate']) {
      const answer = await p.api('GET', `/collections/${C.guides}/${path}`, gus);
      expect(answer).toEqual({
        status: 403,
        body: { error: { code: 403, message: 'Guests cannot list who has access to a collection' } },
      });
    }
    expect(
      (
        await p.api('GET', `/collections/${C.guides}/permissions/aggregate`, {
          token: org.token('finn'),
        })
      ).status,
    ).toBe(200);
  });
});

describe('a 404 of a path parameter', () => {
  it('names the parameter after what was not found, said in full or by its last word', () => {
    const params = { organizationId: 'acme', samlProviderId: 'p', installationId: 'i', userId: 'u', specSlug: 's' };
    expect(
      ['Organization', 'SAML provider', 'Integration installation', 'Member', 'OpenAPI specification', 'Space'].map(
        (what) => missingParameter(what, params),
      ),
    ).toEqual(['organizationId', 'samlProviderId', 'installationId', 'userId', 'specSlug', undefined]);
  });

  it('answers it beside the message, and nothing for a route without it', async () => {
    const space = await p.api('GET', '/spaces/nope');
    expect(space.body).toEqual({ error: { code: 404, message: 'Space not found', parameter: 'spaceId' } });
    const route = await p.api('GET', '/no/such/route');
    expect(route.body.error.parameter).toBeUndefined();
  });
});
