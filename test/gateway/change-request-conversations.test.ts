import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertAgentConversation } from '../../src/platform/change-requests/agent-conversations.js';
import { changeRequest } from '../fixtures/change-requests.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';

/**
 * The AI agent conversations of a change request through the graph: listed (the shared ones and your
 * own), renamed and deleted, with the permissions of each.
 */

let g: TestGateway;
let org: TestOrg;
const users = {} as Record<'ada' | 'dee' | 'eli' | 'cole', TestUser>;
let spaceId: string;
let requestGid: string;

/** ada admin, dee and eli `edit`, cole `comment`; a change request by dee with three conversations. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'dee', 'eli', 'cole'] as const) users[key] = addUser(g.platform, key);
  org = addOrg(g.platform, {
    id: 'harbor',
    members: { ada: 'admin', dee: 'edit', eli: 'edit', cole: 'comment' },
    users,
  });
  spaceId = await org.space('Runbooks');
  const request = await changeRequest(org, spaceId, { subject: 'Failover runbook', as: 'dee' });
  requestGid = encodeGlobalID('ChangeRequest', `${spaceId}/${request.id}`);
  const at = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
  const add = (id: string, by: keyof typeof users, minutes: number, extra: { title?: string; shared?: boolean } = {}) =>
    insertAgentConversation(g.platform.db, {
      changeRequestId: request.id,
      id,
      createdBy: users[by].id,
      at: at(minutes),
      ...extra,
    });
  add('default', 'dee', 30, { title: 'Draft the failover steps' });
  add('conv-eli', 'eli', 20);
  add('conv-private', 'dee', 10, { title: 'Notes to self', shared: false });
});
afterAll(() => g.destroy());

const LIST = `query($r: ID!) { node(id: $r) { ... on ChangeRequest {
  agentConversations { totalCount nodes { conversationId title shared changeRequest { subject } } } } } }`;

async function list(as: keyof typeof users) {
  const result = await g.gql(LIST, { r: requestGid }, { token: users[as].token });
  expect(result.errors).toBeUndefined();
  return result;
}

describe('agent conversations of a change request', () => {
  it('lists the shared ones and your own, most recently changed first, in one request besides the change request', async () => {
    const byEli = await list('eli');
    expect(byEli.data.node.agentConversations).toEqual({
      totalCount: 2,
      nodes: [
        { conversationId: 'conv-eli', title: null, shared: true, changeRequest: { subject: 'Failover runbook' } },
        {
          conversationId: 'default',
          title: 'Draft the failover steps',
          shared: true,
          changeRequest: { subject: 'Failover runbook' },
        },
      ],
    });
    expect(byEli.upstreamRequests).toHaveLength(2);
    const byDee = await list('dee');
    expect(byDee.data.node.agentConversations.nodes.map((c: { conversationId: string }) => c.conversationId)).toEqual([
      'conv-private',
      'conv-eli',
      'default',
    ]);
  });

  it('renames: its creator, or the edit role for a shared one; another’s private one is not found', async () => {
    const RENAME = `mutation($r: ID!, $c: String!, $t: String!) {
      renameChangeRequestAgentConversation(input: { changeRequestId: $r, conversationId: $c, title: $t }) {
        conversation { conversationId title } changeRequest { subject } userErrors { message code field } } }`;
    const rename = async (as: keyof typeof users, c: string, t: string) =>
      (await g.gql(RENAME, { r: requestGid, c, t }, { token: users[as].token })).data
        .renameChangeRequestAgentConversation;
    expect(await rename('dee', 'conv-eli', 'Check the replica lag')).toEqual({
      conversation: { conversationId: 'conv-eli', title: 'Check the replica lag' },
      changeRequest: { subject: 'Failover runbook' },
      userErrors: [],
    });
    expect((await list('eli')).data.node.agentConversations.nodes[0]).toMatchObject({
      conversationId: 'conv-eli',
      title: 'Check the replica lag',
    });
    expect((await rename('eli', 'conv-private', 'Mine now')).userErrors).toEqual([
      { message: expect.stringContaining('Conversation not found'), code: 'NOT_FOUND', field: ['conversationId'] },
    ]);
    expect((await rename('cole', 'default', 'Hijacked')).userErrors).toEqual([
      { message: 'Only its creator or the edit role can rename a conversation', code: 'FORBIDDEN', field: null },
    ]);
    expect((await rename('dee', 'default', '   ')).userErrors).toEqual([
      { message: expect.stringContaining('must not be empty'), code: 'BAD_USER_INPUT', field: ['title'] },
    ]);
  });

  it('deletes: its creator or an admin; a conversation no longer there is not found', async () => {
    const DELETE = `mutation($r: ID!, $c: String!) {
      deleteChangeRequestAgentConversation(input: { changeRequestId: $r, conversationId: $c }) {
        deleted changeRequest { subject } userErrors { code } } }`;
    const remove = async (as: keyof typeof users, c: string) =>
      (await g.gql(DELETE, { r: requestGid, c }, { token: users[as].token })).data.deleteChangeRequestAgentConversation;
    expect(await remove('eli', 'default')).toEqual({
      deleted: false,
      changeRequest: null,
      userErrors: [{ code: 'FORBIDDEN' }],
    });
    expect(await remove('ada', 'default')).toEqual({
      deleted: true,
      changeRequest: { subject: 'Failover runbook' },
      userErrors: [],
    });
    expect((await remove('ada', 'default')).userErrors).toEqual([{ code: 'NOT_FOUND' }]);
    expect(await remove('dee', 'conv-private')).toMatchObject({ deleted: true, userErrors: [] });
    expect((await list('dee')).data.node.agentConversations.totalCount).toBe(1);
  });
});
