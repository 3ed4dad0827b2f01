import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeRequest, type SupportClusters, supportInbox } from '../fixtures/change-requests.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
/** Holds the support inbox (`supportInbox`); ben creates, he is no admin. */
let north: TestOrg;
/** North's clusters: installer errors (7 issues, linked to an open change request), card charges (muted), search. */
let inboxClusters: SupportClusters;
/** North's space whose change request addresses the installer errors. */
let space: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  north = addOrg(g.platform, { id: 'north', members: { admin: 'admin', ben: 'create' } });
  inboxClusters = await supportInbox(north);
  space = await north.space('Getting started');
  await changeRequest(north, space, {
    subject: 'Explain the most common install errors',
    cluster: inboxClusters.install,
    status: 'open',
  });
});
afterAll(() => g.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

const INGEST = `mutation ($conversations: [ConversationInput!]!) {
  ingestConversations(input: { organizationId: "north", conversations: $conversations }) {
    ingested
    conversations { platformId subject source impact issues { totalCount nodes { title impact cluster { label } } } }
    userErrors { code field message }
  }
}`;

describe('conversations and issue clusters', () => {
  it('lists the clusters of the support inbox, ordered, with their pulse and sources, in one request', async () => {
    const result = await g.gql<any>(`{ organization(id: "north") {
      issuesClusters(orderBy: ISSUES, order: DESC, first: 3) { totalCount nodes { platformId label icon muted impact weeklyPulse stats { issues conversations } sources { source count } summary { text } } }
      muted: issuesClusters(muted: true) { nodes { label muted } }
    } }`);
    expect(result.errors).toBeUndefined();
    const { issuesClusters, muted } = result.data.organization;
    const [install] = issuesClusters.nodes;
    expect(install).toMatchObject({
      platformId: inboxClusters.install,
      label: 'Install, permission denied',
      muted: false,
      impact: 'HIGH',
      stats: { issues: 7, conversations: 7 },
    });
    expect(install.weeklyPulse).toHaveLength(13);
    expect(install.weeklyPulse.reduce((sum: number, count: number) => sum + count, 0)).toBeLessThanOrEqual(7);
    expect(install.sources.reduce((sum: number, s: any) => sum + s.count, 0)).toBe(7);
    expect(install.summary.text.length).toBeGreaterThan(10);
    expect(issuesClusters.nodes.map((node: any) => node.stats.issues)).toEqual(
      [...issuesClusters.nodes.map((node: any) => node.stats.issues)].sort((a, b) => b - a),
    );
    expect(muted.nodes).toEqual([{ label: expect.any(String), muted: true }]);
    expect(result.upstreamRequests.sort()).toEqual(
      [
        'GET /v1/orgs/north',
        'GET /v1/orgs/north/conversations-clusters?limit=3&order=desc&orderBy=issues',
        'GET /v1/orgs/north/conversations-clusters?limit=50&muted=true',
      ].sort(),
    );
  });

  it('links clusters, issues, conversations and change requests both ways', async () => {
    const data = await ok(
      `query ($install: ID!) { organization(id: "north") { issuesCluster(id: $install) {
      id label
      issues(first: 2) { totalCount nodes { id title cluster { platformId } conversation { platformId source parts { type role body } metadata { attributes } } } }
      changeRequests { nodes { number subject conversationsIssuesClusterId conversationsIssuesCluster { label } } }
    } } }`,
      { install: inboxClusters.install },
    );
    const cluster = data.organization.issuesCluster;
    expect(cluster.issues.totalCount).toBe(7);
    const [issue] = cluster.issues.nodes;
    expect(issue.cluster.platformId).toBe(inboxClusters.install);
    expect(issue.conversation.parts.some((part: any) => part.role === 'user')).toBe(true);
    expect(new Set(issue.conversation.parts.map((part: any) => part.type))).toEqual(new Set(['MESSAGE']));
    expect(cluster.changeRequests.nodes).toEqual([
      {
        number: 1,
        subject: 'Explain the most common install errors',
        conversationsIssuesClusterId: inboxClusters.install,
        conversationsIssuesCluster: { label: cluster.label },
      },
    ]);
    // Every node is found again by its global ID.
    const again = await ok(
      `query ($c: ID!, $i: ID!) {
      cluster: node(id: $c) { ... on IssuesCluster { platformId } }
      issue: node(id: $i) { ... on ConversationIssue { title conversation { id } } }
    }`,
      { c: cluster.id, i: issue.id },
    );
    expect(again).toMatchObject({ cluster: { platformId: inboxClusters.install }, issue: { title: issue.title } });
    const conversation = await ok(
      `query ($id: ID!) { node(id: $id) { ... on Conversation { platformId issues { totalCount } } } }`,
      { id: again.issue.conversation.id },
    );
    expect(conversation.node.platformId).toBe(issue.conversation.platformId);
    expect(conversation.node.issues.totalCount).toBeGreaterThanOrEqual(1);
    // Lookups by id: the real ids even when only they are asked, NOT_FOUND for none.
    const byId = await ok(
      `query ($c: ID!, $install: ID!) { organization(id: "north") { a: issuesCluster(id: $install) { id platformId } b: issuesCluster(id: $c) { platformId } } }`,
      { c: cluster.id, install: inboxClusters.install },
    );
    expect(byId.organization).toEqual({
      a: { id: cluster.id, platformId: inboxClusters.install },
      b: { platformId: inboxClusters.install },
    });
    const none = await g.gql<any>(`{ organization(id: "north") { issuesCluster(id: "no-such-cluster") { id } } }`);
    expect(none.data.organization.issuesCluster).toBeNull();
    expect(none.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
    const open = await ok(
      `query ($c: ID!) { organization(id: "north") { issuesCluster(id: $c) { changeRequests(status: OPEN) { totalCount } } } }`,
      { c: cluster.id },
    );
    expect(open.organization.issuesCluster.changeRequests.totalCount).toBe(1);
    // The issues of a cluster are the issues of the organization filtered by it.
    const filtered = await ok(
      `query ($c: ID!) { organization(id: "north") { conversationIssues(clusterId: $c) { totalCount } } }`,
      { c: cluster.id },
    );
    expect(filtered.organization.conversationIssues.totalCount).toBe(7);
  });

  it('ingests conversations into issues and clusters; the same conversation twice is one conversation', async () => {
    const conversations = [
      {
        id: 'gw-ticket-1',
        subject: 'Installer fails',
        source: 'gateway-test',
        metadata: { url: 'https://support.example.com/t/1', attributes: { plan: 'pro' } },
        parts: [
          {
            role: 'user',
            body: 'The installer fails with permission denied when I run it on Ubuntu. I cannot install anything.',
          },
          { role: 'agent', body: 'Which version of the installer do you run?' },
          {
            role: 'user',
            body: 'Version 3.2. Also, separately, the API answers 429 rate limit errors on every request after a minute.',
          },
        ],
      },
      {
        id: 'gw-ticket-2',
        source: 'gateway-test',
        parts: [{ role: 'user', body: 'How do I change the color of the sidebar in the theme settings?' }],
      },
    ];
    const first = await ok(INGEST, { conversations });
    expect(first.ingestConversations.ingested).toBe(2);
    const [ticket] = first.ingestConversations.conversations;
    expect(ticket).toMatchObject({ platformId: 'gw-ticket-1', subject: 'Installer fails', source: 'gateway-test' });
    // Two problems in one conversation: two issues, in the clusters of their kind.
    expect(ticket.issues.totalCount).toBe(2);
    const labels = ticket.issues.nodes.map((issue: any) => issue.cluster?.label ?? '');
    expect(labels.some((label: string) => /install|permission/i.test(label))).toBe(true);
    expect(labels.some((label: string) => /429|limit|rate|api/i.test(label))).toBe(true);

    await ok(INGEST, { conversations: [{ ...conversations[0], subject: 'Installer fails (reopened)' }] });
    // An id with characters that need encoding is found by its global ID too.
    const odd = await ok(INGEST, {
      conversations: [
        {
          id: 'ticket#1:é',
          source: 'gateway-test',
          parts: [{ role: 'user', body: 'The search finds nothing for my query.' }],
        },
      ],
    });
    const oddId = (
      await ok(
        `{ organization(id: "north") { conversations(source: "gateway-test", first: 1) { nodes { id platformId } } } }`,
      )
    ).organization.conversations.nodes[0];
    expect(oddId.platformId).toBe('ticket#1:é');
    const byGlobalId = await ok(
      `query ($id: ID!) { organization(id: "north") { conversation(id: $id) { platformId } conversationIssues(conversationId: $id) { totalCount } } }`,
      { id: oddId.id },
    );
    expect(byGlobalId.organization).toEqual({
      conversation: { platformId: 'ticket#1:é' },
      conversationIssues: { totalCount: 1 },
    });
    expect(odd.ingestConversations.ingested).toBe(1);
    const listed = await ok(
      `{ organization(id: "north") { conversations(source: "gateway-test") { totalCount nodes { platformId subject } } } }`,
    );
    expect(listed.organization.conversations.totalCount).toBe(3);
    expect(listed.organization.conversations.nodes.find((c: any) => c.platformId === 'gw-ticket-1').subject).toBe(
      'Installer fails (reopened)',
    );
  });

  it('refuses bad ingests before any request, and ingests by non-admins', async () => {
    const bad = await g.gql<any>(INGEST, {
      conversations: [
        { id: 'a b', parts: [] },
        { id: 'x', parts: [{ role: 'user', body: 'hi' }] },
        { id: 'x', parts: [{ role: 'user', body: 'hi' }] },
      ],
    });
    expect(bad.upstream).toBe(0);
    expect(bad.data.ingestConversations.userErrors.map((error: any) => error.field.join('.'))).toEqual([
      'conversations.0.id',
      'conversations.0.parts',
      'conversations',
    ]);
    const member = await g.gql<any>(
      INGEST,
      { conversations: [{ id: 'nope', parts: [{ role: 'user', body: 'hi' }] }] },
      { token: north.token('ben') },
    );
    expect(member.data.ingestConversations.userErrors).toEqual([
      { code: 'FORBIDDEN', field: null, message: expect.any(String) },
    ]);
  });

  it('mutes a cluster: no new change request may address it until it is unmuted', async () => {
    const { organization } = await ok(
      `{ organization(id: "north") { issuesClusters(orderBy: ISSUES) { nodes { id platformId label muted } } } }`,
    );
    const target = organization.issuesClusters.nodes.find(
      (node: any) => !node.muted && node.platformId !== inboxClusters.install,
    );
    const muted = await ok(
      `mutation ($id: ID!) { setIssuesClusterMuted(input: { clusterId: $id, muted: true }) { cluster { muted } userErrors { code } } }`,
      { id: target.id },
    );
    expect(muted.setIssuesClusterMuted.cluster.muted).toBe(true);
    const refused = await g.gql<any>(
      `mutation ($space: ID!, $cluster: ID!) { createChangeRequest(input: { spaceId: $space, subject: "Fix it", conversationsIssuesClusterId: $cluster }) { userErrors { code field } } }`,
      { space, cluster: target.id },
    );
    expect(refused.data.createChangeRequest.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['conversationsIssuesClusterId'] },
    ]);
    await ok(
      `mutation ($org: ID!, $id: ID!) { setIssuesClusterMuted(input: { organizationId: $org, clusterId: $id, muted: false }) { cluster { muted } userErrors { code } } }`,
      { org: 'north', id: target.platformId },
    );
    const created = await ok(
      `mutation ($space: ID!, $cluster: ID!) { createChangeRequest(input: { spaceId: $space, subject: "Fix it", conversationsIssuesClusterId: $cluster }) { changeRequest { id conversationsIssuesCluster { platformId } } userErrors { code } } }`,
      { space, cluster: target.id },
    );
    expect(created.createChangeRequest.changeRequest.conversationsIssuesCluster).toEqual({
      platformId: target.platformId,
    });
    const unlinked = await ok(
      `mutation ($id: ID!) { updateChangeRequest(input: { changeRequestId: $id, conversationsIssuesClusterId: null }) { changeRequest { conversationsIssuesCluster { platformId } } userErrors { code } } }`,
      { id: created.createChangeRequest.changeRequest.id },
    );
    expect(unlinked.updateChangeRequest.changeRequest.conversationsIssuesCluster).toBeNull();
    const unknown = await g.gql<any>(
      `mutation ($space: ID!) { createChangeRequest(input: { spaceId: $space, conversationsIssuesClusterId: "no-such-cluster" }) { userErrors { code field } } }`,
      { space },
    );
    expect(unknown.data.createChangeRequest.userErrors).toEqual([
      { code: 'NOT_FOUND', field: ['conversationsIssuesClusterId'] },
    ]);
  });
});
