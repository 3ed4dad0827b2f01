import { globSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { route, routeTemplate } from '../../src/gateway/upstream/client.js';

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
  it('builds every REST path: none is built under schema/', () => {
    expect(schemaLinesMatching(/\broute`|from '(\.\.\/)+upstream\/client\.js'/)).toEqual([]);
  });

  it('leaves the schema no REST call of its own (signed URLs aside)', () => {
    expect(schemaLinesMatching(/\bctx\.api\.(get|getAs|getFirstPage|send|postRead)\(/)).toEqual([]);
  });
});

describe('route templates (the label of an upstream request in the metrics)', () => {
  it('names each path by its template, never by the ids in it', () => {
    const space = route`/spaces/${'sp-1'}/change-requests/${'cr 2'}`;
    const content = route`/spaces/${'sp-9'}/content`;
    expect(routeTemplate(space)).toBe('/spaces/{id}/change-requests/{id}');
    expect(routeTemplate(`${content}/pages`)).toBe('/spaces/{id}/content/pages');
    expect(routeTemplate(`${content}/path/guides/install`)).toBe('/spaces/{id}/content/path/{path}');
    expect(routeTemplate('/user')).toBe('/user');
    expect(routeTemplate('/urls/published')).toBe('/urls/published');
    expect(routeTemplate('/orgs/never-built-by-route/spaces/x1')).toBe('(other)');
  });
});
