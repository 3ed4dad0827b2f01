import type { FastifyInstance } from 'fastify';

export function spaceRoutes(_app: FastifyInstance): void {}
