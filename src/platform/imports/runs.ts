import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { demand } from '../access.js';
import { getBlob } from '../content/blobs.js';
import { pageIndex } from '../content/pages.js';
import { loadRevision } from '../content/revisions.js';
import { editRequestContent, prepareMarkdown, type ContentChange } from '../change-requests/edits.js';
import { createChangeRequest, findChangeRequest, type ChangeRequestRow } from '../change-requests/store.js';
import { storeUploaded, type StorageFileRow } from '../fonts/store.js';
import {
  ApiError,
  badRequest,
  laterThan,
  newId,
  notFound,
  notFoundInBody,
  now,
  pageFromArray,
  pageParams,
  pageWindow,
  parseBody,
  parseQuery,
} from '../http.js';
import type { JobQueue } from '../jobs.js';
import type { Links } from '../links.js';
import { displayUrl, fetchUrl, OutboundError, storedHttpUrlProblem } from '../outbound.js';
import type { SpaceRow, UserRow } from '../rows.js';
import { orgOf } from '../sites/requests.js';
import { findSite } from '../sites/store.js';
import { declareTables, type Db } from '../store/db.js';
import { readHtmlPage } from './html.js';
import { ArchiveError, looksLikeZip, readZip } from './zip.js';

/**
 * Content imports (`/org/{organizationId}/imports`): a run brings pages from a website (crawled
 * through the outbound guard from its URL, following links on the same origin) or from files
 * uploaded to the organization's storage (markdown, HTML, or ZIP archives of them) into a space,
 * as a change request: the one the target names, or a new one. A run is a job
 * (`content-import`): `pending` until it starts, `in-progress` while it reads its source, then
 * `completed` (its pages written, in one transaction, with the change request), `failed` (with a
 * coded `reason`) or `cancelled`. A cancelled run writes nothing more: the job checks between
 * pages and once more in the transaction that writes. A run interrupted by a restart starts over
 * (it wrote nothing before its last transaction). A crawl stops at the budgets of pages, bytes and
 * time and imports what it read; files over a budget, and hostile archives, fail the run.
 */

declareTables('import-runs', [
  `
  CREATE TABLE IF NOT EXISTS import_runs (
    id TEXT PRIMARY KEY,
    org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    space_id TEXT NOT NULL,
    change_request_id TEXT,
    page_id TEXT,
    site_id TEXT,
    source TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT,
    pages TEXT NOT NULL DEFAULT '[]',
    created_by TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    started_at TEXT,
    completed_at TEXT
  );
  CREATE INDEX IF NOT EXISTS import_runs_by_org ON import_runs(org_id, created_at);
  `,
]);

/** Budgets of one run. */
export interface ImportBudgets {
  /** Pages a run imports at most (a crawl stops there; files holding more fail the run). */
  maxPages: number;
  /** Bytes a run reads at most: pages fetched, files and what their archives inflate to. */
  maxBytes: number;
  /** Time a crawl may take, in milliseconds: it imports what it read by then. */
  timeoutMs: number;
}

/** @see ImportBudgets */
export const DEFAULT_IMPORT_BUDGETS: ImportBudgets = { maxPages: 100, maxBytes: 20 * 1024 * 1024, timeoutMs: 120_000 };
/** Largest page a crawl fetches. */
export const MAX_IMPORT_PAGE_BYTES = 2 * 1024 * 1024;
/** Most entries an archive may hold. */
export const MAX_ARCHIVE_ENTRIES = 1000;
/** Longest a single page fetch may take. */
const FETCH_TIMEOUT_MS = 10_000;

const JOB = 'content-import';

/** Import runs one organization may have pending or in progress at once: the next is a 429 naming `activeImports`. */
export const MAX_ACTIVE_IMPORTS = 20;

/** The organization's runs pending or in progress. */
function activeRuns(db: Db, orgId: string): number {
  return db
    .prepare("SELECT COUNT(*) FROM import_runs WHERE org_id = ? AND status IN ('pending', 'in-progress')")
    .pluck(true)
    .get(orgId) as number;
}

export type ImportStatus = 'pending' | 'in-progress' | 'completed' | 'failed' | 'cancelled';
type Source = { type: 'website'; url: string } | { type: 'file'; files: string[] };
type PageEntry = { id: string; sourceURL: string; type: 'page'; status: 'complete' };

interface RunRow {
  id: string;
  org_id: string;
  space_id: string;
  change_request_id: string | null;
  page_id: string | null;
  site_id: string | null;
  source: string;
  status: ImportStatus;
  reason: string | null;
  pages: string;
  created_by: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  completed_at: string | null;
}

/** The description's `ContentImportRun`. */
function runJson(row: RunRow, links: Links) {
  return {
    object: 'import-run' as const,
    id: row.id,
    status: row.status,
    ...(row.reason ? { reason: row.reason } : {}),
    source: JSON.parse(row.source) as Source,
    target: {
      space: row.space_id,
      ...(row.change_request_id ? { changeRequest: row.change_request_id } : {}),
      ...(row.page_id ? { page: row.page_id } : {}),
    },
    ...(row.site_id ? { site: row.site_id } : {}),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.started_at ? { startedAt: row.started_at } : {}),
    ...(row.completed_at ? { completedAt: row.completed_at } : {}),
    urls: { location: `${links.api}/org/${row.org_id}/imports/${row.id}` },
    pages: JSON.parse(row.pages) as PageEntry[],
  };
}

const findRun = (db: Db, id: string) =>
  db.prepare('SELECT * FROM import_runs WHERE id = ?').get(id) as RunRow | undefined;

/** Moves a run that is not finished to `status`; false when it had finished (cancelled meanwhile…). */
function moveRun(
  db: Db,
  id: string,
  status: ImportStatus,
  fields: { reason?: string; pages?: PageEntry[]; changeRequest?: string } = {},
): boolean {
  const row = findRun(db, id);
  if (!row || (row.status !== 'pending' && row.status !== 'in-progress')) return false;
  const at = laterThan(row.updated_at);
  db.prepare(
    `UPDATE import_runs SET status = ?, reason = ?, pages = ?, change_request_id = ?, updated_at = ?,
       started_at = CASE WHEN ? = 'in-progress' THEN COALESCE(started_at, ?) ELSE started_at END, completed_at = ?
       WHERE id = ?`,
  ).run(
    status,
    fields.reason ?? null,
    JSON.stringify(fields.pages ?? JSON.parse(row.pages)),
    fields.changeRequest ?? row.change_request_id,
    at,
    status,
    at,
    status === 'completed' ? at : null,
    id,
  );
  return true;
}

/** A run that ends as failed, with its coded reason (`code: what happened`). */
class ImportFailure extends Error {
  constructor(code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

/** Stops a run that was cancelled while it read its source. */
class Cancelled extends Error {}

interface ReadPage {
  sourceURL: string;
  title: string | undefined;
  markdown: string;
}

export interface ImportOptions {
  /** Reach private and loopback addresses (demo and test runs). */
  allowPrivateUrls: boolean;
  budgets: ImportBudgets;
}

const isActive = (db: Db, id: string) => {
  const status = findRun(db, id)?.status;
  return status === 'pending' || status === 'in-progress';
};

/** Crawls a website from `start`, one page at a time, within the budgets. */
async function crawl(db: Db, runId: string, start: string, options: ImportOptions): Promise<ReadPage[]> {
  const { budgets } = options;
  const deadline = Date.now() + budgets.timeoutMs;
  const origin = new URL(start).origin;
  const queue = [start];
  const seen = new Set(queue);
  const pages: ReadPage[] = [];
  let bytes = 0;
  let first = true;
  while (queue.length > 0 && pages.length < budgets.maxPages && bytes < budgets.maxBytes && Date.now() < deadline) {
    if (!isActive(db, runId)) throw new Cancelled();
    const url = queue.shift()!;
    let fetched: Awaited<ReturnType<typeof fetchUrl>>;
    try {
      fetched = await fetchUrl(url, {
        allowPrivate: options.allowPrivateUrls,
        maxBytes: Math.min(MAX_IMPORT_PAGE_BYTES, budgets.maxBytes - bytes),
        timeoutMs: Math.max(1, Math.min(FETCH_TIMEOUT_MS, deadline - Date.now())),
      });
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      if (first) throw new ImportFailure('source_unreachable', error.message);
      continue;
    } finally {
      first = false;
    }
    if (fetched.contentType !== 'text/html' && fetched.contentType !== 'application/xhtml+xml') {
      if (pages.length === 0 && url === start)
        throw new ImportFailure(
          'source_not_html',
          `${displayUrl(new URL(url))} is ${fetched.contentType ?? 'of no type'}, not an HTML page`,
        );
      continue;
    }
    bytes += fetched.bytes.length;
    const page = readHtmlPage(fetched.bytes.toString('utf8'), new URL(url));
    pages.push({ sourceURL: displayUrl(new URL(url)), title: page.title, markdown: page.markdown });
    for (const link of page.links) {
      if (new URL(link).origin !== origin || seen.has(link)) continue;
      seen.add(link);
      queue.push(link);
    }
  }
  return pages;
}

const MARKDOWN_FILE = /\.(md|markdown|mdx)$/i;
const HTML_FILE = /\.(html?|xhtml)$/i;
const ZIP_FILE = /\.zip$/i;

/** Whether a file is read by imports, by its name or type. */
function importable(name: string, type: string): boolean {
  return (
    MARKDOWN_FILE.test(name) ||
    HTML_FILE.test(name) ||
    ZIP_FILE.test(name) ||
    ['text/markdown', 'text/html', 'application/zip', 'application/x-zip-compressed'].includes(type)
  );
}

const stem = (path: string) => (path.split('/').pop() ?? path).replace(/\.[^.]+$/, '');
/** Markdown that names its own title (front matter or a leading heading). */
const titled = (markdown: string) => /^\s*(---\s*\n[\s\S]*?\btitle\s*:|#\s)/.test(markdown);

function pageOfFile(path: string, text: string, html: boolean): ReadPage {
  if (html) {
    const page = readHtmlPage(text, new URL(`file:///${encodeURI(path)}`));
    return { sourceURL: path, title: page.title ?? stem(path), markdown: page.markdown };
  }
  return { sourceURL: path, title: titled(text) ? undefined : stem(path), markdown: text };
}

/** Reads the uploaded files of a run: markdown and HTML files, and those inside ZIP archives. */
function readFiles(db: Db, orgId: string, keys: string[], budgets: ImportBudgets): ReadPage[] {
  const pages: ReadPage[] = [];
  let bytes = 0;
  const add = (page: ReadPage) => {
    pages.push(page);
    if (pages.length > budgets.maxPages)
      throw new ImportFailure(
        'too_many_pages',
        `the files hold more than ${budgets.maxPages} pages; an import takes at most ${budgets.maxPages}`,
      );
  };
  for (const key of keys) {
    const row = db.prepare('SELECT * FROM storage_files WHERE key = ? AND org_id = ?').get(key, orgId) as
      | StorageFileRow
      | undefined;
    const content = row?.hash ? getBlob(db, row.hash) : undefined;
    if (!row || !content)
      throw new ImportFailure('file_missing', `the file ${key} is no longer in the organization's storage`);
    bytes += content.length;
    if (bytes > budgets.maxBytes)
      throw new ImportFailure(
        'too_large',
        `the files weigh more than ${budgets.maxBytes} bytes (${bytes} with ${row.name}); at most ${budgets.maxBytes}`,
      );
    if (ZIP_FILE.test(row.name) || looksLikeZip(content)) {
      const entries = readZip(content, row.name, {
        maxEntries: MAX_ARCHIVE_ENTRIES,
        maxBytes: budgets.maxBytes - bytes,
      });
      for (const entry of entries) {
        bytes += entry.bytes.length;
        if (MARKDOWN_FILE.test(entry.path) || HTML_FILE.test(entry.path))
          add(pageOfFile(entry.path, entry.bytes.toString('utf8'), HTML_FILE.test(entry.path)));
      }
    } else {
      add(pageOfFile(row.name, content.toString('utf8'), HTML_FILE.test(row.name) || row.content_type === 'text/html'));
    }
  }
  return pages;
}

/** Runs an import: reads its source, then writes its pages into the change request in one transaction. */
async function runImport(db: Db, runId: string, options: ImportOptions): Promise<void> {
  const run = findRun(db, runId);
  if (!run || !isActive(db, runId)) return;
  moveRun(db, runId, 'in-progress');
  const source = JSON.parse(run.source) as Source;
  let pages: ReadPage[];
  let changes: ContentChange[];
  let trees: Awaited<ReturnType<typeof prepareMarkdown>>;
  try {
    pages =
      source.type === 'website'
        ? await crawl(db, runId, source.url, options)
        : readFiles(db, run.org_id, source.files, options.budgets);
    if (pages.length === 0) throw new ImportFailure('nothing_to_import', 'the source holds no page to import');
    changes = insertions(run, pages);
    trees = await prepareMarkdown(changes);
  } catch (error) {
    if (error instanceof Cancelled) return;
    const reason =
      error instanceof ImportFailure
        ? error.message
        : error instanceof ArchiveError
          ? `${error.code}: ${error.message}`
          : error instanceof ApiError
            ? `conversion_failed: ${error.message}`
            : undefined;
    if (reason === undefined) throw error;
    moveRun(db, runId, 'failed', { reason });
    return;
  }
  try {
    db.transaction(() => {
      if (isActive(db, runId)) writePages(db, run, source, pages, changes, trees);
    })();
  } catch (error) {
    if (error instanceof ImportFailure) moveRun(db, runId, 'failed', { reason: error.message });
    else if (error instanceof ApiError) moveRun(db, runId, 'failed', { reason: `conversion_failed: ${error.message}` });
    else throw error;
  }
}

/**
 * Writes a run's pages into its change request (a new one unless the target names one) and
 * completes it; call it in a transaction. `trees` holds the markdown parsed ahead (what is missing
 * is parsed here).
 */
function writePages(
  db: Db,
  run: RunRow,
  source: Source,
  pages: readonly ReadPage[],
  changes: readonly ContentChange[],
  trees?: Awaited<ReturnType<typeof prepareMarkdown>>,
): void {
  const space = db.prepare('SELECT * FROM spaces WHERE id = ? AND deleted_at IS NULL').get(run.space_id) as
    | SpaceRow
    | undefined;
  const user = db.prepare('SELECT * FROM users WHERE id = ?').get(run.created_by) as UserRow | undefined;
  if (!space || !user)
    throw new ImportFailure('target_gone', 'the target space or the user who started the import is gone');
  const request: ChangeRequestRow | undefined = run.change_request_id
    ? findChangeRequest(db, space.id, run.change_request_id)
    : createChangeRequest(db, space, user, {
        subject: `Import from ${source.type === 'website' ? new URL(source.url).host : 'files'}`,
        status: 'open',
      });
  if (!request || request.status === 'merged' || request.status === 'archived')
    throw new ImportFailure('target_gone', 'the target change request is merged, archived or gone');
  const { result } = editRequestContent(db, request, user.id, changes, new Map(), undefined, trees);
  const byRef = new Map(
    result.outcomes.flatMap((outcome) =>
      outcome.object === 'created_page' && outcome.ref ? [[outcome.ref, outcome.page]] : [],
    ),
  );
  const entries = pages.flatMap((page, index): PageEntry[] => {
    const id = byRef.get(`import-${index}`);
    return id ? [{ id, sourceURL: page.sourceURL, type: 'page', status: 'complete' }] : [];
  });
  moveRun(db, run.id, 'completed', { pages: entries, changeRequest: request.id });
}

/** The changes that insert a run's pages (under its target page, if any). */
function insertions(run: RunRow, pages: readonly ReadPage[]): ContentChange[] {
  return pages.map(
    (page, index): ContentChange => ({
      operation: 'insert_page',
      ...(page.title ? { title: page.title } : {}),
      ...(run.page_id ? { into: run.page_id } : {}),
      ref: `import-${index}`,
      document: { markdown: page.markdown },
    }),
  );
}

/** A run of the demo data: files imported into a space (completed), or a run that failed. */
export interface DemoImportRun {
  orgId: string;
  spaceId: string;
  userId: string;
  at: string;
  source: { files: Array<{ name: string; contentType: string; text: string }> } | { website: string; failed: string };
}

/** Seeds a run of the demo data, synchronously, as the queue would have run it (files are stored as uploads). */
export function seedImportRun(db: Db, demo: DemoImportRun): void {
  const source: Source =
    'files' in demo.source
      ? {
          type: 'file',
          files: demo.source.files.map((file) =>
            storeUploaded(db, demo.orgId, 'import_file', file.name, file.contentType, Buffer.from(file.text)),
          ),
        }
      : { type: 'website', url: demo.source.website };
  const row: RunRow = {
    id: newId(),
    org_id: demo.orgId,
    space_id: demo.spaceId,
    change_request_id: null,
    page_id: null,
    site_id: null,
    source: JSON.stringify(source),
    status: 'in-progress',
    reason: null,
    pages: '[]',
    created_by: demo.userId,
    created_at: demo.at,
    updated_at: demo.at,
    started_at: demo.at,
    completed_at: null,
  };
  insertRun(db, row);
  if ('failed' in demo.source) {
    moveRun(db, row.id, 'failed', { reason: demo.source.failed });
    return;
  }
  const pages = readFiles(db, demo.orgId, (source as { files: string[] }).files, DEFAULT_IMPORT_BUDGETS);
  writePages(db, row, source, pages, insertions(row, pages));
}

const insertRun = (db: Db, row: RunRow) =>
  db
    .prepare(
      `INSERT INTO import_runs (id, org_id, space_id, change_request_id, page_id, site_id, source, status, pages,
         created_by, created_at, updated_at, started_at) VALUES (@id, @org_id, @space_id, @change_request_id, @page_id,
         @site_id, @source, @status, @pages, @created_by, @created_at, @updated_at, @started_at)`,
    )
    .run(row);

/** Declares the import runs on the job queue. */
export function registerImports(queue: JobQueue, options: ImportOptions): void {
  queue.register<{ runId: string }>(JOB, {
    // Nothing is written before the last transaction: an interrupted run reads its source again.
    interrupted: 'resume',
    run: (payload, { db }) => runImport(db, payload.runId, options),
    failed: (payload, _reason, { db }) => {
      moveRun(db, payload.runId, 'failed', { reason: 'internal_error: the import stopped unexpectedly' });
    },
  });
}

// --- Routes -------------------------------------------------------------------------------------

const id = z.string().min(1, 'is required').max(200, 'must be at most 200 characters');
const startBody = z.object({
  source: z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('website'), url: z.string().max(2048, 'must be at most 2048 characters') }),
      z.strictObject({
        type: z.literal('file'),
        files: z.array(id).min(1, 'must list at least one file').max(50, 'must list at most 50 files'),
      }),
    ],
    { message: 'must be a source of type website or file' },
  ),
  target: z.strictObject({ space: id, changeRequest: id.optional(), page: id.optional() }),
  site: id.optional(),
  // No assistant rewrites imported content here: the flag is accepted and changes nothing.
  enhance: z.boolean().optional(),
});

const listQuery = z.object({
  space: z.string().optional(),
  changeRequest: z.string().optional(),
  site: z.string().optional(),
  status: z.enum(['active', 'pending', 'in-progress', 'completed', 'failed', 'cancelled']).optional(),
  ...pageParams,
});

type OrgParams = { organizationId: string };
type RunParams = OrgParams & { importRunId: string };

/** A run of the organization whose target space the caller can see; 404 otherwise. */
function visibleRun(request: FastifyRequest, params: RunParams): RunRow {
  const { org } = orgOf(request, params);
  const row = findRun(request.ctx.db, params.importRunId);
  if (!row || row.org_id !== org.id) throw notFound('Import run');
  try {
    request.ctx.access.requireSpace(row.space_id, { includeDeleted: true });
  } catch {
    throw notFound('Import run');
  }
  return row;
}

/**
 * `/org/{organizationId}/imports`: members start runs into spaces they can edit, and read and
 * cancel (with the edit role) the runs of spaces they can see.
 */
export function importRoutes(app: FastifyInstance, options: { queue: JobQueue; allowPrivateUrls: boolean }): void {
  app.post<{ Params: OrgParams }>('/org/:organizationId/imports', async (request, reply) => {
    const body = parseBody(startBody, request.body ?? {});
    const { db, access, user, links } = request.ctx;
    const { org } = orgOf(request, request.params);
    const { space, role } = (() => {
      try {
        return access.requireSpace(body.target.space);
      } catch {
        throw notFoundInBody('Space', 'target.space', body.target.space);
      }
    })();
    if (space.org_id !== org.id) throw notFoundInBody('Space', 'target.space', body.target.space);
    demand(role, 'edit', 'Importing into a space');
    let revision = space.revision;
    if (body.target.changeRequest) {
      const changeRequest = findChangeRequest(db, space.id, body.target.changeRequest);
      if (!changeRequest) throw notFoundInBody('Change request', 'target.changeRequest', body.target.changeRequest);
      if (changeRequest.status === 'merged' || changeRequest.status === 'archived')
        throw badRequest(`Invalid body field "target.changeRequest": the change request is ${changeRequest.status}`);
      body.target.changeRequest = changeRequest.id;
      revision = changeRequest.revision;
    }
    if (body.target.page) {
      const content = loadRevision(db, space.id, revision)?.content;
      if (!content || !pageIndex(content).byId.has(body.target.page))
        throw notFoundInBody('Page', 'target.page', body.target.page);
    }
    if (body.source.type === 'website') {
      const url = body.source.url;
      if (/^[a-z]+:\/\/[^/]*@/i.test(url))
        throw badRequest('Invalid body field "source.url": must not hold a user name or password');
      const problem = await storedHttpUrlProblem(url, options.allowPrivateUrls);
      if (problem) throw badRequest(`Invalid body field "source.url": ${problem}`);
    } else {
      body.source.files.forEach((key, index) => {
        const row = db.prepare('SELECT * FROM storage_files WHERE key = ? AND org_id = ?').get(key, org.id) as
          | StorageFileRow
          | undefined;
        const field = `source.files.${index}`;
        if (!row) throw notFoundInBody('File', field, key);
        if (!row.hash) throw badRequest(`Invalid body field "${field}": the file ${key} was never uploaded`);
        if (!importable(row.name, row.content_type))
          throw badRequest(`Invalid body field "${field}": ${row.name} is neither markdown, HTML nor a ZIP archive`);
      });
    }
    let siteId: string | null = null;
    if (body.site) {
      if (!findSite(db, org.id, body.site)) throw notFoundInBody('Site', 'site', body.site);
      siteId = body.site;
    } else {
      const sites = db
        .prepare('SELECT DISTINCT site_id FROM site_spaces WHERE space_id = ?')
        .pluck(true)
        .all(space.id) as string[];
      if (sites.length === 1) siteId = sites[0]!;
    }
    const at = now();
    const row: RunRow = {
      id: newId(),
      org_id: org.id,
      space_id: space.id,
      change_request_id: body.target.changeRequest ?? null,
      page_id: body.target.page ?? null,
      site_id: siteId,
      source: JSON.stringify(body.source),
      status: 'pending',
      reason: null,
      pages: '[]',
      created_by: user.id,
      created_at: at,
      updated_at: at,
      started_at: null,
      completed_at: null,
    };
    db.transaction(() => {
      // One organization cannot fill the queue every other organization's imports wait in.
      const active = activeRuns(db, org.id);
      if (active >= MAX_ACTIVE_IMPORTS)
        throw new ApiError(
          429,
          `An organization has at most ${MAX_ACTIVE_IMPORTS} import runs pending or in progress`,
          {
            limit: 'activeImports',
            value: active + 1,
            max: MAX_ACTIVE_IMPORTS,
          },
        );
      insertRun(db, row);
      options.queue.enqueue(JOB, { runId: row.id }, { key: `import-space:${space.id}` });
    })();
    const json = runJson(row, links);
    return reply.code(201).header('location', json.urls.location).send(json);
  });

  app.get<{ Params: OrgParams }>('/org/:organizationId/imports', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const { db, access, links } = request.ctx;
    const { org } = orgOf(request, request.params);
    const where = ['org_id = ?'];
    const params: unknown[] = [org.id];
    const filters: Array<[string, string | undefined]> = [
      ['space_id', query.space],
      ['change_request_id', query.changeRequest],
      ['site_id', query.site],
      ['status', query.status === 'active' ? undefined : query.status],
    ];
    for (const [column, value] of filters) {
      if (value === undefined) continue;
      where.push(`${column} = ?`);
      params.push(value);
    }
    if (query.status === 'active') where.push("status IN ('pending', 'in-progress')");
    const rows = db
      .prepare(`SELECT * FROM import_runs WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC`)
      .all(...params) as RunRow[];
    const spaces = new Map<string, boolean>();
    const visible = rows.filter((row) => {
      if (!spaces.has(row.space_id)) {
        const space = db.prepare('SELECT * FROM spaces WHERE id = ?').get(row.space_id) as SpaceRow | undefined;
        spaces.set(row.space_id, space !== undefined && access.canViewSpace(space, access.spaceRole(space)));
      }
      return spaces.get(row.space_id)!;
    });
    return pageFromArray(visible, pageWindow(query), (row) => runJson(row, links));
  });

  app.get<{ Params: RunParams }>('/org/:organizationId/imports/:importRunId', async (request) =>
    runJson(visibleRun(request, request.params), request.ctx.links),
  );

  app.post<{ Params: RunParams }>('/org/:organizationId/imports/:importRunId/cancel', async (request) => {
    const { db, access, links } = request.ctx;
    const row = visibleRun(request, request.params);
    demand(access.requireSpace(row.space_id, { includeDeleted: true }).role, 'edit', 'Cancelling an import');
    if (!moveRun(db, row.id, 'cancelled'))
      throw badRequest(`The import run is ${row.status}: only a pending or in-progress run can be cancelled`);
    return runJson(findRun(db, row.id)!, links);
  });
}
