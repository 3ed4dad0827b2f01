import type { Plugin } from 'graphql-yoga';

/**
 * Headers whose presence shows that a browser preflighted the request: a page may only set one on
 * a request to another origin after a CORS preflight, which only `CORS_ORIGINS` pass. Any value
 * will do. `x-graphql-csrf` is the gateway's own; the others are what common clients already send:
 * Apollo Client (`apollo-require-preflight`, `x-apollo-operation-name`), graphql-yoga's clients
 * (`x-graphql-yoga-csrf`), and graphql-sse's client in single-connection mode, which names its
 * stream in `x-graphql-event-stream-token` on every request.
 */
export const CSRF_HEADERS = [
  'x-graphql-csrf',
  'apollo-require-preflight',
  'x-apollo-operation-name',
  'x-graphql-yoga-csrf',
  'x-graphql-event-stream-token',
] as const;

/** The content types a page of any site may POST without a preflight (a form, or `fetch` with a string body). */
const SIMPLE_CONTENT_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);
/** A MIME type's essence (`type/subtype`), as the Fetch standard parses it. */
const ESSENCE = /^[!#$%&'*+.^_`|~0-9a-z-]+\/[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * Whether a browser would send `request` from a page of any site without a preflight: a GET or a
 * HEAD, or a POST whose content type is missing, unreadable or one of a form's. Every part of a
 * list of types counts, each before its parameters: a browser reads `text/plain;a=application/json`
 * as text/plain, where a lenient parser might read JSON.
 */
export function mayBeSentWithoutPreflight(request: Request): boolean {
  const method = request.method.toUpperCase();
  if (method === 'GET' || method === 'HEAD') return true;
  if (method !== 'POST') return false;
  const contentType = request.headers.get('content-type');
  if (contentType === null) return true;
  return contentType.split(',').some((part) => {
    const essence = part.split(';')[0]!.trim().toLowerCase();
    return SIMPLE_CONTENT_TYPES.has(essence) || !ESSENCE.test(essence);
  });
}

/** Options of `useCsrfPrevention`. */
export interface CsrfPreventionOptions {
  /** Where GraphQL is served: the requests to it and to paths below it (`/graphql/stream`) are checked. @default /graphql */
  graphqlEndpoint?: string;
}

/**
 * CSRF prevention, as Apollo Server's and graphql-yoga's: a GraphQL request that a page of any site
 * could make a browser send without a preflight (see `mayBeSentWithoutPreflight`) must carry one
 * of `CSRF_HEADERS`, or is refused before anything reads it: 400, `BAD_USER_INPUT` with
 * `reason: CSRF_HEADER_REQUIRED` and the headers it takes. A POST of `application/json` needs
 * none (browsers preflight it), nor do other methods. Requests elsewhere (GraphiQL's page, health,
 * readiness, metrics) are not GraphQL requests and pass.
 */
export function useCsrfPrevention(options: CsrfPreventionOptions = {}): Plugin {
  const endpoint = options.graphqlEndpoint ?? '/graphql';
  const below = `${endpoint}/`;
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== endpoint && !url.pathname.startsWith(below)) return;
      if (!mayBeSentWithoutPreflight(request)) return;
      if (CSRF_HEADERS.some((name) => request.headers.has(name))) return;
      endResponse(
        new fetchAPI.Response(JSON.stringify(refusal(request.method.toUpperCase())), {
          status: 400,
          headers: { 'content-type': 'application/json; charset=utf-8' },
        }),
      );
    },
  };
}

function refusal(method: string) {
  const what = method === 'POST' ? 'A POST that is not application/json' : `A ${method}`;
  return {
    errors: [
      {
        message: `${what} may come from a page of another site (cross-site request forgery): send one of the headers ${CSRF_HEADERS.slice(0, 4).join(', ')} with any value (such as x-graphql-csrf: 1), or POST the operation as application/json`,
        extensions: { code: 'BAD_USER_INPUT', reason: 'CSRF_HEADER_REQUIRED', headers: [...CSRF_HEADERS] },
      },
    ],
  };
}
