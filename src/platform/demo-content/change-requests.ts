import { now } from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { editRequestContent, type ContentChange } from '../change-requests/edits.js';
import { mergeChangeRequest } from '../change-requests/merging.js';
import { createChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../change-requests/store.js';
import type { JSONDocument, Paragraph } from '../../document/model.js';
import { getDocument, loadRevision } from '../content/revisions.js';
// The conversation issue cluster a demo change request points at (seeded before change requests).
import { DEMO_CLUSTER_ID } from '../conversations/demo.js';

/**
 * Change requests of the demo "Getting started" space, in every state: merged, open and
 * outdated (merges cleanly), open with a conflict (it and the merged one rewrote the same
 * paragraph), open with a requested reviewer and an approval (linked to an issue cluster), a
 * draft and an archived one.
 */

const SPACE = 'Getting started';
const QUICKSTART = 'pg-gs-quickstart';
const CONFIGURATION = 'pg-gs-configuration';
export { DEMO_CLUSTER_ID };

export function seedDemoChangeRequests(
  db: Db,
  spaceIds: ReadonlyMap<string, string>,
  userIds: Readonly<Record<string, string>>,
): void {
  const spaceId = spaceIds.get(SPACE);
  if (!spaceId) throw new Error(`No demo space "${SPACE}"`);
  const user = (key: string) => db.prepare('SELECT * FROM users WHERE id = ?').get(userIds[key]) as UserRow;
  const space = () => db.prepare('SELECT * FROM spaces WHERE id = ?').get(spaceId) as SpaceRow;
  const ada = user('ada');
  const dee = user('dee');
  const ben = user('ben');

  const edit = (request: ChangeRequestRow, author: UserRow, changes: ContentChange[]): ChangeRequestRow =>
    editRequestContent(db, request, author.id, changes).changeRequest;

  /** The live document of a page with the text of its first paragraph replaced. */
  const rewriteFirstParagraph = (pageId: string, text: string): ContentChange => {
    const page = loadRevision(db, spaceId, space().revision)!.content.pages.find((item) => item.id === pageId);
    const document = structuredClone(getDocument<JSONDocument>(db, spaceId, page!.documentId!)!);
    const first = document.nodes.find((node): node is Paragraph => node.type === 'paragraph')!;
    first.nodes = [{ object: 'text', key: `${first.key}-text`, leaves: [{ object: 'leaf', text, marks: [] }] }];
    return { operation: 'update_page', page: pageId, document: { document } };
  };

  const merged = edit(
    createChangeRequest(db, space(), ben, { subject: 'Clarify what the quickstart needs', status: 'open' }),
    ben,
    [rewriteFirstParagraph(QUICKSTART, 'This quickstart takes about ten minutes. You need an account and a terminal.')],
  );
  const outdated = edit(
    createChangeRequest(db, space(), dee, { subject: 'Document the log level setting', status: 'open' }),
    dee,
    [
      {
        operation: 'update_page',
        page: CONFIGURATION,
        description: 'Every setting, its default, and when to change it.',
      },
    ],
  );
  const conflicting = edit(
    createChangeRequest(db, space(), dee, { subject: 'Shorter quickstart introduction', status: 'open' }),
    dee,
    [rewriteFirstParagraph(QUICKSTART, 'Ten minutes, one account, one terminal: that is all the quickstart needs.')],
  );
  // Merged after the two others branched: one is now outdated, the other conflicts.
  void [outdated, conflicting];
  mergeChangeRequest(db, spaceId, merged.id, ada);

  const reviewed = edit(
    createChangeRequest(db, space(), dee, {
      subject: 'Explain the most common install errors',
      status: 'open',
      clusterId: DEMO_CLUSTER_ID,
    }),
    dee,
    [
      {
        operation: 'insert_page',
        into: 'pg-gs-installation',
        document: {
          markdown:
            '# Common install errors\n\n## Port already in use\n\nAnother program listens on the port: stop it or set `PORT`.\n\n## Permission denied\n\nRun the installer as a user that can write to the install folder.\n',
        },
      },
    ],
  );
  const at = now();
  db.prepare(
    'INSERT INTO change_request_reviewers (change_request_id, user_id, requested_by, revision, created_at) VALUES (?, ?, ?, ?, ?)',
  ).run(reviewed.id, userIds.finn, dee.id, reviewed.revision, at);
  db.prepare(
    `INSERT INTO change_request_reviews (id, change_request_id, revision, reviewer_id, requested_by, status, comment, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 'approved', NULL, ?, ?)`,
  ).run(`review-${reviewed.id}`, reviewed.id, reviewed.revision, userIds.cy, dee.id, at, at);

  edit(createChangeRequest(db, space(), ben, { subject: 'Upgrade guide (work in progress)' }), ben, [
    {
      operation: 'insert_page',
      document: { markdown: '# Upgrading\n\nHow to move from one release to the next. To be written.\n' },
    },
  ]);
  const archived = createChangeRequest(db, space(), ben, {
    subject: 'Rename "spaces" to "sites" everywhere',
    status: 'open',
  });
  updateChangeRequest(db, archived, { status: 'archived' });
}
