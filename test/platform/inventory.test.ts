import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/app.js';
import { openDatabase } from '../../src/platform/store/db.js';
import { OPERATIONS } from '../../src/gateway/upstream/contract/operations.js';
import { NOT_IN_GRAPH, servedOperations, underApi } from '../fixtures/operations.js';
import type { LedgerPart } from '../fixtures/ledger.js';
import { suiteProblems } from '../suite-checks.js';

/**
 * The inventory the coverage test drives is derived from the routes the platform registers and the
 * operation records of the contract; these cases keep it true: every `/v1` route is an operation of
 * the contract, and what is left out is still served.
 */
let app: FastifyInstance;

beforeAll(async () => {
  app = createPlatform({ db: openDatabase({ file: ':memory:' }) });
  await app.ready();
});
afterAll(() => app?.close());

const key = ({ method, path }: { method: string; path: string }) => `${method} ${path}`;

describe('the inventory of served operations', () => {
  it('collects every route the platform registers, under /v1 and outside it', () => {
    const routes = app.registeredRoutes.map(({ method, url }) => `${method} ${url}`);
    expect(routes).toContain('GET /health');
    expect(routes).toContain('GET /v1/orgs');
    expect(routes).toContain('PATCH /v1/orgs/:organizationId/conversations-clusters/:clusterId');
    // One entry per method: Fastify adds a HEAD route beside each GET.
    expect(routes).toContain('HEAD /v1/orgs');
  });

  it('holds each served operation once, under the path template of its official operation', () => {
    const served = servedOperations(app.registeredRoutes);
    expect(new Set(served.map(key)).size).toBe(served.length);
    const official = new Set(OPERATIONS.map((record) => `${record.method} /v1${record.path}`));
    for (const operation of served) {
      expect(official.has(key(operation)), key(operation)).toBe(true);
      expect(operation.path, key(operation)).not.toMatch(/:|\*/);
      expect(operation.group, key(operation)).not.toBe('');
    }
    expect(served.find((operation) => operation.path.endsWith('/content/path/{pagePath}'))).toMatchObject({
      method: 'GET',
      path: '/v1/spaces/{spaceId}/content/path/{pagePath}',
      operationId: 'getPageByPath',
      group: 'space-content',
    });
  });

  it('refuses a route that is no operation of the contract, naming where to add it', () => {
    expect(() => servedOperations([{ method: 'GET', url: '/v1/orgs/:organizationId/nothing' }])).toThrow(
      'GET /v1/orgs/:organizationId/nothing is no operation of the contract: add it to the overlay',
    );
    // The overlay's operations are the contract's: the landing page by its empty path is one.
    expect(servedOperations([{ method: 'GET', url: '/v1/spaces/:spaceId/content/path' }])).toMatchObject([
      { operationId: 'getLandingPage', group: 'space-content' },
    ]);
  });

  it('leaves out of the graph only operations the platform serves', () => {
    const served = servedOperations(app.registeredRoutes).map(key);
    for (const operation of NOT_IN_GRAPH) expect(served).toContain(key(operation));
  });
});

describe('the suite checks (test/suite-checks.ts)', () => {
  /** A ledger where every route succeeded and every operation was reached through the gateway, but `except`. */
  function fullLedger(except: { unanswered?: string; unreached?: string } = {}): LedgerPart[] {
    const left = new Set(
      servedOperations(app.registeredRoutes)
        .filter((operation) => NOT_IN_GRAPH.some((other) => other.path === operation.path))
        .map((operation) => operation.route),
    );
    const answers = Object.fromEntries(
      app.registeredRoutes
        .filter(({ method, url }) => method !== 'HEAD' && underApi(url))
        .map(({ method, url }) => `${method} ${url}`)
        .filter((route) => route !== except.unanswered)
        .map((route) => [route, { succeeded: true, reachedByGateway: !left.has(route) && route !== except.unreached }]),
    );
    return [{ file: 'a.test.ts', routes: app.registeredRoutes, answers }];
  }

  it('find nothing missing when every route answered and every operation was reached', () => {
    expect(suiteProblems(fullLedger())).toEqual([]);
  });

  it('name a route no test had a success answer from, and an operation no GraphQL operation reached', () => {
    expect(suiteProblems(fullLedger({ unanswered: 'GET /v1/orgs/:organizationId/integrations' }))).toEqual([
      'GET /v1/orgs/:organizationId/integrations: no test had a success answer from it, so none was checked against the description',
      'GET /v1/orgs/:organizationId/integrations (integrations): no GraphQL operation of the tests reached it',
    ]);
    expect(suiteProblems(fullLedger({ unreached: 'GET /v1/spaces/:spaceId/integrations' }))).toEqual([
      'GET /v1/spaces/:spaceId/integrations (space-integrations): no GraphQL operation of the tests reached it',
    ]);
  });

  it('refuse an empty ledger: a run whose platforms wrote nothing checked nothing', () => {
    expect(suiteProblems([])).toHaveLength(1);
  });
});
