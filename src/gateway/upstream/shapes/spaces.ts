import { z } from 'zod';
import { dateTime, editMode, mergeRules, role, url, VISITOR_AUTH_BACKENDS, visibility } from './common.js';

/** The Git providers a space can be synchronized with (the API's `GitSyncProvider`). */
export const GIT_PROVIDERS = ['github', 'gitlab', 'github-legacy'] as const;

/** The last import or export of a space's Git Sync. */
export const gitSyncOperation = z.object({
  state: z.enum(['running', 'failure', 'success', 'timeout']),
  direction: z.enum(['import', 'export']),
  stage: z.enum(['repo_fetch', 'config_check', 'content_process', 'finalize']).nullish(),
  startedAt: dateTime,
  endedAt: dateTime.nullish(),
  error: z.string().nullish(),
});

export const space = z.object({
  object: z.literal('space'),
  id: z.string(),
  title: z.string(),
  emoji: z.string().nullish(),
  visibility,
  createdAt: dateTime,
  updatedAt: dateTime,
  deletedAt: dateTime.nullish(),
  editMode: editMode.nullish(),
  mergeRules: mergeRules.nullish(),
  urls: z.object({
    location: url.nullish(),
    app: url.nullish(),
    published: url.nullish(),
    public: url.nullish(),
    icon: url.nullish(),
  }),
  organization: z.string(),
  parent: z.string().nullish(),
  language: z.string().nullish(),
  gitSync: z
    .object({
      repoName: z.string().nullish(),
      installationProvider: z.enum(GIT_PROVIDERS).nullish(),
      integration: z.string().nullish(),
      url: url.nullish(),
      updatedAt: dateTime.nullish(),
      installationStatus: z.enum(['unauthenticated', 'active', 'pending']).nullish(),
      installationId: z.string().nullish(),
      operation: gitSyncOperation.nullish(),
    })
    .nullish(),
  visitorAuth: z.object({ backend: z.enum(VISITOR_AUTH_BACKENDS).nullish() }).nullish(),
  revision: z.string(),
  defaultLevel: z.union([role, z.literal('inherit')]).nullish(),
  comments: z.number().int().default(0),
  changeRequests: z.number().int().default(0),
  changeRequestsOpen: z.number().int().default(0),
  changeRequestsDraft: z.number().int().default(0),
  permissions: z
    .object({
      view: z.boolean(),
      access: z.boolean(),
      admin: z.boolean(),
      viewInviteLinks: z.boolean(),
      edit: z.boolean(),
      triggerGitSync: z.boolean(),
      comment: z.boolean(),
      merge: z.boolean(),
      review: z.boolean(),
      installIntegration: z.boolean(),
    })
    .partial(),
});
export type Space = z.infer<typeof space>;
