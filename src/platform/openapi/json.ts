import { atLeast, type Role } from '../access.js';
import { json } from '../http.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { versionDocument } from './documents.js';
import type { SpecProblem } from './parse.js';
import { type OpenAPISpecRow, type OpenAPIVersionRow, shownUrl, versionFileName, versionUrl } from './store.js';

/** The JSON of a specification (`OpenAPISpec`) for a caller of organization role `role`. */
export function specJson(row: OpenAPISpecRow, role: Role | null | undefined, links: Links) {
  const errors = json.parse<SpecProblem[]>(row.errors, []);
  const sourceURL = row.source_url ? shownUrl(row.source_url) : '';
  return {
    object: 'openapi-spec' as const,
    id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    slug: row.slug,
    ...(sourceURL ? { sourceURL } : {}),
    processingState: row.processing_state,
    visibility: row.visibility,
    ...(row.last_version ? { lastVersion: row.last_version } : {}),
    ...(row.last_processed_at ? { lastProcessedAt: row.last_processed_at } : {}),
    ...(row.error_code ? { lastProcessErrorCode: row.error_code } : {}),
    lastProcessedErrors: errors,
    lastProcessedErrorCount: row.error_count,
    permissions: { view: true, edit: atLeast(role, 'create') },
    urls: {
      location: specLocation(row, links),
      app: `${links.app}/o/${row.org_id}/openapi/${encodeURIComponent(row.slug)}`,
    },
  };
}

/** A version of a specification (`OpenAPISpecVersion`). */
export function versionJson(db: Db, spec: OpenAPISpecRow, version: OpenAPIVersionRow, links: Links) {
  return {
    object: 'openapi-spec-version' as const,
    id: version.id,
    createdAt: version.created_at,
    url: versionUrl(db, spec, version, links),
    urls: { location: `${specLocation(spec, links)}/versions/${version.id}` },
  };
}

/**
 * The content of a version (`OpenAPISpecContent`): its document in a filesystem of one file (the
 * entrypoint; external references are not followed, so there is no other), and its URLs: the
 * stored text, and the same URL as the public one when the specification is public.
 */
export function contentJson(db: Db, spec: OpenAPISpecRow, version: OpenAPIVersionRow, links: Links) {
  const name = versionFileName(spec, version);
  const url = versionUrl(db, spec, version, links);
  return {
    filesystem: { entrypoint: name, files: { [name]: versionDocument(version) } },
    urls: { source: url, public: spec.visibility === 'public' ? url : null },
  };
}

/** The stored text of a version and its format. */
export function rawJson(version: OpenAPIVersionRow) {
  return { text: version.text, format: version.format };
}

function specLocation(row: Pick<OpenAPISpecRow, 'org_id' | 'slug'>, links: Links): string {
  return `${links.api}/orgs/${row.org_id}/openapi/${encodeURIComponent(row.slug)}`;
}
