import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { markdownToDocument } from '../../document/markdown.js';
import { insertComment, insertReply, resolveComment, type Thread } from '../comments/comments.js';

const DAY = 24 * 60 * 60 * 1000;

const ReplySchema = z.strictObject({ author: z.string(), daysAgo: z.number(), markdown: z.string() });
const CommentSchema = z.strictObject({
  /** The page commented on (none: the whole space). */
  page: z.string().optional(),
  author: z.string(),
  daysAgo: z.number(),
  markdown: z.string(),
  replies: z.array(ReplySchema).optional(),
  /** Who resolved it, by user key, and when. */
  resolvedBy: z.string().optional(),
  resolvedDaysAgo: z.number().optional(),
});
const CommentsSchema = z.strictObject({
  space: z.string(),
  comments: z.array(CommentSchema),
  /** Threads on change requests of that space, by subject. */
  changeRequests: z.array(z.strictObject({ subject: z.string(), comments: z.array(CommentSchema) })).optional(),
});

/** Reads and checks `comments.json`: the demo's comment threads on one space. */
export function loadDemoComments(): z.infer<typeof CommentsSchema> {
  const parsed = CommentsSchema.safeParse(
    JSON.parse(readFileSync(new URL('./comments.json', import.meta.url), 'utf8')),
  );
  if (!parsed.success) throw new Error(`Demo data comments.json: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Seeds the demo comments (see `loadDemoComments`) on the space of that title: threads on its pages and on the
 * space and on one of its change requests, with replies, one resolved; posted `daysAgo` before `now`, anchored in the space's current content.
 */
export function seedDemoComments(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  userIds: Readonly<Record<string, string>>,
  now: number,
  data = loadDemoComments(),
): void {
  const spaceId = spaceIds.get(data.space);
  if (!spaceId) throw new Error(`No demo space "${data.space}"`);
  const user = (key: string) => {
    const id = userIds[key];
    if (!id) throw new Error(`Demo comments name the user "${key}", who is not in the demo data`);
    return id;
  };
  const at = (daysAgo: number) => new Date(now - daysAgo * DAY).toISOString();
  const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;
  const seed = (thread: Thread, comments: Array<z.infer<typeof CommentSchema>>) => {
    for (const comment of comments) {
      const row = insertComment(db, thread, {
        page: comment.page,
        document: markdownToDocument(comment.markdown).document,
        postedBy: user(comment.author),
        at: at(comment.daysAgo),
      });
      for (const reply of comment.replies ?? [])
        insertReply(db, row, markdownToDocument(reply.markdown).document, user(reply.author), at(reply.daysAgo));
      if (comment.resolvedBy)
        resolveComment(db, thread, row, user(comment.resolvedBy), at(comment.resolvedDaysAgo ?? 0));
    }
  };
  seed({ space, role: 'admin', path: `/spaces/${spaceId}/comments` }, data.comments);
  for (const request of data.changeRequests ?? []) {
    const row = db
      .prepare('SELECT id, revision FROM change_requests WHERE space_id = ? AND subject = ?')
      .get(spaceId, request.subject) as { id: string; revision: string } | undefined;
    if (!row)
      throw new Error(`Demo comments name the change request "${request.subject}", which is not in the demo data`);
    const path = `/spaces/${spaceId}/change-requests/${row.id}/comments`;
    seed({ space, role: 'admin', changeRequest: row, path }, request.comments);
  }
}
