import type { ExecutionResult } from 'graphql';
import { Repeater } from 'graphql-yoga';

/** What a transport tells the gateway of a request it relays, as the request's server context. */
export interface RelayedServerContext {
  /** Where the caller's connection came from (see `useClientAddress`). */
  clientAddress?: string | undefined;
}

/** The gateway's own request handling (`gateway.fetch`), where relayed operations go. */
export type GatewayFetch = (request: Request, serverContext: RelayedServerContext) => Promise<Response> | Response;

/** An operation as a GraphQL-over-HTTP body carries it. */
export interface RelayedOperation {
  query?: string;
  operationName?: string | null;
  variables?: unknown;
  extensions?: unknown;
}

/** Who sent a relayed operation, as its transport knows it. */
export interface RelayedCaller {
  /** The caller's `Authorization` header. */
  authorization: string | undefined;
  /** Where the caller's connection came from (see `clientAddress`): a caller without credentials is budgeted by it. */
  clientAddress: string | undefined;
  /** Aborted when the caller is gone: the operation ends, and its upstream requests are abandoned. */
  abort?: AbortController;
}

/**
 * Longest id a client may give an operation of a transport that runs several on one connection
 * (a WebSocket's `id`, the single-connection mode's `operationId`): kept as long as the operation
 * runs, so bounded; clients send UUIDs (36 characters).
 */
export const MAX_OPERATION_ID_LENGTH = 256;

/**
 * Runs one operation that came by another transport (a WebSocket, GraphQL over SSE's
 * single-connection mode) through the gateway's own `fetch` as a request over SSE, with the
 * caller's `authorization`, so that every plugin of the one chain runs for it; yields its results
 * as they come. A repeater, not a generator: the transport returns it when the client completes
 * or goes away, which must end the request at once, even while it waits for its next event.
 */
export function relayOperation(fetch: GatewayFetch, payload: RelayedOperation, caller: RelayedCaller) {
  const abort = caller.abort ?? new AbortController();
  return relayedResults(() => relayRequest(fetch, payload, { ...caller, abort }), abort);
}

/**
 * Sends one operation to the gateway's own `fetch` as a request over SSE, with the caller's
 * credentials and address: its answer, an event stream once the operation runs, or the refusal of
 * the request before it ran (JSON, status 4xx), as `/graphql` answers it.
 */
export async function relayRequest(
  fetch: GatewayFetch,
  payload: RelayedOperation,
  { authorization, clientAddress, abort = new AbortController() }: RelayedCaller,
): Promise<Response> {
  const body = JSON.stringify(payload);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    accept: 'text/event-stream',
  };
  if (authorization) headers.authorization = authorization;
  // A Request of its own (the server's fetch ignores the signal of an init): its signal is the
  // one the gateway's plugins and subscriptions hear.
  const request = new Request('http://gateway.internal/graphql', {
    method: 'POST',
    headers,
    body,
    signal: abort.signal,
  });
  return fetch(request, { clientAddress });
}

/** Whether an answer of the gateway is an event stream (the operation runs), not a refusal of the request. */
export function isEventStream(response: Response): boolean {
  return response.headers.get('content-type')?.startsWith('text/event-stream') ?? false;
}

/**
 * The results of a relayed operation as they come: its events, or the one answer of a request
 * refused before it ran. `answer` is asked for once the results are read. Aborting `abort`, or
 * returning the repeater, ends it and the request.
 */
export function relayedResults(answer: () => Promise<Response> | Response, abort: AbortController) {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    // However it ends, the request is over: its subscription stops and its upstream requests are abandoned.
    void stop.then(() => abort.abort());
    abort.signal.addEventListener('abort', () => stop(), { once: true });
    const response = await answer();
    if (!isEventStream(response)) {
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
