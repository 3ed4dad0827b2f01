import { randomUUID } from 'node:crypto';
import type { Response as SseResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';
import { readBounded, tooLarge } from '../policy/limits.js';
import { Caller, callerOf } from '../state/caller.js';
import { IdleTimer, type OpenConnections } from './connections.js';
import {
  isEventStream,
  MAX_OPERATION_ID_LENGTH,
  relayedResults,
  relayRequest,
  type GatewayFetch,
  type RelayedOperation,
} from './relay.js';

/** Options of `useEventStreams`. */
export interface EventStreamOptions {
  /** Where the single-connection mode is served. @default /graphql/stream */
  path?: string;
  /** Milliseconds a reserved stream waits for its client to connect before it is dropped. @default 10000 */
  reservationMs?: number;
  /** Streams one caller may hold reserved and not yet connected. @default 10 */
  maxReservedPerCaller?: number;
}

/** The budgets of `/graphql` the lane shares: its body limit, and the connections open per address. */
export interface EventStreamBounds {
  /** Largest body of a request (`MAX_REQUEST_BYTES`): read no further; past it, 413. */
  maxRequestBytes: number;
  /** The open connections of the gateway: a stream takes a slot of its address, and closes when idle. */
  connections: OpenConnections;
}

/** A stream reserved (`PUT`) whose client has not connected yet. */
interface Reservation {
  /** Who reserved it, as budgets count callers: its token, or without one its address. */
  caller: string;
  timer: NodeJS.Timeout;
}

/** What the lane follows of a stream reserved, from its `PUT` until it ends. */
interface Operations {
  /** Operations sent to it and not ended. */
  running: number;
  /** Once its client connected: ends it when it runs no operation for a while. */
  idle?: IdleTimer;
}

/**
 * GraphQL over SSE's single-connection mode at `path` (one event stream for many operations, as
 * `graphql-sse`'s client with `singleConnection: true` speaks it; its distinct-connections mode is
 * yoga's own, at `/graphql`). Each operation is relayed to the gateway's own `fetch` with the
 * caller's credentials, so that every plugin of the one chain runs for it, as for a WebSocket's:
 * its events carry `extensions`, its line is in the operation log.
 *
 * The lane has the budgets of `/graphql`: a body is read no further than `maxRequestBytes` (413
 * past it, as `/graphql` answers), and an operation refused before it runs (persisted-only, a
 * bad request) is the answer to its `POST`, as `/graphql` gives it. A reserved stream whose client
 * does not connect within `reservationMs` is dropped with the operations sent to it, and a caller
 * holds at most `maxReservedPerCaller` such reservations; a connected stream takes one of its
 * address's connections (see `OpenConnections`) and ends once it ran no operation for the idle
 * timeout: a client cannot grow the gateway's memory or its subscriptions with streams nobody
 * reads. The stream's token lives in the replica that gave it: behind a balancer, this mode needs
 * sticky sessions.
 */
export function useEventStreams(
  fetch: GatewayFetch,
  options: EventStreamOptions,
  bounds: EventStreamBounds,
): Plugin & {
  /** Ends every connected stream (a draining gateway, once its subscriptions sent their last event). */
  endStreams(): void;
} {
  const path = options.path ?? '/graphql/stream';
  const reservationMs = options.reservationMs ?? 10_000;
  const maxReserved = options.maxReservedPerCaller ?? 10;
  const { maxRequestBytes, connections } = bounds;
  const reservations = new Map<string, Reservation>();
  /** The operations of each stream reserved and not ended, by its token. */
  const operations = new Map<string, Operations>();
  /** The caller of each stream reserved or connected: no other may connect to it or post to it. */
  const owners = new Map<string, string>();
  /** How to end each stream connected now. */
  const connected = new Set<() => void>();
  const reservedBy = (caller: string) => [...reservations.values()].filter((r) => r.caller === caller).length;

  const handler = createHandler({
    authenticate(request) {
      const token = tokenOf(request);
      const caller = callerOfHanded(request.raw).key;
      // Another caller's stream is as if it did not exist.
      if (token !== null && owners.has(token) && owners.get(token) !== caller) return NOT_FOUND;
      if (request.method === 'PUT' && reservedBy(callerOfHanded(request.raw).budgetKey) >= maxReserved)
        return tooManyReservations(maxReserved);
      return token ?? randomUUID();
    },
    onConnect(request) {
      const token = tokenOf(request);
      const reservation = token === null ? undefined : reservations.get(token);
      if (!reservation) return;
      clearTimeout(reservation.timer);
      reservations.delete(token!);
    },
    async onSubscribe(request, params) {
      const operationId = (params.extensions as { operationId?: unknown } | undefined)?.operationId;
      if (String(operationId ?? '').length > MAX_OPERATION_ID_LENGTH)
        return refused(request, operationId, operationIdTooLong(String(operationId).length));
      const abort = new AbortController();
      const answer = await relayRequest(fetch, params as RelayedOperation, {
        authorization: request.headers.get('authorization') ?? undefined,
        clientAddress: callerOfHanded(request.raw).address,
        abort,
      });
      // A request refused before its operation ran has a status of its own (its one event is the refusal).
      if (answer.status >= 400) return refused(request, operationId, answer);
      const token = tokenOf(request);
      const stream = token === null ? undefined : operations.get(token);
      if (stream) {
        stream.running += 1;
        stream.idle?.started();
        abort.signal.addEventListener(
          'abort',
          () => {
            stream.running -= 1;
            stream.idle?.ended();
          },
          { once: true },
        );
      }
      return relayedResults(() => answer, abort);
    },
  });

  /**
   * The answer to an operation refused before it ran: its `POST` gets the refusal (status and body) as
   * `/graphql` gives it, and the stream forgets its id, which graphql-sse keeps until the operation ends.
   */
  async function refused(
    request: { headers: { get(name: string): string | null | undefined }; url: string },
    operationId: unknown,
    answer: Response,
  ): Promise<SseResponse> {
    const token = tokenOf(request);
    if (token !== null && operationId != null && operations.has(token)) {
      const url = new URL(`http://gateway.internal${path}`);
      url.searchParams.set('token', token);
      url.searchParams.set('operationId', String(operationId));
      const authorization = request.headers.get('authorization');
      await handler(new Request(url, { method: 'DELETE', headers: authorization ? { authorization } : {} }));
    }
    let refusal: unknown;
    for await (const result of relayedResults(() => answer, new AbortController())) {
      refusal = result;
      break;
    }
    return [
      JSON.stringify(refusal),
      {
        status: answer.status,
        statusText: answer.statusText,
        headers: { 'content-type': 'application/json; charset=utf-8' },
      },
    ];
  }

  /** Drops a reservation nobody connected to: connecting to it and leaving at once ends it and its operations. */
  async function drop(token: string): Promise<void> {
    reservations.delete(token);
    owners.delete(token);
    operations.delete(token);
    const url = `http://gateway.internal${path}?token=${encodeURIComponent(token)}`;
    const response = await handler(new Request(url, { headers: { accept: 'text/event-stream' } }));
    await response.body?.cancel().catch(() => {});
  }

  /**
   * The stream `response` carries, which `endStreams` can end (graphql-sse's never ends on its own):
   * `release` gives its connection's slot back when it ends; a reserved stream's ends once idle.
   */
  function endable(response: Response, token: string | null, release: () => void, Response_: typeof Response) {
    const reader = response.body!.getReader();
    const stream = token === null ? undefined : operations.get(token);
    let end = () => {};
    const ended = () => {
      connected.delete(end);
      release();
      stream?.idle?.stop();
      if (token !== null) {
        owners.delete(token);
        operations.delete(token);
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        end = () => {
          ended();
          void reader.cancel().catch(() => {});
          controller.close();
        };
        connected.add(end);
        if (stream) {
          stream.idle = new IdleTimer(connections.limits.idleMs, () => end());
          for (let running = 0; running < stream.running; running += 1) stream.idle.started();
        }
      },
      async pull(controller) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
        if (!done) return controller.enqueue(value);
        ended();
        controller.close();
      },
      cancel() {
        ended();
        return reader.cancel();
      },
    });
    return new Response_(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }

  /**
   * `request` with its body read up to `maxRequestBytes`, or the 413 `/graphql` gives past it (by
   * its declared length, unread, or once the bytes read pass it: a huge body costs no more than the limit).
   */
  async function bounded(request: Request, Request_: typeof Request): Promise<Request | Response> {
    const declared = Number(request.headers.get('content-length') ?? Number.NaN);
    if (declared > maxRequestBytes) return tooLarge(maxRequestBytes);
    const body = await readBounded(request, maxRequestBytes);
    if (!body) return tooLarge(maxRequestBytes);
    const read = new Request_(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal: request.signal,
    });
    return read;
  }

  return {
    endStreams() {
      for (const end of connected) end();
    },
    // Not async: a request to another path (nearly all) goes on without a promise to wait for.
    onRequest(payload) {
      return payload.url.pathname === path ? serveStream(payload) : undefined;
    },
  };

  /** A request of the single-connection lane: reserving, reading or closing a stream, or sending to one. */
  async function serveStream({
    request,
    endResponse,
    fetchAPI,
    serverContext,
  }: Parameters<NonNullable<Plugin['onRequest']>>[0]): Promise<void> {
    const caller = callerOf(serverContext, request);
    // graphql-sse reads the whole body of a POST (its operation) before anything else.
    let incoming = request;
    if (request.method === 'POST' && request.body) {
      const read = await bounded(request, fetchAPI.Request);
      if (read instanceof Response) return endResponse(read);
      incoming = read;
    }
    (incoming as HandedRequest).caller = caller;
    // A request for an event stream (graphql-sse reads this exact header) holds a connection open.
    let release: (() => void) | undefined;
    if (request.headers.get('accept') === 'text/event-stream') {
      const slot = connections.open(caller.address);
      if (typeof slot !== 'function')
        return endResponse(new fetchAPI.Response(slot.body, { status: slot.status, headers: slot.headers }));
      release = slot;
    }
    let response: Response;
    try {
      response = await handler(incoming);
    } catch (error) {
      release?.();
      throw error;
    }
    if (isEventStream(response))
      response = endable(response, tokenOf(request), release ?? (() => {}), fetchAPI.Response);
    else release?.();
    if (request.method === 'PUT' && response.status === 201) {
      const token = await response.clone().text();
      const timer = setTimeout(() => void drop(token), reservationMs);
      timer.unref();
      reservations.set(token, { caller: caller.budgetKey, timer });
      owners.set(token, caller.key);
      operations.set(token, { running: 0 });
    }
    endResponse(response);
  }
}

/**
 * A request handed to graphql-sse, which passes on only the request to the callbacks: it carries
 * its caller as a field of its own.
 */
type HandedRequest = Request & { caller?: Caller };

/** The caller of a request graphql-sse hands back (see `HandedRequest`). */
function callerOfHanded(request: Request): Caller {
  return (request as HandedRequest).caller ?? new Caller(request.headers.get('authorization'), undefined);
}

/** The stream a request names: its `x-graphql-event-stream-token` header or `token` parameter. */
function tokenOf(request: { headers: { get(name: string): string | null | undefined }; url: string }): string | null {
  return request.headers.get('x-graphql-event-stream-token') ?? new URL(request.url).searchParams.get('token');
}

const NOT_FOUND: SseResponse = [null, { status: 404, statusText: 'Not Found' }];

/** The refusal of an operation whose id is longer than `MAX_OPERATION_ID_LENGTH`, as `/graphql` words bad input. */
function operationIdTooLong(length: number): Response {
  const body = {
    errors: [
      {
        message: `The operation's id (extensions.operationId) is ${length} characters long, the limit is ${MAX_OPERATION_ID_LENGTH}`,
        extensions: { code: 'BAD_USER_INPUT', limit: 'operationId', value: length, max: MAX_OPERATION_ID_LENGTH },
      },
    ],
  };
  return new Response(JSON.stringify(body), {
    status: 400,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

/** The refusal of one more reservation, as graphql-sse's handler answers: `[body, init]`. */
function tooManyReservations(max: number): SseResponse {
  const body = {
    errors: [
      {
        message: `This caller holds ${max} reserved event streams it has not connected to: connect to one, or wait for them to expire`,
        extensions: { code: 'RATE_LIMITED', limit: 'reservedEventStreams', max },
      },
    ],
  };
  return [
    JSON.stringify(body),
    {
      status: 429,
      statusText: 'Too Many Requests',
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '10' },
    },
  ];
}
