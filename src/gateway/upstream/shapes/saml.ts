import { z } from 'zod';
import { dateTime, role, url } from './common.js';
import { team } from './teams.js';

/** Shapes of SAML identity providers and the SSO logins of an organization. */

export const SAML_STATUSES = ['active', 'pending'] as const;

export const samlProvider = z.object({
  object: z.literal('saml-provider'),
  id: z.string(),
  label: z.string(),
  /** Not set yet (a pending provider): left out, null, "" or a URL no browser signs in at (`about:blank`). */
  ssoURL: z
    .string()
    .nullish()
    .transform((value) => (value && /^https?:/i.test(value) ? value : null)),
  /** Not set yet: left out, null or "". */
  entityID: z
    .string()
    .nullish()
    .transform((value) => value || null),
  certificate: z
    .string()
    .nullish()
    .transform((value) => value || null),
  defaultTeam: team.nullish(),
  /** `null`: people who sign in become guests. */
  defaultRole: role.nullable(),
  createdAt: dateTime,
  status: z.enum(SAML_STATUSES),
  service: z.object({ acsURL: url, startURL: url, entityID: z.string() }),
  urls: z.object({ location: url.nullish() }),
});
export type SamlProvider = z.infer<typeof samlProvider>;

export const ssoLogins = z.object({ items: z.array(z.object({ id: z.string(), label: z.string(), startURL: url })) });
export type SsoLogin = z.infer<typeof ssoLogins>['items'][number];
