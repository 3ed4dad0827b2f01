import { readFileSync } from 'node:fs';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

const certificate = readFileSync(new URL('../fixtures/saml/idp.pem', import.meta.url), 'utf8');
const expired = readFileSync(new URL('../fixtures/saml/expired.pem', import.meta.url), 'utf8');

let g: TestGateway;
/** North (admin alice, bob `create`) has an active provider and a pending one; South (alice) has no team. */
let north: TestOrg;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  north = addOrg(g.platform, { id: 'north', members: { alice: 'admin', bob: 'create' } });
  addOrg(g.platform, { id: 'south', members: { alice: 'admin' }, users: { alice: north.user('alice') } });
  for (const body of [
    {
      label: 'North Login',
      ssoURL: 'https://login.north.test/saml/sso',
      entityID: 'https://login.north.test/saml',
      certificate,
    },
    { label: 'Partner IdP', defaultRole: null },
  ]) {
    expect((await g.platform.api('POST', '/orgs/north/saml', { body })).status).toBe(201);
  }
});
afterAll(() => g.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

describe('SAML providers', () => {
  it('lists the providers of an organization and its SSO logins, in one request each', async () => {
    const result = await g.gql<any>(`{ organization(id: "north") {
      samlProviders { totalCount nodes { id label status ssoUrl entityId certificate defaultRole defaultTeam { title } service { acsUrl startUrl entityId } } }
      ssoProviders { label startUrl provider { id } }
    } }`);
    expect(result.errors).toBeUndefined();
    const { samlProviders, ssoProviders } = result.data.organization;
    expect(
      samlProviders.nodes.map((node: any) => [
        node.label,
        node.status,
        node.ssoUrl,
        node.entityId,
        Boolean(node.certificate),
        node.defaultRole,
      ]),
    ).toEqual([
      ['North Login', 'ACTIVE', 'https://login.north.test/saml/sso', 'https://login.north.test/saml', true, 'READ'],
      // The platform answers what is not set yet as the description's types allow ("", about:blank).
      ['Partner IdP', 'PENDING', null, null, false, null],
    ]);
    // The login links its provider; its id costs no request.
    expect(ssoProviders).toEqual([
      {
        label: 'North Login',
        startUrl: samlProviders.nodes[0].service.startUrl,
        provider: { id: samlProviders.nodes[0].id },
      },
    ]);
    expect(result.upstreamRequests.sort()).toEqual(
      ['GET /v1/orgs/north', 'GET /v1/orgs/north/saml?limit=50', 'GET /v1/orgs/north/sso'].sort(),
    );
  });

  it('creates a pending provider, activates it, links its default team, refetches it, and deletes it', async () => {
    // South has no team: the provider's default team is made for this case.
    const createdTeam = await ok(
      `mutation { createTeam(input: { organizationId: "south", title: "South SSO" }) { team { platformId } userErrors { code } } }`,
    );
    const team: string = createdTeam.createTeam.team.platformId;
    const created =
      await ok(`mutation { createSamlProvider(input: { organizationId: "south", label: "South Okta", defaultRole: null }) {
      provider { id platformId status defaultRole } userErrors { code } } }`);
    const provider = created.createSamlProvider.provider;
    expect(provider).toMatchObject({ status: 'PENDING', defaultRole: null });
    const updated = await ok(
      `mutation($id: ID!, $cert: String!, $team: ID) { updateSamlProvider(input: { providerId: $id, ssoUrl: "https://okta.south.test/sso", entityId: "urn:south", certificate: $cert, defaultTeamId: $team, defaultRole: EDIT }) {
        provider { status defaultRole defaultTeam { platformId } organization { platformId } } userErrors { code } } }`,
      { id: provider.id, cert: certificate, team },
    );
    expect(updated.updateSamlProvider.provider).toMatchObject({
      status: 'ACTIVE',
      defaultRole: 'EDIT',
      organization: { platformId: 'south' },
    });
    expect(updated.updateSamlProvider.provider.defaultTeam).toEqual({ platformId: team });
    const node = await ok(`query($id: ID!) { node(id: $id) { ... on SamlProvider { label status } } }`, {
      id: provider.id,
    });
    expect(node.node).toEqual({ label: 'South Okta', status: 'ACTIVE' });
    const deleted = await ok(
      `mutation($id: ID!) { deleteSamlProvider(input: { providerId: $id }) { deleted userErrors { code } } }`,
      { id: provider.id },
    );
    expect(deleted.deleteSamlProvider.deleted).toBe(true);
    const again = await ok(
      `mutation($id: ID!) { deleteSamlProvider(input: { organizationId: "south", providerId: $id }) { deleted userErrors { code } } }`,
      { id: provider.platformId },
    );
    expect(again.deleteSamlProvider.deleted).toBe(false);
  });

  it('answers user errors: an expired certificate (from the platform), bad input before any request, a team of another organization, a non-admin', async () => {
    const expiredResult = await g.gql<any>(
      `mutation($cert: String!) { createSamlProvider(input: { organizationId: "south", label: "Old", certificate: $cert }) { provider { id } userErrors { code field message } } }`,
      { cert: expired },
    );
    expect(expiredResult.data.createSamlProvider.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['certificate'], message: expect.stringContaining('expired') },
    ]);
    const bad = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "south", label: "${'x'.repeat(31)}", ssoUrl: "ftp://x", certificate: "nope" }) { userErrors { code field } } }`,
    );
    expect(bad.data.createSamlProvider.userErrors.map((error: any) => error.field)).toEqual([
      ['label'],
      ['ssoUrl'],
      ['certificate'],
    ]);
    expect(bad.upstream).toBe(0);
    const northTeam = encodeGlobalID('Team', `north/${await north.team('Writers')}`);
    const foreign = await g.gql<any>(
      `mutation($team: ID!) { createSamlProvider(input: { organizationId: "south", label: "X", defaultTeamId: $team }) { userErrors { code field } } }`,
      { team: northTeam },
    );
    expect(foreign.data.createSamlProvider.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['defaultTeamId'] }]);
    expect(foreign.upstream).toBe(0);
    const unknownTeam = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "south", label: "X", defaultTeamId: "nope" }) { userErrors { code field } } }`,
    );
    expect(unknownTeam.data.createSamlProvider.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['defaultTeamId'] },
    ]);
    const denied = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "north", label: "X" }) { userErrors { code } } }`,
      {},
      { token: north.token('bob') },
    );
    expect(denied.data.createSamlProvider.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
    const hidden = await g.gql<any>(
      `{ organization(id: "north") { samlProviders { totalCount } ssoProviders { label } } }`,
      {},
      { token: north.token('bob') },
    );
    expect(hidden.data.organization).toEqual({ samlProviders: null, ssoProviders: [{ label: 'North Login' }] });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // Anyone reads the logins; their provider beyond its id is for admins.
    const provider = await g.gql<any>(
      `{ organization(id: "north") { ssoProviders { provider { platformId } } } }`,
      {},
      { token: north.token('bob') },
    );
    expect(provider.errors).toBeUndefined();
    const linked = await g.gql<any>(
      `{ organization(id: "north") { ssoProviders { provider { label } } } }`,
      {},
      { token: north.token('bob') },
    );
    expect([linked.data.organization.ssoProviders, linked.errors?.map((e) => e.extensions?.code)]).toEqual([
      [{ provider: null }],
      ['FORBIDDEN'],
    ]);
    const asAdmin = await g.gql<any>(`{ organization(id: "north") { ssoProviders { provider { label status } } } }`);
    expect([asAdmin.data.organization.ssoProviders, asAdmin.upstream]).toEqual([
      [{ provider: { label: 'North Login', status: 'ACTIVE' } }],
      3,
    ]);
  });
});
