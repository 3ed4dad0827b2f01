import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';

describe('GraphiQL', () => {
  it('is served at /graphql with its assets bundled and the demo token prefilled', async () => {
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9/v1',
      graphiql: { enabled: true, defaultToken: 'demo-token-123' },
    });
    const response = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    const html = await response.text();
    await gateway.close();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(html).toContain('renderYogaGraphiQL');
    expect(html).toContain('Bearer demo-token-123');
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:/);
  });

  it('can be turned off', async () => {
    const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9/v1', graphiql: { enabled: false } });
    const response = await gateway.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    await gateway.close();
    expect(await response.text()).not.toContain('renderYogaGraphiQL');
  });
});
