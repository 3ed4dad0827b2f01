import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { changeRequest } from '../fixtures/change-requests.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

/**
 * Apollo Client 4 against the gateway over HTTP, as its documentation has it used: `BatchHttpLink`
 * (batched requests) and a subscription over `HttpLink` (multipart, `subscriptionSpec=1.0`).
 */
let platform: TestPlatform;
let gateway: Gateway;
let server: Server;
let uri: string;
let org: TestOrg;
let spaceId: string;
/** HTTP requests the gateway received. */
let received = 0;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, { id: 'apollo', members: { alice: 'admin' } });
  spaceId = await org.space('Guide');
  gateway = createGateway({ upstreamUrl: platform.url, graphiql: { enabled: false }, subscriptions: { pollMs: 100 } });
  server = createServer((req, res) => {
    received += 1;
    gateway.handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await gateway.close();
  await platform.destroy();
});

const headers = () => ({ authorization: `Bearer ${org.token('alice')}` });

describe('Apollo Client', () => {
  it('sends queries batched by BatchHttpLink in one request, and gets each answer', async () => {
    const client = new ApolloClient({
      link: new BatchHttpLink({ uri, headers: headers(), batchMax: 5, batchInterval: 20 }),
      cache: new InMemoryCache(),
    });
    const before = received;
    const [space, viewer] = await Promise.all([
      client.query({
        query: gql`query ApolloSpace($id: ID!) { space(id: $id) { id title } }`,
        variables: { id: spaceId },
      }),
      client.query({ query: gql`query ApolloViewer { viewer { id email } }` }),
    ]);
    expect(space.data).toMatchObject({ space: { title: 'Guide' } });
    expect(viewer.data).toMatchObject({ viewer: { email: org.user('alice').email } });
    expect(received - before).toBe(1);
  });

  it('follows a subscription over HTTP multipart, and ends it when it unsubscribes', async () => {
    const client = new ApolloClient({
      link: ApolloLink.from([new HttpLink({ uri, headers: headers() })]),
      cache: new InMemoryCache(),
    });
    const titles: string[][] = [];
    const errors: unknown[] = [];
    const subscription = client
      .subscribe({
        query: gql`subscription ApolloContent($spaceId: ID!) { spaceContentUpdated(spaceId: $spaceId) { id pages { title } } }`,
        variables: { spaceId },
      })
      .subscribe({
        next: (event) => {
          if (event.error) errors.push(event.error);
          else titles.push((event.data as any).spaceContentUpdated.pages.map((page: { title: string }) => page.title));
        },
        error: (error) => errors.push(error),
      });
    try {
      await until(() => titles.length === 1 || errors.length > 0);
      expect(errors).toEqual([]);
      const merged = await changeRequest(org, spaceId, { pages: ['# Installing\n\nRun the installer.'] });
      await platform.app.inject({
        method: 'POST',
        url: `/v1/spaces/${spaceId}/change-requests/${merged.id}/merge`,
        headers: headers(),
      });
      await until(() => titles.length === 2 || errors.length > 0);
      expect(errors).toEqual([]);
      expect(titles[1]).toContain('Installing');
      expect(gateway.live.subscriptions).toBe(1);
    } finally {
      subscription.unsubscribe();
    }
    await until(() => gateway.live.subscriptions === 0);
  });
});
