import { parentPort } from 'node:worker_threads';
import { readSpec } from './parse.js';

/**
 * The worker thread that reads OpenAPI documents for `SpecReader` (`reader.ts`): it gets a text
 * and answers what `readSpec` found (the parsed document, or the problems), one text at a time.
 * Parsing and validating a large document takes seconds of CPU and much garbage; here they take
 * them from this thread's own heap and event loop, not from the platform's.
 */

export interface ReadRequest {
  id: number;
  text: string;
}

export type ReadAnswer = { id: number; reading: Awaited<ReturnType<typeof readSpec>> } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('parse-worker runs as a worker thread');

port.on('message', (request: ReadRequest) => {
  readSpec(request.text).then(
    (reading) => port.postMessage({ id: request.id, reading } satisfies ReadAnswer),
    (error: unknown) => port.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies ReadAnswer),
  );
});
