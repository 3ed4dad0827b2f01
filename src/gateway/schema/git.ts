import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { isGatewayError } from '../errors.js';
import {
  getGitInfo,
  type GitInfo,
  type GitOperation,
  queueGitSync,
  removeLegacyGitInstallation,
} from '../upstream/git.js';
import type { Space } from '../upstream/contract/types.js';
import { builder } from './kit/builder.js';
import { follow } from './kit/live.js';
import { platformKey } from './kit/ids.js';
import { linkTo } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { deletedPayload, payloadType } from './kit/payloads.js';
import { idInput } from './kit/ids.js';
import { restEnum } from './kit/enums.js';
import { GitProviderEnum, SpaceGitSync, SpaceNode } from './spaces.js';

/**
 * Git Sync of a space: its state (`git/info`), and the import, export and removal of the
 * installation. Import and export run in the background on the platform: the mutations answer
 * the operation as `git/info` reports it right after it was queued; `Space.gitInfo` follows it.
 */

const OperationStateEnum = restEnum('GitSyncOperationState', 'Where a Git Sync operation is.', {
  running: 'Queued or running.',
  success: 'Done: the space and the repository agree.',
  failure: 'Failed: see `error`; nothing was changed.',
  timeout: 'Stopped: it ran too long.',
});

const DirectionEnum = restEnum('GitSyncDirection', 'Which way a Git Sync operation goes.', {
  import: 'From the repository into the space.',
  export: 'From the space into the repository.',
});

const StageEnum = restEnum('GitSyncOperationStage', 'The step a Git Sync operation is at (or ended at).', {
  repo_fetch: 'Fetching the repository.',
  config_check: 'Reading and checking its configuration (`.gitbook.yaml`, file sizes).',
  content_process: 'Turning files into content, or content into files.',
  finalize: 'Writing the revision, or committing and pushing.',
});

const InstallationStatusEnum = restEnum('GitSyncInstallationStatus', 'State of the Git Sync installation of a space.', {
  active: 'Working.',
  pending: 'Being set up.',
  unauthenticated: 'Its credentials no longer work.',
});

const GitSyncOperation = builder.objectRef<GitOperation>('GitSyncOperation').implement({
  description: 'The last import or export of a space.',
  fields: (t) => ({
    state: t.field({ type: OperationStateEnum, description: 'Where it is.', resolve: (o) => o.state }),
    direction: t.field({ type: DirectionEnum, description: 'Which way it goes.', resolve: (o) => o.direction }),
    stage: t.field({
      type: StageEnum,
      nullable: true,
      description: 'The step it is at, or ended at.',
      resolve: (o) => o.stage ?? null,
    }),
    startedAt: t.field({ type: 'DateTime', description: 'When it was asked for.', resolve: (o) => o.startedAt }),
    endedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it ended; null while it runs.',
      resolve: (o) => o.endedAt ?? null,
    }),
    error: t.string({
      nullable: true,
      description: 'Why it failed, readable; null unless it failed.',
      resolve: (o) => o.error ?? null,
    }),
  }),
});

const GitSyncState = builder.objectRef<GitInfo>('GitSyncState').implement({
  description: 'The Git Sync of a space: the repository, the installation and the last operation.',
  fields: (t) => ({
    repoName: t.string({
      nullable: true,
      description: 'Name of the repository (`owner/name`).',
      resolve: (g) => g.repoName ?? null,
    }),
    installationStatus: t.field({
      type: InstallationStatusEnum,
      nullable: true,
      description: 'State of the installation.',
      resolve: (g) => g.installationStatus ?? null,
    }),
    installationProvider: t.field({
      type: GitProviderEnum,
      nullable: true,
      description: 'Git provider.',
      resolve: (g) => g.installationProvider ?? null,
    }),
    installationId: t.string({
      nullable: true,
      description:
        'Id of the installation with the Git provider (its state is `installationStatus`: no other object of the graph).',
      resolve: (g) => g.installationId ?? null,
    }),
    url: t.string({
      nullable: true,
      description: 'URL of the repository, credentials masked as `***`.',
      resolve: (g) => g.url ?? null,
    }),
    operation: t.field({
      type: GitSyncOperation,
      nullable: true,
      description: 'The last import or export; null before the first.',
      resolve: (g) => g.operation ?? null,
    }),
    operationTimeout: t.int({
      nullable: true,
      description: 'How long an operation may run, in milliseconds.',
      resolve: (g) => g.operationTimeout ?? null,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last changed.',
      resolve: (g) => g.updatedAt ?? null,
    }),
  }),
});

builder.objectFields(SpaceGitSync, (t) => ({
  installationStatus: t.field({
    type: InstallationStatusEnum,
    nullable: true,
    description: 'State of the installation.',
    resolve: (g) => g.installationStatus ?? null,
  }),
  installationId: t.string({
    nullable: true,
    description:
      'Id of the installation with the Git provider (its state is `installationStatus`: no other object of the graph).',
    resolve: (g) => g.installationId ?? null,
  }),
  operation: t.field({
    type: GitSyncOperation,
    nullable: true,
    description: 'The last import or export, as the space was read; `Space.gitInfo` reads it afresh.',
    resolve: (g) => g.operation ?? null,
  }),
}));

/** The Git Sync state of a space; null when it has none (the platform answers 404). */
async function readGitInfo(ctx: GatewayContext, spaceId: string): Promise<GitInfo | null> {
  try {
    return await getGitInfo(ctx.api, spaceId);
  } catch (error) {
    if (isGatewayError(error) && error.code === 'NOT_FOUND') {
      // A space that does not exist is NOT_FOUND where it is asked; a space without Git Sync has no state.
      return null;
    }
    throw error;
  }
}

builder.objectFields(SpaceNode, (t) => ({
  gitInfo: t.field({
    type: GitSyncState,
    nullable: true,
    description:
      'The state of its Git Sync, with the last import or export; null when it is not synchronized with a repository.',
    extensions: upstream.fetch(1),
    resolve: (space: Space, _args, ctx) => readGitInfo(ctx, space.id),
  }),
}));

const GIT_URL_DESCRIPTION =
  'URL of the repository. It may carry credentials (`https://user:token@host/repo.git`): they are used for this operation only, and appear in no answer, error or log.';

const gitFields = {
  spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
  url: inputField(
    'String',
    GIT_URL_DESCRIPTION,
    z.string().trim().min(1, 'must be a repository URL').max(2048, 'must be at most 2048 characters'),
  ),
  ref: inputField(
    'String',
    'The branch, as `refs/heads/<name>`.',
    z.string().regex(/^refs\/heads\/[^\s~^:?*[\\]+$/, 'must be a branch ref such as refs/heads/main'),
  ),
  repoProjectDirectory: inputField(
    'String',
    'A directory of the repository holding the content (monorepos); the root when left out.',
    z.string().max(512).nullish(),
  ),
  force: inputField(
    'Boolean',
    'Import: replace content the space changed since the last sync. Export: overwrite a branch that changed since.',
    z.boolean().nullish(),
  ),
  standalone: inputField(
    'Boolean',
    'Import: make a revision without moving the live content. Export: a snapshot that does not link the space to the repository.',
    z.boolean().nullish(),
  ),
  timestamp: inputField(
    'DateTime',
    'When the event that asked for it happened: operations of a space are applied in this order, and an older one than the last applied is skipped.',
    z
      .union([z.string(), z.date()])
      .transform((value) => new Date(value).toISOString())
      .nullish(),
  ),
};

interface GitPayload {
  spaceId: string;
  operation: GitOperation | null;
}

const gitPayload = (name: string) =>
  payloadType<GitPayload>(name, (t) => ({
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space.',
      extensions: upstream.link,
      resolve: (p, _a, _ctx, info) => (p.spaceId ? linkTo(SpaceNode, p.spaceId, info) : null),
    }),
    operation: t.field({
      type: GitSyncOperation,
      nullable: true,
      description:
        'The operation as the platform reports it right after it was queued (usually RUNNING); follow it with `Space.gitInfo`.',
      resolve: (p) => p.operation ?? null,
    }),
  }));

async function queue(
  ctx: GatewayContext,
  direction: 'import' | 'export',
  input: Record<string, unknown> & { spaceId: string },
): Promise<GitPayload> {
  const { spaceId, ...fields } = input;
  const body = Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null));
  await queueGitSync(ctx.api, spaceId, direction, body);
  const info = await readGitInfo(ctx, spaceId);
  return { spaceId, operation: info?.operation ?? null };
}

declareMutation('importFromGit', {
  description:
    'Imports a Git repository into a space (edit role), in the background: its summary, pages, files, reusable contents and variables become a new revision. Follow it with `Space.gitInfo`.',
  input: 'The space and the repository to import.',
  fields: gitFields,
  payload: gitPayload,
  extensions: upstream.fetch(2),
  run: (input, ctx) => queue(ctx, 'import', input),
});

declareMutation('exportToGit', {
  description:
    'Exports the live content of a space to a Git repository (edit role), in the background, as one commit pushed to the branch (created when missing).',
  input: 'The space, the repository and the commit message.',
  fields: {
    ...gitFields,
    commitMessage: inputField(
      'String',
      'Message of the commit.',
      z.string().trim().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
    ),
  },
  payload: gitPayload,
  extensions: upstream.fetch(2),
  run: (input, ctx) => queue(ctx, 'export', input),
});

declareMutation('removeLegacyGitInstallation', {
  description: 'Removes the Git Sync installation of a space (admins): it is no longer linked to its repository.',
  input: 'The space.',
  fields: { spaceId: gitFields.spaceId },
  payload: (name) => deletedPayload(name, 'True when an installation was removed, false when the space had none.'),
  run: ({ spaceId }, ctx) => removeLegacyGitInstallation(ctx.api, spaceId),
});

builder.subscriptionField('gitSyncUpdated', (t) =>
  t.field({
    type: GitSyncState,
    description:
      "A space's Git Sync: first as it is, then after each change, its imports and exports included (queued, running, done or failed). Ends with NOT_FOUND when the space is gone, no longer visible to you, or no longer synchronized.",
    args: { spaceId: t.arg.id({ required: true, description: 'Platform id or global ID of the space.' }) },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const spaceId = platformKey(String(args.spaceId), 'Space');
      return follow(ctx, `git ${spaceId}`, (api) => getGitInfo(api, spaceId));
    },
    resolve: (info) => info,
  }),
);
