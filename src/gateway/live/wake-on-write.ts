import type { AfterWrites } from '../after-writes.js';
import type { Write } from '../upstream/request.js';
import type { LiveHub } from './hub.js';

/**
 * Subscriptions hear at once of the writes made through the gateway (an action of
 * `useAfterWrites`): every watch whose resource names an id they touched (a space, a change request,
 * an organization) is read again (`LiveHub.wake`), instead of at its next poll. A merge through the
 * gateway reaches a `spaceContentUpdated` subscriber in the time of one conditional GET. Writes made
 * elsewhere come as the platform's events (`platform-events.ts`), or with the next poll.
 */
export function wakeOnWrite(live: Pick<LiveHub, 'wake'>): AfterWrites {
  return (writes) => live.wake(writes.flatMap(idsOf));
}

/** The ids a write touched: its operation's path parameters, or, sent without its record, its path's segments. */
function idsOf(write: Write): string[] {
  return write.params ? Object.values(write.params) : write.path.split('/').filter(Boolean);
}
