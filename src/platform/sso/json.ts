import type { Role } from '../access.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { teamJson } from '../teams/json.js';
import { findTeam } from '../teams/store.js';
import { providerStatus, type SamlProviderRow, serviceOf } from './store.js';

/** A SAML provider of an organization (`SAMLProvider`), with the service it signs in to. */
export function providerJson(db: Db, row: SamlProviderRow, links: Links) {
  const team = row.default_team ? findTeam(db, row.org_id, row.default_team) : undefined;
  return {
    object: 'saml-provider' as const,
    id: row.id,
    label: row.label,
    // A pending provider has none of these until they are set.
    ...(row.sso_url ? { ssoURL: row.sso_url } : {}),
    ...(row.entity_id ? { entityID: row.entity_id } : {}),
    ...(row.certificate ? { certificate: row.certificate } : {}),
    ...(team ? { defaultTeam: teamJson(db, team, true) } : {}),
    defaultRole: row.default_role === 'guest' ? null : (row.default_role as Role),
    createdAt: row.created_at,
    status: providerStatus(row),
    service: serviceOf(row, links),
    urls: { location: `${links.api}/orgs/${row.org_id}/saml/${row.id}` },
  };
}
