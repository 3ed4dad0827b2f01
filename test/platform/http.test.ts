import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
let ada: string;
let spaceId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  ada = p.userId(DEMO.users.ada);
  spaceId = (p.db.prepare("SELECT id FROM spaces WHERE org_id = 'acme' AND deleted_at IS NULL LIMIT 1").get() as { id: string }).id;
});

afterAll(async () => {
  await p?.destroy();
});

const pageToken = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');

/** Every paginated list of the platform, with SQL (LIMIT/OFFSET) and in-memory windows alike. */
const LISTS = () => [
  '/orgs',
  `/orgs/${DEMO.orgs.acme}/members`,
  `/orgs/${DEMO.orgs.acme}/members/${ada}/spaces`,
  `/orgs/${DEMO.orgs.acme}/members/${ada}/teams`,
  `/orgs/${DEMO.orgs.acme}/teams`,
  `/orgs/${DEMO.orgs.acme}/teams/${DEMO.teams.writers}/members`,
  `/orgs/${DEMO.orgs.acme}/collections`,
  `/orgs/${DEMO.orgs.acme}/spaces`,
  `/collections/${DEMO.collections.product}/spaces`,
  `/collections/${DEMO.collections.guides}/permissions/users`,
  `/collections/${DEMO.collections.guides}/permissions/aggregate`,
];

describe('page tokens', () => {
  it('answers 400, not 500, for forged tokens with an offset SQLite cannot take', async () => {
    const forged = [{ o: 1e20 }, { o: 2 ** 63 }, { o: Number.MAX_SAFE_INTEGER + 1 }, { o: 1_000_000_001 }, { o: -1 }, { o: 1.5 }, { o: '5' }, null, [1]];
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
      for (const path of [`/orgs/${id}`, `/collections/${id}`, `/spaces/${id}`, `/orgs/${DEMO.orgs.acme}/members/${id}`, `/orgs/${DEMO.orgs.acme}/teams/${id}`]) {
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
      [`/orgs/${DEMO.orgs.acme}/members?page=a&page=b`, 'page'],
      [`/orgs/${DEMO.orgs.acme}/members?role=read&role=edit`, 'role'],
      [`/orgs/${DEMO.orgs.acme}/members?search=a&search=b`, 'search'],
      [`/orgs/${DEMO.orgs.acme}/members?sort=name&sort=name`, 'sort'],
      [`/orgs/${DEMO.orgs.acme}/teams?title=a&title=b`, 'title'],
      [`/orgs/${DEMO.orgs.acme}/collections?nested=true&nested=false`, 'nested'],
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
