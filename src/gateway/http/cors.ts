import type { YogaServerOptions } from 'graphql-yoga';
import { RATE_LIMIT_HEADERS } from '../policy/rate-limit.js';

/** How long a browser may keep a preflight's answer: Chromium keeps none longer. */
const PREFLIGHT_MAX_AGE_S = 7200;
/** Headers of the gateway's answers that a page of an allowed origin may read besides the safelisted ones. */
const EXPOSED_HEADERS = ['x-request-id', 'retry-after', ...RATE_LIMIT_HEADERS];

/**
 * yoga's `cors` option for an allow-list of origins (`CORS_ORIGINS`): an empty list sends no CORS
 * header at all; otherwise a request whose `Origin` is listed, exactly, gets it back in
 * `access-control-allow-origin` (with `Vary: Origin`), its preflight the methods and headers it
 * asked for, and never `access-control-allow-credentials`: clients authenticate with an
 * `Authorization` header, which a page sets itself, so no answer ever needs the browser's cookies
 * or its HTTP authentication. An unlisted origin gets no CORS header, so its page reads nothing.
 */
/**
 * Whether a page of `origin` may use a connection that no CORS header guards (a WebSocket, whose
 * answers any page could read): its own origin (the `host` it asked for), or one of `origins` (`CORS_ORIGINS`).
 * A client that is no page sends no `Origin`, and may.
 */
export function pageMayConnect(
  origins: readonly string[],
  origin: string | undefined,
  host: string | undefined,
): boolean {
  if (origin === undefined) return true;
  if (origins.includes(origin)) return true;
  const page = URL.parse(origin);
  return page !== null && (page.protocol === 'http:' || page.protocol === 'https:') && page.host === host;
}

export function corsOptions(origins: readonly string[]): YogaServerOptions<object, object>['cors'] {
  if (origins.length === 0) return false;
  const allowed = new Set(origins);
  return (request) => {
    const origin = request.headers.get('origin');
    if (origin === null || !allowed.has(origin)) return false;
    // No `origin`: yoga's CORS answers the request's own, which is the listed one, and adds Vary.
    return { credentials: false, exposedHeaders: EXPOSED_HEADERS, maxAge: PREFLIGHT_MAX_AGE_S };
  };
}
