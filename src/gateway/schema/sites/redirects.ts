import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { GatewayError } from '../../errors.js';
import * as op from '../../upstream/contract/operations.js';
import type { SiteRedirect, SiteRedirectDestination } from '../../upstream/contract/types.js';
import { listOf, deleteOf } from '../../upstream/operation.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { PageInterface } from '../content/page.js';
import { lightRevision, readOnce, treeIndex, type PageHeld } from '../content/revision.js';
import { builder } from '../kit/builder.js';
import { listConnection, mapNodes } from '../kit/connections.js';
import { restEnum } from '../kit/enums.js';
import { compositeKey, decodeKnownGlobalId, idInput, platformKey, readingId, splitKey } from '../kit/ids.js';
import { linkTo, loadableNode, loadOrThrow, prime } from '../kit/loaders.js';
import { declareMutation, inputField, inputObject, restBody } from '../kit/mutations.js';
import { deletedPayload, deletionOf, objectPayload, payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { inSite, siteAfter, siteRefInput, siteTarget } from './mutations.js';
import { SiteRef, siteKey, siteLink, SiteRefValue } from './site.js';
import { SiteSectionRef, siteItemKey, siteItemStub, SiteSpaceRef, type SiteSpaceHeld } from './structure.js';

/**
 * Redirects of a docs site: `Site.redirects` (live or draft ones), `Site.redirect(source:)` (the
 * redirect a path finds and where it leads), the `SiteRedirect` node (global ID with its
 * organization and site) whose destination links the section, site space or page it names, and
 * the mutations: create, update, delete, and the bulk `upsertSiteRedirects`.
 */

type RedirectHeld = SiteRedirect & SiteAddress;

const redirectKey = (r: RedirectHeld) => compositeKey(r.organizationId, r.siteId, r.id);
const place = (raw: SiteRedirect, at: SiteAddress): RedirectHeld => ({
  ...raw,
  organizationId: at.organizationId,
  siteId: at.siteId,
});

/** The live or draft redirects of a site, read once per request (for `node(id:)`: no read by id exists). */
function readRedirects(ctx: GatewayContext, at: SiteAddress, draft: boolean): Promise<RedirectHeld[]> {
  return readOnce(ctx, `redirects:${siteKey(at.organizationId, at.siteId)}:${draft}`, async () => {
    const all: RedirectHeld[] = [];
    let page: string | undefined;
    do {
      const answer = await ctx.api.read(op.listSiteRedirects, at, { draft, limit: 1000, page });
      all.push(...answer.items.map((item) => place(item, at)));
      page = answer.next?.page;
    } while (page);
    return all;
  });
}

export const SiteRedirectRef = loadableNode<RedirectHeld>('SiteRedirect', {
  key: redirectKey,
  load: async (key, ctx) => {
    const [organizationId, siteId, id] = splitKey(key, 3, 'SiteRedirect') as [string, string, string];
    const at = { organizationId, siteId };
    for (const draft of [false, true]) {
      const found = (await readRedirects(ctx, at, draft)).find((redirect) => redirect.id === id);
      if (found) return found;
    }
    throw new GatewayError('NOT_FOUND', `No redirect ${id} in the site`);
  },
});

// --- Destinations -------------------------------------------------------------------------------

type DestinationHeld = SiteRedirectDestination & SiteAddress;
type Of<K extends DestinationHeld['kind']> = Extract<SiteRedirectDestination, { kind: K }> & SiteAddress;

const siteSpaceOf = (d: SiteAddress & { siteSpaceId: string }, info: Parameters<typeof linkTo>[2]) =>
  linkTo(SiteSpaceRef, siteItemKey({ ...d, id: d.siteSpaceId }), info, () =>
    siteItemStub<SiteSpaceHeld>(d, d.siteSpaceId),
  );

const SectionDestination = builder.objectRef<Of<'site-section'>>('SiteRedirectSectionDestination').implement({
  description: 'A redirect to a section of the site: its default site space.',
  fields: (t) => ({
    section: t.field({
      type: SiteSectionRef,
      description: 'The section.',
      extensions: upstream.link,
      resolve: (d, _args, _ctx, info) =>
        linkTo(SiteSectionRef, siteItemKey({ ...d, id: d.siteSectionId }), info, () =>
          siteItemStub(d, d.siteSectionId),
        ),
    }),
  }),
});

const SiteSpaceDestination = builder.objectRef<Of<'site-space'>>('SiteRedirectSiteSpaceDestination').implement({
  description: 'A redirect to a site space (a variant) of the site: its home page.',
  fields: (t) => ({
    siteSpace: t.field({
      type: SiteSpaceRef,
      description: 'The site space.',
      extensions: upstream.link,
      resolve: (d, _args, _ctx, info) => siteSpaceOf(d, info),
    }),
  }),
});

const PageDestination = builder.objectRef<Of<'site-page'>>('SiteRedirectPageDestination').implement({
  description: 'A redirect to a page of a site space.',
  fields: (t) => ({
    siteSpace: t.field({
      type: SiteSpaceRef,
      description: 'The site space the page is in.',
      extensions: upstream.link,
      resolve: (d, _args, _ctx, info) => siteSpaceOf(d, info),
    }),
    pageId: t.exposeString('pageId', { description: 'Platform id of the page in the site space’s space.' }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page, in the current content of the site space’s space; null when it is no longer there (the redirect then does not apply).',
      // The site's structure (for the site space's space), then the space's page tree.
      extensions: upstream.fetch(2),
      resolve: async (d, _args, ctx): Promise<PageHeld | null> => {
        const siteSpace = await loadOrThrow(SiteSpaceRef, ctx, siteItemKey({ ...d, id: d.siteSpaceId }));
        const index = await treeIndex(ctx, lightRevision(siteSpace.space.id, siteSpace.space.revision, true));
        return index.byId.get(d.pageId) ?? null;
      },
    }),
  }),
});

const ExternalDestination = builder.objectRef<Of<'external'>>('SiteRedirectExternalDestination').implement({
  description: 'A redirect to an address outside the site.',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'The address (http or https).' }),
  }),
});

const DESTINATION_TYPES = {
  'site-section': 'SiteRedirectSectionDestination',
  'site-space': 'SiteRedirectSiteSpaceDestination',
  'site-page': 'SiteRedirectPageDestination',
  external: 'SiteRedirectExternalDestination',
} as const;

const DestinationUnion = builder.unionType('SiteRedirectDestination', {
  description: 'Where a redirect leads: a section, a site space or a page of the site, or an external address.',
  types: [SectionDestination, SiteSpaceDestination, PageDestination, ExternalDestination],
  resolveType: (d: DestinationHeld) => DESTINATION_TYPES[d.kind],
});

SiteRedirectRef.implement({
  description:
    'A redirect of a docs site: a path under the site’s address (exact, or a prefix ending with a wildcard) that leads to a section, a site space, a page or an external address. Live redirects apply to the published site; draft ones where an unpublished site is previewed, until published. Members read them; the create role writes them.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the redirect on the platform.' }),
    source: t.exposeString('source', {
      description:
        'The path it redirects, under the site’s address: `/old-page`, or a prefix ending with a wildcard (`/old/*`, `/old*`).',
    }),
    draft: t.exposeBoolean('draft', { description: 'True for a draft redirect, not live yet.' }),
    permanent: t.exposeBoolean('permanent', {
      description: 'True when it is permanent: HTTP 308 for public live traffic, 307 elsewhere.',
    }),
    captureWildcard: t.exposeBoolean('captureWildcard', {
      description: 'True when what the wildcard matched is appended to the destination.',
    }),
    destination: t.field({
      type: DestinationUnion,
      description: 'Where it leads.',
      resolve: (r) => ({ ...r.destination, organizationId: r.organizationId, siteId: r.siteId }),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (r) => r.createdAt }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last changed; null when never since its creation.',
      resolve: (r) => r.updatedAt ?? null,
    }),
    site: t.field({
      type: SiteRef,
      description: 'The site it belongs to.',
      extensions: upstream.link,
      resolve: (r, _args, _ctx, info) => siteLink(r.organizationId, r.siteId, info),
    }),
  }),
});

const SiteRedirectEdge = builder.edgeObject({
  type: SiteRedirectRef,
  name: 'SiteRedirectEdge',
  description: 'A redirect of a list, with its cursor.',
});

const SiteRedirectConnection = builder.connectionObject(
  {
    type: SiteRedirectRef,
    name: 'SiteRedirectConnection',
    description: 'A page of redirects of a site, with the size of the whole list.',
  },
  SiteRedirectEdge,
);

const OrderEnum = restEnum('SiteRedirectOrder', 'How the redirects of a site are ordered.', {
  createdAt: 'Most recently created first (the default).',
  updatedAt: 'Most recently changed first (created, for those never changed).',
  source: 'By source path, alphabetically.',
});

const SiteRedirectMatch = builder.objectRef<{ redirect: RedirectHeld; target: string }>('SiteRedirectMatch').implement({
  description: 'The redirect a path finds, and where it leads that path.',
  fields: (t) => ({
    redirect: t.field({ type: SiteRedirectRef, description: 'The redirect.', resolve: (m) => m.redirect }),
    targetUrl: t.exposeString('target', {
      description: 'The address the path is sent to (with what a capturing wildcard matched).',
    }),
  }),
});

const sourceArg = z.string().trim().min(1, 'is required').max(512, 'must be at most 512 characters');

builder.objectFields(SiteRef, (t) => ({
  redirects: t.connection(
    {
      type: SiteRedirectRef,
      nullable: true,
      description: 'Its redirects (members), live or draft; null with FORBIDDEN for others.',
      args: {
        search: t.arg.string({ description: 'Only those whose source contains this text (any case).' }),
        draft: t.arg.boolean({ description: 'True for the draft redirects, false (the default) for the live ones.' }),
        orderBy: t.arg({ type: OrderEnum, description: 'Their order (default CREATED_AT).' }),
      },
      resolve: async (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        const connection = await listConnection(
          args,
          listOf(ctx.api, op.listSiteRedirects, at, {
            search: args.search ?? undefined,
            draft: args.draft ?? undefined,
            orderBy: args.orderBy ?? undefined,
          }),
        );
        return mapNodes(connection, (items) => {
          const held = items.map((item) => place(item, at));
          prime(SiteRedirectRef, ctx, held);
          return held;
        });
      },
    },
    SiteRedirectConnection,
  ),
  redirect: t.field({
    type: SiteRedirectMatch,
    nullable: true,
    description:
      'The live redirect a path under the site finds: one for that exact source, else the one with the longest wildcard prefix of it; null with NOT_FOUND when none applies. Members ask of any site; others of a published site they may visit.',
    args: {
      source: t.arg.string({ required: true, description: 'The path, under the site’s address (`/old/page`).' }),
      shareKey: t.arg.string({
        description: 'Key of an active share link, for a share-link site read as its readers do.',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: async (s, args, ctx) => {
      const source = sourceArg.safeParse(args.source);
      if (!source.success)
        throw new GatewayError('BAD_USER_INPUT', `source ${source.error.issues[0]?.message}`, { field: ['source'] });
      const at = { organizationId: s.organizationId, siteId: s.id };
      const found = await ctx.api.read(op.getSiteRedirectBySource, at, {
        source: source.data,
        ...(args.shareKey ? { shareKey: args.shareKey } : {}),
      });
      return { redirect: place(found.redirect, at), target: found.target };
    },
  }),
}));

// --- Inputs -------------------------------------------------------------------------------------

/** A section or site space the destination names, with the REST destination it stands for. */
class DestinationRef extends SiteRefValue {
  constructor(
    ref: SiteRefValue,
    readonly rest: SiteRedirectDestination,
  ) {
    super(ref.id, ref.typename, ref.organizationId, ref.siteId);
  }
}

type RestInputDestination = SiteRedirectDestination | { kind: 'path'; spaceId: string; path: string } | DestinationRef;

const pageInput = inputObject('SiteRedirectPageInput', {
  description: 'A page of a site space of the site.',
  fields: {
    siteSpaceId: inputField('ID', 'The site space: its global ID or platform id.', siteRefInput('SiteSpace')),
    pageId: inputField(
      'String',
      'Platform id of the page in the site space’s space.',
      z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
    ),
  },
});

const pagePathInput = inputObject('SiteRedirectPagePathInput', {
  description: 'A page named by its path in a space the site publishes (its live site space, else a draft one).',
  fields: {
    spaceId: inputField('ID', 'Platform id or global ID of the space.', idInput('Space')),
    path: inputField(
      'String',
      'Path of the page in the space ("" for its first page).',
      z.string().max(1000, 'must be at most 1000 characters'),
    ),
  },
});

const httpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');

/** The destination fields; `pagePath` only where the platform takes it (not in an update). */
function destinationInput(name: string, withPath: boolean) {
  const fields = {
    section: inputField(
      'ID',
      'A section of the site: its global ID or platform id.',
      siteRefInput('SiteSection').optional(),
    ),
    siteSpace: inputField(
      'ID',
      'A site space of the site: its global ID or platform id.',
      siteRefInput('SiteSpace').optional(),
    ),
    page: inputField(pageInput.type, 'A page of a site space of the site.', pageInput.schema.optional()),
    url: inputField('String', 'An external address (http or https, at most 2048 characters).', httpUrl.optional()),
    ...(withPath
      ? {
          pagePath: inputField(
            pagePathInput.type,
            'A page by its path in a space the site publishes.',
            pagePathInput.schema.optional(),
          ),
        }
      : {}),
  };
  return inputObject(name, {
    description: `Where a redirect leads: set exactly one field.`,
    oneOf: true,
    fields,
    check: (object) =>
      object.transform((value, ctx): RestInputDestination => {
        const v = value as {
          section?: SiteRefValue;
          siteSpace?: SiteRefValue;
          page?: { siteSpaceId: SiteRefValue; pageId: string };
          url?: string;
          pagePath?: { spaceId: string; path: string };
        };
        if (v.section) return new DestinationRef(v.section, { kind: 'site-section', siteSectionId: v.section.id });
        if (v.siteSpace) return new DestinationRef(v.siteSpace, { kind: 'site-space', siteSpaceId: v.siteSpace.id });
        if (v.page)
          return new DestinationRef(v.page.siteSpaceId, {
            kind: 'site-page',
            siteSpaceId: v.page.siteSpaceId.id,
            pageId: v.page.pageId,
          });
        if (v.url) return { kind: 'external', url: v.url };
        if (v.pagePath) return { kind: 'path', spaceId: v.pagePath.spaceId, path: v.pagePath.path };
        ctx.addIssue({ code: 'custom', message: 'set exactly one field' });
        return z.NEVER;
      }),
  });
}

const NewDestination = destinationInput('SiteRedirectDestinationInput', true);
const ChangedDestination = destinationInput('SiteRedirectDestinationUpdateInput', false);
const restDestination = (d: RestInputDestination) => (d instanceof DestinationRef ? d.rest : d);

/** Where the platform's body fields of a destination are in the input, for its refusals. */
const DESTINATION_FIELDS: Record<string, string[]> = {
  siteSectionId: ['section'],
  siteSpaceId: ['siteSpace'],
  pageId: ['page', 'pageId'],
  spaceId: ['pagePath', 'spaceId'],
  path: ['pagePath', 'path'],
  url: ['url'],
};
function destinationPath(restField: string[], written: Record<string, unknown> | undefined): string[] {
  const [field] = restField;
  if (!field) return [];
  // A page's site space is `page.siteSpaceId` when the destination is a page.
  if (field === 'siteSpaceId' && written?.page) return ['page', 'siteSpaceId'];
  return DESTINATION_FIELDS[field] ?? [field];
}

const redirectTarget = {
  ...siteTarget,
  siteId: inputField(
    'ID',
    'The site: its global ID, or its platform id with `organizationId`; required unless `redirectId` is a global ID.',
    siteRefInput('Site').nullish(),
  ),
  redirectId: inputField(
    'ID',
    'The redirect: its global ID, or its platform id with `siteId`.',
    z
      .string()
      .trim()
      .min(1, 'must be the id of a site redirect')
      .transform(
        readingId((value) => {
          const key = platformKey(value, 'SiteRedirect');
          if (key === value || !decodeKnownGlobalId(value)) return new SiteRefValue(value);
          const [organizationId, siteId, id] = splitKey(key, 3, 'SiteRedirect') as [string, string, string];
          return new SiteRefValue(id, undefined, organizationId, siteId);
        }),
      ),
  ),
};

const source = z.string().trim().min(1, 'is required').max(512, 'must be at most 512 characters');
const flags = {
  captureWildcard: inputField(
    'Boolean',
    'Append what the source’s wildcard matched to the destination.',
    z.boolean().nullish(),
  ),
  permanent: inputField(
    'Boolean',
    'A permanent redirect: HTTP 308 for public live traffic, 307 elsewhere.',
    z.boolean().nullish(),
  ),
};

/** Refusals about the body's `destination.<field>` named as the input has them. */
const inputPath = (restField: string[] | null, _code: unknown, input: Record<string, unknown>) =>
  restField?.[0] === 'destination'
    ? ['destination', ...destinationPath(restField.slice(1), input.destination as Record<string, unknown>)]
    : undefined;

async function redirectPayload(at: SiteAddress, ctx: GatewayContext, written: Promise<SiteRedirect>) {
  const redirect = place(await written, at);
  prime(SiteRedirectRef, ctx, [redirect]);
  return { redirect };
}

declareMutation('createSiteRedirect', {
  description:
    'Creates a redirect of a site (create role): a source path, live or draft, to a section, site space, page or external address. A source has at most one live and one draft redirect (CONFLICT).',
  input: 'The site, the source path and the destination.',
  fields: {
    ...siteTarget,
    source: inputField(
      'String',
      'The path to redirect, under the site’s address: `/old-page`, or a prefix with a trailing wildcard (`/old/*`, `/old*`). Repeated and trailing slashes are dropped.',
      source,
    ),
    destination: inputField(NewDestination.type, 'Where it leads.', NewDestination.schema),
    draft: inputField(
      'Boolean',
      'A draft redirect: it applies to previews only, until published.',
      z.boolean().nullish(),
    ),
    ...flags,
  },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    objectPayload(name, 'redirect', SiteRedirectRef, 'The new redirect.', {
      type: SiteRedirectEdge,
      what: 'redirect',
      lists: '`Site.redirects`',
    }),
  inputPath,
  run: (i, ctx) =>
    redirectPayload(
      i,
      ctx,
      ctx.api
        .write(op.createSiteRedirect, i, {
          body: {
            source: i.source,
            destination: restDestination(i.destination),
            ...restBody({ draft: i.draft, captureWildcard: i.captureWildcard, permanent: i.permanent }),
          },
        })
        .then((answer) => answer.data),
    ),
});

declareMutation('updateSiteRedirect', {
  description:
    'Changes a redirect of a site (create role); what is left out stays. Setting `draft: false` on a draft publishes it, replacing the live redirect of its source.',
  input: 'The redirect and what to change.',
  fields: {
    ...redirectTarget,
    source: inputField('String', 'New source path.', source.nullish()),
    destination: inputField(ChangedDestination.type, 'New destination.', ChangedDestination.schema.nullish()),
    draft: inputField('Boolean', 'True makes it a draft; false makes it live.', z.boolean().nullish()),
    ...flags,
  },
  check: (input) => input.transform(inSite),
  payload: (name) => objectPayload(name, 'redirect', SiteRedirectRef, 'The redirect after the change.'),
  inputPath,
  run: (i, ctx) => {
    const body = restBody(
      {
        source: i.source,
        destination: i.destination ? restDestination(i.destination) : undefined,
        draft: i.draft,
        captureWildcard: i.captureWildcard,
        permanent: i.permanent,
      },
      { required: 'Give at least one of source, destination, draft, captureWildcard or permanent' },
    );
    return redirectPayload(
      i,
      ctx,
      ctx.api
        .write(op.updateSiteRedirectById, { ...i, siteRedirectId: i.redirectId.id }, { body })
        .then((answer) => answer.data),
    );
  },
});

declareMutation('deleteSiteRedirect', {
  description: 'Deletes a redirect of a site (create role): its source stops redirecting at once.',
  input: 'The redirect to delete.',
  fields: redirectTarget,
  check: (input) => input.transform(inSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress }>(
      name,
      'True when the redirect was deleted, false when it did not exist.',
      (t) => ({ site: t.field(siteAfter('The site.')) }),
    ),
  run: async (i, ctx) => ({
    ...(await deletionOf(
      'SiteRedirect',
      compositeKey(i.organizationId, i.siteId, i.redirectId.id),
      deleteOf(ctx.api, op.deleteSiteRedirectById, { ...i, siteRedirectId: i.redirectId.id }),
    )),
    at: { organizationId: i.organizationId, siteId: i.siteId },
  }),
});

// --- Bulk upsert --------------------------------------------------------------------------------

const IntentEnum = restEnum('SiteRedirectIntent', 'What one item of `upsertSiteRedirects` does.', {
  live: 'Creates or updates the live redirect of the source; a null destination deletes it (the default).',
  draft: 'Creates or updates the draft redirect of the source; a null destination deletes it.',
  publish: 'Publishes the draft redirect of the source: it replaces the live one (no destination).',
});

const StatusEnum = restEnum('SiteRedirectUpsertStatus', 'What became of one item of `upsertSiteRedirects`.', {
  created: 'A redirect was created.',
  updated: 'The redirect was updated.',
  deleted: 'The redirect was deleted.',
  published: 'The draft redirect was published and replaced the live one.',
  error: 'Nothing was done: `error` says why.',
});

const UpsertItemInput = inputObject('SiteRedirectUpsertInput', {
  description: 'One redirect to create, update, delete or publish.',
  fields: {
    source: inputField('String', 'The source path.', source),
    intent: inputField(IntentEnum, 'What to do (default LIVE).', z.enum(['live', 'draft', 'publish']).nullish()),
    destination: inputField(
      NewDestination.type,
      'Where it leads; null deletes the redirect (LIVE, DRAFT); left out with PUBLISH.',
      NewDestination.schema.nullish(),
    ),
    ...flags,
  },
  check: (object) =>
    object.superRefine((value, ctx) => {
      const publish = value.intent === 'publish';
      if (publish && value.destination != null)
        ctx.addIssue({ code: 'custom', path: ['destination'], message: 'cannot be set with PUBLISH' });
      if (!publish && value.destination === undefined)
        ctx.addIssue({ code: 'custom', path: ['destination'], message: 'is required (null deletes the redirect)' });
    }),
});

type UpsertResult = { status: string; source: string; draft: boolean; id?: string; error?: string };

const UpsertResultType = builder.objectRef<UpsertResult & SiteAddress>('SiteRedirectUpsertResult').implement({
  description: 'What became of one item of `upsertSiteRedirects`, in the order given.',
  fields: (t) => ({
    status: t.field({ type: StatusEnum, description: 'What was done.', resolve: (r) => r.status as never }),
    source: t.exposeString('source', { description: 'The source path, as stored.' }),
    draft: t.exposeBoolean('draft', { description: 'True when it was about the draft redirect of the source.' }),
    redirect: t.field({
      type: SiteRedirectRef,
      nullable: true,
      description: 'The redirect created, updated or published (null for DELETED and ERROR).',
      extensions: upstream.link,
      resolve: (r, _args, _ctx, info) =>
        r.id
          ? linkTo(
              SiteRedirectRef,
              compositeKey(r.organizationId, r.siteId, r.id),
              info,
              () =>
                ({
                  id: r.id!,
                  organizationId: r.organizationId,
                  siteId: r.siteId,
                }) as RedirectHeld,
            )
          : null,
    }),
    error: t.string({
      nullable: true,
      description: 'Why nothing was done, for ERROR.',
      resolve: (r) => r.error ?? null,
    }),
  }),
});

/** Each item's destination naming a section or site space of another site than the input's. */
function sameSite<T extends { siteId: string; redirects: Array<{ destination?: RestInputDestination | null }> }>(
  value: T,
  ctx: z.core.$RefinementCtx,
): T {
  value.redirects.forEach((item, index) => {
    const d = item.destination;
    if (d instanceof DestinationRef && d.siteId !== undefined && d.siteId !== value.siteId)
      ctx.addIssue({
        code: 'custom',
        path: ['redirects', index, 'destination'],
        message: 'belongs to another site than the rest of the input',
      });
  });
  return value;
}

declareMutation('upsertSiteRedirects', {
  description:
    'Creates, updates, deletes or publishes up to 500 redirects of a site at once, in one transaction (create role): each item is done or refused on its own, with a result per item.',
  input: 'The site and the redirects.',
  fields: {
    ...siteTarget,
    redirects: inputField(
      [UpsertItemInput.type],
      '1 to 500 redirects, done in order.',
      z
        .array(UpsertItemInput.schema)
        .min(1, 'must hold at least one redirect')
        .max(500, 'must hold at most 500 redirects'),
    ),
  },
  check: (input) => input.transform(inSite).transform(sameSite),
  payload: (name) =>
    payloadType<{ results: Array<UpsertResult & SiteAddress>; at: SiteAddress }>(name, (t) => ({
      results: t.field({
        type: [UpsertResultType],
        nullable: true,
        description: 'A result per item, in the order given.',
        resolve: (p) => p.results ?? null,
      }),
      site: t.field(siteAfter('The site.')),
    })),
  inputPath: (restField, _code, input) => {
    if (restField?.[0] !== 'redirects' || restField[2] !== 'destination') return undefined;
    const items = input.redirects as Array<Record<string, unknown>> | undefined;
    const written = items?.[Number(restField[1])]?.destination as Record<string, unknown> | undefined;
    return [...restField.slice(0, 3), ...destinationPath(restField.slice(3), written)];
  },
  run: async (i, ctx) => {
    const redirects = i.redirects.map((item) =>
      item.intent === 'publish'
        ? { source: item.source, intent: 'publish' as const }
        : {
            source: item.source,
            destination: item.destination ? restDestination(item.destination) : null,
            ...restBody({ intent: item.intent, captureWildcard: item.captureWildcard, permanent: item.permanent }),
          },
    );
    const at = { organizationId: i.organizationId, siteId: i.siteId };
    const { data } = await ctx.api.write(op.bulkUpsertSiteRedirects, at, { body: { redirects } as never });
    return { results: data.results.map((result) => ({ ...result, ...at })), at };
  },
});
