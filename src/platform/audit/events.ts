import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { JobQueue } from '../jobs.js';
import { badRequest, notFound, pageOf, pageParams, pageWindow, parseQuery } from '../http.js';
import type { Links } from '../links.js';
import { declareConnectionSetup, declareTables, type Db } from '../store/db.js';
import { auditEventSeq } from './context.js';
import { auditActions, installAuditTriggers } from './triggers.js';
import './audited.js';

/**
 * Audit events of organizations: every write to an audited table (`audited.ts`, `auditTables`) is
 * recorded by a trigger in the writing statement, with its actor, source and correlation id from
 * the request or job it runs in (`context.ts`); admins read them here. Events are kept
 * `retentionDays` and pruned by a job.
 */

// No foreign key to the organization: events outlive what they name, and the organization's own
// deletion is an event of it. What an audited write adds to the WAL is what this table costs it (bench/
// platform-writes.ts): the rows are kept in the order of their organization and `seq` (its events numbered as
// committed), so that the table is the organization's index and a write lands on the last page of its
// organization's; the id embeds `seq` (`auditEventSeq`), so that no index of ids is written; no AUTOINCREMENT
// (its counter is one more page per write). The actor and target filters have their indexes.
declareTables('audit-events', [
  `
  CREATE TABLE IF NOT EXISTS audit_events (
    org_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL,
    occurred_at TEXT NOT NULL,
    action TEXT NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_label TEXT,
    source TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    target_label TEXT,
    correlation_id TEXT NOT NULL,
    execution_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (org_id, seq)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS audit_events_by_actor ON audit_events(org_id, actor_id, seq);
  CREATE INDEX IF NOT EXISTS audit_events_by_target ON audit_events(org_id, target_id, seq);
  `,
]);

declareConnectionSetup('audit-events', installAuditTriggers);

/** The version of every action's payload schema. */
const SCHEMA_VERSION = 1;
/** Events kept unless configured (`AUDIT_RETENTION_DAYS`). */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;
/** Most events one page lists (the description's maximum of `limit`). */
export const MAX_AUDIT_PAGE = 100;
const DEFAULT_AUDIT_PAGE = 20;
/** Events one prune statement deletes: a long backlog is pruned in short transactions. */
const PRUNE_BATCH = 5000;
const PRUNE_JOB = 'audit-prune';

interface AuditEventRow {
  seq: number;
  id: string;
  org_id: string;
  occurred_at: string;
  action: string;
  actor_type: string;
  actor_id: string;
  actor_label: string | null;
  source: string;
  target_type: string;
  target_id: string;
  target_label: string | null;
  correlation_id: string;
  execution_id: string;
  payload: string;
}

const labelled = (type: string, id: string, label: string | null) => ({ type, id, ...(label ? { label } : {}) });

function auditEventJson(row: AuditEventRow, links: Links) {
  return {
    object: 'audit-event' as const,
    id: row.id,
    occurredAt: row.occurred_at,
    action: row.action,
    actor: labelled(row.actor_type, row.actor_id, row.actor_label),
    source: row.source,
    target: labelled(row.target_type, row.target_id, row.target_label),
    urls: { location: `${links.api}/orgs/${row.org_id}/audit-events/${row.id}` },
  };
}

function auditEventDetailsJson(row: AuditEventRow, links: Links) {
  return {
    ...auditEventJson(row, links),
    correlationId: row.correlation_id,
    executionId: row.execution_id,
    schemaVersion: SCHEMA_VERSION,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
  };
}

const time = (name: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .refine((value) => !Number.isNaN(Date.parse(value)), `must be a date-time (${name})`)
    .transform((value) => new Date(value).toISOString())
    .optional();
const exact = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional();
const listQuery = z.object({
  ...pageParams,
  limit: z.coerce
    .number({ message: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(MAX_AUDIT_PAGE, `must be at most ${MAX_AUDIT_PAGE}`)
    .optional(),
  from: time('from'),
  to: time('to'),
  action: exact,
  actor: exact,
  target: exact,
});

/** One page of an organization's events, newest first, filtered as the query says. */
function listAuditEvents(db: Db, orgId: string, query: z.infer<typeof listQuery>) {
  if (query.from && query.to && query.from > query.to)
    throw badRequest('Invalid query field "from": must not be after "to"');
  const where = ['org_id = ?'];
  const params: unknown[] = [orgId];
  const add = (sql: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(sql);
    params.push(value);
  };
  add('action = ?', query.action);
  add('actor_id = ?', query.actor);
  add('target_id = ?', query.target);
  add('occurred_at >= ?', query.from);
  add('occurred_at <= ?', query.to);
  const window = pageWindow({ page: query.page, limit: query.limit ?? DEFAULT_AUDIT_PAGE });
  const count = db
    .prepare(`SELECT COUNT(*) FROM audit_events WHERE ${where.join(' AND ')}`)
    .pluck(true)
    .get(...params) as number;
  const rows = db
    .prepare(`SELECT * FROM audit_events WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ? OFFSET ?`)
    .all(...params, window.limit, window.offset) as AuditEventRow[];
  return { rows, count, window };
}

/**
 * Deletes the events older than `retentionDays`, a batch at a time, organization by organization; answers how
 * many. An organization's oldest events come first in `seq`: each batch reads its first PRUNE_BATCH events
 * alone, and the first batch that is not all old is its last.
 */
export function pruneAuditEvents(db: Db, retentionDays: number, now = Date.now()): number {
  const before = new Date(now - retentionDays * 24 * 60 * 60 * 1000).toISOString();
  const nextOrg = db.prepare('SELECT org_id FROM audit_events WHERE org_id > ? ORDER BY org_id LIMIT 1').pluck(true);
  const prune = db.prepare(
    `DELETE FROM audit_events WHERE org_id = ? AND occurred_at < ?
       AND seq <= (SELECT max(seq) FROM (SELECT seq FROM audit_events WHERE org_id = ? ORDER BY seq LIMIT ?))`,
  );
  let total = 0;
  for (let org = nextOrg.get('') as string | undefined; org !== undefined; org = nextOrg.get(org) as string) {
    for (;;) {
      const { changes } = prune.run(org, before, org, PRUNE_BATCH);
      total += changes;
      if (changes < PRUNE_BATCH) break;
    }
  }
  return total;
}

/**
 * Registers the pruning job and answers a function that queues it unless one is queued already:
 * called at start and then every `everyMs` (answered `stop` ends the schedule).
 */
export function registerAuditPruning(
  jobs: JobQueue,
  db: Db,
  options: { retentionDays: number; everyMs?: number },
): { start(): void; stop(): void } {
  jobs.register<Record<string, never>>(PRUNE_JOB, {
    run: async (_payload, context) => {
      pruneAuditEvents(context.db, options.retentionDays);
    },
  });
  const queue = () => {
    const pending = db.prepare("SELECT 1 FROM jobs WHERE kind = ? AND state IN ('queued', 'running')").get(PRUNE_JOB);
    if (!pending) jobs.enqueue(PRUNE_JOB, {}, { key: PRUNE_JOB });
  };
  let timer: NodeJS.Timeout | undefined;
  return {
    start() {
      queue();
      timer = setInterval(queue, options.everyMs ?? 60 * 60 * 1000);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

type OrgParams = { organizationId: string };

/** The audit routes: organization admins list and read their organization's events and the actions. */
export function auditEventRoutes(app: FastifyInstance): void {
  app.get<{ Params: OrgParams }>('/orgs/:organizationId/audit-events', async (request) => {
    const query = parseQuery(listQuery, request.query);
    const org = request.ctx.access.requireOrg(request.params.organizationId, 'admin');
    const { rows, count, window } = listAuditEvents(request.ctx.db, org.id, query);
    return pageOf(
      rows.map((row) => auditEventJson(row, request.ctx.links)),
      count,
      window,
    );
  });

  app.get<{ Params: OrgParams & { auditEventId: string } }>(
    '/orgs/:organizationId/audit-events/:auditEventId',
    async (request) => {
      const org = request.ctx.access.requireOrg(request.params.organizationId, 'admin');
      const seq = auditEventSeq(request.params.auditEventId);
      const row = (
        seq === undefined
          ? undefined
          : request.ctx.db
              .prepare('SELECT * FROM audit_events WHERE org_id = ? AND seq = ? AND id = ?')
              .get(org.id, seq, request.params.auditEventId)
      ) as AuditEventRow | undefined;
      if (!row) throw notFound('Audit event');
      return auditEventDetailsJson(row, request.ctx.links);
    },
  );

  app.get<{ Params: OrgParams }>('/orgs/:organizationId/audit-event-actions', async (request) => {
    request.ctx.access.requireOrg(request.params.organizationId, 'admin');
    return { items: auditActions().map((action) => ({ object: 'audit-event-action' as const, ...action })) };
  });
}
