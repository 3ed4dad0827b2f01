import { newId, now } from '../http.js';
import { endPosition } from '../tree/positions.js';
import type { Db } from '../store/db.js';
import { storeFirstRevision } from '../content/revisions.js';

export interface NewSpace {
  orgId: string;
  parentId?: string | null;
  title?: string;
  emoji?: string | null;
  visibility?: string;
  editMode?: string;
  language?: string | null;
}

/**
 * Creates a space at the end of its parent (the organization's root without one), with its first,
 * empty revision; returns its id. The caller checks the parent and the caller's rights.
 */
export function insertSpace(db: Db, space: NewSpace): string {
  const id = newId();
  const revision = newId();
  const at = now();
  const parentId = space.parentId ?? null;
  db.transaction(() => {
    db.prepare(
      `INSERT INTO spaces (id, org_id, parent_id, title, emoji, visibility, edit_mode, language, revision, share_key,
         position, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      space.orgId,
      parentId,
      space.title ?? 'Untitled',
      space.emoji ?? null,
      space.visibility ?? 'private',
      space.editMode ?? 'live',
      space.language ?? null,
      revision,
      newId(24),
      endPosition(db, space.orgId, parentId),
      at,
      at,
    );
    storeFirstRevision(db, id, revision, at);
  })();
  return id;
}
