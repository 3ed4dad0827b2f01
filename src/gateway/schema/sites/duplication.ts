import { z } from 'zod';
import * as op from '../../upstream/contract/operations.js';
import { declareMutation, inputField, restBody } from '../kit/mutations.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { objectPayload, payloadType } from '../kit/payloads.js';
import { inSite, siteAfter, siteRefInput, siteTarget } from './mutations.js';
import { placeSiteSpace, primeSiteItems, SiteSpaceEdge, SiteSpaceRef } from './structure.js';

/**
 * Copies and templates inside a site: `duplicateSiteSpace` copies the space a site space shows and
 * places the copy where the original is (a new section after a section's only variant, else a
 * sibling variant); `applyTemplateToSite` fills an empty site with the default documentation structure.
 */

declareMutation('duplicateSiteSpace', {
  description:
    'Copies the space a site space shows (settings, grants, content) and adds the copy to the site where the original is: the only site space of a section gets a new section right after it; any other gets a sibling right after it. The copy keeps its condition, home page and hidden flag. Needs the create role in the organization and the right to duplicate the space.',
  input: 'The site space to duplicate.',
  fields: {
    organizationId: siteTarget.organizationId,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless `siteSpaceId` is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    siteSpaceId: inputField(
      'ID',
      'The site space: its global ID, or its platform id together with `siteId`.',
      siteRefInput('SiteSpace'),
    ),
    draft: inputField(
      'Boolean',
      'Make the copy (and a new section) a draft, not live (default false).',
      z.boolean().nullish(),
    ),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'siteSpace', SiteSpaceRef, 'The new site space, showing the copy of the space.', {
      type: SiteSpaceEdge,
      what: 'site space',
      lists: '`Site.siteSpaces`',
    }),
  run: async (i, ctx) => {
    const { data } = await ctx.api.write(
      op.duplicateSiteSpace,
      { organizationId: i.organizationId, siteId: i.siteId, siteSpaceId: i.siteSpaceId.id },
      { body: restBody({ draft: i.draft }) },
    );
    const siteSpace = placeSiteSpace(data, i.organizationId, i.siteId);
    primeSiteItems(ctx, [siteSpace]);
    return { siteSpace };
  },
});

declareMutation('applyTemplateToSite', {
  description:
    'Fills an empty site (no site space, no section) with the default documentation structure: three new spaces of the organization (Getting started, API reference, Changelog), each with the pages of the built-in space template of that name, in a section each. A site with content is a CONFLICT. Needs the create role.',
  input: 'The site to fill.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ at: SiteAddress; applied: boolean }>(name, (t) => ({
      applied: t.boolean({ description: 'True when the template was applied.', resolve: (p) => p.applied ?? false }),
      site: t.field(siteAfter('The site, with its new structure.') as never),
    })),
  run: async (i, ctx) => {
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    await ctx.api.write(op.applyTemplateToSite, at);
    return { at, applied: true };
  },
});
