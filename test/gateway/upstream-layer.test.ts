import { globSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const schemaDir = join(root, 'src/gateway/schema');

/** Lines of the schema's files that match `pattern`, as `file:line: text`. */
function schemaLinesMatching(pattern: RegExp): string[] {
  return globSync(join(schemaDir, '**/*.ts')).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe('the upstream layer', () => {
  it('builds every REST path from an operation record: none is built under schema/', () => {
    expect(schemaLinesMatching(/\bpathOf\(|from '(\.\.\/)+upstream\/client\.js'/)).toEqual([]);
  });

  it('leaves the schema no REST call of its own (signed URLs aside)', () => {
    expect(schemaLinesMatching(/\bctx\.api\.(get|getAs|getFirstPage|send|postRead)\(/)).toEqual([]);
  });
});
