import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneAuditEvents } from '../../src/platform/audit/events.js';
import { enableIntegration, installIntegration, publishIntegration } from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { buildSite } from '../fixtures/sites.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

/**
 * Audit events: every write through any route (a core table, a module table) and of a job is recorded once,
 * with its actor and target, in the writing transaction; failed writes and reads record nothing; admins alone
 * list them, with filters and pages.
 */

let p: TestPlatform;
let org: TestOrg;

const events = async (query: Record<string, string | number> = {}, token = org.token('ada')) =>
  p.api('GET', `/orgs/${org.id}/audit-events`, { token, query });
/** Run inside the next answer of the platform to a request whose URL it matches (the request's own context). */
let duringAnswer: { url: string; run: () => void } | undefined;
const eventCount = () =>
  p.db.prepare('SELECT COUNT(*) FROM audit_events WHERE org_id = ?').pluck(true).get(org.id) as number;

beforeAll(async () => {
  // A retention shorter than the default: the pruning job must use the platform's setting.
  p = await startTestPlatform({
    seed: false,
    auditRetentionDays: 30,
    onAnswer: ({ url }) => {
      if (duringAnswer && url.startsWith(duringAnswer.url)) {
        const { run } = duringAnswer;
        duringAnswer = undefined;
        run();
      }
    },
  });
  org = addOrg(p, { id: 'ledgerly', title: 'Ledgerly', members: { ada: 'admin', ben: 'create', cy: 'read' } });
});
afterAll(() => p.destroy());

describe('writes are recorded', () => {
  it('records a space created through its route once, as its caller, with the request id as correlation', async () => {
    const before = eventCount();
    const created = await p.api('POST', `/orgs/${org.id}/spaces`, {
      token: org.token('ben'),
      body: { title: 'Handbook' },
      headers: { 'x-request-id': 'req-handbook' },
    });
    expect(created.status).toBe(201);
    expect(eventCount()).toBe(before + 1);
    const page = await events({ limit: 1 });
    expect(page.status).toBe(200);
    const [event] = page.body.items;
    expect(event).toMatchObject({
      object: 'audit-event',
      action: 'space.created',
      actor: { type: 'user', id: org.user('ben').id, label: 'Ben' },
      source: 'api',
      target: { type: 'space', id: created.body.id, label: 'Handbook' },
    });
    const details = await p.api('GET', `/orgs/${org.id}/audit-events/${event.id}`, { token: org.token('ada') });
    expect(details.body).toMatchObject({ correlationId: 'req-handbook', schemaVersion: 1, payload: {} });
    expect(details.body.executionId).toEqual(expect.any(String));
  });

  it('records an update only for the columns it follows, with the fields changed', async () => {
    const spaceId = await org.space('Notes');
    const before = eventCount();
    const patched = await p.api('PATCH', `/spaces/${spaceId}`, { token: org.token('ada'), body: { title: 'Notes 2' } });
    expect(patched.status).toBe(200);
    expect(eventCount()).toBe(before + 1);
    const [event] = (await events({ limit: 1, action: 'space.updated' })).body.items;
    expect(event.target).toEqual({ type: 'space', id: spaceId, label: 'Notes 2' });
    const details = await p.api('GET', `/orgs/${org.id}/audit-events/${event.id}`, { token: org.token('ada') });
    expect(details.body.payload).toEqual({ changed: ['title'] });
  });

  it('records a module table written through its route (the glossary)', async () => {
    const before = eventCount();
    const put = await p.api('PUT', `/orgs/${org.id}/translations-glossary`, {
      token: org.token('ada'),
      body: { operations: [{ type: 'insert', translations: { en: 'ledger', fr: 'grand livre' } }] },
    });
    expect(put.status).toBe(204);
    expect(eventCount()).toBe(before + 1);
    const [event] = (await events({ limit: 1 })).body.items;
    expect(event).toMatchObject({ action: 'glossary_entry.created', actor: { id: org.user('ada').id } });
  });

  it('records a grant on a site as on a space: permission granted, with the site and the grantee', async () => {
    const site = await buildSite(org, { title: 'Ledgerly Docs', publish: false });
    const before = eventCount();
    const invite = await p.api('POST', `/orgs/${org.id}/sites/${site.id}/permissions`, {
      token: org.token('ada'),
      body: { role: 'admin', users: [org.user('cy').id] },
    });
    expect(invite.status).toBe(204);
    expect(eventCount()).toBe(before + 1);
    const [event] = (await events({ limit: 1 })).body.items;
    expect(event).toMatchObject({
      action: 'permission.granted',
      target: { type: 'permission', id: site.id, label: 'Ledgerly Docs' },
    });
    const details = await p.api('GET', `/orgs/${org.id}/audit-events/${event.id}`, { token: org.token('ada') });
    expect(details.body.payload).toEqual({
      contentType: 'site',
      principalType: 'user',
      principalId: org.user('cy').id,
      role: 'admin',
    });
  });

  it('records a job’s writes as the system’s, from a workflow, even when a request queued it', async () => {
    const teamId = await org.team('Finance');
    p.app.jobs.register<{ teamId: string }>('test-rename-team', {
      run: async ({ teamId: id }, { db }) => {
        db.prepare('UPDATE teams SET title = ? WHERE id = ?').run('Finance ops', id);
      },
    });
    // Queued from inside a request's handling: the job must not inherit the caller.
    await new Promise<void>((resolve) => {
      p.api('GET', `/orgs/${org.id}`, { token: org.token('ben') }).then(() => resolve());
      p.app.jobs.enqueue('test-rename-team', { teamId }, { key: 'test' });
    });
    await p.app.jobs.drain();
    const [event] = (await events({ limit: 1, action: 'team.updated' })).body.items;
    expect(event).toMatchObject({
      actor: { type: 'system', id: 'system' },
      source: 'workflow',
      target: { type: 'team', id: teamId, label: 'Finance ops' },
    });
  });
});

describe('the actor of an installation token', () => {
  it('records a write made during a request of an installation token as the installation’s, from an integration', async () => {
    const spaceId = await org.space('Integrated');
    const teamId = await org.team('Integrators');
    await publishIntegration(org, 'ledger-sync', { title: 'Ledger sync', scopes: ['space:content:read'] });
    const installation = await installIntegration(org, 'ledger-sync');
    await enableIntegration(org, 'ledger-sync', installation, { space: spaceId });
    const made = await p.api('POST', `/integrations/ledger-sync/installations/${installation}/tokens`, {
      token: org.token('ada'),
    });
    expect(made.body.token).toMatch(/^gbi_/);
    // An installation token may only read spaces: no route writes for it yet. A write made inside its request
    // (as a route of its would) stands for one.
    duringAnswer = {
      url: `/v1/spaces/${spaceId}`,
      run: () => p.db.prepare('UPDATE teams SET title = ? WHERE id = ?').run('Integrators 2', teamId),
    };
    const before = eventCount();
    const read = await p.api('GET', `/spaces/${spaceId}`, { token: made.body.token });
    expect(read.status).toBe(200);
    expect(duringAnswer).toBeUndefined();
    expect(eventCount()).toBe(before + 1);
    const [event] = (await events({ limit: 1 })).body.items;
    expect(event).toMatchObject({
      action: 'team.updated',
      actor: { type: 'installation', id: installation, label: 'Ledger sync' },
      source: 'integration',
      target: { type: 'team', id: teamId, label: 'Integrators 2' },
    });
  });
});

describe('failed writes and reads record nothing', () => {
  it('records nothing for a refused body, a forbidden write, a rolled-back batch or a read', async () => {
    const before = eventCount();
    const invalid = await p.api('POST', `/orgs/${org.id}/spaces`, { token: org.token('ada'), body: { title: 42 } });
    expect(invalid.status).toBe(400);
    const forbidden = await p.api('PUT', `/orgs/${org.id}/teams`, { token: org.token('cy'), body: { title: 'X' } });
    expect(forbidden.status).toBe(403);
    // The first operation inserts, the second fails: the batch rolls back, and its event with it.
    const rolledBack = await p.api('PUT', `/orgs/${org.id}/translations-glossary`, {
      token: org.token('ada'),
      body: {
        operations: [
          { type: 'insert', translations: { en: 'invoice' } },
          { type: 'delete', id: 'no-such-entry' },
        ],
      },
    });
    expect(rolledBack.status).toBe(400);
    expect(
      p.db.prepare("SELECT COUNT(*) FROM glossary_entries WHERE translations LIKE '%invoice%'").pluck(true).get(),
    ).toBe(0);
    expect((await p.api('GET', `/orgs/${org.id}/spaces`, { token: org.token('ada') })).status).toBe(200);
    expect((await events()).status).toBe(200);
    expect(eventCount()).toBe(before);
  });
});

describe('cascades', () => {
  /** The events a write recorded: action and target, in the order recorded. */
  async function recorded(write: () => Promise<{ status: number }>) {
    const before = p.db.prepare('SELECT max(seq) FROM audit_events WHERE org_id = ?').pluck(true).get(org.id);
    expect((await write()).status).toBe(205);
    return p.db
      .prepare(
        'SELECT action, target_type, target_id, actor_id FROM audit_events WHERE org_id = ? AND seq > ? ORDER BY seq',
      )
      .all(org.id, before) as Array<{ action: string; target_type: string; target_id: string; actor_id: string }>;
  }
  const pair = (action: string, type: string, id: string) => ({ action, target_type: type, target_id: id });

  it('records deleting a team with members once, as the team’s deletion, with the grants it held', async () => {
    const teamId = await org.team('Auditors', ['ben', 'cy']);
    const collection = await org.collection('Audit files');
    await org.grant({ collection }, 'edit', { teams: [teamId] });
    const events = await recorded(() =>
      p.api('DELETE', `/orgs/${org.id}/teams/${teamId}`, { token: org.token('ada') }),
    );
    expect(events.map(({ actor_id, ...event }) => event)).toEqual([
      pair('permission.revoked', 'permission', collection),
      pair('team.deleted', 'team', teamId),
    ]);
    expect(new Set(events.map((event) => event.actor_id))).toEqual(new Set([org.user('ada').id]));
  });

  it('records deleting a collection with children: each collection removed, each space trashed, each grant', async () => {
    const top = await org.collection('Archive');
    const nested = await org.collection('Archive 2019', { parent: top });
    const outer = await org.space('Archive index', { parent: top });
    const inner = await org.space('Archive ledger', { parent: nested });
    await org.grant({ collection: top }, 'read', { users: ['cy'] });
    const events = await recorded(() => p.api('DELETE', `/collections/${top}`, { token: org.token('ada') }));
    // Children go first (the cascade runs inside the parent's deletion); the spaces in the order SQLite visits them.
    const byTarget = (a: { target_id: string }, b: { target_id: string }) => a.target_id.localeCompare(b.target_id);
    expect(events.slice(0, 2).sort(byTarget)).toEqual(
      [
        { ...pair('space.trashed', 'space', outer), actor_id: org.user('ada').id },
        { ...pair('space.trashed', 'space', inner), actor_id: org.user('ada').id },
      ].sort(byTarget),
    );
    expect(events.slice(2).map(({ actor_id, ...event }) => event)).toEqual([
      pair('permission.revoked', 'permission', top),
      pair('collection.deleted', 'collection', nested),
      pair('collection.deleted', 'collection', top),
    ]);
    // No event for the trashed spaces' move to the root, which only keeps them restorable.
  });

  it('records deleting a space as its move to the trash alone', async () => {
    const spaceId = await org.space('Scratch');
    const events = await recorded(() => p.api('DELETE', `/spaces/${spaceId}`, { token: org.token('ada') }));
    expect(events.map(({ actor_id, ...event }) => event)).toEqual([pair('space.trashed', 'space', spaceId)]);
  });
});

describe('reading events', () => {
  it('filters by actor, action, target and time, newest first, in pages', async () => {
    const all = (await events({ limit: 100 })).body;
    expect(all.count).toBe(eventCount());
    const times = all.items.map((event: { occurredAt: string }) => event.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);

    const ben = (await events({ actor: org.user('ben').id })).body;
    expect(ben.items.map((event: { action: string }) => event.action)).toEqual(['space.created']);
    const handbook = ben.items[0].target.id;
    expect((await events({ target: handbook })).body.count).toBe(1);
    expect((await events({ action: 'glossary_entry.created' })).body.count).toBe(1);
    expect((await events({ from: '2999-01-01T00:00:00Z' })).body.count).toBe(0);
    expect((await events({ to: '2000-01-01T00:00:00Z' })).body.count).toBe(0);

    const first = (await events({ limit: 2 })).body;
    expect(first.items).toHaveLength(2);
    const second = (await events({ limit: 2, page: first.next.page })).body;
    expect(second.items[0].id).toBe(all.items[2].id);
  });

  it('refuses a limit over 100 and a bad time, naming them', async () => {
    const over = await events({ limit: 101 });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toMatch(/limit/);
    const bad = await events({ from: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/from/);
  });

  it('lists the actions with their labels', async () => {
    const answer = await p.api('GET', `/orgs/${org.id}/audit-event-actions`, { token: org.token('ada') });
    expect(answer.body.items).toContainEqual({
      object: 'audit-event-action',
      id: 'member.role_updated',
      label: 'Member role updated',
    });
    expect(answer.body.items).toContainEqual({
      object: 'audit-event-action',
      id: 'space.created',
      label: 'Space created',
    });
  });

  it('refuses everyone but admins', async () => {
    expect((await events({}, org.token('ben'))).status).toBe(403);
    expect((await p.api('GET', `/orgs/${org.id}/audit-event-actions`, { token: org.token('cy') })).status).toBe(403);
    const outsider = addOrg(p, { id: 'other', members: { zed: 'admin' } });
    expect((await events({}, outsider.token('zed'))).status).toBe(404);
  });

  it('answers 404 for an event of another organization', async () => {
    const [event] = (await events({ limit: 1 })).body.items;
    const outsider = addOrg(p, { id: 'third', members: { yan: 'admin' } });
    const answer = await p.api('GET', `/orgs/${outsider.id}/audit-events/${event.id}`, {
      token: outsider.token('yan'),
    });
    expect(answer.status).toBe(404);
    // An id this platform never made (no sequence number in it) is not found either.
    const unknown = await p.api('GET', `/orgs/${org.id}/audit-events/${crypto.randomUUID()}`, {
      token: org.token('ada'),
    });
    expect(unknown.status).toBe(404);
  });
});

describe('retention', () => {
  it('prunes, in the job the platform queues, the events older than its configured retention', async () => {
    const [kept] = (await events({ limit: 1 })).body.items;
    const day = 24 * 60 * 60 * 1000;
    p.db
      .prepare(
        `INSERT INTO audit_events (id, org_id, seq, occurred_at, action, actor_type, actor_id, source, target_type,
           target_id, correlation_id, execution_id, payload)
         VALUES (?, ?, 0, ?, 'team.created', 'system', 'system', 'script', 'team', 't', 'c', 'e', '{}')`,
      )
      .run('old-event', org.id, new Date(Date.now() - 31 * day).toISOString());
    p.app.jobs.enqueue('audit-prune', {}, { key: 'audit-prune' });
    await p.app.jobs.drain();
    const ids = p.db.prepare('SELECT id FROM audit_events WHERE org_id = ?').pluck(true).all(org.id);
    expect(ids).not.toContain('old-event');
    expect(ids).toContain(kept.id);
  });

  it('prunes events older than the retention', () => {
    expect(eventCount()).toBeGreaterThan(0);
    pruneAuditEvents(p.db, 30, Date.now() + 31 * 24 * 60 * 60 * 1000);
    expect(eventCount()).toBe(0);
  });
});
