import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { S } from './contract/schemas.js';
import type { GitSyncState } from './contract/types.js';
import { answering } from './answers.js';
import { deleteOf } from './operation.js';

/** The steps of a Git Sync operation, from the first to the last. */
export const GIT_SYNC_STAGES = ['repo_fetch', 'config_check', 'content_process', 'finalize'] as const;

/** The last import or export of a space's Git Sync, with the step it is at. */
export type GitOperation = NonNullable<GitSyncState['operation']> & {
  stage?: (typeof GIT_SYNC_STAGES)[number] | null | undefined;
};

/** The Git Sync state of a space (`GET /spaces/{spaceId}/git/info`). */
export type GitInfo = Omit<GitSyncState, 'operation'> & { operation?: GitOperation | null | undefined };

type Shape = z.ZodObject<Record<string, z.ZodType>>;

/**
 * `git/info` read with the step its operation is at (`stage`): the platform reports it and
 * `GitSyncOperation.stage` shows it, but neither the description nor the API documentation has it,
 * so it is read here, optional, rather than promised by the contract.
 */
const getGitInfoWithStage = answering(op.getSpaceGitInfo, () => {
  const state = S.GitSyncState as unknown as Shape;
  const operation = (state.shape.operation as z.ZodOptional<z.ZodNullable<Shape>>).unwrap().unwrap();
  return {
    200: state.extend({
      operation: operation.extend({ stage: z.enum(GIT_SYNC_STAGES).nullish() }).nullish(),
    }) as unknown as z.ZodType<GitInfo>,
  };
});

/** `GET /spaces/{spaceId}/git/info`: 404 when the space has no Git Sync. */
export const getGitInfo = (api: ReadApi, spaceId: string) =>
  api.read(getGitInfoWithStage, { spaceId }) as Promise<GitInfo>;

/** `POST /spaces/{spaceId}/git/import` or `/git/export` (no body answered): queues the operation. */
export const queueGitSync = (api: RequestApi, spaceId: string, direction: 'import' | 'export', body: object) =>
  api.write(direction === 'import' ? op.importGitRepository : op.exportToGitRepository, { spaceId }, { body });

/** `DELETE /spaces/{spaceId}/git/legacy-installation` */
export const removeLegacyGitInstallation = (api: RequestApi, spaceId: string) =>
  deleteOf(api, op.removeLegacyGitInstallation, { spaceId });
