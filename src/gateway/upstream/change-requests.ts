import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { answering } from './answers.js';
import { type Filters, listOf, deleteOf } from './operation.js';

/** Filters of the change request lists of a space and of an organization. */
export type ChangeRequestFilters = Filters<
  'status' | 'creator' | 'contributor' | 'requestedReviewer' | 'conversationsIssuesCluster' | 'orderBy'
>;

/** What both sides of a merge changed differently: a page, one of its blocks or properties, a file, a reusable content or a variable. */
export interface MergeConflict {
  page?: string | null | undefined;
  block?: string | null | undefined;
  property?: string | null | undefined;
  file?: string | null | undefined;
  reusableContent?: string | null | undefined;
  variable?: string | null | undefined;
}

/** The answer of a merge or an update: the revision it made (or the request's, with conflicts). */
export interface MergeResult {
  revision: string;
  result: 'merge' | 'update' | 'conflicts';
  conflicts: MergeConflict[];
}

/**
 * A merge or an update read with its `conflicts`: the platform names what conflicts (and
 * `MergeConflict` shows it), but neither the description nor the API documentation has them (the
 * result `conflicts` alone), so they are read here, none when absent.
 */
const withConflicts = (record: typeof op.mergeChangeRequest | typeof op.updateChangeRequest) =>
  answering(record, () => ({
    200: z.object({
      revision: z.string(),
      result: z.enum(['merge', 'update', 'conflicts']),
      conflicts: z
        .array(
          z.object({
            page: z.string().nullish(),
            block: z.string().nullish(),
            property: z.string().nullish(),
            file: z.string().nullish(),
            reusableContent: z.string().nullish(),
            variable: z.string().nullish(),
          }),
        )
        .default([]),
    }) as never,
  }));
const mergeWithConflicts = withConflicts(op.mergeChangeRequest);
const updateWithConflicts = withConflicts(op.updateChangeRequest);

/**
 * A PDF export read with its URL whole: it is signed (`sig=`) and works without a token for an
 * hour, which is what it is asked for; the description's URL format would mask the signature as a
 * credential.
 */
export const signedPdf = () => ({ 200: z.object({ url: z.string() }) as never });
const getPdf = answering(op.getChangeRequestPDF, signedPdf);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}`: by id or by number (`3`, `#3`). */
export const getChangeRequest = (api: ReadApi, spaceId: string, changeRequestId: string) =>
  api.read(op.getChangeRequestById, { spaceId, changeRequestId });

/** `GET /spaces/{spaceId}/change-requests`, newest first. */
export const listSpaceChangeRequests = (api: RequestApi, spaceId: string, filters: ChangeRequestFilters) =>
  listOf(api, op.listChangeRequestsForSpace, { spaceId }, filters);

/** `GET /orgs/{organizationId}/change-requests`: of every space the caller can read, newest first. */
export const listOrganizationChangeRequests = (
  api: RequestApi,
  organizationId: string,
  filters: ChangeRequestFilters,
) => listOf(api, op.listChangeRequestsForOrganization, { organizationId }, filters);

/** `POST /spaces/{spaceId}/change-requests` */
export const createChangeRequest = async (api: RequestApi, spaceId: string, body: object) =>
  (await api.write(op.createChangeRequest, { spaceId }, { body })).data;

/** `PATCH /spaces/{spaceId}/change-requests/{changeRequestId}`: the request as written. */
export const updateChangeRequest = async (api: RequestApi, spaceId: string, changeRequestId: string, body: object) =>
  (await api.write(op.updateChangeRequestById, { spaceId, changeRequestId }, { body })).data ??
  // The description lets the platform answer 204 (no body): the request is then read as written.
  getChangeRequest(api, spaceId, changeRequestId);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/changes`: what it changes, at most `limit` items. */
export const getChangeRequestChanges = (api: RequestApi, spaceId: string, changeRequestId: string, limit: number) =>
  api.read(op.getChangeRequestChanges, { spaceId, changeRequestId }, { limit });

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content`: a batch of content edits. */
export const updateChangeRequestContent = async (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  changes: unknown[],
) => {
  const { data } = await api.write(
    op.updateChangeRequestContent,
    { spaceId, changeRequestId },
    { body: { changes }, query: { compat: false } },
  );
  // Without `compat`, the platform answers the outcome of each change beside the request.
  if (!('changeRequest' in data)) throw new Error('A batch of content edits answered no outcome of its changes');
  return data;
};

/**
 * `POST /spaces/{spaceId}/change-requests/{changeRequestId}/merge` (into the space's content) or
 * `/update` (the space's content pulled into the change request).
 */
export const mergeChangeRequest = async (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  action: 'merge' | 'update',
) =>
  (await api.write(action === 'merge' ? mergeWithConflicts : updateWithConflicts, { spaceId, changeRequestId }))
    .data as unknown as MergeResult;

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews`, oldest first. */
export const listReviews = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  listOf(api, op.getReviewsByChangeRequestId, { spaceId, changeRequestId });

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}` */
export const getReview = (api: RequestApi, spaceId: string, changeRequestId: string, reviewId: string) =>
  api.read(op.getChangeRequestReviewById, { spaceId, changeRequestId, reviewId });

/** The first 1000 reviews of a change request (`GET …/reviews?limit=1000`): what its subscription follows. */
export const getReviewPage = (api: ReadApi, spaceId: string, changeRequestId: string) =>
  api.read(op.getReviewsByChangeRequestId, { spaceId, changeRequestId }, { limit: 1000 });

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/reviews` */
export const createReview = async (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  body: { status: string; comment?: object },
) => (await api.write(op.submitChangeRequestReview, { spaceId, changeRequestId }, { body })).data;

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers` */
export const listRequestedReviewers = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  listOf(api, op.getRequestedReviewersByChangeRequestId, { spaceId, changeRequestId });

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers` */
export const requestReviewers = async (api: RequestApi, spaceId: string, changeRequestId: string, users: string[]) =>
  (await api.write(op.requestReviewersForChangeRequest, { spaceId, changeRequestId }, { body: { users } })).data;

/** `DELETE /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}` */
export const removeRequestedReviewer = (api: RequestApi, spaceId: string, changeRequestId: string, userId: string) =>
  deleteOf(api, op.removeRequestedReviewerFromChangeRequest, { spaceId, changeRequestId, userId });

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/contributors` */
export const listContributors = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  listOf(api, op.getContributorsByChangeRequestId, { spaceId, changeRequestId });

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/pdf`: a URL of a PDF of its content or of one page. */
export const getChangeRequestPdf = (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  query: Filters<'page' | 'only'>,
) => api.read(getPdf, { spaceId, changeRequestId }, query as never) as Promise<{ url: string }>;
