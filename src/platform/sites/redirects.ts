import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Role } from '../access.js';
import {
  badRequest,
  booleanParam,
  conflict,
  describeIssue,
  laterThan,
  newId,
  notFound,
  now,
  overLimit,
  pageOf,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
  sendDeleted,
  type PageWindow,
} from '../http.js';
import type { Links } from '../links.js';
import type { OrganizationRow } from '../rows.js';
import { declareTables, type Db } from '../store/db.js';
import { loadRevision } from '../content/revisions.js';
import { pageByPath, pageIndex } from '../content/pages.js';
import { siteRootUrl, touchSite, type SiteRow } from './store.js';
import { loadStructure, sectionSegments, siteSpaceSegments, type Structure } from './structure.js';
import { activeShareLink, readableWithoutMembership } from './visitors.js';
import { requireSiteRole, siteRole } from './permissions.js';

/**
 * Redirects of a docs site: a source path under the site's root, exact or ending with a wildcard
 * (`/old/*`, `/old*`), to a section, a site space, a page of a site space, or an external URL.
 * A source has at most one live and one draft redirect; live ones apply to the published site,
 * draft ones (before the live ones) where an unpublished site is previewed, until published.
 * A path finds its redirect exactly first, then by the longest wildcard prefix; with
 * `captureWildcard`, what the wildcard matched is appended to the destination.
 */

// A source has at most one live and one draft redirect; `match_key` is the source as URLs are
// compared (decoded, lowercase) and is what is unique, so that two spellings of one path cannot both
// be stored. The first migration leaves the table of a database that had it from the core's list.
declareTables('site-redirects', [
  `
  CREATE TABLE IF NOT EXISTS site_redirects (
    id TEXT PRIMARY KEY,
    site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
    source TEXT NOT NULL,
    match_key TEXT NOT NULL,
    wildcard INTEGER NOT NULL CHECK (wildcard IN (0, 1)),
    draft INTEGER NOT NULL CHECK (draft IN (0, 1)),
    capture_wildcard INTEGER NOT NULL DEFAULT 0,
    permanent INTEGER NOT NULL DEFAULT 0,
    destination TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT,
    UNIQUE (site_id, match_key, draft)
  );
  CREATE INDEX IF NOT EXISTS site_redirects_by_site ON site_redirects(site_id, draft, wildcard);
  `,
]);

// ---------------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------------

/** The description's pattern of a source: segments of unreserved characters or escapes, a trailing `*` at most. */
const SOURCE_PATTERN =
  /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;
export const MAX_SOURCE_LENGTH = 512;
/** Redirects one bulk upsert takes. */
export const MAX_BULK_REDIRECTS = 500;

/** Repeated slashes collapse, a trailing slash goes, escapes are upper case: one spelling per path. */
function normalizeSource(raw: string): string {
  const collapsed = raw.trim().replace(/\/{2,}/g, '/');
  const trimmed = collapsed.length > 1 ? collapsed.replace(/\/$/, '') : collapsed;
  return trimmed.replace(/%[0-9a-f]{2}/gi, (code) => code.toUpperCase());
}

const sourceInput = z
  .string({ message: 'must be a path' })
  .max(MAX_SOURCE_LENGTH, `must be at most ${MAX_SOURCE_LENGTH} characters`)
  .transform(normalizeSource)
  .refine((value) => value.startsWith('/'), 'must start with /')
  .refine(
    (value) => SOURCE_PATTERN.test(value),
    'must be a path of letters, digits, "-", ".", "_", "~", "+" or %-escapes, with at most a trailing wildcard (/* or *)',
  );

/** Decodes a segment as the URL resolution does; an escape that is no UTF-8 stays as written. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** How a source is compared with URLs: decoded, lower case (the wildcard kept). */
function matchKey(source: string): string {
  return source.split('/').map(decodeSegment).join('/').toLowerCase();
}

// ---------------------------------------------------------------------------------------------
// Destinations
// ---------------------------------------------------------------------------------------------

export type Destination =
  | { kind: 'site-section'; siteSectionId: string }
  | { kind: 'site-space'; siteSpaceId: string }
  | { kind: 'site-page'; siteSpaceId: string; pageId: string }
  | { kind: 'external'; url: string };
type DestinationInput = Destination | { kind: 'path'; spaceId: string; path: string };

const id = z.string().min(1, 'is required').max(100, 'must be at most 100 characters');
const externalUrl = z
  .string()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');
const destinations = [
  z.strictObject({ kind: z.literal('site-section'), siteSectionId: id }),
  z.strictObject({ kind: z.literal('site-space'), siteSpaceId: id }),
  z.strictObject({ kind: z.literal('site-page'), siteSpaceId: id, pageId: id }),
  z.strictObject({ kind: z.literal('external'), url: externalUrl }),
] as const;
const kindMessage = (kinds: string) => ({ message: `must be a destination of kind ${kinds}` });
const destinationInput = z.discriminatedUnion(
  'kind',
  [
    ...destinations,
    z.strictObject({
      kind: z.literal('path'),
      spaceId: id,
      path: z.string().max(1000, 'must be at most 1000 characters'),
    }),
  ],
  kindMessage('site-section, site-space, site-page, external or path'),
);
const storedDestinationInput = z.discriminatedUnion(
  'kind',
  [...destinations],
  kindMessage('site-section, site-space, site-page or external'),
);

/** The page of a site space with `pageId`, with its path, in the space's current content. */
function pageOfSiteSpace(db: Db, s: Structure, siteSpaceId: string, pageId: string) {
  const row = s.siteSpaces.find((item) => item.id === siteSpaceId);
  const space = row && s.spaces.get(row.space_id);
  const revision = space && loadRevision(db, space.id, space.revision);
  const placed = revision ? pageIndex(revision.content).byId.get(pageId) : undefined;
  return row && placed?.path !== undefined ? { row, path: placed.path } : undefined;
}

/**
 * Checks that what a destination names is in the site (a page: in its site space's current
 * content), and turns a `path` destination into the page it names; a 400 naming `field` otherwise.
 */
function checkDestination(db: Db, s: Structure, input: DestinationInput, field: string): Destination {
  const refuse = (name: string, reason: string) => badRequest(`Invalid body field "${field}.${name}": ${reason}`);
  switch (input.kind) {
    case 'site-section':
      if (!s.sections.some((row) => row.id === input.siteSectionId))
        throw refuse('siteSectionId', `no section ${input.siteSectionId} in the site`);
      return input;
    case 'site-space':
      if (!s.siteSpaces.some((row) => row.id === input.siteSpaceId))
        throw refuse('siteSpaceId', `no site space ${input.siteSpaceId} in the site`);
      return input;
    case 'site-page':
      if (!s.siteSpaces.some((row) => row.id === input.siteSpaceId))
        throw refuse('siteSpaceId', `no site space ${input.siteSpaceId} in the site`);
      if (!pageOfSiteSpace(db, s, input.siteSpaceId, input.pageId))
        throw refuse('pageId', `no page ${input.pageId} in the site space ${input.siteSpaceId}`);
      return input;
    case 'external':
      return input;
    case 'path': {
      // The site space showing the space: a live one before a draft.
      const row = [...s.siteSpaces].sort((a, b) => a.draft - b.draft).find((item) => item.space_id === input.spaceId);
      if (!row) throw refuse('spaceId', `no site space of space ${input.spaceId} in the site`);
      const space = s.spaces.get(row.space_id)!;
      const revision = loadRevision(db, space.id, space.revision);
      const placed = revision ? pageByPath(pageIndex(revision.content), input.path) : undefined;
      if (!placed) throw refuse('path', `no page at ${JSON.stringify(input.path)} in space ${input.spaceId}`);
      return { kind: 'site-page', siteSpaceId: row.id, pageId: placed.page.id };
    }
  }
}

/**
 * The published URL of a destination (under the share key, if given), or undefined when what it
 * names is no longer in the site: such a redirect does not apply.
 */
function destinationUrl(db: Db, s: Structure, org: OrganizationRow, links: Links, to: Destination, shareKey?: string) {
  if (to.kind === 'external') return to.url;
  const root = siteRootUrl(s.site, org, links) + (shareKey ? `${encodeURIComponent(shareKey)}/` : '');
  let segments: string[];
  if (to.kind === 'site-section') {
    const section = s.sections.find((row) => row.id === to.siteSectionId);
    if (!section) return undefined;
    segments = sectionSegments(s, section);
  } else if (to.kind === 'site-space') {
    const row = s.siteSpaces.find((item) => item.id === to.siteSpaceId);
    if (!row) return undefined;
    segments = siteSpaceSegments(s, row);
  } else {
    const found = pageOfSiteSpace(db, s, to.siteSpaceId, to.pageId);
    if (!found) return undefined;
    segments = [...siteSpaceSegments(s, found.row), ...found.path.split('/')];
  }
  return root + segments.map(encodeURIComponent).join('/');
}

/** Appends what a wildcard matched: after a `/` for a `/*` source, as it is for a bare `*`. */
function withSuffix(target: string, source: string, suffix: string): string {
  if (!suffix) return target;
  const url = new URL(target);
  const encoded = suffix.split('/').map(encodeURIComponent).join('/');
  url.pathname = source.endsWith('/*') ? `${url.pathname.replace(/\/$/, '')}/${encoded}` : url.pathname + encoded;
  return url.toString();
}

// ---------------------------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------------------------

export interface RedirectRow {
  id: string;
  site_id: string;
  source: string;
  match_key: string;
  wildcard: number;
  draft: number;
  capture_wildcard: number;
  permanent: number;
  destination: string;
  created_at: string;
  updated_at: string | null;
}

export interface RedirectFields {
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: Destination;
}

export function redirectJson(row: RedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: row.id,
    source: row.source,
    draft: row.draft === 1,
    captureWildcard: row.capture_wildcard === 1,
    permanent: row.permanent === 1,
    destination: JSON.parse(row.destination) as Destination,
    createdAt: row.created_at,
    ...(row.updated_at ? { updatedAt: row.updated_at } : {}),
  };
}

const findById = (db: Db, siteId: string, redirectId: string) =>
  db.prepare('SELECT * FROM site_redirects WHERE site_id = ? AND id = ?').get(siteId, redirectId) as
    | RedirectRow
    | undefined;

const findBySource = (db: Db, siteId: string, source: string, draft: boolean) =>
  db
    .prepare('SELECT * FROM site_redirects WHERE site_id = ? AND match_key = ? AND draft = ?')
    .get(siteId, matchKey(source), Number(draft)) as RedirectRow | undefined;

/** Stores a new redirect of a site, as given (checked by the caller). */
export function insertRedirect(db: Db, siteId: string, fields: RedirectFields): RedirectRow {
  const row: RedirectRow = {
    id: newId(),
    site_id: siteId,
    source: fields.source,
    match_key: matchKey(fields.source),
    wildcard: Number(fields.source.endsWith('*')),
    draft: Number(fields.draft),
    capture_wildcard: Number(fields.captureWildcard),
    permanent: Number(fields.permanent),
    destination: JSON.stringify(fields.destination),
    created_at: now(),
    updated_at: null,
  };
  db.prepare(
    `INSERT INTO site_redirects (id, site_id, source, match_key, wildcard, draft, capture_wildcard, permanent,
       destination, created_at) VALUES (@id, @site_id, @source, @match_key, @wildcard, @draft, @capture_wildcard,
       @permanent, @destination, @created_at)`,
  ).run(row);
  return row;
}

function writeRedirect(db: Db, row: RedirectRow, fields: RedirectFields): RedirectRow {
  const updated: RedirectRow = {
    ...row,
    source: fields.source,
    match_key: matchKey(fields.source),
    wildcard: Number(fields.source.endsWith('*')),
    draft: Number(fields.draft),
    capture_wildcard: Number(fields.captureWildcard),
    permanent: Number(fields.permanent),
    destination: JSON.stringify(fields.destination),
    updated_at: laterThan(row.updated_at ?? row.created_at),
  };
  db.prepare(
    `UPDATE site_redirects SET source = @source, match_key = @match_key, wildcard = @wildcard, draft = @draft,
       capture_wildcard = @capture_wildcard, permanent = @permanent, destination = @destination,
       updated_at = @updated_at WHERE id = @id`,
  ).run(updated);
  return updated;
}

const fieldsOf = (row: RedirectRow): RedirectFields => ({
  source: row.source,
  draft: row.draft === 1,
  captureWildcard: row.capture_wildcard === 1,
  permanent: row.permanent === 1,
  destination: JSON.parse(row.destination) as Destination,
});

const deleteRow = (db: Db, id: string) => db.prepare('DELETE FROM site_redirects WHERE id = ?').run(id).changes > 0;

const ORDERS = {
  createdAt: 'created_at DESC, id',
  updatedAt: 'COALESCE(updated_at, created_at) DESC, id',
  source: 'source, id',
} as const;

/** One page of a site's live (or draft) redirects, whose source contains `search` (any case). */
function listRedirects(
  db: Db,
  siteId: string,
  filter: { draft: boolean; search?: string | undefined; orderBy: keyof typeof ORDERS },
  window: PageWindow,
) {
  const where = ['site_id = ?', 'draft = ?'];
  const params: unknown[] = [siteId, Number(filter.draft)];
  if (filter.search) {
    where.push("(lower(source) LIKE ? ESCAPE '\\' OR match_key LIKE ? ESCAPE '\\')");
    const needle = `%${filter.search.toLowerCase().replace(/[\\%_]/g, '\\$&')}%`;
    params.push(needle, needle);
  }
  const count = db
    .prepare(`SELECT COUNT(*) FROM site_redirects WHERE ${where.join(' AND ')}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(
      `SELECT * FROM site_redirects WHERE ${where.join(' AND ')} ORDER BY ${ORDERS[filter.orderBy]} LIMIT ? OFFSET ?`,
    )
    .all(...params, window.limit, window.offset) as RedirectRow[];
  return pageOf(rows.map(redirectJson), count, window);
}

// ---------------------------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------------------------

/**
 * The redirect of a path (decoded segments under the site's root): exact first, then the longest
 * wildcard prefix; `preview` also reads draft redirects, which come before live ones. Answers the
 * redirect and what its wildcard matched (as written in the path).
 */
function matchRedirect(db: Db, siteId: string, segments: readonly string[], preview: boolean) {
  const path = `/${segments.join('/')}`;
  const key = path.toLowerCase();
  const drafts = preview ? [0, 1] : [0];
  const marks = drafts.map(() => '?').join(', ');
  const exact = db
    .prepare(
      `SELECT * FROM site_redirects WHERE site_id = ? AND draft IN (${marks}) AND wildcard = 0 AND match_key = ?
       ORDER BY draft DESC LIMIT 1`,
    )
    .get(siteId, ...drafts, key) as RedirectRow | undefined;
  if (exact) return { row: exact, suffix: '' };
  // `/old/*` also matches `/old`: the path is compared with a trailing slash.
  const prefixed = db
    .prepare(
      `SELECT * FROM site_redirects WHERE site_id = ? AND draft IN (${marks}) AND wildcard = 1
         AND instr(?, substr(match_key, 1, length(match_key) - 1)) = 1
       ORDER BY length(match_key) DESC, draft DESC LIMIT 1`,
    )
    .get(siteId, ...drafts, `${key}/`) as RedirectRow | undefined;
  if (!prefixed) return undefined;
  const suffix = `${path}/`.slice(prefixed.match_key.length - 1).replace(/\/$/, '');
  return { row: prefixed, suffix };
}

/** Where a redirect row sends a path, or undefined when its destination is no longer in the site. */
function targetOf(
  db: Db,
  s: Structure,
  org: OrganizationRow,
  links: Links,
  found: { row: RedirectRow; suffix: string },
  shareKey?: string,
): { url: string; external: boolean } | undefined {
  const destination = JSON.parse(found.row.destination) as Destination;
  const url = destinationUrl(db, s, org, links, destination, shareKey);
  if (url === undefined) return undefined;
  return {
    url: found.row.capture_wildcard === 1 ? withSuffix(url, found.row.source, found.suffix) : url,
    external: destination.kind === 'external',
  };
}

const comparable = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host.toLowerCase()}${parsed.pathname.replace(/\/$/, '')}`;
};

/**
 * The redirect a published URL's path under the site (`rest`: decoded segments after the site's
 * address and share key) leads to, for the URL resolution: undefined when none applies, or when
 * it would lead back to the URL itself.
 */
export function siteRedirectOf(
  db: Db,
  links: Links,
  at: { site: SiteRow; org: OrganizationRow; rest: readonly string[]; preview: boolean; shareKey?: string | undefined },
  requested: URL,
): { url: string; external: boolean } | undefined {
  if (at.rest.length === 0) return undefined;
  const found = matchRedirect(db, at.site.id, at.rest, at.preview);
  if (!found) return undefined;
  const target = targetOf(db, loadStructure(db, at.site), at.org, links, found, at.shareKey);
  if (!target || comparable(target.url) === comparable(requested.toString())) return undefined;
  return target;
}

// ---------------------------------------------------------------------------------------------
// Bulk upsert
// ---------------------------------------------------------------------------------------------

const publishItem = z.strictObject({ source: sourceInput, intent: z.literal('publish') });
const upsertItem = z.strictObject({
  source: sourceInput,
  intent: z.enum(['live', 'draft'], { message: 'must be live, draft or publish' }).optional(),
  captureWildcard: z.boolean().optional(),
  permanent: z.boolean().optional(),
  destination: destinationInput.nullable(),
});
type BulkItem = z.infer<typeof publishItem> | z.infer<typeof upsertItem>;
type BulkResult =
  | { status: 'created' | 'updated' | 'published'; source: string; draft: boolean; id: string }
  | { status: 'deleted'; source: string; draft: boolean }
  | { status: 'error'; source: string; draft: boolean; error: string };

/** Parses the items of a bulk upsert, each by its intent; a malformed one is a 400 naming it. */
function parseBulkItems(body: unknown): BulkItem[] {
  const items = (body as { redirects?: unknown } | null)?.redirects;
  if (Array.isArray(items) && items.length > MAX_BULK_REDIRECTS) {
    throw overLimit(
      `Invalid body field "redirects": at most ${MAX_BULK_REDIRECTS} redirects per request, got ${items.length}`,
      { limit: 'redirects', value: items.length, max: MAX_BULK_REDIRECTS },
      400,
    );
  }
  const { redirects } = parseBody(
    z.strictObject({ redirects: z.array(z.unknown()).min(1, 'must hold at least one redirect') }),
    body,
  );
  return redirects.map((item, index) => {
    const intent = (item as { intent?: unknown } | null)?.intent;
    const parsed = (intent === 'publish' ? publishItem : upsertItem).safeParse(item);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((issue) => ({ ...issue, path: ['redirects', index, ...issue.path] }));
    throw badRequest(describeIssue(new z.ZodError(issues), 'body'));
  });
}

/** One item of a bulk upsert, within the caller's transaction; what it cannot do is its `error`. */
function applyBulkItem(db: Db, s: Structure, item: BulkItem, index: number): BulkResult {
  const { source } = item;
  if (item.intent === 'publish') {
    const draft = findBySource(db, s.site.id, source, true);
    if (!draft) return { status: 'error', source, draft: true, error: `No draft redirect for ${source}` };
    const live = findBySource(db, s.site.id, source, false);
    if (live) deleteRow(db, live.id);
    const published = writeRedirect(db, draft, { ...fieldsOf(draft), draft: false });
    return { status: 'published', source, draft: false, id: published.id };
  }
  const draft = item.intent === 'draft';
  const existing = findBySource(db, s.site.id, source, draft);
  if (item.destination === null) {
    if (!existing)
      return { status: 'error', source, draft, error: `No ${draft ? 'draft' : 'live'} redirect for ${source}` };
    deleteRow(db, existing.id);
    return { status: 'deleted', source, draft };
  }
  let destination: Destination;
  try {
    destination = checkDestination(db, s, item.destination, `redirects.${index}.destination`);
  } catch (error) {
    return { status: 'error', source, draft, error: (error as Error).message };
  }
  const fields: RedirectFields = {
    source,
    draft,
    captureWildcard: item.captureWildcard ?? false,
    permanent: item.permanent ?? (existing ? existing.permanent === 1 : false),
    destination,
  };
  if (existing) return { status: 'updated', source, draft, id: writeRedirect(db, existing, fields).id };
  return { status: 'created', source, draft, id: insertRedirect(db, s.site.id, fields).id };
}

// ---------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------

type SiteParams = { organizationId: string; siteId: string };
type RedirectParams = SiteParams & { siteRedirectId: string };

const createBody = z.strictObject({
  source: sourceInput,
  captureWildcard: z.boolean().optional(),
  draft: z.boolean().optional(),
  permanent: z.boolean().optional(),
  destination: destinationInput,
});
const updateBody = z
  .strictObject({
    source: sourceInput.optional(),
    captureWildcard: z.boolean().optional(),
    draft: z.boolean().optional(),
    permanent: z.boolean().optional(),
    destination: storedDestinationInput.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), 'must set at least one field');
const listQuery = z.object({
  ...pageParams,
  search: z.string().max(MAX_SOURCE_LENGTH, `must be at most ${MAX_SOURCE_LENGTH} characters`).optional(),
  draft: booleanParam.optional(),
  orderBy: z
    .enum(['createdAt', 'updatedAt', 'source'], { message: 'must be createdAt, updatedAt or source' })
    .optional(),
});
const bySourceQuery = z.object({
  source: z.string({ message: 'is required' }).pipe(sourceInput),
  shareKey: z.string().max(100).optional(),
});

const taken = (source: string, draft: boolean) =>
  conflict(`A ${draft ? 'draft' : 'live'} redirect for ${source} already exists`);

/**
 * The redirects of a docs site: members read them, creators write them (as the site's structure);
 * a redirect by its source is also read by those who may visit the published site.
 */
export function siteRedirectRoutes(app: FastifyInstance): void {
  const siteOf = (request: FastifyRequest, params: SiteParams, min: Role) => {
    const { org, site } = requireSiteRole(request.ctx.access, params.organizationId, params.siteId, min);
    return { org, site, s: loadStructure(request.ctx.db, site) };
  };

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/redirects', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { site } = siteOf(request, request.params, 'read');
    return listRedirects(
      request.ctx.db,
      site.id,
      { draft: query.draft ?? false, search: query.search, orderBy: query.orderBy ?? 'createdAt' },
      pageWindow(query),
    );
  });

  app.post<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/redirects', async (request, reply) => {
    const body = parseBody(createBody, request.body);
    const { org, site, s } = siteOf(request, request.params, 'create');
    const { db, links } = request.ctx;
    const draft = body.draft ?? false;
    const row = db.transaction(() => {
      if (findBySource(db, site.id, body.source, draft)) throw taken(body.source, draft);
      const created = insertRedirect(db, site.id, {
        source: body.source,
        draft,
        captureWildcard: body.captureWildcard ?? false,
        permanent: body.permanent ?? false,
        destination: checkDestination(db, s, body.destination, 'destination'),
      });
      touchSite(db, site.id);
      return created;
    })();
    return reply
      .code(201)
      .header('location', `${links.api}/orgs/${org.id}/sites/${site.id}/redirects/${row.id}`)
      .send(redirectJson(row));
  });

  app.put<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/redirects', async (request) => {
    const items = parseBulkItems(request.body);
    const { site, s } = siteOf(request, request.params, 'create');
    const { db } = request.ctx;
    const results = db.transaction(() => {
      const answers = items.map((item, index) => applyBulkItem(db, s, item, index));
      touchSite(db, site.id);
      return answers;
    })();
    return { results };
  });

  app.patch<{ Params: RedirectParams }>(
    '/orgs/:organizationId/sites/:siteId/redirects/:siteRedirectId',
    async (request) => {
      const body = parseBody(updateBody, request.body);
      const { site, s } = siteOf(request, request.params, 'create');
      const { db } = request.ctx;
      return db.transaction(() => {
        const row = findById(db, site.id, request.params.siteRedirectId);
        if (!row) throw notFound('Site redirect');
        const before = fieldsOf(row);
        const fields: RedirectFields = {
          source: body.source ?? before.source,
          draft: body.draft ?? before.draft,
          captureWildcard: body.captureWildcard ?? before.captureWildcard,
          permanent: body.permanent ?? before.permanent,
          destination: body.destination ? checkDestination(db, s, body.destination, 'destination') : before.destination,
        };
        const other = findBySource(db, site.id, fields.source, fields.draft);
        if (other && other.id !== row.id) {
          // Promoting a draft replaces the live redirect of its source; any other clash is a conflict.
          const promotes = before.draft && !fields.draft && matchKey(fields.source) === row.match_key;
          if (!promotes) throw taken(fields.source, fields.draft);
          deleteRow(db, other.id);
        }
        const updated = writeRedirect(db, row, fields);
        touchSite(db, site.id);
        return redirectJson(updated);
      })();
    },
  );

  app.delete<{ Params: RedirectParams }>(
    '/orgs/:organizationId/sites/:siteId/redirects/:siteRedirectId',
    async (request, reply) => {
      const { site } = siteOf(request, request.params, 'create');
      const { db } = request.ctx;
      const deleted = db.transaction(() => {
        const row = findById(db, site.id, request.params.siteRedirectId);
        if (row) touchSite(db, site.id);
        return row ? deleteRow(db, row.id) : false;
      })();
      return sendDeleted(reply, deleted);
    },
  );

  app.get<{ Params: SiteParams }>('/orgs/:organizationId/sites/:siteId/redirect', async (request) => {
    const query = parseQuery(bySourceQuery, request.query);
    const { db, access, links } = request.ctx;
    const site = db
      .prepare('SELECT * FROM sites WHERE id = ? AND org_id = ?')
      .get(request.params.siteId, request.params.organizationId) as SiteRow | undefined;
    const member = site !== undefined && Boolean(siteRole(access, site));
    if (!site || (!member && !readableWithoutMembership(db, site, query.shareKey))) throw notFound('Site');
    const org = db.prepare('SELECT * FROM organizations WHERE id = ?').get(site.org_id) as OrganizationRow;
    const shareKey = site.visibility === 'share-link' ? activeShareLink(db, site.id, query.shareKey)?.key : undefined;
    const segments = query.source
      .replace(/\*$/, '')
      .split('/')
      .filter((segment) => segment !== '')
      .map(decodeSegment);
    // The source as written first (a wildcard source names its own redirect), then as a path.
    const own = findBySource(db, site.id, query.source, false);
    const found = own ? { row: own, suffix: '' } : matchRedirect(db, site.id, segments, false);
    const target = found && targetOf(db, loadStructure(db, site), org, links, found, shareKey);
    if (!found || !target) throw notFound('Site redirect');
    return { redirect: redirectJson(found.row), target: target.url };
  });
}
