import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { partsOf } from '../request-parts.js';

/** The header a request id travels in: from the client, back to it, and to the upstream. */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An id a client may choose: short, and nothing a log line or a header could be abused with. */
const CLIENT_ID = /^[\w.:-]{1,128}$/;

declare module '../request-parts.js' {
  interface RequestParts {
    /** The request's id (`x-request-id`, see `useRequestId`), carried by its log line and its upstream calls. */
    requestId?: string | undefined;
  }
}

/**
 * The id of a request, kept on its server context: the client's `x-request-id` when it is a
 * plausible id, a new UUID otherwise; the same for the whole request, whoever asks first.
 */
export function requestIdOf(serverContext: object, request: Request): string {
  const parts = partsOf(serverContext);
  if (parts.requestId === undefined) {
    const asked = request.headers.get(REQUEST_ID_HEADER);
    parts.requestId = asked !== null && CLIENT_ID.test(asked) ? asked : randomUUID();
  }
  return parts.requestId;
}

/**
 * Gives every request its id (`x-request-id`) from its first hook, and answers with it: its log
 * line and its upstream calls carry it too, so a client that reports a problem quotes it, and
 * operators find the request on both sides.
 */
export function useRequestId(): Plugin {
  return {
    onRequest({ request, serverContext }) {
      requestIdOf(serverContext, request);
    },
    onResponse({ request, response, serverContext }) {
      response.headers.set(REQUEST_ID_HEADER, requestIdOf(serverContext, request));
    },
  };
}
