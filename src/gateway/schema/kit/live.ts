import { mapAsyncIterator } from 'graphql-yoga';
import type { GatewayContext } from '../../context.js';
import { BadUserInputError, GatewayError } from '../../errors.js';
import { GatewayWork } from '../../gateway-work.js';
import { spentForEvents } from '../../policy/rate-limit.js';
import { platformKey, readOwnedId } from './ids.js';
import { callerOf } from '../../state/caller.js';
import type { ReadApi } from '../../upstream/request.js';
import { attachLoaders, clearLoaders } from './loaders.js';

/**
 * The events of a subscription field: each version of what `read` makes of the upstream, as the
 * caller reads it (see `LiveHub.watch`: one poll per resource and caller, however many
 * subscribers; `pushedIn` names the organization whose platform events report its changes). The first event resolves with the subscription's own context, whose counts hold
 * the read that started its watch, if it did (its first event's cost, which rate limits charge).
 * Before each later event resolves, the context starts over (new per-request caches, counts, work
 * and byte budget), so that its links read the upstream as it is now and its `extensions.cost`
 * counts its own requests, which the rate limits charge; a caller whose budget is spent gets
 * RATE_LIMITED instead, which ends the subscription.
 */
export function follow<T>(
  ctx: GatewayContext,
  resource: string,
  read: (api: ReadApi) => Promise<T>,
  version?: (value: T) => unknown,
  pushedIn?: (value: T) => string | undefined,
): AsyncIterable<T> {
  if (!ctx.live) throw new GatewayError('INTERNAL_SERVER_ERROR', 'This gateway serves no subscriptions.');
  const versions = ctx.live.watch({
    resource,
    authorization: ctx.api.authorization,
    caller: callerOf(ctx, ctx.request).budgetKey,
    read,
    version,
    pushedIn,
    signal: ctx.api.signal,
    usage: ctx.api.usage,
  });
  let first = true;
  return mapAsyncIterator(versions, (value: T) => {
    if (first) first = false;
    else {
      // Its own reads are charged to its caller: with nothing left, it ends before making any.
      const spent = spentForEvents(ctx);
      if (spent) throw spent;
      startOver(ctx);
    }
    return value;
  });
}

function startOver(ctx: GatewayContext): void {
  clearLoaders(ctx);
  ctx.api = ctx.api.renewed();
  ctx.responseBudget = ctx.api.budget;
  ctx.work = new GatewayWork();
  ctx.conversions = ctx.conversions.renewed({
    work: ctx.work,
    responseBudget: ctx.responseBudget,
    signal: ctx.api.signal,
  });
  attachLoaders(ctx);
}

/**
 * The organization and own id of a followed node that lives in an organization: from its global
 * ID, or from its platform id and `organizationId`; BAD_USER_INPUT naming the argument otherwise.
 */
export function ownedTarget(
  value: string,
  typename: string,
  idArgument: string,
  organizationId: string | null | undefined,
): { organizationId: string; id: string } {
  const read = readOwnedId(value, typename);
  if (!read)
    throw new BadUserInputError(`${idArgument} is not a valid id of ${article(typename)} ${typename}`, [idArgument]);
  const given = organizationId == null ? undefined : platformKey(organizationId, 'Organization');
  if (read.organizationId && given && read.organizationId !== given)
    throw new BadUserInputError(`${idArgument} is ${article(typename)} ${typename} of another organization`, [
      idArgument,
    ]);
  const organization = read.organizationId ?? given;
  if (!organization)
    throw new BadUserInputError(`organizationId is required when ${idArgument} is not a global ID`, ['organizationId']);
  return { organizationId: organization, id: read.id };
}

const article = (word: string) => (/^[AEIOU]/.test(word) ? 'an' : 'a');
