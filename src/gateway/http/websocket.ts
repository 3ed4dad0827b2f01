import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, parse } from 'graphql';
import { CloseCode, handleProtocols, makeServer, type Context } from 'graphql-ws';
import { WebSocketServer, type WebSocket } from 'ws';
import { redactSecrets } from '../errors.js';
import { IdleTimer, type Refusal, refuseUpgrade } from './connections.js';
import { pageMayConnect } from './cors.js';
import { MAX_OPERATION_ID_LENGTH, relayOperation, type RelayedOperation } from './relay.js';
import type { Gateway } from './server.js';

/** Options of `serveWebSockets`. */
export interface WebSocketOptions {
  /** Most operations one connection runs at once (`MAX_SUBSCRIPTIONS_PER_CONNECTION`). @default 100 */
  maxPerConnection?: number;
  /**
   * Milliseconds from the upgrade to the client's `connection_init`: a connection that has not sent
   * it by then is closed with 4408 (`WEBSOCKET_INIT_TIMEOUT_MS`). @default 3000
   */
  initTimeoutMs?: number;
  /**
   * Milliseconds between two pings of every connection: one that has not answered a ping by the
   * next is dropped, so a peer that went away without closing frees its slot (`WEBSOCKET_PING_MS`);
   * 0: no pings. @default 12000
   */
  pingMs?: number;
}

/**
 * Longest `Authorization` a `connection_init` may carry, in bytes: as much as Node's HTTP parser
 * admits of a whole request's headers (16 KiB), so that a token good over HTTP is good here too.
 */
export const MAX_CREDENTIALS_BYTES = 16 * 1024;

/** What the gateway keeps of one WebSocket connection: its credentials, never the rest of `connection_init`. */
interface Connection {
  socket: WebSocket;
  /** The caller's `Authorization`: from `connection_init` (`{ "Authorization": "Bearer …" }`), else the upgrade request. */
  authorization: string | undefined;
  /** Where the connection came from (see `clientAddress`): a caller without credentials is budgeted by it. */
  clientAddress: string | undefined;
  /** Operations running, by the client's id, each abortable. */
  running: Map<string, AbortController>;
  /** Closes the connection once it ran no operation for the idle timeout. */
  idle: IdleTimer;
  /** Whether the peer answered the last ping. */
  alive: boolean;
}

type ConnectionContext = Context<Record<string, unknown> | undefined, { connection: Connection }>;

/** A placeholder document: graphql-ws needs one, the operation is read by the gateway's own chain. */
const RELAYED = parse('{ __typename }');

/**
 * GraphQL over WebSocket (`graphql-transport-ws`, which Apollo Client, urql and GraphiQL speak) at
 * `/graphql` on `server`. Each operation is relayed to the gateway's own `fetch` as a request over
 * SSE, with the connection's credentials, so that every plugin of the one chain (limits, persisted
 * operations, cost, logs, metrics, traces) runs for it as for any HTTP request; its events go back
 * as `next` messages. The client's `complete`, or the socket closing, aborts it (its subscription
 * stops, its upstream requests are abandoned).
 *
 * The budgets of `/graphql` hold: a message is at most `MAX_REQUEST_BYTES` (past it, the socket
 * closes with 1009 before the rest is read), `connection_init` leaves only its `Authorization`
 * behind (at most `MAX_CREDENTIALS_BYTES`, else 4400), each address holds at most its share of
 * open connections (`gateway.connections`: one more upgrade is answered 429), and a connection
 * runs at most `maxPerConnection` operations at once (one more: RATE_LIMITED). A connection that
 * does not send `connection_init` within `initTimeoutMs` is closed (4408), so is one that runs no
 * operation for the idle timeout (1000), and one whose peer stops answering pings.
 */
export function serveWebSockets(server: Server, gateway: Gateway, options: WebSocketOptions = {}) {
  const maxPerConnection = options.maxPerConnection ?? 100;
  const pingMs = options.pingMs ?? 12_000;
  const { idleMs } = gateway.connections.limits;
  // What graphql-ws validates its placeholder document against; the relayed operation meets the schema in the chain.
  const { schema } = gateway.yoga.getEnveloped();
  const sockets = new WebSocketServer({
    noServer: true,
    path: '/graphql',
    // ws reads a message no further than this, then closes with 1009 (message too big).
    maxPayload: gateway.limits.maxRequestBytes,
    // A compressed message would be inflated before its size is known.
    perMessageDeflate: false,
    handleProtocols,
  });
  /** The connections open now, for `close` to wait on what they still run. */
  const open = new Set<Connection>();

  const protocol = makeServer<Record<string, unknown> | undefined, { connection: Connection }>({
    connectionInitWaitTimeout: options.initTimeoutMs ?? 3_000,
    onConnect(ctx) {
      const { connection } = ctx.extra;
      const given = ctx.connectionParams?.Authorization ?? ctx.connectionParams?.authorization;
      // The rest of the payload is the client's business: nothing of it stays for the connection's life.
      (ctx as { connectionParams?: unknown }).connectionParams = undefined;
      if (typeof given !== 'string') return true;
      const bytes = Buffer.byteLength(given);
      if (bytes > MAX_CREDENTIALS_BYTES) {
        connection.socket.close(
          CloseCode.BadRequest,
          `connection_init: Authorization is ${bytes} bytes, the limit is ${MAX_CREDENTIALS_BYTES}`,
        );
        return false;
      }
      connection.authorization = given;
      return true;
    },
    onSubscribe(ctx, id, payload) {
      const { connection } = ctx.extra;
      if (id.length > MAX_OPERATION_ID_LENGTH) {
        const message = `Subscribe: id over ${MAX_OPERATION_ID_LENGTH} characters`;
        connection.socket.close(CloseCode.BadRequest, message);
        return [new GraphQLError(message)];
      }
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
      connection.idle.started();
      return { schema, document: RELAYED, rootValue: { payload, abort } };
    },
    execute: (args) => relayed(gateway, args.contextValue as ConnectionContext, args.rootValue as Relayed),
    subscribe: (args) => relayed(gateway, args.contextValue as ConnectionContext, args.rootValue as Relayed),
    context: (ctx) => ctx,
    // The results are the gateway's answers, already as clients read them: sent as they are.
    onNext: (_ctx, _id, _payload, _args, result) => result,
    onComplete(ctx, id) {
      const { connection } = ctx.extra;
      const abort = connection.running.get(id);
      if (!abort) return;
      abort.abort();
      connection.running.delete(id);
      connection.idle.ended();
    },
    onClose(ctx) {
      const { connection } = ctx.extra;
      for (const abort of connection.running.values()) abort.abort();
      connection.running.clear();
    },
  });

  function accept(socket: WebSocket, request: IncomingMessage): void {
    const connection: Connection = {
      socket,
      authorization: request.headers.authorization,
      clientAddress: gateway.clientAddress(request),
      running: new Map(),
      idle: new IdleTimer(idleMs, () =>
        socket.close(1000, `Idle: no operation for ${idleMs} ms, connect again to run one`),
      ),
      alive: true,
    };
    open.add(connection);
    // ws closes the socket itself on what the peer did wrong (1009 past maxPayload, 1002 a bad
    // frame): nothing for the gateway's logs, which a client could otherwise fill.
    socket.on('error', () => {});
    socket.on('pong', () => {
      connection.alive = true;
    });
    const closed = protocol.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (error) => (error ? reject(error) : resolve()));
          }),
        close: (code, reason) => socket.close(code, reason),
        onMessage: (handle) =>
          socket.on('message', (data: Buffer) => {
            handle(String(data)).catch((error: unknown) => {
              console.error(`WebSocket message failed: ${redactSecrets(String(error))}`);
              socket.close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      { connection },
    );
    socket.once('close', (code, reason) => {
      connection.idle.stop();
      open.delete(connection);
      void closed(code, String(reason));
    });
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // Another path: ws answers it 400, and it takes no slot.
    if (!sockets.shouldHandle(request)) {
      sockets.handleUpgrade(request, socket, head, () => {});
      return;
    }
    // A page of another site would read every answer: no CORS header guards a WebSocket.
    if (!pageMayConnect(gateway.corsOrigins, request.headers.origin, request.headers.host)) {
      refuseUpgrade(socket, originRefused(request.headers.origin!));
      return;
    }
    const slot = gateway.connections.open(gateway.clientAddress(request));
    if (typeof slot !== 'function') {
      refuseUpgrade(socket, slot);
      return;
    }
    // The slot is the socket's, upgraded or not: a handshake that fails gives it back too.
    socket.once('close', slot);
    sockets.handleUpgrade(request, socket, head, (webSocket) => accept(webSocket, request));
  }
  server.on('upgrade', onUpgrade);

  // One timer pings every connection; a peer that did not answer the last ping is gone.
  const pinger =
    pingMs > 0
      ? setInterval(() => {
          for (const connection of open) {
            if (!connection.alive) {
              connection.socket.terminate();
              continue;
            }
            connection.alive = false;
            connection.socket.ping();
          }
        }, pingMs)
      : undefined;
  pinger?.unref();

  return {
    /**
     * Waits up to `graceMs` for the operations that are ending to send their last messages (a
     * draining gateway's subscriptions: `SHUTTING_DOWN`), then closes every connection (1001, going
     * away; what still runs ends) and stops accepting new ones.
     */
    close: async (graceMs = 1_000) => {
      server.off('upgrade', onUpgrade);
      // A draining gateway ends its subscriptions with a last event: it goes out before the sockets close.
      const end = Date.now() + graceMs;
      while ([...open].some((connection) => connection.running.size > 0) && Date.now() < end)
        await new Promise((resolve) => setTimeout(resolve, 10));
      clearInterval(pinger);
      for (const connection of open) connection.socket.close(1001, 'Going away');
      await new Promise((resolve) => sockets.close(resolve));
    },
  };
}

interface Relayed {
  payload: RelayedOperation;
  abort: AbortController;
}

/** The 403 of an upgrade a page of an origin not allowed asked for. */
function originRefused(origin: string): Refusal {
  const body = {
    errors: [
      {
        message: `Pages of ${origin.slice(0, 100)} may not open WebSockets to this gateway: only its own pages and those of CORS_ORIGINS may`,
        extensions: { code: 'FORBIDDEN', reason: 'ORIGIN_NOT_ALLOWED' },
      },
    ],
  };
  return {
    status: 403,
    statusText: 'Forbidden',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  };
}

function relayed(gateway: Gateway, ctx: ConnectionContext, { payload, abort }: Relayed) {
  const { connection } = ctx.extra;
  return relayOperation((request, serverContext) => gateway.fetch(request, serverContext), payload, {
    authorization: connection.authorization,
    clientAddress: connection.clientAddress,
    abort,
  });
}
