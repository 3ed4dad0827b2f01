import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Grants on docs sites end to end, through a gateway whose response cache is on: the eight REST
 * operations through the graph (`Site.accessibleBy`, `users`, `teams`, `effectiveAccess`,
 * the five mutations), a grant raising what its holder may do on the site at once and its removal
 * lowering it, for a user and through a team, and the refusals as `userErrors`.
 */

const ORG = 'siteperm';
let platform: TestPlatform;
let gateway: Gateway;
/** ada admin, eve `edit`, finn and gus `read` (gus in the team Writers), gia a guest, hal `read` in no team. */
let org: TestOrg;
let siteId: string;
let writers: string;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  org = addOrg(platform, {
    id: ORG,
    members: { ada: 'admin', eve: 'edit', finn: 'read', gus: 'read', gia: null, hal: 'read' },
    memberships: {
      ada: { joinedAt: '2024-01-01T00:00:00.000Z' },
      eve: { joinedAt: '2024-02-01T00:00:00.000Z' },
      finn: { joinedAt: '2024-03-01T00:00:00.000Z' },
      gus: { joinedAt: '2024-04-01T00:00:00.000Z' },
      gia: { joinedAt: '2024-05-01T00:00:00.000Z' },
      hal: { joinedAt: '2024-06-01T00:00:00.000Z' },
    },
  });
  writers = await org.team('Writers', ['gus']);
  siteId = await org.site('Handbook', { spaces: [await org.space('Handbook space')] });
  gateway = createGateway({
    upstreamUrl: platform.url,
    graphiql: { enabled: false },
    responseCache: { ttlMs: 60_000 },
  });
});

afterAll(async () => {
  await gateway.close();
  await platform.destroy();
});

/** Runs an operation through the cached gateway as `as` (default ada). */
const run = (query: string, variables: Record<string, unknown> = {}, as = 'ada') =>
  postGraphQL(gateway, platform, { query, variables }, { authorization: `Bearer ${org.token(as)}` });

const SITE_ADMIN = `query SiteAdmin($org: ID!, $site: ID!) { site(organizationId: $org, id: $site) { title permissions { admin } } }`;
const RENAME = `mutation Rename($org: ID!, $site: ID!, $title: String!) {
  updateSite(input: { organizationId: $org, siteId: $site, title: $title }) {
    site { title } userErrors { code message field }
  }
}`;
const INVITE = `mutation Invite($input: InviteToSiteInput!) {
  inviteToSite(input: $input) { site { platformId } userErrors { code message field } }
}`;
const REMOVE_USER = `mutation RemoveUser($org: ID!, $site: ID!, $user: ID!) {
  removeSiteUser(input: { organizationId: $org, siteId: $site, userId: $user }) {
    deleted site { platformId } userErrors { code message field }
  }
}`;

const at = () => ({ org: ORG, site: siteId });
const refused = (min: string) => ({
  site: null,
  userErrors: [{ code: 'FORBIDDEN', message: `This needs the ${min} role on the site`, field: null }],
});

describe('a grant on a site', () => {
  it('lets a read member change its settings at once, and its removal stops them, the response cache on', async () => {
    const before = await run(SITE_ADMIN, at(), 'finn');
    expect(before.body.data.site).toEqual({ title: 'Handbook', permissions: { admin: false } });
    expect((await run(SITE_ADMIN, at(), 'finn')).body.extensions.responseCache).toEqual({ hit: true });
    expect((await run(RENAME, { ...at(), title: 'Finn was here' }, 'finn')).body.data.updateSite).toEqual(
      refused('admin'),
    );

    const granted = await run(INVITE, {
      input: { organizationId: ORG, siteId, role: 'ADMIN', userIds: [org.user('finn').id] },
    });
    expect(granted.body.data.inviteToSite).toEqual({ site: { platformId: siteId }, userErrors: [] });
    expect(granted.upstream).toBe(1);

    // The cached answer of finn's read is gone with the grant: he reads his new rights.
    const after = await run(SITE_ADMIN, at(), 'finn');
    expect(after.body.extensions.responseCache).toMatchObject({ hit: false });
    expect(after.body.data.site.permissions).toEqual({ admin: true });
    const renamed = await run(RENAME, { ...at(), title: 'Handbook by Finn' }, 'finn');
    expect(renamed.body.data.updateSite).toEqual({ site: { title: 'Handbook by Finn' }, userErrors: [] });

    const removed = await run(REMOVE_USER, { ...at(), user: org.user('finn').id });
    expect(removed.body.data.removeSiteUser).toEqual({ deleted: true, site: { platformId: siteId }, userErrors: [] });
    expect(removed.upstream).toBe(1);
    expect((await run(SITE_ADMIN, at(), 'finn')).body.data.site.permissions).toEqual({ admin: false });
    expect((await run(RENAME, { ...at(), title: 'Finn again' }, 'finn')).body.data.updateSite).toEqual(
      refused('admin'),
    );
    const again = await run(REMOVE_USER, { ...at(), user: org.user('finn').id });
    expect(again.body.data.removeSiteUser.deleted).toBe(false);
    await run(RENAME, { ...at(), title: 'Handbook' });
  });

  it('reaches the members of a team, until the team’s grant is removed', async () => {
    const SET_TEAM = `mutation SetTeam($org: ID!, $site: ID!, $team: ID!, $role: Role) {
      updateSiteTeamPermission(input: { organizationId: $org, siteId: $site, teamId: $team, role: $role }) {
        team { platformId title } site { platformId } userErrors { code message field }
      }
    }`;
    const REMOVE_TEAM = `mutation RemoveTeam($org: ID!, $site: ID!, $team: ID!) {
      removeSiteTeam(input: { organizationId: $org, siteId: $site, teamId: $team }) { deleted userErrors { code } }
    }`;
    expect((await run(RENAME, { ...at(), title: 'Gus was here' }, 'gus')).body.data.updateSite).toEqual(
      refused('admin'),
    );
    const set = await run(SET_TEAM, { ...at(), team: writers, role: 'ADMIN' });
    expect(set.body.data.updateSiteTeamPermission).toEqual({
      team: { platformId: writers, title: 'Writers' },
      site: { platformId: siteId },
      userErrors: [],
    });
    // The write, then the team (its title was asked for).
    expect(set.upstream).toBe(2);
    const renamed = await run(RENAME, { ...at(), title: 'Handbook by Gus' }, 'gus');
    expect(renamed.body.data.updateSite.userErrors).toEqual([]);
    expect((await run(REMOVE_TEAM, { ...at(), team: writers })).body.data.removeSiteTeam).toEqual({
      deleted: true,
      userErrors: [],
    });
    expect((await run(RENAME, { ...at(), title: 'Gus again' }, 'gus')).body.data.updateSite).toEqual(refused('admin'));
    await run(RENAME, { ...at(), title: 'Handbook' });
  });

  it('sets and clears one user’s grant', async () => {
    const SET_USER = `mutation SetUser($org: ID!, $site: ID!, $user: ID!, $role: Role) {
      updateSiteUserPermission(input: { organizationId: $org, siteId: $site, userId: $user, role: $role }) {
        user { platformId } site { platformId } userErrors { code message field }
      }
    }`;
    const GRANTS = `query Grants($org: ID!, $site: ID!) {
      site(organizationId: $org, id: $site) { users { nodes { role user { platformId } } } }
    }`;
    const hal = org.user('hal').id;
    const set = await run(SET_USER, { ...at(), user: hal, role: 'COMMENT' });
    expect(set.body.data.updateSiteUserPermission).toEqual({
      user: { platformId: hal },
      site: { platformId: siteId },
      userErrors: [],
    });
    expect(set.upstream).toBe(1);
    expect((await run(GRANTS, at())).body.data.site.users.nodes).toEqual([
      { role: 'COMMENT', user: { platformId: hal } },
    ]);
    const cleared = await run(SET_USER, { ...at(), user: hal, role: null });
    expect(cleared.body.data.updateSiteUserPermission.userErrors).toEqual([]);
    expect(cleared.upstream).toBe(1);
    expect((await run(GRANTS, at())).body.data.site.users.nodes).toEqual([]);
  });

  it('opens the site to a guest granted a role on it, and only to them', async () => {
    const READ = `query Read($org: ID!, $site: ID!) { site(organizationId: $org, id: $site) { title } }`;
    const denied = await run(READ, at(), 'gia');
    expect(denied.body.data.site).toBeNull();
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    await run(INVITE, { input: { organizationId: ORG, siteId, role: 'READ', userIds: [org.user('gia').id] } });
    expect((await run(READ, at(), 'gia')).body.data.site).toEqual({ title: 'Handbook' });
    await run(INVITE, { input: { organizationId: ORG, siteId, role: null, userIds: [org.user('gia').id] } });
    expect((await run(READ, at(), 'gia')).body.data.site).toBeNull();
  });
});

describe('who has access to a site', () => {
  beforeAll(async () => {
    await run(INVITE, {
      input: { organizationId: ORG, siteId, role: 'CREATE', userIds: [org.user('finn').id], teamIds: [writers] },
    });
    await run(INVITE, { input: { organizationId: ORG, siteId, role: 'READ', userIds: [org.user('gia').id] } });
  });

  it('lists everyone with their role and its source, linked to users and teams', async () => {
    const { body, upstream } = await run(
      `query Access($org: ID!, $site: ID!) {
        site(organizationId: $org, id: $site) {
          accessibleBy(first: 10, sort: JOINED_AT, order: ASC) {
            totalCount
            nodes { role sources { type team { platformId title } } user { displayName } lastSeenAt }
          }
        }
      }`,
      at(),
    );
    expect(body.errors).toBeUndefined();
    const user = (key: string) => org.user(key).displayName;
    /** A member whose role comes from one source (then the weaker ones, by type), never seen. */
    const entry = (role: string, type: string, key: string, weaker: Array<[string, string]> = []) => ({
      role,
      sources: [{ type, team: null }, ...weaker.map(([, t]) => ({ type: t, team: null }))],
      user: { displayName: user(key) },
      lastSeenAt: null,
    });
    expect(body.data.site.accessibleBy).toEqual({
      totalCount: 6,
      nodes: [
        entry('ADMIN', 'ORGANIZATION', 'ada'),
        entry('EDIT', 'ORGANIZATION', 'eve'),
        entry('CREATE', 'DIRECT', 'finn', [['READ', 'ORGANIZATION']]),
        {
          role: 'CREATE',
          sources: [
            { type: 'TEAM', team: { platformId: writers, title: 'Writers' } },
            { type: 'ORGANIZATION', team: null },
          ],
          user: { displayName: user('gus') },
          lastSeenAt: null,
        },
        entry('READ', 'DIRECT', 'gia'),
        entry('READ', 'ORGANIZATION', 'hal'),
      ],
    });
    // The site, the list, then the team.
    expect(upstream).toBe(3);
  });

  it('filters by role and team', async () => {
    const { body } = await run(
      `query Filtered($org: ID!, $site: ID!, $team: ID!) {
        site(organizationId: $org, id: $site) {
          creators: accessibleBy(role: CREATE) { totalCount }
          writers: accessibleBy(teamId: $team) { nodes { user { displayName } } }
        }
      }`,
      { ...at(), team: writers },
    );
    expect(body.data.site).toEqual({
      creators: { totalCount: 2 },
      writers: { nodes: [{ user: { displayName: org.user('gus').displayName } }] },
    });
  });

  it('lists the grants to users and teams, and answers one member’s access', async () => {
    const { body, upstream } = await run(
      `query Grants($org: ID!, $site: ID!, $gus: ID!) {
        site(organizationId: $org, id: $site) {
          users { totalCount nodes { role user { displayName } } }
          teams { totalCount nodes { role team { title memberCount } } }
          mine: effectiveAccess { role sources { type } }
          gus: effectiveAccess(userId: $gus) { role sources { type team { platformId } } }
        }
      }`,
      { ...at(), gus: org.user('gus').id },
    );
    expect(body.errors).toBeUndefined();
    expect(body.data.site).toEqual({
      users: {
        totalCount: 2,
        nodes: [
          { role: 'CREATE', user: { displayName: org.user('finn').displayName } },
          { role: 'READ', user: { displayName: org.user('gia').displayName } },
        ].sort((a, b) => a.user.displayName.localeCompare(b.user.displayName)),
      },
      teams: { totalCount: 1, nodes: [{ role: 'CREATE', team: { title: 'Writers', memberCount: 1 } }] },
      mine: { role: 'ADMIN', sources: [{ type: 'ORGANIZATION' }] },
      gus: {
        role: 'CREATE',
        sources: [
          { type: 'TEAM', team: { platformId: writers } },
          { type: 'ORGANIZATION', team: null },
        ],
      },
    });
    // The site, the two lists, who you are, and the list of access read once for both answers.
    expect(upstream).toBe(5);
  });

  it('is not shown to guests, even granted', async () => {
    const { body } = await run(
      `query Guest($org: ID!, $site: ID!) { site(organizationId: $org, id: $site) { title users { totalCount } } }`,
      at(),
      'gia',
    );
    expect(body.data.site).toEqual({ title: 'Handbook', users: null });
    expect(body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual(['FORBIDDEN']);
  });
});

describe('refusals', () => {
  it('answers userErrors naming the field', async () => {
    const outsider = await run(INVITE, {
      input: { organizationId: ORG, siteId, role: 'READ', userIds: [org.user('ada').id, 'nobody'] },
    });
    expect(outsider.body.data.inviteToSite.userErrors).toEqual([
      { code: 'NOT_FOUND', message: expect.stringContaining('nobody'), field: ['userIds', '1'] },
    ]);
    const none = await run(INVITE, { input: { organizationId: ORG, siteId, role: 'READ' } });
    expect(none.body.data.inviteToSite.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', message: 'userIds: give at least one user or team', field: ['userIds'] },
    ]);
    expect(none.upstream).toBe(0);
    const reader = await run(
      INVITE,
      { input: { organizationId: ORG, siteId, role: 'ADMIN', userIds: [org.user('hal').id] } },
      'hal',
    );
    expect(reader.body.data.inviteToSite).toEqual({
      site: null,
      userErrors: [{ code: 'FORBIDDEN', message: 'This needs the admin role on the site', field: null }],
    });
    const missingTeam = await run(
      `mutation { updateSiteTeamPermission(input: { organizationId: "${ORG}", siteId: "${siteId}", teamId: "no-team", role: READ }) { userErrors { code message field } } }`,
    );
    expect(missingTeam.body.data.updateSiteTeamPermission.userErrors).toEqual([
      { code: 'NOT_FOUND', message: 'Team not found: input field "teamId"', field: ['teamId'] },
    ]);
  });
});
