import { encodeGlobalID } from '@pothos/plugin-relay';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { RestClient } from '../../src/gateway/upstream/client.js';

/**
 * Answers the gateway reads beyond their operation's record (`upstream/answers.ts`), from a
 * platform other than the embedded one: a mock upstream answers what the contract allows.
 */

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

function mockGateway(reply: { method: 'GET' | 'POST'; path: string; status: number; body?: unknown }) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  agent
    .get('http://upstream.test')
    .intercept({ path: `/v1${reply.path}`, method: reply.method })
    .reply(reply.status, reply.body === undefined ? '' : JSON.stringify(reply.body), {
      headers: { 'content-type': 'application/json' },
    });
  const gateway = createGateway({
    client: new RestClient({ baseUrl: 'http://upstream.test/v1', dispatcher: agent }),
    graphiql: { enabled: false },
  });
  close = async () => {
    agent.assertNoPendingInterceptors();
    await gateway.close();
    await agent.close();
  };
  return async (query: string) => {
    const response = await gateway.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer t' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as {
      data?: any;
      errors?: Array<{ extensions?: Record<string, unknown> }>;
      extensions: { cost: { upstreamRequests: number } };
    };
  };
}

describe('answers read beyond the records', () => {
  it('shows an integration event of a type newer than the description, its payload whole', async () => {
    const payload = { eventId: 'e1', type: 'site_redirect_added', installationId: 'i1', redirect: '/old' };
    const run = mockGateway({
      method: 'GET',
      path: '/integrations/hooks/events/e1',
      status: 200,
      body: {
        event: { id: 'e1', integrationId: 'hooks', createdAt: '2026-01-02T03:04:05.000Z', payload, status: 'success' },
        trace: { logs: [{ message: 'delivered', level: 'info' }] },
      },
    });
    const result = await run(
      `{ node(id: "${encodeGlobalID('IntegrationEvent', 'hooks/e1')}") { ... on IntegrationEvent { type status payload trace { message } } } }`,
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      node: { type: null, status: 'SUCCESS', payload, trace: [{ message: 'delivered' }] },
    });
    expect(result.extensions.cost.upstreamRequests).toBe(1);
  });

  it('refuses a write answered without the object it writes (204), which the gateway never asks for', async () => {
    const run = mockGateway({ method: 'POST', path: '/orgs/acme/sites/s1/site-spaces', status: 204 });
    const result = await run(
      `mutation { addSpaceToSite(input: { organizationId: "acme", siteId: "s1", spaceId: "sp1" }) { siteSpace { id } userErrors { code } } }`,
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_INVALID_RESPONSE']);
    expect(result.extensions.cost.upstreamRequests).toBe(1);
  });
});
