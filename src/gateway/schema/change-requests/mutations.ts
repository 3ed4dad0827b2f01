import { z } from 'zod';
import { upstream } from '../kit/upstream-cost.js';
import { GatewayError } from '../../errors.js';
import { createChangeRequest, updateChangeRequest } from '../../upstream/change-requests.js';
import { applyTemplate } from '../../upstream/content.js';
import type { ChangeRequest } from '../../upstream/contract/types.js';
import { specSlug } from '../../upstream/openapi.js';
import type { GatewayContext } from '../../context.js';
import { ChangeRequestEdge, ChangeRequestNode, ChangeRequestStatusEnum, changeRequestRef } from './change-request.js';
import { linkTo, prime } from '../kit/loaders.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { DocumentInput, documentInput } from '../kit/document.js';
import { idInput, ownedIdInput } from '../kit/ids.js';
import { edgeField, payloadType } from '../kit/payloads.js';
import { SpaceNode } from '../spaces.js';
import {
  afterWrite,
  ChangeRequestPayloadField,
  requestField,
  resolveTarget,
  targetFields,
  type RequestAfter,
} from './target.js';

/** Opening and changing change requests, and applying a template to a space or to a change request. */

/** The subject of a change request. */
const subject = z.string().max(100, 'must be at most 100 characters');

/** The change request a write answered, the loader primed with it. */
async function primeWritten(ctx: GatewayContext, written: Promise<ChangeRequest>): Promise<ChangeRequest> {
  const request = await written;
  prime(ChangeRequestNode, ctx, [request]);
  return request;
}

/** The payload of a mutation answering the change request it wrote; `made` adds its edge. */
const requestPayload = (name: string, description: string, made = false) =>
  payloadType<{ changeRequest: ChangeRequest }>(name, (t) => ({
    changeRequest: t.field({ ...ChangeRequestPayloadField(description), resolve: (p) => p.changeRequest ?? null }),
    ...(made
      ? {
          changeRequestEdge: edgeField(
            t,
            {
              type: ChangeRequestEdge,
              what: 'change request',
              lists: '`Space.changeRequests` and `Organization.changeRequests` (with `status: DRAFT`)',
            },
            (p) => p.changeRequest,
          ),
        }
      : {}),
  }));

/** The OpenAPI specification a template builds its reference from (`api-reference`). */
const openApiSpecField = inputField(
  'String',
  'Slug of an OpenAPI specification of the organization: the `api-reference` template then generates its reference from it (a computed page).',
  specSlug.nullish(),
);

/** An issue cluster named by a client: its platform id, or an IssuesCluster global ID (its own id kept). */
const clusterIdInput = ownedIdInput('IssuesCluster', 100);

declareMutation('createChangeRequest', {
  description: 'Opens a change request on a space, as a draft branching from its live content (edit role).',
  input: 'The change request to create.',
  fields: {
    spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
    subject: inputField('String', 'Its subject, at most 100 characters.', subject.nullish()),
    description: inputField(DocumentInput, 'What it changes and why.', documentInput.nullish()),
    templateId: inputField(
      'ID',
      'A template whose pages it starts with: `getting-started`, `api-reference` or `changelog` on the embedded platform.',
      z.string().trim().min(1, 'must be a template id').nullish(),
    ),
    openApiSpec: openApiSpecField,
    conversationsIssuesClusterId: inputField(
      'ID',
      'The issue cluster (of support conversations) it addresses: platform id or IssuesCluster global ID; not a muted one.',
      clusterIdInput.nullish(),
    ),
  },
  check: (input) =>
    input.refine((value) => value.openApiSpec == null || value.templateId != null, {
      message: 'goes with a templateId',
      path: ['openApiSpec'],
    }),
  // The template is the body's `template.id`.
  inputPath: (restField) => (restField?.[0] === 'template' ? ['templateId'] : undefined),
  payload: (name) => requestPayload(name, 'The new change request.', true),
  run: async (
    { spaceId, subject: title, description, templateId, openApiSpec, conversationsIssuesClusterId },
    ctx,
  ) => ({
    changeRequest: await templateSpecErrors(() =>
      primeWritten(
        ctx,
        createChangeRequest(ctx.api, spaceId, {
          subject: title ?? '',
          // Beside the documented fields, the create operation takes any property: the description too.
          ...(description ? { description } : {}),
          ...(templateId ? { template: { id: templateId, ...templateParams(openApiSpec) } } : {}),
          ...(conversationsIssuesClusterId != null ? { conversationsIssuesCluster: conversationsIssuesClusterId } : {}),
        }),
      ),
    ),
  }),
});

declareMutation('updateChangeRequest', {
  description:
    'Changes the subject, description or status of a change request: submit it (OPEN), archive it, reopen it (edit role). A merged one can no longer change.',
  input: 'The change request and what to change; fields left out stay as they are.',
  fields: {
    ...targetFields,
    subject: inputField('String', 'New subject, at most 100 characters.', subject.nullish()),
    description: inputField(DocumentInput, 'New description.', documentInput.nullish()),
    status: inputField(
      ChangeRequestStatusEnum,
      'New status: DRAFT, OPEN or ARCHIVED (a change request becomes MERGED by merging it).',
      z
        .enum(['draft', 'open', 'archived', 'merged'])
        .refine((value) => value !== 'merged', 'cannot be MERGED: merge the change request with mergeChangeRequest')
        .nullish(),
    ),
    conversationsIssuesClusterId: inputField(
      'ID',
      'The issue cluster (of support conversations) it addresses: platform id or IssuesCluster global ID; not a muted one; null unlinks it.',
      clusterIdInput.nullish(),
    ),
  },
  check: (input) =>
    input.transform(resolveTarget).superRefine((value, ctx) => {
      if (
        value.subject == null &&
        value.description == null &&
        value.status == null &&
        value.conversationsIssuesClusterId === undefined
      ) {
        ctx.addIssue({
          code: 'custom',
          message: 'set at least one of subject, description, status or conversationsIssuesClusterId',
          path: [],
        });
      }
    }),
  payload: (name) => requestPayload(name, 'The change request after the change.'),
  run: async (
    { spaceId, changeRequestId, subject: title, description, status, conversationsIssuesClusterId },
    ctx,
  ) => ({
    changeRequest: await primeWritten(
      ctx,
      updateChangeRequest(ctx.api, spaceId, changeRequestId, {
        ...(title != null ? { subject: title } : {}),
        ...(description != null ? { description } : {}),
        ...(status != null ? { status } : {}),
        ...(conversationsIssuesClusterId !== undefined
          ? { conversationsIssuesCluster: conversationsIssuesClusterId }
          : {}),
      }),
    ),
  }),
});

/** A refusal of the template's specification (`…contentRefs.openapi.spec`), named as the input names it. */
async function templateSpecErrors<T>(send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof GatewayError && /contentRefs\.openapi/.test(error.message)) {
      throw new GatewayError(error.code, error.message, {
        upstreamStatus: error.upstreamStatus,
        field: ['openApiSpec'],
        budget: error.budget,
      });
    }
    throw error;
  }
}

/** Template params naming an OpenAPI specification (a content reference of kind `openapi`). */
function templateParams(spec: string | null | undefined): {
  params?: { contentRefs: { openapi: { kind: 'openapi'; spec: string } } };
} {
  return spec ? { params: { contentRefs: { openapi: { kind: 'openapi', spec } } } } : {};
}

declareMutation('applySpaceTemplate', {
  description:
    'Adds the pages of a template after the existing ones: to the live content (edit role, space not locked), or to a change request.',
  input: 'The space, the template and where to apply it.',
  fields: {
    spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
    templateId: inputField(
      'ID',
      'The template: `getting-started`, `api-reference` or `changelog` on the embedded platform.',
      z.string().trim().min(1, 'must be a template id'),
    ),
    changeRequestId: inputField(
      'ID',
      'A change request of the space to apply it to (id, number or global ID); the live content when left out.',
      z.string().trim().min(1).nullish(),
    ),
    openApiSpec: openApiSpecField,
  },
  // The template is the body's `id`.
  inputPath: (restField) => (restField?.[0] === 'id' ? ['templateId'] : undefined),
  payload: (name) =>
    payloadType<{ spaceId: string; changeRequest: RequestAfter | null }>(name, (t) => ({
      space: t.field({
        type: SpaceNode,
        nullable: true,
        description: 'The space after it (its content has the new pages when applied live).',
        extensions: upstream.link,
        resolve: (p, _a, _ctx, info) => (p.spaceId ? linkTo(SpaceNode, p.spaceId, info) : null),
      }),
      changeRequest: t.field(requestField('The change request it was applied to; null when applied live.')),
    })),
  run: async ({ spaceId, templateId, changeRequestId, openApiSpec }, ctx) => {
    const ref = changeRequestId ? changeRequestRef(changeRequestId) : undefined;
    if (ref?.spaceId && ref.spaceId !== spaceId)
      throw new GatewayError('BAD_USER_INPUT', 'changeRequestId is a change request of another space', {
        field: ['changeRequestId'],
      });
    await templateSpecErrors(() =>
      applyTemplate(ctx.api, spaceId, {
        id: templateId,
        ...(ref ? { changeRequestId: ref.id } : {}),
        ...templateParams(openApiSpec),
      }),
    );
    return { spaceId, changeRequest: ref ? afterWrite(spaceId, ref.id) : null };
  },
});
