import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { restPages, sendDelete, sendFor } from './operation.js';
import {
  computedDocument,
  computedRevision,
  openApiSpec,
  openApiSpecContent,
  openApiSpecRaw,
  openApiSpecVersion,
} from './shapes/openapi.js';

/** An OpenAPI specification as REST paths name it: its organization and its slug. */
export interface SpecAddress {
  organizationId: string;
  slug: string;
}

const specPath = (at: SpecAddress, suffix = '') => route`/orgs/${at.organizationId}/openapi/${at.slug}` + suffix;

// --- Specifications ----------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/openapi/{slug}` */
export const getSpec = (api: ReadApi, at: SpecAddress) => api.get(specPath(at), openApiSpec);

/** `GET /orgs/{organizationId}/openapi` */
export const listSpecs = (api: RequestApi, organizationId: string) =>
  restPages(api, route`/orgs/${organizationId}/openapi`, openApiSpec);

/** `POST /orgs/{organizationId}/openapi` */
export const createSpec = (api: RequestApi, organizationId: string, body: { slug: string; source: object }) =>
  sendFor(api, 'POST', route`/orgs/${organizationId}/openapi`, openApiSpec, { body });

/** `PUT /orgs/{organizationId}/openapi/{slug}`: a new source, or the same processed again; 201 when it created the specification. */
export const putSpec = (api: RequestApi, at: SpecAddress, body: { source: object }) =>
  api.send('PUT', specPath(at), { body, schema: openApiSpec });

/** `PATCH /orgs/{organizationId}/openapi/{slug}` */
export const updateSpec = (api: RequestApi, at: SpecAddress, body: { visibility: string }) =>
  sendFor(api, 'PATCH', specPath(at), openApiSpec, { body });

/** `DELETE /orgs/{organizationId}/openapi/{slug}` */
export const deleteSpec = (api: RequestApi, at: SpecAddress) => sendDelete(api, specPath(at));

// --- Versions ----------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/openapi/{slug}/versions/{versionId}`; `latest` names the latest version. */
export const getSpecVersion = (api: RequestApi, at: SpecAddress, versionId: string) =>
  api.get(specPath(at, route`/versions/${versionId}`), openApiSpecVersion);

/** `GET /orgs/{organizationId}/openapi/{slug}/versions`, newest first. */
export const listSpecVersions = (api: RequestApi, at: SpecAddress) =>
  restPages(api, specPath(at, '/versions'), openApiSpecVersion);

/** `GET …/versions/{versionId}/content`: the parsed document (`{ entrypoint, files }`) and its public URL. */
export const getSpecVersionContent = (api: RequestApi, at: SpecAddress, versionId: string) =>
  api.get(specPath(at, route`/versions/${versionId}/content`), openApiSpecContent);

/** `GET …/versions/{versionId}/content/raw`: a URL of the text as submitted, and its format. */
export const getSpecVersionRaw = (api: RequestApi, at: SpecAddress, versionId: string) =>
  api.get(specPath(at, route`/versions/${versionId}/content/raw`), openApiSpecRaw);

// --- Computed content --------------------------------------------------------------------------

/** `POST /spaces/{spaceId}/content/computed/revision`: the pages a computed source generates (a read). */
export const computeRevision = (api: RequestApi, spaceId: string, body: { source: unknown; seed: string }) =>
  api.postRead(route`/spaces/${spaceId}/content/computed/revision`, body, computedRevision);

/** `POST /spaces/{spaceId}/content/computed/document`: the document a computed source generates (a read). */
export const computeDocument = (api: RequestApi, spaceId: string, body: { source: unknown; seed: unknown }) =>
  api.postRead(route`/spaces/${spaceId}/content/computed/document`, body, computedDocument);
