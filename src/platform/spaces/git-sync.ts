import type { SpaceRow } from '../rows.js';

/**
 * What a space keeps of its Git Sync, in its `git_sync` column: the repository (its URL without
 * credentials), the ref and project directory, the last operation with its stage, and what was last
 * synchronized. Git Sync (`git/`) writes it; the space's answers show it as `gitSync`.
 */

/** How long an operation may run. */
export const OPERATION_TIMEOUT_MS = 10 * 60 * 1000;

export type Direction = 'import' | 'export';
export type Stage = 'repo_fetch' | 'config_check' | 'content_process' | 'finalize';

export interface GitOperation {
  state: 'running' | 'success' | 'failure' | 'timeout';
  direction: Direction;
  stage: Stage;
  startedAt: string;
  updatedAt: string;
  completedAt?: string;
  endedAt?: string;
  error?: string;
}

/** What the space keeps of its Git Sync (the `git_sync` column). */
export interface GitSyncStored {
  repoName?: string;
  installationProvider?: string;
  url?: string;
  ref?: string;
  repoProjectDirectory?: string;
  operation?: GitOperation;
  /** The newest `timestamp` of an operation applied. */
  lastTimestamp?: string;
  /** The commit and revision of the last successful operation: what both sides last agreed on. */
  lastCommit?: string;
  lastRevision?: string;
  updatedAt?: string;
}

/** A repository URL as it may be stored, shown or logged: without user name or password. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@');
}

/** What the space keeps of its Git Sync, parsed (empty without one). */
export const storedGitSync = (space: Pick<SpaceRow, 'git_sync'>): GitSyncStored =>
  space.git_sync ? (JSON.parse(space.git_sync) as GitSyncStored) : {};

/** The GitSyncState of the API, from what the space keeps; undefined when it has no Git Sync. */
export function gitSyncState(space: SpaceRow): Record<string, unknown> | undefined {
  if (!space.git_sync) return undefined;
  const state = storedGitSync(space);
  return {
    ...(state.repoName ? { repoName: state.repoName } : {}),
    installationStatus: 'active',
    installationProvider: state.installationProvider ?? 'github',
    installationId: `git-${space.id}`,
    ...((state as { integration?: string }).integration
      ? { integration: (state as { integration?: string }).integration }
      : {}),
    // Stored without credentials; masked again in case an older release stored them.
    ...(state.url ? { url: maskUrl(state.url) } : {}),
    ...(state.operation
      ? {
          operation: {
            state: state.operation.state,
            direction: state.operation.direction,
            stage: state.operation.stage,
            startedAt: state.operation.startedAt,
            ...(state.operation.endedAt ? { endedAt: state.operation.endedAt } : {}),
            ...(state.operation.error ? { error: state.operation.error } : {}),
          },
        }
      : {}),
    operationTimeout: OPERATION_TIMEOUT_MS,
    ...(state.updatedAt ? { updatedAt: state.updatedAt } : {}),
  };
}
