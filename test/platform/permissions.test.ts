import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Access } from '../../src/platform/access.js';
import { accessExplainer, roleOf } from '../../src/platform/permissions/sources.js';
import type { CollectionRow, SpaceRow, UserRow } from '../../src/platform/rows.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Permissions of spaces and collections on the platform: the grants of users and teams (invite,
 * list, update, remove), who may read and write them, the aggregate with the sources of each role,
 * and that the sources explain exactly the role every access decision uses.
 */

let p: TestPlatform;
/** Oak: ada admin, ben `create`, cy `edit`, dee `read`, gil a guest; hana in no organization. Elm: ada admin. */
let oak: TestOrg;
const users = {} as Record<'ada' | 'ben' | 'cy' | 'dee' | 'gil' | 'hana', TestUser>;
/** Oak's collections Docs (default level `comment`) > Inner; Open (inherits). */
const C = {} as Record<'docs' | 'inner' | 'open', string>;
/** Oak's spaces: Guide in Inner, Notes in Open, Top at the root. */
const S = {} as Record<'guide' | 'notes' | 'top', string>;
/** Oak's teams Writers (cy, dee) and Readers (gil); Elm's team Other. */
const T = {} as Record<'writers' | 'readers' | 'other', string>;

const as = (key: keyof typeof users) => ({ token: users[key].token });

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const key of ['ada', 'ben', 'cy', 'dee', 'gil', 'hana'] as const) users[key] = addUser(p, key);
  oak = addOrg(p, { id: 'oak', members: { ada: 'admin', ben: 'create', cy: 'edit', dee: 'read', gil: null }, users });
  const elm = addOrg(p, { id: 'elm', members: { ada: 'admin' }, users });
  C.docs = await oak.collection('Docs', { defaultLevel: 'comment' });
  C.inner = await oak.collection('Inner', { parent: C.docs });
  C.open = await oak.collection('Open');
  S.guide = await oak.space('Guide', { parent: C.inner });
  S.notes = await oak.space('Notes', { parent: C.open });
  S.top = await oak.space('Top');
  T.writers = await oak.team('Writers', ['cy', 'dee']);
  T.readers = await oak.team('Readers', ['gil']);
  T.other = await elm.team('Other');
});

afterAll(() => p?.destroy());

const ids = (items: Array<{ permission: string; user?: { id: string }; team?: { id: string } }>) =>
  items.map((item) => [item.user?.id ?? item.team?.id, item.permission]);

describe('space grants', () => {
  it('invites users and teams, lists them, and sets and removes each grant (admins only)', async () => {
    const invite = await p.api('POST', `/spaces/${S.top}/permissions`, {
      body: { role: 'edit', users: [users.dee.id], teams: [T.writers, T.readers] },
    });
    expect(invite.status).toBe(204);
    expect(ids((await p.api('GET', `/spaces/${S.top}/permissions/users`)).body.items)).toEqual([
      [users.dee.id, 'edit'],
    ]);
    const teams = await p.api('GET', `/spaces/${S.top}/permissions/teams`);
    expect(ids(teams.body.items)).toEqual([
      [T.readers, 'edit'],
      [T.writers, 'edit'],
    ]);
    expect(teams.body.items[1].team).toMatchObject({ object: 'team', title: 'Writers', members: 2 });

    expect(
      (await p.api('PATCH', `/spaces/${S.top}/permissions/teams/${T.readers}`, { body: { role: 'review' } })).status,
    ).toBe(204);
    expect(
      (await p.api('PATCH', `/spaces/${S.top}/permissions/users/${users.dee.id}`, { body: { role: 'comment' } }))
        .status,
    ).toBe(204);
    expect(ids((await p.api('GET', `/spaces/${S.top}/permissions/teams`)).body.items)).toEqual([
      [T.readers, 'review'],
      [T.writers, 'edit'],
    ]);
    expect(ids((await p.api('GET', `/spaces/${S.top}/permissions/users`)).body.items)).toEqual([
      [users.dee.id, 'comment'],
    ]);

    expect((await p.api('DELETE', `/spaces/${S.top}/permissions/teams/${T.readers}`)).status).toBe(205);
    expect((await p.api('DELETE', `/spaces/${S.top}/permissions/teams/${T.readers}`)).status).toBe(204);
    expect((await p.api('DELETE', `/spaces/${S.top}/permissions/users/${users.dee.id}`)).status).toBe(205);
    expect((await p.api('DELETE', `/spaces/${S.top}/permissions/users/${users.dee.id}`)).status).toBe(204);
    // A null role removes the direct grants of those listed.
    await p.api('POST', `/spaces/${S.top}/permissions`, { body: { role: null, teams: [T.writers] } });
    expect((await p.api('GET', `/spaces/${S.top}/permissions/teams`)).body).toMatchObject({ count: 0, items: [] });
  });

  it('refuses writes to non-admins (403), lists to guests (403) and everything where the space is hidden (404)', async () => {
    const body = { role: 'read', users: [users.dee.id] };
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/spaces/${S.top}/permissions`, body],
      ['PATCH', `/spaces/${S.top}/permissions/users/${users.dee.id}`, { role: 'read' }],
      ['DELETE', `/spaces/${S.top}/permissions/users/${users.dee.id}`, undefined],
      ['PATCH', `/spaces/${S.top}/permissions/teams/${T.writers}`, { role: 'read' }],
      ['DELETE', `/spaces/${S.top}/permissions/teams/${T.writers}`, undefined],
    ];
    for (const [method, path, payload] of writes) {
      const answer = await p.api(method, path, { ...as('ben'), body: payload });
      expect([method, path, answer.status, answer.body.error?.message]).toEqual([
        method,
        path,
        403,
        'Managing space permissions needs the admin role',
      ]);
    }
    // Gil, a guest, reads Top through his team's grant, but may not list who else can.
    await p.api('POST', `/spaces/${S.top}/permissions`, { body: { role: 'read', teams: [T.readers] } });
    expect((await p.api('GET', `/spaces/${S.top}`, as('gil'))).status).toBe(200);
    for (const list of ['users', 'teams', 'aggregate']) {
      expect((await p.api('GET', `/spaces/${S.top}/permissions/${list}`, as('gil'))).status).toBe(403);
      expect((await p.api('GET', `/spaces/${S.top}/permissions/${list}`, as('hana'))).status).toBe(404);
    }
    await p.api('DELETE', `/spaces/${S.top}/permissions/teams/${T.readers}`);
  });

  it('refuses a team of another organization and an unknown user, naming them', async () => {
    const other = await p.api('POST', `/spaces/${S.top}/permissions`, { body: { role: 'read', teams: [T.other] } });
    expect([other.status, other.body.error.message]).toEqual([
      404,
      `Team not found: body field "teams.0" ("${T.other}")`,
    ]);
    expect(
      (await p.api('PATCH', `/spaces/${S.top}/permissions/teams/${T.other}`, { body: { role: 'read' } })).status,
    ).toBe(404);
    expect((await p.api('PATCH', `/spaces/${S.top}/permissions/users/nobody`, { body: { role: 'read' } })).status).toBe(
      404,
    );
    expect((await p.api('GET', `/spaces/${S.top}/permissions/teams`)).body.count).toBe(0);
  });

  it('refuses an invite of more ids than one write takes, naming the limit', async () => {
    const many = Array.from({ length: 101 }, (_, i) => `user-${i}`);
    const answer = await p.api('POST', `/spaces/${S.top}/permissions`, { body: { role: 'read', users: many } });
    expect([answer.status, answer.body.error]).toEqual([
      400,
      {
        code: expect.anything(),
        message: 'Invalid body field "users": at most 100 per invite, got 101',
        limit: 'users',
        value: 101,
        max: 100,
      },
    ]);
  });

  it('gives a grant effect at once, and takes it back with its removal', async () => {
    expect((await p.api('GET', `/spaces/${S.guide}`, as('hana'))).status).toBe(404);
    await p.api('POST', `/spaces/${S.guide}/permissions`, { body: { role: 'edit', users: [users.hana.id] } });
    const read = await p.api('GET', `/spaces/${S.guide}`, as('hana'));
    expect([read.status, read.body.permissions?.edit]).toEqual([200, true]);
    await p.api('DELETE', `/spaces/${S.guide}/permissions/users/${users.hana.id}`);
    expect((await p.api('GET', `/spaces/${S.guide}`, as('hana'))).status).toBe(404);
  });
});

describe('collection team grants', () => {
  it('lists, sets and removes the teams granted on a collection', async () => {
    await p.api('POST', `/collections/${C.open}/permissions`, { body: { role: 'comment', teams: [T.writers] } });
    expect(
      (await p.api('PATCH', `/collections/${C.open}/permissions/teams/${T.readers}`, { body: { role: 'read' } }))
        .status,
    ).toBe(204);
    expect(ids((await p.api('GET', `/collections/${C.open}/permissions/teams`)).body.items)).toEqual([
      [T.readers, 'read'],
      [T.writers, 'comment'],
    ]);
    expect(
      (
        await p.api('PATCH', `/collections/${C.open}/permissions/teams/${T.readers}`, {
          ...as('cy'),
          body: { role: null },
        })
      ).status,
    ).toBe(403);
    expect((await p.api('DELETE', `/collections/${C.open}/permissions/teams/${T.readers}`)).status).toBe(205);
    // Gil's only way in was Readers: Notes, in Open, is gone for him.
    expect((await p.api('GET', `/spaces/${S.notes}`, as('gil'))).status).toBe(404);
    expect(ids((await p.api('GET', `/collections/${C.open}/permissions/teams`)).body.items)).toEqual([
      [T.writers, 'comment'],
    ]);
  });
});

describe('the aggregate', () => {
  it('answers every member with access, their role and its sources, strongest first', async () => {
    await p.api('POST', `/collections/${C.docs}/permissions`, { body: { role: 'review', teams: [T.writers] } });
    await p.api('POST', `/spaces/${S.guide}/permissions`, { body: { role: 'read', users: [users.gil.id] } });
    await p.api('POST', `/spaces/${S.guide}/permissions`, { body: { role: 'edit', users: [users.dee.id] } });
    const answer = await p.api('GET', `/spaces/${S.guide}/permissions/aggregate`);
    expect(
      answer.body.items.map((item: { user: { id: string }; permission: string; sources: unknown }) => [
        item.user.id,
        item.permission,
        item.sources,
      ]),
    ).toEqual([
      [users.ada.id, 'admin', [{ type: 'organization', role: 'admin' }]],
      [users.ben.id, 'comment', [{ type: 'default-level', role: 'comment', collection: C.docs }]],
      [
        users.cy.id,
        'review',
        [
          { type: 'collection', role: 'review', collection: C.docs, team: T.writers },
          { type: 'default-level', role: 'comment', collection: C.docs },
        ],
      ],
      [
        users.dee.id,
        'review',
        [
          { type: 'collection', role: 'review', collection: C.docs, team: T.writers },
          { type: 'direct', role: 'edit' },
          { type: 'default-level', role: 'comment', collection: C.docs },
        ],
      ],
      [users.gil.id, 'read', [{ type: 'direct', role: 'read' }]],
    ]);
    const reviewers = await p.api('GET', `/spaces/${S.guide}/permissions/aggregate`, { query: { role: 'review' } });
    expect(reviewers.body.items.map((item: { user: { id: string } }) => item.user.id)).toEqual([
      users.cy.id,
      users.dee.id,
    ]);
  });

  it('explains exactly the role Access decides, for every member on every space and collection', async () => {
    // A mix of every source: a space's own default level, a team grant on a space, grants up the chain.
    await p.api('PATCH', `/spaces/${S.notes}`, { body: { defaultLevel: 'read' } });
    await p.api('POST', `/spaces/${S.notes}/permissions`, { body: { role: 'create', teams: [T.readers] } });
    await p.api('POST', `/collections/${C.inner}/permissions`, { body: { role: 'edit', users: [users.ben.id] } });
    const members = p.db
      .prepare("SELECT u.* FROM users u JOIN members m ON m.user_id = u.id WHERE m.org_id = 'oak'")
      .all() as UserRow[];
    const spaces = p.db.prepare("SELECT * FROM spaces WHERE org_id = 'oak'").all() as SpaceRow[];
    const collections = p.db.prepare("SELECT * FROM collections WHERE org_id = 'oak'").all() as CollectionRow[];
    const explained: string[] = [];
    const decided: string[] = [];
    for (const [kind, items] of [
      ['space', spaces],
      ['collection', collections],
    ] as const) {
      for (const item of items) {
        const explain = accessExplainer(p.db, kind, item);
        for (const member of members) {
          const access = new Access(p.db, member);
          explained.push(`${kind} ${item.id} ${member.id}: ${roleOf(explain(member.id))}`);
          decided.push(
            `${kind} ${item.id} ${member.id}: ${kind === 'space' ? access.spaceRole(item) : access.collectionRole(item)}`,
          );
        }
      }
    }
    expect(explained).toEqual(decided);
    // Every kind of source was part of it.
    const roles = new Set(decided.map((line) => line.split(': ')[1]));
    expect([...roles].sort()).toEqual(['admin', 'comment', 'create', 'edit', 'null', 'read', 'review']);
  });
});
