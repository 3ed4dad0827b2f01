import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { enableIntegration, installIntegration, publishIntegration } from '../fixtures/integrations.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';

/**
 * `createIntegrationInstallationToken` end to end: the integration's developers get a short-lived token that calls
 * the API as the installation, with exactly its rights: reads of the spaces it covers under a reading scope, as the
 * installation changes, until it is uninstalled; nothing else, public spaces and the owner's own included.
 */

let g: TestGateway;
let north: TestOrg;
let customer: TestOrg;
const spaces = {} as Record<'guide' | 'public' | 'own', string>;
let installation: string;
let nosy: string;

/**
 * North (ada admin) publishes READER (`space:content:read`) and NOSY (`site:views:read`); Customer (cara admin)
 * installs READER, enabled on Guide alone, and NOSY on every space; Customer's Public space is public.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  const users = { ada: addUser(g.platform, 'ada') };
  north = addOrg(g.platform, { id: 'north', members: { ada: 'admin' }, users });
  customer = addOrg(g.platform, { id: 'customer', members: { cara: 'admin' } });
  spaces.own = await north.space('North handbook');
  spaces.guide = await customer.space('Guide');
  spaces.public = await customer.space('Public', { visibility: 'public' });
  await publishIntegration(north, 'reader', { visibility: 'public', scopes: ['space:content:read'] });
  await publishIntegration(north, 'nosy', { visibility: 'public', scopes: ['site:views:read'] });
  installation = await installIntegration(customer, 'reader', { as: 'cara' });
  await enableIntegration(customer, 'reader', installation, { space: spaces.guide }, { as: 'cara' });
  nosy = await installIntegration(customer, 'nosy', { as: 'cara' });
  await g.platform.api('PATCH', `/integrations/nosy/installations/${nosy}`, {
    token: customer.token('cara'),
    body: { space_selection: 'all' },
  });
});
afterAll(() => g.destroy());

const CREATE = `mutation ($id: ID!) { createIntegrationInstallationToken(input: { installationId: $id }) {
  token installation { id } userErrors { code field message } } }`;
const installationGid = (name: string, id: string) => encodeGlobalID('IntegrationInstallation', `${name}/${id}`);
const SPACE = `query ($id: ID!) { space(id: $id) { title } }`;

async function tokenOf(name: string, id: string): Promise<string> {
  const made = await g.gql(CREATE, { id: installationGid(name, id) });
  expect(made.data?.createIntegrationInstallationToken.userErrors).toEqual([]);
  return made.data?.createIntegrationInstallationToken.token;
}

/** The title of the space read with `token`, or the code of the error. */
async function read(space: string, token: string): Promise<string> {
  const result = await g.gql(SPACE, { id: space }, { token });
  return result.data?.space?.title ?? String(result.errors?.[0]?.extensions?.code);
}

describe('createIntegrationInstallationToken', () => {
  it('gives a token with exactly the installation’s rights, following it until it is uninstalled', async () => {
    const made = await g.gql(CREATE, { id: installationGid('reader', installation) });
    expect(made.errors).toBeUndefined();
    const { token, ...rest } = made.data!.createIntegrationInstallationToken;
    expect(rest).toEqual({ installation: { id: installationGid('reader', installation) }, userErrors: [] });
    expect(token).toMatch(/^gbi_[A-Za-z0-9_-]{43}$/);
    expect(made.upstreamRequests).toEqual([`POST /v1/integrations/reader/installations/${installation}/tokens`]);
    // Kept as its hash alone.
    expect(
      g.platform.db
        .prepare('SELECT count(*) FROM integration_installation_tokens WHERE token_hash = ?')
        .pluck(true)
        .get(token),
    ).toBe(0);

    // The space it covers; not another of its organization, public though it is, nor its developers' own.
    expect(await read(spaces.guide, token)).toBe('Guide');
    expect(await read(spaces.public, token)).toBe('NOT_FOUND');
    expect(await read(spaces.own, token)).toBe('NOT_FOUND');
    // Its developers and the customer's admin read them all: the token has less than either.
    expect(await read(spaces.public, customer.token('cara'))).toBe('Public');
    expect(await read(spaces.own, north.token('ada'))).toBe('North handbook');

    // No write, no organization, no other route.
    const write = await g.gql(
      `mutation ($id: ID!) { updateSpace(input: { spaceId: $id, title: "Mine" }) { userErrors { code } } }`,
      { id: spaces.guide },
      { token },
    );
    expect(write.data?.updateSpace.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
    const org = await g.gql(`{ organization(id: "customer") { title } }`, {}, { token });
    expect(org.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);
    const integration = await g.gql(`{ integration(name: "reader") { title } }`, {}, { token });
    expect(integration.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN']);

    // Enabled on Public: the same token reads it at once; uninstalled: it holds no more.
    await enableIntegration(customer, 'reader', installation, { space: spaces.public }, { as: 'cara' });
    expect(await read(spaces.public, token)).toBe('Public');
    await g.platform.api('DELETE', `/integrations/reader/installations/${installation}`, {
      token: customer.token('cara'),
    });
    expect(await read(spaces.guide, token)).toBe('UNAUTHENTICATED');
  });

  it('reads no space without a scope that reads spaces, covered though they are', async () => {
    const token = await tokenOf('nosy', nosy);
    expect(await read(spaces.guide, token)).toBe('NOT_FOUND');
  });

  it('is for the integration’s developers alone', async () => {
    const other = await installIntegration(north, 'nosy');
    const byCustomer = await g.gql(CREATE, { id: installationGid('nosy', nosy) }, { token: customer.token('cara') });
    expect(byCustomer.data?.createIntegrationInstallationToken).toMatchObject({
      token: null,
      userErrors: [{ code: 'FORBIDDEN' }],
    });
    const missing = await g.gql(CREATE, { id: installationGid('nosy', 'no-such-installation') });
    expect(missing.data?.createIntegrationInstallationToken.userErrors).toMatchObject([{ code: 'NOT_FOUND' }]);
    expect(await tokenOf('nosy', other)).toMatch(/^gbi_/);
  });
});
