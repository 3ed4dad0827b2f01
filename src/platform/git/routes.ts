import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { demand } from '../access.js';
import { badRequest, notFound, parseBody, sendDeleted } from '../http.js';
import type { JobQueue } from '../jobs.js';
import { refProblem, repositoryProblem } from './remote.js';
import { gitSyncState, type Direction } from '../spaces/git-sync.js';
import { queueOperation } from './sync.js';
import { clearGitSync } from '../spaces/store.js';
import { CONDITIONAL } from '../conditional.js';

type SpaceParams = { spaceId: string };

const common = {
  url: z.string().min(1, 'must be a repository URL').max(2048, 'must be at most 2048 characters'),
  ref: z.string().superRefine((ref, context) => {
    const problem = refProblem(ref);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  }),
  repoProjectDirectory: z.string().max(512, 'must be at most 512 characters').optional(),
  timestamp: z
    .string()
    .datetime({ offset: true, message: 'must be a date-time such as 2026-01-31T12:00:00Z' })
    .optional(),
  force: z.boolean().optional(),
  standalone: z.boolean().optional(),
  // Accepted as the description has them, not used by this platform.
  repoCacheID: z.string().optional(),
  repoTreeURL: z.string().optional(),
  repoCommitURL: z.string().optional(),
  gitInfo: z.object({ provider: z.enum(['github', 'gitlab']), url: z.string() }).optional(),
};

const importBody = z.strictObject(common);
const exportBody = z.strictObject({
  ...common,
  commitMessage: z.string().min(1, 'must not be empty').max(4096, 'must be at most 4096 characters'),
});

/** A project directory inside the repository: relative, without `..`, normalized. */
function projectDirectory(value: string | undefined): string {
  if (value === undefined) return '';
  const parts = value
    .replace(/\\/g, '/')
    .split('/')
    .filter((part) => part !== '' && part !== '.');
  if (value.startsWith('/') || parts.includes('..'))
    throw badRequest(
      'Invalid body field "repoProjectDirectory": must be a path inside the repository, without ".." or a leading "/"',
    );
  return parts.join('/');
}

/** Options of the Git routes. */
export interface GitRouteOptions {
  queue: JobQueue;
  /** Accept `file://`, `http://` URLs and local paths (demo and test runs). */
  allowLocal: boolean;
}

/**
 * Git Sync: import and export (answered 204, run in the background by the job queue), the state
 * of a space's sync, and the removal of its installation.
 */
export function gitRoutes(app: FastifyInstance, options: GitRouteOptions): void {
  const queueFor =
    (direction: Direction) =>
    async (request: FastifyRequest<{ Params: SpaceParams }>, reply: import('fastify').FastifyReply) => {
      const body = parseBody(direction === 'import' ? importBody : exportBody, request.body ?? {}) as z.infer<
        typeof exportBody
      >;
      const { db, access } = request.ctx;
      const { space, role } = access.requireSpace(request.params.spaceId);
      demand(role, 'edit', 'Running the Git synchronization');
      // After the permission check: only editors make the platform resolve a repository's host.
      const problem = await repositoryProblem(body.url, options.allowLocal);
      if (problem) throw badRequest(`Invalid body field "url": ${problem}`);
      const directory = projectDirectory(body.repoProjectDirectory);
      db.transaction(() =>
        queueOperation(db, options.queue, {
          spaceId: space.id,
          direction,
          url: body.url,
          ref: body.ref,
          directory,
          force: body.force ?? false,
          standalone: body.standalone ?? false,
          ...(body.timestamp ? { timestamp: new Date(body.timestamp).toISOString() } : {}),
          ...(direction === 'export' ? { commitMessage: body.commitMessage } : {}),
        }),
      )();
      return reply.code(204).send();
    };

  app.post<{ Params: SpaceParams }>('/spaces/:spaceId/git/import', queueFor('import'));
  app.post<{ Params: SpaceParams }>('/spaces/:spaceId/git/export', queueFor('export'));

  app.get<{ Params: SpaceParams }>('/spaces/:spaceId/git/info', CONDITIONAL, async (request) => {
    const { space } = request.ctx.access.requireSpace(request.params.spaceId);
    const state = gitSyncState(space);
    if (!state) throw notFound('Git Sync of the space');
    return state;
  });

  app.delete<{ Params: SpaceParams }>('/spaces/:spaceId/git/legacy-installation', async (request, reply) => {
    const { db, access } = request.ctx;
    const { space, role } = access.requireSpace(request.params.spaceId);
    demand(role, 'admin', 'Removing the Git Sync installation');
    return sendDeleted(reply, clearGitSync(db, space.id));
  });
}
