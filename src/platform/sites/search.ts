import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { READS_OPEN_TO_VISITORS } from '../access.js';
import { reindexSpace } from '../content/current.js';
import { pageHitJson } from '../content/json.js';
import type { ContentReader } from '../content/reader.js';
import { indexedRevision, MAX_PAGES_PER_SPACE, type SearchPageHit } from '../content/search.js';
import { badRequest, notFound, pageFromArray, pageParams, pageWindow, parseBody, parseQuery } from '../http.js';
import type { JobQueue } from '../jobs.js';
import type { SpaceRow } from '../rows.js';
import type { Db } from '../store/db.js';
import { readerView } from './resolve.js';
import { findSite, type SiteRow } from './store.js';
import { siteRole } from './permissions.js';
import {
  defaultVariant,
  loadStructure,
  orderedSections,
  usesSections,
  variantsOf,
  withoutDrafts,
  type SiteSpaceRow,
  type Structure,
} from './structure.js';
import { visitorContentReader } from './visitor-view.js';
import type { SiteParams } from './requests.js';

/**
 * Search of a docs site: the current content of the spaces its site spaces show, as the caller
 * reads the site, ranked, grouped by space.
 *
 * Who sees what (as `resolveUrl` decides it): a site visitor (the bearer of a resolved URL's API
 * token for this site) searches the site spaces and sections their claims open, and in each space
 * the pages and blocks their claims open (their view's index, `visitor-view.ts`); anyone else
 * authenticated searches a published public or unlisted site as a visitor without claims; members
 * of the organization search the published structure (drafts too on an unpublished site) in the
 * spaces they can read, as stored.
 *
 * Scope (the body's `scope`, or the deprecated `mode`): `all` site spaces; `default`, each
 * section's default site space (a variant in the language of `currentSiteSpace`, when the section
 * has one) plus `currentSiteSpace`, restricted with `restrictTo` to the current one or the others;
 * `specific` site spaces. A site space outside what the caller sees is a 400, as one that does
 * not exist.
 *
 * Ranking: each space in scope is searched (its best MAX_PAGES_PER_SPACE pages); spaces are ordered
 * by their best page, pages ranked by score across spaces (`rank`). Scores of spaces searched in
 * the same index (the store's, shared by members and by visitors whose claims hide nothing of a
 * space) compare exactly; a visitor's narrowed view of a space has an index of its own, whose
 * scores are merged as they are.
 */

/** Site spaces one search or prewarm covers, at most. */
export const MAX_SEARCHED_SITE_SPACES = 100;

const query = z
  .string({ message: 'is required' })
  .max(512, 'must be at most 512 characters')
  .refine((value) => value.trim() !== '', 'must not be empty');
const ids = z
  .array(z.string().min(1).max(100), { message: 'must be a list of site space ids' })
  .min(1, 'must name at least one site space')
  .max(MAX_SEARCHED_SITE_SPACES, `must name at most ${MAX_SEARCHED_SITE_SPACES} site spaces`);
const scope = z.discriminatedUnion(
  'mode',
  [
    z.strictObject({
      mode: z.literal('default'),
      currentSiteSpace: z.string().min(1).max(100).optional(),
      restrictTo: z.enum(['currentSiteSpace', 'otherSiteSpaces']).optional(),
    }),
    z.strictObject({ mode: z.literal('specific'), siteSpaceIds: ids }),
    z.strictObject({ mode: z.literal('all') }),
  ],
  { message: 'must be a scope of mode default, specific or all' },
);
const searchBody = z
  .strictObject({
    query,
    scope: scope.optional(),
    mode: z.enum(['specific', 'current', 'all'], { message: 'must be specific, current or all' }).optional(),
    siteSpaceIds: ids.optional(),
    siteSpaceId: z.string().min(1).max(100).optional(),
  })
  .transform((body, ctx): { query: string; scope: z.infer<typeof scope> } => {
    if (body.scope) return { query: body.query, scope: body.scope };
    if (body.siteSpaceIds) return { query: body.query, scope: { mode: 'specific', siteSpaceIds: body.siteSpaceIds } };
    if (body.mode === 'current' && body.siteSpaceId)
      return { query: body.query, scope: { mode: 'default', currentSiteSpace: body.siteSpaceId } };
    if (body.mode === 'all') return { query: body.query, scope: { mode: 'all' } };
    ctx.addIssue({ code: 'custom', path: ['scope'], message: 'is required (or the deprecated mode)' });
    return z.NEVER;
  });

/** How the caller reads a site: the site spaces they see and the reader of their content. */
interface SiteReader {
  site: SiteRow;
  s: Structure;
  /** The site spaces the caller sees, in the structure's order. */
  visible: SiteSpaceRow[];
  content: ContentReader;
  /** The claims whose views are searched, for a reader who is not a member. */
  claims?: Record<string, unknown>;
}

/** The site as the request's caller reads it for search, or a 404. */
function siteForSearch(request: FastifyRequest, params: SiteParams): SiteReader {
  const { db, access, visitor } = request.ctx;
  const site = findSite(db, params.organizationId, params.siteId);
  if (!site) throw notFound('Site');
  const stored = loadStructure(db, site);
  const role = visitor ? undefined : siteRole(access, site);
  if (role !== undefined && role !== null) {
    const s = site.published === 1 ? withoutDrafts(stored) : stored;
    const readable = (row: SiteSpaceRow) => access.spaceRole(s.spaces.get(row.space_id)!) !== null;
    return { site, s, visible: ordered(s).filter(readable), content: request.ctx.content };
  }
  let claims: Record<string, unknown>;
  if (visitor?.site === site.id) claims = visitor.claims;
  else if (!visitor && site.published === 1 && (site.visibility === 'public' || site.visibility === 'unlisted'))
    claims = {};
  else throw notFound('Site');
  // Exactly the structure `resolveUrl` shows these claims (drafts only in a member's preview).
  const s = readerView(stored, claims, site.published !== 1);
  return {
    site,
    s,
    visible: ordered(s),
    content: visitor ? request.ctx.content : visitorContentReader(db, claims),
    claims,
  };
}

/** Site spaces in display order: sections in order, each with its variants; else the root's. */
function ordered(s: Structure): SiteSpaceRow[] {
  return usesSections(s) ? orderedSections(s).flatMap((section) => variantsOf(s, section.id)) : variantsOf(s, null);
}

/** The site spaces a scope names, among those the caller sees; a 400 for one they do not see. */
function inScope(reader: SiteReader, wanted: z.infer<typeof scope>): SiteSpaceRow[] {
  const { s, visible } = reader;
  const find = (id: string, field: string) => {
    const row = visible.find((item) => item.id === id);
    if (!row) throw badRequest(`Invalid body field "${field}": no site space ${id} in the site`);
    return row;
  };
  if (wanted.mode === 'all') return visible;
  if (wanted.mode === 'specific') {
    const named = new Set(wanted.siteSpaceIds.map((id, index) => find(id, `scope.siteSpaceIds.${index}`).id));
    return visible.filter((row) => named.has(row.id));
  }
  const current = wanted.currentSiteSpace ? find(wanted.currentSiteSpace, 'scope.currentSiteSpace') : undefined;
  if (wanted.restrictTo && !current)
    throw badRequest('Invalid body field "scope.restrictTo": needs "currentSiteSpace"');
  if (wanted.restrictTo === 'currentSiteSpace') return [current!];
  const language = current ? s.spaces.get(current.space_id)?.language : undefined;
  const sections = usesSections(s) ? orderedSections(s).map((section) => section.id) : [null];
  const defaults = sections.flatMap((sectionId) => {
    const variants = visible.filter((row) => row.section_id === sectionId);
    const inLanguage = language && variants.find((row) => s.spaces.get(row.space_id)?.language === language);
    const fallback = defaultVariant(s, sectionId);
    const chosen = inLanguage || variants.find((row) => row.id === fallback?.id) || variants[0];
    return chosen ? [chosen] : [];
  });
  const chosen = new Set([...defaults, ...(current ? [current] : [])].map((row) => row.id));
  if (wanted.restrictTo === 'otherSiteSpaces' && current) chosen.delete(current.id);
  return visible.filter((row) => chosen.has(row.id));
}

/** The distinct spaces of site spaces, in their order. */
function spacesOf(s: Structure, rows: SiteSpaceRow[]): SpaceRow[] {
  const seen = new Map<string, SpaceRow>();
  for (const row of rows) if (!seen.has(row.space_id)) seen.set(row.space_id, s.spaces.get(row.space_id)!);
  return [...seen.values()].slice(0, MAX_SEARCHED_SITE_SPACES);
}

/** Searches the spaces, each through the caller's reader; answers spaces with their best pages, ranked together. */
async function searchSite(reader: SiteReader, spaces: SpaceRow[], text: string) {
  const found: Array<{ space: SpaceRow; pages: SearchPageHit[] }> = [];
  for (const space of spaces) {
    const hits = await reader.content.search(space, text, { offset: 0, limit: MAX_PAGES_PER_SPACE });
    if (hits.items.length) found.push({ space, pages: hits.items });
  }
  // One ranking across spaces: by score, then the site's order of spaces and each space's order.
  const all = found.flatMap((group, g) => group.pages.map((page, p) => ({ page, g, p })));
  all.sort((a, b) => b.page.score - a.page.score || a.g - b.g || a.p - b.p);
  const rankOf = new Map(all.map((hit, index) => [hit.page, index + 1]));
  return found
    .map((group) => ({
      space: group.space,
      score: Math.max(...group.pages.map((page) => page.score)),
      pages: group.pages.map((page) => ({ ...page, rank: rankOf.get(page)! })),
    }))
    .sort((a, b) => a.pages[0]!.rank - b.pages[0]!.rank);
}

/** The job that brings the search index of a site's spaces up to their current revisions. */
export const SITE_SEARCH_PREWARM_JOB = 'sites.search-prewarm';

/** The spaces whose index is behind their current revision (a restart in between, an older release). */
function behind(db: Db, spaces: SpaceRow[]): string[] {
  return spaces.filter((space) => indexedRevision(db, space.id) !== space.revision).map((space) => space.id);
}

/**
 * `POST …/search` (site visitors too: it only reads) and `POST …/search/prewarm`, which readers
 * call when they open a site's search: the spaces whose index is behind are reindexed by a job
 * (`SITE_SEARCH_PREWARM_JOB`), and a visitor's views of the spaces they see are indexed at once,
 * in the background, so that their first query finds them ready.
 */
export function siteSearchRoutes(app: FastifyInstance, options: { queue: JobQueue }): void {
  options.queue.register<{ spaces: string[] }>(SITE_SEARCH_PREWARM_JOB, {
    interrupted: 'resume',
    run: async ({ spaces }, { db }) => {
      for (const id of spaces) {
        const space = db.prepare('SELECT id, revision FROM spaces WHERE id = ?').get(id) as
          | { id: string; revision: string }
          | undefined;
        if (space && indexedRevision(db, space.id) !== space.revision)
          db.transaction(() => reindexSpace(db, space.id, space.revision))();
        // One space at a time: other requests run between.
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  });

  app.post<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/search',
    READS_OPEN_TO_VISITORS,
    async (request) => {
      const window = pageWindow(parseQuery(z.object(pageParams), request.query));
      const body = parseBody(searchBody, request.body);
      const reader = siteForSearch(request, request.params);
      const spaces = spacesOf(reader.s, inScope(reader, body.scope));
      const groups = await searchSite(reader, spaces, body.query);
      const { links } = request.ctx;
      return pageFromArray(groups, window, (group) => ({
        type: 'space' as const,
        id: group.space.id,
        title: group.space.title,
        score: group.score,
        pages: group.pages.map((page) => pageHitJson(page, group.space.id, links)),
      }));
    },
  );

  app.post<{ Params: SiteParams }>(
    '/orgs/:organizationId/sites/:siteId/search/prewarm',
    READS_OPEN_TO_VISITORS,
    async (request, reply) => {
      parseBody(z.strictObject({}).optional(), request.body ?? undefined);
      const reader = siteForSearch(request, request.params);
      const { db } = request.ctx;
      const spaces = spacesOf(reader.s, reader.visible);
      const late = behind(db, spaces);
      if (late.length)
        options.queue.enqueue(SITE_SEARCH_PREWARM_JOB, { spaces: late }, { key: `site-search:${reader.site.id}` });
      // A visitor's view of a space is indexed on its first search: asking for nothing builds it.
      if (reader.claims)
        for (const space of spaces) void reader.content.search(space, '', { offset: 0, limit: 1 }).catch(() => {});
      return reply.code(204).send();
    },
  );
}
