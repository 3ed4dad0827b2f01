import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { badRequest, forbidden, now, parseBody } from '../http.js';
import { declareTables, type Db } from '../store/db.js';
import type { EndpointPolicy } from './endpoints.js';
import { isOwnerAdmin, requireIntegration, type IntegrationRow } from './store.js';

/**
 * Development mode of an integration: its developers (admins of the organization that owns it)
 * route its events to a tunnel (`PUT /integrations/{name}/dev`) instead of its published
 * endpoint, while they run it on their machine; `DELETE` routes them back. The events of the
 * owner's own installations go to the tunnel, or those of every organization with `all`. The
 * tunnel is checked like an endpoint at publishing, and deliveries check it again (the outbound
 * guard), signed with the same secrets.
 */

declareTables('integration-development', [
  `
  CREATE TABLE IF NOT EXISTS integration_development_modes (
    integration_id TEXT PRIMARY KEY REFERENCES integrations(id) ON DELETE CASCADE,
    tunnel_url TEXT NOT NULL,
    all_organizations INTEGER NOT NULL CHECK (all_organizations IN (0, 1)),
    updated_at TEXT NOT NULL
  );
  `,
]);

/** The description's limit of a tunnel's URL. */
export const MAX_TUNNEL_URL_LENGTH = 256;

/**
 * Where an event of `integration` goes: its tunnel when development mode sends it there (an event
 * of an installation in the owner organization, or of any with `all`), else its endpoint.
 */
export function deliveryUrl(
  db: Db,
  integration: Pick<IntegrationRow, 'id' | 'owner_id' | 'endpoint'>,
  installationId: string | null,
): string | null {
  const mode = db
    .prepare('SELECT tunnel_url, all_organizations FROM integration_development_modes WHERE integration_id = ?')
    .get(integration.id) as { tunnel_url: string; all_organizations: number } | undefined;
  if (!mode) return integration.endpoint;
  if (mode.all_organizations === 1 || installationId === null) return mode.tunnel_url;
  const org = db.prepare('SELECT org_id FROM integration_installations WHERE id = ?').pluck(true).get(installationId);
  return org === integration.owner_id ? mode.tunnel_url : integration.endpoint;
}

const devBody = z.object({
  tunnelUrl: z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_TUNNEL_URL_LENGTH, `must be at most ${MAX_TUNNEL_URL_LENGTH} characters`),
  all: z.boolean().default(false),
});

type NameParams = { integrationName: string };

/**
 * `PUT` and `DELETE /integrations/{name}/dev`, for admins of the owner organization. A tunnel is
 * checked by `endpoints` as a published endpoint is.
 */
export function integrationDevelopmentRoutes(app: FastifyInstance, options: { endpoints: EndpointPolicy }): void {
  const ownIntegration = (db: Db, access: Parameters<typeof isOwnerAdmin>[0], name: string) => {
    const row = requireIntegration(db, access, name);
    if (!isOwnerAdmin(access, row))
      throw forbidden('Development mode of an integration needs the admin role in the organization that owns it');
    return row;
  };

  app.put<{ Params: NameParams }>('/integrations/:integrationName/dev', async (request, reply) => {
    const body = parseBody(devBody, request.body);
    const { db, access } = request.ctx;
    const row = ownIntegration(db, access, request.params.integrationName);
    // After the permission check: resolving the tunnel's host is work done for developers only.
    const problem = await options.endpoints.savedProblem(body.tunnelUrl);
    if (problem) throw badRequest(`Invalid body field "tunnelUrl": ${problem}`);
    db.prepare(
      `INSERT INTO integration_development_modes (integration_id, tunnel_url, all_organizations, updated_at)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (integration_id) DO UPDATE SET tunnel_url = excluded.tunnel_url,
         all_organizations = excluded.all_organizations, updated_at = excluded.updated_at`,
    ).run(row.id, body.tunnelUrl, body.all ? 1 : 0, now());
    return reply.code(204).send();
  });

  app.delete<{ Params: NameParams }>('/integrations/:integrationName/dev', async (request, reply) => {
    const { db, access } = request.ctx;
    const row = ownIntegration(db, access, request.params.integrationName);
    db.prepare('DELETE FROM integration_development_modes WHERE integration_id = ?').run(row.id);
    // The description answers 205 alone: turning it off is done, whether it was on or not.
    return reply.code(205).send();
  });
}
