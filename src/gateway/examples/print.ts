import { readFileSync, writeFileSync } from 'node:fs';
import { exampleManifest } from './manifest.js';

/**
 * Writes the built-in manifest of persisted operations to `docs/persisted-operations.json`
 * (`npm run persisted`): the ids clients send as `documentId` for the example operations.
 * `--check` fails, naming the fix, when the file is not what the examples give.
 */
const FILE = new URL('../../../docs/persisted-operations.json', import.meta.url);
const text = `${JSON.stringify(Object.fromEntries(exampleManifest()), null, 2)}\n`;

if (process.argv.includes('--check')) {
  if (readFileSync(FILE, 'utf8') !== text) {
    console.error('docs/persisted-operations.json is not the manifest of the examples: run `npm run persisted`');
    process.exit(1);
  }
} else {
  writeFileSync(FILE, text);
}
