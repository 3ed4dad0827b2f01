import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { installIntegration, publishIntegration } from '../fixtures/integrations.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';

/**
 * Development mode of an integration through the graph: `setIntegrationDevelopmentMode` routes the events of the
 * owner's installations (of every organization's with `all`) to the tunnel instead of the published endpoint, and
 * `disableIntegrationDevelopmentMode` routes them back; only admins of the owner organization may do either.
 */

const NAME = 'dev-hooks';
let g: TestGateway;
let receiver: Server;
let base: string;
const orgs = {} as Record<'north' | 'south' | 'west' | 'east', TestOrg>;
/** Where each delivery went: the path and the installation. */
const deliveries: Array<{ path: string; installation: string }> = [];

/** North owns the integration (ada admin, finn `read`); South, West and East install it (ada admin). */
beforeAll(async () => {
  g = await startTestGateway({ seed: false, deliveryRetryBaseMs: 10 });
  const users = { ada: addUser(g.platform, 'ada') };
  orgs.north = addOrg(g.platform, { id: 'north', members: { ada: 'admin', finn: 'read' }, users });
  for (const id of ['south', 'west', 'east'] as const)
    orgs[id] = addOrg(g.platform, { id, members: { ada: 'admin' }, users });
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      deliveries.push({ path: request.url ?? '', installation: String(request.headers['x-gitbook-installation-id']) });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  await publishIntegration(orgs.north, NAME, { visibility: 'public', endpoint: `${base}/published` });
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await g?.destroy();
});

const SET = `mutation ($name: String!, $url: String!, $all: Boolean) {
  setIntegrationDevelopmentMode(input: { integrationName: $name, tunnelUrl: $url, all: $all }) {
    integration { id name } userErrors { code field message }
  } }`;
const DISABLE = `mutation ($name: String!) {
  disableIntegrationDevelopmentMode(input: { integrationName: $name }) {
    deleted deletedId integration { id } userErrors { code field message }
  } }`;

/** Installs the integration on `org` and answers where its setup event was delivered. */
async function deliveredTo(org: TestOrg): Promise<string> {
  const installation = await installIntegration(org, NAME);
  await g.platform.app.jobs.drain();
  const found = deliveries.filter((delivery) => delivery.installation === installation);
  expect(found).toHaveLength(1);
  return found[0]!.path;
}

describe('integration development mode', () => {
  it('routes the owner’s events to the tunnel, every organization’s with all, and back when disabled', async () => {
    const set = await g.gql(SET, { name: NAME, url: `${base}/tunnel` });
    expect(set.errors).toBeUndefined();
    expect(set.data).toEqual({
      setIntegrationDevelopmentMode: {
        integration: { id: Buffer.from(`Integration:${NAME}`).toString('base64'), name: NAME },
        userErrors: [],
      },
    });
    // The write, then the integration for its name (the id alone would cost nothing).
    expect(set.upstreamRequests).toEqual([`PUT /v1/integrations/${NAME}/dev`, `GET /v1/integrations/${NAME}`]);

    expect(await deliveredTo(orgs.north)).toBe('/tunnel');
    expect(await deliveredTo(orgs.south)).toBe('/published');

    const all = await g.gql(SET, { name: NAME, url: `${base}/tunnel-all`, all: true });
    expect(all.data?.setIntegrationDevelopmentMode.userErrors).toEqual([]);
    expect(await deliveredTo(orgs.west)).toBe('/tunnel-all');

    const off = await g.gql(DISABLE, { name: NAME });
    expect(off.data).toEqual({
      disableIntegrationDevelopmentMode: {
        deleted: true,
        deletedId: null,
        integration: { id: Buffer.from(`Integration:${NAME}`).toString('base64') },
        userErrors: [],
      },
    });
    expect(off.upstream).toBe(1);
    expect(await deliveredTo(orgs.east)).toBe('/published');
    // Off already: the platform answers the same.
    const again = await g.gql(DISABLE, { name: NAME });
    expect(again.data?.disableIntegrationDevelopmentMode).toMatchObject({ deleted: true, userErrors: [] });
  });

  it('is for admins of the owner organization, with a tunnel the platform may reach', async () => {
    const member = await g.gql(SET, { name: NAME, url: `${base}/tunnel` }, { token: orgs.north.token('finn') });
    expect(member.data?.setIntegrationDevelopmentMode).toMatchObject({
      integration: null,
      userErrors: [{ code: 'FORBIDDEN' }],
    });
    const off = await g.gql(DISABLE, { name: NAME }, { token: orgs.north.token('finn') });
    expect(off.data?.disableIntegrationDevelopmentMode.userErrors).toMatchObject([{ code: 'FORBIDDEN' }]);
    const missing = await g.gql(SET, { name: 'no-such-integration', url: `${base}/tunnel` });
    expect(missing.data?.setIntegrationDevelopmentMode.userErrors).toMatchObject([{ code: 'NOT_FOUND' }]);
    const scheme = await g.gql(SET, { name: NAME, url: 'ftp://tunnel.test/events' });
    expect(scheme.data?.setIntegrationDevelopmentMode.userErrors).toMatchObject([
      { code: 'BAD_USER_INPUT', field: ['tunnelUrl'] },
    ]);
    const long = await g.gql(SET, { name: NAME, url: `https://tunnel.test/${'a'.repeat(300)}` });
    expect(long.data?.setIntegrationDevelopmentMode.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['tunnelUrl'], message: 'tunnelUrl: must be at most 256 characters' },
    ]);
    expect(long.upstream).toBe(0);
  });
});
