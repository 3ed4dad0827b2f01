import type { Links } from '../links.js';
import { normalizedDocument } from '../schemas.js';
import type { Db } from '../store/db.js';
import { countTranslatedPages, type TranslationRow, translationStatus } from './store.js';

const seconds = (ms: number) => Math.round(ms / 1000);

/** The `Translation` of the API. */
export function translationJson(db: Db, row: TranslationRow, links: Links) {
  return {
    object: 'translation' as const,
    id: row.id,
    status: translationStatus(db, row),
    source: { space: row.source_space, language: row.source_language },
    language: row.language,
    instructions: normalizedDocument(JSON.parse(row.instructions)),
    // Absent until a run completes (or when the result space was removed for good).
    ...(row.result_space && row.result_revision
      ? { result: { space: row.result_space, revision: row.result_revision, language: row.language } }
      : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    stats: {
      runs: row.runs,
      totalWords: row.total_words,
      totalPages: countTranslatedPages(db, row.id),
      totalDuration: seconds(row.total_duration_ms),
      latestRunDuration: seconds(row.latest_duration_ms),
      latestPages: row.latest_pages,
      latestWords: row.latest_words,
    },
    // Beyond the API description: the latest run failed (the translator was down after every
    // attempt); the result, if any, is that of the last run that completed.
    ...(row.last_error ? { lastRunError: { message: row.last_error, failedAt: row.last_error_at } } : {}),
    // Only admins see translations at all.
    permissions: { view: true, edit: true },
    urls: { location: `${links.api}/orgs/${row.org_id}/translations/${row.id}` },
  };
}
