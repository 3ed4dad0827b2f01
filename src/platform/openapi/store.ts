import { sign, verify } from '../content/signing.js';
import { conflict, laterThan, newId, notFound, now } from '../http.js';
import type { JobQueue } from '../jobs.js';
import { fetchUrl, OutboundError } from '../outbound.js';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { rememberDocument } from './documents.js';
import { MAX_PROBLEMS, textHash, type SpecFormat, type SpecProblem, type SpecReading } from './parse.js';
import { SpecReaderError, type SpecReader } from './reader.js';
import { OPENAPI_VISIBILITIES } from '../contract/enums.js';

/**
 * OpenAPI specifications of an organization. A specification has a slug (unique in its
 * organization) and a source: a URL, fetched by the platform, or a text. Every write of the
 * source makes it `pending` and enqueues its processing (a job of the queue, in the same
 * transaction): the job marks it `progress`, reads the source (a URL with a timeout, a size limit
 * and no private targets) and ends in `complete`, with either a new version or the error code
 * and the problems found. A text that is the latest version's is not read again (its hash is
 * compared first); another is parsed and validated in a worker thread (`SpecReader`), so the
 * platform keeps answering requests meanwhile, and its document fills the cache of parsed
 * versions (`documents.ts`) when it makes a version. URL sources are checked again on a
 * schedule (`next_check_at`, kept with the specification, so the schedule survives restarts). A
 * URL may carry credentials: it is kept as given, for fetching, and shown without them
 * (`sourceURL`, messages use `displayUrl`).
 */

export const OPENAPI_JOB = 'openapi-process';

/** Largest document a URL source may answer. */
export const MAX_SPEC_BYTES = 10 * 1024 * 1024;
/** Time a URL source has to answer, unless configured. */
export const DEFAULT_FETCH_TIMEOUT_MS = 30_000;
/** Time between two checks of a URL source, unless configured. */
export const DEFAULT_REFRESH_HOURS = 6;

export const VISIBILITIES = OPENAPI_VISIBILITIES;
export type SpecVisibility = (typeof VISIBILITIES)[number];
export type ProcessingState = 'pending' | 'progress' | 'complete';
export type ProcessingErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR';

export interface OpenAPISpecRow {
  id: string;
  org_id: string;
  slug: string;
  /** The URL source as given (credentials included): never shown. */
  source_url: string | null;
  source_text: string | null;
  /** Incremented by every write of the source: a processing of an older one is dropped. */
  generation: number;
  visibility: SpecVisibility;
  processing_state: ProcessingState;
  last_version: string | null;
  last_processed_at: string | null;
  error_code: ProcessingErrorCode | null;
  /** JSON list of the problems kept (at most `MAX_PROBLEMS`). */
  errors: string | null;
  error_count: number;
  /** When the URL source is due for its next check (ms since the epoch); null when not scheduled. */
  next_check_at: number | null;
  created_at: string;
  updated_at: string;
}

export interface OpenAPIVersionRow {
  id: string;
  spec_id: string;
  seq: number;
  text: string;
  format: SpecFormat;
  hash: string;
  created_at: string;
}

/** A source as the API takes it. */
export type SpecSource = { url: string } | { text: string };

interface ProcessJob {
  specId: string;
  generation: number;
}

// ---------------------------------------------------------------------------------------------
// Reads and JSON
// ---------------------------------------------------------------------------------------------

export function specsOf(db: Db, orgId: string): OpenAPISpecRow[] {
  return db
    .prepare('SELECT * FROM openapi_specs WHERE org_id = ? ORDER BY created_at, id')
    .all(orgId) as OpenAPISpecRow[];
}

export function findSpec(db: Db, orgId: string, slug: string): OpenAPISpecRow | undefined {
  return db.prepare('SELECT * FROM openapi_specs WHERE org_id = ? AND slug = ?').get(orgId, slug) as
    | OpenAPISpecRow
    | undefined;
}

export function requireSpec(db: Db, orgId: string, slug: string): OpenAPISpecRow {
  const row = findSpec(db, orgId, slug);
  if (!row) throw notFound('OpenAPI specification');
  return row;
}

/** A URL as `sourceURL` shows it: without user name and password. */
export function shownUrl(raw: string): string {
  const url = URL.parse(raw);
  // Stored URLs were checked when given; nothing of an unreadable one is shown.
  if (!url) return '';
  url.username = '';
  url.password = '';
  return url.href;
}

/** Versions of a specification, newest first. */
export function versionsOf(db: Db, specId: string): OpenAPIVersionRow[] {
  return db
    .prepare('SELECT * FROM openapi_spec_versions WHERE spec_id = ? ORDER BY seq DESC')
    .all(specId) as OpenAPIVersionRow[];
}

export function latestVersion(db: Db, spec: Pick<OpenAPISpecRow, 'id'>): OpenAPIVersionRow | undefined {
  return db.prepare('SELECT * FROM openapi_spec_versions WHERE spec_id = ? ORDER BY seq DESC LIMIT 1').get(spec.id) as
    | OpenAPIVersionRow
    | undefined;
}

/** A version by id (`latest` for the latest one), or a 404. */
export function requireVersion(db: Db, spec: Pick<OpenAPISpecRow, 'id'>, versionId: string): OpenAPIVersionRow {
  const row =
    versionId === 'latest'
      ? latestVersion(db, spec)
      : (db.prepare('SELECT * FROM openapi_spec_versions WHERE spec_id = ? AND id = ?').get(spec.id, versionId) as
          | OpenAPIVersionRow
          | undefined);
  if (!row) throw notFound('OpenAPI specification version');
  return row;
}

/** The file name a version is served under. */
export function versionFileName(
  spec: Pick<OpenAPISpecRow, 'slug'>,
  version: Pick<OpenAPIVersionRow, 'format'>,
): string {
  return `${spec.slug}.${version.format}`;
}

/**
 * Where a version's text is served: a signed URL of the platform that needs no token (like the
 * download URL of a file), so the gateway and "Try it" tools can read it; it cannot be forged and
 * stops working when the version is deleted.
 */
export function versionUrl(
  db: Db,
  spec: Pick<OpenAPISpecRow, 'slug'>,
  version: Pick<OpenAPIVersionRow, 'id' | 'format'>,
  links: Links,
): string {
  const name = versionFileName(spec, version);
  return `${links.openapi}/${version.id}/${encodeURIComponent(name)}?sig=${sign(db, ['openapi', version.id, name])}`;
}

/** Whether a signed URL is one the platform made, and the version it names (gone once deleted). */
export function signedVersion(
  db: Db,
  request: { versionId: string; name: string; sig: string | undefined },
): { valid: boolean; version?: OpenAPIVersionRow } {
  if (!verify(db, ['openapi', request.versionId, request.name], request.sig)) return { valid: false };
  const version = db.prepare('SELECT * FROM openapi_spec_versions WHERE id = ?').get(request.versionId) as
    | OpenAPIVersionRow
    | undefined;
  return version ? { valid: true, version } : { valid: true };
}

// ---------------------------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------------------------

function sourceColumns(source: SpecSource): { source_url: string | null; source_text: string | null } {
  return 'url' in source
    ? { source_url: source.url, source_text: null }
    : { source_url: null, source_text: source.text };
}

/** Enqueues the processing of the specification's current source (inside the write's transaction). */
function enqueueProcessing(queue: JobQueue, row: Pick<OpenAPISpecRow, 'id' | 'generation'>): void {
  queue.enqueue(OPENAPI_JOB, { specId: row.id, generation: row.generation } satisfies ProcessJob, {
    key: `openapi:${row.id}`,
  });
}

/** Creates a specification, pending its first processing; 409 when the slug is taken. */
export function createSpec(db: Db, queue: JobQueue, orgId: string, slug: string, source: SpecSource): OpenAPISpecRow {
  return db.transaction(() => {
    if (findSpec(db, orgId, slug))
      throw conflict(`An OpenAPI specification with the slug "${slug}" already exists in the organization`);
    const at = now();
    const id = newId();
    const { source_url, source_text } = sourceColumns(source);
    db.prepare(
      `INSERT INTO openapi_specs (id, org_id, slug, source_url, source_text, generation, visibility, processing_state, error_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, 1, 'private', 'pending', 0, ?, ?)`,
    ).run(id, orgId, slug, source_url, source_text, at, at);
    const row = requireSpec(db, orgId, slug);
    enqueueProcessing(queue, row);
    return row;
  })();
}

/**
 * Creates the specification of that slug, or gives an existing one a new source (the same URL
 * again is a check for updates); either way it is pending a processing.
 */
export function putSpec(
  db: Db,
  queue: JobQueue,
  orgId: string,
  slug: string,
  source: SpecSource,
): { row: OpenAPISpecRow; created: boolean } {
  return db.transaction(() => {
    const existing = findSpec(db, orgId, slug);
    if (!existing) return { row: createSpec(db, queue, orgId, slug, source), created: true };
    const { source_url, source_text } = sourceColumns(source);
    db.prepare(
      `UPDATE openapi_specs SET source_url = ?, source_text = ?, generation = generation + 1, processing_state = 'pending',
         next_check_at = NULL, updated_at = ? WHERE id = ?`,
    ).run(source_url, source_text, laterThan(existing.updated_at), existing.id);
    const row = requireSpec(db, orgId, slug);
    enqueueProcessing(queue, row);
    return { row, created: false };
  })();
}

export function setVisibility(db: Db, row: OpenAPISpecRow, visibility: SpecVisibility): OpenAPISpecRow {
  db.prepare('UPDATE openapi_specs SET visibility = ?, updated_at = ? WHERE id = ?').run(
    visibility,
    laterThan(row.updated_at),
    row.id,
  );
  return requireSpec(db, row.org_id, row.slug);
}

/** Deletes a specification and its versions; false when there was none. A pending processing finds nothing. */
export function deleteSpec(db: Db, orgId: string, slug: string): boolean {
  return db.prepare('DELETE FROM openapi_specs WHERE org_id = ? AND slug = ?').run(orgId, slug).changes > 0;
}

// ---------------------------------------------------------------------------------------------
// Processing
// ---------------------------------------------------------------------------------------------

export interface OpenAPIProcessingOptions {
  /** Fetch URL sources from private and loopback addresses (demo and test runs only). */
  allowPrivateUrls: boolean;
  /** Time a URL source has to answer, in milliseconds. @default 30000 */
  fetchTimeoutMs?: number;
  /** Time between two checks of a URL source, in milliseconds. @default 6 hours */
  refreshMs?: number;
  /** Where texts are parsed and validated (a worker thread); the platform closes it. */
  reader: SpecReader;
}

/** What one processing found. */
type Outcome =
  | { ok: true; unchanged: true; text: string }
  | { ok: true; unchanged: false; text: string; format: SpecFormat; document: Record<string, unknown> }
  | { ok: false; code: ProcessingErrorCode; problems: SpecProblem[]; count: number };

/**
 * Reads a source and, unless its text is the latest version's (then there is nothing to parse),
 * parses and validates it in the reader's worker; never throws for what the source holds.
 */
async function readSource(db: Db, row: OpenAPISpecRow, options: OpenAPIProcessingOptions): Promise<Outcome> {
  let text: string;
  if (row.source_url !== null) {
    try {
      const { bytes } = await fetchUrl(row.source_url, {
        allowPrivate: options.allowPrivateUrls,
        maxBytes: MAX_SPEC_BYTES,
        timeoutMs: options.fetchTimeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS,
      });
      text = bytes.toString('utf8').replace(/^\uFEFF/, '');
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      // OutboundError messages show the URL without its credentials.
      return {
        ok: false,
        code: error.timedOut ? 'FETCH_TIMEOUT' : 'FETCH_ERROR',
        problems: [{ message: `The source URL ${error.message}` }],
        count: 1,
      };
    }
  } else {
    text = row.source_text ?? '';
  }
  if (text.trim() === '')
    return { ok: false, code: 'PARSE_ERROR', problems: [{ message: 'The document is empty' }], count: 1 };
  // The latest version's text was valid when it was read, and reading is deterministic.
  if (latestVersion(db, row)?.hash === textHash(text)) return { ok: true, unchanged: true, text };
  let reading: SpecReading;
  try {
    reading = await options.reader.read(text);
  } catch (error) {
    // The reader stopped (timeout, out of memory…): this text is not read, the next one starts a new reader.
    if (!(error instanceof SpecReaderError) || error.reason === 'closed') throw error;
    return { ok: false, code: 'PARSE_ERROR', problems: [{ message: error.message }], count: 1 };
  }
  if (!reading.ok) return { ok: false, code: 'PARSE_ERROR', problems: reading.problems, count: reading.problemCount };
  return { ok: true, unchanged: false, text, format: reading.format, document: reading.document };
}

/**
 * Records what a processing found, unless the specification was deleted or given another source
 * meanwhile: a new version when the text differs from the latest one, else the errors; then the
 * next check of a URL source. Answers the id of the version it made, if it made one.
 */
function recordOutcome(db: Db, job: ProcessJob, outcome: Outcome, refreshMs: number): string | undefined {
  return db.transaction((): string | undefined => {
    const row = db.prepare('SELECT * FROM openapi_specs WHERE id = ?').get(job.specId) as OpenAPISpecRow | undefined;
    if (!row || row.generation !== job.generation) return undefined;
    const at = now();
    const nextCheck = row.source_url !== null ? Date.now() + refreshMs : null;
    if (!outcome.ok) {
      db.prepare(
        `UPDATE openapi_specs SET processing_state = 'complete', last_processed_at = ?, error_code = ?, errors = ?, error_count = ?, next_check_at = ?
         WHERE id = ?`,
      ).run(
        at,
        outcome.code,
        JSON.stringify(outcome.problems.slice(0, MAX_PROBLEMS)),
        outcome.count,
        nextCheck,
        row.id,
      );
      return undefined;
    }
    const hash = textHash(outcome.text);
    const latest = latestVersion(db, row);
    let versionId = row.last_version;
    let updatedAt = row.updated_at;
    let made: string | undefined;
    // An unchanged outcome found the latest version's text; a changed one may still meet it (a version made meanwhile).
    if (!outcome.unchanged && (!latest || latest.hash !== hash)) {
      versionId = made = newId();
      db.prepare(
        'INSERT INTO openapi_spec_versions (id, spec_id, seq, text, format, hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ).run(versionId, row.id, (latest?.seq ?? 0) + 1, outcome.text, outcome.format, hash, at);
      updatedAt = laterThan(row.updated_at);
    }
    db.prepare(
      `UPDATE openapi_specs SET processing_state = 'complete', last_processed_at = ?, last_version = ?, error_code = NULL, errors = NULL,
         error_count = 0, next_check_at = ?, updated_at = ? WHERE id = ?`,
    ).run(at, versionId, nextCheck, updatedAt, row.id);
    return made;
  })();
}

/**
 * Registers the processing of specifications with the queue and returns the scheduler of URL
 * checks (start it with the queue). A processing interrupted by a restart runs again: it only
 * reads its source and records what it found.
 */
export function registerOpenAPI(queue: JobQueue, db: Db, options: OpenAPIProcessingOptions): OpenAPIRefresher {
  const refreshMs = options.refreshMs ?? DEFAULT_REFRESH_HOURS * 60 * 60 * 1000;
  const refresher = new OpenAPIRefresher(db, queue);
  queue.register<ProcessJob>(OPENAPI_JOB, {
    interrupted: 'resume',
    async run(job, { db: jobDb }) {
      const row = jobDb.prepare('SELECT * FROM openapi_specs WHERE id = ?').get(job.specId) as
        | OpenAPISpecRow
        | undefined;
      if (!row || row.generation !== job.generation) return;
      jobDb
        .prepare("UPDATE openapi_specs SET processing_state = 'progress' WHERE id = ? AND generation = ?")
        .run(row.id, job.generation);
      const outcome = await readSource(jobDb, row, options);
      const made = recordOutcome(jobDb, job, outcome, refreshMs);
      // The version's first readers (computed content) find its document already parsed.
      if (made && outcome.ok && !outcome.unchanged) rememberDocument(made, outcome.text.length, outcome.document);
      refresher.schedule();
    },
    failed(job, _reason, { db: jobDb }) {
      // An unexpected failure: the specification must not stay in progress. The reason may name
      // internals; the caller is told the processing failed, nothing more.
      recordOutcome(
        jobDb,
        job,
        {
          ok: false,
          code: 'PARSE_ERROR',
          problems: [{ message: 'The specification could not be processed' }],
          count: 1,
        },
        refreshMs,
      );
    },
  });
  return refresher;
}

/**
 * Checks URL sources when they are due: a timer wakes up at the earliest `next_check_at` (at
 * least every hour) and enqueues a processing of each specification due, which schedules its
 * next check when it ends. The times are in the database, so a restart keeps the schedule, and
 * a check that came due while the platform was down runs at start.
 */
export class OpenAPIRefresher {
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly db: Db,
    private readonly queue: JobQueue,
  ) {}

  start(): void {
    this.running = true;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Enqueues a check of every URL source due at `at` (ms since the epoch); returns how many. */
  checkDue(at = Date.now()): number {
    return this.db.transaction(() => {
      const due = this.db
        .prepare(
          'SELECT id, generation FROM openapi_specs WHERE next_check_at IS NOT NULL AND next_check_at <= ? AND source_url IS NOT NULL',
        )
        .all(at) as Array<Pick<OpenAPISpecRow, 'id' | 'generation'>>;
      for (const row of due) {
        this.db
          .prepare("UPDATE openapi_specs SET next_check_at = NULL, processing_state = 'pending' WHERE id = ?")
          .run(row.id);
        enqueueProcessing(this.queue, row);
      }
      return due.length;
    })();
  }

  /** Sets the timer to the next check due. */
  schedule(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const next = this.db
      .prepare('SELECT MIN(next_check_at) FROM openapi_specs WHERE next_check_at IS NOT NULL')
      .pluck(true)
      .get() as number | null;
    const wait = Math.min(60 * 60 * 1000, Math.max(1000, (next ?? Number.POSITIVE_INFINITY) - Date.now()));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.checkDue();
      } catch {
        // The database is busy or closing: the checks still due are found at the next wake-up.
      }
      this.schedule();
    }, wait);
    this.timer.unref();
  }
}
