import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notificationsTokenUser } from '../../src/platform/org-admin/accounts.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

/**
 * Invitations and organization administration end to end: invite links (create, list, read, change,
 * revoke, join with one: its role and nothing more; expired, used-up and revoked links refused with a
 * code), invitations by e-mail, creating an organization, changing one's profile and the notifications
 * token.
 */

const ORG = 'northwind';
let g: TestGateway;
const users = {} as Record<'ada' | 'dee' | 'finn' | 'hana' | 'ivo' | 'jo', TestUser>;

/** Northwind: ada admin, dee `edit`, finn `read`; hana, ivo and jo belong to no organization. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'dee', 'finn', 'hana', 'ivo', 'jo'] as const) users[key] = addUser(g.platform, key);
  addOrg(g.platform, { id: ORG, members: { ada: 'admin', dee: 'edit', finn: 'read' }, users });
});
afterAll(() => g.destroy());

const as = (key: keyof typeof users) => ({ token: users[key].token });

async function createInvite(fields: string, key: keyof typeof users = 'ada') {
  const result = await g.gql(
    `mutation { createOrganizationInvite(input: { organizationId: "${ORG}", ${fields} }) {
      invite { id platformId role redundant organization { platformId } } inviteEdge { cursor }
      userErrors { code message field } } }`,
    {},
    as(key),
  );
  expect(result.errors).toBeUndefined();
  return { ...result.data.createOrganizationInvite, upstream: result.upstream };
}

async function join(inviteId: string, key: keyof typeof users) {
  const result = await g.gql(
    `mutation ($id: ID!) { joinOrganizationWithInvite(input: { organizationId: "${ORG}", inviteId: $id }) {
      organization { platformId } userErrors { code message field } } }`,
    { id: inviteId },
    as(key),
  );
  expect(result.errors).toBeUndefined();
  return { ...result.data.joinOrganizationWithInvite, upstream: result.upstream };
}

const roleOf = (key: keyof typeof users) =>
  (
    g.platform.db.prepare('SELECT role FROM members WHERE org_id = ? AND user_id = ?').get(ORG, users[key].id) as
      | { role: string | null }
      | undefined
  )?.role;

describe('invite links', () => {
  it('are created, listed, read, changed and revoked by admins only', async () => {
    const created = await createInvite('role: COMMENT, maxUses: 3');
    expect(created.userErrors).toEqual([]);
    expect(created.upstream).toBe(1);
    expect(created.invite).toMatchObject({ role: 'COMMENT', redundant: true, organization: { platformId: ORG } });

    const listed = await g.gql(
      `{ organization(id: "${ORG}") { invites(first: 10) { totalCount nodes { id role } } } }`,
      {},
      as('ada'),
    );
    expect(listed.data.organization.invites.nodes).toContainEqual({ id: created.invite.id, role: 'COMMENT' });

    // Through node(id:) (a read of the link by id), as someone outside the organization holding it.
    const read = await g.gql(
      `query ($id: ID!) { node(id: $id) { ... on OrganizationInvite { platformId role redundant } } }`,
      { id: created.invite.id },
      as('hana'),
    );
    expect(read.data.node).toEqual({ platformId: created.invite.platformId, role: 'COMMENT', redundant: false });
    expect(read.upstream).toBe(1);

    const changed = await g.gql(
      `mutation ($id: ID!) { updateOrganizationInvite(input: { organizationId: "${ORG}", inviteId: $id, role: EDIT }) {
        invite { role } userErrors { code } } }`,
      { id: created.invite.id },
      as('ada'),
    );
    expect(changed.data.updateOrganizationInvite).toEqual({ invite: { role: 'EDIT' }, userErrors: [] });

    const denied = await createInvite('role: ADMIN', 'dee');
    expect(denied.userErrors).toEqual([expect.objectContaining({ code: 'FORBIDDEN' })]);
    const hidden = await g.gql(`{ organization(id: "${ORG}") { invites(first: 1) { totalCount } } }`, {}, as('dee'));
    expect(hidden.data.organization.invites).toBeNull();
    expect(hidden.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
  });

  it('give their role and nothing more; a member keeps a better role', async () => {
    const { invite } = await createInvite('role: COMMENT');
    const joined = await join(invite.platformId, 'hana');
    expect(joined).toEqual({ organization: { platformId: ORG }, userErrors: [], upstream: 2 });
    expect(roleOf('hana')).toBe('comment');
    // dee (edit) keeps edit; finn (read) goes up to comment.
    expect((await join(invite.id, 'dee')).userErrors).toEqual([]);
    expect((await join(invite.id, 'finn')).userErrors).toEqual([]);
    expect(roleOf('dee')).toBe('edit');
    expect(roleOf('finn')).toBe('comment');
    const { uses } = g.platform.db.prepare('SELECT uses FROM link_invites WHERE id = ?').get(invite.platformId) as {
      uses: number;
    };
    // dee's join changed nothing and used nothing.
    expect(uses).toBe(2);
  });

  it('refuse a used-up, expired or revoked link with PRECONDITION_FAILED, an unknown one with NOT_FOUND', async () => {
    const once = await createInvite('role: READ, maxUses: 1');
    expect((await join(once.invite.id, 'ivo')).userErrors).toEqual([]);
    const usedUp = await join(once.invite.id, 'jo');
    expect(usedUp.userErrors).toEqual([
      { code: 'PRECONDITION_FAILED', message: expect.stringContaining('used its 1 time'), field: null },
    ]);
    expect(roleOf('jo')).toBeUndefined();

    const soon = new Date(Date.now() + 60_000).toISOString();
    const expiring = await createInvite(`role: READ, expiresAt: "${soon}"`);
    expect(expiring.userErrors).toEqual([]);
    // The link's expiry passes (moved into the past in the store rather than waiting for it).
    g.platform.db
      .prepare('UPDATE link_invites SET expires_at = ? WHERE id = ?')
      .run(new Date(Date.now() - 1000).toISOString(), expiring.invite.platformId);
    expect((await join(expiring.invite.id, 'jo')).userErrors).toEqual([
      { code: 'PRECONDITION_FAILED', message: expect.stringContaining('expired'), field: null },
    ]);

    const revoked = await createInvite('role: ADMIN');
    const deleted = await g.gql(
      `mutation ($id: ID!) { deleteOrganizationInvite(input: { organizationId: "${ORG}", inviteId: $id }) { deleted } }`,
      { id: revoked.invite.platformId },
      as('ada'),
    );
    expect(deleted.data.deleteOrganizationInvite).toEqual({ deleted: true });
    expect((await join(revoked.invite.id, 'jo')).userErrors).toEqual([
      { code: 'PRECONDITION_FAILED', message: expect.stringContaining('revoked'), field: null },
    ]);
    expect(roleOf('jo')).toBeUndefined();
    expect((await join('Unknown0000000000000', 'jo')).userErrors).toEqual([
      expect.objectContaining({ code: 'NOT_FOUND', field: ['inviteId'] }),
    ]);
  });

  it('refuse expiries in the past or too far away, and too many uses, before or at the platform', async () => {
    const past = await createInvite(`role: READ, expiresAt: "2020-01-01T00:00:00Z"`);
    expect(past.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', message: expect.stringContaining('in the future') }),
    ]);
    const far = await createInvite(`role: READ, expiresAt: "2999-01-01T00:00:00Z"`);
    expect(far.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', message: expect.stringContaining('365 days') }),
    ]);
    const roleless = await createInvite('maxUses: 2');
    expect(roleless).toMatchObject({
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['role'], message: expect.stringContaining('is required') }],
      upstream: 0,
    });
    const many = await createInvite('role: READ, maxUses: 10001');
    expect(many).toMatchObject({
      userErrors: [{ code: 'BAD_USER_INPUT', field: ['maxUses'], message: expect.stringContaining('10000') }],
      upstream: 0,
    });
  });
});

describe('invitations by e-mail', () => {
  it('make members at once, with an account for an unknown address, and no more than the role given', async () => {
    const result = await g.gql(
      `mutation { inviteUsersToOrganization(input: { organizationId: "${ORG}", emails: ["new.person@example.test"], role: READ,
        invitees: [{ email: "${users.dee.email}", role: COMMENT }] }) {
        invited users { displayName email } failedSSOEmails userErrors { code } } }`,
      {},
      as('ada'),
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.inviteUsersToOrganization).toEqual({
      invited: 1,
      users: [{ displayName: 'new.person', email: 'new.person@example.test' }],
      failedSSOEmails: [],
      userErrors: [],
    });
    expect(roleOf('dee')).toBe('edit');
  });

  it('refuse more than 100 people before the platform', async () => {
    const emails = Array.from({ length: 101 }, (_, i) => `p${i}@example.test`);
    const result = await g.gql(
      `mutation ($emails: [String!]) { inviteUsersToOrganization(input: { organizationId: "${ORG}", emails: $emails }) { userErrors { code field message } } }`,
      { emails },
      as('ada'),
    );
    expect(result.data.inviteUsersToOrganization.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: ['emails'] }),
    ]);
    expect(result.upstream).toBe(0);
  });
});

describe('organizations and accounts', () => {
  it('createOrganization makes the caller its first admin', async () => {
    const result = await g.gql(
      `mutation { createOrganization(input: { title: "Southwind", emailDomains: ["Southwind.test"] }) {
        organization { platformId title emailDomains } userErrors { code } } }`,
      {},
      as('hana'),
    );
    expect(result.errors).toBeUndefined();
    const org = result.data.createOrganization.organization;
    expect(org).toMatchObject({ title: 'Southwind', emailDomains: ['southwind.test'] });
    const member = g.platform.db
      .prepare('SELECT role FROM members WHERE org_id = ? AND user_id = ?')
      .get(org.platformId, users.hana.id);
    expect(member).toEqual({ role: 'admin' });
  });

  it('updateViewer changes only the caller, and the viewer reads the change', async () => {
    const result = await g.gql(
      `mutation { updateViewer(input: { displayName: "Ivo Renamed" }) { user { platformId displayName } userErrors { code } } }`,
      {},
      as('ivo'),
    );
    expect(result.data.updateViewer).toEqual({
      user: { platformId: users.ivo.id, displayName: 'Ivo Renamed' },
      userErrors: [],
    });
    expect(result.upstream).toBe(2);
    const viewer = await g.gql('{ viewer { displayName } }', {}, as('ivo'));
    expect(viewer.data.viewer.displayName).toBe('Ivo Renamed');
    const other = await g.platform.api('PATCH', `/users/${users.dee.id}`, {
      token: users.ada.token,
      body: { displayName: 'Not yours' },
    });
    expect(other.status).toBe(403);
  });

  it('createNotificationsToken answers a short-lived token signed by the platform, naming the caller', async () => {
    const result = await g.gql(
      'mutation { createNotificationsToken(input: {}) { token userErrors { code } } }',
      {},
      as('finn'),
    );
    const token = result.data.createNotificationsToken.token as string;
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const claims = decodeJwt(token);
    expect(claims.sub).toBe(users.finn.id);
    expect(claims.aud).toBe('notifications');
    expect(claims.exp! - claims.iat!).toBe(600);
    await expect(notificationsTokenUser(g.platform.db, token)).resolves.toBe(users.finn.id);
    // Changed claims break the signature.
    const [head, , signature] = token.split('.');
    const forged = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: users.ada.id })).toString('base64url')}.${signature}`;
    await expect(notificationsTokenUser(g.platform.db, forged)).resolves.toBeUndefined();
    // The key never appears in what the platform stores under a readable name or answers.
    expect(JSON.stringify(result)).not.toMatch(/derived-key|url-signing-key/);
  });
});
