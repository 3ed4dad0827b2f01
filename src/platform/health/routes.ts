import type { FastifyInstance } from 'fastify';
import type { Db } from '../store/db.js';

/** Route paths of the health checks: served without a token, outside `/v1`, and left out of `app.stats`. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/health', '/ready']);

/**
 * `GET /health`: the process answers (200 `{"status":"ok"}`). `GET /ready`: the database answers
 * a trivial query too (200 `{"status":"ready"}`), else 503 in the platform's error shape, saying
 * why. Neither needs a token; register them outside the `/v1` prefix.
 */
export function healthRoutes(app: FastifyInstance, db: Db): void {
  app.get('/health', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });

  app.get('/ready', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    try {
      db.prepare('SELECT 1').pluck().get();
      return { status: 'ready' };
    } catch (error) {
      const reason = error instanceof Error ? error.message.slice(0, 200) : 'unknown error';
      return reply
        .code(503)
        .send({ error: { code: 503, message: `Not ready: the database does not answer (${reason})` } });
    }
  });
}
