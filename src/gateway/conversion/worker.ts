import { parentPort } from 'node:worker_threads';
import { checkDocument, convertJob } from './convert.js';
import { introspect } from './introspect.js';
import type { PoolJob, PoolOutcome } from './pool.js';

/**
 * A worker thread of the pool (`pool.ts`): it answers each `{ id, job }` with `{ id, outcome }`,
 * one at a time. The time and the garbage of a large document's conversion, or of an
 * introspection, stay off the gateway's event loop and heap.
 */

const port = parentPort;
if (!port) throw new Error('the conversion worker runs as a worker thread');

port.on('message', ({ id, job }: { id: number; job: PoolJob }) => {
  let outcome: PoolOutcome;
  try {
    if (job.kind === 'introspection') outcome = introspect(job);
    else if (job.kind === 'check') outcome = checkDocument(job);
    else outcome = convertJob(job);
  } catch (error) {
    outcome = { invalid: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage({ id, outcome });
});
