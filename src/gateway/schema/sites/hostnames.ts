import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors.js';
import * as op from '../../upstream/contract/operations.js';
import type { CustomHostname, Subdomain } from '../../upstream/contract/types.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { builder } from '../kit/builder.js';
import { restEnum } from '../kit/enums.js';
import { linkTo, loadOrThrow } from '../kit/loaders.js';
import { declareMutation } from '../kit/mutations.js';
import { deletedPayload, payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { OrganizationNode } from '../organizations.js';
import { inSite, siteAfter, siteTarget } from './mutations.js';
import { siteKey, siteLink, SiteRef } from './site.js';

/**
 * Custom hostnames and subdomains: `Site.customHostname` (its state, as the platform's DNS checks
 * last found it), `Organization.subdomain`, and the mutations `revalidateCustomHostname` (a new DNS
 * check) and `removeCustomHostname`. A hostname is named by the site that has it.
 */

type HostnameHeld = CustomHostname & { organizationId: string };
type SubdomainHeld = Subdomain & { organizationId: string };

const StatusEnum = restEnum('CustomHostnameStatus', 'The state of a custom hostname, as its last DNS check found it.', {
  pending: 'Not known yet: never checked, a check under way, or a check that got no answer from DNS (offline).',
  dns_passed: 'Its DNS records are right; its certificate comes next.',
  dns_wrong_cname: 'Its CNAME points elsewhere than the platform’s hosting target.',
  dns_no_cname: 'It has no CNAME record (or does not exist).',
  dns_cloudflare_proxied: 'It is proxied by Cloudflare, which hides its CNAME.',
  dns_wrong_caa: 'Its CAA records do not let the platform’s certificate authority issue for it.',
  live: 'Served, with its certificate: active.',
  ssl_unknown: 'The state of its certificate is not known.',
  ssl_pending: 'Its certificate is being issued.',
  ssl_failed: 'Its certificate could not be issued.',
  ssl_retry_expired: 'The attempts at issuing its certificate ran out.',
  invalid_domain: 'A name that can never be public (`*.localhost`, `*.invalid`): it cannot be revalidated.',
  internal_error: 'The check failed on the platform’s side; revalidate to try again.',
});

const CustomHostnameType = builder.objectRef<HostnameHeld>('CustomHostname').implement({
  description:
    'A custom hostname of a docs site, with the state of its DNS configuration: active once its CNAME points to the platform’s hosting target and its CAA records allow the platform’s certificates. Offline, it stays PENDING: never a false LIVE.',
  fields: (t) => ({
    hostname: t.exposeString('hostname', { description: 'The name, such as `docs.example.com`.' }),
    status: t.field({
      type: StatusEnum,
      description: 'Its state; PENDING until a check answers.',
      resolve: (h) => (h.status ?? 'pending') as never,
    }),
    isActive: t.exposeBoolean('isActive', { description: 'True when it serves the site (LIVE).' }),
    site: t.field({
      type: SiteRef,
      nullable: true,
      description: 'The site it serves; null for an organization’s hostname.',
      extensions: upstream.link,
      resolve: (h, _args, _ctx, info) =>
        h.target.type === 'site' ? siteLink(h.organizationId, h.target.site, info) : null,
    }),
  }),
});

const SubdomainType = builder.objectRef<SubdomainHeld>('Subdomain').implement({
  description: 'The subdomain of an organization: the name of its address on the platform.',
  fields: (t) => ({
    subdomain: t.exposeString('subdomain', { description: 'The name, such as `acme-docs`.' }),
    isActive: t.exposeBoolean('isActive', { description: 'True when it serves the organization.' }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it serves.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(OrganizationNode, s.target.organization, info),
    }),
  }),
});

/** A site's custom hostname as the platform has it now, or null when the site has none. */
async function readHostname(ctx: GatewayContext, at: SiteAddress, hostname: string | null | undefined) {
  if (!hostname) return null;
  const found = await ctx.api.read(op.getCustomHostname, { hostname });
  return { ...found, organizationId: at.organizationId };
}

builder.objectFields(SiteRef, (t) => ({
  customHostname: t.field({
    type: CustomHostnameType,
    nullable: true,
    description: 'Its custom hostname and the state of its DNS (members); null when it has none.',
    extensions: upstream.fetch(1),
    resolve: (s, _args, ctx) => readHostname(ctx, { organizationId: s.organizationId, siteId: s.id }, s.hostname),
  }),
}));

const SUBDOMAIN = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;

builder.objectFields(OrganizationNode, (t) => ({
  subdomain: t.field({
    type: SubdomainType,
    nullable: true,
    description: 'Its subdomain (members); null when its hostname is none, or is no subdomain.',
    extensions: upstream.fetch(1),
    resolve: async (o, _args, ctx): Promise<SubdomainHeld | null> => {
      const subdomain = o.hostname?.toLowerCase();
      if (!subdomain || !SUBDOMAIN.test(subdomain)) return null;
      return { ...(await ctx.api.read(op.getSubdomain, { subdomain })), organizationId: o.id };
    },
  }),
}));

/** The custom hostname of the site an input names (null when it has none); a failed read names `siteId`. */
async function hostnameOf(ctx: GatewayContext, at: SiteAddress): Promise<string | null> {
  const site = await loadOrThrow(SiteRef, ctx, siteKey(at.organizationId, at.siteId)).catch((error: unknown) => {
    if (error instanceof GatewayError && !error.field)
      throw new GatewayError(error.code, `${error.message}: input field "siteId"`, {
        upstreamStatus: error.upstreamStatus,
        field: ['siteId'],
      });
    throw error;
  });
  return site.hostname ?? null;
}

declareMutation('revalidateCustomHostname', {
  description:
    'Checks the DNS of a site’s custom hostname again (admins): it is PENDING until the check, a background job, answers. A hostname being checked or INVALID_DOMAIN cannot be revalidated (CONFLICT); a site without one is NOT_FOUND.',
  input: 'The site whose custom hostname to check.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ customHostname: HostnameHeld; at: SiteAddress }>(name, (t) => ({
      customHostname: t.field({
        type: CustomHostnameType,
        nullable: true,
        description: 'The hostname, PENDING while its check runs.',
        resolve: (p) => p.customHostname ?? null,
      }),
      site: t.field(siteAfter('The site.')),
    })),
  // The site (for its hostname), the revalidation, the hostname's state after it.
  extensions: upstream.fetch(3),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    const hostname = await hostnameOf(ctx, at);
    if (!hostname)
      throw new GatewayError('NOT_FOUND', 'The site of input field "siteId" has no custom hostname', {
        field: ['siteId'],
      });
    await ctx.api.write(op.dnsRevalidateCustomHostname, { hostname });
    return { customHostname: (await readHostname(ctx, at, hostname))!, at };
  },
});

declareMutation('removeCustomHostname', {
  description:
    'Removes a site’s custom hostname (admins): the site is published at the platform’s address again. `deleted` is false when the site had none.',
  input: 'The site whose custom hostname to remove.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress }>(
      name,
      'True when the hostname was removed, false when there was none.',
      (t) => ({ site: t.field(siteAfter('The site, without its custom hostname.')) }),
    ),
  // The site (for its hostname), then the removal.
  extensions: upstream.fetch(2),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    const hostname = await hostnameOf(ctx, at);
    if (!hostname) return { deleted: false, at };
    const { status } = await ctx.api.write(op.removeCustomHostname, { hostname });
    return { deleted: status === 205, at };
  },
});
