import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS } from '../../src/gateway/examples/operations.js';
import { createGateway } from '../../src/gateway/http/server.js';
import { defaultTabsOf } from '../fixtures/graphiql.js';

describe('GraphiQL', () => {
  it('is served at /graphql with its assets bundled', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: true } });
    const response = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    const html = await response.text();
    await gateway.close();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(html).toContain('renderYogaGraphiQL');
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:/);
  });

  it('opens a tab per example, and sends its page compressed to a browser that accepts it', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: true } });
    try {
      const plain = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
      const html = await plain.text();
      expect(plain.headers.get('content-encoding')).toBeNull();
      // A tab per example, with its variables and its headers (and no token: none was given).
      const tabs = defaultTabsOf(html);
      expect(tabs).toHaveLength(EXAMPLE_OPERATIONS.length);
      EXAMPLE_OPERATIONS.forEach((example, index) => {
        expect(tabs[index]!.query).toContain(example.document);
        expect(JSON.parse(tabs[index]!.variables ?? 'null')).toEqual(example.variables ?? null);
        expect(JSON.parse(tabs[index]!.headers ?? 'null')).toEqual(example.headers ?? null);
      });
      expect(html).not.toContain('Bearer');
      for (const [accepted, encoding, decode] of [
        ['gzip, deflate, br', 'br', brotliDecompressSync],
        ['gzip;q=1.0, br;q=0', 'gzip', gunzipSync],
      ] as const) {
        const response = await gateway.fetch('http://gateway.test/graphql', {
          headers: { accept: 'text/html', 'accept-encoding': accepted },
        });
        const bytes = Buffer.from(await response.arrayBuffer());
        expect(response.headers.get('content-encoding')).toBe(encoding);
        expect(Number(response.headers.get('content-length'))).toBe(bytes.length);
        expect(bytes.length).toBeLessThan(Buffer.byteLength(html) / 3);
        expect(decode(bytes).toString()).toBe(html);
      }
      // GraphQL answers are left as they are.
      const answer = await gateway.fetch('http://gateway.test/graphql?query=%7B__typename%7D', {
        headers: { accept: 'application/json', 'accept-encoding': 'br', 'x-graphql-csrf': '1' },
      });
      expect(answer.headers.get('content-encoding')).toBeNull();
      expect(await answer.json()).toMatchObject({ data: { __typename: 'Query' } });
    } finally {
      await gateway.close();
    }
  });

  it('is cached by the browser: an ETag of its bytes, revalidated on each load, 304 while unchanged', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: true } });
    const page = (headers: Record<string, string> = {}) =>
      gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html', ...headers } });
    try {
      const first = await page();
      const html = await first.text();
      const tag = `W/"${createHash('sha256').update(html).digest('base64url')}"`;
      expect(first.status).toBe(200);
      expect(first.headers.get('etag')).toBe(tag);
      expect(first.headers.get('cache-control')).toBe('no-cache');
      // Compressed, the same page with the same tag.
      const compressed = await page({ 'accept-encoding': 'br' });
      expect(compressed.headers.get('content-encoding')).toBe('br');
      expect(compressed.headers.get('etag')).toBe(tag);
      expect(compressed.headers.get('cache-control')).toBe('no-cache');
      expect(compressed.headers.get('vary')).toBe('accept-encoding');
      expect(brotliDecompressSync(Buffer.from(await compressed.arrayBuffer())).toString()).toBe(html);
      // Revalidated, as a browser sends it (a tag a proxy weakened or not, among others), it is not sent again.
      for (const sent of [tag, tag.slice(2), `"other", ${tag}`]) {
        const revalidated = await page({ 'accept-encoding': 'br', 'if-none-match': sent });
        expect(revalidated.status).toBe(304);
        expect(Object.fromEntries(revalidated.headers)).toEqual({
          etag: tag,
          'cache-control': 'no-cache',
          vary: 'accept-encoding',
          'x-request-id': expect.any(String),
        });
        expect(await revalidated.text()).toBe('');
      }
      const changed = await page({ 'if-none-match': 'W/"another-page"' });
      expect(changed.status).toBe(200);
      expect(await changed.text()).toBe(html);
      // The brotli copy kept is found by the tag again: the same bytes.
      const again = await page({ 'accept-encoding': 'br' });
      expect(brotliDecompressSync(Buffer.from(await again.arrayBuffer())).toString()).toBe(html);
    } finally {
      await gateway.close();
    }
  });

  it('can be turned off', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: false } });
    const response = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    await gateway.close();
    expect(await response.text()).not.toContain('renderYogaGraphiQL');
  });
});
