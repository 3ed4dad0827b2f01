import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { JobQueue } from '../jobs.js';
import { pageFromArray, pageQuery, pageWindow, parseBody, parseQuery, sendDeleted } from '../http.js';
import {
  createTranslation,
  deleteTranslation,
  requestRun,
  requireTranslation,
  translationsOf,
  updateInstructions,
} from './store.js';
import { documentSchema, languageSchema } from '../schemas.js';
import { translationJson } from './json.js';
import { CONDITIONAL } from '../conditional.js';

const createBody = z.strictObject({
  language: languageSchema,
  source: z.strictObject(
    {
      space: z.string({ message: 'must be a space id' }).min(1, 'must be a space id'),
      language: languageSchema.optional(),
    },
    { message: 'must be an object: { space, language }' },
  ),
  instructions: documentSchema.optional(),
});
const updateBody = z.strictObject({ instructions: documentSchema });
const emptyBody = z.strictObject({});

type OrgParams = { organizationId: string };
type TranslationParams = OrgParams & { translationId: string };

/**
 * Translations of an organization: list, create, read, update the instructions, delete, run.
 * Admins only (it is a billable feature of the product): other members get 403, outsiders 404.
 */
export function translationRoutes(app: FastifyInstance, options: { queue: JobQueue }): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/translations', async (request) => {
    const query = parseQuery(pageQuery, request.query);
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    return pageFromArray(translationsOf(db, org.id), pageWindow(query), (row) => translationJson(db, row, links));
  });

  app.post<{ Params: OrgParams }>('/orgs/:organizationId/translations', async (request, reply) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const body = parseBody(createBody, request.body);
    const json = translationJson(db, createTranslation(db, org, body), links);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: TranslationParams }>(
    '/orgs/:organizationId/translations/:translationId',
    CONDITIONAL,
    async (request) => {
      const { db, access, links } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'admin');
      return translationJson(db, requireTranslation(db, org.id, request.params.translationId), links);
    },
  );

  app.put<{ Params: TranslationParams }>('/orgs/:organizationId/translations/:translationId', async (request) => {
    const { db, access, links } = request.ctx;
    const org = access.requireOrg(request.params.organizationId, 'admin');
    const row = requireTranslation(db, org.id, request.params.translationId);
    const body = parseBody(updateBody, request.body);
    return translationJson(db, updateInstructions(db, row, body.instructions), links);
  });

  app.delete<{ Params: TranslationParams }>(
    '/orgs/:organizationId/translations/:translationId',
    async (request, reply) => {
      const { db, access } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'admin');
      return sendDeleted(reply, deleteTranslation(db, org.id, request.params.translationId));
    },
  );

  app.post<{ Params: TranslationParams }>(
    '/orgs/:organizationId/translations/:translationId/run',
    async (request, reply) => {
      const { db, access } = request.ctx;
      const org = access.requireOrg(request.params.organizationId, 'admin');
      const row = requireTranslation(db, org.id, request.params.translationId);
      parseBody(emptyBody, request.body);
      db.transaction(() => requestRun(db, options.queue, row.id))();
      return reply.code(204).send();
    },
  );
}
