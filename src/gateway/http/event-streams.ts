import { randomUUID } from 'node:crypto';
import type { Response as SseResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import type { Plugin } from 'graphql-yoga';
import { budgetKeyOf, callerKeyOf } from '../state/caller.js';
import { clientAddressOf } from './client-address.js';
import { relayOperation, type GatewayFetch } from './relay.js';

/** Options of `useEventStreams`. */
export interface EventStreamOptions {
  /** Where the single-connection mode is served. @default /graphql/stream */
  path?: string;
  /** Milliseconds a reserved stream waits for its client to connect before it is dropped. @default 10000 */
  reservationMs?: number;
  /** Streams one caller may hold reserved and not yet connected. @default 10 */
  maxReservedPerCaller?: number;
}

/** A stream reserved (`PUT`) whose client has not connected yet. */
interface Reservation {
  /** Who reserved it, as budgets count callers: its token, or without one its address. */
  caller: string;
  timer: NodeJS.Timeout;
}

/**
 * GraphQL over SSE's single-connection mode at `path` (one event stream for many operations, as
 * `graphql-sse`'s client with `singleConnection: true` speaks it; its distinct-connections mode is
 * yoga's own, at `/graphql`). Each operation is relayed to the gateway's own `fetch` with the
 * caller's credentials, so that every plugin of the one chain runs for it, as for a WebSocket's:
 * its events carry `extensions`, its line is in the operation log.
 *
 * A reserved stream whose client does not connect within `reservationMs` is dropped with the
 * operations sent to it, and a caller holds at most `maxReservedPerCaller` such reservations: a
 * client cannot grow the gateway's memory or its subscriptions with streams nobody reads. The
 * stream's token lives in the replica that gave it: behind a balancer, this mode needs sticky
 * sessions.
 */
export function useEventStreams(
  fetch: GatewayFetch,
  options: EventStreamOptions = {},
): Plugin & {
  /** Ends every connected stream (a draining gateway, once its subscriptions sent their last event). */
  endStreams(): void;
} {
  const path = options.path ?? '/graphql/stream';
  const reservationMs = options.reservationMs ?? 10_000;
  const maxReserved = options.maxReservedPerCaller ?? 10;
  const reservations = new Map<string, Reservation>();
  /** The caller of each stream reserved or connected: no other may connect to it or post to it. */
  const owners = new Map<string, string>();
  /** How to end each stream connected now. */
  const connected = new Set<() => void>();
  const reservedBy = (caller: string) => [...reservations.values()].filter((r) => r.caller === caller).length;

  const handler = createHandler({
    authenticate(request) {
      const token = tokenOf(request);
      const caller = callerKeyOf(request.raw);
      // Another caller's stream is as if it did not exist.
      if (token !== null && owners.has(token) && owners.get(token) !== caller) return NOT_FOUND;
      if (request.method === 'PUT' && reservedBy(budgetKeyOf(request.raw)) >= maxReserved)
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
    onSubscribe: (request, params) =>
      relayOperation(fetch, params, {
        authorization: request.headers.get('authorization') ?? undefined,
        clientAddress: clientAddressOf(request.raw),
      }),
  });

  /** Drops a reservation nobody connected to: connecting to it and leaving at once ends it and its operations. */
  async function drop(token: string): Promise<void> {
    reservations.delete(token);
    owners.delete(token);
    const url = `http://gateway.internal${path}?token=${encodeURIComponent(token)}`;
    const response = await handler(new Request(url, { headers: { accept: 'text/event-stream' } }));
    await response.body?.cancel().catch(() => {});
  }

  /** The stream `response` carries, which `endStreams` can end (graphql-sse's never ends on its own). */
  function endable(response: Response, token: string | null, Response_: typeof Response): Response {
    const reader = response.body!.getReader();
    let end = () => {};
    const ended = () => {
      connected.delete(end);
      if (token !== null) owners.delete(token);
    };
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        end = () => {
          ended();
          void reader.cancel().catch(() => {});
          controller.close();
        };
        connected.add(end);
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

  return {
    endStreams() {
      for (const end of connected) end();
    },
    async onRequest({ url, request, endResponse, fetchAPI }) {
      if (url.pathname !== path) return;
      let response = await handler(request);
      if (request.method === 'GET' && response.headers.get('content-type')?.startsWith('text/event-stream'))
        response = endable(response, tokenOf(request), fetchAPI.Response);
      if (request.method === 'PUT' && response.status === 201) {
        const token = await response.clone().text();
        const timer = setTimeout(() => void drop(token), reservationMs);
        timer.unref();
        reservations.set(token, { caller: budgetKeyOf(request), timer });
        owners.set(token, callerKeyOf(request));
      }
      endResponse(response);
    },
  };
}

/** The stream a request names: its `x-graphql-event-stream-token` header or `token` parameter. */
function tokenOf(request: { headers: { get(name: string): string | null | undefined }; url: string }): string | null {
  return request.headers.get('x-graphql-event-stream-token') ?? new URL(request.url).searchParams.get('token');
}

const NOT_FOUND: SseResponse = [null, { status: 404, statusText: 'Not Found' }];

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
