import type { Logger } from 'pino';
import type { OperationSink } from './operations.js';

/**
 * The operation log: one JSON line per GraphQL request (`msg: "operation"`), with its request id,
 * operation name and type, status, duration, upstream requests and error codes.
 */
export function operationLog(logger: Logger): OperationSink {
  return (report) => logger.info(report, 'operation');
}
