import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { GatewayError, isGatewayError } from '../../errors.js';
import { S } from '../../upstream/contract/schemas.js';
import type {
  Site,
  SiteExternalLink,
  SiteSection,
  SiteSectionGroup,
  SiteSpace,
} from '../../upstream/contract/types.js';
import {
  addSiteSpace,
  createSite,
  createSiteSection,
  createSiteSectionGroup,
  deleteSite,
  deleteSiteSection,
  deleteSiteSectionGroup,
  deleteSiteSpace,
  moveSiteSection,
  moveSiteSectionGroup,
  moveSiteSpace,
  publishSite,
  type SiteAddress,
  sortSiteStructure,
  unpublishSite,
  updateSite,
  updateSiteSection,
  updateSiteSectionGroup,
  updateSiteSpace,
} from '../../upstream/sites.js';
import { pageIdInput } from '../content/page.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { organizationIdField } from '../organizations.js';
import { DefaultLevelEnum, restEnum } from '../kit/enums.js';
import { deletedPayload, deletionOf, objectPayload, payloadType } from '../kit/payloads.js';
import { compositeKey, idInput, readingId } from '../kit/ids.js';
import { noNull, restBody } from '../kit/mutations.js';
import {
  primeSites,
  readSiteRef,
  SiteEdge,
  SiteRef,
  SiteRefValue,
  siteKey,
  siteLink,
  SiteTypeEnum,
  SiteVisibilityEnum,
  type SiteHeld,
  type SiteTypename,
} from './site.js';
import {
  placeGroup,
  placeSection,
  placeSiteSpace,
  primeSiteItems,
  SiteExternalLinkRef,
  SiteSectionEdge,
  SiteSectionGroupEdge,
  SiteSectionGroupRef,
  SiteSectionRef,
  SiteSpaceEdge,
  SiteSpaceRef,
  type SiteExternalLinkHeld,
  type SiteSectionGroupHeld,
  type SiteSectionHeld,
  type SiteSpaceHeld,
} from './structure.js';

/**
 * Writes of docs sites and their structure, one mutation per REST write. A site is named by its
 * global ID, or by its platform id with `organizationId`; a site space, section or group by its
 * global ID (which carries its site), or by its platform id with `siteId` (and `organizationId`).
 */

// --- Ids ---------------------------------------------------------------------------------------

/** Zod of an id of one of `typenames` (global ID or platform id), read as a `SiteRefValue`. */
export function siteRefInput(typenames: SiteTypename | readonly SiteTypename[]) {
  const message = `must be the id of a ${[typenames].flat().join(' or ')}`;
  return z
    .string({ message })
    .trim()
    .min(1, message)
    .transform(readingId((value) => readSiteRef(value, typenames)));
}

type SiteResolved<T> = Omit<T, 'organizationId' | 'siteId'> & { organizationId: string; siteId: string };

/**
 * Zod transform step: finds the organization and site an input names, from `organizationId`,
 * `siteId` and the global IDs of its other ids (which must all agree), and reports the field at
 * fault otherwise.
 */
export function inSite<
  T extends { organizationId?: string | null | undefined; siteId?: SiteRefValue | null | undefined },
>(value: T, ctx: z.core.$RefinementCtx): SiteResolved<T> {
  let organizationId = value.organizationId ?? undefined;
  let siteId: string | undefined;
  let failed = false;
  const take = (ref: SiteRefValue, path: Array<string | number>, site: string | undefined) => {
    if (ref.organizationId !== undefined) {
      if (organizationId !== undefined && organizationId !== ref.organizationId) {
        ctx.addIssue({ code: 'custom', path, message: 'belongs to another organization than the rest of the input' });
        failed = true;
      }
      organizationId ??= ref.organizationId;
    }
    if (site !== undefined) {
      if (siteId !== undefined && siteId !== site) {
        ctx.addIssue({ code: 'custom', path, message: 'belongs to another site than the rest of the input' });
        failed = true;
      }
      siteId ??= site;
    }
  };
  if (value.siteId) take(value.siteId, ['siteId'], value.siteId.id);
  for (const [key, field] of Object.entries(value)) {
    if (key === 'siteId') continue;
    if (field instanceof SiteRefValue) take(field, [key], field.siteId);
    else if (Array.isArray(field))
      field.forEach((item, index) => {
        if (item instanceof SiteRefValue) take(item, [key, index], item.siteId);
      });
  }
  if (failed) return z.NEVER;
  if (siteId === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['siteId'],
      message: 'is required unless another id of the input is a global ID naming the site',
    });
    return z.NEVER;
  }
  if (organizationId === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['organizationId'],
      message: 'is required when the site is named by its platform id',
    });
    return z.NEVER;
  }
  return { ...value, organizationId, siteId } as SiteResolved<T>;
}

const organizationField = inputField(
  'ID',
  'Platform id or global ID of the organization; required when the site is named by platform ids only.',
  idInput('Organization').nullish(),
);

/** The fields naming a site. */
export const siteTarget = {
  organizationId: organizationField,
  siteId: inputField(
    'ID',
    'The site: its global ID, or its platform id together with `organizationId`.',
    siteRefInput('Site'),
  ),
};

/** The fields naming a site space, section, group or external link (`field`) of a site. */
export function itemTarget<K extends string>(field: K, typename: SiteTypename, what: string) {
  const item = inputField(
    'ID',
    `The ${what}: its global ID, or its platform id together with \`siteId\`.`,
    siteRefInput(typename),
  );
  return {
    organizationId: organizationField,
    siteId: inputField(
      'ID',
      `The site: its global ID, or its platform id with \`organizationId\`; required unless \`${field}\` is a global ID.`,
      siteRefInput('Site').nullish(),
    ),
    ...({ [field]: item } as Record<K, typeof item>),
  };
}

/** REST type of each structure node. */
const REST_TYPES = {
  SiteSpace: 'site-space',
  SiteSection: 'site-section',
  SiteSectionGroup: 'site-section-group',
  SiteExternalLink: 'site-external-link',
} as const;
type StructureTypename = keyof typeof REST_TYPES;

/** `before`/`after`: the sibling to put an item next to. */
function positionFields(typenames: readonly StructureTypename[], sibling: string) {
  const describe = (where: string) =>
    `Put it right ${where} this ${sibling} (global ID or platform id); at most one of before and after; last when both are left out.`;
  return {
    before: inputField('ID', describe('before'), siteRefInput(typenames).nullish()),
    after: inputField('ID', describe('after'), siteRefInput(typenames).nullish()),
  };
}

const oneAnchor = (value: { before?: unknown; after?: unknown }, ctx: z.RefinementCtx) => {
  if (value.before != null && value.after != null)
    ctx.addIssue({ code: 'custom', path: ['after'], message: 'give before or after, not both' });
};

/** The REST position of a move: the anchor given (at most one), as `pointer` writes it; none moves the item last. */
function position<P>(
  input: { before?: SiteRefValue | null | undefined; after?: SiteRefValue | null | undefined },
  pointer: (ref: SiteRefValue) => P,
): { before?: P; after?: P } {
  if (input.before) return { before: pointer(input.before) };
  if (input.after) return { after: pointer(input.after) };
  return {};
}

const restType = (ref: SiteRefValue, fallback: StructureTypename) =>
  REST_TYPES[(ref.typename as StructureTypename | undefined) ?? fallback];

/**
 * Runs a write whose refusals name REST body fields that the input calls otherwise (`sectionId` →
 * `siteSectionId`), so that the user error names the input field.
 */
export async function naming<T>(names: Record<string, string>, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const [head, ...rest] = isGatewayError(error) && !error.field ? (error.restField?.path ?? []) : [];
    if (isGatewayError(error) && head && names[head]) {
      throw new GatewayError(error.code, error.message, {
        upstreamStatus: error.upstreamStatus,
        field: [names[head]!, ...rest],
        budget: error.budget,
        restField: error.restField,
      });
    }
    throw error;
  }
}

// --- Values ------------------------------------------------------------------------------------

const siteTitle = z.string().trim().min(2, 'must be 2 to 128 characters').max(128, 'must be 2 to 128 characters');
const groupTitle = z.string().trim().min(1, 'must be 1 to 100 characters').max(100, 'must be 1 to 100 characters');
const segment = z
  .string()
  .trim()
  .min(1, 'must be 1 to 100 characters')
  .max(100, 'must be 1 to 100 characters')
  .regex(/^[^/?#\s]+$/, 'must be one path segment, without "/", "?", "#" or spaces');
const condition = z.string().max(1024, 'must be at most 1024 characters');
const icon = z.string().trim().min(1, 'must be the name of an icon').max(50, 'must be at most 50 characters');
const description = z.string().max(256, 'must be at most 256 characters');
const localized = (max: number) =>
  z.record(
    z.string().regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/, 'must be keyed by language codes such as fr or pt-br'),
    z.string().max(max, `must be at most ${max} characters`),
    { message: 'must be an object of texts by language code, such as { "fr": "…" }' },
  );
const proxy = z
  .string()
  .trim()
  .max(512, 'must be at most 512 characters')
  .transform((value) => value.replace(/^https?:\/\//i, '').replace(/\/+$/, ''))
  .pipe(
    z
      .string()
      .regex(
        /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/,
        'must be a host and one or more path segments, such as example.com/docs',
      ),
  );
/** A space to add, or null for a new space: clients name it either way. */
const spaceOrNew = idInput('Space', 'must be the id of a Space, or null to create a new space').nullable();

const noNewSpacePage = (
  value: { spaceId: string | null; pageId?: string | null | undefined; title?: unknown },
  ctx: z.RefinementCtx,
) => {
  if (value.spaceId === null && value.pageId != null)
    ctx.addIssue({ code: 'custom', path: ['pageId'], message: 'cannot be set for a new space: it has no pages yet' });
};

const SiteStructureItemKindEnum = restEnum('SiteStructureItemKind', 'A kind of item of a site’s structure.', {
  'site-space': 'A site space.',
  'site-section': 'A section.',
  'site-section-group': 'A section group.',
  'site-external-link': 'An external link.',
});

// --- Payloads ----------------------------------------------------------------------------------

const SitePayload = (name: string, description = 'The site after the change.') =>
  objectPayload(name, 'site', SiteRef, description);
const SiteSpacePayload = (name: string, description = 'The site space after the change.') =>
  objectPayload(name, 'siteSpace', SiteSpaceRef, description);
const SectionPayload = (name: string, description = 'The section after the change.') =>
  objectPayload(name, 'siteSection', SiteSectionRef, description);
const GroupPayload = (name: string, description = 'The section group after the change.') =>
  objectPayload(name, 'siteSectionGroup', SiteSectionGroupRef, description);

/** The `site` field of a payload that names its site: read after the write when asked more than its keys. */
export const siteAfter = (description: string) => ({
  type: SiteRef,
  nullable: true as const,
  description,
  extensions: upstream.link,
  resolve: (p: { at?: SiteAddress | undefined }, _args: object, _ctx: GatewayContext, info: GraphQLResolveInfo) =>
    p.at ? siteLink(p.at.organizationId, p.at.siteId, info) : null,
});

/** The payload of a deletion under a site: `deleted`, and the site after it with its structure. */
export const deletedFromSite = (name: string, description: string) =>
  deletedPayload<{ at: SiteAddress }>(name, description, (t) => ({
    site: t.field(siteAfter('The site after the deletion, with its structure.')),
  }));

async function sitePayload(ctx: GatewayContext, organizationId: string, written: Promise<Site>) {
  return { site: primeSites(ctx, organizationId, [await written])[0]! };
}

async function siteSpacePayload(ctx: GatewayContext, at: SiteAddress, written: Promise<SiteSpace>) {
  const siteSpace = placeSiteSpace(await written, at.organizationId, at.siteId);
  primeSiteItems(ctx, [siteSpace]);
  return { siteSpace };
}

async function sectionPayload(ctx: GatewayContext, at: SiteAddress, written: Promise<SiteSection>) {
  const siteSection = placeSection(await written, at.organizationId, at.siteId);
  primeSiteItems(ctx, [siteSection]);
  return { siteSection };
}

async function groupPayload(ctx: GatewayContext, at: SiteAddress, written: Promise<SiteSectionGroup>) {
  const siteSectionGroup = placeGroup(await written, at.organizationId, at.siteId);
  primeSiteItems(ctx, [siteSectionGroup]);
  return { siteSectionGroup };
}

/** The payload of a write answering an external link, kept for links and `node(id:)`. */
export async function externalLinkPayload(ctx: GatewayContext, at: SiteAddress, written: Promise<SiteExternalLink>) {
  const siteExternalLink: SiteExternalLinkHeld = {
    ...(await written),
    organizationId: at.organizationId,
    siteId: at.siteId,
  };
  primeSiteItems(ctx, [siteExternalLink]);
  return { siteExternalLink };
}

const CHANGES_REQUIRED = { required: 'Give at least one field to change' };

// --- Sites -------------------------------------------------------------------------------------

declareMutation('createSite', {
  description: 'Creates a docs site in an organization, unpublished, optionally with spaces at its root (admins).',
  input: 'The site to create.',
  fields: {
    organizationId: organizationIdField,
    title: inputField('String', 'Its title, 2 to 128 characters (default `Untitled site`).', siteTitle.nullish()),
    type: inputField(SiteTypeEnum, 'Its plan (the platform’s default when left out).', S.SiteType.nullish()),
    visibility: inputField(
      SiteVisibilityEnum,
      'Who can read it once published (default PUBLIC).',
      S.SiteVisibility.nullish(),
    ),
    spaceIds: inputField(
      ['ID'],
      'Spaces of the organization to publish at its root, in order (platform ids or global IDs, at most 100).',
      z.array(idInput('Space')).max(100, 'must list at most 100 spaces').nullish(),
    ),
  },
  payload: (name) =>
    objectPayload(name, 'site', SiteRef, 'The new site.', {
      type: SiteEdge,
      what: 'site',
      lists: '`Organization.sites`',
    }),
  run: ({ organizationId, spaceIds, ...fields }, ctx) =>
    sitePayload(ctx, organizationId, createSite(ctx.api, organizationId, restBody({ ...fields, spaces: spaceIds }))),
});

declareMutation('updateSite', {
  description:
    'Changes the settings of a docs site: title, visibility, basename, adaptive content, default level, defaults of its structure, proxy (admins).',
  input: 'The site and what to change; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    ...siteTarget,
    title: inputField('String', 'New title, 2 to 128 characters.', siteTitle.nullish()),
    visibility: inputField(SiteVisibilityEnum, 'Who can read it once published.', S.SiteVisibility.nullish()),
    basename: inputField(
      'String',
      'Its path under the organization address: one segment of 1 to 100 characters, unique in the organization.',
      segment.nullish(),
    ),
    hostname: inputField(
      'String',
      'A custom hostname to serve it on (`docs.example.com`: three labels or more, unique among all sites); null removes it.',
      z
        .string()
        .trim()
        .max(512, 'must be at most 512 characters')
        .transform((value) => value.toLowerCase())
        .pipe(
          z
            .string()
            .regex(
              /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/,
              'must be a hostname of three labels or more, such as docs.example.com',
            ),
        )
        .nullish(),
    ),
    adaptiveContent: inputField('Boolean', 'Turns adaptive content on or off.', z.boolean().nullish()),
    defaultLevel: inputField(
      DefaultLevelEnum,
      'Level of access every member of the organization gets on it; null gives them guest access.',
      S.DefaultLevel.nullish(),
    ),
    defaultSiteSpaceId: inputField(
      'ID',
      'The site space to serve at its root: one at the root of a site without sections, else one of its default section.',
      siteRefInput('SiteSpace').nullish(),
    ),
    defaultSiteSectionId: inputField('ID', 'The section to serve at its root.', siteRefInput('SiteSection').nullish()),
    proxy: inputField(
      'String',
      'Serve it under an address of your own, through your proxy: a host and a path (`example.com/docs`, at most 512 characters); null removes the proxy.',
      proxy.nullish(),
    ),
  },
  check: (input) =>
    input
      .superRefine(
        noNull(['title', 'visibility', 'basename', 'adaptiveContent', 'defaultSiteSpaceId', 'defaultSiteSectionId']),
      )
      .transform(inSite),
  payload: SitePayload,
  run: async (i, ctx) => {
    const body = restBody(
      {
        title: i.title,
        visibility: i.visibility,
        basename: i.basename,
        hostname: i.hostname,
        adaptiveContent: i.adaptiveContent == null ? undefined : { enabled: i.adaptiveContent },
        defaultLevel: i.defaultLevel,
        defaultSiteSpace: i.defaultSiteSpaceId?.id,
        defaultSiteSection: i.defaultSiteSectionId?.id,
        proxy: i.proxy,
      },
      { clearable: ['defaultLevel', 'proxy', 'hostname'], ...CHANGES_REQUIRED },
    );
    return sitePayload(ctx, i.organizationId, updateSite(ctx.api, i, body));
  },
});

declareMutation('deleteSite', {
  description:
    'Deletes a docs site and its structure (admins); the spaces it published stay. An organization whose default content it was has none after.',
  input: 'The site to delete.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) => deletedPayload(name, 'True when the site was deleted, false when it did not exist.'),
  run: (i, ctx) => deletionOf('Site', compositeKey(i.organizationId, i.siteId), deleteSite(ctx.api, i)),
});

declareMutation('publishSite', {
  description: 'Publishes a docs site: it goes live for the audience its visibility names (admins).',
  input: 'The site to publish.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ site: SiteHeld | string; checkoutSessionId: string | null }>(name, (t) => ({
      site: t.field({
        type: SiteRef,
        nullable: true,
        description: 'The site after the change.',
        extensions: upstream.link,
        resolve: (p) => p.site ?? null,
      }),
      checkoutSessionId: t.string({
        nullable: true,
        description:
          'Set when the plan of the organization must be upgraded first: the checkout session to complete; the site is not published until then.',
        resolve: (p) => p.checkoutSessionId ?? null,
      }),
    })),
  run: async (i, ctx) => {
    const data = await publishSite(ctx.api, i);
    if ('sessionId' in data) return { site: siteKey(i.organizationId, i.siteId), checkoutSessionId: data.sessionId };
    return { site: primeSites(ctx, i.organizationId, [data])[0]!, checkoutSessionId: null };
  },
});

declareMutation('unpublishSite', {
  description: 'Takes a docs site offline; its settings and structure stay (admins).',
  input: 'The site to unpublish.',
  fields: siteTarget,
  check: (input) => input.transform(inSite),
  payload: SitePayload,
  run: (i, ctx) => sitePayload(ctx, i.organizationId, unpublishSite(ctx.api, i)),
});

// --- Site spaces -------------------------------------------------------------------------------

export const siteSpaceTarget = itemTarget('siteSpaceId', 'SiteSpace', 'site space');

declareMutation('addSpaceToSite', {
  description:
    'Publishes a space on a docs site, or a new space made for it: at the root of a site without sections, else in the given section or the default one. The first site space of a level is its default (create role).',
  input: 'The site and the space to add.',
  fields: {
    organizationId: organizationField,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless `siteSectionId` is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    spaceId: inputField(
      'ID',
      'The space to add (platform id or global ID); null creates a new space, titled `title`.',
      spaceOrNew,
    ),
    title: inputField(
      'String',
      'With `spaceId` null: the title of the new space, 2 to 128 characters.',
      siteTitle.nullish(),
    ),
    siteSectionId: inputField(
      'ID',
      'The section to add it to, on a site with sections (its default section when left out).',
      siteRefInput('SiteSection').nullish(),
    ),
    draft: inputField('Boolean', 'Add it as a draft, not live.', z.boolean().nullish()),
    pageId: inputField(
      'ID',
      'A document page of the space to use as its home page (platform id or global ID).',
      pageIdInput.nullish(),
    ),
  },
  check: (input) =>
    input
      .superRefine(noNewSpacePage)
      .superRefine((value, ctx) => {
        if (value.spaceId !== null && value.title != null)
          ctx.addIssue({
            code: 'custom',
            path: ['title'],
            message: 'only names a new space: give it with spaceId null',
          });
      })
      .transform(inSite),
  payload: (name) =>
    objectPayload(name, 'siteSpace', SiteSpaceRef, 'The new site space.', {
      type: SiteSpaceEdge,
      what: 'site space',
      lists: '`Site.siteSpaces`',
    }),
  run: (i, ctx) =>
    naming({ sectionId: 'siteSectionId' }, () =>
      siteSpacePayload(
        ctx,
        i,
        addSiteSpace(
          ctx.api,
          i,
          restBody(
            { spaceId: i.spaceId, title: i.title, sectionId: i.siteSectionId?.id, draft: i.draft, pageId: i.pageId },
            { clearable: ['spaceId'] },
          ),
        ),
      ),
    ),
});

declareMutation('updateSiteSpace', {
  description:
    'Changes a site space: its path, condition, home page, visibility in the navigation, space or draft state (create role).',
  input: 'The site space and what to change; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    ...siteSpaceTarget,
    path: inputField(
      'String',
      'New path: one segment of 1 to 100 characters, unique among its siblings.',
      segment.nullish(),
    ),
    condition: inputField(
      'String',
      'Show it only to visitors whose claims meet this condition (at most 1024 characters, such as `visitor.claims.beta == true`); null or empty removes it.',
      condition.nullish(),
    ),
    pageId: inputField(
      'ID',
      'A document page of its space to use as its home page; null goes back to the first page.',
      pageIdInput.nullish(),
    ),
    hidden: inputField('Boolean', 'Leave it out of the navigation (true) or show it (false).', z.boolean().nullish()),
    spaceId: inputField(
      'ID',
      'Another space of the organization for it to publish (its home page is then reset unless `pageId` is given).',
      idInput('Space').nullish(),
    ),
    draft: inputField('Boolean', 'Make it a draft (true) or live (false).', z.boolean().nullish()),
  },
  check: (input) => input.superRefine(noNull(['path', 'hidden', 'spaceId', 'draft'])).transform(inSite),
  payload: SiteSpacePayload,
  run: (i, ctx) =>
    siteSpacePayload(
      ctx,
      i,
      updateSiteSpace(
        ctx.api,
        i,
        i.siteSpaceId.id,
        restBody(
          {
            path: i.path,
            condition: i.condition,
            pageId: i.pageId,
            hidden: i.hidden,
            spaceId: i.spaceId,
            draft: i.draft,
          },
          { clearable: ['condition', 'pageId'], ...CHANGES_REQUIRED },
        ),
      ),
    ),
});

declareMutation('deleteSiteSpace', {
  description:
    'Removes a site space from its site; the space stays. The only site space of a section cannot go: delete the section (create role).',
  input: 'The site space to remove.',
  fields: siteSpaceTarget,
  check: (input) => input.transform(inSite),
  payload: (name) => deletedFromSite(name, 'True when the site space was removed, false when it did not exist.'),
  run: async (i, ctx) => ({
    ...(await deleteSiteSpace(ctx.api, i, i.siteSpaceId.id)),
    at: { organizationId: i.organizationId, siteId: i.siteId },
  }),
});

declareMutation('moveSiteSpace', {
  description: 'Moves a site space among its siblings (in its section, or at the root) (create role).',
  input: 'The site space and where to put it.',
  fields: { ...siteSpaceTarget, ...positionFields(['SiteSpace'], 'site space') },
  check: (input) => input.superRefine(oneAnchor).transform(inSite),
  payload: SiteSpacePayload,
  run: (i, ctx) =>
    siteSpacePayload(
      ctx,
      i,
      moveSiteSpace(ctx.api, i, i.siteSpaceId.id, {
        position: position(i, (ref) => ({ type: 'site-space', siteSpace: ref.id })),
      }),
    ),
});

// --- Sections ----------------------------------------------------------------------------------

const sectionTarget = itemTarget('siteSectionId', 'SiteSection', 'section');

declareMutation('createSiteSection', {
  description:
    'Adds a section holding one space (or a new space made for it) to a docs site, last at the root or in a group. On a site whose site spaces are at its root, these first move into a section of their own, the default one (create role).',
  input: 'The site and the section to add.',
  fields: {
    organizationId: organizationField,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless `siteSectionGroupId` is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    spaceId: inputField(
      'ID',
      'The space of its first site space (platform id or global ID); null creates a new space, titled `title`.',
      spaceOrNew,
    ),
    title: inputField(
      'String',
      'Its title, 2 to 128 characters (the title of the space when left out).',
      siteTitle.nullish(),
    ),
    icon: inputField('String', 'Name of its icon, at most 50 characters.', icon.nullish()),
    draft: inputField('Boolean', 'Add it as a draft, not live.', z.boolean().nullish()),
    pageId: inputField(
      'ID',
      'A document page of the space to use as the home page of its site space.',
      pageIdInput.nullish(),
    ),
    siteSectionGroupId: inputField(
      'ID',
      'The section group to put it in; the root when left out.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
  },
  check: (input) => input.superRefine(noNewSpacePage).transform(inSite),
  payload: (name) =>
    objectPayload(name, 'siteSection', SiteSectionRef, 'The new section.', {
      type: SiteSectionEdge,
      what: 'section',
      lists: '`Site.sections`',
    }),
  run: (i, ctx) =>
    sectionPayload(
      ctx,
      i,
      createSiteSection(
        ctx.api,
        i,
        restBody(
          {
            spaceId: i.spaceId,
            title: i.title,
            icon: i.icon,
            draft: i.draft,
            pageId: i.pageId,
            siteSectionGroupId: i.siteSectionGroupId?.id,
          },
          { clearable: ['spaceId'] },
        ),
      ),
    ),
});

declareMutation('updateSiteSection', {
  description:
    'Changes a section: its titles, description, path, icon, condition, default site space, group or draft state (create role).',
  input: 'The section and what to change; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    ...sectionTarget,
    title: inputField('String', 'New title, 2 to 128 characters.', siteTitle.nullish()),
    localizedTitle: inputField(
      'JSON',
      'Its title in other languages, by language code (`{ "fr": "…" }`, at most 128 characters each); replaces the previous ones.',
      localized(128).nullish(),
    ),
    description: inputField(
      'String',
      'New description, at most 256 characters; null removes it.',
      description.nullish(),
    ),
    localizedDescription: inputField(
      'JSON',
      'Its description in other languages, by language code (at most 256 characters each).',
      localized(256).nullish(),
    ),
    path: inputField('String', 'New path: one segment of 1 to 100 characters, unique in the site.', segment.nullish()),
    icon: inputField('String', 'Name of its icon, at most 50 characters; null removes it.', icon.nullish()),
    condition: inputField(
      'String',
      'Show it only to visitors whose claims meet this condition (at most 1024 characters); null or empty removes it.',
      condition.nullish(),
    ),
    draft: inputField('Boolean', 'Make it a draft (true) or live (false).', z.boolean().nullish()),
    defaultSiteSpaceId: inputField(
      'ID',
      'One of its site spaces, to serve at its path.',
      siteRefInput('SiteSpace').nullish(),
    ),
    siteSectionGroupId: inputField(
      'ID',
      'The section group to move it into (last there); null moves it to the root.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
  },
  check: (input) =>
    input
      .superRefine(noNull(['title', 'localizedTitle', 'localizedDescription', 'path', 'draft', 'defaultSiteSpaceId']))
      .transform(inSite),
  payload: SectionPayload,
  run: (i, ctx) =>
    sectionPayload(
      ctx,
      i,
      updateSiteSection(
        ctx.api,
        i,
        i.siteSectionId.id,
        restBody(
          {
            title: i.title,
            localizedTitle: i.localizedTitle,
            description: i.description,
            localizedDescription: i.localizedDescription,
            path: i.path,
            icon: i.icon,
            condition: i.condition,
            draft: i.draft,
            defaultSiteSpace: i.defaultSiteSpaceId?.id,
            siteSectionGroupId: i.siteSectionGroupId === null ? null : i.siteSectionGroupId?.id,
          },
          { clearable: ['description', 'icon', 'condition', 'siteSectionGroupId'], ...CHANGES_REQUIRED },
        ),
      ),
    ),
});

declareMutation('deleteSiteSection', {
  description:
    'Deletes a section and its site spaces (the spaces stay); the next section becomes the default if it was (create role).',
  input: 'The section to delete.',
  fields: sectionTarget,
  check: (input) => input.transform(inSite),
  payload: (name) => deletedFromSite(name, 'True when the section was deleted, false when it did not exist.'),
  run: async (i, ctx) => ({
    ...(await deleteSiteSection(ctx.api, i, i.siteSectionId.id)),
    at: { organizationId: i.organizationId, siteId: i.siteId },
  }),
});

declareMutation('moveSiteSection', {
  description:
    'Moves a section next to another section of the same level (create role); `sortSiteStructure` also puts it next to a group.',
  input: 'The section and where to put it.',
  fields: { ...sectionTarget, ...positionFields(['SiteSection'], 'section') },
  check: (input) => input.superRefine(oneAnchor).transform(inSite),
  payload: SectionPayload,
  run: (i, ctx) =>
    sectionPayload(
      ctx,
      i,
      moveSiteSection(ctx.api, i, i.siteSectionId.id, {
        position: position(i, (ref) => ({ type: 'site-section', siteSection: ref.id })),
      }),
    ),
});

// --- Section groups ----------------------------------------------------------------------------

const groupTarget = itemTarget('siteSectionGroupId', 'SiteSectionGroup', 'section group');

declareMutation('createSiteSectionGroup', {
  description:
    'Adds a section group to a site with sections, last at the root or in another group, optionally moving sections into it (create role).',
  input: 'The site and the group to add.',
  fields: {
    organizationId: organizationField,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless another id of the input is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    title: inputField('String', 'Its title, 1 to 100 characters.', groupTitle),
    icon: inputField('String', 'Name of its icon, at most 50 characters.', icon.nullish()),
    siteSectionIds: inputField(
      ['ID'],
      'Sections of the site to move into it, in this order (at most 100).',
      z.array(siteRefInput('SiteSection')).max(100, 'must list at most 100 sections').nullish(),
    ),
    parentId: inputField(
      'ID',
      'The group to put it in; the root when left out.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
    draft: inputField('Boolean', 'Add it as a draft, not live.', z.boolean().nullish()),
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'siteSectionGroup', SiteSectionGroupRef, 'The new section group.', {
      type: SiteSectionGroupEdge,
      what: 'section group',
      lists: '`Site.sectionGroups`',
    }),
  run: (i, ctx) =>
    naming({ sections: 'siteSectionIds' }, () =>
      groupPayload(
        ctx,
        i,
        createSiteSectionGroup(
          ctx.api,
          i,
          restBody({
            title: i.title,
            icon: i.icon,
            sections: i.siteSectionIds?.map((ref) => ref.id),
            parent: i.parentId?.id,
            draft: i.draft,
          }),
        ),
      ),
    ),
});

declareMutation('updateSiteSectionGroup', {
  description: 'Changes a section group: its titles, icon, draft state or parent group (create role).',
  input: 'The section group and what to change; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    ...groupTarget,
    title: inputField('String', 'New title, 1 to 100 characters.', groupTitle.nullish()),
    localizedTitle: inputField(
      'JSON',
      'Its title in other languages, by language code (at most 128 characters each); replaces the previous ones.',
      localized(128).nullish(),
    ),
    icon: inputField('String', 'Name of its icon, at most 50 characters; null removes it.', icon.nullish()),
    draft: inputField('Boolean', 'Make it a draft (true) or live (false).', z.boolean().nullish()),
    parentId: inputField(
      'ID',
      'The group to move it into (last there; not itself or one of its own groups); null moves it to the root.',
      siteRefInput('SiteSectionGroup').nullish(),
    ),
  },
  check: (input) => input.superRefine(noNull(['title', 'localizedTitle', 'draft'])).transform(inSite),
  payload: GroupPayload,
  run: (i, ctx) =>
    naming({ parentSectionGroupId: 'parentId' }, () =>
      groupPayload(
        ctx,
        i,
        updateSiteSectionGroup(
          ctx.api,
          i,
          i.siteSectionGroupId.id,
          restBody(
            {
              title: i.title,
              localizedTitle: i.localizedTitle,
              icon: i.icon,
              draft: i.draft,
              parentSectionGroupId: i.parentId === null ? null : i.parentId?.id,
            },
            { clearable: ['icon', 'parentSectionGroupId'], ...CHANGES_REQUIRED },
          ),
        ),
      ),
    ),
});

declareMutation('deleteSiteSectionGroup', {
  description: 'Deletes a section group; what it held takes its place, in order (create role).',
  input: 'The section group to delete.',
  fields: groupTarget,
  check: (input) => input.transform(inSite),
  payload: (name) => deletedFromSite(name, 'True when the group was deleted, false when it did not exist.'),
  run: async (i, ctx) => ({
    ...(await deleteSiteSectionGroup(ctx.api, i, i.siteSectionGroupId.id)),
    at: { organizationId: i.organizationId, siteId: i.siteId },
  }),
});

declareMutation('moveSiteSectionGroup', {
  description: 'Moves a section group next to a section or group of the same level (create role).',
  input: 'The section group and where to put it.',
  fields: {
    ...groupTarget,
    ...positionFields(['SiteSection', 'SiteSectionGroup'], 'section or group (a platform id names a group)'),
  },
  check: (input) => input.superRefine(oneAnchor).transform(inSite),
  payload: GroupPayload,
  run: (i, ctx) =>
    groupPayload(
      ctx,
      i,
      moveSiteSectionGroup(ctx.api, i, i.siteSectionGroupId.id, {
        position: position(i, (ref) => ({ type: restType(ref, 'SiteSectionGroup'), id: ref.id })),
      }),
    ),
});

// --- Order -------------------------------------------------------------------------------------

const STRUCTURE_TYPENAMES = ['SiteSpace', 'SiteSection', 'SiteSectionGroup', 'SiteExternalLink'] as const;
const TYPENAME_OF_KIND = {
  'site-space': 'SiteSpace',
  'site-section': 'SiteSection',
  'site-section-group': 'SiteSectionGroup',
  'site-external-link': 'SiteExternalLink',
} as const;

declareMutation('sortSiteStructure', {
  description:
    'Moves a site space, section, section group or external link among its siblings: right before or after one of them, or last (create role). Sections, groups and external links of one level are siblings of each other.',
  input: 'The item and where to put it.',
  fields: {
    organizationId: organizationField,
    siteId: inputField(
      'ID',
      'The site: its global ID, or its platform id with `organizationId`; required unless `itemId` is a global ID.',
      siteRefInput('Site').nullish(),
    ),
    itemId: inputField(
      'ID',
      'The item to move: the global ID of a site space, section, group or external link, or its platform id with `itemKind`.',
      siteRefInput(STRUCTURE_TYPENAMES),
    ),
    itemKind: inputField(
      SiteStructureItemKindEnum,
      'What `itemId` names, when it is a platform id.',
      z.enum(['site-space', 'site-section', 'site-section-group', 'site-external-link']).nullish(),
    ),
    ...positionFields(STRUCTURE_TYPENAMES, 'sibling (a platform id names an item of the same kind as the moved one)'),
  },
  check: (input) =>
    input
      .superRefine(oneAnchor)
      .superRefine((value, ctx) => {
        const typename = value.itemId.typename;
        if (typename === undefined && value.itemKind == null) {
          ctx.addIssue({ code: 'custom', path: ['itemKind'], message: 'is required when itemId is a platform id' });
        } else if (typename !== undefined && value.itemKind != null && TYPENAME_OF_KIND[value.itemKind] !== typename) {
          ctx.addIssue({
            code: 'custom',
            path: ['itemKind'],
            message: `does not match itemId, the global ID of a ${typename}`,
          });
        }
      })
      .transform(inSite),
  payload: (name) =>
    payloadType<{
      at: SiteAddress;
      siteSpace: SiteSpaceHeld;
      siteSection: SiteSectionHeld;
      siteSectionGroup: SiteSectionGroupHeld;
      siteExternalLink: SiteExternalLinkHeld;
    }>(name, (t) => ({
      site: t.field(siteAfter('The site after the move, with its structure.')),
      siteSpace: t.field({
        type: SiteSpaceRef,
        nullable: true,
        description: 'The site space moved; null when another kind of item moved.',
        resolve: (p) => p.siteSpace ?? null,
      }),
      siteSection: t.field({
        type: SiteSectionRef,
        nullable: true,
        description: 'The section moved; null when another kind of item moved.',
        resolve: (p) => p.siteSection ?? null,
      }),
      siteSectionGroup: t.field({
        type: SiteSectionGroupRef,
        nullable: true,
        description: 'The section group moved; null when another kind of item moved.',
        resolve: (p) => p.siteSectionGroup ?? null,
      }),
      siteExternalLink: t.field({
        type: SiteExternalLinkRef,
        nullable: true,
        description: 'The external link moved; null when another kind of item moved.',
        resolve: (p) => p.siteExternalLink ?? null,
      }),
    })),
  run: async (i, ctx) => {
    const kind = (i.itemId.typename as StructureTypename | undefined) ?? TYPENAME_OF_KIND[i.itemKind!];
    const data = await sortSiteStructure(ctx.api, i, {
      item: { type: REST_TYPES[kind], id: i.itemId.id },
      position: position(i, (ref) => ({ type: restType(ref, kind), id: ref.id })),
    });
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    switch (data.object) {
      case 'site-space': {
        const siteSpace = placeSiteSpace(data, at.organizationId, at.siteId);
        primeSiteItems(ctx, [siteSpace]);
        return { at, siteSpace };
      }
      case 'site-section': {
        const siteSection = placeSection(data, at.organizationId, at.siteId);
        primeSiteItems(ctx, [siteSection]);
        return { at, siteSection };
      }
      case 'site-section-group': {
        const siteSectionGroup = placeGroup(data, at.organizationId, at.siteId);
        primeSiteItems(ctx, [siteSectionGroup]);
        return { at, siteSectionGroup };
      }
      case 'site-external-link':
        return { at, ...(await externalLinkPayload(ctx, at, Promise.resolve(data))) };
    }
  },
});
