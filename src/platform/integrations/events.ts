import { onCurrentRevision } from '../content/current.js';
import { newId, now, type PageWindow } from '../http.js';
import type { Db } from '../store/db.js';
import { deliveryUrl } from './development.js';
import type { IntegrationRow } from './store.js';

/**
 * Events of integrations: what happened to their installations and to the spaces and sites
 * they are installed on, recorded in the transaction of the change (so an event exists exactly
 * when its change does), listed newest first. An integration with an endpoint gets each event
 * delivered (`delivery.ts`): the event is `pending` until it was delivered (`success`) or every
 * attempt failed (`failed`); without an endpoint there is nothing to deliver, and the event is a
 * `success` once recorded. Each event keeps a trace of log lines: its recording, and each
 * delivery attempt with its outcome and duration (never a secret).
 */

export type EventStatus = 'pending' | 'success' | 'failed';

export interface TraceLog {
  message: string;
  timestamp: string;
  level: 'debug' | 'info' | 'warn' | 'error';
}

export interface EventRow {
  seq: number;
  id: string;
  integration_id: string;
  installation_id: string | null;
  type: string;
  /** JSON of the payload as stored (`updatedBy` holds user ids; see `payloadJson`). */
  payload: string;
  status: EventStatus;
  /** JSON list of `TraceLog`. */
  trace: string;
  created_at: string;
}

/**
 * A payload as recorded: its `type`, the installation, and what the type adds. An event of the
 * integration itself (a task its developers queued) has no installation.
 */
export type EventPayload = { type: string; installationId: string | null } & Record<string, unknown>;

/** Whatever takes an event to deliver, per database: set by `registerIntegrations`. */
const dispatchers = new WeakMap<Db, (eventId: string, key: string) => void>();

/** Makes `dispatch` receive every event recorded on `db` that has to be delivered; returns the function that stops it. */
export function setDispatcher(db: Db, dispatch: (eventId: string, key: string) => void): () => void {
  dispatchers.set(db, dispatch);
  return () => {
    if (dispatchers.get(db) === dispatch) dispatchers.delete(db);
  };
}

export const log = (level: TraceLog['level'], message: string, timestamp = now()): TraceLog => ({
  message,
  timestamp,
  level,
});

/**
 * Records an event of an installation (call it inside the transaction of the change). With an
 * endpoint to deliver to, the event is pending and handed to the dispatcher; a database without
 * one (no platform running on it) keeps it pending until a platform starts on it.
 */
export function recordEvent(
  db: Db,
  integration: Pick<IntegrationRow, 'id' | 'owner_id' | 'endpoint'>,
  payload: EventPayload,
): string {
  const id = newId();
  const at = now();
  // A tunnel of development mode receives events without a published endpoint.
  const deliver = deliveryUrl(db, integration, payload.installationId) !== null;
  const trace: TraceLog[] = [log('debug', `Event ${payload.type} recorded`, at)];
  if (!deliver) trace.push(log('info', 'The integration declares no endpoint: nothing to deliver', at));
  db.prepare(
    `INSERT INTO integration_events (id, integration_id, installation_id, type, payload, status, trace, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    integration.id,
    payload.installationId,
    payload.type,
    JSON.stringify({ eventId: id, ...payload, installationId: payload.installationId ?? undefined }),
    deliver ? 'pending' : 'success',
    JSON.stringify(trace),
    at,
  );
  if (deliver) dispatchers.get(db)?.(id, payload.installationId ?? '');
  return id;
}

/** Adds log lines to an event's trace and, when given, sets its status. */
export function appendTrace(db: Db, eventId: string, logs: TraceLog[], status?: EventStatus): void {
  const row = findEvent(db, eventId);
  if (!row) return;
  const trace = [...(JSON.parse(row.trace) as TraceLog[]), ...logs];
  db.prepare('UPDATE integration_events SET trace = ?, status = ? WHERE id = ?').run(
    JSON.stringify(trace),
    status ?? row.status,
    eventId,
  );
}

export function findEvent(db: Db, eventId: string): EventRow | undefined {
  return db.prepare('SELECT * FROM integration_events WHERE id = ?').get(eventId) as EventRow | undefined;
}

/** One page of the events of an integration, newest first, and their count. */
export function eventsPage(db: Db, integrationId: string, window: PageWindow): { rows: EventRow[]; count: number } {
  const count = db
    .prepare('SELECT COUNT(*) FROM integration_events WHERE integration_id = ?')
    .pluck(true)
    .get(integrationId) as number;
  const rows = db
    .prepare('SELECT * FROM integration_events WHERE integration_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?')
    .all(integrationId, window.limit, window.offset) as EventRow[];
  return { rows, count };
}

// ---------------------------------------------------------------------------------------------
// Events of spaces
// ---------------------------------------------------------------------------------------------

/**
 * The installations that cover a space: those enabled on it, and those of its organization
 * that apply to every space (`space_selection: all`), with their integration.
 */
export function installationsOnSpace(
  db: Db,
  spaceId: string,
): Array<{ installationId: string; integration: IntegrationRow }> {
  const rows = db
    .prepare(
      `SELECT inst.id AS installation_id, i.* FROM integration_installations inst
         JOIN integrations i ON i.id = inst.integration_id
         JOIN spaces s ON s.id = ?
       WHERE inst.org_id = s.org_id AND s.deleted_at IS NULL
         AND (inst.space_selection = 'all'
              OR EXISTS (SELECT 1 FROM integration_space_installations si WHERE si.installation_id = inst.id AND si.space_id = s.id))
       ORDER BY inst.created_at, inst.id`,
    )
    .all(spaceId) as Array<IntegrationRow & { installation_id: string }>;
  return rows.map(({ installation_id, ...integration }) => ({ installationId: installation_id, integration }));
}

/**
 * Records an event for every installation covering a space (call it inside the transaction of
 * the change); `payload` gets the installation and the space.
 */
export function recordSpaceEvents(db: Db, spaceId: string, payload: { type: string } & Record<string, unknown>): void {
  for (const { installationId, integration } of installationsOnSpace(db, spaceId)) {
    recordEvent(db, integration, { ...payload, installationId, spaceId });
  }
}

/** The users who updated a revision's content: the editors of the change request it merged. */
function updatersOf(db: Db, revisionId: string): string[] {
  const revision = db.prepare('SELECT merged_from FROM revisions WHERE id = ?').get(revisionId) as
    | { merged_from: string | null }
    | undefined;
  if (!revision?.merged_from) return [];
  const editors = db
    .prepare(
      "SELECT user_id FROM change_request_contributors WHERE change_request_id = ? AND action_type = 'edit' ORDER BY first_at, user_id",
    )
    .pluck(true)
    .all(revision.merged_from) as string[];
  if (editors.length > 0) return editors;
  const author = db
    .prepare('SELECT created_by FROM change_requests WHERE id = ?')
    .pluck(true)
    .get(revision.merged_from) as string | null | undefined;
  return author ? [author] : [];
}

/**
 * Records `space_content_updated` whenever a space covered by an installation gets a new
 * current revision (a merge, a Git import, a translation run…), in the transaction of the move.
 */
export function watchSpaceContent(db: Db): () => void {
  return onCurrentRevision(db, (spaceId, revisionId) => {
    if (installationsOnSpace(db, spaceId).length === 0) return;
    recordSpaceEvents(db, spaceId, {
      type: 'space_content_updated',
      revisionId,
      updatedBy: updatersOf(db, revisionId),
    });
  });
}
