import { X509Certificate } from 'node:crypto';
import type { Role } from '../access.js';
import { badRequest, laterThan, newId, notFound, now } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';

/**
 * SAML identity providers of an organization. A provider is `pending` until its sign-on URL,
 * entity ID and a valid X.509 certificate are all set, then `active`; the service-provider
 * values an identity provider needs (ACS URL, start URL, entity ID) are made per provider. The
 * organization enforces SSO only while it has an active provider, and SSO members join with the
 * role and team of its first active provider.
 */

export interface SamlProviderRow {
  id: string;
  org_id: string;
  label: string;
  sso_url: string | null;
  entity_id: string | null;
  certificate: string | null;
  default_team: string | null;
  /** A role, or `guest` for null. */
  default_role: string;
  created_at: string;
}

/** Why a certificate cannot be used, or undefined for a valid one (PEM, X.509, not expired). */
export function certificateProblem(pem: string, at = new Date()): string | undefined {
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(pem))
    return 'must be an X.509 certificate in PEM ("-----BEGIN CERTIFICATE-----")';
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    return 'is not a readable X.509 certificate';
  }
  if (new Date(certificate.validTo).getTime() < at.getTime())
    return `expired on ${new Date(certificate.validTo).toISOString().slice(0, 10)}`;
  if (new Date(certificate.validFrom).getTime() > at.getTime())
    return `is not valid before ${new Date(certificate.validFrom).toISOString().slice(0, 10)}`;
  return undefined;
}

export function providerStatus(row: SamlProviderRow): 'active' | 'pending' {
  return row.sso_url && row.entity_id && row.certificate && !certificateProblem(row.certificate) ? 'active' : 'pending';
}

export function providersOf(db: Db, orgId: string): SamlProviderRow[] {
  return db
    .prepare('SELECT * FROM saml_providers WHERE org_id = ? ORDER BY created_at, id')
    .all(orgId) as SamlProviderRow[];
}

export function requireProvider(db: Db, orgId: string, id: string): SamlProviderRow {
  const row = db.prepare('SELECT * FROM saml_providers WHERE id = ? AND org_id = ?').get(id, orgId) as
    | SamlProviderRow
    | undefined;
  if (!row) throw notFound('SAML provider');
  return row;
}

/** The first active provider of an organization, whose defaults SSO members get. */
export function activeProvider(db: Db, orgId: string): SamlProviderRow | undefined {
  return providersOf(db, orgId).find((row) => providerStatus(row) === 'active');
}

/** What the identity provider is told about the platform as a service provider. */
export function serviceOf(row: Pick<SamlProviderRow, 'id'>, links: Links) {
  const base = `${links.app}/saml/${row.id}`;
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: base };
}

export interface ProviderFields {
  label?: string;
  ssoURL?: string | null;
  entityID?: string | null;
  certificate?: string | null;
  defaultTeam?: string | null;
  defaultRole?: Role | null;
}

/** Checks the team and certificate of a write; a 400 naming the field otherwise. */
function check(db: Db, org: OrganizationRow, fields: ProviderFields): void {
  if (
    fields.defaultTeam &&
    !db.prepare('SELECT 1 FROM teams WHERE id = ? AND org_id = ?').get(fields.defaultTeam, org.id)
  ) {
    throw badRequest(`Invalid body field "defaultTeam": no team ${fields.defaultTeam} in the organization`);
  }
  if (fields.certificate) {
    const problem = certificateProblem(fields.certificate);
    if (problem) throw badRequest(`Invalid body field "certificate": ${problem}`);
  }
}

export function createProvider(
  db: Db,
  org: OrganizationRow,
  fields: ProviderFields & { label: string },
): SamlProviderRow {
  check(db, org, fields);
  const id = newId();
  db.prepare(
    `INSERT INTO saml_providers (id, org_id, label, sso_url, entity_id, certificate, default_team, default_role, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    org.id,
    fields.label,
    fields.ssoURL ?? null,
    fields.entityID ?? null,
    fields.certificate?.trim() || null,
    fields.defaultTeam ?? null,
    fields.defaultRole === undefined ? 'read' : (fields.defaultRole ?? 'guest'),
    now(),
  );
  return requireProvider(db, org.id, id);
}

export function updateProvider(
  db: Db,
  org: OrganizationRow,
  row: SamlProviderRow,
  fields: ProviderFields,
): SamlProviderRow {
  check(db, org, fields);
  const columns: Record<string, unknown> = {
    label: fields.label,
    sso_url: fields.ssoURL,
    entity_id: fields.entityID,
    certificate: fields.certificate === undefined ? undefined : fields.certificate?.trim() || null,
    default_team: fields.defaultTeam,
    default_role: fields.defaultRole === undefined ? undefined : (fields.defaultRole ?? 'guest'),
  };
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  db.transaction(() => {
    if (entries.length)
      db.prepare(`UPDATE saml_providers SET ${entries.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
        ...entries.map(([, value]) => value),
        row.id,
      );
    settleSso(db, org.id);
  })();
  return requireProvider(db, org.id, row.id);
}

export function deleteProvider(db: Db, orgId: string, id: string): boolean {
  return db.transaction(() => {
    const { changes } = db.prepare('DELETE FROM saml_providers WHERE id = ? AND org_id = ?').run(id, orgId);
    settleSso(db, orgId);
    return changes > 0;
  })();
}

/** An organization enforces SSO only while it has an active provider to sign in with. */
export function settleSso(db: Db, orgId: string): void {
  if (!activeProvider(db, orgId)) db.prepare('UPDATE organizations SET sso = 0 WHERE id = ? AND sso = 1').run(orgId);
}

/**
 * Stores the demo's providers of an organization as given (`demo-content/saml.json`): one with a sign-on URL, an
 * entity id and a certificate is active, one without is pending. Each is made a moment after the one before.
 */
export function seedDemoSaml(
  db: Db,
  orgId: string,
  providers: ReadonlyArray<{
    label: string;
    ssoUrl?: string | undefined;
    entityId?: string | undefined;
    certificate?: string | undefined;
    defaultRole: string;
  }>,
  createdAt: string,
): void {
  const insert = db.prepare(
    `INSERT INTO saml_providers (id, org_id, label, sso_url, entity_id, certificate, default_team, default_role, created_at)
     VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
  );
  let at = createdAt;
  providers.forEach((provider, index) => {
    if (index > 0) at = laterThan(at);
    const { label, ssoUrl, entityId, certificate, defaultRole } = provider;
    insert.run(newId(), orgId, label, ssoUrl ?? null, entityId ?? null, certificate ?? null, defaultRole, at);
  });
}
