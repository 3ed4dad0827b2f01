import type { FastifyInstance } from 'fastify';

export function memberRoutes(_app: FastifyInstance): void {}
