import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { S } from './contract/schemas.js';
import type { OpenAPISpecVersion } from './contract/types.js';
import { listOf, deleteOf } from './operation.js';
import { answering } from './answers.js';
import { answerOf, type AnswerOf, pathOf } from './record.js';

/** An OpenAPI specification as REST paths name it: its organization and its slug. */
export interface SpecAddress {
  organizationId: string;
  slug: string;
}

/** What the API takes as the slug of a specification: letters and digits in groups joined by single "-", 1 to 100 characters. */
export const specSlug = z
  .string()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .regex(/^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/, 'must be letters and digits in groups joined by single "-"');

const specParams = (at: SpecAddress) => ({ organizationId: at.organizationId, specSlug: at.slug });

/**
 * A version as the gateway reads it: its `url` is signed (the text is downloaded from it without a
 * token), so it is kept whole where the description's URL format would mask its `sig=` parameter as
 * a credential. The signature is the platform's grant of that one file, shown to whoever may read
 * the version anyway.
 */
const signedVersion = z.lazy(() =>
  (S.OpenAPISpecVersion as unknown as z.ZodObject).extend({ url: z.string() }),
) as unknown as z.ZodType<OpenAPISpecVersion>;

const getVersionById = answering(op.getOpenAPISpecVersionById, () => ({ 200: signedVersion }));
const getLatestVersion = answering(op.getLatestOpenAPISpecVersion, () => ({ 200: signedVersion }));
const listVersions = answering(op.listOpenAPISpecVersions, () => ({
  200: (answerOf(op.listOpenAPISpecVersions) as unknown as z.ZodObject).extend({
    items: z.array(signedVersion),
  }) as never,
}));

// --- Specifications ----------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/openapi/{specSlug}` */
export const getSpec = (api: ReadApi, at: SpecAddress) => api.read(op.getOpenAPISpecBySlug, specParams(at));

/** `GET /orgs/{organizationId}/openapi` */
export const listSpecs = (api: RequestApi, organizationId: string) =>
  listOf(api, op.listOpenAPISpecs, { organizationId });

/** `POST /orgs/{organizationId}/openapi` */
export const createSpec = async (api: RequestApi, organizationId: string, body: { slug: string; source: object }) =>
  (await api.write(op.createOpenAPISpec, { organizationId }, { body })).data;

/** `PUT /orgs/{organizationId}/openapi/{specSlug}`: a new source, or the same processed again; 201 when it created the specification. */
export const putSpec = (api: RequestApi, at: SpecAddress, body: { source: object }) =>
  api.write(op.createOrUpdateOpenAPISpecBySlug, specParams(at), { body });

/** `PATCH /orgs/{organizationId}/openapi/{specSlug}` */
export const updateSpec = async (api: RequestApi, at: SpecAddress, body: { visibility: string }) =>
  (await api.write(op.updateOpenAPISpecBySlug, specParams(at), { body })).data;

/** `DELETE /orgs/{organizationId}/openapi/{specSlug}` */
export const deleteSpec = (api: RequestApi, at: SpecAddress) =>
  deleteOf(api, op.deleteOpenAPISpecBySlug, specParams(at));

// --- Versions ----------------------------------------------------------------------------------

/** `GET /orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}`; `latest` names the latest version. */
export const getSpecVersion = (api: RequestApi, at: SpecAddress, versionId: string) =>
  versionId === 'latest'
    ? api.read(getLatestVersion, specParams(at))
    : api.read(getVersionById, { ...specParams(at), versionId });

/** `GET /orgs/{organizationId}/openapi/{specSlug}/versions`, newest first. */
export const listSpecVersions = (api: RequestApi, at: SpecAddress) => listOf(api, listVersions, specParams(at));

/** `GET …/versions/{versionId}/content`: the parsed document (`{ entrypoint, files }`) and its public URL. */
export const getSpecVersionContent = (api: RequestApi, at: SpecAddress, versionId: string) =>
  versionId === 'latest'
    ? api.read(op.getLatestOpenAPISpecVersionContent, specParams(at))
    : api.read(op.getOpenAPISpecVersionContentById, { ...specParams(at), versionId });

/** `GET …/versions/latest/content/raw`: a URL of the text of the latest version as submitted, and its format. */
export const getLatestSpecVersionRaw = (api: RequestApi, at: SpecAddress) =>
  api.read(op.getLatestOpenAPISpecVersionContentRaw, specParams(at));

// --- Computed content --------------------------------------------------------------------------

/** `POST /spaces/{spaceId}/content/computed/revision`: the pages a computed source generates (a read). */
export const computeRevision = (api: RequestApi, spaceId: string, body: { source: unknown; seed: string }) =>
  api.postRead(
    pathOf(op.getComputedRevision, { spaceId }),
    body,
    answerOf(op.getComputedRevision)!,
    op.getComputedRevision,
  ) as Promise<AnswerOf<typeof op.getComputedRevision>>;

/** `POST /spaces/{spaceId}/content/computed/document`: the document a computed source generates (a read). */
export const computeDocument = (api: RequestApi, spaceId: string, body: { source: unknown; seed: unknown }) =>
  api.postRead(
    pathOf(op.getComputedDocument, { spaceId }),
    body,
    answerOf(op.getComputedDocument)!,
    op.getComputedDocument,
  ) as Promise<AnswerOf<typeof op.getComputedDocument>>;
