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

  it('can be turned off', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: false } });
    const response = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    await gateway.close();
    expect(await response.text()).not.toContain('renderYogaGraphiQL');
  });
});
