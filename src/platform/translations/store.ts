import { badRequest, conflict, newId, notFound, now } from '../http.js';
import type { JobQueue } from '../jobs.js';
import type { OrganizationRow, SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { onCurrentRevision } from '../content/current.js';

/**
 * Translations of an organization: a source space translated into a target language, at most one
 * per source space and language. Runs (translations/run.ts) write the translated content into a
 * result space, created by the first run; each run is a job of the queue, keyed by the
 * translation, so runs of one translation never overlap and a run asked while another waits
 * joins it. A new current revision of a source space (a merge, a Git import…) asks for a run of
 * each of its translations, in the transaction that moved it.
 *
 * `status` is not stored: it is read from the queue (`running` while a run runs, `pending` while
 * one waits, or before the first run completes), so it is true after a restart too.
 */

/** The job kind of a translation run. */
export const TRANSLATION_JOB = 'translation-run';

/** Attempts of a run before it fails (the translator down): retried after 1 s, then 2 s. */
export const RUN_ATTEMPTS = 3;

export interface TranslationRow {
  id: string;
  org_id: string;
  source_space: string;
  source_language: string;
  language: string;
  /** JSON of a Document. */
  instructions: string;
  result_space: string | null;
  result_revision: string | null;
  /** The source revision the result was translated from. */
  source_revision: string | null;
  runs: number;
  total_words: number;
  total_duration_ms: number;
  latest_duration_ms: number;
  latest_pages: number;
  latest_words: number;
  /** Why the latest run failed, cleared by the next that completes. */
  last_error: string | null;
  last_error_at: string | null;
  created_at: string;
  updated_at: string;
}

export type TranslationStatus = 'pending' | 'running' | 'completed';

/** Instructions of a translation created without any. */
export const EMPTY_INSTRUCTIONS = { object: 'document', data: { schemaVersion: 1 }, nodes: [] };

export function translationsOf(db: Db, orgId: string): TranslationRow[] {
  return db
    .prepare('SELECT * FROM translations WHERE org_id = ? ORDER BY created_at, id')
    .all(orgId) as TranslationRow[];
}

export function findTranslation(db: Db, id: string): TranslationRow | undefined {
  return db.prepare('SELECT * FROM translations WHERE id = ?').get(id) as TranslationRow | undefined;
}

export function requireTranslation(db: Db, orgId: string, id: string): TranslationRow {
  const row = db.prepare('SELECT * FROM translations WHERE id = ? AND org_id = ?').get(id, orgId) as
    | TranslationRow
    | undefined;
  if (!row) throw notFound('Translation');
  return row;
}

/** Whether a run of the translation is waiting in the queue (`queued`) or running. */
function hasRun(db: Db, id: string, state: 'queued' | 'running'): boolean {
  return (
    db
      .prepare('SELECT 1 FROM jobs WHERE kind = ? AND key = ? AND state = ? LIMIT 1')
      .get(TRANSLATION_JOB, id, state) !== undefined
  );
}

/** `running` while a run runs, `pending` while one waits or none has completed yet, else `completed`. */
export function translationStatus(db: Db, row: TranslationRow): TranslationStatus {
  if (hasRun(db, row.id, 'running')) return 'running';
  if (hasRun(db, row.id, 'queued')) return 'pending';
  return row.result_space && row.result_revision ? 'completed' : 'pending';
}

export interface NewTranslation {
  language: string;
  source: { space: string; language?: string | undefined };
  instructions?: unknown;
}

/**
 * Creates a translation (and nothing else: the result space comes with the first run). The source
 * is a live space of the organization; its language is the one given, else the space's, else
 * English; the target language must differ from it; a second translation of one source into one
 * language is a 409.
 */
export function createTranslation(db: Db, org: OrganizationRow, fields: NewTranslation): TranslationRow {
  const space = db
    .prepare('SELECT * FROM spaces WHERE id = ? AND org_id = ? AND deleted_at IS NULL')
    .get(fields.source.space, org.id) as SpaceRow | undefined;
  if (!space)
    throw badRequest(`Invalid body field "source.space": no space ${fields.source.space} in the organization`);
  const sourceLanguage = fields.source.language ?? space.language ?? 'en';
  if (fields.language === sourceLanguage) {
    throw badRequest(`Invalid body field "language": must differ from the source language (${sourceLanguage})`);
  }
  const existing = db
    .prepare('SELECT id FROM translations WHERE source_space = ? AND language = ?')
    .pluck(true)
    .get(space.id, fields.language) as string | undefined;
  if (existing) throw conflict(`The space ${space.id} already has a translation into ${fields.language} (${existing})`);
  const id = newId();
  const at = now();
  db.prepare(
    `INSERT INTO translations (id, org_id, source_space, source_language, language, instructions, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    org.id,
    space.id,
    sourceLanguage,
    fields.language,
    JSON.stringify(fields.instructions ?? EMPTY_INSTRUCTIONS),
    at,
    at,
  );
  return findTranslation(db, id)!;
}

/** Replaces the instructions; the next run translates every page again with them. */
export function updateInstructions(db: Db, row: TranslationRow, instructions: unknown): TranslationRow {
  db.prepare('UPDATE translations SET instructions = ?, updated_at = ? WHERE id = ?').run(
    JSON.stringify(instructions),
    now(),
    row.id,
  );
  return findTranslation(db, row.id)!;
}

/**
 * Deletes a translation; its result space stays, as any space (a run still queued finds nothing
 * to do). False when there was none.
 */
export function deleteTranslation(db: Db, orgId: string, id: string): boolean {
  return db.prepare('DELETE FROM translations WHERE id = ? AND org_id = ?').run(id, orgId).changes > 0;
}

/**
 * Asks for a run of a translation: enqueues one unless one is already waiting (which will read
 * the newest source anyway). Call inside the transaction of the write that asks for it.
 */
export function requestRun(db: Db, queue: JobQueue, translationId: string): void {
  if (hasRun(db, translationId, 'queued')) return;
  queue.enqueue(TRANSLATION_JOB, { translation: translationId }, { key: translationId, maxAttempts: RUN_ATTEMPTS });
}

/**
 * Runs the translations of a space whenever its current revision moves (a change request merged,
 * a Git import…), in the transaction that moves it. Returns the function that stops watching.
 */
export function watchTranslationSources(db: Db, queue: JobQueue): () => void {
  const sourced = db.prepare('SELECT id FROM translations WHERE source_space = ?').pluck(true);
  return onCurrentRevision(db, (spaceId) => {
    for (const id of sourced.all(spaceId) as string[]) requestRun(db, queue, id);
  });
}

/** The pages a translation covers. */
export function countTranslatedPages(db: Db, translationId: string): number {
  return db
    .prepare("SELECT COUNT(*) FROM translation_items WHERE translation_id = ? AND kind = 'page'")
    .pluck(true)
    .get(translationId) as number;
}
