import type { RequestApi } from './request.js';
import { route } from './client.js';
import { user } from './shapes/users.js';

/** `GET /user`: the caller. */
export const getCurrentUser = (api: RequestApi) => api.get('/user', user);

/** `GET /users/{userId}` */
export const getUser = (api: RequestApi, userId: string) => api.get(route`/users/${userId}`, user);
