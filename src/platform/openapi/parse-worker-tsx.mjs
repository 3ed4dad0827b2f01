// The entry of the OpenAPI reading worker when the platform runs from its TypeScript sources
// (tsx, vitest): a worker thread starts without the loader of its parent, so this registers
// tsx's loader in the worker, then loads the worker itself. Compiled runs (`dist/`) start
// `parse-worker.js` directly and never use this file. See `reader.ts`.
import { register } from 'tsx/esm/api';

register();
await import('./parse-worker.ts');
