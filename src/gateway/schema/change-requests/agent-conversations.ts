import { z } from 'zod';
import * as op from '../../upstream/contract/operations.js';
import type { AgentConversation } from '../../upstream/contract/types.js';
import { deleteOf, listOf } from '../../upstream/operation.js';
import { builder } from '../kit/builder.js';
import { listConnection, mapNodes } from '../kit/connections.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { deletedPayload, payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { ChangeRequestNode, changeRequestLink } from './change-request.js';
import { afterWrite, requestField, resolveTarget, targetFields, type RequestAfter } from './target.js';

/**
 * The AI agent conversations of a change request (`ChangeRequest.agentConversations`): the editing
 * sessions held in its context, and the mutations that rename and delete one.
 */

type ConversationHeld = AgentConversation & { spaceId: string; changeRequestId: string };

const AgentConversationType = builder.objectRef<ConversationHeld>('ChangeRequestAgentConversation').implement({
  description:
    'A conversation with the AI agent held in the context of a change request: an editing session that contributed to it.',
  fields: (t) => ({
    conversationId: t.exposeString('id', {
      description: 'Its id, chosen by the client that started it (`default` for the change request’s first).',
    }),
    title: t.string({
      nullable: true,
      description: 'Its title; null until one is generated or given.',
      resolve: (c) => c.title ?? null,
    }),
    shared: t.exposeBoolean('shared', {
      description:
        'True when everyone who reads the change request sees it; false when only its creator does, for good.',
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it began.', resolve: (c) => c.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (c) => c.updatedAt }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      description: 'The change request it was held in.',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) => changeRequestLink(c.spaceId, c.changeRequestId, info),
    }),
  }),
});

const AgentConversationConnection = builder.connectionObject(
  {
    type: AgentConversationType,
    name: 'ChangeRequestAgentConversationConnection',
    description: 'A page of agent conversations, most recently changed first.',
  },
  { name: 'ChangeRequestAgentConversationEdge', description: 'An agent conversation, with its cursor.' },
);

builder.objectFields(ChangeRequestNode, (t) => ({
  agentConversations: t.connection(
    {
      type: AgentConversationType,
      description:
        'The conversations with the AI agent held in its context that you may see (the shared ones and yours), most recently changed first.',
      extensions: upstream.fetch(1),
      resolve: async (r, args, ctx) => {
        const list = await listConnection(
          args,
          listOf(ctx.api, op.listChangeRequestConversations, { spaceId: r.space, changeRequestId: r.id }),
        );
        return mapNodes(list, (items) => items.map((item) => ({ ...item, spaceId: r.space, changeRequestId: r.id })));
      },
    },
    AgentConversationConnection,
  ),
}));

const conversationId = inputField(
  'String',
  'The conversation’s id (`ChangeRequestAgentConversation.conversationId`).',
  z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
);

declareMutation('renameChangeRequestAgentConversation', {
  description:
    'Renames an agent conversation of a change request (its creator; a shared one, anyone with the edit role on the space).',
  input: 'The change request, the conversation and its new title.',
  fields: {
    ...targetFields,
    conversationId,
    title: inputField(
      'String',
      'The new title (1 to 256 characters).',
      z.string().trim().min(1, 'must not be empty').max(256, 'must be at most 256 characters'),
    ),
  },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    payloadType<{ conversation: ConversationHeld; changeRequest: RequestAfter }>(name, (t) => ({
      conversation: t.field({
        type: AgentConversationType,
        nullable: true,
        description: 'The conversation after the change.',
        resolve: (p) => p.conversation ?? null,
      }),
      changeRequest: t.field(requestField('The change request.')),
    })),
  run: async ({ spaceId, changeRequestId, conversationId: id, title }, ctx) => {
    const { data } = await ctx.api.write(
      op.updateChangeRequestConversation,
      { spaceId, changeRequestId, conversationId: id },
      { body: { title } },
    );
    return {
      conversation: { ...data, spaceId, changeRequestId },
      changeRequest: afterWrite(spaceId, changeRequestId),
    };
  },
});

declareMutation('deleteChangeRequestAgentConversation', {
  description: 'Deletes an agent conversation of a change request (its creator, or an admin of the space).',
  input: 'The change request and the conversation.',
  fields: { ...targetFields, conversationId },
  check: (input) => input.transform(resolveTarget),
  payload: (name) =>
    deletedPayload<{ changeRequest: RequestAfter }>(
      name,
      'True when the conversation was deleted (one that is not there, or that you may not see, is a NOT_FOUND user error).',
      (t) => ({ changeRequest: t.field(requestField('The change request.')) }),
    ),
  run: async ({ spaceId, changeRequestId, conversationId: id }, ctx) => ({
    ...(await deleteOf(ctx.api, op.deleteChangeRequestConversation, { spaceId, changeRequestId, conversationId: id })),
    changeRequest: afterWrite(spaceId, changeRequestId),
  }),
});
