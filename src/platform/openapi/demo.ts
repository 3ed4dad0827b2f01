import { newId } from '../http.js';
import type { Db } from '../store/db.js';
import { textHash } from './parse.js';

/** The slug of the demo OpenAPI specification of Acme (`demo-content/openapi/` declares it). */
export const DEMO_SPEC_SLUG = 'acme-petstore';
/** The title of the demo space computing the specification's reference. */
export const DEMO_SPEC_SPACE = 'Petstore API';

/**
 * Stores a specification with its versions (YAML texts, oldest first), processed: no processing job is needed,
 * since it runs inside the demo's transaction (the demo's texts are valid, which the tests check with the parser).
 */
export function seedDemoSpec(
  db: Db,
  orgId: string,
  spec: { slug: string; visibility: 'public' | 'private'; versions: ReadonlyArray<{ text: string; at: string }> },
): void {
  const specId = newId();
  const versions = spec.versions.map((version) => ({ ...version, id: newId() }));
  const first = versions[0]!;
  const last = versions[versions.length - 1]!;
  db.prepare(
    `INSERT INTO openapi_specs (id, org_id, slug, source_url, source_text, generation, visibility, processing_state, last_version, last_processed_at,
       error_count, created_at, updated_at)
     VALUES (?, ?, ?, NULL, ?, 1, ?, 'complete', ?, ?, 0, ?, ?)`,
  ).run(specId, orgId, spec.slug, last.text, spec.visibility, last.id, last.at, first.at, last.at);
  const insertVersion = db.prepare(
    'INSERT INTO openapi_spec_versions (id, spec_id, seq, text, format, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  versions.forEach((version, index) => {
    insertVersion.run(version.id, specId, index + 1, version.text, 'yaml', textHash(version.text), version.at);
  });
}
