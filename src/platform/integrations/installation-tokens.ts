import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access, type Role } from '../access.js';
import { ApiError, forbidden } from '../http.js';
import type { SpaceRow, UserRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { requireInstallation, type InstallationRow } from './installations.js';
import { definitionOf, isOwnerAdmin, requireIntegration, type IntegrationRow } from './store.js';

/**
 * Installation tokens (`POST /integrations/{name}/installations/{id}/tokens`): a short-lived
 * bearer an integration's code uses to call the API as one installation. The developers of the
 * integration (admins of the organization that owns it, who run its code) ask for one. The token
 * is random, kept as its hash, and holds nothing of the platform's keys; it ends after
 * `TOKEN_TTL_MS`, or with the installation.
 *
 * What it may do is the installation's, and no more: read (GET) the spaces its installation
 * covers (enabled on them, or on every space of its organization), with the scope
 * `space:content:read` or `space:metadata:read`. Every other route refuses it (403), and any other
 * space is not found, public ones too.
 */

declareTables('integration-installation-tokens', [
  `
  CREATE TABLE IF NOT EXISTS integration_installation_tokens (
    token_hash TEXT PRIMARY KEY,
    installation_id TEXT NOT NULL REFERENCES integration_installations(id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS integration_installation_tokens_by_installation
    ON integration_installation_tokens(installation_id);
  `,
]);

/** How long an installation token holds. */
export const TOKEN_TTL_MS = 60 * 60 * 1000;
/** What every installation token starts with: the authentication hook tells them from others by it. */
export const TOKEN_PREFIX = 'gbi_';
/** The scopes under which an installation token reads the spaces of its installation. */
const READ_SCOPES = new Set(['space:content:read', 'space:metadata:read']);

const hashOf = (token: string) => createHash('sha256').update(token).digest('base64url');

/** A new token of `installation`, kept as its hash until it expires. */
export function createInstallationToken(db: Db, installation: Pick<InstallationRow, 'id'>, at = Date.now()): string {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  db.transaction(() => {
    // Expired ones go as new ones come: the table holds live tokens alone.
    db.prepare('DELETE FROM integration_installation_tokens WHERE expires_at <= ?').run(at);
    db.prepare(
      'INSERT INTO integration_installation_tokens (token_hash, installation_id, expires_at) VALUES (?, ?, ?)',
    ).run(hashOf(token), installation.id, at + TOKEN_TTL_MS);
  })();
  return token;
}

/** The caller an installation token stands for. */
export interface InstallationCaller {
  integration: IntegrationRow;
  installation: InstallationRow;
}

/** The installation of a live token, or undefined (unknown, expired, or its installation gone). */
export function installationOfToken(db: Db, token: string, at = Date.now()): InstallationCaller | undefined {
  const installation = db
    .prepare(
      `SELECT n.* FROM integration_installation_tokens t JOIN integration_installations n ON n.id = t.installation_id
       WHERE t.token_hash = ? AND t.expires_at > ?`,
    )
    .get(hashOf(token), at) as InstallationRow | undefined;
  if (!installation) return undefined;
  const integration = db.prepare('SELECT * FROM integrations WHERE id = ?').get(installation.integration_id) as
    | IntegrationRow
    | undefined;
  return integration ? { integration, installation } : undefined;
}

/** The user an installation is, in answers that name the caller. */
export function installationUser(caller: InstallationCaller, at: string): UserRow {
  return {
    id: `integration-${caller.installation.id}`,
    display_name: definitionOf(caller.integration).title,
    email: '',
    photo_url: null,
    created_at: at,
  };
}

/**
 * What an installation token may read: no organization role anywhere, `read` on the spaces its
 * installation covers when its scopes read spaces, nothing else.
 */
export class InstallationAccess extends Access {
  private readonly reads: boolean;

  constructor(
    db: Db,
    user: UserRow,
    readonly caller: InstallationCaller,
  ) {
    super(db, user);
    this.reads = definitionOf(caller.integration).scopes.some((scope) => READ_SCOPES.has(scope));
  }

  override orgRole(): Role | null | undefined {
    return undefined;
  }

  override spaceRole(space: Pick<SpaceRow, 'id' | 'org_id'>): Role | null {
    return this.reads && this.covers(space) ? 'read' : null;
  }

  override canViewSpace(_space: SpaceRow, role: Role | null): boolean {
    return role !== null;
  }

  private covers(space: Pick<SpaceRow, 'id' | 'org_id'>): boolean {
    const { installation } = this.caller;
    if (space.org_id !== installation.org_id) return false;
    if (installation.space_selection === 'all') return true;
    return (
      this.db
        .prepare('SELECT 1 FROM integration_space_installations WHERE installation_id = ? AND space_id = ?')
        .get(installation.id, space.id) !== undefined
    );
  }
}

/** The route with which an integration queues its tasks (`tasks.ts`), open to its installation tokens. */
const TASKS_ROUTE = '/v1/integrations/:integrationName/tasks';

/** Refuses what an installation token may not call: every route but the reads of a space and queueing tasks. */
export function checkInstallationRoute(request: FastifyRequest): void {
  const route = request.routeOptions.url ?? '';
  const reads = request.method === 'GET' || request.method === 'HEAD';
  if (request.method === 'POST' && route === TASKS_ROUTE) return;
  if (!reads || !(route === '/v1/spaces/:spaceId' || route.startsWith('/v1/spaces/:spaceId/'))) {
    throw new ApiError(
      403,
      'An integration installation token reads the spaces its installation covers and queues tasks, nothing else',
    );
  }
}

type InstallationParams = { integrationName: string; installationId: string };

/** `POST /integrations/{name}/installations/{id}/tokens`, for the integration's developers. */
export function installationTokenRoutes(app: FastifyInstance): void {
  app.post<{ Params: InstallationParams }>(
    '/integrations/:integrationName/installations/:installationId/tokens',
    async (request) => {
      const { db, access } = request.ctx;
      const integration = requireIntegration(db, access, request.params.integrationName);
      const installation = requireInstallation(db, access, integration, request.params.installationId);
      if (!isOwnerAdmin(access, integration))
        throw forbidden('A token of an installation is for the integration: admins of the organization that owns it');
      return { token: createInstallationToken(db, installation) };
    },
  );
}
