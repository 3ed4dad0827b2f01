import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { demand } from '../access.js';
import { booleanParam, conflict, parseBody, parseQuery } from '../http.js';
import { setCurrentRevision } from '../content/current.js';
import { fileJson } from '../content/json.js';
import { contentChangesBody, editRequestContent, prepareFiles, prepareMarkdown } from './edits.js';
import { mergeChangeRequest, updateChangeRequestFromMain, type MergeAnswer } from './merging.js';
import { changeRequestJson } from './json.js';
import { recordContribution, requireNotMerged } from './store.js';
import { applyTemplateToRequest, requireTemplate, templateRevision, templateSpec } from './templates.js';
import { requestOf } from './routes.js';

type RequestParams = { spaceId: string; changeRequestId: string };

const contentQuery = z.object({ compat: booleanParam.optional() });

const templateBody = z.strictObject({
  id: z.string().min(1, 'must not be empty'),
  params: z.record(z.string(), z.unknown()).optional(),
  changeRequestId: z.string().min(1, 'must not be empty').optional(),
});

/** Options of the routes that reach the network on a caller's behalf. */
export interface ContentEditOptions {
  /** Allow files inserted by URL from private and loopback addresses (demo and test runs). */
  allowPrivateUrls: boolean;
}

/**
 * Writes to the content of change requests: batches of content changes, merges, updates from the
 * main content, and templates (on a change request or the live content).
 */
export function changeRequestContentRoutes(app: FastifyInstance, options: ContentEditOptions): void {
  app.post<{ Params: RequestParams }>('/spaces/:spaceId/change-requests/:changeRequestId/content', async (request) => {
    const query = parseQuery(contentQuery, request.query);
    const body = parseBody(contentChangesBody, request.body ?? {});
    const { space, changeRequest } = requestOf(request, request.params, 'edit');
    requireNotMerged(changeRequest);
    // Network reads and markdown parses first, outside the transaction (the parses in a worker
    // thread); then the whole batch or nothing.
    const files = await prepareFiles(body.changes, options.allowPrivateUrls);
    const trees = await prepareMarkdown(body.changes);
    const { db, user, links } = request.ctx;
    const { changeRequest: updated, result } = db.transaction(() => {
      // The request as it is now: another batch may have landed while the files were read.
      const fresh = requestOf(request, request.params, 'edit').changeRequest;
      requireNotMerged(fresh);
      return editRequestContent(db, fresh, user.id, body.changes, files, undefined, trees);
    })();
    const json = changeRequestJson(db, updated, space, links);
    if (query.compat ?? true) return json;
    const pageUrl = (id: string) => `${links.api}/spaces/${space.id}/change-requests/${updated.id}/content/page/${id}`;
    return {
      changeRequest: json,
      changes: result.outcomes.map((outcome) =>
        outcome.object === 'deleted_page'
          ? outcome
          : {
              ...outcome,
              page: { object: 'page' as const, id: outcome.page, urls: { location: pageUrl(outcome.page) } },
            },
      ),
      insertedFiles: result.insertedFiles.map((file) => fileJson(db, links, file, true)),
    };
  });

  const mergeAnswer = (answer: MergeAnswer) => ({
    revision: answer.revision,
    result: answer.result,
    ...(answer.conflicts.length ? { conflicts: answer.conflicts } : {}),
  });

  app.post<{ Params: RequestParams }>('/spaces/:spaceId/change-requests/:changeRequestId/merge', async (request) => {
    const { space, changeRequest } = requestOf(request, request.params, 'review');
    return mergeAnswer(mergeChangeRequest(request.ctx.db, space.id, changeRequest.id, request.ctx.user));
  });

  app.post<{ Params: RequestParams }>('/spaces/:spaceId/change-requests/:changeRequestId/update', async (request) => {
    const { space, changeRequest } = requestOf(request, request.params, 'edit');
    const answer = updateChangeRequestFromMain(request.ctx.db, space.id, changeRequest.id);
    if (answer.revision !== changeRequest.revision)
      recordContribution(request.ctx.db, changeRequest.id, request.ctx.user.id, 'edit');
    return mergeAnswer(answer);
  });

  app.post<{ Params: { spaceId: string } }>(
    '/spaces/:spaceId/content/template',
    async (request: FastifyRequest<{ Params: { spaceId: string } }>, reply) => {
      const body = parseBody(templateBody, request.body ?? {});
      const { db, access, user } = request.ctx;
      const template = requireTemplate(body.id, 'id');
      if (body.changeRequestId !== undefined) {
        const { space, changeRequest } = requestOf(
          request,
          { spaceId: request.params.spaceId, changeRequestId: body.changeRequestId },
          'edit',
        );
        requireNotMerged(changeRequest);
        const spec = templateSpec(db, space.org_id, body.params, 'params');
        db.transaction(() => applyTemplateToRequest(db, changeRequest, user, template, spec))();
        return reply.code(201).send();
      }
      const { space, role } = access.requireSpace(request.params.spaceId);
      demand(role, 'edit', 'Editing the live content');
      if (space.edit_mode === 'locked')
        throw conflict('The space is locked: its live content changes through change requests only');
      const spec = templateSpec(db, space.org_id, body.params, 'params');
      db.transaction(() => setCurrentRevision(db, space.id, templateRevision(db, space, template, spec)))();
      return reply.code(201).send();
    },
  );
}
