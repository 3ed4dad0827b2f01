import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const acme = 'northwind';
const globex = 'southwind';
/**
 * Northwind: ada admin, ben `create`, cy `review`, dee `edit`, eve `comment`, finn `read`, gus a guest.
 * Southwind: ada admin, hana `edit` (an outsider to Northwind).
 */
const keys = ['ada', 'ben', 'cy', 'dee', 'eve', 'finn', 'gus', 'hana'] as const;
type Key = (typeof keys)[number];
const users = {} as Record<Key, TestUser>;
/** The users' e-mails. */
const U = {} as Record<Key, string>;
/**
 * Northwind's teams: Writers (owner ben; dee, eve; `edit` on a collection), Reviewers (owner cy; finn; `review` on
 * a collection), Platform (owner dee; `edit` on a space).
 */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;

let p: TestPlatform;
const ids = {} as Record<Key, string>;
const token = (key: Key) => users[key].token;
const teamsPath = `/orgs/${acme}/teams`;
const teamPath = (teamId: string) => `/orgs/${acme}/teams/${teamId}`;
const membersPath = (teamId: string) => `/orgs/${acme}/teams/${teamId}/members`;

/** Follows `next.page` with the given limit until the last page; returns every page. */
async function walk(path: string, query: Record<string, string | number>, as = p.adminToken) {
  const pages: any[] = [];
  let page: string | undefined;
  for (let i = 0; i < 100; i += 1) {
    const answer = await p.api('GET', path, { token: as, query: { ...query, ...(page ? { page } : {}) } });
    expect(answer.status).toBe(200);
    pages.push(answer.body);
    page = answer.body.next?.page;
    if (!page) return pages;
  }
  throw new Error('pagination did not end');
}

/** `{ userId: teamRole }` of a team, straight from the database. */
function teamRoles(teamId: string): Record<string, string> {
  const rows = p.db.prepare('SELECT user_id, role FROM team_members WHERE team_id = ?').all(teamId) as Array<{
    user_id: string;
    role: string;
  }>;
  return Object.fromEntries(rows.map((row) => [row.user_id, row.role]));
}

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const key of keys) {
    users[key] = addUser(p, key);
    U[key] = users[key].email;
    ids[key] = users[key].id;
  }
  const org = addOrg(p, {
    id: acme,
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  addOrg(p, { id: globex, members: { ada: 'admin', hana: 'edit' }, users });
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: await org.collection('Engineering') }, 'edit', { teams: [T.writers] });
  await org.grant({ collection: await org.collection('Internal') }, 'review', { teams: [T.reviewers] });
  await org.grant({ space: await org.space('Architecture decisions') }, 'edit', { teams: [T.platform] });
});

afterAll(async () => {
  await p?.destroy();
});

describe('GET /orgs/{organizationId}/teams', () => {
  it('lists the teams by title', async () => {
    const { status, body } = await p.api('GET', teamsPath);
    expect(status).toBe(200);
    expect(body.count).toBe(3);
    expect(body.next).toBeUndefined();
    expect(body.items).toMatchObject([
      {
        object: 'team',
        id: T.platform,
        title: 'Platform',
        members: 1,
        spaces: 1,
        permissions: { admin: true, view: true },
      },
      {
        object: 'team',
        id: T.reviewers,
        title: 'Reviewers',
        members: 2,
        spaces: 0,
        permissions: { admin: true, view: true },
      },
      {
        object: 'team',
        id: T.writers,
        title: 'Writers',
        members: 3,
        spaces: 0,
        permissions: { admin: true, view: true },
      },
    ]);
    expect(typeof body.items[0].createdAt).toBe('string');
  });

  it('sets permissions.admin for owners only, besides org admins', async () => {
    const ben = await p.api('GET', teamsPath, { token: token('ben') });
    expect(ben.body.items.map((t: any) => [t.id, t.permissions.admin])).toEqual([
      [T.platform, false],
      [T.reviewers, false],
      [T.writers, true],
    ]);
    const finn = await p.api('GET', teamsPath, { token: token('finn') });
    expect(finn.body.items.every((t: any) => t.permissions.admin === false)).toBe(true);
  });

  it('filters by title, case-insensitively', async () => {
    const { body } = await p.api('GET', teamsPath, { query: { title: 'VIEW' } });
    expect(body).toMatchObject({ count: 1, items: [{ id: T.reviewers }] });
    const many = await p.api('GET', teamsPath, { query: { title: 'r' } });
    expect(many.body.items.map((t: any) => t.id)).toEqual([T.platform, T.reviewers, T.writers]);
    expect((await p.api('GET', teamsPath, { query: { title: 'nothing' } })).body).toEqual({ count: 0, items: [] });
  });

  it('filters by owner: the teams that member can manage', async () => {
    const ben = await p.api('GET', teamsPath, { query: { owner: ids.ben } });
    expect(ben.body).toMatchObject({ count: 1, items: [{ id: T.writers }] });
    const dee = await p.api('GET', teamsPath, { query: { owner: ids.dee } });
    expect(dee.body.items.map((t: any) => t.id)).toEqual([T.platform]);
    const ada = await p.api('GET', teamsPath, { query: { owner: ids.ada } });
    expect(ada.body.count).toBe(3);
    expect((await p.api('GET', teamsPath, { query: { owner: ids.finn } })).body).toEqual({ count: 0, items: [] });
    expect((await p.api('GET', teamsPath, { query: { owner: ids.hana } })).body).toEqual({ count: 0, items: [] });
    const both = await p.api('GET', teamsPath, { query: { owner: ids.ada, title: 'writ' } });
    expect(both.body.items.map((t: any) => t.id)).toEqual([T.writers]);
  });

  it('walks pages of 2 until exhausted', async () => {
    const pages = await walk(teamsPath, { limit: 2 });
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
    for (const page of pages) expect(page.count).toBe(3);
    expect(pages.flatMap((page) => page.items.map((t: any) => t.id))).toEqual([T.platform, T.reviewers, T.writers]);
  });

  it('rejects bad query parameters with 400', async () => {
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 1001 },
      { limit: 'abc' },
      { page: 'bogus' },
    ]) {
      const { status, body } = await p.api('GET', teamsPath, { query });
      expect(status, JSON.stringify(query)).toBe(400);
      expect(body.error.message).toContain(`"${Object.keys(query)[0]}"`);
    }
  });

  it('needs a token and a non-guest membership', async () => {
    expect((await p.api('GET', teamsPath, { token: null })).status).toBe(401);
    expect((await p.api('GET', teamsPath, { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', teamsPath, { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', '/orgs/nope/teams')).status).toBe(404);
    expect((await p.api('GET', `/orgs/${globex}/teams`)).body).toEqual({ count: 0, items: [] });
  });
});

describe('GET /orgs/{organizationId}/teams/{teamId}', () => {
  it('returns a team', async () => {
    const { status, body } = await p.api('GET', teamPath(T.writers), { token: token('eve') });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'team',
      id: T.writers,
      title: 'Writers',
      members: 3,
      permissions: { admin: false, view: true },
    });
    expect((await p.api('GET', teamPath(T.writers), { token: token('ben') })).body.permissions.admin).toBe(true);
  });

  it('is a 404 for unknown teams, teams of another organization and outsiders', async () => {
    expect((await p.api('GET', teamPath('no-such-team'))).status).toBe(404);
    expect((await p.api('GET', `/orgs/${globex}/teams/${T.writers}`)).status).toBe(404);
    expect((await p.api('GET', teamPath(T.writers), { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', teamPath(T.writers), { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', teamPath(T.writers), { token: null })).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/teams/{teamId}/members', () => {
  it('lists the members with their organization membership and team role', async () => {
    const { status, body } = await p.api('GET', membersPath(T.writers));
    expect(status).toBe(200);
    expect(body.count).toBe(3);
    expect(body.items).toMatchObject([
      {
        organization: { object: 'member', id: ids.ben, role: 'create', user: { email: U.ben } },
        team: { role: 'owner' },
        permissions: { view: true },
      },
      { organization: { id: ids.dee, role: 'edit' }, team: { role: 'member' }, permissions: { view: true } },
      { organization: { id: ids.eve, role: 'comment' }, team: { role: 'member' }, permissions: { view: true } },
    ]);
  });

  it('walks pages of 2 until exhausted', async () => {
    const pages = await walk(membersPath(T.writers), { limit: 2 }, token('finn'));
    expect(pages.map((page) => page.items.length)).toEqual([2, 1]);
    for (const page of pages) expect(page.count).toBe(3);
    expect(pages.flatMap((page) => page.items.map((item: any) => item.organization.id))).toEqual([
      ids.ben,
      ids.dee,
      ids.eve,
    ]);
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 1001 },
      { limit: 'abc' },
      { page: 'bogus' },
    ]) {
      expect((await p.api('GET', membersPath(T.writers), { query })).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('is a 403 for guests and a 404 for unknown teams and outsiders', async () => {
    expect((await p.api('GET', membersPath(T.writers), { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', membersPath(T.writers), { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', membersPath('nope'))).status).toBe(404);
    expect((await p.api('GET', membersPath(T.writers), { token: null })).status).toBe(401);
  });
});

describe('PUT /orgs/{organizationId}/teams', () => {
  it('creates a team with members (201)', async () => {
    const { status, body } = await p.api('PUT', teamsPath, {
      body: { title: '  Docs guild  ', members: [ids.finn, ids.gus, ids.finn] },
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      object: 'team',
      title: 'Docs guild',
      members: 2,
      spaces: 0,
      permissions: { admin: true, view: true },
    });
    expect(typeof body.id).toBe('string');
    expect(teamRoles(body.id)).toEqual({ [ids.finn]: 'member', [ids.gus]: 'member' });
    expect((await p.api('GET', teamPath(body.id))).body.title).toBe('Docs guild');
    expect((await p.api('GET', teamsPath)).body.count).toBe(4);
  });

  it('enforces the title limits (1 to 64)', async () => {
    const longest = 'x'.repeat(64);
    const ok = await p.api('PUT', teamsPath, { body: { title: longest } });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ title: longest, members: 0 });
    for (const title of ['', '   ', 'y'.repeat(65)]) {
      const { status, body } = await p.api('PUT', teamsPath, { body: { title } });
      expect(status, JSON.stringify(title)).toBe(400);
      expect(body.error.message).toContain('"title"');
    }
  });

  it('validates the body', async () => {
    for (const body of [{}, { title: 3 }, { title: 'A', extra: true }, { title: 'A', members: 'x' }, undefined]) {
      expect((await p.api('PUT', teamsPath, { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('refuses members outside the organization (400) and unknown users (404), naming the entry', async () => {
    const before = (await p.api('GET', teamsPath)).body.count;
    const outsider = await p.api('PUT', teamsPath, { body: { title: 'Mixed', members: [ids.ben, ids.hana] } });
    expect(outsider.status).toBe(400);
    expect(outsider.body.error.message).toContain(ids.hana);
    expect(outsider.body.error.message).toMatch(/^Invalid body field "members\.1": /);
    const unknown = await p.api('PUT', teamsPath, { body: { title: 'Mixed', members: [ids.ben, 'ghost-user'] } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('User not found: body field "members.1" ("ghost-user")');
    expect((await p.api('GET', teamsPath)).body.count).toBe(before);
  });

  it('needs the admin role', async () => {
    expect((await p.api('PUT', teamsPath, { token: token('finn'), body: { title: 'Nope' } })).status).toBe(403);
    expect((await p.api('PUT', teamsPath, { token: token('ben'), body: { title: 'Nope' } })).status).toBe(403);
    expect((await p.api('PUT', teamsPath, { token: token('gus'), body: { title: 'Nope' } })).status).toBe(403);
    expect((await p.api('PUT', teamsPath, { token: token('hana'), body: { title: 'Nope' } })).status).toBe(404);
    expect((await p.api('PUT', teamsPath, { token: null, body: { title: 'Nope' } })).status).toBe(401);
    expect((await p.api('PUT', '/orgs/nope/teams', { body: { title: 'Nope' } })).status).toBe(404);
  });
});

describe('PATCH /orgs/{organizationId}/teams/{teamId}', () => {
  it('lets the team owner rename it', async () => {
    const { status, body } = await p.api('PATCH', teamPath(T.writers), {
      token: token('ben'),
      body: { title: 'Tech writers' },
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'team',
      id: T.writers,
      title: 'Tech writers',
      members: 3,
      permissions: { admin: true },
    });
    expect((await p.api('GET', teamPath(T.writers))).body.title).toBe('Tech writers');
    expect((await p.api('PATCH', teamPath(T.writers), { body: { title: 'Writers' } })).body.title).toBe('Writers');
  });

  it('enforces the title limits', async () => {
    for (const body of [{}, { title: '' }, { title: 'z'.repeat(65) }, { title: 'Ok', other: 1 }]) {
      expect((await p.api('PATCH', teamPath(T.writers), { body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await p.api('PATCH', teamPath(T.writers), { body: { title: 'w'.repeat(64) } })).status).toBe(200);
    expect((await p.api('PATCH', teamPath(T.writers), { body: { title: 'Writers' } })).status).toBe(200);
  });

  it('is a 403 for team members and others, 404 for unknown teams', async () => {
    expect((await p.api('PATCH', teamPath(T.writers), { token: token('eve'), body: { title: 'Mine' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', teamPath(T.writers), { token: token('finn'), body: { title: 'Mine' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', teamPath(T.writers), { token: token('gus'), body: { title: 'Mine' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', teamPath(T.writers), { token: token('hana'), body: { title: 'Mine' } })).status).toBe(
      404,
    );
    expect((await p.api('PATCH', teamPath('nope'), { body: { title: 'Mine' } })).status).toBe(404);
    expect((await p.api('GET', teamPath(T.writers))).body.title).toBe('Writers');
  });
});

describe('PUT /orgs/{organizationId}/teams/{teamId}/members', () => {
  it('adds by id or e-mail, sets roles and removes, in one call (204)', async () => {
    const { status, body } = await p.api('PUT', membersPath(T.platform), {
      token: token('dee'),
      body: { add: [ids.finn, U.cy.toUpperCase()], memberships: { [U.ben]: { role: 'owner' } } },
    });
    expect(status).toBe(204);
    expect(body).toBeUndefined();
    expect(teamRoles(T.platform)).toEqual({
      [ids.dee]: 'owner',
      [ids.finn]: 'member',
      [ids.cy]: 'member',
      [ids.ben]: 'owner',
    });
    const removed = await p.api('PUT', membersPath(T.platform), {
      token: token('ben'),
      body: { remove: [U.finn, ids.cy], memberships: { [ids.ben]: { role: 'member' } } },
    });
    expect(removed.status).toBe(204);
    expect(teamRoles(T.platform)).toEqual({ [ids.dee]: 'owner', [ids.ben]: 'member' });
  });

  it('keeps the role of a user added again', async () => {
    expect((await p.api('PUT', membersPath(T.platform), { body: { add: [ids.dee] } })).status).toBe(204);
    expect(teamRoles(T.platform)[ids.dee]).toBe('owner');
  });

  it('removes a user listed in both add and remove', async () => {
    const { status } = await p.api('PUT', membersPath(T.platform), { body: { add: [ids.eve], remove: [U.eve] } });
    expect(status).toBe(204);
    expect(teamRoles(T.platform)[ids.eve]).toBeUndefined();
    await p.api('PUT', membersPath(T.platform), { body: { add: [ids.eve] } });
    expect(teamRoles(T.platform)[ids.eve]).toBe('member');
    await p.api('PUT', membersPath(T.platform), { body: { add: [ids.eve], remove: [ids.eve] } });
    expect(teamRoles(T.platform)[ids.eve]).toBeUndefined();
  });

  it('refuses unknown users (404) and non-members (400), naming the entry, and changes nothing', async () => {
    const before = teamRoles(T.platform);
    const unknown = await p.api('PUT', membersPath(T.platform), {
      body: { add: [ids.finn], remove: ['nobody@example.test'] },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe('User not found: body field "remove.0" ("nobody@example.test")');
    const unknownAdd = await p.api('PUT', membersPath(T.platform), { body: { add: [ids.finn, 'ghost'] } });
    expect(unknownAdd.status).toBe(404);
    expect(unknownAdd.body.error.message).toBe('User not found: body field "add.1" ("ghost")');
    const unknownMembership = await p.api('PUT', membersPath(T.platform), {
      body: { memberships: { ghost: { role: 'owner' } } },
    });
    expect(unknownMembership.status).toBe(404);
    expect(unknownMembership.body.error.message).toBe('User not found: body field "memberships.ghost" ("ghost")');
    const outsider = await p.api('PUT', membersPath(T.platform), { body: { add: [ids.finn, U.hana] } });
    expect(outsider.status).toBe(400);
    expect(outsider.body.error.message).toBe(
      `Invalid body field "add.1": ${U.hana} is not a member of the organization`,
    );
    const membership = await p.api('PUT', membersPath(T.platform), {
      body: { memberships: { [ids.hana]: { role: 'owner' } } },
    });
    expect(membership.status).toBe(400);
    expect(membership.body.error.message).toBe(
      `Invalid body field "memberships.${ids.hana}": ${ids.hana} is not a member of the organization`,
    );
    expect(teamRoles(T.platform)).toEqual(before);
  });

  it('needs at least one non-empty field and a valid body', async () => {
    for (const body of [{}, { add: [] }, { add: [], remove: [], memberships: {} }, undefined]) {
      const answer = await p.api('PUT', membersPath(T.platform), { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    for (const body of [
      { add: 'x' },
      { memberships: { [ids.finn]: { role: 'admin' } } },
      { add: [ids.finn], extra: 1 },
    ]) {
      expect((await p.api('PUT', membersPath(T.platform), { body })).status, JSON.stringify(body)).toBe(400);
    }
  });

  it('needs the admin role or team ownership', async () => {
    expect(
      (await p.api('PUT', membersPath(T.platform), { token: token('finn'), body: { add: [ids.finn] } })).status,
    ).toBe(403);
    expect(
      (await p.api('PUT', membersPath(T.writers), { token: token('eve'), body: { add: [ids.finn] } })).status,
    ).toBe(403);
    expect(
      (await p.api('PUT', membersPath(T.writers), { token: token('hana'), body: { add: [ids.finn] } })).status,
    ).toBe(404);
    expect((await p.api('PUT', membersPath('nope'), { body: { add: [ids.finn] } })).status).toBe(404);
    expect((await p.api('PUT', membersPath(T.writers), { token: null, body: { add: [ids.finn] } })).status).toBe(401);
    expect(teamRoles(T.writers)[ids.finn]).toBeUndefined();
  });
});

describe('PUT /orgs/{organizationId}/teams/{teamId}/members/{userId}', () => {
  const path = (teamId: string, userId: string) => `/orgs/${acme}/teams/${teamId}/members/${userId}`;

  it('adds a member, as member by default, and updates the role', async () => {
    const added = await p.api('PUT', path(T.reviewers, ids.eve), { token: token('cy') });
    expect(added.status).toBe(204);
    expect(added.body).toBeUndefined();
    expect(teamRoles(T.reviewers)[ids.eve]).toBe('member');
    expect(
      (await p.api('PUT', path(T.reviewers, ids.eve), { token: token('cy'), body: { role: 'owner' } })).status,
    ).toBe(204);
    expect(teamRoles(T.reviewers)[ids.eve]).toBe('owner');
    expect((await p.api('PUT', path(T.reviewers, ids.eve), { body: { role: 'member' } })).status).toBe(204);
    expect(teamRoles(T.reviewers)[ids.eve]).toBe('member');
    expect((await p.api('GET', teamPath(T.reviewers))).body.members).toBe(3);
  });

  it('keeps the role of an existing member when the body has no role', async () => {
    expect(teamRoles(T.reviewers)[ids.cy]).toBe('owner');
    expect((await p.api('PUT', path(T.reviewers, ids.cy), { body: {} })).status).toBe(204);
    expect((await p.api('PUT', path(T.reviewers, ids.cy))).status).toBe(204);
    expect((await p.api('PUT', path(T.reviewers, U.cy), { token: token('cy') })).status).toBe(204);
    expect(teamRoles(T.reviewers)[ids.cy]).toBe('owner');
    expect(teamRoles(T.reviewers)[ids.finn]).toBe('member');
    expect((await p.api('PUT', path(T.reviewers, ids.finn), { body: {} })).status).toBe(204);
    expect(teamRoles(T.reviewers)[ids.finn]).toBe('member');
  });

  it('is a 400 for non-members of the organization and a 404 for unknown users', async () => {
    expect((await p.api('PUT', path(T.reviewers, ids.hana))).status).toBe(400);
    expect((await p.api('PUT', path(T.reviewers, 'ghost'))).status).toBe(404);
    expect((await p.api('PUT', path(T.reviewers, ids.finn), { body: { role: 'admin' } })).status).toBe(400);
    expect((await p.api('PUT', path('nope', ids.finn))).status).toBe(404);
  });

  it('needs the admin role or team ownership', async () => {
    expect(
      (await p.api('PUT', path(T.reviewers, ids.finn), { token: token('finn'), body: { role: 'owner' } })).status,
    ).toBe(403);
    expect((await p.api('PUT', path(T.reviewers, ids.ben), { token: token('ben') })).status).toBe(403);
    expect((await p.api('PUT', path(T.reviewers, ids.ben), { token: token('gus') })).status).toBe(403);
    expect((await p.api('PUT', path(T.reviewers, ids.ben), { token: null })).status).toBe(401);
    expect(teamRoles(T.reviewers)[ids.finn]).toBe('member');
  });
});

describe('DELETE /orgs/{organizationId}/teams/{teamId}/members/{userId}', () => {
  const path = (teamId: string, userId: string) => `/orgs/${acme}/teams/${teamId}/members/${userId}`;

  it('answers 205 when removed and 204 when not a member', async () => {
    const removed = await p.api('DELETE', path(T.reviewers, ids.eve), { token: token('cy') });
    expect(removed.status).toBe(205);
    expect(removed.body).toBeUndefined();
    expect(teamRoles(T.reviewers)[ids.eve]).toBeUndefined();
    const again = await p.api('DELETE', path(T.reviewers, ids.eve), { token: token('cy') });
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
    expect((await p.api('DELETE', path(T.reviewers, 'ghost'))).status).toBe(204);
  });

  it('needs the admin role or team ownership, and an existing team', async () => {
    expect((await p.api('DELETE', path(T.reviewers, ids.cy), { token: token('finn') })).status).toBe(403);
    expect((await p.api('DELETE', path(T.reviewers, ids.cy), { token: token('hana') })).status).toBe(404);
    expect((await p.api('DELETE', path('nope', ids.cy))).status).toBe(404);
    expect((await p.api('DELETE', path(T.reviewers, ids.cy), { token: null })).status).toBe(401);
    expect(teamRoles(T.reviewers)[ids.cy]).toBe('owner');
  });
});

describe('DELETE /orgs/{organizationId}/teams/{teamId}', () => {
  it('is a 403 for members who do not own the team', async () => {
    expect((await p.api('DELETE', teamPath(T.reviewers), { token: token('finn') })).status).toBe(403);
    expect((await p.api('DELETE', teamPath(T.reviewers), { token: token('ben') })).status).toBe(403);
    expect((await p.api('DELETE', teamPath(T.reviewers), { token: token('gus') })).status).toBe(403);
    expect((await p.api('DELETE', teamPath(T.reviewers), { token: token('hana') })).status).toBe(404);
    expect((await p.api('DELETE', teamPath(T.reviewers), { token: null })).status).toBe(401);
    expect((await p.api('GET', teamPath(T.reviewers))).status).toBe(200);
  });

  it('lets the owner delete the team with its grants (205), then answers 204', async () => {
    const grants = () =>
      (
        p.db
          .prepare("SELECT COUNT(*) AS n FROM content_permissions WHERE principal_type = 'team' AND principal_id = ?")
          .get(T.reviewers) as { n: number }
      ).n;
    expect(grants()).toBe(1);
    const deleted = await p.api('DELETE', teamPath(T.reviewers), { token: token('cy') });
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect(grants()).toBe(0);
    expect(teamRoles(T.reviewers)).toEqual({});
    expect((await p.api('GET', teamPath(T.reviewers))).status).toBe(404);
    const again = await p.api('DELETE', teamPath(T.reviewers));
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
  });

  it('lets an org admin delete any team', async () => {
    expect((await p.api('DELETE', teamPath(T.platform))).status).toBe(205);
    expect((await p.api('GET', teamsPath)).body.items.map((t: any) => t.id)).not.toContain(T.platform);
    expect((await p.api('DELETE', `/orgs/nope/teams/${T.writers}`)).status).toBe(404);
  });
});
