import { AbandonedRequestError, ResponseTooLargeError } from '../errors.js';
import type { UpstreamAnswer, UpstreamCall, UpstreamFetch, UpstreamHook } from './hooks.js';

/** A platform request shared by the identical GETs that asked for it while it was under way. */
interface Flight {
  /** The call actually sent: its own signal, aborted only when every caller has gone away. */
  shared: UpstreamCall;
  controller: AbortController;
  /** Callers still waiting for it. */
  waiting: number;
  settled: boolean;
  done: Promise<UpstreamAnswer>;
}

/**
 * Shares one platform request among identical GETs in flight at once, across GraphQL requests:
 * same path and query, same credentials (`Authorization`) and same `If-None-Match`, the headers
 * that make an answer the caller's own (`x-request-id` and `traceparent` only name it). Never a
 * write, never a signed URL, never past the first answer: a GET made once the shared one answered
 * goes upstream again; a fresh GET (made after a change it was told of: a subscription's wake)
 * joins no request already under way, and the identical GETs after it join it. Each caller gets the answer (parsed again by its own request) or a copy of
 * the error, the times of the shared exchange, and its own byte bound; a caller whose client went
 * away leaves, and the request is abandoned only when nobody waits for it any more.
 */
export function upstreamDedupe(): UpstreamHook {
  const flights = new Map<string, Flight>();
  return {
    name: 'in-flight dedupe',
    fetch(call, next) {
      if (call.method !== 'GET' || call.signed) return next(call);
      const { headers } = call;
      const key = `${headers.authorization ?? ''}\u0000${headers['if-none-match'] ?? ''}\u0000${call.target}`;
      let flight = flights.get(key);
      // A fresh read takes off anew, and those after it join it rather than the one that began before the change.
      if (!flight || call.fresh) {
        const taken: Flight = takeOff(call, next, () => {
          if (flights.get(key) === taken) flights.delete(key);
        });
        flight = taken;
        flights.set(key, flight);
      }
      return join(flight, call, next);
    },
  };
}

function takeOff(call: UpstreamCall, next: UpstreamFetch, landed: () => void): Flight {
  const controller = new AbortController();
  // Written out in the order the client builds a call, so that every hook sees calls of one shape.
  const shared: UpstreamCall = {
    method: call.method,
    path: call.path,
    target: call.target,
    headers: call.headers,
    payload: call.payload,
    maxBytes: call.maxBytes,
    route: call.route,
    operation: call.operation,
    signed: call.signed,
    fresh: call.fresh,
    span: call.span,
    explained: call.explained,
    signal: controller.signal,
    deadline: call.deadline,
    timeoutMs: call.timeoutMs,
    tries: call.tries,
    startedAt: call.startedAt,
    endedAt: call.endedAt,
    status: call.status,
    connection: call.connection,
  };
  const flight: Flight = { shared, controller, waiting: 0, settled: false, done: undefined as never };
  flight.done = next(shared).finally(() => {
    // Before any caller hears of it: a GET from now on is a new request.
    flight.settled = true;
    landed();
  });
  // Every caller may have left: the outcome then has nobody to reach.
  flight.done.catch(() => undefined);
  return flight;
}

function join(flight: Flight, call: UpstreamCall, next: UpstreamFetch): Promise<UpstreamAnswer> {
  flight.waiting += 1;
  const first = flight.waiting === 1;
  const { signal } = call;
  const leave = () => {
    flight.waiting -= 1;
    if (flight.waiting === 0 && !flight.settled) flight.controller.abort();
  };
  return new Promise<UpstreamAnswer>((resolve, reject) => {
    let gone = false;
    const abandon = () => {
      gone = true;
      leave();
      reject(new AbandonedRequestError(call.method, call.path));
    };
    if (signal?.aborted) return abandon();
    signal?.addEventListener('abort', abandon, { once: true });
    flight.done.then(
      (answer) => {
        if (gone) return;
        signal?.removeEventListener('abort', abandon);
        flight.waiting -= 1;
        noteExchange(call, flight.shared);
        // Each caller reads within its own bound.
        if (answer.bytes > call.maxBytes) reject(new ResponseTooLargeError('upstream', answer.bytes, call.maxBytes));
        else resolve(answer);
      },
      (error: unknown) => {
        if (gone) return;
        signal?.removeEventListener('abort', abandon);
        flight.waiting -= 1;
        // Too large for the caller that sent it may fit this one's bound: then it asks for itself.
        if (error instanceof ResponseTooLargeError && call.maxBytes > flight.shared.maxBytes) {
          next(call).then(resolve, reject);
          return;
        }
        noteExchange(call, flight.shared);
        reject(first ? error : copyOf(error));
      },
    );
  });
}

/** The shared exchange's times, tries and status, for the hooks outside this one (explain, spans). */
function noteExchange(call: UpstreamCall, shared: UpstreamCall): void {
  call.startedAt = shared.startedAt;
  call.endedAt = shared.endedAt;
  call.tries = shared.tries;
  call.status = shared.status;
}

/** A copy of an error, for a caller of its own: the same class, message and extensions. */
function copyOf(error: unknown): unknown {
  if (typeof error !== 'object' || error === null) return error;
  const copy = Object.create(Object.getPrototypeOf(error)) as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(error))
    Object.defineProperty(copy, name, Object.getOwnPropertyDescriptor(error, name)!);
  const extensions = (error as { extensions?: unknown }).extensions;
  if (typeof extensions === 'object' && extensions !== null)
    Object.defineProperty(copy, 'extensions', { value: { ...extensions }, enumerable: true, writable: true });
  return copy;
}
