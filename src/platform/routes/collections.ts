import type { FastifyInstance } from 'fastify';

export function collectionRoutes(_app: FastifyInstance): void {}
