import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS, type ExampleOperation } from '../../src/gateway/examples/operations.js';
import { documentHash } from '../../src/gateway/policy/manifest.js';
import { assemble, payloadsOf, type Payload } from '../fixtures/incremental.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

/**
 * Every example GraphiQL opens runs as it is written, variables and headers included, against the
 * demo data as seeded: queries and subscriptions on one demo platform, each mutation on a fresh one
 * (so that the others see the demo as it was seeded). Each is sent by its id, as a persisted operation.
 */

const kindOf = (example: ExampleOperation) => /^(query|mutation|subscription) (\w+)/.exec(example.document)!;

/** Runs an example through the gateway of `g` as the demo admin: the whole answer, assembled from its parts. */
async function run(g: TestGateway, example: ExampleOperation) {
  const [, type] = kindOf(example);
  g.platform.app.stats.reset();
  const abort = new AbortController();
  const response = await g.gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      // As GraphiQL asks: answers in parts over multipart, subscriptions over SSE.
      accept: type === 'subscription' ? 'text/event-stream' : 'multipart/mixed, application/graphql-response+json',
      authorization: `Bearer ${g.platform.adminToken}`,
      ...example.headers,
    },
    body: JSON.stringify({ documentId: documentHash(example.document), variables: example.variables }),
    signal: abort.signal,
  });
  const payloads: Payload[] = [];
  if (!response.headers.get('content-type')?.match(/^(multipart\/mixed|text\/event-stream)/)) {
    payloads.push((await response.json()) as Payload);
  } else {
    for await (const payload of payloadsOf(response)) {
      payloads.push(payload);
      // A subscription's first event is the space's current revision.
      if (type === 'subscription') break;
    }
  }
  abort.abort();
  return { ...assemble(payloads), extensions: payloads.at(-1)?.extensions, upstream: g.platform.app.stats.count };
}

describe('the GraphiQL examples', () => {
  let demo: TestGateway;

  beforeAll(async () => {
    demo = await startTestGateway();
  });

  afterAll(async () => {
    await demo?.destroy();
  });

  it('cover every domain of the graph, one named operation each, all listed in docs/demo-data.md', () => {
    const names = EXAMPLE_OPERATIONS.map((example) => kindOf(example)[2]);
    const doc = readFileSync(new URL('../../docs/demo-data.md', import.meta.url), 'utf8');
    for (const name of names) expect(doc, name).toContain(`\`${name}\``);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(
      expect.arrayContaining([
        'Dashboard',
        'PageTreeAndMarkdown',
        'SearchOrganization',
        'EditAndMergeChangeRequest',
        'GitSync',
        'ResolveUrl',
        'Sites',
        'Translations',
        'OpenApi',
        'Integrations',
        'Conversations',
        'ExplainSpaces',
      ]),
    );
  });

  for (const example of EXAMPLE_OPERATIONS) {
    const [, type, name] = kindOf(example);
    it(`runs ${name} as written, without an error`, async () => {
      const g = type === 'mutation' ? await startTestGateway() : demo;
      try {
        const answer = await run(g, example);
        expect(answer.errors, JSON.stringify(answer.errors)).toEqual([]);
        expect(answer.upstream).toBeGreaterThan(0);
        for (const [field, value] of Object.entries(answer.data as Record<string, unknown>)) {
          // Every root field found what the variables name, and every mutation did what it says.
          expect(value, field).not.toBeNull();
          if (value && typeof value === 'object' && 'userErrors' in value)
            expect((value as { userErrors: unknown[] }).userErrors, field).toEqual([]);
        }
        if (example.headers?.['x-explain']) expect(answer.extensions?.explain?.requests.length).toBeGreaterThan(0);
      } finally {
        if (g !== demo) await g.destroy();
      }
    });
  }
});
