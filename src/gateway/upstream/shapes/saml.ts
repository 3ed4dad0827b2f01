import { z } from 'zod';
import { dateTime, role, url } from './common.js';
import { team } from './teams.js';

/** Shapes of SAML identity providers and the SSO logins of an organization. */

export const SAML_STATUSES = ['active', 'pending'] as const;

export const samlProvider = z.object({
  object: z.literal('saml-provider'),
  id: z.string(),
  label: z.string(),
  /** Left out by a pending provider until set. */
  ssoURL: z.string().nullish(),
  entityID: z.string().nullish(),
  certificate: z.string().nullish(),
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
