import type { FastifyInstance } from 'fastify';
import { notFound } from '../http.js';
import { OPEN_TO_VISITORS } from '../access.js';
import { userJson } from './json.js';
import { findVisibleUser } from './store.js';

/** GET /user and GET /users/{userId}. */
export function userRoutes(app: FastifyInstance): void {
  app.get('/user', OPEN_TO_VISITORS, async (request) => userJson(request.ctx.user, request.ctx.links));

  // A user is visible to themselves and to anyone sharing an organization with them.
  app.get<{ Params: { userId: string } }>('/users/:userId', async (request) => {
    const { db, user, links } = request.ctx;
    const target = request.params.userId === user.id ? user : findVisibleUser(db, request.params.userId, user.id);
    if (!target) throw notFound('User');
    return userJson(target, links);
  });
}
