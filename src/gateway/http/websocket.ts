import type { IncomingMessage, Server } from 'node:http';
import { GraphQLError, parse } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { relayOperation, type RelayedOperation } from './relay.js';
import type { Gateway } from './server.js';

/** Options of `serveWebSockets`. */
export interface WebSocketOptions {
  /** Most operations one connection runs at once (`MAX_SUBSCRIPTIONS_PER_CONNECTION`). @default 100 */
  maxPerConnection?: number;
}

/** What the gateway keeps of one WebSocket connection. */
interface Connection {
  /** The caller's `Authorization`: from `connection_init` (`{ "Authorization": "Bearer …" }`), else the upgrade request. */
  authorization?: string | undefined;
  /** Where the connection came from (see `clientAddress`): a caller without credentials is budgeted by it. */
  clientAddress: string | undefined;
  /** Operations running, by the client's id, each abortable. */
  running: Map<string, AbortController>;
}

/** A placeholder document: graphql-ws needs one, the operation is read by the gateway's own chain. */
const RELAYED = parse('{ __typename }');

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, which Apollo Client, urql and GraphiQL speak) at
 * `/graphql` on `server`. Each operation is relayed to the gateway's own `fetch` as a request over
 * SSE, with the connection's credentials, so that every plugin of the one chain (limits, persisted
 * operations, cost, logs, metrics, traces) runs for it as for any HTTP request; its events go back
 * as `next` messages. The client's `complete`, or the socket closing, aborts it (its subscription
 * stops, its upstream requests are abandoned). A connection runs at most `maxPerConnection`
 * operations at once; one more is refused with RATE_LIMITED.
 */
export function serveWebSockets(server: Server, gateway: Gateway, options: WebSocketOptions = {}) {
  const maxPerConnection = options.maxPerConnection ?? 100;
  // What graphql-ws validates its placeholder document against; the relayed operation meets the schema in the chain.
  const { schema } = gateway.yoga.getEnveloped();
  const sockets = new WebSocketServer({ server, path: '/graphql' });
  const connections = new WeakMap<object, Connection>();
  /** The connections open now, for `close` to wait on what they still run. */
  const open = new Set<Connection>();
  const connectionOf = (ctx: Context<Record<string, unknown> | undefined, { request: IncomingMessage }>) => {
    let connection = connections.get(ctx);
    if (!connection) {
      const given = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
      connection = {
        authorization: typeof given === 'string' ? given : ctx.extra.request.headers.authorization,
        clientAddress: gateway.clientAddress(ctx.extra.request),
        running: new Map(),
      };
      connections.set(ctx, connection);
      open.add(connection);
    }
    return connection;
  };

  const disposable = useServer<Record<string, unknown> | undefined, { request: IncomingMessage }>(
    {
      onSubscribe(ctx, id, payload) {
        const connection = connectionOf(ctx);
        if (connection.running.size >= maxPerConnection) {
          return [
            new GraphQLError(
              `This connection runs its most operations at once (${maxPerConnection}): complete one first`,
              { extensions: { code: 'RATE_LIMITED', limit: 'subscriptionsPerConnection', max: maxPerConnection } },
            ),
          ];
        }
        const abort = new AbortController();
        connection.running.set(id, abort);
        return { schema, document: RELAYED, rootValue: { payload, abort } };
      },
      execute: (args) => relayed(gateway, connections.get(args.contextValue as object), args.rootValue as Relayed),
      subscribe: (args) => relayed(gateway, connections.get(args.contextValue as object), args.rootValue as Relayed),
      context: (ctx) => ctx,
      // The results are the gateway's answers, already as clients read them: sent as they are.
      onNext: (_ctx, _id, _payload, _args, result) => result,
      onComplete(ctx, id) {
        const connection = connectionOf(ctx);
        connection.running.get(id)?.abort();
        connection.running.delete(id);
      },
      onClose(ctx) {
        const connection = connectionOf(ctx);
        for (const abort of connection.running.values()) abort.abort();
        open.delete(connection);
      },
    },
    sockets,
  );
  return {
    /**
     * Waits up to `graceMs` for the operations that are ending to send their last messages (a
     * draining gateway's subscriptions: `SHUTTING_DOWN`), then closes every connection (1001, going
     * away; what still runs ends) and stops accepting new ones.
     */
    close: async (graceMs = 1_000) => {
      // A draining gateway ends its subscriptions with a last event: it goes out before the sockets close.
      const end = Date.now() + graceMs;
      while ([...open].some((connection) => connection.running.size > 0) && Date.now() < end)
        await new Promise((resolve) => setTimeout(resolve, 10));
      await disposable.dispose();
      await new Promise((resolve) => sockets.close(resolve));
    },
  };
}

interface Relayed {
  payload: RelayedOperation;
  abort: AbortController;
}

function relayed(gateway: Gateway, connection: Connection | undefined, { payload, abort }: Relayed) {
  return relayOperation((request) => gateway.fetch(request), payload, {
    authorization: connection?.authorization,
    clientAddress: connection?.clientAddress,
    abort,
  });
}
