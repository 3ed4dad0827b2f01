import type { Exchange } from './client.js';

/**
 * The dependency chain of the upstream exchanges made for one GraphQL request: `depth` is the
 * longest chain of requests each started only after the previous one ended (how many round
 * trips the request costs), `busy` the time that chain spent waiting on the upstream.
 */
export function criticalPath(exchanges: readonly Exchange[]): { depth: number; busy: number } {
  const sorted = [...exchanges].sort((a, b) => a.startedAt - b.startedAt);
  const depth: number[] = [];
  const busy: number[] = [];
  sorted.forEach((exchange, index) => {
    let bestDepth = 0;
    let bestBusy = 0;
    for (let before = 0; before < index; before += 1) {
      if (sorted[before]!.endedAt <= exchange.startedAt) {
        bestDepth = Math.max(bestDepth, depth[before]!);
        bestBusy = Math.max(bestBusy, busy[before]!);
      }
    }
    depth[index] = bestDepth + 1;
    busy[index] = bestBusy + (exchange.endedAt - exchange.startedAt);
  });
  return { depth: Math.max(0, ...depth), busy: Math.max(0, ...busy) };
}
