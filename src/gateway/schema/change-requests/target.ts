import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { compositeKey, idInput } from '../kit/ids.js';
import { getChangeRequest } from '../../upstream/change-requests.js';
import type { ChangeRequest } from '../../upstream/contract/types.js';
import { linkTo, prime } from '../kit/loaders.js';
import { inputField } from '../kit/mutations.js';
import { ChangeRequestNode, changeRequestRef } from './change-request.js';

/**
 * What every mutation of a change request shares: the input fields naming the request, and the
 * payload field handing it back after the write.
 */

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

/** The request named by `targetFields`, checked: a global ID carries its space, which must agree with `spaceId`. */
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

/** A payload field holding a change request, null when the mutation failed. */
export const ChangeRequestPayloadField = (description: string) => ({
  type: ChangeRequestNode,
  nullable: true as const,
  description,
  extensions: upstream.link,
});

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
