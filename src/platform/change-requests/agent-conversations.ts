import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { atLeast } from '../access.js';
import {
  forbidden,
  laterThan,
  notFound,
  now,
  pageOf,
  pageQuery,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
} from '../http.js';
import { declareTables, type Db } from '../store/db.js';
import { requestOf } from './routes.js';

/**
 * The AI agent conversations of a change request: the editing sessions an assistant had in its
 * context, each with a client-chosen id (`default` for the change request's first), a title once
 * one is given, shared with everyone who reads the change request or private to its creator for
 * good. This platform runs no agent: conversations come from the demo data (and from whatever
 * stores them); its API lists them, renames them and deletes them.
 */

declareTables('agent-conversations', [
  `
  CREATE TABLE IF NOT EXISTS change_request_agent_conversations (
    change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    title TEXT,
    shared INTEGER NOT NULL DEFAULT 1 CHECK (shared IN (0, 1)),
    created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (change_request_id, id)
  );
  `,
]);

export interface AgentConversationRow {
  change_request_id: string;
  id: string;
  title: string | null;
  shared: number;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

/** Longest title of a conversation. */
export const MAX_CONVERSATION_TITLE = 256;

export function agentConversationJson(row: AgentConversationRow) {
  return {
    object: 'agent-conversation' as const,
    id: row.id,
    ...(row.title !== null ? { title: row.title } : {}),
    shared: row.shared === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Stores a conversation of a change request (the demo's; an agent's, where one runs). */
export function insertAgentConversation(
  db: Db,
  fields: { changeRequestId: string; id: string; title?: string; shared?: boolean; createdBy: string; at?: string },
): AgentConversationRow {
  const at = fields.at ?? now();
  const row: AgentConversationRow = {
    change_request_id: fields.changeRequestId,
    id: fields.id,
    title: fields.title ?? null,
    shared: Number(fields.shared ?? true),
    created_by: fields.createdBy,
    created_at: at,
    updated_at: at,
  };
  db.prepare(
    `INSERT INTO change_request_agent_conversations (change_request_id, id, title, shared, created_by, created_at, updated_at)
     VALUES (@change_request_id, @id, @title, @shared, @created_by, @created_at, @updated_at)`,
  ).run(row);
  return row;
}

/** What `userId` sees of a change request's conversations: the shared ones and their own. */
const VISIBLE = 'change_request_id = ? AND (shared = 1 OR created_by = ?)';

type ConversationParams = { spaceId: string; changeRequestId: string; conversationId: string };

const renameBody = z.strictObject({
  title: z
    .string({ message: 'is required' })
    .trim()
    .min(1, 'must not be empty')
    .max(MAX_CONVERSATION_TITLE, `must be at most ${MAX_CONVERSATION_TITLE} characters`),
});

/**
 * The routes of a change request's agent conversations: members read the shared ones and their own;
 * a conversation is renamed by its creator (or, shared, by the edit role), deleted by its creator or
 * an admin of the space.
 */
export function agentConversationRoutes(app: FastifyInstance): void {
  const find = (db: Db, requestId: string, userId: string, id: string) =>
    db
      .prepare(`SELECT * FROM change_request_agent_conversations WHERE ${VISIBLE} AND id = ?`)
      .get(requestId, userId, id) as AgentConversationRow | undefined;

  app.get<{ Params: { spaceId: string; changeRequestId: string } }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/conversations',
    async (request) => {
      const query = parseQuery(pageQuery, request.query);
      const { changeRequest } = requestOf(request, request.params);
      const { db, user } = request.ctx;
      const window = pageWindow(query);
      const count = db
        .prepare(`SELECT COUNT(*) FROM change_request_agent_conversations WHERE ${VISIBLE}`)
        .pluck(true)
        .get(changeRequest.id, user.id) as number;
      const rows = db
        .prepare(
          `SELECT * FROM change_request_agent_conversations WHERE ${VISIBLE}
           ORDER BY updated_at DESC, id LIMIT ? OFFSET ?`,
        )
        .all(changeRequest.id, user.id, window.limit, window.offset) as AgentConversationRow[];
      return pageOf(rows.map(agentConversationJson), count, window);
    },
  );

  app.patch<{ Params: ConversationParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/conversations/:conversationId',
    async (request) => {
      const body = parseBody(renameBody, request.body);
      const { changeRequest, role } = requestOf(request, request.params);
      const { db, user } = request.ctx;
      return db.transaction(() => {
        const row = find(db, changeRequest.id, user.id, request.params.conversationId);
        if (!row) throw notFound('Conversation');
        if (row.created_by !== user.id && !atLeast(role, 'edit'))
          throw forbidden('Only its creator or the edit role can rename a conversation');
        const updated = { ...row, title: body.title, updated_at: laterThan(row.updated_at) };
        db.prepare(
          'UPDATE change_request_agent_conversations SET title = ?, updated_at = ? WHERE change_request_id = ? AND id = ?',
        ).run(updated.title, updated.updated_at, row.change_request_id, row.id);
        return agentConversationJson(updated);
      })();
    },
  );

  app.delete<{ Params: ConversationParams }>(
    '/spaces/:spaceId/change-requests/:changeRequestId/conversations/:conversationId',
    async (request, reply) => {
      const { changeRequest, role } = requestOf(request, request.params);
      const { db, user } = request.ctx;
      const deleted = db.transaction(() => {
        // The description documents no 204 here: a conversation that is not there is a 404.
        const row = find(db, changeRequest.id, user.id, request.params.conversationId);
        if (!row) throw notFound('Conversation');
        if (row.created_by !== user.id && !atLeast(role, 'admin'))
          throw forbidden('Only its creator or an admin of the space can delete a conversation');
        db.prepare('DELETE FROM change_request_agent_conversations WHERE change_request_id = ? AND id = ?').run(
          row.change_request_id,
          row.id,
        );
        return true;
      })();
      return sendDeleted(reply, deleted);
    },
  );
}
