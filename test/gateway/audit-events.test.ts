import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * Audit events through the graph: `Organization.auditEvents` with its filters and pages, an event's actor
 * and target linked to their nodes, its details, `auditEventActions`, `node(id:)`, and admins alone.
 */

let g: TestGateway;
let org: TestOrg;
let spaceId: string;
let teamId: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: 'ledgerly', title: 'Ledgerly', members: { ada: 'admin', ben: 'create' } });
  teamId = await org.team('Finance');
});
afterAll(() => g.destroy());

const EVENTS = /* GraphQL */ `
  query AuditEventsPage($org: ID!, $first: Int, $after: String, $action: String, $actor: String, $target: String) {
    organization(id: $org) {
      auditEvents(first: $first, after: $after, action: $action, actor: $actor, target: $target) {
        totalCount
        pageInfo { hasNextPage endCursor }
        nodes {
          action
          source
          actor { type platformId label user { displayName } }
          target { type platformId label node { __typename ... on Space { title } ... on Team { title } } }
        }
      }
    }
  }
`;

describe('Organization.auditEvents', () => {
  it('records a write made through the graph, linked to its actor and target', async () => {
    const created = await g.gql(
      `mutation ($org: ID!) { createSpace(input: { organizationId: $org, title: "Ledger" }) { space { platformId } userErrors { message } } }`,
      { org: org.id },
      { token: org.token('ben') },
    );
    expect(created.data.createSpace.userErrors).toEqual([]);
    spaceId = created.data.createSpace.space.platformId;
    const result = await g.gql(EVENTS, { org: org.id, first: 1, actor: org.user('ben').id });
    expect(result.errors).toBeUndefined();
    expect(result.data.organization.auditEvents).toEqual({
      totalCount: 1,
      pageInfo: { hasNextPage: false, endCursor: expect.any(String) },
      nodes: [
        {
          action: 'space.created',
          source: 'API',
          actor: { type: 'USER', platformId: org.user('ben').id, label: 'Ben', user: { displayName: 'Ben' } },
          target: {
            type: 'space',
            platformId: spaceId,
            label: 'Ledger',
            node: { __typename: 'Space', title: 'Ledger' },
          },
        },
      ],
    });
    // The organization, the page, the user, the space.
    expect(result.upstream).toBe(4);
  });

  it('filters by action and target and pages newest first', async () => {
    const teams = await g.gql(EVENTS, { org: org.id, action: 'team.created', target: teamId });
    expect(teams.data.organization.auditEvents.nodes).toEqual([
      expect.objectContaining({
        action: 'team.created',
        actor: expect.objectContaining({ type: 'USER', platformId: org.user('ada').id }),
        target: { type: 'team', platformId: teamId, label: 'Finance', node: { __typename: 'Team', title: 'Finance' } },
      }),
    ]);
    const all = await g.gql(EVENTS, { org: org.id, first: 200 });
    const total = all.data.organization.auditEvents.totalCount;
    expect(all.data.organization.auditEvents.nodes).toHaveLength(total);
    expect(all.data.organization.auditEvents.nodes[0].action).toBe('space.created');
    const first = await g.gql(EVENTS, { org: org.id, first: 2 });
    const next = await g.gql(EVENTS, {
      org: org.id,
      first: 2,
      after: first.data.organization.auditEvents.pageInfo.endCursor,
    });
    expect(next.data.organization.auditEvents.nodes[0]).toEqual(all.data.organization.auditEvents.nodes[2]);
  });

  it('reads an event’s details and refetches it by its global ID', async () => {
    const listed = await g.gql(
      `query ($org: ID!) { organization(id: $org) { auditEvents(first: 1) { nodes { id platformId correlationId executionId schemaVersion payload } } } }`,
      { org: org.id },
    );
    const [event] = listed.data.organization.auditEvents.nodes;
    expect(event).toMatchObject({ schemaVersion: 1, payload: {}, correlationId: expect.any(String) });
    expect(event.id).toBe(encodeGlobalID('AuditEvent', `${org.id}/${event.platformId}`));
    const again = await g.gql(
      `query ($id: ID!) { node(id: $id) { ... on AuditEvent { action payload organization { platformId } } } }`,
      { id: event.id },
    );
    expect(again.data.node).toEqual({ action: 'space.created', payload: {}, organization: { platformId: org.id } });
    expect(again.upstream).toBe(1);
  });

  it('lists the actions with their labels', async () => {
    const result = await g.gql(`query ($org: ID!) { organization(id: $org) { auditEventActions { action label } } }`, {
      org: org.id,
    });
    expect(result.data.organization.auditEventActions).toContainEqual({
      action: 'space.created',
      label: 'Space created',
    });
  });

  it('refuses members who are not admins', async () => {
    const result = await g.gql(
      `query ($org: ID!) { organization(id: $org) { auditEvents(first: 1) { totalCount } auditEventActions { action } } }`,
      { org: org.id },
      { token: org.token('ben') },
    );
    expect(result.data.organization).toEqual({ auditEvents: null, auditEventActions: null });
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
  });
});

describe('auditEventsAdded', () => {
  it('sends the newest events, then again after a write made since subscribing; refuses a non-admin', async () => {
    // A live hub polling often: the test waits on the events it sends, never on time.
    const live = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 50 },
    });
    const server = createServer(live.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const sub = await subscribe(
        url,
        `subscription ($org: ID!) { auditEventsAdded(organizationId: $org) {
          totalCount organization { platformId } events { action actor { platformId } target { platformId label } } } }`,
        { token: org.token('ada'), variables: { org: org.id } },
      );
      const initial = (await sub.next()).data.auditEventsAdded;
      expect(initial.organization).toEqual({ platformId: org.id });
      const renamed = await g.platform.api('PATCH', `/orgs/${org.id}/teams/${teamId}`, {
        token: org.token('ada'),
        body: { title: 'Finance and audit' },
      });
      expect(renamed.status).toBe(200);
      const added = (await sub.next()).data.auditEventsAdded;
      expect(added.totalCount).toBe(initial.totalCount + 1);
      expect(added.events[0]).toEqual({
        action: 'team.updated',
        actor: { platformId: org.user('ada').id },
        target: { platformId: teamId, label: 'Finance and audit' },
      });
      expect(added.events.slice(1)).toEqual(initial.events.slice(0, added.events.length - 1));
      sub.close();
      const refused = await subscribe(
        url,
        `subscription ($org: ID!) { auditEventsAdded(organizationId: $org) { totalCount } }`,
        { token: org.token('ben'), variables: { org: org.id } },
      );
      const answer = await refused.next().catch((error: unknown) => ({ error: String(error) }));
      expect(JSON.stringify(answer)).toContain('FORBIDDEN');
      refused.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await live.close();
    }
  });
});
