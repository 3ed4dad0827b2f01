import type { FastifyInstance } from 'fastify';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * `GET /v1/` (`getApiInformation`): the platform's release (its package's version) and when the
 * code that answers was built (its file's time: the bundle's in production, the source's when run
 * from source). Read once: neither changes while the process runs.
 */
export function apiInformationRoutes(app: FastifyInstance): void {
  const information = apiInformation();
  app.get('/', async () => information);
}

function apiInformation(): { version: string; build: string } {
  const code = fileURLToPath(import.meta.url);
  return { version: packageVersion(dirname(code)), build: statSync(code).mtime.toISOString() };
}

/** The version of the nearest `package.json` above `from` (the code runs from `src/` or `dist/`). */
function packageVersion(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    try {
      return (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version: string }).version;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(folder) === folder) throw error;
    }
  }
}
