import { describe, expect, it } from 'vitest';
import { computeDocument, computePages, type SpecSnapshot } from '../../src/platform/openapi/computed.js';
import { readSpec, readText } from '../../src/platform/openapi/parse.js';
import type { OpenAPISpecRow, OpenAPIVersionRow } from '../../src/platform/openapi/store.js';

// The pure parts of OpenAPI support, without HTTP: reading documents and what they generate.

function snapshot(document: Record<string, unknown>): SpecSnapshot {
  const spec = { id: 'spec-1', slug: 'demo', visibility: 'private' } as OpenAPISpecRow;
  const version = { id: 'version-1' } as OpenAPIVersionRow;
  return { spec, version, document };
}

const titles = (pages: Array<{ title: string; pages: unknown[] }>) => pages.map((page) => page.title);

describe('reading documents', () => {
  it('tells JSON from YAML, and YAML in flow style from JSON', () => {
    expect(readText('{"openapi": "3.1.0"}')).toEqual({ format: 'json', value: { openapi: '3.1.0' } });
    expect(readText('openapi: 3.1.0\n')).toEqual({ format: 'yaml', value: { openapi: '3.1.0' } });
    expect(readText('{openapi: 3.1.0}')).toEqual({ format: 'yaml', value: { openapi: '3.1.0' } });
  });

  it('refuses duplicate keys and bounds aliases', async () => {
    expect(await readSpec('openapi: 3.0.0\nopenapi: 3.0.1\n')).toMatchObject({
      ok: false,
      problems: [{ code: 'SYNTAX', message: expect.stringMatching(/unique/) }],
    });
    const aliases = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 0; i < 12; i += 1)
      aliases.push(
        `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(97 + i)}`)
          .join(', ')}]`,
      );
    expect(await readSpec(`${aliases.join('\n')}\nopenapi: 3.0.0\n`)).toMatchObject({ ok: false, problemCount: 1 });
  });

  it('follows no external reference', async () => {
    const document = {
      openapi: '3.1.0',
      info: { title: 'Refs', version: '1' },
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                description: 'ok',
                content: { 'application/json': { schema: { $ref: 'http://127.0.0.1:1/schema.json' } } },
              },
            },
          },
        },
      },
    };
    expect(await readSpec(JSON.stringify(document))).toMatchObject({
      ok: true,
      format: 'json',
      specification: 'OpenAPI',
    });
  });
});

describe('generated pages', () => {
  it('orders tag pages as the document declares its tags, then as operations name the others', () => {
    const pages = computePages(
      snapshot({
        openapi: '3.1.0',
        tags: [{ name: 'b', 'x-displayName': 'Bees' }, { name: 'unused' }, { name: 'a' }],
        paths: {
          '/c': { get: { tags: ['c'], responses: {} } },
          '/a': { get: { tags: ['a'], responses: {} }, post: { tags: ['a', 'b'], responses: {} } },
          '/b': { delete: { tags: ['b'], responses: {} } },
          '/free': { get: { responses: {} } },
        },
      }),
      {},
      'seed',
    );
    expect(titles(pages)).toEqual(['Bees', 'a', 'c', 'Other operations']);
    expect(pages.map((page) => page.slug)).toEqual(['bees', 'a', 'c', 'other-operations']);
  });

  it('names a page of untagged operations alone after the API, and finds Swagger 2.0 models', () => {
    const pages = computePages(
      snapshot({
        swagger: '2.0',
        info: { title: 'Legacy API' },
        paths: { '/x': { get: {} } },
        definitions: { Thing: {}, Other: {} },
      }),
      { models: true },
      'seed',
    );
    expect(titles(pages)).toEqual(['Legacy API', 'Models']);
    const models = computeDocument(
      snapshot({ swagger: '2.0', definitions: { Thing: {}, Other: {} } }),
      { doc: 'models' },
      'seed',
    );
    expect(models.nodes).toMatchObject([{ type: 'openapi-schemas', data: { schemas: ['Thing', 'Other'] } }]);
  });

  it('keeps slugs unique beside the pages already there, and ids stable for a seed', () => {
    const document = {
      openapi: '3.0.0',
      paths: { '/m': { get: { tags: ['Models'], responses: {} } } },
      components: { schemas: { M: {} } },
    };
    const used = new Set(['models']);
    const pages = computePages(snapshot(document), {}, 'seed', used);
    expect(pages.map((page) => page.slug)).toEqual(['models-2', 'models-3']);
    expect(computePages(snapshot(document), {}, 'seed').map((page) => page.id)).toEqual(pages.map((page) => page.id));
    expect(computePages(snapshot(document), {}, 'other').map((page) => page.id)).not.toEqual(
      pages.map((page) => page.id),
    );
  });

  it('makes an empty document of what the specification does not have', () => {
    const document = { openapi: '3.0.0', paths: {} };
    expect(computeDocument(snapshot(document), { doc: 'operations', page: 'nothing' }, 's').nodes).toEqual([]);
    expect(
      computeDocument(snapshot(document), { doc: 'operation', page: '/nothing', method: 'get' }, 's').nodes,
    ).toEqual([]);
    expect(computePages(snapshot(document), { models: true }, 's')).toEqual([]);
  });
});
