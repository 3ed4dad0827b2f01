import { parentPort } from 'node:worker_threads';
import { convertJob, type ConversionJob, type ConversionOutcome } from './convert.js';

/**
 * A worker thread of the conversion pool (`pool.ts`): it answers each `{ id, job }` with
 * `{ id, outcome }`, one at a time. The time and the garbage of a large document's conversion
 * stay off the gateway's event loop and heap.
 */

const port = parentPort;
if (!port) throw new Error('the conversion worker runs as a worker thread');

port.on('message', ({ id, job }: { id: number; job: ConversionJob }) => {
  let outcome: ConversionOutcome;
  try {
    outcome = convertJob(job);
  } catch (error) {
    outcome = { invalid: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage({ id, outcome });
});
