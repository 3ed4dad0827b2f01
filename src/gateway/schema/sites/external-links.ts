import { z } from 'zod';
import * as op from '../../upstream/contract/operations.js';
import { writtenObject } from '../../upstream/answers.js';
import { deleteOf } from '../../upstream/operation.js';
import { declareMutation, inputField, noNull, restBody } from '../kit/mutations.js';
import { deletionOf, objectPayload } from '../kit/payloads.js';
import { deletedFromSite, externalLinkPayload, inSite, itemTarget, naming, siteRefInput } from './mutations.js';
import { SiteExternalLinkRef, siteItemKey } from './structure.js';

/**
 * External links of a docs site's structure: `addExternalLinkToSite`, `updateSiteExternalLink`
 * and `deleteSiteExternalLink`. The links themselves are read with the structure
 * (`SiteExternalLink`, a node of `Site.structure`) and ordered with `sortSiteStructure`.
 */

const title = z.string().trim().min(2, 'must be 2 to 128 characters').max(128, 'must be 2 to 128 characters');
const description = z.string().max(256, 'must be at most 256 characters');
const icon = z.string().trim().min(1, 'must be the name of an icon').max(50, 'must be at most 50 characters');
const condition = z.string().max(1024, 'must be at most 1024 characters');
const localized = (max: number) =>
  z.record(
    z.string().regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/, 'must be keyed by language codes such as fr or pt-br'),
    z.string().max(max, `must be at most ${max} characters`),
    { message: 'must be an object of texts by language code, such as { "fr": "…" }' },
  );
/** Checked before any upstream call; the platform checks it again (a `javascript:` link would run in readers' browsers). */
const url = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .refine((value) => URL.canParse(value), { message: 'must be an absolute http or https URL', abort: true })
  .refine((value) => /^https?:$/i.test(URL.parse(value)?.protocol ?? ''), 'must be an http or https URL');

const linkTarget = itemTarget('siteExternalLinkId', 'SiteExternalLink', 'external link');
/** The platform's name of each field the input calls otherwise, for its refusals. */
const INPUT_NAMES = { parent: 'parentId' };

const textFields = {
  localizedTitle: inputField(
    'JSON',
    'Its title in other languages, by language code (`{ "fr": "…" }`, at most 128 characters each).',
    localized(128).nullish(),
  ),
  description: inputField('String', 'Its description, at most 256 characters.', description.nullish()),
  localizedDescription: inputField(
    'JSON',
    'Its description in other languages, by language code (at most 256 characters each).',
    localized(256).nullish(),
  ),
  icon: inputField('String', 'Name of its icon, at most 50 characters.', icon.nullish()),
  condition: inputField(
    'String',
    'Show it only to visitors whose claims meet this condition (at most 1024 characters); null or empty: always.',
    condition.nullish(),
  ),
};

declareMutation('addExternalLinkToSite', {
  description:
    'Adds an external link (an http or https address) to a site organized in sections, last at its root or in a section group, never in a section (create role). `sortSiteStructure` moves it among its siblings.',
  input: 'The site and the link to add.',
  fields: {
    organizationId: linkTarget.organizationId,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless `parentId` is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    title: inputField('String', 'Its title, 2 to 128 characters.', title),
    url: inputField('String', 'The address it opens: an absolute http or https URL, at most 2048 characters.', url),
    ...textFields,
    parentId: inputField(
      'ID',
      'The section group to put it in (global ID or platform id); the root when left out.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
    draft: inputField('Boolean', 'Add it as a draft, not live.', z.boolean().nullish()),
  },
  check: (input) => input.transform(inSite),
  payload: (name) => objectPayload(name, 'siteExternalLink', SiteExternalLinkRef, 'The new external link.'),
  run: (i, ctx) =>
    naming(INPUT_NAMES, () =>
      externalLinkPayload(
        ctx,
        i,
        ctx.api
          .write(op.addExternalLinkToSite, i, {
            body: {
              title: i.title,
              url: i.url,
              ...restBody({
                localizedTitle: i.localizedTitle,
                description: i.description,
                localizedDescription: i.localizedDescription,
                icon: i.icon,
                condition: i.condition,
                parent: i.parentId?.id,
                draft: i.draft,
              }),
            },
          })
          .then((answer) => answer.data),
      ),
    ),
});

declareMutation('updateSiteExternalLink', {
  description:
    'Changes an external link of a site: its title, address, texts, icon, condition, draft state or section group (create role).',
  input: 'The external link and what to change; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    ...linkTarget,
    title: inputField('String', 'New title, 2 to 128 characters.', title.nullish()),
    url: inputField('String', 'New address: an absolute http or https URL, at most 2048 characters.', url.nullish()),
    ...textFields,
    parentId: inputField(
      'ID',
      'The section group to move it into (last there); null moves it to the root.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
    draft: inputField('Boolean', 'Make it a draft (true) or live (false).', z.boolean().nullish()),
  },
  check: (input) => input.superRefine(noNull(['title', 'url', 'draft'])).transform(inSite),
  payload: (name) =>
    objectPayload(name, 'siteExternalLink', SiteExternalLinkRef, 'The external link after the change.'),
  run: (i, ctx) =>
    naming(INPUT_NAMES, () =>
      externalLinkPayload(
        ctx,
        i,
        writtenObject(
          ctx.api.write(
            op.updateSiteExternalLinkById,
            { ...i, siteExternalLinkId: i.siteExternalLinkId.id },
            {
              body: restBody(
                {
                  title: i.title,
                  url: i.url,
                  localizedTitle: i.localizedTitle,
                  description: i.description,
                  localizedDescription: i.localizedDescription,
                  icon: i.icon,
                  condition: i.condition,
                  parent: i.parentId === null ? null : i.parentId?.id,
                  draft: i.draft,
                },
                {
                  clearable: ['localizedTitle', 'description', 'localizedDescription', 'icon', 'condition', 'parent'],
                  required: 'Give at least one field to change',
                },
              ),
            },
          ),
        ),
      ),
    ),
});

declareMutation('deleteSiteExternalLink', {
  description: 'Deletes an external link of a site (create role).',
  input: 'The external link to delete.',
  fields: linkTarget,
  check: (input) => input.transform(inSite),
  payload: (name) => deletedFromSite(name, 'True when the link was deleted, false when it did not exist.'),
  run: async (i, ctx) => ({
    ...(await deletionOf(
      'SiteExternalLink',
      siteItemKey({ ...i, id: i.siteExternalLinkId.id }),
      deleteOf(ctx.api, op.deleteSiteExternalLinkById, { ...i, siteExternalLinkId: i.siteExternalLinkId.id }),
    )),
    at: { organizationId: i.organizationId, siteId: i.siteId },
  }),
});
