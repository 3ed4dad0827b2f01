import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const DAY = 24 * 60 * 60 * 1000;

let p: TestPlatform;
/** The users by key: North's members (every role, gus a guest from another domain), ivy of North's domain, hana. */
const users: Record<string, TestUser> = {};
let guides: string;

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const key of ['alice', 'bob', 'cy', 'dee', 'eve', 'finn', 'ivy']) {
    users[key] = addUser(p, key, { email: `${key}@north.test` });
  }
  users.gus = addUser(p, 'gus', { email: 'gus@partner.test' });
  const north = addOrg(p, {
    id: 'north',
    title: 'North Docs',
    plan: 'pro',
    emailDomains: ['north.test'],
    defaultRole: 'read',
    members: { alice: 'admin', bob: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  addOrg(p, { id: 'south', members: { alice: 'admin', hana: 'edit' }, users });
  guides = await north.collection('Guides');
});

afterAll(async () => {
  await p?.destroy();
});

const as = (key: string) => ({ token: users[key]!.token });
const memberRow = (org: string, key: string) =>
  p.db.prepare('SELECT role, disabled FROM members WHERE org_id = ? AND user_id = ?').get(org, users[key]!.id) as
    | { role: string | null; disabled: number }
    | undefined;

/** Enabled members with a role, counted through the member listing. */
async function nonGuestMembers(org: string): Promise<number> {
  const { body } = await p.api('GET', `/orgs/${org}/members`, { query: { limit: 1000 } });
  return body.items.filter(
    (member: { role: string | null; disabled: boolean }) => member.role !== null && !member.disabled,
  ).length;
}

describe('Organization.billing', () => {
  it('shows admins a billing object derived from a paid plan', async () => {
    const { status, body } = await p.api('GET', '/orgs/north');
    expect(status).toBe(200);
    expect(body.plan).toBe('pro');
    expect(body.permissions.viewBilling).toBe(true);
    const billing = body.billing;
    expect(billing).toMatchObject({
      interval: 'monthly',
      hasPaymentFailed: false,
      isScheduledToCancel: false,
      usageAddons: expect.any(Object),
      minUsers: expect.any(Number),
      maxUsers: expect.any(Number),
    });
    const end = Date.parse(billing.endDate);
    expect(end).toBeGreaterThan(Date.now());
    expect(end - Date.now()).toBeLessThanOrEqual(31 * DAY);
    expect(new Date(end).getUTCDate()).toBe(new Date(body.createdAt).getUTCDate());
    for (const pair of [
      billing.pricing.members.plus_2024,
      billing.pricing.members.pro_2024,
      billing.pricing.sites.premium,
      billing.pricing.sites.ultimate,
    ]) {
      expect(pair.monthly).toBeGreaterThan(0);
      expect(pair.yearly).toBeGreaterThan(0);
      expect(pair.yearly).toBeLessThanOrEqual(pair.monthly);
    }
    for (const addon of Object.values(billing.usageAddons)) expect(addon).toEqual({ enabled: expect.any(Boolean) });
    expect(billing.minUsers).toBeLessThanOrEqual(billing.paidMembers);
    expect(billing.paidMembers).toBeLessThanOrEqual(billing.maxUsers);
    expect(billing.paidMembers).toBe(await nonGuestMembers('north'));
    expect(billing.paidMembers).toBe(6);
  });

  it('has no renewal date on a free plan', async () => {
    const { body } = await p.api('GET', '/orgs/south');
    expect(body.plan).toBe('free');
    expect(body.billing).toMatchObject({ interval: 'monthly', endDate: null, paidMembers: 2 });
  });

  it('counts paid members from the non-guest, enabled members as they change', async () => {
    const before = (await p.api('GET', '/orgs/north')).body.billing.paidMembers;
    expect((await p.api('PATCH', `/orgs/north/members/${users.finn!.id}`, { body: { role: null } })).status).toBe(200);
    expect((await p.api('GET', '/orgs/north')).body.billing.paidMembers).toBe(before - 1);
    expect((await p.api('PATCH', `/orgs/north/members/${users.finn!.id}`, { body: { role: 'read' } })).status).toBe(
      200,
    );
    expect((await p.api('GET', '/orgs/north')).body.billing.paidMembers).toBe(before);
  });

  it('gives billing to admins only, in every answer that carries an organization', async () => {
    for (const email of ['bob', 'finn', 'gus']) {
      const { status, body } = await p.api('GET', '/orgs/north', as(email));
      expect(status, email).toBe(200);
      expect(body.permissions.viewBilling, email).toBe(false);
      expect('billing' in body, email).toBe(false);
    }
    const bobList = await p.api('GET', '/orgs', as('bob'));
    expect(bobList.body.items.map((org: object) => 'billing' in org)).toEqual([false]);
    const byDomain = await p.api('GET', '/email-domains/north.test/orgs', as('bob'));
    expect(byDomain.body.organizations.map((org: object) => 'billing' in org)).toEqual([false]);

    const aliceList = await p.api('GET', '/orgs');
    expect(aliceList.body.items.map((org: { billing?: object }) => org.billing !== undefined)).toEqual([true, true]);
    const patched = await p.api('PATCH', '/orgs/north', { body: { title: 'North Docs' } });
    expect(patched.body.billing.paidMembers).toBeGreaterThan(0);
  });
});

describe('PATCH /orgs/{organizationId} logo', () => {
  it('accepts http and https URLs up to 2048 characters, and null', async () => {
    const long = `https://cdn.acme.test/${'a'.repeat(2048 - 'https://cdn.acme.test/'.length)}`;
    for (const logo of ['https://cdn.acme.test/logo.png', 'http://127.0.0.1:8080/logo.svg?v=2', long]) {
      const answer = await p.api('PATCH', '/orgs/north', { body: { logo } });
      expect(answer.status, logo.slice(0, 60)).toBe(200);
      expect(answer.body.urls.logo).toBe(logo);
    }
    const cleared = await p.api('PATCH', '/orgs/north', { body: { logo: null } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.urls.logo).toBeUndefined();
  });

  it('refuses other schemes, relative, malformed and overlong URLs with a 400 naming logo', async () => {
    await p.api('PATCH', '/orgs/north', { body: { logo: 'https://cdn.acme.test/kept.png' } });
    const refused = [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
      'ftp://cdn.acme.test/logo.png',
      '/logo.png',
      'logo.png',
      'https://',
      'https:///logo.png',
      'https:\\\\cdn.acme.test\\logo.png',
      'https:cdn.acme.test/logo.png',
      'https://cdn.acme.test/lo go.png',
      'https://cdn.acme.test/\nlogo.png',
      '',
      `https://cdn.acme.test/${'a'.repeat(2048)}`,
      42,
    ];
    for (const logo of refused) {
      const answer = await p.api('PATCH', '/orgs/north', { body: { logo } });
      expect(answer.status, JSON.stringify(logo).slice(0, 60)).toBe(400);
      expect(answer.body.error.message).toMatch(/^Invalid body field "logo": /);
    }
    expect((await p.api('GET', '/orgs/north')).body.urls.logo).toBe('https://cdn.acme.test/kept.png');
  });
});

describe('POST /orgs/{organizationId}/join', () => {
  it("promotes a guest whose e-mail domain is allowed to the organization's default role", async () => {
    const ivy = users.ivy!.id;
    const invited = await p.api('POST', `/collections/${guides}/permissions`, {
      body: { role: 'read', users: [ivy] },
    });
    expect(invited.status).toBe(204);
    expect(memberRow('north', 'ivy')).toEqual({ role: null, disabled: 0 });
    expect((await p.api('GET', '/orgs/north', as('ivy'))).body.permissions.listMembers).toBe(false);

    const joined = await p.api('POST', '/orgs/north/join', as('ivy'));
    expect(joined.status).toBe(204);
    expect(memberRow('north', 'ivy')).toEqual({ role: 'read', disabled: 0 });
    const org = await p.api('GET', '/orgs/north', as('ivy'));
    expect(org.body.defaultRole).toBe('read');
    expect(org.body.permissions.listMembers).toBe(true);
    expect((await p.api('GET', `/orgs/north/members/${ivy}`)).body.role).toBe('read');
  });

  it('leaves members with a role, disabled members and guests from other domains as they are', async () => {
    expect((await p.api('POST', '/orgs/north/join', as('bob'))).status).toBe(204);
    expect(memberRow('north', 'bob')).toEqual({ role: 'create', disabled: 0 });

    const setFinn = p.db.prepare("UPDATE members SET role = ?, disabled = ? WHERE org_id = 'north' AND user_id = ?");
    setFinn.run(null, 1, users.finn!.id);
    expect((await p.api('POST', '/orgs/north/join', as('finn'))).status).toBe(204);
    expect(memberRow('north', 'finn')).toEqual({ role: null, disabled: 1 });
    setFinn.run('read', 1, users.finn!.id);
    expect((await p.api('POST', '/orgs/north/join', as('finn'))).status).toBe(204);
    expect(memberRow('north', 'finn')).toEqual({ role: 'read', disabled: 1 });
    setFinn.run('read', 0, users.finn!.id);

    expect(memberRow('north', 'gus')).toEqual({ role: null, disabled: 0 });
    expect((await p.api('POST', '/orgs/north/join', as('gus'))).status).toBe(204);
    expect(memberRow('north', 'gus')).toEqual({ role: null, disabled: 0 });
  });
});
