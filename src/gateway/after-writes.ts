import type { Plugin } from 'graphql-yoga';
import type { GatewayContext } from './context.js';
import type { Write } from './upstream/request.js';

/** What follows an operation's writes once they are answered, given them in the order they were sent. */
export type AfterWrites = (writes: readonly Write[]) => void;

/**
 * The one hook for what follows an operation's writes: the response cache forgets what they
 * touched, the subscriptions that follow it are read again. Each action runs in order once the
 * operation executed, only when it wrote. One set of hooks, shared by every operation: nothing is
 * made per request.
 */
export function useAfterWrites(actions: readonly AfterWrites[]): Plugin {
  const done = {
    onExecuteDone({ args }: { args: { contextValue: unknown } }) {
      const { written } = (args.contextValue as GatewayContext).api;
      if (written.length > 0) for (const act of actions) act(written);
    },
  };
  return { onExecute: () => done };
}
