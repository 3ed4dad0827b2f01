import type { Role } from '../access.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { teamJson } from '../teams/json.js';
import { findTeam } from '../teams/store.js';
import { providerStatus, type SamlProviderRow, serviceOf } from './store.js';

/** The sign-on URL of a provider whose identity provider's is not set yet. */
const UNSET_SSO_URL = 'about:blank';

/** A SAML provider of an organization (`SAMLProvider`), with the service it signs in to. */
export function providerJson(db: Db, row: SamlProviderRow, links: Links) {
  const team = row.default_team ? findTeam(db, row.org_id, row.default_team) : undefined;
  return {
    object: 'saml-provider' as const,
    id: row.id,
    label: row.label,
    // The description requires all three of every provider, but a provider is created with its
    // label alone: until set, the entity ID and certificate are "" (the description's strings for
    // none, as a space's emoji) and the sign-on URL is `about:blank` (RFC 6694), a URI no write
    // can set (writes take http(s) URLs) and no browser can be sent to for signing in.
    ssoURL: row.sso_url ?? UNSET_SSO_URL,
    entityID: row.entity_id ?? '',
    certificate: row.certificate ?? '',
    ...(team ? { defaultTeam: teamJson(db, team, true) } : {}),
    defaultRole: row.default_role === 'guest' ? null : (row.default_role as Role),
    createdAt: row.created_at,
    status: providerStatus(row),
    service: serviceOf(row, links),
    urls: { location: `${links.api}/orgs/${row.org_id}/saml/${row.id}` },
  };
}
