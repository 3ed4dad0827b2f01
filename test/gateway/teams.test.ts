import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

/**
 * Northwind Docs: ada admin, ben `create`, cy `review`, dee `edit`, eve `comment`, finn `read`, gus a guest.
 * Southwind: ada admin, hana `edit` (an outsider to Northwind).
 */
const names = {
  ada: 'Ada Lovelace',
  ben: 'Ben Okafor',
  cy: 'Cy Tanaka',
  dee: 'Dee Alvarez',
  eve: 'Eve Martin',
  finn: 'Finn Larsen',
  gus: 'Gus Partner',
  hana: 'Hana Kowalski',
};
type UserKey = keyof typeof names;
/** The users' e-mails. */
const U = {} as Record<UserKey, string>;
/**
 * Northwind's teams: Writers (owner ben; dee, eve), Reviewers (owner cy; finn), Platform (owner dee; `edit` on a
 * space).
 */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;

let g: TestGateway;
const users = {} as Record<UserKey, TestUser>;
const ids = {} as Record<UserKey, string>;
const token = (key: UserKey) => users[key].token;
const teamGlobalId = (teamId: string, org = 'northwind') => encodeGlobalID('Team', `${org}/${teamId}`);

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const [key, name] of Object.entries(names) as Array<[UserKey, string]>) {
    users[key] = addUser(g.platform, key, { name });
    U[key] = users[key].email;
    ids[key] = users[key].id;
  }
  const org = addOrg(g.platform, {
    id: 'northwind',
    title: 'Northwind Docs',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  addOrg(g.platform, { id: 'southwind', members: { ada: 'admin', hana: 'edit' }, users });
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ space: await org.space('Architecture decisions') }, 'edit', { teams: [T.platform] });
});

afterAll(async () => {
  await g?.destroy();
});

/** Team members as `[displayName, role]`, read straight from the gateway. */
async function teamMembers(teamId: string): Promise<Array<[string, string]>> {
  const result = await g.gql(
    `query ($id: ID!) { team(organizationId: "northwind", id: $id) { members { nodes { role member { user { displayName } } } } } }`,
    { id: teamId },
  );
  expect(result.errors).toBeUndefined();
  return result.data.team.members.nodes.map((n: any) => [n.member.user.displayName, n.role]);
}

describe('Organization.teams', () => {
  it('lists teams with their members in 2 + one request per team', async () => {
    const result = await g.gql(`{
      organization(id: "northwind") {
        teams { totalCount nodes { title members { totalCount nodes { role member { user { displayName } } } } } }
      }
    }`);
    expect(result.errors).toBeUndefined();
    const member = (role: string, displayName: string) => ({ role, member: { user: { displayName } } });
    expect(result.data).toEqual({
      organization: {
        teams: {
          totalCount: 3,
          nodes: [
            { title: 'Platform', members: { totalCount: 1, nodes: [member('OWNER', 'Dee Alvarez')] } },
            {
              title: 'Reviewers',
              members: { totalCount: 2, nodes: [member('OWNER', 'Cy Tanaka'), member('MEMBER', 'Finn Larsen')] },
            },
            {
              title: 'Writers',
              members: {
                totalCount: 3,
                nodes: [member('OWNER', 'Ben Okafor'), member('MEMBER', 'Dee Alvarez'), member('MEMBER', 'Eve Martin')],
              },
            },
          ],
        },
      },
    });
    expect(result.upstream).toBe(2 + 3);
    expect([...result.upstreamRequests].sort()).toEqual(
      [
        'GET /v1/orgs/northwind',
        `GET /v1/orgs/northwind/teams/${T.platform}/members?limit=50`,
        `GET /v1/orgs/northwind/teams/${T.reviewers}/members?limit=50`,
        `GET /v1/orgs/northwind/teams/${T.writers}/members?limit=50`,
        'GET /v1/orgs/northwind/teams?limit=50',
      ].sort(),
    );
  });

  it('filters by title and by owner (user id or User global ID) in the REST query', async () => {
    const result = await g.gql(
      `query ($dee: ID!, $ada: ID!) {
        organization(id: "northwind") {
          byTitle: teams(title: "REV") { nodes { title } }
          ownedByDee: teams(owner: $dee) { nodes { title } }
          managedByAda: teams(owner: $ada) { totalCount }
          nobody: teams(owner: "no-such-user") { totalCount nodes { title } }
        }
      }`,
      { dee: ids.dee, ada: encodeGlobalID('User', ids.ada) },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      organization: {
        byTitle: { nodes: [{ title: 'Reviewers' }] },
        ownedByDee: { nodes: [{ title: 'Platform' }] },
        managedByAda: { totalCount: 3 },
        nobody: { totalCount: 0, nodes: [] },
      },
    });
    expect([...result.upstreamRequests].sort()).toEqual(
      [
        'GET /v1/orgs/northwind',
        // Only its totalCount is asked: a page of one item is enough.
        `GET /v1/orgs/northwind/teams?limit=1&owner=${ids.ada}`,
        `GET /v1/orgs/northwind/teams?limit=50&owner=${ids.dee}`,
        'GET /v1/orgs/northwind/teams?limit=50&owner=no-such-user',
        'GET /v1/orgs/northwind/teams?limit=50&title=REV',
      ].sort(),
    );
  });

  it('pages forward with first/after', async () => {
    const query = `query ($after: String) {
      organization(id: "northwind") { teams(first: 2, after: $after) { nodes { title } pageInfo { hasNextPage endCursor } } }
    }`;
    const first = await g.gql(query);
    expect(first.data.organization.teams).toEqual({
      nodes: [{ title: 'Platform' }, { title: 'Reviewers' }],
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
    });
    const second = await g.gql(query, { after: first.data.organization.teams.pageInfo.endCursor });
    expect(second.data.organization.teams).toEqual({
      nodes: [{ title: 'Writers' }],
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
    });
    const bad = await g.gql(query, { after: 'not-a-cursor' });
    expect(bad.data).toEqual({ organization: { teams: null } });
    expect(bad.errors).toMatchObject([
      { path: ['organization', 'teams'], extensions: { code: 'BAD_USER_INPUT', field: ['after'] } },
    ]);
  });

  it('gives a guest FORBIDDEN on the team list while the rest resolves', async () => {
    const result = await g.gql(
      `{ organization(id: "northwind") { title teams { totalCount } } }`,
      {},
      { token: token('gus') },
    );
    expect(result.data).toEqual({ organization: { title: 'Northwind Docs', teams: null } });
    expect(result.errors).toMatchObject([
      { path: ['organization', 'teams'], extensions: { code: 'FORBIDDEN', upstreamStatus: 403 } },
    ]);
  });
});

describe('team and node lookups', () => {
  it('reads a team in 1 request; its organization link is a stub', async () => {
    const result = await g.gql(`{
      team(organizationId: "northwind", id: "${T.platform}") {
        id platformId title memberCount spaceCount createdAt permissions { view admin } organization { id platformId }
      }
    }`);
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({
      team: {
        id: teamGlobalId(T.platform),
        platformId: T.platform,
        title: 'Platform',
        memberCount: 1,
        spaceCount: 1,
        createdAt: expect.any(String),
        permissions: { view: true, admin: true },
        organization: { id: encodeGlobalID('Organization', 'northwind'), platformId: 'northwind' },
      },
    });
    expect(result.upstreamRequests).toEqual([`GET /v1/orgs/northwind/teams/${T.platform}`]);
  });

  it('shows what a plain member may do, and loads the organization only when asked', async () => {
    const result = await g.gql(
      `{ team(organizationId: "northwind", id: "${T.writers}") { permissions { view admin } organization { title } } }`,
      {},
      { token: token('finn') },
    );
    expect(result.data).toEqual({
      team: { permissions: { view: true, admin: false }, organization: { title: 'Northwind Docs' } },
    });
    expect(result.upstream).toBe(2);
  });

  it('accepts a Team global ID alone, and asks for organizationId with a platform id', async () => {
    const byGlobal = await g.gql(`query ($id: ID!) { team(id: $id) { title } }`, { id: teamGlobalId(T.reviewers) });
    expect(byGlobal.data).toEqual({ team: { title: 'Reviewers' } });

    const bare = await g.gql(`{ viewer { displayName } team(id: "${T.reviewers}") { title } }`);
    expect(bare.data).toEqual({ viewer: { displayName: 'Ada Lovelace' }, team: null });
    expect(bare.errors).toMatchObject([
      { path: ['team'], extensions: { code: 'BAD_USER_INPUT', field: ['organizationId'] } },
    ]);
    expect(bare.upstream).toBe(1);
  });

  it('is null with NOT_FOUND for a missing team, while the rest resolves', async () => {
    const result = await g.gql(
      `{ organization(id: "northwind") { title } team(organizationId: "northwind", id: "team-nope") { title } }`,
    );
    expect(result.data).toEqual({ organization: { title: 'Northwind Docs' }, team: null });
    expect(result.errors).toMatchObject([{ path: ['team'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }]);
  });

  it('round-trips a Team through node(id:)', async () => {
    const listed = await g.gql(`{ organization(id: "northwind") { teams(title: "Writers") { nodes { id } } } }`);
    const id = listed.data.organization.teams.nodes[0].id;
    expect(id).toBe(teamGlobalId(T.writers));
    const result = await g.gql(
      `query ($id: ID!) { node(id: $id) { __typename id ... on Team { title memberCount } } }`,
      { id },
    );
    expect(result.data).toEqual({ node: { __typename: 'Team', id, title: 'Writers', memberCount: 3 } });
    expect(result.upstreamRequests).toEqual([`GET /v1/orgs/northwind/teams/${T.writers}`]);

    const malformed = await g.gql(`query ($id: ID!) { node(id: $id) { id } }`, {
      id: encodeGlobalID('Team', 'no-slash'),
    });
    expect(malformed.data).toEqual({ node: null });
    expect(malformed.errors).toMatchObject([{ extensions: { code: 'BAD_USER_INPUT' } }]);
    expect(malformed.upstream).toBe(0);
  });

  it('Team.members carries the permissions of each membership and primes the members', async () => {
    const result = await g.gql(`{
      team(organizationId: "northwind", id: "${T.reviewers}") {
        members(first: 1) { totalCount pageInfo { hasNextPage } nodes { role permissions { view } member { role teamCount organization { platformId } } } }
      }
    }`);
    expect(result.data).toEqual({
      team: {
        members: {
          totalCount: 2,
          pageInfo: { hasNextPage: true },
          nodes: [
            {
              role: 'OWNER',
              permissions: { view: true },
              member: { role: 'REVIEW', teamCount: 1, organization: { platformId: 'northwind' } },
            },
          ],
        },
      },
    });
    expect(result.upstreamRequests).toEqual([
      `GET /v1/orgs/northwind/teams/${T.reviewers}`,
      `GET /v1/orgs/northwind/teams/${T.reviewers}/members?limit=1`,
    ]);
  });
});

describe('team mutations', () => {
  const createTeam = `mutation ($input: CreateTeamInput!) {
    createTeam(input: $input) {
      team { id platformId title memberCount permissions { admin } organization { platformId } }
      userErrors { message code field upstreamStatus }
    }
  }`;

  it('createTeam rejects an empty title before any request', async () => {
    const result = await g.gql(createTeam, { input: { organizationId: 'northwind', title: '   ' } });
    expect(result.data).toEqual({
      createTeam: {
        team: null,
        userErrors: [
          {
            message: 'title: must be 1 to 64 characters',
            code: 'BAD_USER_INPUT',
            field: ['title'],
            upstreamStatus: null,
          },
        ],
      },
    });
    expect(result.upstream).toBe(0);
  });

  it('createTeam by a read-only member is FORBIDDEN', async () => {
    const result = await g.gql(
      createTeam,
      { input: { organizationId: 'northwind', title: 'Finn crew' } },
      { token: token('finn') },
    );
    expect(result.data).toEqual({
      createTeam: {
        team: null,
        userErrors: [
          {
            message: 'This needs the admin role in the organization',
            code: 'FORBIDDEN',
            field: null,
            upstreamStatus: 403,
          },
        ],
      },
    });
  });

  it('createTeam refuses members who are not in the organization (upstream 400)', async () => {
    const result = await g.gql(createTeam, {
      input: { organizationId: 'northwind', title: 'Mixed', memberIds: [ids.hana] },
    });
    expect(result.data.createTeam).toMatchObject({
      team: null,
      userErrors: [{ code: 'BAD_USER_INPUT', upstreamStatus: 400 }],
    });
  });

  let created: { id: string; platformId: string };

  it('createTeam creates a trimmed team with members (ids or User global IDs)', async () => {
    const result = await g.gql(createTeam, {
      input: {
        organizationId: 'northwind',
        title: '  Docs crew  ',
        memberIds: [ids.ben, encodeGlobalID('User', ids.eve)],
      },
    });
    expect(result.errors).toBeUndefined();
    const team = result.data.createTeam.team;
    created = { id: team.id, platformId: team.platformId };
    expect(result.data).toEqual({
      createTeam: {
        team: {
          id: teamGlobalId(team.platformId),
          platformId: team.platformId,
          title: 'Docs crew',
          memberCount: 2,
          permissions: { admin: true },
          organization: { platformId: 'northwind' },
        },
        userErrors: [],
      },
    });
    expect(result.upstreamRequests).toEqual(['PUT /v1/orgs/northwind/teams']);
    expect(await teamMembers(created.platformId)).toEqual([
      ['Ben Okafor', 'MEMBER'],
      ['Eve Martin', 'MEMBER'],
    ]);
  });

  const updateTeam = `mutation ($input: UpdateTeamInput!) {
    updateTeam(input: $input) { team { id title } userErrors { message code field upstreamStatus } }
  }`;

  it('updateTeam renames a team given by global ID or by platform id with organizationId', async () => {
    const byGlobal = await g.gql(updateTeam, { input: { teamId: created.id, title: 'Docs squad' } });
    expect(byGlobal.data).toEqual({ updateTeam: { team: { id: created.id, title: 'Docs squad' }, userErrors: [] } });
    expect(byGlobal.upstreamRequests).toEqual([`PATCH /v1/orgs/northwind/teams/${created.platformId}`]);

    const byPlatformId = await g.gql(updateTeam, {
      input: { organizationId: 'northwind', teamId: created.platformId, title: 'Docs crew' },
    });
    expect(byPlatformId.data).toEqual({ updateTeam: { team: { id: created.id, title: 'Docs crew' }, userErrors: [] } });
  });

  it('updateTeam validates the title and the team reference before any request', async () => {
    const tooLong = await g.gql(updateTeam, { input: { teamId: created.id, title: 'x'.repeat(65) } });
    const noOrg = await g.gql(updateTeam, { input: { teamId: T.writers, title: 'Writers' } });
    const otherOrg = await g.gql(updateTeam, {
      input: { organizationId: 'southwind', teamId: created.id, title: 'Writers' },
    });
    expect([tooLong.data, noOrg.data, otherOrg.data]).toEqual([
      {
        updateTeam: {
          team: null,
          userErrors: [
            {
              message: 'title: must be 1 to 64 characters',
              code: 'BAD_USER_INPUT',
              field: ['title'],
              upstreamStatus: null,
            },
          ],
        },
      },
      {
        updateTeam: {
          team: null,
          userErrors: [
            {
              message:
                'organizationId is required when teamId is the platform id of a team (a Team global ID carries it)',
              code: 'BAD_USER_INPUT',
              field: ['organizationId'],
              upstreamStatus: null,
            },
          ],
        },
      },
      {
        updateTeam: {
          team: null,
          userErrors: [
            {
              message: 'organizationId is not the organization of the team named by teamId',
              code: 'BAD_USER_INPUT',
              field: ['organizationId'],
              upstreamStatus: null,
            },
          ],
        },
      },
    ]);
    expect(tooLong.upstream + noOrg.upstream + otherOrg.upstream).toBe(0);
  });

  it('updateTeam by a member who does not own the team is FORBIDDEN', async () => {
    const result = await g.gql(
      updateTeam,
      { input: { teamId: teamGlobalId(T.writers), title: 'Eve team' } },
      { token: token('eve') },
    );
    expect(result.data).toEqual({
      updateTeam: {
        team: null,
        userErrors: [
          {
            message: 'Managing this team needs the admin role or team ownership',
            code: 'FORBIDDEN',
            field: null,
            upstreamStatus: 403,
          },
        ],
      },
    });
  });

  const updateTeamMembers = `mutation ($input: UpdateTeamMembersInput!) {
    updateTeamMembers(input: $input) { team { title memberCount } userErrors { message code field upstreamStatus } }
  }`;

  it('updateTeamMembers adds, removes and sets roles in one call, then returns the team re-read', async () => {
    const result = await g.gql(updateTeamMembers, {
      input: {
        teamId: created.id,
        add: [U.finn, encodeGlobalID('User', ids.cy)],
        remove: [ids.ben],
        memberships: [{ user: U.eve, role: 'OWNER' }],
      },
    });
    expect(result.data).toEqual({
      updateTeamMembers: { team: { title: 'Docs crew', memberCount: 3 }, userErrors: [] },
    });
    expect(result.upstreamRequests).toEqual([
      `PUT /v1/orgs/northwind/teams/${created.platformId}/members`,
      `GET /v1/orgs/northwind/teams/${created.platformId}`,
    ]);
    expect(await teamMembers(created.platformId)).toEqual([
      ['Cy Tanaka', 'MEMBER'],
      ['Eve Martin', 'OWNER'],
      ['Finn Larsen', 'MEMBER'],
    ]);
  });

  it('updateTeamMembers needs at least one change and distinct users, checked before any request', async () => {
    const empty = await g.gql(updateTeamMembers, { input: { teamId: created.id, add: [] } });
    const twice = await g.gql(updateTeamMembers, {
      input: {
        teamId: created.id,
        memberships: [
          { user: ids.cy, role: 'OWNER' },
          { user: ids.cy, role: 'MEMBER' },
        ],
      },
    });
    expect([empty.data, twice.data]).toEqual([
      {
        updateTeamMembers: {
          team: null,
          userErrors: [
            {
              message: 'give at least one of add, remove or memberships',
              code: 'BAD_USER_INPUT',
              field: [],
              upstreamStatus: null,
            },
          ],
        },
      },
      {
        updateTeamMembers: {
          team: null,
          userErrors: [
            {
              message: 'memberships.1.user: is listed twice',
              code: 'BAD_USER_INPUT',
              field: ['memberships', '1', 'user'],
              upstreamStatus: null,
            },
          ],
        },
      },
    ]);
    expect(empty.upstream + twice.upstream).toBe(0);
  });

  it('updateTeamMembers reports an unknown user from the platform (404), naming the entry', async () => {
    const result = await g.gql(updateTeamMembers, { input: { teamId: created.id, add: ['nobody@nowhere.test'] } });
    expect(result.data).toEqual({
      updateTeamMembers: {
        team: null,
        userErrors: [
          {
            message: 'User not found: input field "add.0" ("nobody@nowhere.test")',
            code: 'NOT_FOUND',
            field: ['add', '0'],
            upstreamStatus: 404,
          },
        ],
      },
    });
    expect(result.upstream).toBe(1);
  });

  const setTeamMember = `mutation ($input: SetTeamMemberInput!) {
    setTeamMember(input: $input) { team { memberCount } userErrors { code field upstreamStatus } }
  }`;

  it('setTeamMember adds a member (default role MEMBER) and changes a role', async () => {
    const added = await g.gql(setTeamMember, { input: { teamId: created.id, userId: ids.dee } });
    expect(added.data).toEqual({ setTeamMember: { team: { memberCount: 4 }, userErrors: [] } });
    const promoted = await g.gql(setTeamMember, {
      input: {
        organizationId: 'northwind',
        teamId: created.platformId,
        userId: encodeGlobalID('User', ids.dee),
        role: 'OWNER',
      },
    });
    expect(promoted.data).toEqual({ setTeamMember: { team: { memberCount: 4 }, userErrors: [] } });
    expect(promoted.upstreamRequests).toEqual([
      `PUT /v1/orgs/northwind/teams/${created.platformId}/members/${ids.dee}`,
      `GET /v1/orgs/northwind/teams/${created.platformId}`,
    ]);
    expect(await teamMembers(created.platformId)).toContainEqual(['Dee Alvarez', 'OWNER']);
  });

  it('setTeamMember fails for a user outside the organization and for an unknown user', async () => {
    const outsider = await g.gql(setTeamMember, { input: { teamId: created.id, userId: ids.hana } });
    const unknown = await g.gql(setTeamMember, { input: { teamId: created.id, userId: 'no-such-user' } });
    expect([outsider.data, unknown.data]).toEqual([
      { setTeamMember: { team: null, userErrors: [{ code: 'BAD_USER_INPUT', field: null, upstreamStatus: 400 }] } },
      { setTeamMember: { team: null, userErrors: [{ code: 'NOT_FOUND', field: ['userId'], upstreamStatus: 404 }] } },
    ]);
  });

  const removeTeamMember = `mutation ($input: RemoveTeamMemberInput!) {
    removeTeamMember(input: $input) { deleted userErrors { code field upstreamStatus } }
  }`;

  it('removeTeamMember removes once, then reports nothing to remove', async () => {
    const removed = await g.gql(removeTeamMember, { input: { teamId: created.id, userId: ids.finn } });
    expect(removed.data).toEqual({ removeTeamMember: { deleted: true, userErrors: [] } });
    const again = await g.gql(removeTeamMember, { input: { teamId: created.id, userId: U.finn } });
    expect(again.data).toEqual({ removeTeamMember: { deleted: false, userErrors: [] } });
    expect(again.upstreamRequests).toEqual([
      `DELETE /v1/orgs/northwind/teams/${created.platformId}/members/${encodeURIComponent(U.finn)}`,
    ]);
  });

  it('removeTeamMember fails for a missing team (NOT_FOUND) and for a non-owner (FORBIDDEN)', async () => {
    const missing = await g.gql(removeTeamMember, {
      input: { organizationId: 'northwind', teamId: 'team-nope', userId: ids.finn },
    });
    const forbidden = await g.gql(
      removeTeamMember,
      { input: { organizationId: 'northwind', teamId: T.reviewers, userId: ids.finn } },
      { token: token('finn') },
    );
    expect([missing.data, forbidden.data]).toEqual([
      {
        removeTeamMember: {
          deleted: false,
          userErrors: [{ code: 'NOT_FOUND', field: ['teamId'], upstreamStatus: 404 }],
        },
      },
      { removeTeamMember: { deleted: false, userErrors: [{ code: 'FORBIDDEN', field: null, upstreamStatus: 403 }] } },
    ]);
  });

  const deleteTeam = `mutation ($input: DeleteTeamInput!) {
    deleteTeam(input: $input) { deleted userErrors { code field upstreamStatus } }
  }`;

  it('deleteTeam is FORBIDDEN for a member who does not own the team', async () => {
    const result = await g.gql(deleteTeam, { input: { teamId: teamGlobalId(T.reviewers) } }, { token: token('finn') });
    expect(result.data).toEqual({
      deleteTeam: { deleted: false, userErrors: [{ code: 'FORBIDDEN', field: null, upstreamStatus: 403 }] },
    });
  });

  it('deleteTeam deletes once, then reports nothing to delete; the team is gone', async () => {
    const deleted = await g.gql(deleteTeam, { input: { teamId: created.id } });
    expect(deleted.data).toEqual({ deleteTeam: { deleted: true, userErrors: [] } });
    const again = await g.gql(deleteTeam, { input: { organizationId: 'northwind', teamId: created.platformId } });
    expect(again.data).toEqual({ deleteTeam: { deleted: false, userErrors: [] } });
    const gone = await g.gql(`query ($id: ID!) { node(id: $id) { id } }`, { id: created.id });
    expect(gone.data).toEqual({ node: null });
    expect(gone.errors).toMatchObject([{ extensions: { code: 'NOT_FOUND' } }]);
  });
});
