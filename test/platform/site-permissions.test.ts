import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteAccessOf } from '../../src/platform/sites/permissions.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Grants on docs sites in the platform: the role rule (a direct grant before a team's of the same
 * rank, never below the organization role), the refusals (limits, guests, unknown invitees), the
 * aggregate's filters and orders, and grants leaving with their team.
 */

const ORG = 'grants';
let p: TestPlatform;
/** ada admin; bo `read` in the teams Docs and Ops; cal `edit`; dan a guest; eli `read`, seen once. */
let org: TestOrg;
let site: string;
let docsTeam: string;
let opsTeam: string;
const base = () => `/orgs/${ORG}/sites/${site}/permissions`;

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  org = addOrg(p, {
    id: ORG,
    members: { ada: 'admin', bo: 'read', cal: 'edit', dan: null, eli: 'read' },
    memberships: { eli: { lastSeenAt: '2025-01-01T00:00:00.000Z' } },
  });
  docsTeam = await org.team('Docs', ['bo']);
  opsTeam = await org.team('Ops', ['bo']);
  site = await org.site('Portal', { spaces: [await org.space('Portal space')] });
});

afterAll(() => p.destroy());

describe('the role on a site', () => {
  it('is the best grant reaching the user, a direct one first at the same rank, never below the organization role', async () => {
    const bo = org.user('bo').id;
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, bo, 'read')).toEqual({
      role: 'read',
      origin: { type: 'organization', organization: ORG },
    });
    await p.api('POST', base(), { body: { role: 'review', teams: [docsTeam, opsTeam] } });
    await p.api('PATCH', `${base()}/teams/${opsTeam}`, { body: { role: 'create' } });
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, bo, 'read')).toEqual({
      role: 'create',
      origin: { type: 'site', site, reason: 'team', team: opsTeam },
    });
    await p.api('POST', base(), { body: { role: 'create', users: [bo] } });
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, bo, 'read').origin).toEqual({
      type: 'site',
      site,
      reason: 'member',
    });
    // A grant below the organization role leaves it; a disabled member or a non-member holds nothing.
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, bo, 'admin').role).toBe('admin');
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, bo, undefined).role).toBeNull();
    await p.api('DELETE', `${base()}/users/${bo}`);
  });

  it('leaves with its team', async () => {
    const ephemeral = await org.team('Ephemeral', ['eli']);
    await p.api('PATCH', `${base()}/teams/${ephemeral}`, { body: { role: 'admin' } });
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, org.user('eli').id, 'read').role).toBe('admin');
    expect((await p.api('DELETE', `/orgs/${ORG}/teams/${ephemeral}`)).status).toBe(205);
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, org.user('eli').id, 'read').role).toBe('read');
    const teams = await p.api('GET', `${base()}/teams`);
    expect(teams.body.items.map((item: { team: { title: string } }) => item.team.title)).toEqual(['Docs', 'Ops']);
  });
});

describe('leaving the organization', () => {
  it('takes the member’s grants with them: rejoining brings none back', async () => {
    const eli = org.user('eli').id;
    await p.api('PATCH', `${base()}/users/${eli}`, { body: { role: 'admin' } });
    expect((await p.api('DELETE', `/orgs/${ORG}/members/${eli}`)).status).toBe(205);
    p.db
      .prepare(
        "INSERT INTO members (org_id, user_id, role, sso, joined_at, last_seen_at) VALUES (?, ?, 'read', 0, ?, '2025-01-01T00:00:00.000Z')",
      )
      .run(ORG, eli, new Date().toISOString());
    expect(siteAccessOf(p.db, { id: site, org_id: ORG }, eli, 'read').role).toBe('read');
    expect((await p.api('GET', `${base()}/users`)).body.items).toEqual([]);
  });
});

describe('refusals', () => {
  it('names the limit, the value and the maximum of an invite', async () => {
    const users = Array.from({ length: 101 }, (_, i) => `user-${i}`);
    const answer = await p.api('POST', base(), { body: { role: 'read', users } });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        message: 'Invalid body field "users": at most 100 per invite, got 101',
        limit: 'users',
        value: 101,
        max: 100,
      },
    });
  });

  it('refuses a guest without a grant alike for a site that exists and one that does not', async () => {
    const token = org.token('dan');
    const real = await p.api('GET', `/orgs/${ORG}/sites/${site}`, { token });
    const none = await p.api('GET', `/orgs/${ORG}/sites/no-such-site`, { token });
    expect([real.status, none.status]).toEqual([403, 403]);
    expect(real.body.error.message).toBe(none.body.error.message);
    await p.api('POST', base(), { body: { role: 'read', users: [org.user('dan').id] } });
    expect((await p.api('GET', `/orgs/${ORG}/sites/${site}`, { token })).status).toBe(200);
    // Granted, a guest still does not list who else has access.
    expect((await p.api('GET', `${base()}/aggregate`, { token })).status).toBe(403);
    await p.api('DELETE', `${base()}/users/${org.user('dan').id}`);
  });

  it('refuses invitees outside the organization and teams of another, naming the field', async () => {
    const stranger = await p.api('POST', base(), { body: { role: 'read', users: [org.user('bo').id, 'nobody'] } });
    expect(stranger.status).toBe(404);
    expect(stranger.body.error.message).toContain('"users.1"');
    const team = await p.api('POST', base(), { body: { role: 'read', teams: ['no-team'] } });
    expect(team.status).toBe(404);
    expect(team.body.error.message).toContain('"teams.0"');
    expect((await p.api('POST', base(), { body: { role: 'read', users: [] } })).status).toBe(400);
  });

  it('lets only site admins write grants', async () => {
    const answer = await p.api('POST', base(), {
      token: org.token('cal'),
      body: { role: 'admin', users: [org.user('cal').id] },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toBe('This needs the admin role on the site');
  });
});

describe('the aggregate', () => {
  const names = (answer: { body: { items: Array<{ user: { displayName: string } }> } }) =>
    answer.body.items.map((item) => item.user.displayName);

  it('filters by name, role and team, and orders by name or last seen', async () => {
    const by = (query: Record<string, string>) => p.api('GET', `${base()}/aggregate`, { query });
    const all = await by({ sort: 'name', order: 'asc' });
    expect(names(all)).toEqual(['Ada', 'Bo', 'Cal', 'Eli']);
    expect(all.body.items[1]).toMatchObject({
      permission: 'create',
      origin: { type: 'site', site, reason: 'team', team: opsTeam },
      // Every source, strongest first, in the order of the aggregates of spaces and collections.
      sources: [
        { type: 'team', role: 'create', team: opsTeam },
        { type: 'team', role: 'review', team: docsTeam },
        { type: 'organization', role: 'read' },
      ],
      disabled: false,
    });
    expect(names(await by({ search: 'CA' }))).toEqual(['Cal']);
    expect(names(await by({ role: 'read' }))).toEqual(['Eli']);
    expect(names(await by({ team: docsTeam }))).toEqual(['Bo']);
    expect(names(await by({ sort: 'lastSeenAt' }))).toEqual(['Eli']);
    expect((await by({ team: 'no-team' })).status).toBe(404);
  });
});
