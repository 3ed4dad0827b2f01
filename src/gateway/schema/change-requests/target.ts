import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../../policy/cost.js';
import { compositeKey } from '../kit/ids.js';
import { getChangeRequest } from '../../upstream/change-requests.js';
import type { ChangeRequest } from '../../upstream/shapes/change-requests.js';
import { specSlug } from '../../upstream/shapes/openapi.js';
import { linkTo, prime } from '../kit/loaders.js';
import { inputField } from '../kit/mutations.js';
import { idInput, ownedIdInput } from '../kit/ids.js';
import { payloadType } from '../kit/payloads.js';
import { ChangeRequestNode, changeRequestRef } from './change-request.js';

/**
 * What every mutation of a change request shares: the input fields naming the request, and the
 * payload field handing it back after the write.
 */

export const subject = z.string().max(100, 'must be at most 100 characters');

/** The fields naming a change request, resolved to `{ spaceId, changeRequestId }`. */
export const targetFields = {
  spaceId: inputField(
    'ID',
    'Platform id or global ID of the space; required unless `changeRequestId` is a global ID.',
    idInput('Space').nullish(),
  ),
  changeRequestId: inputField(
    'ID',
    'The change request: its global ID, or its platform id or number together with `spaceId`.',
    z.string().trim().min(1, 'must be the id or number of a change request'),
  ),
};

export function resolveTarget<T extends { spaceId?: string | null | undefined; changeRequestId: string }>(
  value: T,
  ctx: z.RefinementCtx,
) {
  let ref: { id: string; spaceId?: string };
  try {
    ref = changeRequestRef(value.changeRequestId);
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['changeRequestId'], message: (error as Error).message });
    return z.NEVER;
  }
  const spaceId = ref.spaceId ?? value.spaceId ?? undefined;
  if (!spaceId) {
    ctx.addIssue({ code: 'custom', path: ['spaceId'], message: 'is required when changeRequestId is not a global ID' });
    return z.NEVER;
  }
  if (ref.spaceId && value.spaceId && ref.spaceId !== value.spaceId) {
    ctx.addIssue({ code: 'custom', path: ['changeRequestId'], message: 'is a change request of another space' });
    return z.NEVER;
  }
  return { ...value, spaceId, changeRequestId: ref.id };
}

export const ChangeRequestPayloadField = (description: string) => ({
  type: ChangeRequestNode,
  nullable: true as const,
  description,
  extensions: upstream.link,
});

/** The change request a write answered, the loader primed with it. */
export async function primeWritten(ctx: GatewayContext, written: Promise<ChangeRequest>): Promise<ChangeRequest> {
  const request = await written;
  prime(ChangeRequestNode, ctx, [request]);
  return request;
}

/**
 * A change request after a write that did not answer it: its address, read (once) only if the
 * payload asks for more than its keys. The write cleared what the request held, so it is read as
 * it is now.
 */
export interface RequestAfter {
  spaceId: string;
  id: string;
}

export const afterWrite = (spaceId: string, id: string): RequestAfter => ({ spaceId, id });

/** The payload field of a change request after a write: held, or by its address (see `afterWrite`). */
export function requestField(description: string) {
  return {
    ...ChangeRequestPayloadField(description),
    // One read at most: even keys alone are read when the write named the request by its number.
    extensions: upstream.fetch(1),
    resolve: (
      p: { changeRequest?: ChangeRequest | RequestAfter | null | undefined },
      _args: object,
      ctx: GatewayContext,
      info: Parameters<typeof linkTo>[2],
    ) => {
      const held = p.changeRequest;
      if (!held) return null;
      if ('number' in held) return held;
      // A request named by its number has its real id in the platform's answer only: read it.
      const byNumber = /^#?\d{1,10}$/.test(held.id);
      const stub = () => ({ id: held.id, space: held.spaceId }) as ChangeRequest;
      const link = byNumber
        ? compositeKey(held.spaceId, held.id)
        : linkTo(ChangeRequestNode, compositeKey(held.spaceId, held.id), info, stub);
      if (typeof link !== 'string') return link;
      // By number or id, as the write took it: read by its path and kept under its real key.
      return getChangeRequest(ctx.api, held.spaceId, held.id).then((data) => {
        prime(ChangeRequestNode, ctx, [data]);
        return data;
      });
    },
  };
}

export const requestPayload = (name: string, description: string) =>
  payloadType<{ changeRequest: ChangeRequest }>(name, (t) => ({
    changeRequest: t.field({ ...ChangeRequestPayloadField(description), resolve: (p) => p.changeRequest ?? null }),
  }));

/** The OpenAPI specification a template builds its reference from (`api-reference`). */
export const openApiSpecField = inputField(
  'String',
  'Slug of an OpenAPI specification of the organization: the `api-reference` template then generates its reference from it (a computed page).',
  specSlug.nullish(),
);

/** An issue cluster named by a client: its platform id, or an IssuesCluster global ID (its own id kept). */
export const clusterIdInput = ownedIdInput('IssuesCluster', 100);
