import type { FastifyRequest } from 'fastify';
import { Access } from './access.js';
import type { ContentReader } from './content/reader.js';
import { ApiError } from './http.js';
import { linksFor, type Links } from './links.js';
import type { UserRow } from './rows.js';
import { SiteVisitorAccess, visitorUser } from './sites/visitor-access.js';
import { visitorContentReader } from './sites/visitor-view.js';
import { readSiteToken, siteTokenHolds } from './sites/visitors.js';
import type { Db } from './store/db.js';
import { storedContentReader } from './content/reader.js';
import {
  checkInstallationRoute,
  InstallationAccess,
  installationOfToken,
  installationUser,
  TOKEN_PREFIX,
} from './integrations/installation-tokens.js';

/** What a route handler knows about the caller. */
export interface RequestContext {
  db: Db;
  user: UserRow;
  access: Access;
  links: Links;
  /** What the caller reads of content: the stored content, or a site visitor's view of it. */
  content: ContentReader;
  /**
   * Set when the bearer is a visitor of a published site, with the API token a resolved URL gave
   * them: their site and claims (which evaluated content reads).
   */
  visitor?: { site: string; organization: string; claims: Record<string, unknown> };
  /** Set when the bearer is an integration's installation, with an installation token: its id. */
  installation?: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    ctx: RequestContext;
  }
}

/**
 * The token of an `Authorization: Bearer <token>` header, else a 401 that says what is wrong
 * without repeating the header, which may hold a credential.
 */
export function bearerToken(header: string | string[] | undefined): string {
  const value = typeof header === 'string' ? header.trim() : '';
  if (value === '') throw new ApiError(401, 'Missing authorization: send "Authorization: Bearer <token>"');
  const [scheme = '', ...rest] = value.split(/\s+/);
  if (scheme.toLowerCase() !== 'bearer') {
    throw new ApiError(
      401,
      'Unsupported authorization scheme: only Bearer tokens are accepted; send "Authorization: Bearer <token>"',
    );
  }
  if (rest.length !== 1) {
    throw new ApiError(401, 'Malformed authorization: send "Authorization: Bearer <token>" with a single token');
  }
  return rest[0]!;
}

/**
 * A `preHandler` hook that sets `request.ctx` from the bearer token: an API token's user, or the
 * visitor of a published site holding a site token, or an integration's installation holding an
 * installation token (`integrations/installation-tokens.ts`). Routes whose pattern is in `open` (health
 * checks, signed downloads and uploads) need no token.
 */
export function authenticate(db: Db, open: ReadonlySet<string>): (request: FastifyRequest) => Promise<void> {
  const findToken = db.prepare('SELECT u.* FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token = ?');
  const storedContent = storedContentReader(db);
  return async (request) => {
    if (open.has(request.routeOptions.url ?? '')) return;
    const token = bearerToken(request.headers.authorization);
    const user = findToken.get(token) as UserRow | undefined;
    const origin = `${request.protocol}://${request.host}`;
    const links = linksFor(origin);
    if (user) {
      request.ctx = { db, user, access: new Access(db, user), links, content: storedContent };
      return;
    }
    // The short-lived token of an integration's installation: its reads alone.
    if (token.startsWith(TOKEN_PREFIX)) {
      const caller = installationOfToken(db, token);
      if (!caller) throw new ApiError(401, 'Invalid or expired installation token');
      checkInstallationRoute(request);
      const user = installationUser(caller, new Date().toISOString());
      request.ctx = {
        db,
        user,
        access: new InstallationAccess(db, user, caller),
        links,
        content: storedContent,
        installation: caller.installation.id,
      };
      return;
    }
    // Not an API token: perhaps the short-lived token of a site visitor (a JWT the platform signed).
    const site = token.startsWith('eyJ') ? await readSiteToken(db, token) : undefined;
    if (!site) throw new ApiError(401, 'Invalid or revoked API token');
    if (!siteTokenHolds(db, site))
      throw new ApiError(401, 'This site visitor token no longer holds: resolve the URL again');
    // Only the routes that read through the visitor's view serve them (see OPEN_TO_VISITORS).
    const { config } = request.routeOptions;
    const reads = request.method === 'GET' || request.method === 'HEAD' || config.readsOnly === true;
    if (!reads || config.visitors !== true) {
      throw new ApiError(403, 'A site visitor token reads published content only');
    }
    const visitor = visitorUser(site, new Date().toISOString());
    const claims = site.claims ?? {};
    request.ctx = {
      db,
      user: visitor,
      access: new SiteVisitorAccess(db, visitor, site),
      links,
      content: visitorContentReader(db, claims),
      visitor: { site: site.site, organization: site.organization, claims },
    };
  };
}
