import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
const schemaDir = join(root, 'src/gateway/schema');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Lines of the schema's files that match `pattern`, as `file:line: text`. */
function schemaLinesMatching(pattern: RegExp): string[] {
  return sourceFiles(schemaDir).flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (pattern.test(line) ? [`${relative(root, file)}:${index + 1}: ${line.trim()}`] : [])),
  );
}

describe('the upstream layer', () => {
  it('builds every REST path: none is built under schema/', () => {
    expect(schemaLinesMatching(/\broute`|from '(\.\.\/)+upstream\/client\.js'/)).toEqual([]);
  });

  it('leaves the schema no REST call of its own (signed URLs aside)', () => {
    expect(schemaLinesMatching(/\bctx\.api\.(get|getAs|getFirstPage|send|postRead)\(/)).toEqual([]);
  });
});
