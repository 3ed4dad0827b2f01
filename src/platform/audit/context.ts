import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Db } from '../store/db.js';

/** Who made a write, as the description's `AuditEventActor` types it. */
export type AuditActorType = 'user' | 'integration' | 'installation' | 'system' | 'support';
/** The entry point of a write, as the description's `AuditEvent.source` lists them. */
export type AuditSource = 'ui' | 'api' | 'integration' | 'webhook' | 'workflow' | 'script' | 'support';

/** What the audit triggers record of the write in progress, besides its row. */
export interface AuditContext {
  actor: { type: AuditActorType; id: string; label?: string | undefined };
  source: AuditSource;
  /** Shared by the events of one action of a caller (the `x-request-id` the gateway sends, else the request's id). */
  correlationId: string;
  /** The operation that wrote: the platform's request, or the job. */
  executionId: string;
}

/** The system's own writes: seeds, migrations, maintenance outside any request or job. */
export const SCRIPT_CONTEXT: AuditContext = {
  actor: { type: 'system', id: 'system', label: 'System' },
  source: 'script',
  correlationId: 'script',
  executionId: 'script',
};

/**
 * A request's store: the request itself, read once the caller is authenticated (`request.ctx`), so
 * that the store entered before authentication names the caller of every write after it.
 */
type Store = { request: FastifyRequest } | { context: AuditContext };

const storage = new AsyncLocalStorage<Store>();

function contextOfRequest(request: FastifyRequest): AuditContext {
  const header = request.headers['x-request-id'];
  const correlationId = typeof header === 'string' && header.length > 0 && header.length <= 200 ? header : request.id;
  const user = request.ctx?.user;
  if (!user) return { ...SCRIPT_CONTEXT, source: 'api', correlationId, executionId: request.id };
  // An installation token's caller says so: the platform set `installation` when it authenticated the token.
  const installation = request.ctx.installation;
  return {
    actor: installation
      ? { type: 'installation', id: installation, label: user.display_name }
      : { type: 'user', id: user.id, label: user.display_name },
    source: installation ? 'integration' : 'api',
    correlationId,
    executionId: request.id,
  };
}

/** The context of the write in progress: the current request's caller, the job's, or the system's. */
export function currentAuditContext(): AuditContext {
  const store = storage.getStore();
  if (!store) return SCRIPT_CONTEXT;
  return 'context' in store ? store.context : contextOfRequest(store.request);
}

/** Runs `fn` with its writes recorded as `context`'s (a job: the system, from a workflow). */
export function auditAs<T>(context: AuditContext, fn: () => T): T {
  return storage.run({ context }, fn);
}

/** The context of a job's writes: the system, from a workflow, under the job's id. */
export function jobAuditContext(jobId: number): AuditContext {
  return {
    actor: { type: 'system', id: 'system', label: 'System' },
    source: 'workflow',
    correlationId: `job-${jobId}`,
    executionId: `job-${jobId}`,
  };
}

/**
 * Enters every request's store, as `@fastify/request-context` does: in a callback-style `onRequest`
 * hook, so that the rest of the request's life runs inside it; entered again before validation,
 * since a body parsed from the socket's events resumes in the socket's context, not the request's.
 */
export function auditRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    storage.run({ request }, done);
  });
  app.addHook('preValidation', (request, _reply, done) => {
    storage.run({ request }, done);
  });
}

const registered = new WeakSet<Db>();

/**
 * An event's id: a UUID (version 8: its own layout) whose last 12 hex digits are the event's `seq`, so that it is
 * found by its organization's primary key; the rest, from the first 18 hex digits of `hex`, make it unguessable.
 */
function auditEventId(hex: string, seq: number): string {
  const tail = seq.toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(12, 15)}-a${hex.slice(15, 18)}-${tail}`;
}

/** The `seq` an event id embeds, or undefined for an id this platform never made. */
export function auditEventSeq(id: string): number | undefined {
  const match = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-a[0-9a-f]{3}-([0-9a-f]{12})$/.exec(id);
  return match ? Number.parseInt(match[1]!, 16) : undefined;
}

/**
 * Registers on a connection the SQL functions the audit triggers call: `audit_context()`, the
 * current context as JSON (read once per written row), and `audit_id(org, seq)`, the id of the
 * organization's event `seq`.
 */
export function registerAuditFunctions(db: Db): void {
  if (registered.has(db)) return;
  registered.add(db);
  db.function('audit_context', { deterministic: false }, () => {
    const context = currentAuditContext();
    return JSON.stringify({
      t: context.actor.type,
      i: context.actor.id,
      l: context.actor.label ?? null,
      s: context.source,
      c: context.correlationId,
      e: context.executionId,
    });
  });
  // The system's scripted writes (the demo seed) get ids derived from the organization and the sequence number,
  // so that every install of the demo has the same ones; the rest are random. Either ends with the number.
  db.function('audit_id', { deterministic: false }, (org: unknown, seq: unknown) => {
    const hex =
      currentAuditContext() === SCRIPT_CONTEXT
        ? createHash('sha256')
            .update(`audit-event#${String(org)}#${Number(seq)}`)
            .digest('hex')
        : // Node keeps a buffer of random bytes for UUIDs: an order of magnitude cheaper than randomBytes here.
          randomUUID().replaceAll('-', '');
    return auditEventId(hex, Number(seq));
  });
}
