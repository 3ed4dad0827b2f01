import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

const NAMES = {
  ada: 'Ada Lovelace',
  ben: 'Ben Okafor',
  cy: 'Cy Tanaka',
  dee: 'Dee Alvarez',
  eve: 'Eve Martin',
  finn: 'Finn Larsen',
  gus: 'Gus Partner',
  hana: 'Hana Kowalski',
  ivy: 'Ivy Chen',
};
type UserKey = keyof typeof NAMES;

let g: TestGateway;
const users = {} as Record<UserKey, TestUser>;
/** The users' e-mails. */
const U = {} as Record<UserKey, string>;
const ids = {} as Record<UserKey, string>;
/** Northwind's teams: Writers (owner ben; dee, eve) and Platform (owner dee). */
const T = {} as Record<'writers' | 'platform', string>;
const token = (key: UserKey) => users[key].token;
const memberGlobalId = (org: string, user: UserKey) => encodeGlobalID('Member', `${org}/${ids[user]}`);
const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

/**
 * Northwind Docs (default role `read`): ada admin, ben `create`, cy `review`, dee `edit` (SSO), eve `comment`,
 * finn `read` (`edit` on Runbooks), gus a guest from partner.test (`read` on the Guides collection, `comment` on its Tutorials
 * space); they joined in that order, and cy and finn were never seen. Southwind: ada its only admin, hana.
 * ivy is in no organization.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const [key, name] of Object.entries(NAMES) as Array<[UserKey, string]>) {
    // gus is found by his e-mail's domain.
    users[key] = addUser(g.platform, key, { name, ...(key === 'gus' ? { email: 'gus@partner.test' } : {}) });
    U[key] = users[key].email;
    ids[key] = users[key].id;
  }
  const roles = {
    ada: 'admin',
    ben: 'create',
    cy: 'review',
    dee: 'edit',
    eve: 'comment',
    finn: 'read',
    gus: null,
  } as const;
  const seen: Partial<Record<UserKey, number>> = { ada: 1, dee: 2, ben: 3, gus: 4, eve: 5 };
  const org = addOrg(g.platform, {
    id: 'northwind',
    title: 'Northwind Docs',
    members: roles,
    users,
    defaultRole: 'read',
    memberships: Object.fromEntries(
      Object.keys(roles).map((key, i) => [
        key,
        {
          joinedAt: ago(24 * (10 - i)),
          ...(seen[key as UserKey] ? { lastSeenAt: ago(seen[key as UserKey]!) } : {}),
          sso: key === 'dee',
        },
      ]),
    ),
  });
  addOrg(g.platform, { id: 'southwind', members: { ada: 'admin', hana: 'edit' }, users });
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ space: await org.space('Runbooks') }, 'edit', { users: ['finn'] });
  const guides = await org.collection('Guides');
  await org.grant({ collection: guides }, 'read', { users: ['gus'] });
  const titles = [
    'Getting started',
    'Tutorials',
    'Performance tuning',
    'Security hardening',
    'Guide de démarrage',
    'Erste Schritte',
    'Getting started (FR)',
  ];
  for (const [i, title] of titles.entries()) {
    const space = await org.space(title, { parent: guides });
    // Distinct creation times: members' spaces are listed by them.
    g.platform.db.prepare('UPDATE spaces SET created_at = ? WHERE id = ?').run(ago(100 - i), space);
    if (title === 'Tutorials') await org.grant({ space }, 'comment', { users: ['gus'] });
  }
});

afterAll(async () => {
  await g?.destroy();
});

const names = (...keys: UserKey[]) => keys.map((key) => NAMES[key]);

describe('Organization.members', () => {
  it('lists members with their users in 2 requests (the user comes with the member)', async () => {
    const result = await g.gql(`{
      organization(id: "northwind") {
        members(first: 50) { totalCount nodes { role user { displayName } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      organization: {
        members: {
          totalCount: 7,
          nodes: [
            { role: null, user: { displayName: 'Gus Partner' } },
            { role: 'READ', user: { displayName: 'Finn Larsen' } },
            { role: 'COMMENT', user: { displayName: 'Eve Martin' } },
            { role: 'EDIT', user: { displayName: 'Dee Alvarez' } },
            { role: 'REVIEW', user: { displayName: 'Cy Tanaka' } },
            { role: 'CREATE', user: { displayName: 'Ben Okafor' } },
            { role: 'ADMIN', user: { displayName: 'Ada Lovelace' } },
          ],
        },
      },
    });
    expect(result.upstream).toBe(2);
    expect(result.upstreamRequests).toEqual(['GET /v1/orgs/northwind', 'GET /v1/orgs/northwind/members?limit=50']);
  });

  it('passes role, search, sort and order to the REST query', async () => {
    const result = await g.gql(`{
      organization(id: "northwind") {
        guests: members(role: GUEST) { totalCount nodes { role isGuest user { displayName } } }
        admins: members(role: ADMIN) { nodes { user { displayName } } }
        search: members(search: "LARS") { nodes { user { displayName } } }
        byEmail: members(search: "partner.test") { nodes { user { displayName } } }
        byName: members(sort: NAME, order: ASC) { nodes { user { displayName } } }
        bySeen: members(sort: LAST_SEEN_AT) { totalCount nodes { user { displayName } } }
        oldestFirst: members(order: ASC, first: 2) { nodes { user { displayName } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    const list = (...keys: UserKey[]) => ({ nodes: names(...keys).map((displayName) => ({ user: { displayName } })) });
    expect(result.data).toEqual({
      organization: {
        guests: { totalCount: 1, nodes: [{ role: null, isGuest: true, user: { displayName: 'Gus Partner' } }] },
        admins: list('ada'),
        search: list('finn'),
        byEmail: list('gus'),
        byName: list('ada', 'ben', 'cy', 'dee', 'eve', 'finn', 'gus'),
        // Members never seen (cy, finn) are left out when sorting by last activity.
        bySeen: { totalCount: 5, ...list('ada', 'dee', 'ben', 'gus', 'eve') },
        oldestFirst: list('ada', 'ben'),
      },
    });
    expect([...result.upstreamRequests].sort()).toEqual([
      'GET /v1/orgs/northwind',
      'GET /v1/orgs/northwind/members?limit=2&order=asc',
      'GET /v1/orgs/northwind/members?limit=50&order=asc&sort=name',
      'GET /v1/orgs/northwind/members?limit=50&role=admin',
      'GET /v1/orgs/northwind/members?limit=50&role=guest',
      'GET /v1/orgs/northwind/members?limit=50&search=LARS',
      'GET /v1/orgs/northwind/members?limit=50&search=partner.test',
      'GET /v1/orgs/northwind/members?limit=50&sort=lastSeenAt',
    ]);
  });

  it('pages forward with first/after; a cursor from any edge resumes right after it', async () => {
    const query = `query ($after: String, $first: Int) {
      organization(id: "northwind") {
        members(first: $first, after: $after) {
          totalCount
          edges { cursor node { user { displayName } } }
          pageInfo { hasNextPage hasPreviousPage endCursor }
        }
      }
    }`;
    const first = await g.gql(query, { first: 2 });
    expect(first.errors).toBeUndefined();
    const firstPage = first.data.organization.members;
    expect(firstPage.edges.map((e: any) => e.node.user.displayName)).toEqual(names('gus', 'finn'));
    expect(firstPage.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      endCursor: firstPage.edges[1].cursor,
    });
    expect(firstPage.totalCount).toBe(7);

    const second = await g.gql(query, { first: 3, after: firstPage.pageInfo.endCursor });
    const secondPage = second.data.organization.members;
    expect(secondPage.edges.map((e: any) => e.node.user.displayName)).toEqual(names('eve', 'dee', 'cy'));
    expect(secondPage.pageInfo.hasNextPage).toBe(true);
    expect(second.upstream).toBe(2);

    const fromMiddle = await g.gql(query, { first: 10, after: secondPage.edges[0].cursor });
    expect(fromMiddle.data.organization.members.edges.map((e: any) => e.node.user.displayName)).toEqual(
      names('dee', 'cy', 'ben', 'ada'),
    );
    expect(fromMiddle.data.organization.members.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('rejects a too long search before any members request', async () => {
    const result = await g.gql(
      `query ($search: String) {
      organization(id: "northwind") { title members(search: $search) { totalCount } }
    }`,
      { search: 'x'.repeat(513) },
    );
    expect(result.data).toEqual({ organization: { title: 'Northwind Docs', members: null } });
    expect(result.errors).toMatchObject([
      { path: ['organization', 'members'], extensions: { code: 'BAD_USER_INPUT', field: ['search'] } },
    ]);
    expect(result.upstreamRequests).toEqual(['GET /v1/orgs/northwind']);
  });

  it('gives a guest FORBIDDEN on the member list while the rest resolves', async () => {
    const result = await g.gql(
      `{ organization(id: "northwind") { title members { totalCount } viewerMembership { role isGuest } } }`,
      {},
      { token: token('gus') },
    );
    expect(result.data).toEqual({
      organization: { title: 'Northwind Docs', members: null, viewerMembership: { role: null, isGuest: true } },
    });
    expect(result.errors).toMatchObject([
      { path: ['organization', 'members'], extensions: { code: 'FORBIDDEN', upstreamStatus: 403 } },
    ]);
  });
});

describe('member and node lookups', () => {
  it('reads a member in 1 request: the user is embedded and the organization is a stub', async () => {
    const result = await g.gql(
      `query ($userId: ID!) {
        member(organizationId: "northwind", userId: $userId) {
          id platformId role isGuest disabled joinedAt lastSeenAt sso spaceCount teamCount
          user { id platformId displayName email }
          organization { id platformId }
        }
      }`,
      { userId: ids.dee },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      member: {
        id: memberGlobalId('northwind', 'dee'),
        platformId: ids.dee,
        role: 'EDIT',
        isGuest: false,
        disabled: false,
        joinedAt: expect.any(String),
        lastSeenAt: expect.any(String),
        sso: true,
        spaceCount: 0,
        teamCount: 2,
        user: { id: encodeGlobalID('User', ids.dee), platformId: ids.dee, displayName: 'Dee Alvarez', email: U.dee },
        organization: { id: encodeGlobalID('Organization', 'northwind'), platformId: 'northwind' },
      },
    });
    expect(result.upstreamRequests).toEqual([`GET /v1/orgs/northwind/members/${ids.dee}`]);
  });

  it('accepts a User global ID and a never-seen member has a null lastSeenAt', async () => {
    const result = await g.gql(
      `query ($userId: ID!) { member(organizationId: "northwind", userId: $userId) { role lastSeenAt user { displayName } } }`,
      {
        userId: encodeGlobalID('User', ids.finn),
      },
    );
    expect(result.data).toEqual({ member: { role: 'READ', lastSeenAt: null, user: { displayName: 'Finn Larsen' } } });
    expect(result.upstream).toBe(1);
  });

  it('is null with NOT_FOUND for a user who is not a member, while the rest resolves', async () => {
    const result = await g.gql(
      `query ($userId: ID!) { viewer { displayName } member(organizationId: "northwind", userId: $userId) { role } }`,
      { userId: ids.hana },
    );
    expect(result.data).toEqual({ viewer: { displayName: 'Ada Lovelace' }, member: null });
    expect(result.errors).toMatchObject([{ path: ['member'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }]);
  });

  it('round-trips a Member through node(id:)', async () => {
    const listed = await g.gql(`{ organization(id: "northwind") { members(role: REVIEW) { nodes { id } } } }`);
    const id = listed.data.organization.members.nodes[0].id;
    expect(id).toBe(memberGlobalId('northwind', 'cy'));
    const result = await g.gql(
      `query ($id: ID!) { node(id: $id) { __typename id ... on Member { role user { displayName } } } }`,
      { id },
    );
    expect(result.data).toEqual({
      node: { __typename: 'Member', id, role: 'REVIEW', user: { displayName: 'Cy Tanaka' } },
    });
    expect(result.upstreamRequests).toEqual([`GET /v1/orgs/northwind/members/${ids.cy}`]);

    const missing = await g.gql(`query ($id: ID!) { node(id: $id) { id } }`, {
      id: memberGlobalId('northwind', 'hana'),
    });
    expect(missing.data).toEqual({ node: null });
    expect(missing.errors).toMatchObject([{ extensions: { code: 'NOT_FOUND' } }]);
  });

  it('gives your own membership as viewerMembership', async () => {
    const result = await g.gql(
      `{ organization(id: "northwind") { viewerMembership { role user { displayName } organization { title } } } }`,
      {},
      { token: token('finn') },
    );
    expect(result.data).toEqual({
      organization: {
        viewerMembership: {
          role: 'READ',
          user: { displayName: 'Finn Larsen' },
          organization: { title: 'Northwind Docs' },
        },
      },
    });
    // organization, viewer, member: the organization link reuses the loaded organization.
    expect(result.upstream).toBe(3);
  });
});

describe('Member.teams', () => {
  it('lists the teams of a member with their role, filtered by title', async () => {
    const result = await g.gql(
      `query ($userId: ID!) {
        member(organizationId: "northwind", userId: $userId) {
          teams { totalCount nodes { role team { platformId title memberCount organization { platformId } } } }
          writers: teams(title: "WRIT") { nodes { role team { title } } }
        }
      }`,
      { userId: ids.dee },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      member: {
        teams: {
          totalCount: 2,
          nodes: [
            {
              role: 'OWNER',
              team: {
                platformId: T.platform,
                title: 'Platform',
                memberCount: 1,
                organization: { platformId: 'northwind' },
              },
            },
            {
              role: 'MEMBER',
              team: {
                platformId: T.writers,
                title: 'Writers',
                memberCount: 3,
                organization: { platformId: 'northwind' },
              },
            },
          ],
        },
        writers: { nodes: [{ role: 'MEMBER', team: { title: 'Writers' } }] },
      },
    });
    // The member, then its two team lists; the listed teams are not fetched again.
    expect(result.upstream).toBe(3);
    expect(result.upstreamRequests).toContain(`GET /v1/orgs/northwind/members/${ids.dee}/teams?limit=50&title=WRIT`);
  });

  it('gives a guest FORBIDDEN on their team list while the member resolves', async () => {
    const result = await g.gql(
      `query ($userId: ID!) { member(organizationId: "northwind", userId: $userId) { role teams { totalCount } } }`,
      { userId: ids.gus },
      { token: token('gus') },
    );
    expect(result.data).toEqual({ member: { role: null, teams: null } });
    expect(result.errors).toMatchObject([{ path: ['member', 'teams'], extensions: { code: 'FORBIDDEN' } }]);
  });
});

describe('Member.spaces', () => {
  it('lists the spaces a member can access with their effective role; spaces come primed', async () => {
    const result = await g.gql(
      `query ($userId: ID!) {
        member(organizationId: "northwind", userId: $userId) {
          spaceCount
          spaces { totalCount nodes { role space { title } } }
          oldestFirst: spaces(order: ASC, first: 2) { pageInfo { hasNextPage } nodes { role space { id title } } }
        }
      }`,
      { userId: ids.gus },
    );
    expect(result.errors).toBeUndefined();
    const space = (role: string, title: string) => ({ role, space: { title } });
    expect(result.data).toEqual({
      member: {
        spaceCount: 1,
        spaces: {
          totalCount: 7,
          nodes: [
            space('READ', 'Getting started (FR)'),
            space('READ', 'Erste Schritte'),
            space('READ', 'Guide de démarrage'),
            space('READ', 'Security hardening'),
            space('READ', 'Performance tuning'),
            space('COMMENT', 'Tutorials'),
            space('READ', 'Getting started'),
          ],
        },
        oldestFirst: {
          pageInfo: { hasNextPage: true },
          nodes: [
            { role: 'READ', space: { id: expect.any(String), title: 'Getting started' } },
            { role: 'COMMENT', space: { id: expect.any(String), title: 'Tutorials' } },
          ],
        },
      },
    });
    expect(result.upstreamRequests).toEqual([
      `GET /v1/orgs/northwind/members/${ids.gus}`,
      `GET /v1/orgs/northwind/members/${ids.gus}/spaces?limit=50`,
      `GET /v1/orgs/northwind/members/${ids.gus}/spaces?limit=2&order=asc`,
    ]);
  });

  it("lets a member list their own spaces but not another member's (FORBIDDEN on the field)", async () => {
    const query = `query ($userId: ID!) {
      member(organizationId: "northwind", userId: $userId) { user { displayName } spaces(first: 1000) { nodes { role space { title } } } }
    }`;
    const own = await g.gql(query, { userId: ids.finn }, { token: token('finn') });
    expect(own.errors).toBeUndefined();
    expect(own.data.member.spaces.nodes).toContainEqual({ role: 'EDIT', space: { title: 'Runbooks' } });

    const other = await g.gql(query, { userId: ids.finn }, { token: token('ben') });
    expect(other.data).toEqual({ member: { user: { displayName: 'Finn Larsen' }, spaces: null } });
    expect(other.errors).toMatchObject([
      { path: ['member', 'spaces'], extensions: { code: 'FORBIDDEN', upstreamStatus: 403 } },
    ]);
  });
});

describe('member mutations', () => {
  const updateMember = `mutation ($input: UpdateMemberInput!) {
    updateMember(input: $input) {
      member { role isGuest user { displayName } }
      userErrors { message code field upstreamStatus }
    }
  }`;

  it('updateMember changes a role, makes a guest with null, and the change is visible', async () => {
    const promoted = await g.gql(updateMember, {
      input: { organizationId: 'northwind', userId: ids.finn, role: 'EDIT' },
    });
    expect(promoted.data).toEqual({
      updateMember: { member: { role: 'EDIT', isGuest: false, user: { displayName: 'Finn Larsen' } }, userErrors: [] },
    });
    expect(promoted.upstreamRequests).toEqual([`PATCH /v1/orgs/northwind/members/${ids.finn}`]);

    const guest = await g.gql(updateMember, {
      input: {
        organizationId: encodeGlobalID('Organization', 'northwind'),
        userId: encodeGlobalID('User', ids.finn),
        role: null,
      },
    });
    expect(guest.data).toEqual({
      updateMember: { member: { role: null, isGuest: true, user: { displayName: 'Finn Larsen' } }, userErrors: [] },
    });
    const read = await g.gql(`query ($u: ID!) { member(organizationId: "northwind", userId: $u) { role } }`, {
      u: ids.finn,
    });
    expect(read.data).toEqual({ member: { role: null } });

    const restored = await g.gql(updateMember, {
      input: { organizationId: 'northwind', userId: ids.finn, role: 'READ' },
    });
    expect(restored.data.updateMember.member.role).toBe('READ');
  });

  it('updateMember refuses to demote the last admin (CONFLICT)', async () => {
    const result = await g.gql(updateMember, { input: { organizationId: 'northwind', userId: ids.ada, role: 'READ' } });
    expect(result.data).toEqual({
      updateMember: {
        member: null,
        userErrors: [
          {
            message: 'The last admin of an organization cannot be demoted',
            code: 'CONFLICT',
            field: null,
            upstreamStatus: 409,
          },
        ],
      },
    });
  });

  it('updateMember needs the role to be given, checked before any request', async () => {
    const result = await g.gql(updateMember, { input: { organizationId: 'northwind', userId: ids.finn } });
    expect(result.data).toEqual({
      updateMember: {
        member: null,
        userErrors: [
          {
            message: 'role: must be given: a role, or null to make the member a guest',
            code: 'BAD_USER_INPUT',
            field: ['role'],
            upstreamStatus: null,
          },
        ],
      },
    });
    expect(result.upstream).toBe(0);
  });

  it('updateMember by a non-admin is FORBIDDEN', async () => {
    const result = await g.gql(
      updateMember,
      { input: { organizationId: 'northwind', userId: ids.finn, role: 'ADMIN' } },
      { token: token('ben') },
    );
    expect(result.data.updateMember).toMatchObject({
      member: null,
      userErrors: [{ code: 'FORBIDDEN', upstreamStatus: 403 }],
    });
  });

  const setMemberSso = `mutation ($input: SetMemberSsoInput!) {
    setMemberSso(input: $input) {
      member { platformId role sso user { displayName } organization { title } }
      userErrors { code field upstreamStatus }
    }
  }`;
  const removeMember = `mutation ($input: RemoveMemberInput!) {
    removeMember(input: $input) { deleted removalRequested userErrors { message code upstreamStatus } }
  }`;

  it('setMemberSso adds a user as an SSO member with the default role; removeMember removes them', async () => {
    const added = await g.gql(setMemberSso, { input: { organizationId: 'northwind', userId: ids.ivy } });
    expect(added.data).toEqual({
      setMemberSso: {
        member: {
          platformId: ids.ivy,
          role: 'READ',
          sso: true,
          user: { displayName: 'Ivy Chen' },
          organization: { title: 'Northwind Docs' },
        },
        userErrors: [],
      },
    });
    expect(added.upstreamRequests).toEqual([
      `POST /v1/orgs/northwind/members/${ids.ivy}/sso`,
      'GET /v1/orgs/northwind',
    ]);

    const removed = await g.gql(removeMember, { input: { organizationId: 'northwind', userId: ids.ivy } });
    expect(removed.data).toEqual({ removeMember: { deleted: true, removalRequested: false, userErrors: [] } });
    const again = await g.gql(removeMember, { input: { organizationId: 'northwind', userId: ids.ivy } });
    expect(again.data).toEqual({ removeMember: { deleted: false, removalRequested: false, userErrors: [] } });

    const gone = await g.gql(`query ($u: ID!) { member(organizationId: "northwind", userId: $u) { role } }`, {
      u: ids.ivy,
    });
    expect(gone.data).toEqual({ member: null });
  });

  it('setMemberSso fails for an unknown user (NOT_FOUND) and for a non-admin (FORBIDDEN)', async () => {
    const unknown = await g.gql(setMemberSso, { input: { organizationId: 'northwind', userId: 'no-such-user' } });
    expect(unknown.data).toEqual({
      setMemberSso: { member: null, userErrors: [{ code: 'NOT_FOUND', field: ['userId'], upstreamStatus: 404 }] },
    });
    const forbidden = await g.gql(
      setMemberSso,
      { input: { organizationId: 'northwind', userId: ids.ivy } },
      { token: token('dee') },
    );
    expect(forbidden.data).toEqual({
      setMemberSso: { member: null, userErrors: [{ code: 'FORBIDDEN', field: null, upstreamStatus: 403 }] },
    });
  });

  it('removeMember refuses the last admin and needs admin rights for others', async () => {
    const lastAdmin = await g.gql(removeMember, { input: { organizationId: 'southwind', userId: ids.ada } });
    expect(lastAdmin.data).toEqual({
      removeMember: {
        deleted: false,
        removalRequested: false,
        userErrors: [
          { message: 'The last admin of an organization cannot be removed', code: 'CONFLICT', upstreamStatus: 409 },
        ],
      },
    });
    const forbidden = await g.gql(
      removeMember,
      { input: { organizationId: 'northwind', userId: ids.eve } },
      { token: token('ben') },
    );
    expect(forbidden.data.removeMember).toMatchObject({
      deleted: false,
      userErrors: [{ code: 'FORBIDDEN', upstreamStatus: 403 }],
    });
    const empty = await g.gql(removeMember, { input: { organizationId: 'northwind', userId: '  ' } });
    expect(empty.data.removeMember.userErrors).toEqual([
      { message: 'userId: must be the id of a User', code: 'BAD_USER_INPUT', upstreamStatus: null },
    ]);
    expect(empty.upstream).toBe(0);
  });

  const ping = `mutation ($input: PingOrganizationInput!) {
    pingOrganization(input: $input) {
      serviceVisitorClaims
      member { lastSeenAt user { displayName } }
      userErrors { code field upstreamStatus }
    }
  }`;

  it('pingOrganization records activity: a never-seen member gets a lastSeenAt', async () => {
    const result = await g.gql(ping, { input: { organizationId: 'northwind' } }, { token: token('cy') });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      pingOrganization: {
        serviceVisitorClaims: null,
        member: { lastSeenAt: expect.any(String), user: { displayName: 'Cy Tanaka' } },
        userErrors: [],
      },
    });
    expect(Date.now() - Date.parse(result.data.pingOrganization.member.lastSeenAt)).toBeLessThan(60_000);
    expect(result.upstreamRequests).toEqual([
      'POST /v1/orgs/northwind/ping',
      'GET /v1/user',
      `GET /v1/orgs/northwind/members/${ids.cy}`,
    ]);

    const claimsOnly = await g.gql(
      `mutation { pingOrganization(input: { organizationId: "northwind" }) { serviceVisitorClaims userErrors { code } } }`,
    );
    expect(claimsOnly.data).toEqual({ pingOrganization: { serviceVisitorClaims: null, userErrors: [] } });
    expect(claimsOnly.upstream).toBe(1);
  });

  it('pingOrganization reports an unknown organization as NOT_FOUND', async () => {
    const result = await g.gql(ping, { input: { organizationId: 'nowhere' } });
    expect(result.data).toEqual({
      pingOrganization: {
        serviceVisitorClaims: null,
        member: null,
        userErrors: [{ code: 'NOT_FOUND', field: ['organizationId'], upstreamStatus: 404 }],
      },
    });
    expect(result.upstream).toBe(1);
  });
});
