import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { printSchema } from 'graphql';
import { schema } from './index.js';

/**
 * `npm run schema` writes `schema.graphql` from the code; `npm run schema:check` fails when
 * the committed file differs from what the code prints.
 */
const file = fileURLToPath(new URL('../../../schema.graphql', import.meta.url));
const printed = `${printSchema(schema)}\n`;

if (process.argv.includes('--write')) {
  writeFileSync(file, printed);
  console.log('schema.graphql written');
} else {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // a missing file differs like any other
  }
  if (committed !== printed) {
    console.error('schema.graphql is out of date: run `npm run schema` and commit the result.');
    process.exit(1);
  }
  console.log('schema.graphql is up to date');
}
