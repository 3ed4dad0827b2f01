import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';
import type { OrganizationSAMLProvider, OrganizationSSOProviderLogin } from './contract/types.js';
import { listOf, deleteOf } from './operation.js';
import type { RestPages } from './operation.js';

/**
 * A SAML provider with what is not set yet as null. The description requires the sign-on URL,
 * entity ID and certificate of every provider, but a pending one has none yet: a platform answers
 * "" or a URL no browser signs in at (`about:blank`) for them, which the gateway does not pass on
 * as if they were set.
 */
export type SamlProvider = Omit<OrganizationSAMLProvider, 'ssoURL' | 'entityID' | 'certificate'> & {
  ssoURL: string | null;
  entityID: string | null;
  certificate: string | null;
};

/** One of the providers to sign in with, on a login page. */
export type SsoLogin = OrganizationSSOProviderLogin;

const settled = (provider: OrganizationSAMLProvider): SamlProvider => ({
  ...provider,
  ssoURL: /^https?:/i.test(provider.ssoURL) ? provider.ssoURL : null,
  entityID: provider.entityID || null,
  certificate: provider.certificate || null,
});

/** `GET /orgs/{organizationId}/saml/{providerId}` */
export const getSamlProvider = async (api: RequestApi, organizationId: string, providerId: string) =>
  settled(await api.read(op.getOrganizationSAMLProviderById, { organizationId, samlProviderId: providerId }));

/** `GET /orgs/{organizationId}/saml`, oldest first (admins). */
export const listSamlProviders = (api: RequestApi, organizationId: string): RestPages<SamlProvider> => {
  const pages = listOf(api, op.listSAMLProvidersInOrganizationById, { organizationId });
  return {
    read: async (token, limit) => {
      const page = await pages.read(token, limit);
      return { ...page, items: page.items.map(settled) };
    },
    first: async () => {
      const page = await pages.first();
      return { ...page, items: page.items.map(settled) };
    },
  };
};

/** `POST /orgs/{organizationId}/saml` */
export const createSamlProvider = async (api: RequestApi, organizationId: string, body: object) =>
  settled((await api.write(op.createOrganizationSAMLProvider, { organizationId }, { body })).data);

/** `PATCH /orgs/{organizationId}/saml/{providerId}` */
export const updateSamlProvider = async (api: RequestApi, organizationId: string, providerId: string, body: object) =>
  settled(
    (await api.write(op.updateOrganizationSAMLProvider, { organizationId, samlProviderId: providerId }, { body })).data,
  );

/** `DELETE /orgs/{organizationId}/saml/{providerId}` */
export const deleteSamlProvider = (api: RequestApi, organizationId: string, providerId: string) =>
  deleteOf(api, op.deleteOrganizationSAMLProvider, { organizationId, samlProviderId: providerId });

/** `GET /orgs/{organizationId}/sso`: the active providers to sign in with, for a login page. */
export const listSsoLogins = (api: RequestApi, organizationId: string) =>
  api.read(op.listSSOProviderLoginsInOrganization, { organizationId });
