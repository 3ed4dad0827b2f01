import { buildDist } from './fixtures/built.js';

/** Vitest's global setup: `dist/` built from the sources under test, before any file starts a process from it. */
export default function setup(): void {
  buildDist();
}
