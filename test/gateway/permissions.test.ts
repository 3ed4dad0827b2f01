import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { postGraphQL } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Permissions of spaces and collections through the graph, with the response cache on: the
 * `users`, `teams` and `accessibleBy` connections (with the sources of each role, linked to teams
 * and collections), the mutations of both kinds, and a grant or removal changing at once what the
 * user reads through the gateway.
 */

let platform: TestPlatform;
let gateway: Gateway;
/** Oak: ada admin (the default caller), ben `create`, cy `edit`, dee `read`; hana in no organization. */
let oak: TestOrg;
const users = {} as Record<'ada' | 'ben' | 'cy' | 'dee' | 'hana', TestUser>;
/** Oak's collection Docs, its space Guide, the space Top at the root, the team Writers (cy, dee). */
let docs: string;
let guide: string;
let top: string;
let writers: string;

beforeAll(async () => {
  platform = await startTestPlatform({ seed: false });
  for (const key of ['ada', 'ben', 'cy', 'dee', 'hana'] as const) users[key] = addUser(platform, key);
  oak = addOrg(platform, { id: 'oak', members: { ada: 'admin', ben: 'create', cy: 'edit', dee: 'read' }, users });
  docs = await oak.collection('Docs');
  guide = await oak.space('Guide', { parent: docs });
  top = await oak.space('Top');
  writers = await oak.team('Writers', ['cy', 'dee']);
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

/** Runs an operation through the cached gateway (as ada, or as `as`): its body and the platform's request count. */
async function run(query: string, variables: Record<string, unknown> = {}, as?: keyof typeof users) {
  const answer = await postGraphQL(
    gateway,
    platform,
    { query, variables },
    as ? { authorization: `Bearer ${users[as].token}` } : {},
  );
  // The cost model counts what the platform received, within its static bound.
  const cost = answer.body.extensions.cost;
  expect(cost.upstreamRequests).toBe(answer.upstream);
  if (!cost.estimated) expect(cost.upstreamRequests).toBeLessThanOrEqual(cost.maxUpstreamRequests);
  return answer;
}

const teamGid = () => encodeGlobalID('Team', `oak/${writers}`);

describe('a grant and its removal through the cached gateway', () => {
  it('lets the user read the space at once, and refuses them at once after the removal', async () => {
    const READ = `query HanaReads($id: ID!) { space(id: $id) { title } }`;
    const before = await run(READ, { id: top }, 'hana');
    expect(before.body.data).toEqual({ space: null });
    expect(before.body.errors[0].extensions.code).toBe('NOT_FOUND');

    const granted = await run(
      `mutation Grant($input: InviteToSpaceInput!) { inviteToSpace(input: $input) { space { platformId } userErrors { code } } }`,
      { input: { spaceId: top, role: 'READ', userIds: [users.hana.id] } },
    );
    expect(granted).toMatchObject({
      body: { data: { inviteToSpace: { space: { platformId: top }, userErrors: [] } } },
      upstream: 2,
    });
    const after = await run(READ, { id: top }, 'hana');
    expect([after.body, after.upstream]).toEqual([
      { data: { space: { title: 'Top' } }, extensions: expect.anything() },
      1,
    ]);
    // The cache is on: the same read again is a hit.
    expect((await run(READ, { id: top }, 'hana')).upstream).toBe(0);

    const removed = await run(
      `mutation Remove($input: RemoveSpaceUserInput!) { removeSpaceUser(input: $input) { deleted deletedId userErrors { code } } }`,
      { input: { spaceId: top, userId: users.hana.id } },
    );
    expect(removed.body.data).toEqual({ removeSpaceUser: { deleted: true, deletedId: null, userErrors: [] } });
    const refused = await run(READ, { id: top }, 'hana');
    expect([refused.body.data, refused.body.errors[0].extensions.code, refused.upstream]).toEqual([
      { space: null },
      'NOT_FOUND',
      1,
    ]);
  });

  it('does the same for a team grant on a collection, for the team members', async () => {
    const READ = `query DeeEdits($id: ID!) { space(id: $id) { permissions { edit } } }`;
    expect((await run(READ, { id: guide }, 'dee')).body.data).toEqual({ space: { permissions: { edit: false } } });
    const granted = await run(
      `mutation GrantTeam($input: UpdateCollectionTeamPermissionInput!) {
        updateCollectionTeamPermission(input: $input) { collection { title } team { title } userErrors { code } }
      }`,
      { input: { collectionId: docs, teamId: teamGid(), role: 'EDIT' } },
    );
    expect([granted.body.data, granted.upstream]).toEqual([
      { updateCollectionTeamPermission: { collection: { title: 'Docs' }, team: { title: 'Writers' }, userErrors: [] } },
      3,
    ]);
    expect((await run(READ, { id: guide }, 'dee')).body.data).toEqual({ space: { permissions: { edit: true } } });
    const removed = await run(
      `mutation RemoveTeam($input: RemoveCollectionTeamInput!) { removeCollectionTeam(input: $input) { deleted userErrors { code } } }`,
      { input: { collectionId: docs, teamId: writers } },
    );
    expect(removed.body.data).toEqual({ removeCollectionTeam: { deleted: true, userErrors: [] } });
    expect((await run(READ, { id: guide }, 'dee')).body.data).toEqual({ space: { permissions: { edit: false } } });
  });
});

describe('a team grant on a space', () => {
  it('gives the team members its role at once, and takes it back with the removal', async () => {
    const READ = `query DeeEditsTop($id: ID!) { space(id: $id) { permissions { edit } } }`;
    expect((await run(READ, { id: top }, 'dee')).body.data).toEqual({ space: { permissions: { edit: false } } });
    const granted = await run(
      `mutation GrantTeamOnSpace($input: UpdateSpaceTeamPermissionInput!) {
        updateSpaceTeamPermission(input: $input) { space { title } team { title } userErrors { code } }
      }`,
      { input: { spaceId: top, teamId: writers, role: 'EDIT' } },
    );
    // The write, the space, and the team in the space's organization.
    expect([granted.body.data, granted.upstream]).toEqual([
      { updateSpaceTeamPermission: { space: { title: 'Top' }, team: { title: 'Writers' }, userErrors: [] } },
      3,
    ]);
    expect((await run(READ, { id: top }, 'dee')).body.data).toEqual({ space: { permissions: { edit: true } } });
    const removed = await run(
      `mutation RemoveTeamFromSpace($input: RemoveSpaceTeamInput!) { removeSpaceTeam(input: $input) { deleted userErrors { code } } }`,
      { input: { spaceId: top, teamId: writers } },
    );
    expect(removed.body.data).toEqual({ removeSpaceTeam: { deleted: true, userErrors: [] } });
    expect((await run(READ, { id: top }, 'dee')).body.data).toEqual({ space: { permissions: { edit: false } } });
  });
});

describe('the lists', () => {
  it('answers users, teams and accessibleBy with the sources of each role, linked to teams and collections', async () => {
    await run(
      `mutation Setup($space: InviteToSpaceInput!, $collection: InviteToCollectionInput!) {
        a: inviteToSpace(input: $space) { userErrors { code } }
        b: inviteToCollection(input: $collection) { userErrors { code } }
      }`,
      {
        space: { spaceId: guide, role: 'COMMENT', userIds: [users.dee.id], teamIds: [teamGid()] },
        collection: { collectionId: docs, role: 'REVIEW', userIds: [users.ben.id] },
      },
    );
    const answer = await run(
      `query GuideAccess($id: ID!) {
        space(id: $id) {
          users { totalCount nodes { role user { displayName } } }
          teams { totalCount nodes { role team { title membersCount: members { totalCount } } } }
          accessibleBy {
            totalCount
            nodes { role user { displayName } sources { type role team { title } collection { title } } }
          }
        }
      }`,
      { id: guide },
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.space.users).toEqual({
      totalCount: 1,
      nodes: [{ role: 'COMMENT', user: { displayName: 'Dee' } }],
    });
    expect(answer.body.data.space.teams).toEqual({
      totalCount: 1,
      nodes: [{ role: 'COMMENT', team: { title: 'Writers', membersCount: { totalCount: 2 } } }],
    });
    expect(answer.body.data.space.accessibleBy).toEqual({
      totalCount: 4,
      nodes: [
        {
          role: 'ADMIN',
          user: { displayName: 'Ada' },
          sources: [{ type: 'ORGANIZATION', role: 'ADMIN', team: null, collection: null }],
        },
        {
          role: 'CREATE',
          user: { displayName: 'Ben' },
          sources: [
            { type: 'ORGANIZATION', role: 'CREATE', team: null, collection: null },
            { type: 'COLLECTION', role: 'REVIEW', team: null, collection: { title: 'Docs' } },
          ],
        },
        {
          role: 'EDIT',
          user: { displayName: 'Cy' },
          sources: [
            { type: 'ORGANIZATION', role: 'EDIT', team: null, collection: null },
            { type: 'TEAM', role: 'COMMENT', team: { title: 'Writers' }, collection: null },
          ],
        },
        {
          role: 'COMMENT',
          user: { displayName: 'Dee' },
          sources: [
            { type: 'DIRECT', role: 'COMMENT', team: null, collection: null },
            { type: 'TEAM', role: 'COMMENT', team: { title: 'Writers' }, collection: null },
            { type: 'ORGANIZATION', role: 'READ', team: null, collection: null },
          ],
        },
      ],
    });
    // space, users, teams, members of the team, aggregate, and the collection of the sources.
    expect(answer.upstream).toBe(6);
  });

  it('refuses one member’s access past 5,000 members with access, after 5 pages of the aggregate', async () => {
    // An organization of 5,001 readers, written straight into the platform's store.
    const pine = addOrg(platform, { id: 'pine', members: { ada: 'admin' }, users });
    const at = new Date().toISOString();
    const insertUser = platform.db.prepare(
      'INSERT INTO users (id, display_name, email, created_at) VALUES (?, ?, ?, ?)',
    );
    const insertMember = platform.db.prepare(
      "INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('pine', ?, 'read', ?)",
    );
    platform.db.transaction(() => {
      for (let n = 0; n < 5000; n += 1) {
        insertUser.run(`reader-${n}`, `Reader ${n}`, `reader-${n}@pine.test`, at);
        insertMember.run(`reader-${n}`, at);
      }
    })();
    const crowded = await pine.space('Crowded');
    const answer = await run(`query Crowded($space: ID!) { space(id: $space) { effectiveAccess { role } } }`, {
      space: crowded,
    });
    expect(answer.body.data).toEqual({ space: { effectiveAccess: null } });
    expect(answer.body.errors).toEqual([
      expect.objectContaining({
        path: ['space', 'effectiveAccess'],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', limit: 'effectiveAccessMembers', max: 5000 }),
      }),
    ]);
    // The space, who you are, and 5 pages of the aggregate.
    expect(answer.upstream).toBe(7);
  });

  it('answers one member’s access on a space and a collection, the aggregate read once per item', async () => {
    const query = `query Effective($space: ID!, $collection: ID!, $dee: ID!, $hana: ID!) {
      space(id: $space) {
        mine: effectiveAccess { role sources { type } }
        dee: effectiveAccess(userId: $dee) { role user { displayName } sources { type role team { title } } }
        hana: effectiveAccess(userId: $hana) { role }
      }
      collection(id: $collection) {
        ben: effectiveAccess(userId: $ben) { role sources { type role } }
      }
    }`.replace('$hana: ID!)', '$hana: ID!, $ben: ID!)');
    const answer = await run(query, {
      space: guide,
      collection: docs,
      dee: users.dee.id,
      hana: encodeGlobalID('User', users.hana.id),
      ben: users.ben.id,
    });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data).toEqual({
      space: {
        mine: { role: 'ADMIN', sources: [{ type: 'ORGANIZATION' }] },
        dee: {
          role: 'COMMENT',
          user: { displayName: 'Dee' },
          sources: [
            { type: 'DIRECT', role: 'COMMENT', team: null },
            { type: 'TEAM', role: 'COMMENT', team: { title: 'Writers' } },
            { type: 'ORGANIZATION', role: 'READ', team: null },
          ],
        },
        hana: null,
      },
      collection: {
        // His grant on Docs is direct there, below his organization role.
        ben: {
          role: 'CREATE',
          sources: [
            { type: 'ORGANIZATION', role: 'CREATE' },
            { type: 'DIRECT', role: 'REVIEW' },
          ],
        },
      },
    });
    // The space, the collection, who you are, the space's aggregate once for three answers, the
    // collection's, and the team of Dee's source.
    expect(answer.upstream).toBe(6);
  });

  it('lists the teams of a collection', async () => {
    await run(
      `mutation GrantTeam($input: UpdateCollectionTeamPermissionInput!) { updateCollectionTeamPermission(input: $input) { userErrors { code } } }`,
      { input: { collectionId: docs, teamId: writers, role: 'READ' } },
    );
    const answer = await run(
      `query DocsTeams($id: ID!) { collection(id: $id) { teams(first: 5) { totalCount nodes { role team { platformId } } } } }`,
      { id: docs },
    );
    expect([answer.body.data, answer.upstream]).toEqual([
      { collection: { teams: { totalCount: 1, nodes: [{ role: 'READ', team: { platformId: writers } }] } } },
      2,
    ]);
  });
});

describe('a user grant', () => {
  it('is set, changed and removed (null role) with updateSpaceUserPermission', async () => {
    const UPDATE = `mutation SetUser($input: UpdateSpaceUserPermissionInput!) {
      updateSpaceUserPermission(input: $input) { space { title } user { displayName } userErrors { code } }
    }`;
    const set = await run(UPDATE, { input: { spaceId: top, userId: users.ben.id, role: 'REVIEW' } });
    expect([set.body.data, set.upstream]).toEqual([
      { updateSpaceUserPermission: { space: { title: 'Top' }, user: { displayName: 'Ben' }, userErrors: [] } },
      3,
    ]);
    const USERS = `query TopUsers($id: ID!) { space(id: $id) { users { nodes { role user { platformId } } } } }`;
    expect((await run(USERS, { id: top })).body.data.space.users.nodes).toEqual([
      { role: 'REVIEW', user: { platformId: users.ben.id } },
    ]);
    await run(UPDATE, { input: { spaceId: top, userId: users.ben.id, role: null } });
    expect((await run(USERS, { id: top })).body.data.space.users.nodes).toEqual([]);
  });
});

describe('refusals', () => {
  it('answers userErrors: FORBIDDEN to a non-admin, NOT_FOUND for a team of nothing, BAD_USER_INPUT before any call', async () => {
    const forbidden = await run(
      `mutation NotAdmin($input: UpdateSpaceTeamPermissionInput!) { updateSpaceTeamPermission(input: $input) { space { platformId } userErrors { code field } } }`,
      { input: { spaceId: top, teamId: writers, role: 'READ' } },
      'ben',
    );
    expect(forbidden.body.data).toEqual({
      updateSpaceTeamPermission: { space: null, userErrors: [{ code: 'FORBIDDEN', field: null }] },
    });
    const unknown = await run(
      `mutation NoTeam($input: RemoveSpaceTeamInput!) { removeSpaceTeam(input: $input) { deleted userErrors { code } } }`,
      { input: { spaceId: top, teamId: 'nobody' } },
    );
    expect(unknown.body.data).toEqual({ removeSpaceTeam: { deleted: false, userErrors: [] } });
    const missing = await run(
      `mutation MissingTeam($input: UpdateSpaceTeamPermissionInput!) { updateSpaceTeamPermission(input: $input) { userErrors { code field } } }`,
      { input: { spaceId: top, teamId: 'nobody', role: 'READ' } },
    );
    expect(missing.body.data).toEqual({
      updateSpaceTeamPermission: { userErrors: [{ code: 'NOT_FOUND', field: ['teamId'] }] },
    });
    const bad = await run(
      `mutation BadInvite($input: InviteToSpaceInput!) { inviteToSpace(input: $input) { userErrors { code field } } }`,
      { input: { spaceId: top, role: 'READ' } },
    );
    expect([bad.body.data, bad.upstream]).toEqual([
      { inviteToSpace: { userErrors: [{ code: 'BAD_USER_INPUT', field: ['userIds'] }] } },
      0,
    ]);
  });
});
