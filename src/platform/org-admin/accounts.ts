import type { FastifyInstance } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';
import { derivedKey } from '../content/signing.js';
import { badRequest, booleanParam, forbidden, newId, notFound, now, parseBody, parseQuery } from '../http.js';
import type { Links } from '../links.js';
import { organizationJson } from '../organizations/json.js';
import { findOrganization } from '../organizations/store.js';
import type { UserRow } from '../rows.js';
import { domainSchema, httpUrlSchema } from '../schemas.js';
import type { Db } from '../store/db.js';
import { findUserById, findVisibleUser } from '../users/store.js';
import { userJson } from '../users/json.js';

/**
 * An account's own administration: creating an organization (its creator is its first admin), changing
 * one's name and picture, and the short-lived token a notifications service accepts for the user.
 */

/** Seconds a notifications token is valid. */
export const NOTIFICATIONS_TOKEN_SECONDS = 600;
const NOTIFICATIONS_AUDIENCE = 'notifications';

const notificationsKey = (db: Db) => derivedKey(db, 'notifications-token');

/**
 * A notifications token for `userId`: a JWT (HS256) signed with a key derived from the platform's
 * secret, naming the user (`sub`), the service (`aud`) and the API (`iss`), valid for
 * `NOTIFICATIONS_TOKEN_SECONDS`.
 */
export function notificationsToken(db: Db, userId: string, links: Links): Promise<string> {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(userId)
    .setAudience(NOTIFICATIONS_AUDIENCE)
    .setIssuer(links.api)
    .setJti(newId())
    .setIssuedAt()
    .setExpirationTime(`${NOTIFICATIONS_TOKEN_SECONDS}s`)
    .sign(notificationsKey(db));
}

/** The user a notifications token names, or undefined when it is not one of ours, or has expired. */
export async function notificationsTokenUser(db: Db, token: string): Promise<string | undefined> {
  try {
    const { payload } = await jwtVerify(token, notificationsKey(db), {
      algorithms: ['HS256'],
      audience: NOTIFICATIONS_AUDIENCE,
    });
    return payload.sub;
  } catch {
    return undefined;
  }
}

/** Creates an organization with `creator` as its admin, in one transaction; answers its id. */
export function createOrganization(
  db: Db,
  creator: UserRow,
  fields: { title: string; emailDomains: string[] },
): string {
  const id = newId();
  const at = now();
  db.transaction(() => {
    db.prepare(
      `INSERT INTO organizations (id, title, created_at, email_domains, created_by) VALUES (?, ?, ?, ?, ?)`,
    ).run(
      id,
      fields.title,
      at,
      JSON.stringify([...new Set(fields.emailDomains.map((d) => d.toLowerCase()))]),
      creator.id,
    );
    db.prepare('INSERT INTO members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)').run(
      id,
      creator.id,
      'admin',
      at,
    );
  })();
  return id;
}

const createOrganizationBody = z.object({
  title: z.string().trim().min(2, 'must be 2 to 255 characters').max(255, 'must be 2 to 255 characters'),
  emailDomains: z.array(domainSchema).max(50, 'must list at most 50 domains').optional(),
  // Read only with a default site, which this platform does not make (refused below).
  onboardingPreferences: z.unknown().optional(),
});
const createOrganizationQuery = z.object({
  withDefaultSite: booleanParam.optional(),
  openapiUrl: z.string().max(2048, 'must be at most 2048 characters').optional(),
});
const updateUserBody = z
  .strictObject({
    displayName: z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters'),
    photoURL: httpUrlSchema,
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must set at least one field');

/** `POST /orgs`, `PATCH /users/{userId}` (oneself only) and `POST /user/notifications/token`. */
export function accountRoutes(app: FastifyInstance): void {
  app.post('/orgs', async (request, reply) => {
    const { db, user, links } = request.ctx;
    const query = parseQuery(createOrganizationQuery, request.query);
    const body = parseBody(createOrganizationBody, request.body);
    if (query.withDefaultSite)
      throw badRequest(
        'Invalid query parameter "withDefaultSite": this platform makes no default site; create one with the sites API',
      );
    const id = createOrganization(db, user, { title: body.title, emailDomains: body.emailDomains ?? [] });
    return reply
      .code(201)
      .header('location', `${links.api}/orgs/${id}`)
      .send(organizationJson(db, findOrganization(db, id)!, 'admin', links));
  });

  app.patch<{ Params: { userId: string } }>('/users/:userId', async (request) => {
    const { db, user, links } = request.ctx;
    if (request.params.userId !== user.id) {
      // Others are seen (when they share an organization) but never changed.
      if (!findVisibleUser(db, request.params.userId, user.id)) throw notFound('User');
      throw forbidden('A user can only change their own profile');
    }
    const body = parseBody(updateUserBody, request.body);
    db.prepare(
      'UPDATE users SET display_name = coalesce(?, display_name), photo_url = coalesce(?, photo_url) WHERE id = ?',
    ).run(body.displayName ?? null, body.photoURL ?? null, user.id);
    return userJson(findUserById(db, user.id)!, links);
  });

  app.post('/user/notifications/token', async (request) => {
    const { db, user, links } = request.ctx;
    return { token: await notificationsToken(db, user.id, links) };
  });
}
