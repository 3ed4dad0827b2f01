import { reindexSpace } from '../content/current.js';
import { revisionRoot, storeFirstRevision } from '../content/revisions.js';
import { laterThan, newId, newSecret, now } from '../http.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { applyOrder, endPosition, planPlacement } from '../tree/positions.js';
import { settleTransferredContent } from '../tree/transfer.js';

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
      newSecret(24),
      endPosition(db, space.orgId, parentId),
      at,
      at,
    );
    storeFirstRevision(db, id, revision, at);
  })();
  return id;
}

export function loadSpace(db: Db, id: string): SpaceRow | undefined {
  return db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as SpaceRow | undefined;
}

/** Soft-deletes a space: it can be restored for the usual window. */
export function softDeleteSpace(db: Db, spaceId: string): void {
  db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(now(), spaceId);
}

/**
 * Copies a space right after it, as `title`: its settings, grants and content (the same stored
 * nodes: nothing is copied but the list of documents it may read). Returns the copy's id.
 */
export function duplicateSpace(db: Db, space: SpaceRow, title: string): string {
  const id = newId();
  const at = now();
  const copyRevision = newId();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO spaces (id, org_id, parent_id, title, emoji, visibility, edit_mode, merge_rules, language,
           default_level, revision, share_key, git_sync, visitor_auth, position, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?)`,
    ).run(
      id,
      space.org_id,
      space.parent_id,
      title,
      space.emoji,
      space.visibility,
      space.edit_mode,
      space.merge_rules,
      space.language,
      space.default_level,
      copyRevision,
      newSecret(24),
      space.visitor_auth,
      endPosition(db, space.org_id, space.parent_id),
      at,
      at,
    );
    const placement = planPlacement(
      db,
      space.org_id,
      space.parent_id,
      { kind: 'space', id },
      {
        after: { type: 'space', space: space.id },
      },
    );
    applyOrder(db, placement.order);
    db.prepare(
      `INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at)
         SELECT 'space', ?, principal_type, principal_id, role, ? FROM content_permissions
         WHERE content_type = 'space' AND content_id = ?`,
    ).run(id, at, space.id);
    storeFirstRevision(db, id, copyRevision, at, revisionRoot(db, space.revision));
    db.prepare('INSERT INTO documents (space_id, id, hash) SELECT ?, id, hash FROM documents WHERE space_id = ?').run(
      id,
      space.id,
    );
    // The copy is searchable at once, as any space whose revision moved.
    reindexSpace(db, id, copyRevision);
  })();
  return id;
}

/** The title of a copy, within the 50 characters of a space's title. */
export const copyTitle = (title: string) => `${title.length > 43 ? title.slice(0, 43) : title} (copy)`;

/** Brings a deleted space back with `visibility`. */
export function restoreSpace(db: Db, space: SpaceRow, visibility: string): void {
  db.prepare('UPDATE spaces SET deleted_at = NULL, visibility = ?, updated_at = ? WHERE id = ?').run(
    visibility,
    laterThan(space.updated_at),
    space.id,
  );
}

/** Moves a space to the end of `parent` in the organization `orgId`, settling its grants if the organization changes. */
export function transferSpace(db: Db, space: SpaceRow, orgId: string, parent: string | null): void {
  db.transaction(() => {
    db.prepare('UPDATE spaces SET org_id = ?, parent_id = ?, position = ?, updated_at = ? WHERE id = ?').run(
      orgId,
      parent,
      endPosition(db, orgId, parent),
      laterThan(space.updated_at),
      space.id,
    );
    if (orgId !== space.org_id) settleTransferredContent(db, orgId, { spaces: [space.id] });
  })();
}

/** The current revision of a live space, if there is one. */
export function liveSpaceRevision(db: Db, spaceId: string): string | undefined {
  return db.prepare('SELECT revision FROM spaces WHERE id = ? AND deleted_at IS NULL').pluck(true).get(spaceId) as
    | string
    | undefined;
}

export function spaceTitle(db: Db, spaceId: string): string | undefined {
  return db.prepare('SELECT title FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string | undefined;
}

/** The titles of spaces, by id. */
export function spaceTitles(db: Db, spaceIds: string[]): Map<string, string> {
  const rows = db
    .prepare('SELECT id, title FROM spaces WHERE id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(spaceIds)) as Array<{ id: string; title: string }>;
  return new Map(rows.map((row) => [row.id, row.title]));
}

/** Removes the Git Sync installation of a space; whether it had one. */
export function clearGitSync(db: Db, spaceId: string): boolean {
  return db.prepare('UPDATE spaces SET git_sync = NULL WHERE id = ? AND git_sync IS NOT NULL').run(spaceId).changes > 0;
}

/** A space that is not deleted. */
export function findLiveSpace(db: Db, spaceId: string): SpaceRow | undefined {
  return db.prepare('SELECT * FROM spaces WHERE id = ? AND deleted_at IS NULL').get(spaceId) as SpaceRow | undefined;
}
