import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { auditServer, serverAudits } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * The GraphQL over HTTP audits of `graphql-http` (the reference implementation of the
 * specification), run against the gateway as `npm start` serves it: a Node server on a loopback
 * port, GraphiQL on, in front of the embedded platform.
 */
describe('GraphQL over HTTP', () => {
  let platform: TestPlatform;
  let gateway: Gateway;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    platform = await startTestPlatform();
    gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: true } });
    server = createServer(gateway.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
    await platform.destroy();
  });

  it('passes every audit: MUST, SHOULD and MAY', async () => {
    platform.app.stats.reset();
    // A client sends the CSRF header, which its GETs need (GraphiQL and Apollo's clients do).
    const fetchFn = (input: RequestInfo | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      headers.set('x-graphql-csrf', '1');
      return fetch(input, { ...init, headers });
    };
    const results = await auditServer({ url, fetchFn });
    const failed = results
      .filter((result) => result.status !== 'ok')
      .map((result) => `${result.name}: ${'reason' in result ? result.reason : ''}`);
    expect(failed).toEqual([]);
    // Every audit ran: 13 MUST, 23 SHOULD and 25 MAY with graphql-http 1.23.
    expect(results).toHaveLength(serverAudits({ url }).length);
    const levels = new Set(results.map((result) => result.name.split(' ')[0]));
    expect(levels).toEqual(new Set(['MUST', 'SHOULD', 'MAY']));
    // They ask for `__typename` or send what is no GraphQL request: nothing reaches the platform.
    expect(platform.app.stats.count).toBe(0);
  });
});
