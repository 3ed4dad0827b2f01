import { readFileSync } from 'node:fs';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';

const U = DEMO.users;
const certificate = readFileSync(new URL('../fixtures/saml/idp.pem', import.meta.url), 'utf8');
const expired = readFileSync(new URL('../fixtures/saml/expired.pem', import.meta.url), 'utf8');

let g: TestGateway;

beforeAll(async () => {
  g = await startTestGateway();
});
afterAll(() => g.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

describe('SAML providers', () => {
  it('lists the providers of an organization and its SSO logins, in one request each', async () => {
    const result = await g.gql<any>(`{ organization(id: "acme") {
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
      [
        'Acme Login',
        'ACTIVE',
        'https://login.acme-docs.test/saml/sso',
        'https://login.acme-docs.test/saml',
        true,
        'READ',
      ],
      // The platform answers what is not set yet as the description's types allow ("", about:blank).
      ['Partner IdP', 'PENDING', null, null, false, null],
    ]);
    // The login links its provider; its id costs no request.
    expect(ssoProviders).toEqual([
      {
        label: 'Acme Login',
        startUrl: samlProviders.nodes[0].service.startUrl,
        provider: { id: samlProviders.nodes[0].id },
      },
    ]);
    expect(result.upstreamRequests.sort()).toEqual(
      ['GET /v1/orgs/acme', 'GET /v1/orgs/acme/saml?limit=50', 'GET /v1/orgs/acme/sso'].sort(),
    );
  });

  it('creates a pending provider, activates it, links its default team, refetches it, and deletes it', async () => {
    // The demo's globex has no team: the provider's default team is made for this case.
    const createdTeam = await ok(
      `mutation { createTeam(input: { organizationId: "globex", title: "Globex SSO" }) { team { platformId } userErrors { code } } }`,
    );
    const team: string = createdTeam.createTeam.team.platformId;
    const created =
      await ok(`mutation { createSamlProvider(input: { organizationId: "globex", label: "Globex Okta", defaultRole: null }) {
      provider { id platformId status defaultRole } userErrors { code } } }`);
    const provider = created.createSamlProvider.provider;
    expect(provider).toMatchObject({ status: 'PENDING', defaultRole: null });
    const updated = await ok(
      `mutation($id: ID!, $cert: String!, $team: ID) { updateSamlProvider(input: { providerId: $id, ssoUrl: "https://okta.globex.test/sso", entityId: "urn:globex", certificate: $cert, defaultTeamId: $team, defaultRole: EDIT }) {
        provider { status defaultRole defaultTeam { platformId } organization { platformId } } userErrors { code } } }`,
      { id: provider.id, cert: certificate, team },
    );
    expect(updated.updateSamlProvider.provider).toMatchObject({
      status: 'ACTIVE',
      defaultRole: 'EDIT',
      organization: { platformId: 'globex' },
    });
    expect(updated.updateSamlProvider.provider.defaultTeam).toEqual({ platformId: team });
    const node = await ok(`query($id: ID!) { node(id: $id) { ... on SamlProvider { label status } } }`, {
      id: provider.id,
    });
    expect(node.node).toEqual({ label: 'Globex Okta', status: 'ACTIVE' });
    const deleted = await ok(
      `mutation($id: ID!) { deleteSamlProvider(input: { providerId: $id }) { deleted userErrors { code } } }`,
      { id: provider.id },
    );
    expect(deleted.deleteSamlProvider.deleted).toBe(true);
    const again = await ok(
      `mutation($id: ID!) { deleteSamlProvider(input: { organizationId: "globex", providerId: $id }) { deleted userErrors { code } } }`,
      { id: provider.platformId },
    );
    expect(again.deleteSamlProvider.deleted).toBe(false);
  });

  it('answers user errors: an expired certificate (from the platform), bad input before any request, a team of another organization, a non-admin', async () => {
    const expiredResult = await g.gql<any>(
      `mutation($cert: String!) { createSamlProvider(input: { organizationId: "globex", label: "Old", certificate: $cert }) { provider { id } userErrors { code field message } } }`,
      { cert: expired },
    );
    expect(expiredResult.data.createSamlProvider.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['certificate'], message: expect.stringContaining('expired') },
    ]);
    const bad = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "globex", label: "${'x'.repeat(31)}", ssoUrl: "ftp://x", certificate: "nope" }) { userErrors { code field } } }`,
    );
    expect(bad.data.createSamlProvider.userErrors.map((error: any) => error.field)).toEqual([
      ['label'],
      ['ssoUrl'],
      ['certificate'],
    ]);
    expect(bad.upstream).toBe(0);
    const acmeTeam = encodeGlobalID('Team', `acme/${DEMO.teams.writers}`);
    const foreign = await g.gql<any>(
      `mutation($team: ID!) { createSamlProvider(input: { organizationId: "globex", label: "X", defaultTeamId: $team }) { userErrors { code field } } }`,
      { team: acmeTeam },
    );
    expect(foreign.data.createSamlProvider.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['defaultTeamId'] }]);
    expect(foreign.upstream).toBe(0);
    const unknownTeam = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "globex", label: "X", defaultTeamId: "nope" }) { userErrors { code field } } }`,
    );
    expect(unknownTeam.data.createSamlProvider.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['defaultTeamId'] },
    ]);
    const denied = await g.gql<any>(
      `mutation { createSamlProvider(input: { organizationId: "acme", label: "X" }) { userErrors { code } } }`,
      {},
      { token: g.platform.token(U.ben) },
    );
    expect(denied.data.createSamlProvider.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
    const hidden = await g.gql<any>(
      `{ organization(id: "acme") { samlProviders { totalCount } ssoProviders { label } } }`,
      {},
      { token: g.platform.token(U.ben) },
    );
    expect(hidden.data.organization).toEqual({ samlProviders: null, ssoProviders: [{ label: 'Acme Login' }] });
    expect(hidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    // Anyone reads the logins; their provider beyond its id is for admins.
    const provider = await g.gql<any>(
      `{ organization(id: "acme") { ssoProviders { provider { platformId } } } }`,
      {},
      { token: g.platform.token(U.ben) },
    );
    expect(provider.errors).toBeUndefined();
    const linked = await g.gql<any>(
      `{ organization(id: "acme") { ssoProviders { provider { label } } } }`,
      {},
      { token: g.platform.token(U.ben) },
    );
    expect([linked.data.organization.ssoProviders, linked.errors?.map((e) => e.extensions?.code)]).toEqual([
      [{ provider: null }],
      ['FORBIDDEN'],
    ]);
    const asAdmin = await g.gql<any>(`{ organization(id: "acme") { ssoProviders { provider { label status } } } }`);
    expect([asAdmin.data.organization.ssoProviders, asAdmin.upstream]).toEqual([
      [{ provider: { label: 'Acme Login', status: 'ACTIVE' } }],
      3,
    ]);
  });
});
