import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../graphql/index.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

let g: TestGateway;
beforeAll(async () => {
  g = await startTestGateway();
});
afterAll(() => g.destroy());

const Viewer = graphql(`
  query TypedViewer {
    viewer {
      platformId
      displayName
      email
    }
  }
`);

describe('typed documents', () => {
  it('run through the gateway with results typed from the schema', async () => {
    const result = await g.typed(Viewer);
    expect(result.errors).toBeUndefined();
    const viewer = result.data?.viewer;
    expect(viewer?.email).toBe('ada@acme.test');
    expect(viewer?.displayName).toBe('Ada Lovelace');
    expect(result.upstream).toBe(1);
  });
});
