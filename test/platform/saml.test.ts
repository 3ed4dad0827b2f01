import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const certificate = readFileSync(new URL('../fixtures/saml/idp.pem', import.meta.url), 'utf8');
const expired = readFileSync(new URL('../fixtures/saml/expired.pem', import.meta.url), 'utf8');

let p: TestPlatform;
/** North: admin alice, bob (create), gus (guest); it has an active and a pending provider. South: alice, hana (edit). */
let north: TestOrg;
let south: TestOrg;
/** A member of no organization. */
let ivy: TestUser;
const NORTH = 'north';
const SOUTH = 'south';
const saml = (org: string) => `/orgs/${org}/saml`;

async function ok(method: string, path: string, options: Parameters<TestPlatform['api']>[2] = {}, status = 200) {
  const answer = await p.api(method, path, options);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer.body;
}

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  north = addOrg(p, { id: NORTH, members: { alice: 'admin', bob: 'create', gus: null } });
  south = addOrg(p, { id: SOUTH, members: { alice: 'admin', hana: 'edit' }, users: { alice: north.user('alice') } });
  ivy = addUser(p, 'ivy');
  await ok(
    'POST',
    saml(NORTH),
    {
      body: {
        label: 'North Login',
        ssoURL: 'https://login.north.test/saml/sso',
        entityID: 'https://login.north.test/saml',
        certificate,
      },
    },
    201,
  );
  await ok('POST', saml(NORTH), { body: { label: 'Partner IdP', defaultRole: null } }, 201);
});

afterAll(async () => {
  await p?.destroy();
});

describe('SAML providers', () => {
  it('lists an active and a pending provider to admins, and only the active one for the login page', async () => {
    const list = await ok('GET', saml(NORTH));
    expect(list.items.map((item: any) => [item.label, item.status])).toEqual([
      ['North Login', 'active'],
      ['Partner IdP', 'pending'],
    ]);
    const sso = await ok('GET', `/orgs/${NORTH}/sso`, { token: ivy.token });
    expect(sso).toEqual({
      items: [{ id: list.items[0].id, label: 'North Login', startURL: list.items[0].service.startURL }],
    });
    expect((await p.api('GET', `/orgs/nope/sso`)).status).toBe(404);
  });

  it('is pending until its sign-on URL, entity ID and a valid certificate are all set, then active', async () => {
    const created = await ok('POST', saml(SOUTH), { body: { label: 'Globex Okta' } }, 201);
    expect(created).toMatchObject({
      object: 'saml-provider',
      label: 'Globex Okta',
      status: 'pending',
      defaultRole: 'read',
    });
    // Every provider carries the three the description requires: none of them set yet.
    expect([created.ssoURL, created.entityID, created.certificate]).toEqual(['about:blank', '', '']);
    expect(created.service).toEqual({
      acsURL: expect.stringMatching(new RegExp(`/saml/${created.id}/acs$`)),
      startURL: expect.stringMatching(new RegExp(`/saml/${created.id}/start$`)),
      entityID: expect.stringMatching(new RegExp(`/saml/${created.id}$`)),
    });
    const url = `${saml(SOUTH)}/${created.id}`;
    expect(
      (
        await ok('PATCH', url, {
          body: { ssoURL: 'https://SOUTH.okta.test/sso', entityID: 'https://SOUTH.okta.test' },
        })
      ).status,
    ).toBe('pending');
    expect((await ok('GET', `/orgs/${SOUTH}/sso`)).items).toEqual([]);
    const active = await ok('PATCH', url, { body: { certificate } });
    expect(active.status).toBe('active');
    expect((await ok('GET', `/orgs/${SOUTH}/sso`)).items.map((item: any) => item.label)).toEqual(['Globex Okta']);
    // Removing the certificate makes it pending again.
    expect((await ok('PATCH', url, { body: { certificate: null } })).status).toBe('pending');
  });

  it('refuses bad certificates, unknown teams, long labels and bad URLs, naming the field', async () => {
    for (const [body, field, message] of [
      [{ label: 'X', certificate: expired }, 'certificate', 'expired on 2021-01-01'],
      [{ label: 'X', certificate: 'not a certificate' }, 'certificate', 'PEM'],
      [
        { label: 'X', certificate: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----' },
        'certificate',
        'readable',
      ],
      [{ label: 'X', defaultTeam: await north.team('Writers') }, 'defaultTeam', 'no team'],
      [{ label: 'x'.repeat(31) }, 'label', '30'],
      [{ label: 'X', ssoURL: 'ftp://x' }, 'ssoURL', 'http'],
      [{ label: 'X', defaultRole: 'owner' }, 'defaultRole', ''],
    ] as const) {
      const answer = await p.api('POST', saml(SOUTH), { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(field);
      expect(answer.body.error.message).toContain(message);
    }
  });

  it('gives SSO members the active provider’s role and team; guests too', async () => {
    const team = await ok('PUT', `/orgs/${NORTH}/teams`, { body: { title: 'SSO newcomers' } }, 201);
    const [login] = (await ok('GET', saml(NORTH))).items;
    const updated = await ok('PATCH', `${saml(NORTH)}/${login.id}`, {
      body: { defaultRole: 'comment', defaultTeam: team.id },
    });
    expect(updated).toMatchObject({
      defaultRole: 'comment',
      defaultTeam: { object: 'team', id: team.id, title: 'SSO newcomers' },
    });
    const member = await ok('POST', `/orgs/${NORTH}/members/${ivy.id}/sso`);
    expect(member).toMatchObject({ role: 'comment', sso: true, teams: 1 });
    const guest = await ok('PATCH', `${saml(NORTH)}/${login.id}`, { body: { defaultRole: null, defaultTeam: null } });
    expect(guest.defaultRole).toBeNull();
    expect(guest.defaultTeam).toBeUndefined();
    expect((await ok('POST', `/orgs/${NORTH}/members/${south.user('hana').id}/sso`)).role).toBeNull();
  });

  it('enforces SSO only while the organization has an active provider', async () => {
    const org = `/orgs/${SOUTH}`;
    const providers = (await ok('GET', saml(SOUTH))).items;
    for (const provider of providers) await ok('DELETE', `${saml(SOUTH)}/${provider.id}`, {}, 205);
    const refused = await p.api('PATCH', org, { body: { sso: true } });
    expect(refused.status).toBe(412);
    const provider = await ok(
      'POST',
      saml(SOUTH),
      { body: { label: 'Okta', ssoURL: 'https://okta.test/sso', entityID: 'urn:okta', certificate } },
      201,
    );
    expect(provider.status).toBe('active');
    expect((await ok('PATCH', org, { body: { sso: true } })).sso).toBe(true);
    // Deleting the last active provider turns enforcement off.
    await ok('DELETE', `${saml(SOUTH)}/${provider.id}`, {}, 205);
    expect((await p.api('DELETE', `${saml(SOUTH)}/${provider.id}`)).status).toBe(204);
    expect((await ok('GET', org)).sso).toBe(false);
  });

  it('is for admins only; the login list for anyone signed in', async () => {
    expect((await p.api('GET', saml(NORTH), { token: north.token('bob') })).status).toBe(403);
    expect((await p.api('POST', saml(NORTH), { token: north.token('bob'), body: { label: 'X' } })).status).toBe(403);
    expect((await p.api('GET', `${saml(NORTH)}/nope`)).status).toBe(404);
    expect((await p.api('GET', `/orgs/${NORTH}/sso`, { token: north.token('gus') })).status).toBe(200);
  });
});
