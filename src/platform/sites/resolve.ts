import { createHash } from 'node:crypto';
import type { Access } from '../access.js';
import { ApiError, badRequest } from '../http.js';
import type { OrganizationRow } from '../rows.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { holds } from '../adaptive/expression.js';
import { unsignedClaimsProblem, type AdaptiveSchema } from './adaptive.js';
import { proxyOf, siteLoginUrl, siteRootUrl, type SiteRow } from './store.js';
import {
  defaultSection,
  defaultVariant,
  loadStructure,
  orderedSections,
  siteSpaceSegments,
  variantsOf,
  type SiteSectionRow,
  type SiteSpaceRow,
  type Structure,
} from './structure.js';
import { activeShareLink, keyFingerprint, signSiteToken, verifyVisitorToken, VisitorTokenError } from './visitors.js';
import { siteRedirectOf } from './redirects.js';
import { siteRole } from './permissions.js';

/**
 * Published URL → (site, section, site space, space) for a visitor, step by step:
 *
 * 1. Normalize: an http(s) URL of at most 2048 characters; repeated and trailing slashes
 *    collapse, segments are percent-decoded (a malformed escape is a 400), the query is ignored.
 * 2. Site: by custom hostname; by proxy origin (host and path prefix); on the platform's own
 *    published address, `/<organization hostname>/<basename>`, or the organization's default site
 *    under `/<organization hostname>/`, or a proxy target `/proxy/<siteId>`. Nothing: 404. An
 *    unpublished site resolves only for members of its organization (`preview`).
 * 3. Access: a `share-link` site needs the key of an active share link as the next segment; a
 *    `visitor-auth` site needs a visitor token signed for it. Without them: a 401 (403 for a
 *    share key), or with `redirectOnError` a redirect to the site's fallback URL (`external`) or
 *    to the app's sign-in (`application`). Unsigned claims must fit the adaptive schema.
 * 4. Redirects: a path under the site that one of its redirects names (live ones; in a preview,
 *    drafts first) is a `content` redirect to the section, site space or page, or an `external`
 *    one (`redirects.ts`).
 * 5. Site path: segments before a `~` segment select a section (by path, else the default) and a
 *    site space of it (by path, else the default), skipping drafts (except in a preview) and
 *    those whose condition is false for the visitor. `~/revisions/<id>` and `~/changes/<id or
 *    number>` preview that revision or change request of the space. The rest is `pathname`.
 * 6. A URL that names a default section or variant the canonical URL leaves out is a `content`
 *    redirect to the canonical URL (query kept).
 */

export interface VisitorPayload {
  type?: 'human' | 'agent';
  jwtToken?: string;
  unsignedClaims?: Record<string, unknown>;
}

export interface ResolveInput {
  /** Where the URL came from, for error messages. */
  from?: 'query' | 'body';
  url: string;
  visitor?: VisitorPayload;
  redirectOnError?: boolean;
}

export type Resolution =
  | { target: 'application' | 'content'; redirect: string }
  | { target: 'external'; site: string; redirect: string }
  | {
      site: string;
      siteSection?: string;
      siteSpace: string;
      space: string;
      changeRequest?: string;
      revision?: string;
      pathname: string;
      basePath: string;
      siteBasePath: string;
      apiToken: string;
      organization: string;
      shareKey?: string;
      complete: boolean;
      contextId?: string;
      canonicalUrl: string;
      preview?: boolean;
    };

export const MAX_URL_LENGTH = 2048;

interface Located {
  site: SiteRow;
  org: OrganizationRow;
  /** Segments of the URL that lead to the site (its basename or proxy path), as written. */
  base: string[];
  /** The segments after them. */
  rest: string[];
}

/** Splits and decodes a URL's path; a malformed escape is a 400. */
export function urlSegments(url: URL): string[] {
  return url.pathname
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => {
      let value = segment;
      // Two passes at most: a doubly encoded path still reads, a third layer stays as it is.
      for (let pass = 0; pass < 2 && /%[0-9A-Fa-f]{2}/.test(value); pass += 1) {
        try {
          value = decodeURIComponent(value);
        } catch {
          throw badRequest('URL path is malformed');
        }
      }
      if (/%(?![0-9A-Fa-f]{2})/.test(segment)) throw badRequest('URL path is malformed');
      return value;
    })
    .filter((segment) => segment !== '');
}

export function parseUrl(raw: string, where: 'query' | 'body' = 'query'): URL {
  if (raw.length > MAX_URL_LENGTH) throw badRequest(`URL is too long (more than ${MAX_URL_LENGTH} characters)`);
  const url = URL.parse(raw);
  if (!url) throw badRequest(`Invalid ${where} field "url": is not an absolute URL`);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw badRequest(`Invalid ${where} field "url": must be an http or https URL`);
  return url;
}

const lower = (value: string) => value.toLowerCase();

/** Finds the site a URL points at, or undefined. */
function locate(db: Db, links: Links, url: URL, member: (orgId: string) => boolean): Located | undefined {
  const host = lower(url.hostname);
  const segments = urlSegments(url);
  const byHostname = db.prepare('SELECT * FROM sites WHERE hostname = ?').get(host) as SiteRow | undefined;
  const orgOf = (site: SiteRow) =>
    db.prepare('SELECT * FROM organizations WHERE id = ?').get(site.org_id) as OrganizationRow;
  if (byHostname) return { site: byHostname, org: orgOf(byHostname), base: [], rest: segments };

  // Proxy origins whose host is this one (compared exactly: a host may hold `_` or `%`).
  const proxied = db
    .prepare("SELECT * FROM sites WHERE proxy IS NOT NULL AND instr(lower(json_extract(proxy, '$.origin')), ?) = 1")
    .all(`${host}/`) as SiteRow[];
  for (const site of proxied.sort((a, b) => proxyOf(b)!.origin.length - proxyOf(a)!.origin.length)) {
    const prefix = proxyOf(site)!.origin.split('/').slice(1).map(lower);
    if (prefix.every((segment, index) => lower(segments[index] ?? '') === segment)) {
      return { site, org: orgOf(site), base: segments.slice(0, prefix.length), rest: segments.slice(prefix.length) };
    }
  }

  const published = new URL(links.published);
  if (lower(published.host) !== lower(url.host)) return undefined;
  const mount = urlSegments(published);
  if (!mount.every((segment, index) => segments[index] === segment)) return undefined;
  const [first, second, ...after] = segments.slice(mount.length);
  if (!first) return undefined;
  if (first === 'proxy' && second) {
    const site = db.prepare('SELECT * FROM sites WHERE id = ?').get(second) as SiteRow | undefined;
    return site ? { site, org: orgOf(site), base: [...mount, first, second], rest: after } : undefined;
  }
  const org = db
    .prepare('SELECT * FROM organizations WHERE lower(hostname) = ? OR id = ? ORDER BY hostname IS NULL LIMIT 1')
    .get(lower(first), first) as OrganizationRow | undefined;
  if (!org) return undefined;
  if (second) {
    const site = db
      .prepare('SELECT * FROM sites WHERE org_id = ? AND lower(basename) = ?')
      .get(org.id, lower(second)) as SiteRow | undefined;
    // A site the reader cannot see (unpublished, not a member) leaves the path to the default site.
    if (site && (site.published === 1 || member(org.id)))
      return { site, org, base: [...mount, first, second], rest: after };
  }
  const fallback = org.default_content ? (JSON.parse(org.default_content) as { site?: string }).site : undefined;
  const site = fallback
    ? (db.prepare('SELECT * FROM sites WHERE id = ? AND org_id = ?').get(fallback, org.id) as SiteRow | undefined)
    : undefined;
  return site ? { site, org, base: [...mount, first], rest: second ? [second, ...after] : [] } : undefined;
}

/** What a reader sees of a structure: drafts only in a preview, conditions against the claims. */
function visibleTo(s: Structure, claims: Record<string, unknown>, preview: boolean) {
  const shown = (item: { draft: number; condition: string | null }) => {
    if (item.draft === 1 && !preview) return false;
    if (!item.condition) return true;
    try {
      return holds(item.condition, { visitor: { claims } });
    } catch {
      return false;
    }
  };
  const groupShown = (groupId: string | null): boolean => {
    if (groupId === null) return true;
    const group = s.groups.find((row) => row.id === groupId);
    return !!group && (group.draft === 0 || preview) && groupShown(group.parent_id);
  };
  const variants = (sectionId: string | null) => variantsOf(s, sectionId).filter(shown);
  // A section shows only with something to show: one of its site spaces (whose space may be deleted).
  const sections = orderedSections(s).filter(
    (row) => shown(row) && groupShown(row.group_id) && variants(row.id).length > 0,
  );
  return { sections, variants, groupShown, shown };
}

/**
 * The structure as one reader sees it: without drafts (unless `preview`), without sections,
 * site spaces and external links whose condition is false for their claims, without sections
 * left empty, and without groups left with nothing in them.
 */
export function readerView(s: Structure, claims: Record<string, unknown>, preview = false): Structure {
  const visible = visibleTo(s, claims, preview);
  const sections = s.sections.filter((row) => visible.sections.some((shown) => shown.id === row.id));
  const siteSpaces = [
    ...(sections.length || s.groups.length ? [] : visible.variants(null)),
    ...sections.flatMap((row) => visible.variants(row.id)),
  ];
  const links = s.links.filter((row) => visible.shown(row) && visible.groupShown(row.group_id));
  const keptGroups = new Set<string>();
  for (const item of [...sections, ...links]) {
    for (let at = item.group_id; at; at = s.groups.find((group) => group.id === at)?.parent_id ?? null)
      keptGroups.add(at);
  }
  const groups = s.groups.filter((row) => keptGroups.has(row.id) && visible.groupShown(row.id));
  return {
    ...s,
    sections,
    groups,
    links,
    siteSpaces: s.siteSpaces.filter((row) => siteSpaces.some((shown) => shown.id === row.id)),
  };
}

function fail(
  error: ApiError,
  input: ResolveInput,
  located: Located,
  links: Links,
  reason: 'auth' | 'share',
): Resolution {
  if (!input.redirectOnError || reason === 'share') throw error;
  // To the site's fallback URL, else to its sign-in, with where the visitor was going.
  const target = new URL(located.site.auth_fallback_url ?? siteLoginUrl(located.site, located.org, links));
  target.searchParams.set('location', `/${located.rest.join('/')}`);
  return { target: 'external', site: located.site.id, redirect: target.toString() };
}

/** Resolves a published URL for a visitor (see the steps above). */
export async function resolvePublishedUrl(
  db: Db,
  links: Links,
  access: Access,
  input: ResolveInput,
): Promise<Resolution> {
  const url = parseUrl(input.url, input.from ?? 'query');
  const isMember = (orgId: string) => {
    const role = access.orgRole(orgId);
    return role !== undefined && role !== null;
  };
  const located = locate(db, links, url, isMember);
  if (!located) throw new ApiError(404, 'No content found for the URL.');
  const { site, org } = located;
  const member = Boolean(siteRole(access, site));
  if (site.published !== 1 && !member) throw new ApiError(404, 'No content found for the URL.');
  const preview = site.published !== 1;

  let rest = located.rest;
  let shareKey: string | undefined;
  if (site.visibility === 'share-link') {
    const link = activeShareLink(db, site.id, rest[0]);
    if (!link)
      return fail(new ApiError(403, 'Authentication missing to access this content'), input, located, links, 'share');
    shareKey = link.key;
    rest = rest.slice(1);
  }

  let claims: Record<string, unknown> = {};
  let authenticated = false;
  let notAfter: number | undefined;
  const token = input.visitor?.jwtToken;
  if (token) {
    try {
      ({ claims, exp: notAfter } = await verifyVisitorToken(db, site, token));
      authenticated = true;
    } catch (error) {
      if (!(error instanceof VisitorTokenError)) throw error;
      return fail(new ApiError(401, error.message), input, { ...located, rest }, links, 'auth');
    }
  } else if (site.visibility === 'visitor-auth') {
    return fail(
      new ApiError(401, 'Authentication missing to access this content'),
      input,
      { ...located, rest },
      links,
      'auth',
    );
  }
  const unsigned = input.visitor?.unsignedClaims;
  if (unsigned && Object.keys(unsigned).length) {
    const schema = site.adaptive_schema ? (JSON.parse(site.adaptive_schema) as AdaptiveSchema) : null;
    const problem = unsignedClaimsProblem(schema, unsigned);
    if (problem) throw badRequest(`Invalid body field "visitor.unsignedClaims": ${problem}`);
    claims = { ...claims, unsigned };
  }

  // The site's redirects, before its structure: live ones, and drafts in a preview.
  if (!rest.some((segment) => segment.startsWith('~'))) {
    const redirect = siteRedirectOf(db, links, { site, org, rest, preview, shareKey }, url);
    if (redirect?.external) return { target: 'external', site: site.id, redirect: redirect.url };
    if (redirect) return { target: 'content', redirect: redirect.url };
  }

  // Segments before a `~` segment address the site; `~/revisions/<id>` and `~/changes/<id>` a preview.
  const tilde = rest.findIndex((segment) => segment.startsWith('~'));
  const sitePart = tilde < 0 ? rest : rest.slice(0, tilde);
  let special = tilde < 0 ? [] : rest.slice(tilde);
  let previewOf: { kind: 'revisions' | 'changes'; id: string } | undefined;
  if (special[0] === '~' && (special[1] === 'revisions' || special[1] === 'changes') && special[2]) {
    previewOf = { kind: special[1], id: special[2] };
    special = special.slice(3);
  }

  const s = loadStructure(db, site);
  const visible = visibleTo(s, claims, preview);
  let consumed = 0;
  let section: SiteSectionRow | undefined;
  let explicitSection = false;
  const sectioned = s.sections.length > 0 || s.groups.length > 0;
  if (sectioned) {
    const named =
      sitePart[0] === undefined ? undefined : visible.sections.find((row) => lower(row.path) === lower(sitePart[0]!));
    if (named) {
      section = named;
      explicitSection = true;
      consumed = 1;
    } else {
      const fallback = defaultSection(s);
      section = visible.sections.find((row) => row.id === fallback?.id) ?? visible.sections[0];
    }
    if (!section) throw new ApiError(404, 'No content found for the URL.');
  }
  const variants = visible.variants(section?.id ?? null);
  const namedVariant =
    sitePart[consumed] === undefined
      ? undefined
      : variants.find((row) => lower(row.path) === lower(sitePart[consumed]!));
  let siteSpace: SiteSpaceRow | undefined;
  let explicitVariant = false;
  if (namedVariant) {
    siteSpace = namedVariant;
    explicitVariant = true;
    consumed += 1;
  } else {
    const fallback = defaultVariant(s, section?.id ?? null);
    siteSpace = variants.find((row) => row.id === fallback?.id) ?? variants[0];
  }
  if (!siteSpace) throw new ApiError(404, 'No content found for the URL.');
  const space = s.spaces.get(siteSpace.space_id)!;

  let changeRequest: string | undefined;
  let revision: string | undefined;
  // Previews of change requests and revisions are for members: others sign in to the app first.
  if (previewOf && !member) {
    if (!input.redirectOnError) throw new ApiError(404, 'No content found for the URL.');
    const signIn = new URL(`${links.app}/o/${org.id}/sites/${site.id}/preview/auth`);
    signIn.searchParams.set('location', `/${rest.join('/')}`);
    return { target: 'application', redirect: signIn.toString() };
  }
  if (previewOf?.kind === 'changes') {
    const row = db
      .prepare('SELECT id FROM change_requests WHERE space_id = ? AND (id = ? OR CAST(number AS TEXT) = ?)')
      .pluck(true)
      .get(space.id, previewOf.id, previewOf.id) as string | undefined;
    if (!row) throw new ApiError(404, 'No content found for the URL.');
    changeRequest = row;
  } else if (previewOf?.kind === 'revisions') {
    const row = db
      .prepare('SELECT id FROM revisions WHERE space_id = ? AND id = ?')
      .pluck(true)
      .get(space.id, previewOf.id) as string | undefined;
    if (!row) throw new ApiError(404, 'No content found for the URL.');
    revision = row;
  }

  const pageSegments = [...sitePart.slice(consumed), ...special];
  const pathname = pageSegments.join('/');
  const encode = (segments: string[]) => segments.map(encodeURIComponent);
  const siteBase = [...located.base, ...(shareKey ? [shareKey] : [])];
  const siteBasePath = `/${encode(siteBase)
    .map((segment) => `${segment}/`)
    .join('')}`;
  const previewSegments = previewOf ? ['~', previewOf.kind, previewOf.id] : [];
  const written = [...sitePart.slice(0, consumed), ...previewSegments];
  const basePath = `${siteBasePath}${encode(written)
    .map((segment) => `${segment}/`)
    .join('')}`;
  const canonicalSite = [...siteSpaceSegments(s, siteSpace), ...previewSegments];
  const root =
    siteRootUrl(site, org, links) +
    encode(shareKey ? [shareKey] : [])
      .map((segment) => `${segment}/`)
      .join('');
  const canonicalUrl = `${root}${encode([...canonicalSite, ...pageSegments]).join('/')}`.replace(/\/$/, '') || root;

  // Naming a default the canonical URL leaves out: the canonical URL instead.
  const canonicalLength = siteSpaceSegments(s, siteSpace).length;
  if ((explicitSection || explicitVariant) && consumed > canonicalLength) {
    return { target: 'content', redirect: `${canonicalUrl}${url.search}` };
  }

  const more = sectioned
    ? (!explicitSection && visible.sections.length > 1) || (!explicitVariant && variants.length > 1)
    : !explicitVariant && variants.length > 1;
  const complete = pathname !== '' || !more;
  const apiToken = await signSiteToken(
    db,
    {
      kind: 'site',
      organization: org.id,
      site: site.id,
      ...(section ? { siteSection: section.id } : {}),
      siteSpace: siteSpace.id,
      space: space.id,
      spaces: [space.id],
      visitorType: input.visitor?.type ?? 'human',
      claims,
      ...(shareKey ? { shareKey } : {}),
      ...(authenticated ? { keys: keyFingerprint(site) } : {}),
      ...(preview ? { preview: true } : {}),
    },
    notAfter,
  );
  return {
    site: site.id,
    ...(section ? { siteSection: section.id } : {}),
    siteSpace: siteSpace.id,
    space: space.id,
    ...(changeRequest ? { changeRequest } : {}),
    ...(revision ? { revision } : {}),
    pathname,
    basePath,
    siteBasePath,
    apiToken,
    organization: org.id,
    ...(shareKey ? { shareKey } : {}),
    complete,
    ...(authenticated
      ? { contextId: createHash('sha256').update(JSON.stringify(claims)).digest('base64url').slice(0, 22) }
      : {}),
    canonicalUrl,
    ...(preview ? { preview: true } : {}),
  };
}
