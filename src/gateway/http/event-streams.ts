import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';
import { relayOperation, type GatewayFetch } from './relay.js';

/**
 * GraphQL over SSE's single-connection mode at `path` (one event stream for many operations, as
 * `graphql-sse`'s client with `singleConnection: true` speaks it; its distinct-connections mode is
 * yoga's own, at `/graphql`). Each operation is relayed to the gateway's own `fetch` with the
 * caller's credentials, so that every plugin of the one chain runs for it, as for a WebSocket's:
 * its events carry `extensions`, its line is in the operation log. The stream's token lives in
 * the replica that gave it: behind a balancer, this mode needs sticky sessions.
 */
export function useEventStreams(fetch: GatewayFetch, path = '/graphql/stream'): Plugin {
  const handler = createHandler({
    onSubscribe: (request, params) => relayOperation(fetch, params, request.headers.get('authorization') ?? undefined),
  });
  return {
    onRequest({ url, request, endResponse }) {
      if (url.pathname !== path) return;
      return handler(request).then(endResponse);
    },
  };
}
