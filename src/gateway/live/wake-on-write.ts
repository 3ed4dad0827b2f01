import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from '../context.js';
import type { Write } from '../upstream/request.js';
import type { LiveHub } from './hub.js';

/**
 * Subscriptions hear at once of the writes made through the gateway: once an operation's writes
 * are answered, every watch whose resource names an id they touched (a space, a change request, an
 * organization) is read again (`LiveHub.wake`), instead of at its next poll. A merge through the
 * gateway reaches a `spaceContentUpdated` subscriber in the time of one conditional GET. Writes
 * made elsewhere still wait for the poll.
 */
export function useWakeOnWrite(live: LiveHub): Plugin {
  return {
    onExecute({ args }) {
      const ctx = args.contextValue as unknown as GatewayContext;
      return {
        onExecuteDone() {
          if (ctx.api.written.length > 0) live.wake(ctx.api.written.flatMap(idsOf));
        },
      };
    },
  };
}

/** The ids a write touched: its operation's path parameters, or, sent without its record, its path's segments. */
function idsOf(write: Write): string[] {
  return write.params ? Object.values(write.params) : write.path.split('/').filter(Boolean);
}
