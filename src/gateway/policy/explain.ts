import type { Plugin } from 'graphql-yoga';
import { isBatchItem, partsOf } from '../request-parts.js';
import type { UpstreamHook } from '../upstream/hooks.js';
import { explainCalls, Trace } from '../upstream/trace.js';

declare module '../request-parts.js' {
  interface RequestParts {
    /** The trace `extensions.explain` reports: set when the request asked for it (header `x-explain: 1`). */
    trace?: Trace | undefined;
  }
}

/**
 * `explain` as a plugin of the chain: a request with the header `x-explain: 1` gets a trace
 * (`RequestParts.trace`), which the upstream layer and the field hooks fill in and the cost
 * plugin reports as `extensions.explain`; its upstream hook gives each traced call its exchange.
 * A request without the header gets nothing, and its upstream calls pass the hook by one test.
 */
export function useExplain(): Plugin & { upstreamHooks: readonly UpstreamHook[] } {
  return {
    upstreamHooks: [explainCalls],
    onRequest({ request, serverContext }) {
      // Its times count from here: the plugin runs among the first of the request's hooks.
      if (request.headers.get('x-explain') === '1') partsOf(serverContext).trace = new Trace(performance.now());
    },
    // Each operation of an explained batch explains itself: a trace of its own, timed from its start.
    onParams({ context }) {
      const parts = partsOf(context);
      if (parts.trace && isBatchItem(context)) parts.trace = new Trace(performance.now());
    },
  };
}
