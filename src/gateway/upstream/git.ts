import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import { route } from './client.js';
import { sendDelete } from './operation.js';
import { dateTime, url } from './shapes/common.js';
import { GIT_PROVIDERS, gitSyncOperation } from './shapes/spaces.js';

/** The Git Sync state of a space (`GET /spaces/{spaceId}/git/info`). */
export const gitInfo = z.object({
  repoName: z.string().nullish(),
  installationStatus: z.enum(['unauthenticated', 'active', 'pending']).nullish(),
  installationProvider: z.enum(GIT_PROVIDERS).nullish(),
  installationId: z.string().nullish(),
  url: url.nullish(),
  operation: gitSyncOperation.nullish(),
  operationTimeout: z.number().nullish(),
  updatedAt: dateTime.nullish(),
});
export type GitInfo = z.infer<typeof gitInfo>;

/** `GET /spaces/{spaceId}/git/info`: 404 when the space has no Git Sync. */
export const getGitInfo = (api: ReadApi, spaceId: string) => api.get(route`/spaces/${spaceId}/git/info`, gitInfo);

/** `POST /spaces/{spaceId}/git/import` or `/git/export` (no body answered): queues the operation. */
export const queueGitSync = (api: RequestApi, spaceId: string, direction: 'import' | 'export', body: object) =>
  api.send('POST', route`/spaces/${spaceId}/git/${direction}`, { body });

/** `DELETE /spaces/{spaceId}/git/legacy-installation` */
export const removeLegacyGitInstallation = (api: RequestApi, spaceId: string) =>
  sendDelete(api, route`/spaces/${spaceId}/git/legacy-installation`);
