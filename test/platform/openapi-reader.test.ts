import { describe, expect, it } from 'vitest';
import {
  documentCacheSize,
  hasDocument,
  rememberDocument,
  versionDocument,
} from '../../src/platform/openapi/documents.js';
import { readSpec } from '../../src/platform/openapi/parse.js';
import { SpecReader, SpecReaderError } from '../../src/platform/openapi/reader.js';

// The worker thread that reads OpenAPI texts, and the cache of parsed versions.

const valid = (title: string) =>
  `openapi: 3.1.0\ninfo:\n  title: ${title}\n  version: '1'\npaths:\n  /ping:\n    get:\n      responses:\n        '204':\n          description: Pong.\n`;

/** A valid document of `paths` paths, in JSON: large enough to need far more than a few MB to read. */
function large(paths: number): string {
  const schema = {
    type: 'object',
    properties: { id: { type: 'string' }, name: { type: 'string', description: 'The name.' } },
  };
  return JSON.stringify({
    openapi: '3.1.0',
    info: { title: 'Large', version: '1' },
    paths: Object.fromEntries(
      Array.from({ length: paths }, (_, n) => [
        `/things-${n}`,
        {
          get: {
            operationId: `get${n}`,
            responses: { '200': { description: 'ok', content: { 'application/json': { schema } } } },
          },
        },
      ]),
    ),
  });
}

describe('SpecReader', () => {
  it('reads in a worker thread what readSpec reads in this one', async () => {
    const reader = new SpecReader();
    try {
      expect(reader.inWorker).toBe(true);
      for (const text of [
        valid('A'),
        'openapi: 3.0.0\nopenapi: 3.0.1\n',
        '{"hello": "world"}',
        'a: .inf\nb: [1, 2.5, null, true]\nopenapi: 3.1.0\n',
      ]) {
        expect(await reader.read(text)).toEqual(await readSpec(text));
      }
      expect(reader.readings).toBe(4);
    } finally {
      await reader.close();
    }
  });

  it('fails a reading that takes too long, and one whose worker runs out of memory; the next reading gets a new worker', async () => {
    const slow = new SpecReader({ timeoutMs: 1 });
    try {
      const error = await slow.read(large(2000)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SpecReaderError);
      expect(error).toMatchObject({ reason: 'timeout', message: 'The document could not be read within 1 ms' });
    } finally {
      await slow.close();
    }

    const small = new SpecReader({ maxHeapMb: 24 });
    try {
      const error = await small.read(large(20_000)).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ reason: 'crash', message: 'The document is too large to be read (out of memory)' });
      expect(await small.read(valid('After the crash'))).toMatchObject({
        ok: true,
        document: { info: { title: 'After the crash' } },
      });
    } finally {
      await small.close();
    }
  });

  it('reads texts one after the other, and refuses readings once closed', async () => {
    const reader = new SpecReader();
    const readings = await Promise.all(['A', 'B', 'C'].map((title) => reader.read(valid(title))));
    expect(readings.map((reading) => reading.ok && reading.document.info)).toEqual([
      { title: 'A', version: '1' },
      { title: 'B', version: '1' },
      { title: 'C', version: '1' },
    ]);
    const pending = reader.read(valid('D')).catch((caught: unknown) => caught);
    await reader.close();
    expect(await pending).toMatchObject({ reason: 'closed' });
    await expect(reader.read(valid('E'))).rejects.toMatchObject({ reason: 'closed' });
  });

  it('reads in the calling thread when asked to', async () => {
    const reader = new SpecReader({ mode: 'thread' });
    expect(reader.inWorker).toBe(false);
    expect(await reader.read(valid('Here'))).toMatchObject({ ok: true, format: 'yaml' });
    await reader.close();
  });
});

describe('the cache of parsed versions', () => {
  it('keeps at most 16 documents and 8 MiB of their texts, the least recently used leaving first, and always the newest', () => {
    for (let n = 0; n < 20; n += 1) rememberDocument(`count-${n}`, 10, { n });
    expect(documentCacheSize().entries).toBe(16);
    expect(hasDocument('count-3')).toBe(false);
    expect(hasDocument('count-4')).toBe(true);
    // A read makes an entry the most recently used.
    expect(versionDocument({ id: 'count-4', text: 'not read again' })).toEqual({ n: 4 });
    rememberDocument('count-20', 10, { n: 20 });
    expect(hasDocument('count-4')).toBe(true);
    expect(hasDocument('count-5')).toBe(false);

    rememberDocument('big-1', 5 * 1024 * 1024, {});
    rememberDocument('big-2', 5 * 1024 * 1024, {});
    expect(hasDocument('big-1')).toBe(false);
    expect(documentCacheSize().chars).toBeLessThanOrEqual(8 * 1024 * 1024);
    rememberDocument('huge', 20 * 1024 * 1024, {});
    expect(hasDocument('huge')).toBe(true);
    expect(documentCacheSize()).toEqual({ entries: 1, chars: 20 * 1024 * 1024 });

    // A version not kept is read from its text.
    expect(versionDocument({ id: 'text-1', text: 'openapi: 3.1.0\n' })).toEqual({ openapi: '3.1.0' });
    expect(versionDocument({ id: 'text-2', text: '[1]' })).toBeNull();
  });
});
