import { parentPort } from 'node:worker_threads';
import type { TaskAnswer, TaskMessage } from '../task-worker.js';
import { readSpec, type SpecReading } from './parse.js';

/**
 * The worker thread that reads OpenAPI documents for `SpecReader` (`reader.ts`): it gets a text
 * and answers what `readSpec` found (the parsed document, or the problems), one text at a time.
 * Parsing and validating a large document takes seconds of CPU and much garbage; here they take
 * them from this thread's own heap and event loop, not from the platform's.
 */

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread');

port.on('message', ({ id, request }: TaskMessage<string>) => {
  readSpec(request).then(
    (answer) => port.postMessage({ id, answer } satisfies TaskAnswer<SpecReading>),
    (error: unknown) =>
      port.postMessage({
        id,
        error: error instanceof Error ? error.message : String(error),
      } satisfies TaskAnswer<SpecReading>),
  );
});
