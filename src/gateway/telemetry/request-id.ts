import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

/** The header a request id travels in: from the client, back to it, and to the upstream. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An id a client may choose: short, and nothing a log line or a header could be abused with. */
const CLIENT_ID = /^[\w.:-]{1,128}$/;

const ids = new WeakMap<Request, string>();

/**
 * The id of a request: the client's `x-request-id` when it is a plausible id, a new UUID
 * otherwise; the same for the whole request, whoever asks first.
 */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (id === undefined) {
    const asked = request.headers.get(REQUEST_ID_HEADER);
    id = asked !== null && CLIENT_ID.test(asked) ? asked : randomUUID();
    ids.set(request, id);
  }
  return id;
}

/**
 * Answers every request with its id (`x-request-id`), which its log line and its upstream calls
 * carry too: a client that reports a problem quotes it, and operators find the request on both sides.
 */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(request));
    },
  };
}
