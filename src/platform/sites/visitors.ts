import { createHash, randomBytes } from 'node:crypto';
import { errors as joseErrors, importSPKI, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { newId, now } from '../http.js';
import type { Db } from '../store/db.js';
import { reloadSite, type SiteRow } from './store.js';

/**
 * Who may read a published site: share links (a key in the URL, for `share-link` sites) and
 * visitor authentication (a JWT signed by the site's own backend, for `visitor-auth` sites and
 * for the claims of adaptive content), and the short-lived API tokens the platform gives a
 * resolved visitor.
 */

// --- Share links -------------------------------------------------------------------------------

export interface ShareLinkRow {
  id: string;
  site_id: string;
  key: string;
  name: string | null;
  active: number;
  created_at: string;
}

export function shareLinksOf(db: Db, siteId: string): ShareLinkRow[] {
  return db
    .prepare('SELECT * FROM site_share_links WHERE site_id = ? ORDER BY created_at, id')
    .all(siteId) as ShareLinkRow[];
}

export function createShareLink(db: Db, siteId: string, name: string | undefined): ShareLinkRow {
  const id = newId();
  // 20 characters of base62-ish randomness: what readers put in URLs, unguessable.
  const key = randomBytes(15)
    .toString('base64url')
    .replace(/[-_]/g, (c) => (c === '-' ? 'x' : 'z'));
  db.prepare('INSERT INTO site_share_links (id, site_id, key, name, active, created_at) VALUES (?, ?, ?, ?, 1, ?)').run(
    id,
    siteId,
    key,
    name ?? null,
    now(),
  );
  return db.prepare('SELECT * FROM site_share_links WHERE id = ?').get(id) as ShareLinkRow;
}

export function findShareLink(db: Db, siteId: string, shareLinkId: string): ShareLinkRow | undefined {
  return db.prepare('SELECT * FROM site_share_links WHERE id = ? AND site_id = ?').get(shareLinkId, siteId) as
    | ShareLinkRow
    | undefined;
}

/** Renames, enables or disables a share link; returns it as stored. */
export function updateShareLink(
  db: Db,
  row: ShareLinkRow,
  changes: { name: string | null; active: number },
): ShareLinkRow {
  db.prepare('UPDATE site_share_links SET name = ?, active = ? WHERE id = ?').run(changes.name, changes.active, row.id);
  return db.prepare('SELECT * FROM site_share_links WHERE id = ?').get(row.id) as ShareLinkRow;
}

/** Deletes a share link of a site; whether there was one. */
export function deleteShareLink(db: Db, siteId: string, shareLinkId: string): boolean {
  return db.prepare('DELETE FROM site_share_links WHERE id = ? AND site_id = ?').run(shareLinkId, siteId).changes > 0;
}

/** The active share link of a site with that key (compared exactly: keys are secrets). */
export function activeShareLink(db: Db, siteId: string, key: string | undefined): ShareLinkRow | undefined {
  if (!key) return undefined;
  return db.prepare('SELECT * FROM site_share_links WHERE site_id = ? AND key = ? AND active = 1').get(siteId, key) as
    | ShareLinkRow
    | undefined;
}

// --- Visitor authentication --------------------------------------------------------------------

/** The site's signing key for visitor tokens (HS256), made on first use. */
export function signingKey(db: Db, site: SiteRow): string {
  if (site.auth_private_key) return site.auth_private_key;
  const key = randomBytes(32).toString('base64url');
  db.prepare('UPDATE sites SET auth_private_key = ? WHERE id = ? AND auth_private_key IS NULL').run(key, site.id);
  return reloadSite(db, site.id).auth_private_key!;
}

/** Replaces the signing key: tokens signed with the old one stop working at once. */
export function regenerateSigningKey(db: Db, site: SiteRow): string {
  db.prepare('UPDATE sites SET auth_private_key = ? WHERE id = ?').run(randomBytes(32).toString('base64url'), site.id);
  return reloadSite(db, site.id).auth_private_key!;
}

/** A public key (PEM, SPKI) that RS256 visitor tokens may be verified with, or an error message. */
export async function publicKeyProblem(pem: string): Promise<string | undefined> {
  try {
    await importSPKI(pem, 'RS256');
    return undefined;
  } catch {
    return 'must be an RSA public key in PEM (SPKI, "-----BEGIN PUBLIC KEY-----")';
  }
}

/** A visitor token that did not verify, with the reason a reader may see. */
export class VisitorTokenError extends Error {
  override readonly name = 'VisitorTokenError';
}

/** Claims the token format uses for itself, not about the visitor. */
const REGISTERED = new Set(['exp', 'iat', 'nbf', 'iss', 'aud', 'jti']);

/**
 * The claims of a visitor token signed for the site: HS256 with the site's signing key, or RS256
 * with the public key its settings hold. `exp` and `nbf` are honoured (30 s of clock tolerance).
 */
export async function verifyVisitorToken(
  db: Db,
  site: SiteRow,
  token: string,
): Promise<{ claims: Record<string, unknown>; exp?: number }> {
  let payload: JWTPayload;
  try {
    if (site.auth_public_key && /^eyJ[^.]*\./.test(token) && headerAlg(token) === 'RS256') {
      ({ payload } = await jwtVerify(token, await importSPKI(site.auth_public_key, 'RS256'), {
        algorithms: ['RS256'],
        clockTolerance: 30,
      }));
    } else {
      const key = new TextEncoder().encode(signingKey(db, site));
      ({ payload } = await jwtVerify(token, key, { algorithms: ['HS256'], clockTolerance: 30 }));
    }
  } catch (error) {
    throw new VisitorTokenError(`Error while validating the JWT token. Reason: ${tokenFailure(error)}`);
  }
  const claims = Object.fromEntries(Object.entries(payload).filter(([name]) => !REGISTERED.has(name)));
  return { claims, ...(typeof payload.exp === 'number' ? { exp: payload.exp } : {}) };
}

/** A fingerprint of the keys a site verifies visitor tokens with: it changes when they do. */
export function keyFingerprint(site: Pick<SiteRow, 'auth_private_key' | 'auth_public_key'>): string {
  return createHash('sha256')
    .update(`${site.auth_private_key ?? ''}\n${site.auth_public_key ?? ''}`)
    .digest('base64url')
    .slice(0, 16);
}

function headerAlg(token: string): string | undefined {
  try {
    return (JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString('utf8')) as { alg?: string }).alg;
  } catch {
    return undefined;
  }
}

function tokenFailure(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The token has expired.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The token signature is invalid.';
  if (error instanceof joseErrors.JOSEAlgNotAllowed)
    return 'The token is not signed with an algorithm the site accepts (HS256, or RS256 with a public key set).';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `The token claim "${error.claim}" is not valid now.`;
  return 'The token is malformed.';
}

// --- API tokens of resolved visitors -------------------------------------------------------------

const SECRET_KEY = 'site_token_secret';

/** The platform's own secret for the API tokens it gives resolved visitors, made on first use. */
function platformSecret(db: Db): Uint8Array {
  let secret = db.prepare('SELECT value FROM meta WHERE key = ?').pluck(true).get(SECRET_KEY) as string | undefined;
  if (!secret) {
    db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(
      SECRET_KEY,
      JSON.stringify(randomBytes(32).toString('base64url')),
    );
    secret = db.prepare('SELECT value FROM meta WHERE key = ?').pluck(true).get(SECRET_KEY) as string;
  }
  return new TextEncoder().encode(JSON.parse(secret) as string);
}

export interface SiteTokenClaims {
  kind: 'site';
  organization: string;
  site: string;
  siteSection?: string;
  siteSpace: string;
  space: string;
  spaces: string[];
  visitorType: 'human' | 'agent';
  claims: Record<string, unknown>;
  /** The share key the URL carried: the token works while that share link is active. */
  shareKey?: string;
  /** The fingerprint of the site's keys when a visitor token was verified: a new key ends the token. */
  keys?: string;
  /** Given to a member for an unpublished site. */
  preview?: boolean;
}

/** Lifetime of the API token given with a resolved URL (shorter when the visitor's own token ends sooner). */
export const SITE_TOKEN_SECONDS = 60 * 60;

export async function signSiteToken(db: Db, claims: SiteTokenClaims, notAfter?: number): Promise<string> {
  const exp = Math.min(Math.floor(Date.now() / 1000) + SITE_TOKEN_SECONDS, notAfter ?? Infinity);
  return new SignJWT({ ...claims })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(exp)
    .setIssuer('docs-platform')
    .sign(platformSecret(db));
}

/**
 * Whether what the API token of a resolved URL was given for still holds: the site exists and is
 * published (unless the token was a member's preview), still publishes the space, its share link
 * is still active, and its visitor keys are the ones that verified the visitor.
 */
export function siteTokenHolds(db: Db, token: SiteTokenClaims): boolean {
  const site = db.prepare('SELECT * FROM sites WHERE id = ? AND org_id = ?').get(token.site, token.organization) as
    | SiteRow
    | undefined;
  if (!site || (site.published !== 1 && !token.preview)) return false;
  if (!db.prepare('SELECT 1 FROM site_spaces WHERE site_id = ? AND space_id = ?').get(site.id, token.space))
    return false;
  if (token.shareKey && !activeShareLink(db, site.id, token.shareKey)) return false;
  return !token.keys || token.keys === keyFingerprint(site);
}

/** The claims of an API token the platform gave, or undefined when it is not one or expired. */
export async function readSiteToken(db: Db, token: string): Promise<SiteTokenClaims | undefined> {
  try {
    const { payload } = await jwtVerify(token, platformSecret(db), { algorithms: ['HS256'], issuer: 'docs-platform' });
    return payload.kind === 'site' ? (payload as unknown as SiteTokenClaims) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether someone outside the site's organization may read it: a published public or unlisted
 * site, a published share-link site with the key of one of its active share links, or the site
 * for a visitor holding its API token (a published one, or a member's preview of an unpublished one).
 */
export function readableWithoutMembership(
  db: Db,
  site: SiteRow,
  shareKey: string | undefined,
  visitorOf?: string,
): boolean {
  // The bearer of an API token the platform gave for this site (a resolved URL) is its reader: the
  // token holds (`siteTokenHolds`), so the site is published or the token was a member's preview.
  if (visitorOf === site.id) return true;
  if (site.published !== 1) return false;
  if (site.visibility === 'public' || site.visibility === 'unlisted') return true;
  return site.visibility === 'share-link' && activeShareLink(db, site.id, shareKey) !== undefined;
}
