import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { ResponseBudget } from './answer-size.js';

/**
 * Turns of their own for the heavy steps of the gateway's thread. A step that cannot be cut (one
 * `JSON.parse` of a 1 MB upstream body, one `JSON.stringify` of a 1 MB answer: 10–20 ms each)
 * holds the event loop while it runs; four requests that reach theirs at once would hold it for
 * all four, and another caller's light request, which needs a few turns, waits behind each. So a
 * heavy step waits for a loop turn of its own (`ownTurn`): at most one runs per turn, and the
 * I/O that arrived meanwhile goes between them.
 */
/** Bytes from which a body's parse or an answer's serialization is a heavy step. */
export const HEAVY_BYTES = 256 * 1024;

/** The last heavy step waiting or running: the next one runs a turn after it. */
let heavyQueue: Promise<void> = Promise.resolve();

/**
 * Resolves in a loop turn of its own, one caller per turn in the order they asked, for a heavy
 * step to run in.
 */
export function ownTurn(): Promise<void> {
  const mine = heavyQueue.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  heavyQueue = mine;
  return mine;
}

/**
 * Gives the serialization of a large answer (past `HEAVY_BYTES` by the request's answer budget) a
 * turn of its own: it follows the execution's last hook, and `JSON.stringify` of a megabyte holds
 * the thread for about as long as its parse.
 */
export function useFairTurns(): Plugin<{ responseBudget?: ResponseBudget }> {
  return {
    onExecute: () => ({
      onExecuteDone({ args, result }) {
        const answerBytes = args.contextValue.responseBudget?.answerBytes ?? 0;
        if (answerBytes >= HEAVY_BYTES && !isAsyncIterable(result)) return ownTurn();
      },
    }),
  };
}
