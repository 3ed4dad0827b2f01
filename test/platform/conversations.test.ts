import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_PENDING_JOB, queuePendingClustering } from '../../src/platform/conversations/resume.js';
import { changeRequest, type SupportClusters, supportInbox } from '../fixtures/change-requests.js';
import { largeBatch } from '../fixtures/hostile-corpus.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

// Conversations over HTTP: ingest (one or many, idempotent by id), issues, clusters, muting,
// who may do what, bad input, a support inbox and change requests linked to clusters.

/** North holds the support inbox (`supportInbox`); South starts with no conversation. */
const acme = 'north';
const globex = 'south';

let p: TestPlatform;
let north: TestOrg;
/** North's clusters: installer errors (linked to an open change request), card charges (muted), search. */
let inboxClusters: SupportClusters;
/** North's space whose open change request addresses the installer errors. */
let spaceId: string;
/** Member keys: admin of both; ben creates, dee edits, finn reads and gus is a guest in North; hana edits in South. */
const U = { ben: 'ben', dee: 'dee', finn: 'finn', gus: 'gus', hana: 'hana', ivy: 'ivy' };
const tokens: Record<string, string> = {};

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  north = addOrg(p, {
    id: acme,
    members: { admin: 'admin', ben: 'create', dee: 'edit', finn: 'read', gus: null },
  });
  const south = addOrg(p, {
    id: globex,
    members: { admin: 'admin', hana: 'edit' },
    users: { admin: north.user('admin') },
  });
  for (const key of ['ben', 'dee', 'finn', 'gus']) tokens[key] = north.token(key);
  tokens.hana = south.token('hana');
  tokens.ivy = addUser(p, 'ivy').token;
  inboxClusters = await supportInbox(north);
  spaceId = await north.space('Getting started');
  await changeRequest(north, spaceId, {
    subject: 'Explain the most common install errors',
    cluster: inboxClusters.install,
    status: 'open',
  });
});

afterAll(async () => {
  await p?.destroy();
});

const as = (key: string) => ({ token: tokens[key] });

/** A support chat: the user's messages, each answered by an agent. */
function chat(id: string, messages: string[], extra: Record<string, unknown> = {}) {
  return {
    id,
    metadata: {
      url: `https://support.example.test/c/${id}`,
      attributes: { plan: 'pro' },
      createdAt: '2025-01-15T10:00:00Z',
    },
    parts: messages.flatMap((body) => [
      { type: 'message', role: 'user', body },
      { type: 'message', role: 'assistant', body: 'Thanks, we are looking into it.' },
    ]),
    ...extra,
  };
}

async function ingest(org: string, body: unknown, token?: string) {
  return p.api('POST', `/orgs/${org}/conversations`, { body, ...(token ? { token } : {}) });
}

describe('ingesting conversations', () => {
  it('ingests the same conversation twice as one conversation, with the same issues', async () => {
    const conversation = chat('twice-1', ['The export to PDF drops every image of our pages.'], {
      subject: 'PDF export without images',
      source: 'intercom',
    });
    expect((await ingest(globex, conversation)).status).toBe(204);
    const first = await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: 'twice-1' } });
    expect((await ingest(globex, conversation)).status).toBe(204);
    expect((await ingest(globex, [conversation, conversation])).status).toBe(204);

    const listed = await p.api('GET', `/orgs/${globex}/conversations`);
    expect(listed.body.items.filter((item: { id: string }) => item.id === 'twice-1')).toHaveLength(1);
    const again = await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: 'twice-1' } });
    expect(again.body).toEqual(first.body);
    expect(again.body.count).toBe(1);

    const detail = await p.api('GET', `/orgs/${globex}/conversations/twice-1`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      conversation: {
        object: 'conversation',
        id: 'twice-1',
        subject: 'PDF export without images',
        createdAt: '2025-01-15T10:00:00.000Z',
        processedAt: expect.any(String),
        source: 'intercom',
        impact: 'low',
        urls: {
          location: `${p.url}/orgs/${globex}/conversations/twice-1`,
          source: 'https://support.example.test/c/twice-1',
        },
      },
      parts: conversation.parts,
      metadata: {
        url: 'https://support.example.test/c/twice-1',
        attributes: { plan: 'pro' },
        createdAt: '2025-01-15T10:00:00Z',
      },
    });

    const { issue } = again.body.items[0];
    expect(issue).toEqual({
      object: 'conversation-issue',
      id: expect.any(String),
      title: 'PDF export without images',
      details: {
        object: 'document',
        data: { schemaVersion: 1 },
        nodes: [
          {
            object: 'block',
            type: 'paragraph',
            key: expect.any(String),
            data: {},
            nodes: [expect.objectContaining({ object: 'text' })],
          },
        ],
      },
      impact: 'low',
      createdAt: '2025-01-15T10:00:00.000Z',
      ingestedAt: expect.any(String),
      conversation: 'twice-1',
      cluster: expect.any(String),
      urls: { location: `${p.url}/orgs/${globex}/conversations-issues/${issue.id}` },
    });
    expect(again.body.items[0].conversation).toEqual(detail.body.conversation);
    expect((await p.api('GET', `/orgs/${globex}/conversations-issues/${issue.id}`)).body).toEqual(again.body.items[0]);
  });

  it('updates a conversation ingested again with other text: its issues are found again, its old cluster goes when empty', async () => {
    await ingest(globex, chat('update-1', ['Dark mode would be lovely in the editor toolbar.']));
    const before = (await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: 'update-1' } }))
      .body.items;
    expect(before).toHaveLength(1);
    const oldCluster = before[0].issue.cluster;

    await ingest(
      globex,
      chat(
        'update-1',
        [
          'Our webhook secret rotation breaks signature verification.',
          'Also, the sidebar search box overlaps the logo on tablets.',
        ],
        { source: 'email' },
      ),
    );
    const after = (await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: 'update-1' } }))
      .body.items;
    expect(after.map((item: { issue: { title: string } }) => item.issue.title).sort()).toEqual([
      'Our webhook secret rotation breaks signature verification.',
      'The sidebar search box overlaps the logo on tablets.',
    ]);
    expect(after[0].conversation.source).toBe('email');
    expect((await p.api('GET', `/orgs/${globex}/conversations-clusters/${oldCluster}`)).status).toBe(404);
    expect(
      (await p.api('GET', `/orgs/${globex}/conversations`, { query: { source: 'email' } })).body.items.map(
        (item: { id: string }) => item.id,
      ),
    ).toContain('update-1');

    // Twice in one batch with other text: the later one wins.
    expect(
      (
        await ingest(globex, [
          chat('update-2', ['The editor freezes when pasting a table.']),
          chat('update-2', ['Invoices show the wrong company address.']),
        ])
      ).status,
    ).toBe(204);
    const batch = (await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: 'update-2' } }))
      .body.items;
    expect(
      batch.map((item: { issue: { title: string; cluster: string } }) => [item.issue.title, typeof item.issue.cluster]),
    ).toEqual([['Invoices show the wrong company address.', 'string']]);
  });

  it('clusters similar complaints together across ingests, and counts them per source and week', async () => {
    const complaints = [
      ['rate-1', 'slack', 'The API returns 429 too many requests when we sync at night.'],
      ['rate-2', 'email', 'Our integration hits the API rate limit, every call fails with 429.'],
      ['rate-3', 'email', 'We still get 429 rate limit errors from the API after waiting.'],
    ] as const;
    await ingest(
      globex,
      complaints.slice(0, 2).map(([id, source, text]) => ({
        ...chat(id, [text]),
        source,
        metadata: { createdAt: new Date().toISOString() },
      })),
    );
    const clusterOf = async (id: string) =>
      (await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { conversation: id } })).body.items[0].issue
        .cluster as string;
    const cluster = await clusterOf('rate-1');
    expect(await clusterOf('rate-2')).toBe(cluster);
    // A later ingest joins the existing cluster.
    const [id, source, text] = complaints[2];
    await ingest(globex, {
      ...chat(id, [text]),
      source,
      metadata: { createdAt: new Date(Date.now() - 8 * 24 * 60 * 60 * 1000).toISOString() },
    });
    expect(await clusterOf('rate-3')).toBe(cluster);

    const read = (await p.api('GET', `/orgs/${globex}/conversations-clusters/${cluster}`)).body;
    expect(read).toMatchObject({
      object: 'issues-cluster',
      id: cluster,
      icon: 'code',
      muted: false,
      impact: 'medium',
      sources: { email: 2, slack: 1 },
      stats: { issues: 3, conversations: 3 },
      urls: { location: `${p.url}/orgs/${globex}/conversations-clusters/${cluster}` },
    });
    expect(read.label).toMatch(/429|API|limit/);
    expect(read.weeklyPulse).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2]);
    expect(read.summary).toMatchObject({ object: 'document', nodes: [{ type: 'paragraph' }, { type: 'paragraph' }] });
    const issues = await p.api('GET', `/orgs/${globex}/conversations-issues`, { query: { cluster } });
    expect(issues.body.items.map((item: { conversation: { id: string } }) => item.conversation.id).sort()).toEqual([
      'rate-1',
      'rate-2',
      'rate-3',
    ]);
  });

  it('answers 400 naming the field for bad input, and bounds the batch', async () => {
    const bad = async (body: unknown) => {
      const answer = await ingest(globex, body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.error.message as string;
    };
    expect(await bad({ parts: [{ type: 'message', role: 'user', body: 'x' }] })).toBe(
      'Invalid body field "id": is required: the id of the conversation in its source',
    );
    expect(await bad({ id: 'a/b', parts: [{ type: 'message', role: 'user', body: 'x' }] })).toMatch(
      /^Invalid body field "id": must not contain slashes/,
    );
    expect(await bad({ id: 'x', parts: [] })).toBe('Invalid body field "parts": must hold at least one message');
    expect(await bad([chat('ok', ['fine']), { id: 'y', parts: [{ type: 'note', role: 'user', body: 'x' }] }])).toBe(
      'Invalid body field "1.parts.0.type": must be message',
    );
    expect(await bad({ id: 'x', parts: [{ type: 'message', role: 'user', body: 'x'.repeat(20_001) }] })).toBe(
      'Invalid body field "parts.0.body": must be at most 20000 characters',
    );
    expect(
      await bad({
        id: 'x',
        metadata: { createdAt: 'yesterday' },
        parts: [{ type: 'message', role: 'user', body: 'x' }],
      }),
    ).toMatch(/^Invalid body field "metadata.createdAt"/);
    expect(
      await bad({
        id: 'x',
        metadata: { url: 'javascript:alert(1)' },
        parts: [{ type: 'message', role: 'user', body: 'x' }],
      }),
    ).toMatch(/^Invalid body field "metadata.url"/);
    expect(
      await bad({ id: 'x', source: 'Not A Source', parts: [{ type: 'message', role: 'user', body: 'x' }] }),
    ).toMatch(/^Invalid body field "source"/);
    expect(await bad({ id: 'x', extra: 1, parts: [{ type: 'message', role: 'user', body: 'x' }] })).toBe(
      'Invalid body field "extra": is not a known field',
    );
    expect(await bad([])).toMatch(/^Invalid body: must be a conversation or an array/);
    expect(await bad(Array.from({ length: 101 }, (_, index) => chat(`many-${index}`, ['x'])))).toMatch(
      /at most 100 conversations/,
    );
    expect(await bad('text')).toMatch(/^Invalid body/);
    // Budgets of text: per conversation, and per ingest.
    const long = (id: string, parts: number) => ({
      id,
      parts: Array.from({ length: parts }, () => ({ type: 'message', role: 'user', body: 'x'.repeat(20_000) })),
    });
    expect(await bad(long('long', 6))).toBe(
      'Invalid body field "parts": the subject and messages hold 120000 characters, more than one conversation may (limit "conversation characters": 120000, at most 100000)',
    );
    expect(await bad(Array.from({ length: 21 }, (_, index) => long(`heavy-${index}`, 5)))).toBe(
      'Invalid body: the conversations hold 2100000 characters, more than one ingest may (limit "ingest characters": 2100000, at most 2000000); send the others in further requests',
    );
    // Nothing of a refused batch was ingested.
    expect((await p.api('GET', `/orgs/${globex}/conversations/ok`)).status).toBe(404);
  });
});

describe('large ingests', () => {
  it('ingests 100 conversations of 10 KB (1 MB) and clusters every issue, two such ingests at once', async () => {
    const before = (await p.api('GET', `/orgs/${globex}/conversations`, { query: { limit: 1 } })).body.count as number;
    const [first, second] = [largeBatch('large-a', 100), largeBatch('large-b', 100)];
    expect(JSON.stringify(first).length).toBeGreaterThan(1_000_000);
    const answers = await Promise.all([ingest(globex, first), ingest(globex, second)]);
    expect(answers.map((answer) => answer.status)).toEqual([204, 204]);
    expect((await p.api('GET', `/orgs/${globex}/conversations`, { query: { limit: 1 } })).body.count).toBe(
      before + 200,
    );
    const count = (sql: string) => p.db.prepare(sql).pluck(true).get(globex) as number;
    const issues = count(
      "SELECT COUNT(*) FROM conversation_issues WHERE org_id = ? AND conversation_id LIKE 'large-%'",
    );
    expect(issues).toBeGreaterThanOrEqual(200);
    expect(
      count(
        "SELECT COUNT(DISTINCT conversation_id) FROM conversation_issues WHERE org_id = ? AND conversation_id LIKE 'large-%'",
      ),
    ).toBe(200);
    // Every issue in a cluster, and every cluster's count its issues'.
    expect(count('SELECT COUNT(*) FROM conversation_issues WHERE org_id = ? AND cluster_id IS NULL')).toBe(0);
    expect(count('SELECT COUNT(*) FROM conversation_issues WHERE org_id = ?')).toBe(
      count('SELECT SUM(issue_count) FROM conversation_clusters WHERE org_id = ?'),
    );
    const read = await p.api('GET', `/orgs/${globex}/conversations/large-b-99`);
    expect(read.body.parts.length).toBe(second[99]!.parts.length);
  });
});

describe('an ingest a restart interrupted', () => {
  it('has the issues it left without a cluster clustered at the next start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'conversations-restart-'));
    const first = await startTestPlatform({ dataDir, seed: false });
    addOrg(first, { id: globex, members: { admin: 'admin' } });
    const count = (platform: TestPlatform, sql: string) => platform.db.prepare(sql).pluck(true).get(globex) as number;
    try {
      expect(
        (await first.api('POST', `/orgs/${globex}/conversations`, { body: largeBatch('restart', 5) })).status,
      ).toBe(204);
      // What a restart between an ingest's writes and its clustering leaves: issues without a cluster.
      first.db
        .prepare(
          "UPDATE conversation_issues SET cluster_id = NULL WHERE org_id = ? AND conversation_id LIKE 'restart-%'",
        )
        .run(globex);
      first.db
        .prepare(
          'DELETE FROM conversation_clusters WHERE org_id = ? AND id NOT IN (SELECT cluster_id FROM conversation_issues WHERE org_id = ? AND cluster_id IS NOT NULL)',
        )
        .run(globex, globex);
      expect(
        count(first, 'SELECT COUNT(*) FROM conversation_issues WHERE org_id = ? AND cluster_id IS NULL'),
      ).toBeGreaterThanOrEqual(5);
    } finally {
      await first.destroy();
    }
    const second = await startTestPlatform({ dataDir, seed: false });
    try {
      await second.app.jobs.drain();
      expect(count(second, 'SELECT COUNT(*) FROM conversation_issues WHERE org_id = ? AND cluster_id IS NULL')).toBe(0);
      expect(count(second, 'SELECT COUNT(*) FROM conversation_issues WHERE org_id = ?')).toBe(
        count(second, 'SELECT SUM(issue_count) FROM conversation_clusters WHERE org_id = ?'),
      );
    } finally {
      await second.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the clustering resumed at start', () => {
  it('runs once per organization when the restart interrupted one: the resumed job is not queued again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'conversations-resume-'));
    const first = await startTestPlatform({ dataDir, seed: false });
    addOrg(first, { id: globex, members: { admin: 'admin' } });
    try {
      expect((await first.api('POST', `/orgs/${globex}/conversations`, { body: largeBatch('resume', 3) })).status).toBe(
        204,
      );
      // A clustering job that was running when the platform stopped, and the issues it left.
      first.db
        .prepare(
          "UPDATE conversation_issues SET cluster_id = NULL WHERE org_id = ? AND conversation_id LIKE 'resume-%'",
        )
        .run(globex);
      first.db
        .prepare(
          `INSERT INTO jobs (kind, key, payload, state, attempts, max_attempts, run_after, created_at)
           VALUES (?, ?, ?, 'running', 1, 1, 0, ?)`,
        )
        .run(CLUSTER_PENDING_JOB, `conversations:${globex}`, JSON.stringify({ organizationId: globex }), '2026-01-01');
    } finally {
      await first.destroy();
    }
    const second = await startTestPlatform({ dataDir, seed: false });
    try {
      queuePendingClustering(second.db, second.app.jobs);
      await second.app.jobs.drain();
      const jobs = second.db
        .prepare('SELECT state FROM jobs WHERE kind = ? AND key = ?')
        .pluck(true)
        .all(CLUSTER_PENDING_JOB, `conversations:${globex}`);
      expect(jobs).toEqual(['done']);
      expect(
        second.db
          .prepare('SELECT COUNT(*) FROM conversation_issues WHERE org_id = ? AND cluster_id IS NULL')
          .pluck(true)
          .get(globex),
      ).toBe(0);
    } finally {
      await second.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('who may do what', () => {
  it('lets admins ingest, editors mute, members read; guests and outsiders see nothing', async () => {
    const conversation = chat('rights-1', ['The search page shows no results for any word.']);
    expect((await ingest(acme, conversation, tokens.ben)).status).toBe(403);
    expect((await ingest(globex, conversation, tokens.hana)).status).toBe(403);
    expect((await ingest(acme, conversation)).status).toBe(204);
    const clusters = await p.api('GET', `/orgs/${acme}/conversations-clusters`, as(U.finn));
    expect(clusters.status).toBe(200);
    const cluster = clusters.body.items[0].id;
    expect(
      (
        await p.api('PATCH', `/orgs/${acme}/conversations-clusters/${cluster}`, {
          ...as(U.finn),
          body: { muted: true },
        })
      ).status,
    ).toBe(403);
    expect((await p.api('GET', `/orgs/${acme}/conversations`, as(U.gus))).status).toBe(403);
    expect((await p.api('GET', `/orgs/${acme}/conversations`, as(U.ivy))).status).toBe(404);
    expect((await p.api('GET', `/orgs/${acme}/conversations/rights-1`, as(U.hana))).status).toBe(404);
  });
});

describe('clusters', () => {
  it('mutes and unmutes a cluster, filters and orders the list', async () => {
    const all = (await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { limit: 1000 } })).body;
    const target = all.items.find(
      (item: { muted: boolean; id: string }) => !item.muted && item.id !== inboxClusters.install,
    );
    const path = `/orgs/${acme}/conversations-clusters/${target.id}`;
    const muted = await p.api('PATCH', path, { token: tokens.dee, body: { muted: true } });
    expect(muted.status).toBe(200);
    expect(muted.body).toMatchObject({ id: target.id, muted: true });
    expect(muted.body.updatedAt > target.updatedAt).toBe(true);
    const mutedOnes = (
      await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { muted: true } })
    ).body.items.map((item: { id: string }) => item.id);
    expect(mutedOnes).toContain(target.id);
    expect((await p.api('PATCH', path, { body: { muted: false } })).body.muted).toBe(false);
    expect((await p.api('PATCH', path, { body: { muted: 'yes' } })).body.error.message).toBe(
      'Invalid body field "muted": must be true or false',
    );
    expect((await p.api('PATCH', path, { body: {} })).status).toBe(400);
    expect(
      (await p.api('PATCH', `/orgs/${acme}/conversations-clusters/missing`, { body: { muted: true } })).status,
    ).toBe(404);

    const ordered = async (query: Record<string, string>) =>
      (await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { ...query, limit: 1000 } })).body
        .items as Array<Record<string, any>>;
    const byUpdate = await ordered({});
    expect(byUpdate.map((item) => item.updatedAt)).toEqual(
      [...byUpdate.map((item) => item.updatedAt)].sort().reverse(),
    );
    const byIssues = await ordered({ orderBy: 'issues', order: 'desc' });
    expect(byIssues.map((item) => item.stats.issues)).toEqual(
      [...byIssues.map((item) => item.stats.issues)].sort((a, b) => b - a),
    );
    const oldestFirst = await ordered({ orderBy: 'createdAt', order: 'asc' });
    expect(oldestFirst.map((item) => item.createdAt)).toEqual([...oldestFirst.map((item) => item.createdAt)].sort());
    const byImpact = await ordered({ orderBy: 'impact' });
    const rank = { high: 2, medium: 1, low: 0 } as Record<string, number>;
    expect(byImpact.map((item) => rank[item.impact])).toEqual(
      [...byImpact.map((item) => rank[item.impact]!)].sort((a, b) => b - a),
    );
    expect(
      (await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { orderBy: 'label' } })).body.error.message,
    ).toMatch(/^Invalid query field "orderBy"/);

    const page = await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { limit: 2 } });
    expect(page.body.items).toHaveLength(2);
    const next = await p.api('GET', `/orgs/${acme}/conversations-clusters`, {
      query: { limit: 2, page: page.body.next.page },
    });
    expect(next.body.items[0].id).toBe(byUpdate[2]!.id);
  });
});

describe('a support inbox', () => {
  it('has its 13 conversations from four sources forming three clusters, one muted', async () => {
    const conversations = (await p.api('GET', `/orgs/${acme}/conversations`, { query: { limit: 1000 } })).body;
    const inbox = conversations.items.filter((item: { id: string }) => !item.id.startsWith('rights-'));
    expect(inbox).toHaveLength(13);
    expect(new Set(inbox.map((item: { source: string }) => item.source))).toEqual(
      new Set(['intercom', 'slack', 'email', 'docs-feedback']),
    );
    const slack = (await p.api('GET', `/orgs/${acme}/conversations`, { query: { source: 'slack' } })).body.items;
    expect(slack.filter((item: { id: string }) => !item.id.startsWith('rights-'))).toHaveLength(3);
    expect(slack.every((item: { source: string }) => item.source === 'slack')).toBe(true);

    const listed = (
      await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { orderBy: 'issues', limit: 3 } })
    ).body.items;
    // The installer errors first; then card charges (4 issues) and search (3, 4 once `rights-1` joined it).
    expect(listed[0].id).toBe(inboxClusters.install);
    expect(new Set(listed.map((cluster: { id: string }) => cluster.id))).toEqual(
      new Set([inboxClusters.install, inboxClusters.billing, inboxClusters.search]),
    );
    expect(listed.every((cluster: { stats: { issues: number } }) => cluster.stats.issues >= 3)).toBe(true);
    expect(
      listed.filter((cluster: { muted: boolean }) => cluster.muted).map((cluster: { icon: string }) => cluster.icon),
    ).toEqual(['credit-card']);
    const install = (await p.api('GET', `/orgs/${acme}/conversations-clusters/${inboxClusters.install}`)).body;
    expect(install).toMatchObject({
      id: inboxClusters.install,
      label: 'Install, permission denied',
      icon: 'download',
      muted: false,
      impact: 'high',
      stats: { issues: 7, conversations: 7 },
    });
    expect(install.weeklyPulse).toHaveLength(13);
    expect(install.weeklyPulse.reduce((sum: number, count: number) => sum + count, 0)).toBe(7);
    expect(install.sources).toEqual({ 'docs-feedback': 1, email: 2, intercom: 2, slack: 2 });

    // A conversation raising two problems has two issues, in two clusters.
    const two = (await p.api('GET', `/orgs/${acme}/conversations-issues`, { query: { conversation: 'two-problems' } }))
      .body.items;
    expect(two).toHaveLength(2);
    expect(new Set(two.map((item: { issue: { cluster: string } }) => item.issue.cluster))).toEqual(
      new Set([inboxClusters.install, inboxClusters.billing]),
    );
  });
});

describe('change requests and clusters', () => {
  it('links a change request to the installer-errors cluster, and filters by cluster', async () => {
    const linked = await p.api('GET', `/spaces/${spaceId}/change-requests`, {
      query: { conversationsIssuesCluster: inboxClusters.install },
    });
    expect(linked.body.items.map((item: { subject: string }) => item.subject)).toEqual([
      'Explain the most common install errors',
    ]);
    const org = await p.api('GET', `/orgs/${acme}/change-requests`, {
      query: { conversationsIssuesCluster: inboxClusters.install },
    });
    expect(org.body.count).toBe(1);
    expect(
      (
        await p.api('GET', `/orgs/${acme}/change-requests`, {
          query: { conversationsIssuesCluster: 'no-such-cluster' },
        })
      ).body.count,
    ).toBe(0);
  });

  it('checks the cluster a change request is created or updated with', async () => {
    const clusters = (await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { limit: 1000 } })).body
      .items;
    const open = clusters.find(
      (cluster: { muted: boolean; id: string }) => !cluster.muted && cluster.id !== inboxClusters.install,
    );
    const muted = clusters.find((cluster: { muted: boolean }) => cluster.muted);

    const missing = await p.api('POST', `/spaces/${spaceId}/change-requests`, {
      body: { subject: 'x', conversationsIssuesCluster: 'nope' },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe(
      'Issue cluster not found: body field "conversationsIssuesCluster" ("nope")',
    );
    const refused = await p.api('POST', `/spaces/${spaceId}/change-requests`, {
      body: { subject: 'x', conversationsIssuesCluster: muted.id },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(
      /^Invalid body field "conversationsIssuesCluster": the issue cluster .* is muted/,
    );
    // A cluster of another organization is none of this one's.
    const elsewhere = (await p.api('GET', `/orgs/${globex}/conversations-clusters`)).body.items[0].id;
    expect(
      (
        await p.api('POST', `/spaces/${spaceId}/change-requests`, {
          body: { subject: 'x', conversationsIssuesCluster: elsewhere },
        })
      ).status,
    ).toBe(404);

    const created = await p.api('POST', `/spaces/${spaceId}/change-requests`, {
      body: { subject: 'Explain rate limits', conversationsIssuesCluster: open.id },
    });
    expect(created.status).toBe(201);
    expect(created.body.conversationsIssuesCluster).toBe(open.id);
    const path = `/spaces/${spaceId}/change-requests/${created.body.id}`;
    expect((await p.api('PATCH', path, { body: { conversationsIssuesCluster: 'nope' } })).status).toBe(404);
    const moved = await p.api('PATCH', path, { body: { conversationsIssuesCluster: inboxClusters.install } });
    expect(moved.body.conversationsIssuesCluster).toBe(inboxClusters.install);
    const drafts = await p.api('GET', `/spaces/${spaceId}/change-requests`, {
      query: { status: 'draft', conversationsIssuesCluster: inboxClusters.install },
    });
    expect(drafts.body.items.map((item: { id: string }) => item.id)).toEqual([created.body.id]);
    const unlinked = await p.api('PATCH', path, { body: { conversationsIssuesCluster: null } });
    expect(unlinked.status).toBe(200);
    expect(unlinked.body.conversationsIssuesCluster).toBeUndefined();
  });
});
