import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { atLeast, type Role } from '../access.js';
import {
  badRequest,
  forbidden,
  laterThan,
  newId,
  notFound,
  notFoundInBody,
  now,
  overContentLimit,
  overLimit,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
  type PageWindow,
} from '../http.js';
import type { Links } from '../links.js';
import type { MemberRow, SpaceRow, UserRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { getDocument, loadRevision } from '../content/revisions.js';
import { pageIndex } from '../content/pages.js';
import { parseMarkdownOffThread } from '../content/markdown-parser.js';
import { userOrDeleted } from '../users/json.js';
import { memberJson } from '../members/json.js';
import { CONDITIONAL } from '../conditional.js';
import { recordContribution, requireChangeRequest } from '../change-requests/store.js';
import {
  ContentLimitError,
  DocumentValidationError,
  heading,
  parseDocumentInput,
  type JSONDocument,
} from '../../document/model.js';
import { documentToMarkdown, markdownToDocument } from '../../document/markdown.js';

/**
 * Comments: threads on a space's content (the space, a page, a block of a page) and on a change
 * request's content, each with its replies and emoji reactions, resolved and reopened. Bodies are
 * documents, given and read as JSON or as markdown (as pages are). A comment anchored to a page
 * keeps its anchor while its page (and block) is in the content it was posted on: the space's
 * current content, or its change request's, whatever merges brought; once they are gone, its
 * `target.revision` stays the last revision it was posted or seen in, which tells a reader that it
 * is outdated. Members read comments; those with the comment role post them and react; the author
 * or an admin of the space edits, resolves and deletes one.
 */

// `comments_open` is the `comments` count of spaces and change requests: open top-level comments,
// kept by every write here (as `change_requests_open` is by the change requests).
declareTables('comments', [
  `
  CREATE TABLE IF NOT EXISTS comments (
    id TEXT PRIMARY KEY,
    space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
    change_request_id TEXT REFERENCES change_requests(id) ON DELETE CASCADE,
    page_id TEXT,
    node_id TEXT,
    table_cell TEXT,
    revision TEXT NOT NULL,
    body TEXT NOT NULL,
    posted_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    posted_at TEXT NOT NULL,
    edited_at TEXT,
    resolved_at TEXT,
    resolved_by TEXT REFERENCES users(id) ON DELETE SET NULL
  );
  CREATE INDEX IF NOT EXISTS comments_by_space ON comments(space_id, change_request_id, posted_at);
  CREATE TABLE IF NOT EXISTS comment_replies (
    id TEXT PRIMARY KEY,
    comment_id TEXT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
    body TEXT NOT NULL,
    posted_by TEXT REFERENCES users(id) ON DELETE SET NULL,
    posted_at TEXT NOT NULL,
    edited_at TEXT
  );
  CREATE INDEX IF NOT EXISTS comment_replies_by_comment ON comment_replies(comment_id, posted_at);
  CREATE TABLE IF NOT EXISTS comment_reactions (
    subject_id TEXT NOT NULL,
    emoji TEXT NOT NULL,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reacted_at TEXT NOT NULL,
    PRIMARY KEY (subject_id, emoji, user_id)
  );
  ALTER TABLE spaces ADD COLUMN comments_open INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE change_requests ADD COLUMN comments_open INTEGER NOT NULL DEFAULT 0;
  `,
]);

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** Largest body of a comment or a reply, as markdown or as JSON, in UTF-8 bytes. */
export const MAX_COMMENT_BYTES = 64 * 1024;
/** Reactions one update adds or removes, and the longest one. */
export const MAX_REACTIONS_PER_UPDATE = 20;
const MAX_REACTION_CHARS = 32;

const bodyInput = z.union(
  [z.strictObject({ markdown: z.string() }), z.strictObject({ document: z.unknown() }), z.strictObject({})],
  { message: 'must be { markdown }, { document } or {}' },
);
type BodyInput = z.infer<typeof bodyInput>;

/**
 * The document of a body as given, within `MAX_COMMENT_BYTES` and the document budgets; markdown is
 * parsed as a page's is, off the request thread, and a leading `# heading` stays in the body (a
 * page would take it as its title). An empty body is refused: a comment says something.
 */
async function documentOf(input: BodyInput, field: string): Promise<JSONDocument> {
  const over = (bytes: number) =>
    overLimit(
      `Invalid body field "${field}": a comment body has at most ${MAX_COMMENT_BYTES} bytes, got ${bytes}`,
      { limit: 'commentBytes', value: bytes, max: MAX_COMMENT_BYTES },
      413,
    );
  let document: JSONDocument;
  try {
    if ('markdown' in input) {
      const bytes = Buffer.byteLength(input.markdown);
      if (bytes > MAX_COMMENT_BYTES) throw over(bytes);
      const tree = await parseMarkdownOffThread(input.markdown);
      const read = markdownToDocument(input.markdown, { tree });
      document = read.document;
      if (read.title) document.nodes.unshift(heading(1, read.title));
    } else if ('document' in input) {
      const bytes = Buffer.byteLength(JSON.stringify(input.document ?? null));
      if (bytes > MAX_COMMENT_BYTES) throw over(bytes);
      document = parseDocumentInput(input.document);
    } else {
      throw badRequest(`Invalid body field "${field}": must not be empty`);
    }
  } catch (error) {
    if (error instanceof ContentLimitError)
      throw overContentLimit(`Invalid body field "${field}": ${error.message}`, error);
    if (error instanceof DocumentValidationError) throw badRequest(`Invalid body field "${field}": ${error.message}`);
    throw error;
  }
  if (document.nodes.length === 0) throw badRequest(`Invalid body field "${field}": must not be empty`);
  return document;
}

type Format = 'document' | 'markdown';

/** A stored body as the API answers it: `{ document }`, or `{ markdown }` (references as stable ids). */
function bodyJson(stored: string, format: Format) {
  const document = JSON.parse(stored) as JSONDocument;
  return format === 'markdown' ? { markdown: documentToMarkdown(document) } : { document };
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

export interface CommentRow {
  id: string;
  space_id: string;
  change_request_id: string | null;
  page_id: string | null;
  node_id: string | null;
  table_cell: string | null;
  revision: string;
  body: string;
  posted_by: string | null;
  posted_at: string;
  edited_at: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
}

export interface ReplyRow {
  id: string;
  comment_id: string;
  body: string;
  posted_by: string | null;
  posted_at: string;
  edited_at: string | null;
}

/**
 * Where comments live: the space itself (`changeRequest` undefined) or one of its change requests;
 * `revision` is the content they are anchored in now (the space's current content, or the
 * change request's), `role` the caller's on the space.
 */
export interface Thread {
  space: SpaceRow;
  role: Role | null;
  changeRequest?: { id: string; revision: string } | undefined;
  /** The API path of the thread's comments. */
  path: string;
}

const threadRevision = (thread: Thread) => thread.changeRequest?.revision ?? thread.space.revision;

/** Recounts the open comments of a thread (its `comments` count). */
function refreshCount(db: Db, thread: Thread): void {
  if (thread.changeRequest) {
    db.prepare(
      `UPDATE change_requests SET comments_open = (SELECT COUNT(*) FROM comments
         WHERE change_request_id = change_requests.id AND resolved_at IS NULL) WHERE id = ?`,
    ).run(thread.changeRequest.id);
  } else {
    db.prepare(
      `UPDATE spaces SET comments_open = (SELECT COUNT(*) FROM comments
         WHERE space_id = spaces.id AND change_request_id IS NULL AND resolved_at IS NULL) WHERE id = ?`,
    ).run(thread.space.id);
  }
}

const inThread = (thread: Thread) =>
  thread.changeRequest
    ? { where: 'space_id = ? AND change_request_id = ?', params: [thread.space.id, thread.changeRequest.id] }
    : { where: 'space_id = ? AND change_request_id IS NULL', params: [thread.space.id] };

function findComment(db: Db, thread: Thread, commentId: string): CommentRow | undefined {
  const scope = inThread(thread);
  return db.prepare(`SELECT * FROM comments WHERE id = ? AND ${scope.where}`).get(commentId, ...scope.params) as
    | CommentRow
    | undefined;
}

function requireComment(db: Db, thread: Thread, commentId: string): CommentRow {
  const row = findComment(db, thread, commentId);
  if (!row) throw notFound('Comment');
  return row;
}

function requireReply(db: Db, comment: CommentRow, replyId: string): ReplyRow {
  const row = db.prepare('SELECT * FROM comment_replies WHERE id = ? AND comment_id = ?').get(replyId, comment.id) as
    | ReplyRow
    | undefined;
  if (!row) throw notFound('Comment reply');
  return row;
}

/** The filters of a list of top-level comments. */
export interface CommentFilter {
  status: 'all' | 'open' | 'resolved';
  order: 'asc' | 'desc';
  targetPage?: string | undefined;
  authors?: string[] | undefined;
}

function listComments(db: Db, thread: Thread, filter: CommentFilter, window: PageWindow) {
  const scope = inThread(thread);
  const where = [scope.where];
  const params: unknown[] = [...scope.params];
  if (filter.status === 'open') where.push('resolved_at IS NULL');
  if (filter.status === 'resolved') where.push('resolved_at IS NOT NULL');
  if (filter.targetPage) {
    where.push('page_id = ?');
    params.push(filter.targetPage);
  }
  if (filter.authors?.length) {
    where.push(`posted_by IN (${filter.authors.map(() => '?').join(', ')})`);
    params.push(...filter.authors);
  }
  const clause = where.join(' AND ');
  const count = db
    .prepare(`SELECT COUNT(*) FROM comments WHERE ${clause}`)
    .pluck(true)
    .get(...params) as number;
  const direction = filter.order === 'asc' ? 'ASC' : 'DESC';
  const rows = db
    .prepare(`SELECT * FROM comments WHERE ${clause} ORDER BY posted_at ${direction}, id ${direction} LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as CommentRow[];
  return { rows, count };
}

function repliesOf(db: Db, commentId: string, window?: PageWindow): ReplyRow[] {
  const sql = 'SELECT * FROM comment_replies WHERE comment_id = ? ORDER BY posted_at, id';
  return (
    window
      ? db.prepare(`${sql} LIMIT ? OFFSET ?`).all(commentId, window.limit, window.offset)
      : db.prepare(sql).all(commentId)
  ) as ReplyRow[];
}

/** What a new comment says and where: its anchor checked by the caller (`checkAnchor`). */
export interface NewComment {
  page?: string | undefined;
  node?: string | undefined;
  tableCell?: { record: string; definition: string } | undefined;
  document: JSONDocument;
  postedBy: string;
  /** When it was posted. @default now */
  at?: string;
}

/** Stores a new comment in a thread, anchored in the thread's current content, and recounts its open comments. */
export function insertComment(db: Db, thread: Thread, fields: NewComment): CommentRow {
  const row: CommentRow = {
    id: newId(),
    space_id: thread.space.id,
    change_request_id: thread.changeRequest?.id ?? null,
    page_id: fields.page ?? null,
    node_id: fields.node ?? null,
    table_cell: fields.tableCell ? JSON.stringify(fields.tableCell) : null,
    revision: threadRevision(thread),
    body: JSON.stringify(fields.document),
    posted_by: fields.postedBy,
    posted_at: fields.at ?? now(),
    edited_at: null,
    resolved_at: null,
    resolved_by: null,
  };
  db.prepare(
    `INSERT INTO comments (id, space_id, change_request_id, page_id, node_id, table_cell, revision, body, posted_by,
       posted_at) VALUES (@id, @space_id, @change_request_id, @page_id, @node_id, @table_cell, @revision, @body,
       @posted_by, @posted_at)`,
  ).run(row);
  refreshCount(db, thread);
  return row;
}

/** Stores a reply to a comment. */
export function insertReply(
  db: Db,
  comment: CommentRow,
  document: JSONDocument,
  postedBy: string,
  at = now(),
): ReplyRow {
  const row: ReplyRow = {
    id: newId(),
    comment_id: comment.id,
    body: JSON.stringify(document),
    posted_by: postedBy,
    posted_at: at,
    edited_at: null,
  };
  db.prepare(
    `INSERT INTO comment_replies (id, comment_id, body, posted_by, posted_at)
     VALUES (@id, @comment_id, @body, @posted_by, @posted_at)`,
  ).run(row);
  return row;
}

/** Resolves a comment (as `userId`) and recounts its thread's open comments. */
export function resolveComment(db: Db, thread: Thread, comment: CommentRow, userId: string, at = now()): void {
  db.prepare('UPDATE comments SET resolved_at = ?, resolved_by = ? WHERE id = ?').run(at, userId, comment.id);
  refreshCount(db, thread);
}

/** Adds and removes the caller's reactions to a comment or a reply. */
function react(db: Db, subjectId: string, userId: string, added: string[] = [], removed: string[] = []): void {
  const at = now();
  const add = db.prepare(
    'INSERT INTO comment_reactions (subject_id, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  );
  const remove = db.prepare('DELETE FROM comment_reactions WHERE subject_id = ? AND emoji = ? AND user_id = ?');
  for (const emoji of added) add.run(subjectId, emoji, userId, at);
  for (const emoji of removed) remove.run(subjectId, emoji, userId);
}

function deleteReactions(db: Db, subjectIds: string[]): void {
  const remove = db.prepare('DELETE FROM comment_reactions WHERE subject_id = ?');
  for (const id of subjectIds) remove.run(id);
}

/**
 * The users who commented in a thread (a comment or a reply), members of the space's organization,
 * in the order of their first comment.
 */
function commenters(db: Db, thread: Thread, window: PageWindow) {
  const scope = inThread(thread);
  const authored = `SELECT posted_by AS user_id, posted_at FROM comments WHERE ${scope.where}
    UNION ALL SELECT r.posted_by, r.posted_at FROM comment_replies r JOIN comments c ON c.id = r.comment_id
      WHERE ${scope.where.replaceAll('space_id', 'c.space_id').replaceAll('change_request_id', 'c.change_request_id')}`;
  const from = `FROM (${authored}) a JOIN members m ON m.user_id = a.user_id AND m.org_id = ?`;
  const params = [...scope.params, ...scope.params, thread.space.org_id];
  const count = db
    .prepare(`SELECT COUNT(DISTINCT a.user_id) ${from}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT m.* ${from} GROUP BY a.user_id ORDER BY MIN(a.posted_at), a.user_id LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as MemberRow[];
  return { rows, count };
}

// ---------------------------------------------------------------------------------------------
// Anchors
// ---------------------------------------------------------------------------------------------

function holdsNode(nodes: unknown[], id: string): boolean {
  for (const node of nodes as Array<Record<string, unknown>>) {
    if (!node || typeof node !== 'object') continue;
    if (node.key === id || (node.meta as { id?: unknown } | undefined)?.id === id) return true;
    if (Array.isArray(node.nodes) && holdsNode(node.nodes, id)) return true;
    if (Array.isArray(node.fragments) && holdsNode(node.fragments, id)) return true;
  }
  return false;
}

/** Whether the page (and block) a comment names is in a revision of its space. */
function anchoredIn(db: Db, spaceId: string, revisionId: string, pageId: string, nodeId: string | null): boolean {
  const revision = loadRevision(db, spaceId, revisionId);
  const placed = revision && pageIndex(revision.content).byId.get(pageId);
  if (!placed) return false;
  if (nodeId === null) return true;
  const documentId = placed.page.documentId;
  const document = documentId ? getDocument<JSONDocument>(db, spaceId, documentId) : undefined;
  return document !== undefined && holdsNode(document.nodes, nodeId);
}

/**
 * The revision a comment's target is found in: the thread's content when its page (and block) is
 * still there, whatever was merged since; else the revision it was posted in.
 */
function targetRevision(db: Db, thread: Thread, row: CommentRow, seen: Map<string, boolean>): string {
  const current = threadRevision(thread);
  if (row.page_id === null || row.revision === current) return current;
  const key = `${row.page_id}\0${row.node_id ?? ''}`;
  let found = seen.get(key);
  if (found === undefined) {
    found = anchoredIn(db, thread.space.id, current, row.page_id, row.node_id);
    seen.set(key, found);
  }
  return found ? current : row.revision;
}

// ---------------------------------------------------------------------------------------------
// Serializers
// ---------------------------------------------------------------------------------------------

function reactionsJson(db: Db, links: Links, subjectId: string) {
  const rows = db
    .prepare('SELECT * FROM comment_reactions WHERE subject_id = ? ORDER BY reacted_at, rowid')
    .all(subjectId) as Array<{ emoji: string; user_id: string; reacted_at: string }>;
  const byEmoji = new Map<string, Array<{ user: ReturnType<typeof userOrDeleted>; reactedAt: string }>>();
  for (const row of rows) {
    const users = byEmoji.get(row.emoji) ?? [];
    users.push({ user: userOrDeleted(db, links, row.user_id), reactedAt: row.reacted_at });
    byEmoji.set(row.emoji, users);
  }
  return [...byEmoji].map(([emoji, users]) => ({ emoji, count: users.length, users }));
}

/** What the caller may do with a comment or reply it can see. */
function permissionsOf(ctx: { user: UserRow }, thread: Thread, postedBy: string | null) {
  const mine = postedBy !== null && postedBy === ctx.user.id;
  const admin = atLeast(thread.role, 'admin');
  return { view: true, edit: mine || admin, reply: atLeast(thread.role, 'comment'), delete: mine || admin };
}

interface Serializing {
  db: Db;
  links: Links;
  user: UserRow;
  format: Format;
  /** Anchors checked in this answer, by page and block. */
  seen: Map<string, boolean>;
}

export function commentJson(s: Serializing, thread: Thread, row: CommentRow) {
  const { db, links } = s;
  const replies = repliesOf(db, row.id);
  const repliers = new Map<string, { count: number; updatedAt: string; userId: string | null }>();
  for (const reply of replies) {
    const key = reply.posted_by ?? 'deleted-user';
    const seen = repliers.get(key);
    const at = reply.edited_at ?? reply.posted_at;
    if (seen) {
      seen.count += 1;
      if (at > seen.updatedAt) seen.updatedAt = at;
    } else repliers.set(key, { count: 1, updatedAt: at, userId: reply.posted_by });
  }
  return {
    object: 'comment' as const,
    id: row.id,
    postedBy: userOrDeleted(db, links, row.posted_by),
    postedAt: row.posted_at,
    ...(row.edited_at ? { editedAt: row.edited_at } : {}),
    reactions: reactionsJson(db, links, row.id),
    replies: replies.length,
    repliers: [...repliers.values()].map((r) => ({
      updatedAt: r.updatedAt,
      count: r.count,
      user: userOrDeleted(db, links, r.userId),
    })),
    body: bodyJson(row.body, s.format),
    target: {
      space: row.space_id,
      revision: targetRevision(db, thread, row, s.seen),
      ...(row.change_request_id ? { changeRequest: row.change_request_id } : {}),
      ...(row.page_id ? { page: { id: row.page_id } } : {}),
      ...(row.node_id ? { node: { id: row.node_id } } : {}),
      ...(row.table_cell ? { tableCell: JSON.parse(row.table_cell) as { record: string; definition: string } } : {}),
    },
    ...(row.resolved_at
      ? {
          status: 'resolved' as const,
          resolvedAt: row.resolved_at,
          resolvedBy: userOrDeleted(db, links, row.resolved_by),
        }
      : { status: 'open' as const }),
    urls: { location: `${links.api}${thread.path}/${row.id}` },
    permissions: permissionsOf(s, thread, row.posted_by),
  };
}

export function replyJson(s: Serializing, thread: Thread, row: ReplyRow) {
  const { db, links } = s;
  return {
    object: 'comment-reply' as const,
    id: row.id,
    postedBy: userOrDeleted(db, links, row.posted_by),
    postedAt: row.posted_at,
    ...(row.edited_at ? { editedAt: row.edited_at } : {}),
    reactions: reactionsJson(db, links, row.id),
    body: bodyJson(row.body, s.format),
    urls: { location: `${links.api}${thread.path}/${row.comment_id}/replies/${row.id}` },
    permissions: permissionsOf(s, thread, row.posted_by),
  };
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

const reactionList = z
  .array(
    z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(MAX_REACTION_CHARS, `must be at most ${MAX_REACTION_CHARS} characters`),
  )
  .max(MAX_REACTIONS_PER_UPDATE, `must hold at most ${MAX_REACTIONS_PER_UPDATE} reactions`);

const id = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters');

const postBody = z.strictObject({
  body: bodyInput,
  page: id.optional(),
  node: id.optional(),
  tableCell: z.strictObject({ record: id, definition: id }).optional(),
});
const updateBody = z
  .strictObject({
    body: bodyInput.optional(),
    resolved: z.boolean().optional(),
    addedReactions: reactionList.optional(),
    removedReactions: reactionList.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), 'must set at least one field');
const replyBody = z.strictObject({ body: bodyInput });
const updateReplyBody = z
  .strictObject({
    body: bodyInput.optional(),
    addedReactions: reactionList.optional(),
    removedReactions: reactionList.optional(),
  })
  .refine((value) => Object.values(value).some((field) => field !== undefined), 'must set at least one field');

/** Authors one list of comments filters by, and the longest parameter that names them. */
const MAX_AUTHORS = 100;
const MAX_AUTHORS_CHARS = MAX_AUTHORS * 101;

const formatQuery = z.object({
  format: z.enum(['document', 'markdown'], { message: 'must be document or markdown' }).optional(),
});
const listQuery = z.object({
  ...pageParams,
  ...formatQuery.shape,
  order: z.enum(['asc', 'desc'], { message: 'must be asc or desc' }).optional(),
  status: z.enum(['all', 'open', 'resolved'], { message: 'must be all, open or resolved' }).optional(),
  targetPage: id.optional(),
  authors: z
    .union([z.string().max(MAX_AUTHORS_CHARS), z.array(z.string().max(MAX_AUTHORS_CHARS)).max(MAX_AUTHORS)])
    // One parameter of comma-separated ids (a parameter given twice is refused everywhere).
    .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(',')))
    .pipe(z.array(id).max(MAX_AUTHORS, `must name at most ${MAX_AUTHORS} authors`))
    .optional(),
});
const pageOnlyQuery = z.object({ ...pageParams, ...formatQuery.shape });

/** The checks of a page (and block) a new comment is anchored to, in the thread's current content. */
function checkAnchor(db: Db, thread: Thread, body: z.infer<typeof postBody>): void {
  if (body.node !== undefined && body.page === undefined)
    throw badRequest('Invalid body field "node": a comment on a block names its page too');
  if (body.page === undefined) return;
  const revision = loadRevision(db, thread.space.id, threadRevision(thread));
  if (!revision || !pageIndex(revision.content).byId.get(body.page)) throw notFoundInBody('Page', 'page', body.page);
  if (body.node !== undefined && !anchoredIn(db, thread.space.id, threadRevision(thread), body.page, body.node))
    throw notFoundInBody('Node', 'node', body.node);
}

/** Only the author or an admin of the space changes or deletes what was posted. */
function requireAuthorOrAdmin(thread: Thread, userId: string, postedBy: string | null, what: string): void {
  if (postedBy !== userId && !atLeast(thread.role, 'admin'))
    throw forbidden(`Only its author or an admin of the space can ${what}`);
}

function requireCommenter(thread: Thread): void {
  if (!atLeast(thread.role, 'comment')) throw forbidden('Commenting needs the comment role');
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

/** The path parameters of a thread's routes. */
type ThreadParams = { spaceId: string; changeRequestId?: string };
type ThreadOf = (request: FastifyRequest, params: ThreadParams) => Thread;

/**
 * The routes of the comments of one kind of thread under `prefix` (`/spaces/:spaceId` or a change
 * request's path): top-level comments, their replies, and who commented.
 */
function threadRoutes(
  app: FastifyInstance,
  prefix: string,
  threadOf: ThreadOf,
  onWrite: (db: Db, thread: Thread, userId: string) => void,
): void {
  type P = ThreadParams;
  type C = P & { commentId: string };
  type R = C & { commentReplyId: string };
  const serializing = (request: FastifyRequest, format: Format | undefined): Serializing => ({
    db: request.ctx.db,
    links: request.ctx.links,
    user: request.ctx.user,
    format: format ?? 'document',
    seen: new Map(),
  });

  app.get<{ Params: P }>(`${prefix}/comments`, CONDITIONAL, async (request) => {
    const query = parseQuery(listQuery, request.query);
    const thread = threadOf(request, request.params);
    const window = pageWindow(query);
    const { rows, count } = listComments(
      request.ctx.db,
      thread,
      {
        status: query.status ?? 'all',
        order: query.order ?? 'desc',
        targetPage: query.targetPage,
        authors: query.authors,
      },
      window,
    );
    const s = serializing(request, query.format);
    return pageOf(
      rows.map((row) => commentJson(s, thread, row)),
      count,
      window,
    );
  });

  app.post<{ Params: P }>(`${prefix}/comments`, async (request) => {
    const body = parseBody(postBody, request.body);
    const thread = threadOf(request, request.params);
    requireCommenter(thread);
    const document = await documentOf(body.body, 'body');
    const { db, user } = request.ctx;
    const row = db.transaction(() => {
      checkAnchor(db, thread, body);
      const created = insertComment(db, thread, {
        page: body.page,
        node: body.node,
        tableCell: body.tableCell,
        document,
        postedBy: user.id,
      });
      onWrite(db, thread, user.id);
      return created;
    })();
    return commentJson(serializing(request, undefined), thread, row);
  });

  app.get<{ Params: C }>(`${prefix}/comments/:commentId`, async (request) => {
    const query = parseQuery(formatQuery, request.query);
    const thread = threadOf(request, request.params);
    const row = requireComment(request.ctx.db, thread, request.params.commentId);
    return commentJson(serializing(request, query.format), thread, row);
  });

  app.put<{ Params: C }>(`${prefix}/comments/:commentId`, async (request) => {
    const body = parseBody(updateBody, request.body);
    const thread = threadOf(request, request.params);
    const { db, user } = request.ctx;
    const found = requireComment(db, thread, request.params.commentId);
    if (body.body !== undefined) requireAuthorOrAdmin(thread, user.id, found.posted_by, 'edit a comment');
    if (body.resolved !== undefined) requireAuthorOrAdmin(thread, user.id, found.posted_by, 'resolve a comment');
    if (body.addedReactions || body.removedReactions) requireCommenter(thread);
    const document = body.body === undefined ? undefined : await documentOf(body.body, 'body');
    const row = db.transaction(() => {
      const row = requireComment(db, thread, request.params.commentId);
      if (document) {
        row.body = JSON.stringify(document);
        row.edited_at = laterThan(row.edited_at ?? row.posted_at);
      }
      if (body.resolved === true && row.resolved_at === null) {
        row.resolved_at = now();
        row.resolved_by = user.id;
      } else if (body.resolved === false) {
        row.resolved_at = null;
        row.resolved_by = null;
      }
      db.prepare(
        'UPDATE comments SET body = @body, edited_at = @edited_at, resolved_at = @resolved_at, resolved_by = @resolved_by WHERE id = @id',
      ).run(row);
      react(db, row.id, user.id, body.addedReactions, body.removedReactions);
      refreshCount(db, thread);
      return row;
    })();
    return commentJson(serializing(request, undefined), thread, row);
  });

  app.delete<{ Params: C }>(`${prefix}/comments/:commentId`, async (request, reply) => {
    const thread = threadOf(request, request.params);
    const { db, user } = request.ctx;
    const deleted = db.transaction(() => {
      const row = findComment(db, thread, request.params.commentId);
      if (!row) return false;
      requireAuthorOrAdmin(thread, user.id, row.posted_by, 'delete a comment');
      deleteReactions(db, [row.id, ...repliesOf(db, row.id).map((r) => r.id)]);
      db.prepare('DELETE FROM comments WHERE id = ?').run(row.id);
      refreshCount(db, thread);
      return true;
    })();
    return sendDeleted(reply, deleted);
  });

  app.get<{ Params: C }>(`${prefix}/comments/:commentId/replies`, async (request) => {
    const query = parseQuery(pageOnlyQuery, request.query);
    const thread = threadOf(request, request.params);
    const { db } = request.ctx;
    const comment = requireComment(db, thread, request.params.commentId);
    const window = pageWindow(query);
    const count = db
      .prepare('SELECT COUNT(*) FROM comment_replies WHERE comment_id = ?')
      .pluck(true)
      .get(comment.id) as number;
    const s = serializing(request, query.format);
    return pageOf(
      repliesOf(db, comment.id, window).map((row) => replyJson(s, thread, row)),
      count,
      window,
    );
  });

  app.post<{ Params: C }>(`${prefix}/comments/:commentId/replies`, async (request) => {
    const query = parseQuery(formatQuery, request.query);
    const body = parseBody(replyBody, request.body);
    const thread = threadOf(request, request.params);
    requireCommenter(thread);
    const { db, user } = request.ctx;
    requireComment(db, thread, request.params.commentId);
    const document = await documentOf(body.body, 'body');
    const row = db.transaction(() => {
      const comment = requireComment(db, thread, request.params.commentId);
      const created = insertReply(db, comment, document, user.id);
      onWrite(db, thread, user.id);
      return created;
    })();
    return replyJson(serializing(request, query.format), thread, row);
  });

  app.get<{ Params: R }>(`${prefix}/comments/:commentId/replies/:commentReplyId`, async (request) => {
    const query = parseQuery(formatQuery, request.query);
    const thread = threadOf(request, request.params);
    const { db } = request.ctx;
    const row = requireReply(db, requireComment(db, thread, request.params.commentId), request.params.commentReplyId);
    return replyJson(serializing(request, query.format), thread, row);
  });

  app.put<{ Params: R }>(`${prefix}/comments/:commentId/replies/:commentReplyId`, async (request) => {
    const body = parseBody(updateReplyBody, request.body);
    const thread = threadOf(request, request.params);
    const { db, user } = request.ctx;
    const comment = requireComment(db, thread, request.params.commentId);
    const found = requireReply(db, comment, request.params.commentReplyId);
    if (body.body !== undefined) requireAuthorOrAdmin(thread, user.id, found.posted_by, 'edit a reply');
    if (body.addedReactions || body.removedReactions) requireCommenter(thread);
    const document = body.body === undefined ? undefined : await documentOf(body.body, 'body');
    const row = db.transaction(() => {
      const row = requireReply(db, requireComment(db, thread, comment.id), found.id);
      if (document) {
        row.body = JSON.stringify(document);
        row.edited_at = laterThan(row.edited_at ?? row.posted_at);
        db.prepare('UPDATE comment_replies SET body = @body, edited_at = @edited_at WHERE id = @id').run(row);
      }
      react(db, row.id, user.id, body.addedReactions, body.removedReactions);
      return row;
    })();
    return replyJson(serializing(request, undefined), thread, row);
  });

  app.delete<{ Params: R }>(`${prefix}/comments/:commentId/replies/:commentReplyId`, async (request, reply) => {
    const thread = threadOf(request, request.params);
    const { db, user } = request.ctx;
    const deleted = db.transaction(() => {
      const comment = requireComment(db, thread, request.params.commentId);
      const row = db
        .prepare('SELECT * FROM comment_replies WHERE id = ? AND comment_id = ?')
        .get(request.params.commentReplyId, comment.id) as ReplyRow | undefined;
      if (!row) return false;
      requireAuthorOrAdmin(thread, user.id, row.posted_by, 'delete a reply');
      deleteReactions(db, [row.id]);
      db.prepare('DELETE FROM comment_replies WHERE id = ?').run(row.id);
      return true;
    })();
    return sendDeleted(reply, deleted);
  });

  app.get<{ Params: P }>(`${prefix}/commenters`, async (request) => {
    const query = parseQuery(z.object(pageParams), request.query);
    const thread = threadOf(request, request.params);
    const { db, links } = request.ctx;
    const window = pageWindow(query);
    const { rows, count } = commenters(db, thread, window);
    const user = db.prepare('SELECT * FROM users WHERE id = ?');
    return pageOf(
      rows.map((member) => memberJson(db, member, user.get(member.user_id) as UserRow, links)),
      count,
      window,
    );
  });
}

/** The space of a comment route: members and guests with a role on it read its comments. */
function spaceThread(request: FastifyRequest, spaceId: string): Omit<Thread, 'path'> {
  const { space, role } = request.ctx.access.requireSpace(spaceId);
  if (role === null) throw forbidden('Comments are read by members of the space');
  return { space, role };
}

/** The comments of spaces: `/spaces/{spaceId}/comments…` and `/spaces/{spaceId}/commenters`. */
export function spaceCommentRoutes(app: FastifyInstance): void {
  threadRoutes(
    app,
    '/spaces/:spaceId',
    (request, params) => ({ ...spaceThread(request, params.spaceId), path: `/spaces/${params.spaceId}/comments` }),
    () => undefined,
  );
}

/**
 * The comments of change requests: `/spaces/{spaceId}/change-requests/{changeRequestId}/comments…` and
 * `…/commenters`, anchored in the change request's content; commenting makes one of its contributors.
 */
export function changeRequestCommentRoutes(app: FastifyInstance): void {
  threadRoutes(
    app,
    '/spaces/:spaceId/change-requests/:changeRequestId',
    (request, params) => {
      const thread = spaceThread(request, params.spaceId);
      const changeRequest = requireChangeRequest(request.ctx.db, thread.space.id, params.changeRequestId ?? '');
      return {
        ...thread,
        changeRequest: { id: changeRequest.id, revision: changeRequest.revision },
        path: `/spaces/${thread.space.id}/change-requests/${changeRequest.id}/comments`,
      };
    },
    (db, thread, userId) => recordContribution(db, thread.changeRequest!.id, userId, 'comment'),
  );
}
