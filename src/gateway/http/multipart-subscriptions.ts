import type { ExecutionResult, GraphQLError } from 'graphql';
import { type FetchAPI, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { stringifyAnswer } from '../upstream/bodies.js';

/** Apollo's multipart subscription protocol, as its clients ask for it in `Accept`. */
const SUBSCRIPTION_SPEC = /multipart\/mixed[^,]*\bsubscriptionSpec\s*=\s*"?1\.0/i;

/** The boundary between parts: any the response's content type names works for the client. */
const BOUNDARY = 'graphql';

/** How often an open stream with nothing to say sends an empty part, so that no proxy takes it for dead. */
export const HEARTBEAT_MS = 5_000;

/**
 * Subscriptions over HTTP multipart, in Apollo's protocol (`Accept: multipart/mixed;
 * subscriptionSpec=1.0`, what Apollo Client sends for a subscription over its `HttpLink`): one
 * `multipart/mixed` response whose parts are `{"payload": <the event's answer>}`, an empty `{}` every
 * `HEARTBEAT_MS` while no event comes, and the closing boundary when the subscription ends. The
 * subscription is the one every transport runs (the live hub's limits per caller and in all, its
 * cost and rate limit per event); the client going away ends it. `@defer` and `@stream` keep yoga's
 * own `multipart/mixed` (Apollo's `deferSpec`), which answers in parts of another shape.
 */
export function useMultipartSubscriptions(heartbeatMs = HEARTBEAT_MS): Plugin {
  return {
    onResultProcess({ request, result, setResultProcessor }) {
      if (!isAsyncIterable(result) || !SUBSCRIPTION_SPEC.test(request.headers.get('accept') ?? '')) return;
      setResultProcessor(
        (answers, fetchAPI) => multipartResponse(answers as AsyncIterable<unknown>, fetchAPI, heartbeatMs),
        'multipart/mixed',
      );
    },
  };
}

function multipartResponse(answers: AsyncIterable<unknown>, fetchAPI: FetchAPI, heartbeatMs: number): Response {
  const encoder = new fetchAPI.TextEncoder();
  const part = (json: string) =>
    encoder.encode(`\r\ncontent-type: application/json; charset=utf-8\r\n\r\n${json}\r\n--${BOUNDARY}`);
  const iterator = answers[Symbol.asyncIterator]();
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const body = new fetchAPI.ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(`\r\n--${BOUNDARY}`));
      // Not into a full queue: a heartbeat is for a quiet stream, not a reader that stopped (the queue is the
      // stream's, which the server's socket drains, so a client that reads nothing holds at most that much).
      heartbeat = setInterval(() => {
        if ((controller.desiredSize ?? 0) > 0) controller.enqueue(part('{}'));
      }, heartbeatMs);
      heartbeat.unref?.();
    },
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) {
          clearInterval(heartbeat);
          controller.enqueue(encoder.encode('--\r\n'));
          controller.close();
          return;
        }
        controller.enqueue(part(`{"payload":${stringifyAnswer(publicAnswer(value as ExecutionResult))}}`));
      } catch (error) {
        clearInterval(heartbeat);
        controller.error(error);
      }
    },
    async cancel() {
      clearInterval(heartbeat);
      await iterator.return?.();
    },
  });
  return new fetchAPI.Response(body, {
    status: 200,
    headers: {
      'content-type': `multipart/mixed;boundary="${BOUNDARY}";subscriptionSpec=1.0`,
      'cache-control': 'no-store',
    },
  });
}

/** An answer as it leaves: without what only the gateway reads (`extensions.http`, an error's `unexpected`). */
function publicAnswer(answer: ExecutionResult): ExecutionResult {
  const { http: _http, ...extensions } = answer.extensions ?? {};
  const errors = answer.errors?.map((error) => {
    const json = (error as GraphQLError).toJSON?.() ?? error;
    const { http: _status, unexpected: _unexpected, ...rest } = (json.extensions ?? {}) as Record<string, unknown>;
    return { ...json, extensions: rest };
  });
  return {
    ...answer,
    ...(errors ? { errors: errors as unknown as ExecutionResult['errors'] } : {}),
    extensions: Object.keys(extensions).length > 0 ? extensions : undefined,
  };
}
