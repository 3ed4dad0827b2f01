import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { writeVersion, type Db } from './store/db.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers with an `ETag` and answers `304 Not Modified` to a request whose
     * `If-None-Match` holds it (see `conditionalReads`). For the reads clients poll.
     */
    conditional?: boolean;
  }
  interface FastifyRequest {
    /** The entity tag of a conditional read, set before its handler runs. */
    entityTag?: string;
  }
}

/** The options of a GET route with conditional answers (`app.get(path, CONDITIONAL, handler)`). */
export const CONDITIONAL = { config: { conditional: true } } as const;

/**
 * Conditional reads, for the resources clients poll (a space's current revision, a change request,
 * a job's state). The entity tag is weak and derived without reading the resource: it hashes the
 * database's write version (anything written since, by any connection, changes it), the caller's
 * credentials, the URL and this process's start, so it changes with anything the answer could show
 * (a deletion, a revoked token and a lost right are writes too), and a 304 costs a hash: no read,
 * no serialization. It may change when the resource did not (any write changes it): a poller then
 * gets the same body again, never a stale one. Runs after authentication: a revoked token is
 * answered 401, never 304.
 */
export function conditionalReads(app: FastifyInstance, db: Db): void {
  // Write versions start again with the process: tags of an earlier one must not match.
  const epoch = randomUUID();
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.routeOptions.config.conditional !== true || request.method !== 'GET') return;
    const tag = `W/"${createHash('sha256')
      .update(`${epoch}\0${writeVersion(db)}\0${request.headers.authorization ?? ''}\0${request.url}`)
      .digest('base64url')
      .slice(0, 27)}"`;
    request.entityTag = tag;
    if (matches(request.headers['if-none-match'], tag)) return reply.code(304).header('etag', tag).send();
  });
  app.addHook('onSend', async (request, reply) => {
    if (request.entityTag && reply.statusCode === 200) reply.header('etag', request.entityTag);
  });
}

/** Whether an `If-None-Match` header holds `tag`, compared weakly (RFC 9110, 13.1.2). */
function matches(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => {
    const trimmed = candidate.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === opaque;
  });
}
