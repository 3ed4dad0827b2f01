import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import { answering } from '../../upstream/answers.js';
import * as op from '../../upstream/contract/operations.js';
import { builder } from '../kit/builder.js';
import { upstream } from '../kit/upstream-cost.js';
import { readSiteRef, SiteRef } from './site.js';

/**
 * `Site.publishingPreview`: a URL, valid one hour, that shows a site space of the site as a
 * visitor with the given claims sees it (drafts included unless `draft: false`).
 */

/** Longest claims, as Rison, the platform takes. */
const MAX_CLAIMS_LENGTH = 4096;

/** Rison of a JSON value (the platform's `claims` spelling): `(plan:pro,beta:!t)`. */
function rison(value: unknown): string {
  if (value === null || value === undefined) return '!n';
  if (value === true) return '!t';
  if (value === false) return '!f';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new GatewayError('BAD_USER_INPUT', 'claims must hold finite numbers only');
    return String(value);
  }
  if (typeof value === 'string')
    return /^[A-Za-z_./~][A-Za-z0-9_./~-]*$/.test(value) ? value : `'${value.replace(/[!']/g, '!$&')}'`;
  if (Array.isArray(value)) return `!(${value.map(rison).join(',')})`;
  return `(${Object.entries(value as Record<string, unknown>)
    .map(([key, item]) => `${rison(key)}:${rison(item)}`)
    .join(',')})`;
}

/**
 * The preview read with its URL whole: its `token` parameter is what it is asked for (a visitor's
 * view for an hour); the description's URL format would mask it as a credential.
 */
const getPreview = answering(op.getSitePublishingPreviewById, () => ({ 200: z.object({ url: z.string() }) as never }));

/** The preview URLs of the platform are valid one hour. */
const PREVIEW_VALIDITY_MS = 60 * 60 * 1000;

const SitePublishingPreview = builder.objectRef<{ url: string; askedAt: number }>('SitePublishingPreview').implement({
  description: 'A temporary URL that shows a site as one visitor sees it.',
  fields: (t) => ({
    url: t.exposeString('url', {
      description:
        'The address of the previewed site space (or of `target`), with a `token` parameter: the site API token a visitor with those claims gets from `resolveUrl`. Whoever holds it reads that view until it expires.',
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it stops working: one hour after it was asked for.',
      resolve: (p) => new Date(p.askedAt + PREVIEW_VALIDITY_MS).toISOString(),
    }),
  }),
});

builder.objectFields(SiteRef, (t) => ({
  publishingPreview: t.field({
    type: SitePublishingPreview,
    nullable: true,
    description:
      'A URL, valid one hour, to preview the site as a visitor with `claims` sees it (members of its organization; an unpublished site too). Null with BAD_USER_INPUT for a site space not in the site, a draft with `draft: false`, or a `target` outside the site.',
    args: {
      siteSpaceId: t.arg.id({
        description: 'The site space to preview (global ID or platform id); the site’s default one when left out.',
      }),
      claims: t.arg({
        type: 'JSON',
        description: 'Claims of the visitor to preview as, an object (such as `{ plan: "pro" }`); none by default.',
      }),
      draft: t.arg.boolean({ description: 'Show draft site spaces and sections (default true).' }),
      target: t.arg.string({ description: 'An address under the site’s root to open instead of the site space’s.' }),
    },
    extensions: upstream.fetch(1),
    resolve: async (s, args, ctx) => {
      let claims: string | undefined;
      if (args.claims != null) {
        if (typeof args.claims !== 'object' || Array.isArray(args.claims))
          throw new GatewayError('BAD_USER_INPUT', 'claims must be an object', { field: ['claims'] });
        claims = rison(args.claims);
        if (claims.length > MAX_CLAIMS_LENGTH)
          throw new GatewayError(
            'BAD_USER_INPUT',
            `claims is ${claims.length} characters as Rison, more than the ${MAX_CLAIMS_LENGTH} allowed`,
            { field: ['claims'], budget: { limit: 'claimsLength', value: claims.length, max: MAX_CLAIMS_LENGTH } },
          );
      }
      const askedAt = Date.now();
      const answer = await ctx.api.read(
        getPreview,
        { organizationId: s.organizationId, siteId: s.id },
        {
          ...(args.siteSpaceId != null ? { siteSpace: readSiteRef(String(args.siteSpaceId), 'SiteSpace').id } : {}),
          ...(claims !== undefined ? { claims } : {}),
          ...(args.draft != null ? { draft: args.draft } : {}),
          ...(args.target != null ? { target: args.target } : {}),
        },
      );
      return { url: answer.url, askedAt };
    },
  }),
}));
