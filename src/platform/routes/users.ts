import type { FastifyInstance } from 'fastify';
import { notFound } from '../http.js';
import type { UserRow } from '../rows.js';
import { userJson } from '../serialize.js';
import { OPEN_TO_VISITORS } from '../sites/visitor-access.js';

/** GET /user and GET /users/{userId}. */
export function userRoutes(app: FastifyInstance): void {
  app.get('/user', OPEN_TO_VISITORS, async (request) => userJson(request.ctx.user, request.ctx.links));

  // A user is visible to themselves and to anyone sharing an organization with them.
  app.get<{ Params: { userId: string } }>('/users/:userId', async (request) => {
    const { db, user, links } = request.ctx;
    const target =
      request.params.userId === user.id
        ? user
        : (db
            .prepare(
              `SELECT u.* FROM users u WHERE u.id = ? AND EXISTS (
                 SELECT 1 FROM members a JOIN members b ON a.org_id = b.org_id
                 WHERE a.user_id = u.id AND b.user_id = ?)`,
            )
            .get(request.params.userId, user.id) as UserRow | undefined);
    if (!target) throw notFound('User');
    return userJson(target, links);
  });
}
