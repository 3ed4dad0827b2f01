import type { FastifyInstance } from 'fastify';

export function teamRoutes(_app: FastifyInstance): void {}
