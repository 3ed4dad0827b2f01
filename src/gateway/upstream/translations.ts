import { z } from 'zod';
import type { ReadApi, RequestApi } from './request.js';
import * as op from './contract/operations.js';
import { S } from './contract/schemas.js';
import type { Translation as DescribedTranslation } from './contract/types.js';
import { answerOf, type Operation } from './record.js';
import { listOf, deleteOf } from './operation.js';

/**
 * A translation, with why its last run failed when the platform says. `lastRunError` is neither in
 * the API documentation nor in its description: the embedded platform adds it, and the gateway reads
 * it where it is given rather than let the contract drop it (null from any other platform).
 */
export type Translation = DescribedTranslation & {
  lastRunError?: { message: string; failedAt: string } | null | undefined;
};

let shapes: { one: z.ZodType<Translation>; page: z.ZodType } | undefined;

/** The contract's Translation, and its page, with `lastRunError` kept. */
function translationShapes() {
  if (!shapes) {
    const one = (S.Translation as unknown as z.ZodObject).extend({
      lastRunError: z.object({ message: z.string(), failedAt: z.string() }).nullish(),
    });
    const page = (answerOf(op.listTranslations) as unknown as z.ZodObject).extend({ items: z.array(one) });
    shapes = { one: one as unknown as z.ZodType<Translation>, page };
  }
  return shapes;
}

/** `record`, its answer of `status` read with `lastRunError` kept (whole, or as the items of a page). */
function keepingRunError<O extends Operation>(record: O, status: number, as: 'one' | 'page'): O {
  return {
    operationId: record.operationId,
    method: record.method,
    path: record.path,
    pathParams: record.pathParams,
    queryParams: record.queryParams,
    get query() {
      return record.query;
    },
    get body() {
      return record.body;
    },
    get answers() {
      return { [status]: translationShapes()[as] };
    },
  } as unknown as O;
}

const read = keepingRunError(op.getTranslation, 200, 'one');
const list = keepingRunError(op.listTranslations, 200, 'page');
const create = keepingRunError(op.createTranslation, 201, 'one');
const update = keepingRunError(op.updateTranslation, 200, 'one');

/** `GET /orgs/{organizationId}/translations/{translationId}` */
export const getTranslation = (api: ReadApi, organizationId: string, translationId: string) =>
  api.read(read, { organizationId, translationId }) as Promise<Translation>;

/** `GET /orgs/{organizationId}/translations`, oldest first (admins). */
export const listTranslations = (api: RequestApi, organizationId: string) => listOf(api, list, { organizationId });

/** `POST /orgs/{organizationId}/translations` */
export const createTranslation = async (api: RequestApi, organizationId: string, body: object) =>
  (await api.write(create, { organizationId }, { body })).data as Translation;

/** `PUT /orgs/{organizationId}/translations/{translationId}`: replaces its instructions. */
export const updateTranslation = async (api: RequestApi, organizationId: string, translationId: string, body: object) =>
  (await api.write(update, { organizationId, translationId }, { body })).data as Translation;

/** `POST /orgs/{organizationId}/translations/{translationId}/run` (no body answered): starts a run. */
export const runTranslation = (api: RequestApi, organizationId: string, translationId: string) =>
  api.write(op.runTranslation, { organizationId, translationId });

/** `DELETE /orgs/{organizationId}/translations/{translationId}` */
export const deleteTranslation = (api: RequestApi, organizationId: string, translationId: string) =>
  deleteOf(api, op.deleteTranslation, { organizationId, translationId });
