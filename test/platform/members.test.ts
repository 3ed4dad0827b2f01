import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const acme = 'northwind';
const globex = 'southwind';
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
/** Northwind's spaces that are not deleted, oldest first ("Company handbook" the oldest). */
const LIVE_SPACES = [
  'Company handbook',
  'Runbooks',
  'Status page',
  'Architecture decisions',
  'Onboarding checklist',
  'Incident postmortems',
  'Getting started',
  'Tutorials',
  'Performance tuning',
  'Security hardening',
  'Guide de démarrage',
  'Erste Schritte',
  'Getting started (FR)',
];
/** Northwind's deleted spaces. */
const DELETED_SPACES = ['Meeting notes 2023', 'Old drafts'];

let p: TestPlatform;
const users = {} as Record<UserKey, TestUser>;
/** The users' e-mails. */
const U = {} as Record<UserKey, string>;
const ids = {} as Record<UserKey, string>;
/** Northwind's teams: Writers (owner ben; dee, eve), Reviewers (owner cy; finn), Platform (owner dee). */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;
const token = (key: UserKey) => users[key].token;
const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

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

/**
 * Northwind (default role `read`, e-mails at example.test): ada admin, ben `create`, cy `review`, dee `edit` (SSO),
 * eve `comment`, finn `read` (`edit` on Runbooks; `review` on the Internal collection through Reviewers), gus a
 * guest from partner.test (`read` on the Guides collection, `comment` on its Tutorials space); they joined in that
 * order, and cy and finn were never seen. Incident postmortems needs cy's and dee's review. Southwind: ada its only
 * admin, hana, and a space of its own. ivy is in no organization.
 */
beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const [key, name] of Object.entries(NAMES) as Array<[UserKey, string]>) {
    users[key] = addUser(p, key, { name, ...(key === 'gus' ? { email: 'gus@partner.test' } : {}) });
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
  const org = addOrg(p, {
    id: acme,
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
  const south = addOrg(p, { id: globex, members: { ada: 'admin', hana: 'edit' }, users });
  await south.space('Partner API');
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  const internal = await org.collection('Internal');
  await org.grant({ collection: internal }, 'review', { teams: [T.reviewers] });
  const guides = await org.collection('Guides');
  await org.grant({ collection: guides }, 'read', { users: ['gus'] });
  const parents: Record<string, string> = { 'Onboarding checklist': internal, 'Incident postmortems': internal };
  for (const title of LIVE_SPACES.slice(LIVE_SPACES.indexOf('Getting started'))) parents[title] = guides;
  for (const [i, title] of [...LIVE_SPACES, ...DELETED_SPACES].entries()) {
    const space = await org.space(title, parents[title] ? { parent: parents[title] } : {});
    // Distinct creation times: members' spaces are listed by them.
    p.db.prepare('UPDATE spaces SET created_at = ? WHERE id = ?').run(ago(100 - i), space);
    if (title === 'Runbooks') await org.grant({ space }, 'edit', { users: ['finn'] });
    if (title === 'Architecture decisions') await org.grant({ space }, 'edit', { teams: [T.platform] });
    if (title === 'Tutorials') await org.grant({ space }, 'comment', { users: ['gus'] });
    if (title === 'Incident postmortems') {
      const mergeRules = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [ids.cy, ids.dee] }] };
      expect((await p.api('PATCH', `/spaces/${space}`, { body: { mergeRules } })).status).toBe(200);
    }
    if (DELETED_SPACES.includes(title)) expect((await p.api('DELETE', `/spaces/${space}`)).status).toBe(205);
  }
});

afterAll(async () => {
  await p?.destroy();
});

describe('GET /orgs/{organizationId}/members', () => {
  const path = `/orgs/${acme}/members`;

  it('lists every member, newest first by default', async () => {
    const { status, body } = await p.api('GET', path);
    expect(status).toBe(200);
    expect(body.count).toBe(7);
    expect(body.next).toBeUndefined();
    expect(body.items.map((m: any) => m.user.email)).toEqual([U.gus, U.finn, U.eve, U.dee, U.cy, U.ben, U.ada]);
    const dee = body.items.find((m: any) => m.id === ids.dee);
    expect(dee).toMatchObject({
      object: 'member',
      id: ids.dee,
      role: 'edit',
      disabled: false,
      sso: true,
      spaces: 0,
      teams: 2,
      user: { object: 'user', id: ids.dee, displayName: 'Dee Alvarez', email: U.dee },
    });
    expect(typeof dee.joinedAt).toBe('string');
    expect(typeof dee.lastSeenAt).toBe('string');
    const finn = body.items.find((m: any) => m.id === ids.finn);
    expect(finn.lastSeenAt).toBeUndefined();
    expect(finn.spaces).toBe(1);
    const gus = body.items.find((m: any) => m.id === ids.gus);
    expect(gus.role).toBeNull();
  });

  it('orders ascending with order=asc', async () => {
    const { body } = await p.api('GET', path, { query: { order: 'asc' } });
    expect(body.items.map((m: any) => m.id)).toEqual([ids.ada, ids.ben, ids.cy, ids.dee, ids.eve, ids.finn, ids.gus]);
  });

  it('sorts by name', async () => {
    const asc = await p.api('GET', path, { query: { sort: 'name', order: 'asc' } });
    expect(asc.body.items.map((m: any) => m.user.displayName)).toEqual([
      'Ada Lovelace',
      'Ben Okafor',
      'Cy Tanaka',
      'Dee Alvarez',
      'Eve Martin',
      'Finn Larsen',
      'Gus Partner',
    ]);
    const desc = await p.api('GET', path, { query: { sort: 'name' } });
    expect(desc.body.items.map((m: any) => m.id)).toEqual(asc.body.items.map((m: any) => m.id).reverse());
  });

  it('sorts by lastSeenAt, listing only members seen at least once', async () => {
    const { body } = await p.api('GET', path, { query: { sort: 'lastSeenAt' } });
    expect(body.count).toBe(5);
    expect(body.items.map((m: any) => m.id)).toEqual([ids.ada, ids.dee, ids.ben, ids.gus, ids.eve]);
    const asc = await p.api('GET', path, { query: { sort: 'lastSeenAt', order: 'asc' } });
    expect(asc.body.items.map((m: any) => m.id)).toEqual([ids.eve, ids.gus, ids.ben, ids.dee, ids.ada]);
  });

  it('filters by role, guest included', async () => {
    const admins = await p.api('GET', path, { query: { role: 'admin' } });
    expect(admins.body.items.map((m: any) => m.id)).toEqual([ids.ada]);
    const guests = await p.api('GET', path, { query: { role: 'guest' } });
    expect(guests.body).toMatchObject({ count: 1, items: [{ id: ids.gus, role: null }] });
    const review = await p.api('GET', path, { query: { role: 'review' } });
    expect(review.body.items.map((m: any) => m.id)).toEqual([ids.cy]);
  });

  it('searches display names and e-mails, case-insensitively', async () => {
    const byName = await p.api('GET', path, { query: { search: 'ALVAREZ' } });
    expect(byName.body.items.map((m: any) => m.id)).toEqual([ids.dee]);
    const byEmail = await p.api('GET', path, { query: { search: 'Partner.TEST' } });
    expect(byEmail.body.items.map((m: any) => m.id)).toEqual([ids.gus]);
    const several = await p.api('GET', path, { query: { search: 'AR', sort: 'name', order: 'asc' } });
    expect(several.body.items.map((m: any) => m.id)).toEqual([ids.dee, ids.eve, ids.finn, ids.gus]);
    const none = await p.api('GET', path, { query: { search: 'nobody-here' } });
    expect(none.body).toEqual({ count: 0, items: [] });
    const combined = await p.api('GET', path, { query: { search: 'example.test', role: 'create' } });
    expect(combined.body.items.map((m: any) => m.id)).toEqual([ids.ben]);
  });

  it('walks pages of 2 until exhausted', async () => {
    const pages = await walk(path, { limit: 2 });
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 2, 1]);
    for (const page of pages) expect(page.count).toBe(7);
    expect(pages.at(-1).next).toBeUndefined();
    const walked = pages.flatMap((page) => page.items.map((m: any) => m.id));
    expect(walked).toEqual([ids.gus, ids.finn, ids.eve, ids.dee, ids.cy, ids.ben, ids.ada]);
  });

  it('rejects bad query parameters with 400', async () => {
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 1001 },
      { limit: 'abc' },
      { page: 'bogus' },
      { order: 'sideways' },
      { sort: 'email' },
      { role: 'owner' },
    ]) {
      const { status, body } = await p.api('GET', path, { query });
      expect(status, JSON.stringify(query)).toBe(400);
      expect(body.error.code).toBe(400);
      expect(body.error.message).toContain(`"${Object.keys(query)[0]}"`);
    }
  });

  it('needs a token, a non-guest membership and an existing organization', async () => {
    expect((await p.api('GET', path, { token: null })).status).toBe(401);
    expect((await p.api('GET', path, { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', path, { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', '/orgs/no-such-org/members')).status).toBe(404);
    const finn = await p.api('GET', path, { token: token('finn') });
    expect(finn.status).toBe(200);
    expect(finn.body.count).toBe(7);
  });

  it('lists the members of another organization separately', async () => {
    const { body } = await p.api('GET', `/orgs/${globex}/members`, { query: { order: 'asc' } });
    expect(body.items.map((m: any) => m.id)).toEqual([ids.ada, ids.hana]);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}', () => {
  it('returns a member to any member, guests included', async () => {
    const { status, body } = await p.api('GET', `/orgs/${acme}/members/${ids.ben}`, { token: token('gus') });
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'member', id: ids.ben, role: 'create', teams: 1, user: { email: U.ben } });
  });

  it('is a 404 for non-members, unknown users and outsiders', async () => {
    expect((await p.api('GET', `/orgs/${acme}/members/${ids.hana}`)).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/members/nobody`)).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/members/${ids.ben}`, { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', `/orgs/nope/members/${ids.ben}`)).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/members/${ids.ben}`, { token: null })).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}/spaces', () => {
  const path = (key: UserKey) => `/orgs/${acme}/members/${ids[key]}/spaces`;

  it("lists the target member's spaces with the target's role, not the caller's", async () => {
    const { status, body } = await p.api('GET', path('gus'));
    expect(status).toBe(200);
    expect(body.count).toBe(7);
    const byTitle = Object.fromEntries(body.items.map((item: any) => [item.space.title, item.permission]));
    expect(byTitle).toEqual({
      'Getting started': 'read',
      'Getting started (FR)': 'read',
      Tutorials: 'comment',
      'Guide de démarrage': 'read',
      'Erste Schritte': 'read',
      'Performance tuning': 'read',
      'Security hardening': 'read',
    });
    expect(body.items[0].space).toMatchObject({ object: 'space', organization: acme, permissions: { admin: true } });
  });

  it('lets a member list their own spaces, deleted ones excluded', async () => {
    const { status, body } = await p.api('GET', path('finn'), { token: token('finn') });
    expect(status).toBe(200);
    // Every live space of the organization: finn reads them all.
    expect(body.count).toBe(LIVE_SPACES.length);
    const titles = body.items.map((item: any) => item.space.title);
    for (const title of DELETED_SPACES) expect(titles).not.toContain(title);
    const byTitle = Object.fromEntries(body.items.map((item: any) => [item.space.title, item.permission]));
    expect(byTitle.Runbooks).toBe('edit');
    expect(byTitle['Onboarding checklist']).toBe('review');
    expect(byTitle['Status page']).toBe('read');
    const own = await p.api('GET', path('gus'), { token: token('gus') });
    expect(own.status).toBe(200);
    expect(own.body.count).toBe(7);
  });

  it('orders by creation date, newest first by default', async () => {
    const desc = await p.api('GET', path('ada'));
    const asc = await p.api('GET', path('ada'), { query: { order: 'asc' } });
    expect(desc.body.count).toBe(LIVE_SPACES.length);
    expect(desc.body.items.every((item: any) => item.permission === 'admin')).toBe(true);
    const created = desc.body.items.map((item: any) => item.space.createdAt);
    expect(created).toEqual([...created].sort().reverse());
    expect(asc.body.items.map((item: any) => item.space.id)).toEqual(
      desc.body.items.map((item: any) => item.space.id).reverse(),
    );
    expect(asc.body.items[0].space.title).toBe('Company handbook');
  });

  it('walks pages of 2 until exhausted', async () => {
    const pages = await walk(path('gus'), { limit: 2 });
    expect(pages.map((page) => page.items.length)).toEqual([2, 2, 2, 1]);
    for (const page of pages) expect(page.count).toBe(7);
    expect(new Set(pages.flatMap((page) => page.items.map((item: any) => item.space.id))).size).toBe(7);
  });

  it('rejects bad query parameters with 400', async () => {
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 1001 },
      { limit: 'abc' },
      { page: 'bogus' },
      { order: 'up' },
    ]) {
      expect((await p.api('GET', path('gus'), { query })).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('is a 403 for other members and a 404 for non-members', async () => {
    expect((await p.api('GET', path('ben'), { token: token('finn') })).status).toBe(403);
    expect((await p.api('GET', path('ben'), { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', path('ben'), { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', path('hana'))).status).toBe(404);
    expect((await p.api('GET', path('ben'), { token: null })).status).toBe(401);
  });
});

describe('GET /orgs/{organizationId}/members/{userId}/teams', () => {
  const path = (key: UserKey) => `/orgs/${acme}/members/${ids[key]}/teams`;

  it("lists a member's teams with their team role", async () => {
    const { status, body } = await p.api('GET', path('dee'));
    expect(status).toBe(200);
    expect(body.count).toBe(2);
    expect(body.items).toMatchObject([
      {
        team: {
          object: 'team',
          id: T.platform,
          title: 'Platform',
          members: 1,
          spaces: 1,
          permissions: { admin: true, view: true },
        },
        member: { role: 'owner' },
      },
      { team: { id: T.writers, title: 'Writers', members: 3, spaces: 0 }, member: { role: 'member' } },
    ]);
    expect(typeof body.items[0].team.createdAt).toBe('string');
  });

  it('reports permissions.admin for the caller', async () => {
    const dee = await p.api('GET', path('dee'), { token: token('dee') });
    expect(dee.body.items.map((item: any) => item.team.permissions.admin)).toEqual([true, false]);
    const finn = await p.api('GET', path('dee'), { token: token('finn') });
    expect(finn.body.items.map((item: any) => item.team.permissions.admin)).toEqual([false, false]);
  });

  it('filters by title, case-insensitively', async () => {
    const { body } = await p.api('GET', path('dee'), { query: { title: 'WRIT' } });
    expect(body).toMatchObject({ count: 1, items: [{ team: { id: T.writers } }] });
    expect((await p.api('GET', path('dee'), { query: { title: 'zzz' } })).body).toEqual({ count: 0, items: [] });
  });

  it('walks pages until exhausted', async () => {
    const pages = await walk(path('dee'), { limit: 1 });
    expect(pages.map((page) => page.items[0].team.id)).toEqual([T.platform, T.writers]);
    const none = await p.api('GET', path('ada'));
    expect(none.body).toEqual({ count: 0, items: [] });
    for (const query of <Array<Record<string, string | number>>>[
      { limit: 0 },
      { limit: 1001 },
      { limit: 'abc' },
      { page: 'bogus' },
    ]) {
      expect((await p.api('GET', path('dee'), { query })).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('is a 403 for guests and a 404 for non-members', async () => {
    expect((await p.api('GET', path('dee'), { token: token('gus') })).status).toBe(403);
    expect((await p.api('GET', path('dee'), { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', path('hana'))).status).toBe(404);
    expect((await p.api('GET', path('dee'), { token: null })).status).toBe(401);
  });
});

describe('POST /orgs/{organizationId}/ping', () => {
  it('records when the caller was last seen', async () => {
    const before = Date.now();
    const { status, body } = await p.api('POST', `/orgs/${acme}/ping`, { token: token('finn') });
    expect(status).toBe(200);
    expect(body).toEqual({});
    const finn = await p.api('GET', `/orgs/${acme}/members/${ids.finn}`);
    expect(Date.parse(finn.body.lastSeenAt)).toBeGreaterThanOrEqual(before - 1000);
    const active = await p.api('GET', `/orgs/${acme}/members`, { query: { sort: 'lastSeenAt' } });
    expect(active.body.count).toBe(6);
    expect(active.body.items[0].id).toBe(ids.finn);
  });

  it('works for guests and is a 404 outside the organization', async () => {
    expect((await p.api('POST', `/orgs/${acme}/ping`, { token: token('gus') })).status).toBe(200);
    expect((await p.api('POST', `/orgs/${acme}/ping`, { token: token('hana') })).status).toBe(404);
    expect((await p.api('POST', '/orgs/nope/ping')).status).toBe(404);
    expect((await p.api('POST', `/orgs/${acme}/ping`, { token: null })).status).toBe(401);
  });
});

describe('PATCH /orgs/{organizationId}/members/{userId}', () => {
  const path = (key: UserKey, org: string = acme) => `/orgs/${org}/members/${ids[key]}`;

  it('changes a role, to guest too', async () => {
    const { status, body } = await p.api('PATCH', path('cy'), { body: { role: 'edit' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'member', id: ids.cy, role: 'edit', user: { email: U.cy } });
    const guest = await p.api('PATCH', path('cy'), { body: { role: null } });
    expect(guest.body.role).toBeNull();
    expect((await p.api('GET', path('cy'))).body.role).toBeNull();
    expect((await p.api('PATCH', path('cy'), { body: { role: 'review' } })).body.role).toBe('review');
  });

  it('validates the body', async () => {
    for (const body of [{}, { role: 'owner' }, { role: 'edit', extra: 1 }, { role: 3 }]) {
      const answer = await p.api('PATCH', path('cy'), { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await p.api('PATCH', path('cy'), { body: {} })).body.error.message).toContain('"role"');
  });

  it('needs the admin role', async () => {
    expect((await p.api('PATCH', path('cy'), { token: token('finn'), body: { role: 'admin' } })).status).toBe(403);
    expect((await p.api('PATCH', path('finn'), { token: token('ben'), body: { role: 'admin' } })).status).toBe(403);
    expect((await p.api('PATCH', path('cy'), { token: token('hana'), body: { role: 'read' } })).status).toBe(404);
    expect((await p.api('PATCH', path('cy'), { token: null, body: { role: 'read' } })).status).toBe(401);
    expect((await p.api('GET', path('cy'))).body.role).toBe('review');
  });

  it('is a 404 for non-members', async () => {
    expect((await p.api('PATCH', path('hana'), { body: { role: 'read' } })).status).toBe(404);
    expect((await p.api('PATCH', `/orgs/${acme}/members/nobody`, { body: { role: 'read' } })).status).toBe(404);
  });

  it('refuses to demote the last admin, and allows it once there is another', async () => {
    const refused = await p.api('PATCH', path('ada'), { body: { role: 'create' } });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe(409);
    expect((await p.api('PATCH', path('ada', globex), { body: { role: null } })).status).toBe(409);
    expect((await p.api('PATCH', path('ada'), { body: { role: 'admin' } })).status).toBe(200);
    expect((await p.api('PATCH', path('ben'), { body: { role: 'admin' } })).body.role).toBe('admin');
    const demoted = await p.api('PATCH', path('ben'), { token: token('ben'), body: { role: 'create' } });
    expect(demoted.status).toBe(200);
    expect(demoted.body.role).toBe('create');
  });
});

describe('POST /orgs/{organizationId}/members/{userId}/sso', () => {
  it("adds a user as an SSO member with the organization's default role", async () => {
    const { status, body } = await p.api('POST', `/orgs/${acme}/members/${ids.ivy}/sso`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ object: 'member', id: ids.ivy, role: 'read', sso: true, user: { email: U.ivy } });
    expect((await p.api('GET', `/orgs/${acme}/members`)).body.count).toBe(8);
  });

  it('marks an existing member as SSO without changing the role', async () => {
    const { status, body } = await p.api('POST', `/orgs/${acme}/members/${ids.ben}/sso`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: ids.ben, role: 'create', sso: true });
    const globexGuest = await p.api('POST', `/orgs/${globex}/members/${ids.eve}/sso`);
    expect(globexGuest.body).toMatchObject({ id: ids.eve, role: null, sso: true });
  });

  it('needs the admin role and an existing user', async () => {
    expect((await p.api('POST', `/orgs/${acme}/members/nobody/sso`)).status).toBe(404);
    expect((await p.api('POST', `/orgs/${acme}/members/${ids.hana}/sso`, { token: token('finn') })).status).toBe(403);
    expect((await p.api('POST', `/orgs/${acme}/members/${ids.hana}/sso`, { token: token('hana') })).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/members/${ids.hana}`)).status).toBe(404);
  });
});

describe('DELETE /orgs/{organizationId}/members/{userId}', () => {
  const path = (key: UserKey) => `/orgs/${acme}/members/${ids[key]}`;

  it('is a 403 when a non-admin removes someone else', async () => {
    expect((await p.api('DELETE', path('eve'), { token: token('finn') })).status).toBe(403);
    expect((await p.api('DELETE', path('eve'), { token: token('hana') })).status).toBe(404);
    expect((await p.api('DELETE', path('eve'), { token: null })).status).toBe(401);
    expect((await p.api('GET', path('eve'))).status).toBe(200);
  });

  it('lets a member leave, dropping their team memberships, then answers 204', async () => {
    const left = await p.api('DELETE', path('eve'), { token: token('eve') });
    expect(left.status).toBe(205);
    expect(left.body).toBeUndefined();
    expect((await p.api('GET', path('eve'))).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/teams/${T.writers}`)).body.members).toBe(2);
    expect((await p.api('GET', `/orgs/${globex}/members/${ids.eve}`)).status).toBe(200);
    const again = await p.api('DELETE', path('eve'));
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
  });

  it('lets an admin remove anyone, with their direct grants', async () => {
    expect((await p.api('DELETE', path('finn'))).status).toBe(205);
    const grants = p.db
      .prepare("SELECT COUNT(*) AS n FROM content_permissions WHERE principal_type = 'user' AND principal_id = ?")
      .get(ids.finn) as { n: number };
    expect(grants.n).toBe(0);
    expect((await p.api('GET', `/orgs/${acme}/teams/${T.reviewers}`)).body.members).toBe(1);
    expect((await p.api('GET', `/orgs/${acme}`, { token: token('finn') })).status).toBe(404);
  });

  it('refuses to remove the last admin', async () => {
    const own = await p.api('DELETE', path('ada'));
    expect(own.status).toBe(409);
    expect((await p.api('DELETE', `/orgs/${globex}/members/${ids.ada}`)).status).toBe(409);
    expect((await p.api('GET', path('ada'))).status).toBe(200);
  });

  it('is a 204 for a user who is not a member and a 404 for an unknown organization', async () => {
    expect((await p.api('DELETE', path('hana'))).status).toBe(204);
    expect((await p.api('DELETE', `/orgs/nope/members/${ids.ben}`)).status).toBe(404);
  });

  it('takes the removed member out of the merge rules of the organization and its spaces', async () => {
    const reviewers = (...keys: Array<UserKey>) => ({
      rule: 'require_specific_reviewers',
      users: keys.map((key) => ids[key]),
    });
    const patched = await p.api('PATCH', `/orgs/${acme}`, {
      body: { mergeRules: { type: 'rules', rules: [reviewers('dee', 'ben'), reviewers('dee')] } },
    });
    expect(patched.status).toBe(200);
    const space = (title: string) => p.db.prepare('SELECT id FROM spaces WHERE title = ?').get(title) as { id: string };
    const postmortems = space('Incident postmortems').id;
    const onlyDee = (await p.api('POST', `/orgs/${acme}/spaces`, { body: { title: 'Reviewed by dee' } })).body.id;
    const deleted = (await p.api('POST', `/orgs/${acme}/spaces`, { body: { title: 'Deleted, reviewed by dee' } })).body
      .id;
    for (const id of [onlyDee, deleted]) {
      const answer = await p.api('PATCH', `/spaces/${id}`, {
        body: { mergeRules: { type: 'rules', rules: [reviewers('dee')] } },
      });
      expect(answer.status).toBe(200);
    }
    expect((await p.api('DELETE', `/spaces/${deleted}`)).status).toBe(205);
    const globexRules = JSON.stringify({ type: 'rules', rules: [reviewers('dee')] });
    p.db.prepare("UPDATE organizations SET merge_rules = ? WHERE id = 'southwind'").run(globexRules);
    const untouched = p.db.prepare("SELECT merge_rules FROM spaces WHERE title = 'Partner API'").get() as {
      merge_rules: string;
    };

    expect((await p.api('DELETE', path('dee'))).status).toBe(205);
    expect((await p.api('GET', `/orgs/${acme}`)).body.mergeRules).toEqual({ type: 'rules', rules: [reviewers('ben')] });
    expect((await p.api('GET', `/spaces/${postmortems}`)).body.mergeRules).toEqual({
      type: 'rules',
      rules: [reviewers('cy')],
    });
    expect((await p.api('GET', `/spaces/${onlyDee}`)).body.mergeRules).toEqual({ type: 'rules', rules: [] });
    const deletedRules = p.db.prepare('SELECT merge_rules FROM spaces WHERE id = ?').get(deleted) as {
      merge_rules: string;
    };
    expect(JSON.parse(deletedRules.merge_rules)).toEqual({ type: 'rules', rules: [] });
    expect(
      (p.db.prepare("SELECT merge_rules FROM organizations WHERE id = 'southwind'").get() as { merge_rules: string })
        .merge_rules,
    ).toBe(globexRules);
    expect(
      (p.db.prepare("SELECT merge_rules FROM spaces WHERE title = 'Partner API'").get() as { merge_rules: string })
        .merge_rules,
    ).toBe(untouched.merge_rules);
  });
});
