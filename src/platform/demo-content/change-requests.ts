import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { now } from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { contentChangeSchema, editRequestContent, type ContentChange } from '../change-requests/edits.js';
import { mergeChangeRequest } from '../change-requests/merging.js';
import { insertAgentConversation } from '../change-requests/agent-conversations.js';
import { createChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../change-requests/store.js';
import type { JSONDocument, Paragraph } from '../../document/model.js';
import { getDocument, loadRevision } from '../content/revisions.js';

/**
 * The demo's change requests (`change-requests.json`): steps run in order on one space, each creating a change
 * request (by a user key, with the API's content changes) or merging one made before. A change may give
 * `firstParagraph` instead of a document: the page's live document with the text of its first paragraph
 * replaced, so that two change requests can rewrite the same paragraph and conflict.
 */
const ChangeSchema = z.union([
  z.strictObject({ operation: z.literal('update_page'), page: z.string(), firstParagraph: z.string() }),
  contentChangeSchema,
]);

const StepSchema = z.union([
  z.strictObject({
    /** A name for the change request, which a later `merge` step uses. */
    create: z.string(),
    subject: z.string(),
    author: z.string(),
    /** Absent: a draft. `archived` is opened, then archived. */
    status: z.enum(['open', 'archived']).optional(),
    /** The conversation issue cluster it addresses (seeded before). */
    cluster: z.string().optional(),
    changes: z.array(ChangeSchema).optional(),
    /** Reviewers the author requested, by key. */
    reviewers: z.array(z.string()).optional(),
    /** Users (by key) who approved it, at the author's request. */
    approvedBy: z.array(z.string()).optional(),
    /** AI agent conversations held in its context: their id, title, creator (by key), private when `shared: false`. */
    conversations: z
      .array(
        z.strictObject({
          id: z.string(),
          title: z.string().optional(),
          by: z.string(),
          shared: z.boolean().optional(),
        }),
      )
      .optional(),
  }),
  z.strictObject({ merge: z.string(), by: z.string() }),
]);

const ChangeRequestsSchema = z.strictObject({ space: z.string(), steps: z.array(StepSchema) });

/** Reads and checks `change-requests.json`. */
export function loadDemoChangeRequests(): z.infer<typeof ChangeRequestsSchema> {
  const parsed = ChangeRequestsSchema.safeParse(
    JSON.parse(readFileSync(new URL('./change-requests.json', import.meta.url), 'utf8')),
  );
  if (!parsed.success) throw new Error(`Demo data change-requests.json: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * Seeds the demo change requests (see `loadDemoChangeRequests`) on the space of that title, through the
 * change-request domain as a user's edits would go.
 */
export function seedDemoChangeRequests(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  userIds: Readonly<Record<string, string>>,
  data = loadDemoChangeRequests(),
): void {
  const spaceId = spaceIds.get(data.space);
  if (!spaceId) throw new Error(`No demo space "${data.space}"`);
  const user = (key: string) => {
    const row = db.prepare('SELECT * FROM users WHERE id = ?').get(userIds[key]) as UserRow | undefined;
    if (!row) throw new Error(`Demo change requests name the user "${key}", who is not in the demo data`);
    return row;
  };
  const space = () => db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;

  /** The live document of a page with the text of its first paragraph replaced. */
  const rewriteFirstParagraph = (pageId: string, text: string): ContentChange => {
    const page = loadRevision(db, spaceId, space().revision)!.content.pages.find((item) => item.id === pageId);
    const document = structuredClone(getDocument<JSONDocument>(db, spaceId, page!.documentId!)!);
    const first = document.nodes.find((node): node is Paragraph => node.type === 'paragraph')!;
    first.nodes = [{ object: 'text', key: `${first.key}-text`, leaves: [{ object: 'leaf', text, marks: [] }] }];
    return { operation: 'update_page', page: pageId, document: { document } };
  };

  const made = new Map<string, ChangeRequestRow>();
  for (const step of data.steps) {
    if ('merge' in step) {
      const request = made.get(step.merge);
      if (!request) throw new Error(`Demo change requests merge "${step.merge}" before it is made`);
      mergeChangeRequest(db, spaceId, request.id, user(step.by));
      continue;
    }
    const author = user(step.author);
    let request = createChangeRequest(db, space(), author, {
      subject: step.subject,
      ...(step.status ? { status: 'open' as const } : {}),
      ...(step.cluster ? { clusterId: step.cluster } : {}),
    });
    if (step.changes) {
      const changes = step.changes.map((change) =>
        'firstParagraph' in change ? rewriteFirstParagraph(change.page, change.firstParagraph) : change,
      );
      request = editRequestContent(db, request, author.id, changes).changeRequest;
    }
    if (step.status === 'archived') updateChangeRequest(db, request, { status: 'archived' });
    const at = now();
    for (const reviewer of step.reviewers ?? []) {
      db.prepare(
        'INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision, created_at) VALUES (?, ?, ?, ?, ?)',
      ).run(request.id, user(reviewer).id, author.id, request.revision, at);
    }
    (step.approvedBy ?? []).forEach((reviewer, index) => {
      db.prepare(
        `INSERT INTO change_request_reviews (id, change_request_id, revision, reviewer_id, requested_by, status, comment, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, 'approved', NULL, ?, ?)`,
      ).run(
        index === 0 ? `review-${request.id}` : `review-${request.id}-${index}`,
        request.id,
        request.revision,
        user(reviewer).id,
        author.id,
        at,
        at,
      );
    });
    for (const conversation of step.conversations ?? []) {
      insertAgentConversation(db, {
        changeRequestId: request.id,
        id: conversation.id,
        ...(conversation.title ? { title: conversation.title } : {}),
        ...(conversation.shared === false ? { shared: false } : {}),
        createdBy: user(conversation.by).id,
        at,
      });
    }
    made.set(step.create, request);
  }
}
