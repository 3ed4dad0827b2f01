import type { RequestApi } from './request.js';
import * as op from './contract/operations.js';

/** `GET /user`: the caller. */
export const getCurrentUser = (api: RequestApi) => api.read(op.getAuthenticatedUser, {});

/** `GET /users/{userId}` */
export const getUser = (api: RequestApi, userId: string) => api.read(op.getUserById, { userId });
