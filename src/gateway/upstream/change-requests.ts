import type { ReadApi, RequestApi } from './request.js';
import { page } from './shapes/common.js';
import { route } from './client.js';
import { type Filters, restPages, sendDelete, sendFor } from './operation.js';
import {
  changeRequest,
  contentUpdate,
  contributor,
  mergeResult,
  requestedReviewer,
  requestedReviewers,
  review,
} from './shapes/change-requests.js';
import { pdfExport, semanticChanges } from './shapes/content.js';

/** Filters of the change request lists of a space and of an organization. */
export type ChangeRequestFilters = Filters<
  'status' | 'creator' | 'contributor' | 'requestedReviewer' | 'conversationsIssuesCluster' | 'orderBy'
>;

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}`: by id or by number (`3`, `#3`). */
export const getChangeRequest = (api: ReadApi, spaceId: string, changeRequestId: string) =>
  api.get(route`/spaces/${spaceId}/change-requests/${changeRequestId}`, changeRequest);

/** `GET /spaces/{spaceId}/change-requests`, newest first. */
export const listSpaceChangeRequests = (api: RequestApi, spaceId: string, filters: ChangeRequestFilters) =>
  restPages(api, route`/spaces/${spaceId}/change-requests`, changeRequest, filters);

/** `GET /orgs/{organizationId}/change-requests`: of every space the caller can read, newest first. */
export const listOrganizationChangeRequests = (
  api: RequestApi,
  organizationId: string,
  filters: ChangeRequestFilters,
) => restPages(api, route`/orgs/${organizationId}/change-requests`, changeRequest, filters);

/** `POST /spaces/{spaceId}/change-requests` */
export const createChangeRequest = (api: RequestApi, spaceId: string, body: object) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/change-requests`, changeRequest, { body });

/** `PATCH /spaces/{spaceId}/change-requests/{changeRequestId}` */
export const updateChangeRequest = (api: RequestApi, spaceId: string, changeRequestId: string, body: object) =>
  sendFor(api, 'PATCH', route`/spaces/${spaceId}/change-requests/${changeRequestId}`, changeRequest, { body });

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/changes`: what it changes, at most `limit` items. */
export const getChangeRequestChanges = (api: RequestApi, spaceId: string, changeRequestId: string, limit: number) =>
  api.get(route`/spaces/${spaceId}/change-requests/${changeRequestId}/changes`, semanticChanges, { limit });

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/content`: a batch of content edits. */
export const updateChangeRequestContent = (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  changes: unknown[],
) =>
  sendFor(api, 'POST', route`/spaces/${spaceId}/change-requests/${changeRequestId}/content`, contentUpdate, {
    body: { changes },
    query: { compat: false },
  });

/**
 * `POST /spaces/{spaceId}/change-requests/{changeRequestId}/merge` (into the space's content) or
 * `/update` (the space's content pulled into the change request).
 */
export const mergeChangeRequest = (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  action: 'merge' | 'update',
) => sendFor(api, 'POST', route`/spaces/${spaceId}/change-requests/${changeRequestId}/${action}`, mergeResult);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews`, oldest first. */
export const listReviews = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  restPages(api, route`/spaces/${spaceId}/change-requests/${changeRequestId}/reviews`, review);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/reviews/{reviewId}` */
export const getReview = (api: RequestApi, spaceId: string, changeRequestId: string, reviewId: string) =>
  api.get(route`/spaces/${spaceId}/change-requests/${changeRequestId}/reviews/${reviewId}`, review);

/** The first 1000 reviews of a change request (`GET …/reviews?limit=1000`): what its subscription follows. */
export const getReviewPage = (api: ReadApi, spaceId: string, changeRequestId: string) =>
  api.get(route`/spaces/${spaceId}/change-requests/${changeRequestId}/reviews`, page(review), { limit: 1000 });

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/reviews` */
export const createReview = (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  body: { status: string; comment?: object },
) => sendFor(api, 'POST', route`/spaces/${spaceId}/change-requests/${changeRequestId}/reviews`, review, { body });

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers` */
export const listRequestedReviewers = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  restPages(api, route`/spaces/${spaceId}/change-requests/${changeRequestId}/requested-reviewers`, requestedReviewer);

/** `POST /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers` */
export const requestReviewers = (api: RequestApi, spaceId: string, changeRequestId: string, users: string[]) =>
  sendFor(
    api,
    'POST',
    route`/spaces/${spaceId}/change-requests/${changeRequestId}/requested-reviewers`,
    requestedReviewers,
    { body: { users } },
  );

/** `DELETE /spaces/{spaceId}/change-requests/{changeRequestId}/requested-reviewers/{userId}` */
export const removeRequestedReviewer = (api: RequestApi, spaceId: string, changeRequestId: string, userId: string) =>
  sendDelete(api, route`/spaces/${spaceId}/change-requests/${changeRequestId}/requested-reviewers/${userId}`);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/contributors` */
export const listContributors = (api: RequestApi, spaceId: string, changeRequestId: string) =>
  restPages(api, route`/spaces/${spaceId}/change-requests/${changeRequestId}/contributors`, contributor);

/** `GET /spaces/{spaceId}/change-requests/{changeRequestId}/pdf`: a URL of a PDF of its content or of one page. */
export const getChangeRequestPdf = (
  api: RequestApi,
  spaceId: string,
  changeRequestId: string,
  query: Filters<'page' | 'only'>,
) => api.get(route`/spaces/${spaceId}/change-requests/${changeRequestId}/pdf`, pdfExport, query);
