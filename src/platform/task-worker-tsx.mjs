// The entry of a `TaskWorker` (task-worker.ts) when the platform runs from its TypeScript
// sources (tsx, vitest): a worker thread starts without the loader of its parent, so this
// registers tsx's loader in the worker, then loads the worker module named in `workerData`.
// Compiled runs (`dist/`) start the compiled worker module directly and never use this file.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
