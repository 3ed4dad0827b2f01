import { z } from 'zod';
import * as op from '../../upstream/contract/operations.js';
import { declareMutation, inputField, restBody } from '../kit/mutations.js';
import { objectPayload } from '../kit/payloads.js';
import { inSite, siteRefInput, siteTarget } from './mutations.js';
import { placeSiteSpace, primeSiteItems, SiteSpaceEdge, SiteSpaceRef } from './structure.js';

/**
 * Copies inside a site: `duplicateSiteSpace` copies the space a site space shows and places the
 * copy where the original is (a new section after a section's only variant, else a sibling variant).
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
