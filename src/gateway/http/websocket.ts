import type { IncomingMessage, Server } from 'node:http';
import { type ExecutionResult, GraphQLError, parse } from 'graphql';
import type { Context } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { Repeater } from 'graphql-yoga';
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
  const connectionOf = (ctx: Context<Record<string, unknown> | undefined, { request: IncomingMessage }>) => {
    let connection = connections.get(ctx);
    if (!connection) {
      const given = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
      connection = {
        authorization: typeof given === 'string' ? given : ctx.extra.request.headers.authorization,
        running: new Map(),
      };
      connections.set(ctx, connection);
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
      execute: (args) => relay(gateway, connections.get(args.contextValue as object), args.rootValue as Relayed),
      subscribe: (args) => relay(gateway, connections.get(args.contextValue as object), args.rootValue as Relayed),
      context: (ctx) => ctx,
      // The results are the gateway's answers, already as clients read them: sent as they are.
      onNext: (_ctx, _id, _payload, _args, result) => result,
      onComplete(ctx, id) {
        const connection = connectionOf(ctx);
        connection.running.get(id)?.abort();
        connection.running.delete(id);
      },
      onClose(ctx) {
        for (const abort of connectionOf(ctx).running.values()) abort.abort();
      },
    },
    sockets,
  );
  return {
    /** Closes every connection (their operations end) and stops accepting new ones. */
    close: async () => {
      await disposable.dispose();
      await new Promise((resolve) => sockets.close(resolve));
    },
  };
}

interface Relayed {
  payload: { query?: string; operationName?: string | null; variables?: unknown; extensions?: unknown };
  abort: AbortController;
}

/**
 * Runs one operation through the gateway's `fetch` over SSE, and yields its results as they come.
 * A repeater, not a generator: graphql-ws returns it when the client completes or the socket
 * closes, which must end the request at once, even while it waits for its next event.
 */
function relay(gateway: Gateway, connection: Connection | undefined, { payload, abort }: Relayed) {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    // However it ends, the request is over: its subscription stops and its upstream requests are abandoned.
    void stop.then(() => abort.abort());
    abort.signal.addEventListener('abort', () => stop(), { once: true });
    const body = JSON.stringify(payload);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      accept: 'text/event-stream',
    };
    if (connection?.authorization) headers.authorization = connection.authorization;
    // A Request of its own (the server's fetch ignores the signal of an init): its signal is the
    // one the gateway's plugins and subscriptions hear.
    const request = new Request('http://gateway.internal/graphql', {
      method: 'POST',
      headers,
      body,
      signal: abort.signal,
    });
    const response = await gateway.fetch(request);
    if (!response.headers.get('content-type')?.startsWith('text/event-stream')) {
      await push((await response.json()) as ExecutionResult);
      return stop();
    }
    const reader = response.body!.getReader();
    void stop.then(() => reader.cancel().catch(() => undefined));
    const decoder = new TextDecoder();
    let buffered = '';
    while (!abort.signal.aborted) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      const events = buffered.split('\n\n');
      buffered = events.pop()!;
      for (const event of events) {
        const name = /^event: (\w+)$/m.exec(event)?.[1];
        if (name === 'complete') return stop();
        const data = /^data: (.*)$/m.exec(event)?.[1];
        if (name === 'next' && data !== undefined) await push(JSON.parse(data) as ExecutionResult);
      }
    }
    stop();
  });
}
