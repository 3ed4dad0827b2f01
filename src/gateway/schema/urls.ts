import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import type { ReadApi, RequestApi } from '../upstream/request.js';
import { getCurrentUser } from '../upstream/users.js';
import { upstream } from './kit/upstream-cost.js';
import { BadUserInputError, GatewayError, isGatewayError } from '../errors.js';
import { compositeKey } from './kit/ids.js';
import { selectedFieldNames, selectsOnlyKeys } from './kit/links.js';
import { type ContentAddress, getShownPage } from '../upstream/content.js';
import { getPublishedSite } from '../upstream/site-access.js';
import { getSpace } from '../upstream/spaces.js';
import { getEmbed, resolveContentUrl, resolvePublishedUrl, resolvePublishedUrlFor } from '../upstream/urls.js';
import type {
  Collection,
  Embed,
  PublishedContentRedirect as ContentRedirect,
  PublishedSiteContent as PublishedContent,
  Space,
} from '../upstream/contract/types.js';
import { builder } from './kit/builder.js';
import { ChangeRequestNode } from './change-requests/index.js';
import { CollectionNode } from './collections.js';
import { PageInterface } from './content/page.js';
import {
  detachedPage,
  lightRevision,
  readOnce,
  revisionStub,
  RevisionNode,
  type PageHeld,
} from './content/revision.js';
import { linkTo, prime } from './kit/loaders.js';
import { restEnum } from './kit/enums.js';
import {
  isStructureItem,
  placeStructure,
  SiteRef,
  SiteSectionRef,
  siteItemStub,
  SiteSpaceRef,
  type SiteHeld,
  type SiteSectionHeld,
  type SiteSpaceHeld,
} from './sites/index.js';
import { SiteCustomization } from './sites/access.js';
import { SpaceNode } from './spaces.js';

/**
 * URLs back to what they show: `resolveUrl` takes a published URL (as a visitor, with their
 * token and claims) or an app URL of the platform, and answers the site, section, site space,
 * space, change request and page it shows, so one query goes from a URL to a page's markdown;
 * `embedUrl` answers the embed of a published page.
 */

// --- Inputs --------------------------------------------------------------------------------------

const VisitorTypeEnum = restEnum('VisitorType', 'Who visits a published site.', {
  human: 'A person (the default).',
  agent: 'An AI agent or another program.',
});

const VisitorInput = builder.inputType('VisitorInput', {
  description: 'Who resolves a published URL: the visitor’s signed token and the claims they state themselves.',
  fields: (t) => ({
    jwtToken: t.string({
      description:
        'A visitor token (JWT) signed for the site: required by `VISITOR_AUTH` sites, and the signed claims of adaptive content.',
    }),
    unsignedClaims: t.field({
      type: 'JSON',
      description:
        'Claims the visitor states without signing them; they must fit the `unsigned` part of the site’s adaptive schema.',
    }),
    type: t.field({ type: VisitorTypeEnum, description: 'Who visits (default HUMAN).' }),
  }),
});

const plainClaims = z.record(z.string(), z.unknown(), { message: 'must be an object of claims' });
const urlArg = z.string().trim().min(1, 'is required').max(2048, 'must be at most 2048 characters');

// --- Results -------------------------------------------------------------------------------------

type PublishedHeld = PublishedContent & { __typename: 'PublishedContent' };
type RedirectHeld = ContentRedirect & { __typename: 'ContentRedirect' };
// The change request and the page as their nodes take them: the lookup answers the same objects
// their own reads do, whose shapes those nodes' domains decide.
type ChangeRequestHeld = Exclude<typeof ChangeRequestNode.$inferType, string>;
type SpaceContentHeld = {
  __typename: 'SpaceContent';
  space: Space;
  changeRequest?: ChangeRequestHeld | null | undefined;
  page?: Parameters<typeof detachedPage>[0] | null | undefined;
};
type CollectionContentHeld = { __typename: 'CollectionContent'; collection: Collection };
type ResolutionHeld = PublishedHeld | RedirectHeld | SpaceContentHeld | CollectionContentHeld;

/** The page a published URL shows: at `pathname` in the content it previews (or the live one), or the site space's home page. */
/**
 * What a published URL shows is read as its visitor sees it, with the API token the lookup gave
 * them, so that readers outside the organization get it too: the site's published profile (the
 * site and the structure they see), the space, the page. A preview (`~/changes/…`,
 * `~/revisions/…`, members only) is read as the caller.
 */
const readerOf = (ctx: GatewayContext, found: PublishedContent): ReadApi =>
  found.changeRequest || found.revision ? ctx.api : ctx.api.as(found.apiToken);

/** The site's published profile as the visitor sees it, with its structure placed. */
async function profileOf(ctx: GatewayContext, found: PublishedContent) {
  const profile = await getPublishedSite(ctx.api.as(found.apiToken), {
    organizationId: found.organization,
    siteId: found.site,
  });
  return { profile, structure: placeStructure(profile.structure, found.organization, found.site) };
}

async function publishedPage(
  ctx: GatewayContext,
  found: PublishedContent,
  info: GraphQLResolveInfo,
): Promise<PageHeld | null> {
  // The revision shown (the space's current one, or the previewed change request's), for the
  // page's identity; read alongside the page itself, whose address needs no revision id except
  // for a revision preview.
  const shown: Promise<{ revisionId: string; current: boolean }> = found.revision
    ? Promise.resolve({ revisionId: found.revision, current: false })
    : found.changeRequest
      ? ChangeRequestNode.getDataloader(ctx)
          .load(compositeKey(found.space, found.changeRequest))
          .then((request) => ({
            revisionId: (request as ChangeRequestHeld).revision,
            current: false,
          }))
      : getSpace(readerOf(ctx, found), found.space).then((space) => ({
          revisionId: space.revision,
          current: true,
        }));
  // At a site space's root, its custom home page if it has one (in the site's structure).
  const homePage =
    found.pathname === ''
      ? profileOf(ctx, found).then(
          ({ structure }) =>
            (structure.byKey.get(`site-space:${found.siteSpace}`) as { pageId?: string | null } | undefined)?.pageId ??
            null,
        )
      : Promise.resolve(null);
  // The markdown, when asked, comes with the page in one read.
  const withMarkdown = selectedFieldNames(info).has('markdown');
  const readPage = async () => {
    const home = await homePage;
    const at: ContentAddress = found.revision
      ? { spaceId: found.space, id: found.revision }
      : found.changeRequest
        ? { spaceId: found.space, changeRequest: found.changeRequest }
        : { spaceId: found.space, current: true };
    return getShownPage(
      readerOf(ctx, found),
      at,
      home ? { pageId: home } : { pathname: found.pathname },
      withMarkdown ? { format: 'markdown' } : undefined,
    );
  };
  const [{ revisionId, current }, page] = await Promise.all([shown, readPage()]);
  const held = detachedPage(page, found.space, revisionId, lightRevision(found.space, revisionId, current));
  if (withMarkdown && page.markdown !== undefined)
    void readOnce(ctx, `markdown:${compositeKey(found.space, revisionId, page.id)}`, async () => page.markdown!);
  return held;
}

const PublishedContentType = builder.objectRef<PublishedHeld>('PublishedContent').implement({
  description:
    'What a published URL shows a visitor: the site, section, site space, space and page, with the parts of the URL.',
  fields: (t) => ({
    site: t.field({
      type: SiteRef,
      description: 'The site, as the visitor sees it (its published profile).',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx, info) => {
        if (selectsOnlyKeys(info)) return { id: c.site, organizationId: c.organization } as SiteHeld;
        const { profile } = await profileOf(ctx, c);
        return { ...profile.site, organizationId: c.organization } as SiteHeld;
      },
    }),
    section: t.field({
      type: SiteSectionRef,
      nullable: true,
      description: 'The section, on a site with sections, as the visitor sees it.',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx, info) => {
        if (!c.siteSection) return null;
        if (selectsOnlyKeys(info))
          return siteItemStub<SiteSectionHeld>({ organizationId: c.organization, siteId: c.site }, c.siteSection);
        const found = (await profileOf(ctx, c)).structure.byKey.get(`site-section:${c.siteSection}`);
        return isStructureItem(found, 'site-section') ? found : null;
      },
    }),
    siteSpace: t.field({
      type: SiteSpaceRef,
      description: 'The site space (variant), as the visitor sees it.',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx, info) => {
        if (selectsOnlyKeys(info))
          return siteItemStub<SiteSpaceHeld>({ organizationId: c.organization, siteId: c.site }, c.siteSpace);
        const found = (await profileOf(ctx, c)).structure.byKey.get(`site-space:${c.siteSpace}`);
        if (!isStructureItem(found, 'site-space'))
          throw new GatewayError('NOT_FOUND', `No site space ${c.siteSpace} in the site`);
        return found;
      },
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space it shows, as the visitor sees it.',
      extensions: upstream.fetch(1),
      resolve: (c, _args, ctx, info) =>
        selectsOnlyKeys(info) ? ({ id: c.space } as Space) : getSpace(readerOf(ctx, c), c.space),
    }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      nullable: true,
      description: 'The change request the URL previews (`~/changes/…`).',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) => {
        const id = c.changeRequest;
        if (!id) return null;
        // Key-only stub: read only where the field selects nothing but keys (`linkTo`).
        return linkTo(
          ChangeRequestNode,
          compositeKey(c.space, id),
          info,
          () => ({ id, space: c.space }) as ChangeRequestHeld,
        );
      },
    }),
    revision: t.field({
      type: RevisionNode,
      nullable: true,
      description: 'The revision the URL previews (`~/revisions/…`).',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) =>
        c.revision
          ? linkTo(RevisionNode, compositeKey(c.space, c.revision), info, revisionStub(c.space, c.revision))
          : null,
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page at `pathname` in the content shown (the site space’s home page, or the landing page, for ""); null with NOT_FOUND when no page has that path. Its markdown, when asked, comes in the same read.',
      // The space or change request (for the revision), the site's structure (for a home page), the page.
      extensions: upstream.fetch(3),
      resolve: (c, _args, ctx, info) => publishedPage(ctx, c, info),
    }),
    pathname: t.exposeString('pathname', { description: 'Path of the page inside the site space ("" for its home).' }),
    basePath: t.exposeString('basePath', {
      description: 'Path of the URL up to the site space (with a trailing slash).',
    }),
    siteBasePath: t.exposeString('siteBasePath', {
      description: 'Path of the URL up to the site (and its share key).',
    }),
    canonicalUrl: t.exposeString('canonicalUrl', { description: 'The canonical URL of what it shows.' }),
    complete: t.exposeBoolean('complete', {
      description: 'False while another path segment could still pick a section or site space.',
    }),
    shareKey: t.string({
      nullable: true,
      description: 'Share key the URL carries, for a share-link site.',
      resolve: (c) => c.shareKey ?? null,
    }),
    preview: t.boolean({
      description: 'True for a site that is not published (members only).',
      resolve: (c) => c.preview ?? false,
    }),
    contextId: t.string({
      nullable: true,
      description: 'Changes when the verified visitor’s claims change (for caches).',
      resolve: (c) => c.contextId ?? null,
    }),
    customization: t.field({
      type: SiteCustomization,
      description:
        'The customization the visitor sees there: the site space’s (its overrides over the site’s settings), from the site’s published profile.',
      extensions: upstream.fetch(1),
      resolve: async (c, _args, ctx) => {
        const { profile } = await profileOf(ctx, c);
        return profile.customizations.siteSpaces[c.siteSpace] ?? profile.customizations.site;
      },
    }),
    apiToken: t.exposeString('apiToken', {
      description: 'Short-lived token (one hour) the platform signs for this visitor and content, with their claims.',
    }),
  }),
});

const RedirectTargetEnum = restEnum('ContentRedirectTarget', 'Where a redirect of a published URL goes.', {
  content: 'Another URL of the site: its canonical URL, or where one of its redirects leads.',
  application: 'The platform’s app (sign in to preview).',
  external: 'Outside the platform: the site’s sign-in or fallback URL, or an external redirect of the site.',
} satisfies Record<ContentRedirect['target'], string>);

const ContentRedirectType = builder.objectRef<RedirectHeld>('ContentRedirect').implement({
  description:
    'A published URL that leads elsewhere: the canonical URL, one of the site’s redirects (`Site.redirects`), or sign-in for a visitor without a valid token (with `redirectOnError`).',
  fields: (t) => ({
    target: t.field({
      type: RedirectTargetEnum,
      description: 'What kind of place it leads to.',
      resolve: (r) => r.target,
    }),
    url: t.exposeString('redirect', { description: 'Where to go.' }),
    siteId: t.string({
      nullable: true,
      description:
        'Platform id of the site, for an external redirect. Not a link: the answer does not name the site’s organization, which addresses a site, and the visitor redirected is seldom a member who may read it.',
      resolve: (r) => ('site' in r ? r.site : null),
    }),
  }),
});

const SpaceContentType = builder.objectRef<SpaceContentHeld>('SpaceContent').implement({
  description: 'What an app URL of a space shows: the space, the change request it is in, the page.',
  fields: (t) => ({
    space: t.field({
      type: SpaceNode,
      description: 'The space.',
      resolve: (c, _args, ctx) => {
        prime(SpaceNode, ctx, [c.space]);
        return c.space;
      },
    }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      nullable: true,
      description: 'The change request the URL is in (`~/changes/…`).',
      resolve: (c, _args, ctx) => {
        if (!c.changeRequest) return null;
        prime(ChangeRequestNode, ctx, [c.changeRequest]);
        return c.changeRequest;
      },
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description: 'The page the URL shows, if it names one.',
      resolve: (c) => {
        if (!c.page) return null;
        const revisionId = c.changeRequest?.revision ?? c.space.revision;
        return detachedPage(c.page, c.space.id, revisionId, lightRevision(c.space.id, revisionId, !c.changeRequest));
      },
    }),
  }),
});

const CollectionContentType = builder.objectRef<CollectionContentHeld>('CollectionContent').implement({
  description: 'What an app URL of a collection shows.',
  fields: (t) => ({
    collection: t.field({
      type: CollectionNode,
      description: 'The collection.',
      resolve: (c, _args, ctx) => {
        prime(CollectionNode, ctx, [c.collection]);
        return c.collection;
      },
    }),
  }),
});

const UrlResolution = builder.unionType('UrlResolution', {
  description: 'What a URL shows: published content, a redirect, the content of a space, or a collection.',
  types: [PublishedContentType, ContentRedirectType, SpaceContentType, CollectionContentType],
  resolveType: (value) => value.__typename,
});

const EmbedTypeEnum = restEnum('EmbedType', 'How an embed is shown.', {
  link: 'A link card: title, site, icon.',
  rich: 'HTML to insert.',
  integration: 'A block an integration renders.',
} satisfies Record<Embed['type'], string>);

export const EmbedType = builder.objectRef<Embed>('Embed').implement({
  description: 'How to embed a published page elsewhere, or a URL in a space’s pages (`Space.embed`).',
  fields: (t) => ({
    type: t.field({ type: EmbedTypeEnum, description: 'How it is shown.', resolve: (e) => e.type }),
    title: t.exposeString('title', { description: 'Title of the page (what the URL shows).' }),
    site: t.exposeString('site', {
      description: 'Title of the site (or the provider, or the host, for `Space.embed`).',
    }),
    icon: t.string({
      nullable: true,
      description: 'Icon (an emoji) of the page or its space; for `Space.embed`, the URL of the page’s icon.',
      resolve: (e) => e.icon ?? null,
    }),
    html: t.string({
      nullable: true,
      description: 'HTML to insert, for RICH embeds.',
      resolve: (e) => ('html' in e ? e.html : null),
    }),
  }),
});

// --- Root fields ---------------------------------------------------------------------------------

/**
 * The published lookup's refusals of the visitor, told as such (not as the caller's own auth). A
 * 401 is the caller's own when they sent no credentials, or when the platform refuses theirs
 * (`GET /user`, unless another read of the request passed with them; the content lookup it
 * replaces is not made): UNAUTHENTICATED then, as on every other field.
 */
async function visitorFailure(error: unknown, api: RequestApi): Promise<never> {
  if (isGatewayError(error) && error.upstreamStatus === 401 && (await callerAccepted(api)))
    throw new GatewayError('BAD_USER_INPUT', error.message, { upstreamStatus: 401, field: ['visitor', 'jwtToken'] });
  if (isGatewayError(error) && error.upstreamStatus === 400 && /visitor\.unsignedClaims/.test(error.message)) {
    throw new GatewayError('BAD_USER_INPUT', error.message, {
      upstreamStatus: 400,
      field: ['visitor', 'unsignedClaims'],
    });
  }
  throw error;
}

/** Whether the platform takes the caller's credentials: false without any, or when it refuses them (401). */
async function callerAccepted(api: RequestApi): Promise<boolean> {
  if (!api.authorization?.trim()) return false;
  if (api.usage.accepted) return true;
  return getCurrentUser(api).then(
    () => true,
    (error: unknown) => !(isGatewayError(error) && error.upstreamStatus === 401),
  );
}

builder.queryFields((t) => ({
  resolveUrl: t.field({
    type: UrlResolution,
    nullable: true,
    description:
      'What a URL shows. A published URL is resolved as the visitor given (their token and claims decide what they see; without `visitor`, an anonymous visitor); an app URL of the platform (a collection, space, change request or page) as you. Null with NOT_FOUND when it shows nothing you may see. A refused visitor token is BAD_USER_INPUT on `visitor.jwtToken`, unless `redirectOnError` asks for the sign-in redirect; without credentials of your own, or with credentials the platform refuses, UNAUTHENTICATED.',
    args: {
      url: t.arg.string({ required: true, description: 'The URL (http or https, at most 2048 characters).' }),
      visitor: t.arg({ type: VisitorInput, description: 'Who visits a published URL.' }),
      redirectOnError: t.arg.boolean({
        description: 'A visitor without a valid token gets a redirect to sign in instead of an error.',
      }),
    },
    extensions: upstream.fetch(2),
    resolve: async (_root, args, ctx): Promise<ResolutionHeld> => {
      const url = urlArg.safeParse(args.url);
      if (!url.success) throw new BadUserInputError(`url ${url.error.issues[0]?.message ?? 'is invalid'}`, ['url']);
      const claims =
        args.visitor?.unsignedClaims == null ? undefined : plainClaims.safeParse(args.visitor.unsignedClaims);
      if (claims && !claims.success)
        throw new BadUserInputError('visitor.unsignedClaims must be an object of claims', [
          'visitor',
          'unsignedClaims',
        ]);
      const visitor = args.visitor
        ? {
            ...(args.visitor.jwtToken != null ? { jwtToken: args.visitor.jwtToken } : {}),
            ...(claims?.success ? { unsignedClaims: claims.data } : {}),
            ...(args.visitor.type != null ? { type: args.visitor.type } : {}),
          }
        : undefined;
      try {
        // Without a visitor, the cacheable GET form; a visitor's token never goes into a URL.
        const data = visitor
          ? await resolvePublishedUrlFor(ctx.api, {
              url: url.data,
              visitor,
              ...(args.redirectOnError ? { redirectOnError: true } : {}),
            })
          : await resolvePublishedUrl(ctx.api, { url: url.data, redirectOnError: args.redirectOnError ?? undefined });
        return 'target' in data
          ? { ...(data as ContentRedirect), __typename: 'ContentRedirect' }
          : { ...(data as PublishedContent), __typename: 'PublishedContent' };
      } catch (error) {
        if (!(isGatewayError(error) && error.code === 'NOT_FOUND')) await visitorFailure(error, ctx.api);
      }
      // Not a published URL: an app URL of the platform, resolved for the caller.
      const found = await resolveContentUrl(ctx.api, url.data);
      return 'collection' in found
        ? { collection: found.collection, __typename: 'CollectionContent' }
        : ({ ...found, __typename: 'SpaceContent' } as SpaceContentHeld);
    },
  }),
  embedUrl: t.field({
    type: EmbedType,
    nullable: true,
    description:
      'How to embed the published page at a URL (as an anonymous visitor); null with NOT_FOUND when it shows no page.',
    args: { url: t.arg.string({ required: true, description: 'The published URL of a page.' }) },
    extensions: upstream.fetch(1),
    resolve: (_root, args, ctx) => {
      const url = urlArg.safeParse(args.url);
      if (!url.success) throw new BadUserInputError(`url ${url.error.issues[0]?.message ?? 'is invalid'}`, ['url']);
      return getEmbed(ctx.api, url.data);
    },
  }),
}));
